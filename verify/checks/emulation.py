"""``prove_emulation``: a hardmax Transformer equals a maxout network (or CPWL function) on the WHOLE box.

Method (exact, input dimension 1 or 2): the evaluation code of both sides is traced jointly on affine
forms (:mod:`verify.analysis.tracer`) over the *closed* box -- its open interior, its edges and its
corners -- splitting cells until every ReLU sign, every hardmax selection of the Transformer and
every argmax of the network is constant.  The final cells (relatively open intervals, points, open
polygons and segments) partition the box; on each, both sides are affine, and they are compared at
every vertex of the cell (two affine maps agree on a cell iff they agree at its vertices).  A
difference gives an exact rational witness in the cell, re-evaluated with exact arithmetic
(``EXACT`` ops) on both sides before REFUTED is reported.  Input dimension >= 3: exact evaluation
at seeded random rational points -- a difference is still an exact REFUTED witness; otherwise
INCONCLUSIVE with the sampled evidence attached.

>>> from verify.objects.maxout import MaxoutNetwork
>>> net = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])            # |x|
>>> same = lambda x, ops: (ops.max([x[0], -x[0]]),)
>>> prove_emulation((net, same), [(-1, 1)]).verdict.value
'proved'
>>> off = lambda x, ops: (ops.relu(x[0]),)
>>> r = prove_emulation((net, off), [(-1, 1)])
>>> r.verdict.value, r.certificate["summary"]
('refuted', 'at x = (-1) output 0: Transformer 0 != network 1 (tie rule average)')
"""

from __future__ import annotations

import inspect
import random
from fractions import Fraction
from typing import Any, Callable

from ..analysis.geometry import box_faces, parse_box_exact, to_fraction, to_q
from ..analysis.tracer import NotPiecewiseLinear, UntraceableCode, as_form, trace
from ..engines.exact import fraction_str
from ..errors import InputError, SizeLimitError
from ..objects.ops import EXACT, TIE_RULES
from ..results import Method, Result, Verdict

__all__ = ["prove_emulation", "AlteredCompiled", "alter_weight", "emulation_stages", "MAX_EXACT_DIM",
           "DEFAULT_MAX_CELLS"]

MAX_EXACT_DIM = 2
DEFAULT_MAX_CELLS = 50_000     # final cells of the closed cover (INCONCLUSIVE beyond, never a hang)
MAX_SAMPLE_DIM = 64
STATEMENT = ("the compiled hardmax Transformer equals the network at every point of the box "
             "(exact region decomposition, both sides affine and equal on every cell)")


# -- the two sides ------------------------------------------------------------------------------

def _is_compiled(obj) -> bool:
    return all(hasattr(obj, a) for a in ("transformer", "embed", "read"))


def _is_maxout(obj) -> bool:
    return type(obj).__name__ == "MaxoutNetwork" and hasattr(obj, "layer_apply")


def _accepts_tie(fn) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return "tie" in sig.parameters or any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


def _reference_stages(ref) -> list:
    """Stages state -> state computing the reference output into state[1]."""
    if _is_maxout(ref):
        stages = [(lambda s, ops, l=l: (s[0], ref.layer_apply(l, s[1], ops), s[2]))
                  for l in range(ref.depth)]
        stages.append(lambda s, ops: (s[0], tuple(ref.apply_readout(s[1], ops)), s[2]))
        return stages
    if hasattr(ref, "evaluate"):
        return [lambda s, ops: (s[0], _as_tuple(ref.evaluate(list(s[0]), ops=ops)), s[2])]
    if callable(ref):
        return [lambda s, ops: (s[0], _as_tuple(ref(list(s[0]), ops=ops)), s[2])]
    raise InputError("network", f"expected a MaxoutNetwork, a CPWL function or a callable, got {type(ref).__name__}")


def _as_tuple(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


def _target_stages(target, rules) -> list:
    """Stages computing the Transformer output for every tie rule into state[2][rule]."""
    if _is_compiled(target) and hasattr(target.transformer, "sublayers"):
        tr = target.transformer
        stages = [lambda s, ops: (s[0], s[1], {r: target.embed(list(s[0])) for r in rules})]
        for sub in tr.sublayers:
            stages.append(lambda s, ops, sub=sub: (s[0], s[1], {
                r: sub.apply(X, attention="hardmax", tie=r, ops=ops) for r, X in s[2].items()}))
        stages.append(lambda s, ops: (s[0], s[1], {r: _as_tuple(target.read(X)) for r, X in s[2].items()}))
        return stages
    if callable(target):
        if _accepts_tie(target):
            return [lambda s, ops: (s[0], s[1], {r: _as_tuple(target(list(s[0]), tie=r, ops=ops)) for r in rules})]
        return [lambda s, ops: (s[0], s[1], {r: _as_tuple(target(list(s[0]), ops=ops)) for r in rules})]
    raise InputError("transformer", f"expected a compiled Transformer or a callable, got {type(target).__name__}")


def emulation_stages(reference, target, rules) -> list:
    """The joint pipeline: reference layers, then embedding, sublayers and read-out of the target."""
    return _reference_stages(reference) + _target_stages(target, rules)


def _exact_reference(ref, x):
    if hasattr(ref, "evaluate"):
        return _as_tuple(ref.evaluate(list(x), ops=EXACT))
    return _as_tuple(ref(list(x), ops=EXACT))


def _exact_target(target, x, rule):
    if _is_compiled(target) and callable(target):
        return _as_tuple(target(list(x), tie=rule, ops=EXACT))
    if _accepts_tie(target):
        return _as_tuple(target(list(x), tie=rule, ops=EXACT))
    return _as_tuple(target(list(x), ops=EXACT))


# -- altered Transformers (for the "every check can fail" side) --------------------------------

class AlteredCompiled:
    """A compiled object whose Transformer was replaced (same embedding and read-out)."""

    def __init__(self, base, transformer, note: str = ""):
        self.base = base
        self.transformer = transformer
        self.note = note
        self.source = getattr(base, "source", None)
        self.box = getattr(base, "box", None)

    def embed(self, x):
        return self.base.embed(x)

    def read(self, X):
        return self.base.read(X)

    def __call__(self, x, tie="average", ops=EXACT):
        X = self.transformer.evaluate(self.embed(x), tie=tie, ops=ops)
        return self.read(X)


def alter_weight(compiled, sublayer: int, name: str, index, delta=1, head: int = 0) -> AlteredCompiled:
    """Copy of ``compiled`` with one weight changed by ``delta``: ``name`` in W1, b1, W2, b2 (FFN) or
    W_Q, W_K, W_V, W_O (of ``head``, attention); ``index`` = (row, col) for matrices, row for vectors."""
    from ..objects.transformer import Attention, FeedForward, Head, Transformer

    tr = compiled.transformer
    subs = list(tr.sublayers)
    if not isinstance(sublayer, int) or not 0 <= sublayer < len(subs):
        raise InputError("sublayer", f"must be an index in [0, {len(subs) - 1}], got {sublayer!r}")
    delta = Fraction(delta)
    sub = subs[sublayer]

    def bump(mat, idx, field):
        rows = [list(r) for r in mat] if isinstance(mat[0], (list, tuple)) else list(mat)
        try:
            if isinstance(rows[0], list):
                i, j = idx
                rows[i][j] = rows[i][j] + delta
            else:
                rows[idx] = rows[idx] + delta
        except (IndexError, TypeError, ValueError):
            raise InputError("index", f"{idx!r} is not a valid index of {field}") from None
        return rows

    if getattr(sub, "kind", "") == "ffn":
        parts = {"W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}
        if name not in parts:
            raise InputError("name", f"FFN weights are W1, b1, W2, b2, got {name!r}")
        parts[name] = bump(parts[name], index, name)
        new = FeedForward(parts["W1"], parts["b1"], parts["W2"], parts["b2"])
    else:
        heads = list(sub.heads)
        if not 0 <= head < len(heads):
            raise InputError("head", f"must be in [0, {len(heads) - 1}], got {head!r}")
        hd = heads[head]
        parts = {"W_Q": hd.W_Q, "W_K": hd.W_K, "W_V": hd.W_V, "W_O": hd.W_O}
        if name not in parts:
            raise InputError("name", f"head weights are W_Q, W_K, W_V, W_O, got {name!r}")
        parts[name] = bump(parts[name], index, name)
        heads[head] = Head(parts["W_Q"], parts["W_K"], parts["W_V"], parts["W_O"])
        new = Attention(heads)
    subs[sublayer] = new
    names = getattr(tr, "coordinate_names", None)
    return AlteredCompiled(compiled, Transformer(subs, coordinate_names=names),
                           note=f"sublayer {sublayer} {name}{list(index) if isinstance(index, tuple) else [index]} "
                                f"+= {fraction_str(delta)}")


# -- the proof ----------------------------------------------------------------------------------

def _map_json(form, d) -> list:
    return as_form(form, d).to_fractions()


def _witness_in(cell, diff_at):
    """A rational point of the (relatively open) cell where the affine difference is non-zero."""
    c = cell.interior_point()
    if diff_at(c):
        return c
    for v in cell.vertices:
        if diff_at(v):
            return tuple((a + b) / 2 for a, b in zip(c, v))
    return None


def _resolve(target, box, tie, reference):
    if tie == "both":
        rules = list(TIE_RULES)
    elif tie in TIE_RULES:
        rules = [tie]
    else:
        raise InputError("tie", f"must be one of average, first, both, got {tie!r}")
    compiled = None
    if isinstance(target, (tuple, list)):
        if len(target) != 2:
            raise InputError("net_or_compiled", "a pair must be (network, transformer)")
        reference, compiled = target
    elif _is_compiled(target):
        compiled = target
        reference = reference if reference is not None else getattr(target, "source", None)
        if reference is None:
            raise InputError("net_or_compiled", "the compiled object has no source network; pass (network, compiled)")
    elif _is_maxout(target):
        reference = target
        if box is None:
            raise InputError("box", "needed to compile a network (a list of [lo, hi] per input coordinate)")
        from ..constructions.maxout_compiler import compile_maxout

        compiled = compile_maxout(target, box)
    else:
        raise InputError("net_or_compiled", f"expected a MaxoutNetwork, a compiled Transformer or a pair, "
                                            f"got {type(target).__name__}")
    if box is None:
        box = getattr(compiled, "box", None)
        if box is None:
            raise InputError("box", "missing")
    d = getattr(reference, "input_dim", None) or len(box)
    bx = parse_box_exact(box, "box", max_dim=MAX_SAMPLE_DIM)
    if len(bx) != d:
        raise InputError("box", f"expected {d} intervals (the input dimension), got {len(bx)}")
    return reference, compiled, bx, rules


def _lemma_certificate(reference, compiled, bx) -> dict:
    out = {}
    S = getattr(compiled, "S", None)
    if S is None:
        return {"note": "no gate constant S recorded on the target; lemma certificate not applicable"}
    out["S"] = Fraction(S)
    bound = None
    if _is_maxout(reference):
        bound = reference.interval_bounds(tuple(bx))["S"]
        out["S_bound_interval_propagation"] = bound
        out["hypothesis_S_ge_bound"] = Fraction(S) >= bound
        out["argument"] = ("R4: every piece is bounded by S on the box (exact interval propagation), so each "
                           "one-hot gate (T3) passes exactly piece j at token j and each hardmax head (T1) returns "
                           "the unit's max under both tie rules")
    return out


def prove_emulation(net_or_compiled, box=None, tie: str = "both", *, reference=None, claim: str = "T6",
                    max_cells: int = DEFAULT_MAX_CELLS, samples: int = 200, seed: int = 0,
                    record_regions: bool = True) -> Result:
    """PROVED / REFUTED (exact witness) / INCONCLUSIVE that the Transformer equals the network on the box.

    ``net_or_compiled``: a MaxoutNetwork (compiled here with ``compile_maxout(net, box)``), a compiled
    object (``.transformer``, ``.embed``, ``.read``, ``.source``), or a pair ``(network, transformer)``
    where the transformer is a compiled-like object or a callable ``f(x, tie=..., ops=...)`` /
    ``f(x, ops=...)`` and the network anything with ``evaluate(x, ops=...)``.
    ``tie``: ``"both"`` (default), ``"average"`` or ``"first"``.
    """
    if not isinstance(max_cells, int) or not 1 <= max_cells <= 2_000_000:
        raise InputError("max_cells", f"must be an integer in [1, 2000000], got {max_cells!r}")
    if not isinstance(samples, int) or not 1 <= samples <= 100_000:
        raise InputError("samples", f"must be an integer in [1, 100000], got {samples!r}")
    ref, target, bx, rules = _resolve(net_or_compiled, box, tie, reference)
    d = len(bx)
    params = {"box": [list(iv) for iv in bx], "tie": tie, "input_dim": d}
    conventions = {"tie_rules": rules, "attention": "hardmax", "region_cover": "closed box (interior, edges, corners)"}
    if _is_maxout(ref):
        params["network"] = ref.to_dict()
    lemma = _lemma_certificate(ref, target, bx)
    note = getattr(target, "note", "")
    if note:
        params["alteration"] = note
    if d > MAX_EXACT_DIM:
        return _sampled(claim, ref, target, bx, rules, samples, seed, params, conventions, lemma)

    stages = emulation_stages(ref, target, rules)
    try:
        cells = trace(stages, box_faces(bx), initial=(_identity(d), _identity(d), None), closed=True,
                      max_cells=max_cells, keep_patterns=False)
    except SizeLimitError as exc:
        return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                      certificate={"summary": f"region decomposition stopped: {exc}", "lemma": lemma},
                      parameters=params, conventions=conventions)
    except (NotPiecewiseLinear, UntraceableCode) as exc:
        return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                      certificate={"summary": f"not traceable as a piecewise-affine function: {exc}", "lemma": lemma},
                      parameters=params, conventions=conventions)
    cells.sort(key=lambda c: (tuple(min(v[i] for v in c.cell.vertices) for i in range(d)), c.cell.dim,
                              c.cell.vertices))
    regions = []
    for tc in cells:
        _, net_out, outs = tc.value
        net_forms = [as_form(v, d) for v in net_out]
        for rule in rules:
            t_forms = [as_form(v, d) for v in outs[rule]]
            if len(t_forms) != len(net_forms):
                raise InputError("transformer", f"output length {len(t_forms)} differs from the network's "
                                                f"{len(net_forms)}")
            for o, (a, b) in enumerate(zip(net_forms, t_forms)):
                diff = a - b
                if all(diff.at(v) == 0 for v in tc.cell.vertices):
                    continue
                wit = _witness_in(tc.cell, lambda p: diff.at(p) != 0)
                return _refuted(claim, ref, target, tc, wit, rule, o, params, conventions, lemma, len(cells))
        if record_regions:
            regions.append({"dim": tc.cell.dim,
                            "vertices": tc.cell.vertices_fraction(),
                            "network": [f.to_fractions() for f in net_forms],
                            "transformer": {r: [_map_json(v, d) for v in outs[r]] for r in rules}})
    n_open = sum(1 for c in cells if c.cell.dim == d)
    summary = (f"equal on all of the box: {n_open} open cells + {len(cells) - n_open} lower-dimensional cells, "
               f"both tie rules" if len(rules) == 2 else f"tie rule {rules[0]}")
    if "hypothesis_S_ge_bound" in lemma:
        summary += f"; lemma: S = {fraction_str(lemma['S'])} >= certified bound " \
                   f"{fraction_str(lemma['S_bound_interval_propagation'])}: {lemma['hypothesis_S_ge_bound']}"
    cert = {"summary": summary, "box": [list(iv) for iv in bx], "input_dim": d,
            "tie_rules": rules, "cells": len(cells), "open_cells": n_open, "lemma": lemma}
    if _is_maxout(ref):
        # re-checkable from the data alone: the re-checker evaluates the recorded network independently
        cert["network"] = ref.to_dict()
        if record_regions:
            cert["kind"] = "emulation-regions"
    if record_regions:
        cert["regions"] = regions
    return Result(claim, STATEMENT, Verdict.PROVED, Method.EXACT, certificate=cert, parameters=params,
                  conventions=conventions)


def _identity(d):
    from ..analysis.tracer import identity_forms

    return identity_forms(d)


def _refuted(claim, ref, target, tc, wit, rule, o, params, conventions, lemma, n_cells):
    if wit is None:
        return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                      certificate={"summary": "maps differ on a cell but no witness point was found"},
                      parameters=params, conventions=conventions)
    x = [to_fraction(c) for c in wit]
    a = _exact_reference(ref, x)
    b = _exact_target(target, x, rule)
    if a == b:
        return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                      certificate={"summary": "traced maps differ but exact re-evaluation agrees at the witness "
                                              "(tracer inconsistency)", "x": x},
                      parameters=params, conventions=conventions)
    idx = next(i for i, (u, v) in enumerate(zip(a, b)) if u != v)
    summary = (f"at x = ({', '.join(fraction_str(c) for c in x)}) output {idx}: Transformer "
               f"{fraction_str(b[idx])} != network {fraction_str(a[idx])} (tie rule {rule})")
    cert = {"summary": summary,
            "witness": {"x": x, "tie": rule, "network": list(a), "transformer": list(b), "output_index": idx},
            "cell": {"dim": tc.cell.dim, "vertices": tc.cell.vertices_fraction()}, "lemma": lemma}
    cert.update(_witness_record(ref, target, x, rule, b))
    if "transformer_sublayers" in cert:
        # pin the refuted Transformer in the statement's parameters: a re-checker compares the digest
        import hashlib

        from ..canonical import canonical_dumps

        digest = hashlib.sha256(canonical_dumps(cert["transformer_sublayers"]).encode("utf-8")).hexdigest()
        params = dict(params, transformer_sha256=digest)
    return Result(claim, STATEMENT, Verdict.REFUTED, Method.EXACT, certificate=cert, parameters=params,
                  conventions=conventions)


def _sublayer_record(sub) -> dict:
    if getattr(sub, "kind", "") == "ffn":
        return {"kind": "ffn", "W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}
    return {"kind": "attention", "heads": [{"W_Q": h.W_Q, "W_K": h.W_K, "W_V": h.W_V, "W_O": h.W_O}
                                           for h in sub.heads]}


def _witness_record(ref, target, x, rule, out) -> dict:
    """Data for the independent re-check of a witness (kind ``emulation-witness``): the network, every
    sublayer's weights, the embedded token matrix at x and the read-out rule (h-block of token 0, then the
    network's read-out).  Recorded only when that rule reproduces the target's own read-out exactly."""
    if not (_is_maxout(ref) and _is_compiled(target) and hasattr(target.transformer, "sublayers")):
        return {}
    try:
        X0 = target.embed(list(x))
        Xf = target.transformer.evaluate(X0, tie=rule, ops=EXACT)
        rows = list(range(ref.widths[-1]))
        if tuple(ref.apply_readout(tuple(Xf[i][0] for i in rows))) != tuple(out):
            return {}
        subs = [_sublayer_record(s) for s in target.transformer.sublayers]
    except (AttributeError, TypeError, IndexError):
        return {}
    return {"kind": "emulation-witness", "network": ref.to_dict(), "transformer_sublayers": subs,
            "embedded_X": [list(r) for r in X0], "read": {"rows": rows, "token": 0, "then": "network readout"}}


def _sampled(claim, ref, target, bx, rules, samples, seed, params, conventions, lemma):
    rng = random.Random(seed)
    pts = []
    if len(bx) <= 8:
        for mask in range(2 ** len(bx)):
            pts.append([hi if mask >> i & 1 else lo for i, (lo, hi) in enumerate(bx)])
    while len(pts) < samples + (2 ** len(bx) if len(bx) <= 8 else 0):
        pts.append([lo + (hi - lo) * Fraction(rng.randint(0, 1024), 1024) for lo, hi in bx])
    max_diff = Fraction(0)
    for x in pts:
        a = _exact_reference(ref, x)
        for rule in rules:
            b = _exact_target(target, x, rule)
            if a != b:
                idx = next(i for i, (u, v) in enumerate(zip(a, b)) if u != v)
                return Result(claim, STATEMENT, Verdict.REFUTED, Method.EXACT,
                              certificate={"summary": f"sampled point: Transformer {fraction_str(b[idx])} != "
                                                      f"network {fraction_str(a[idx])} (tie {rule})",
                                           "witness": {"x": x, "tie": rule, "network": list(a), "transformer": list(b),
                                                       "output_index": idx}, "lemma": lemma},
                              parameters=params, conventions=conventions, seeds={"samples": seed})
    return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                  certificate={"summary": f"input dimension {len(bx)} > {MAX_EXACT_DIM}: no exact region "
                                          f"decomposition; equal at all {len(pts)} sampled rational points",
                               "lemma": lemma},
                  parameters=params, conventions=conventions, seeds={"samples": seed},
                  evidence={"points": len(pts), "all_equal": True, "max_abs_difference": max_diff,
                            "point_set": "box corners + uniform k/1024 grid points (seeded)"})
