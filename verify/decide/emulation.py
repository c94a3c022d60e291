"""``prove_emulation``: a hardmax Transformer equals a maxout network (or CPWL function) on the WHOLE box.

Method (exact, input dimension 1 or 2): the evaluation code of both sides is traced jointly on affine
forms (:mod:`verify.decide.tracer`) over the *closed* box -- its open interior, its edges and its
corners -- splitting cells until every ReLU sign, every hardmax selection of the Transformer and
every argmax of the network is constant.  The final cells (relatively open intervals, points, open
polygons and segments) partition the box.  This is the *search*: the Result carries only the cells, and the
kernel (:mod:`verify.kernel.emulation`, kind ``emulation-regions``) re-evaluates both sides from the
recorded weights (parameters ``network`` and ``transformer``) on every cell, checks that every decision is
constant there and that the affine maps agree, and checks that the cells partition the closed box.  A
difference gives an exact rational witness in the cell (kind ``emulation-witness``: the kernel embeds x
and evaluates both sides itself).  Input dimension 3..6 with recorded weights: exact polyhedral cells
(:mod:`verify.decide.polytope`, kind ``emulation-polytope``, docs/regions.md "Polyhedral cells in any
dimension").  Otherwise (d > 6 or a Python callable) for d >= 3: exact evaluation at seeded random rational
points -- a difference is an exact REFUTED witness; otherwise INCONCLUSIVE with the sampled evidence attached.

A decided verdict needs what the kernel can re-check: a maxout network in the SPEC format (a
``MaxoutNetwork``, or an object with ``.maxout`` / ``spec_network=``) and a compiled Transformer with recorded
weights (``.transformer``, ``.embed``, ``.read``).  A Python callable on either side can still be traced, but
the answer is then INCONCLUSIVE (with the equality or the witness as evidence): the kernel cannot evaluate it.

Algorithm
---------
1. Resolve the two sides (compile a bare ``MaxoutNetwork`` with ``compile_maxout``), parse the box
   (degenerate sides allowed), record the Transformer's weights (:func:`transformer_json`, by probing
   ``embed`` / ``read``); with ``formula``, compare the sizes with the R4 / R8 formulas first.
2. A given ``witness`` point is evaluated exactly on both sides first.
3. d <= 2: :func:`~verify.decide.tracer.trace` of the joint stages (network layers, then embedding,
   sublayers and read-out of the Transformer for every tie rule) over :func:`~verify.decide.geometry.box_faces`
   (``closed=True``); on every final cell the affine maps are compared at every vertex.  Cost: one stage
   run per (cell, stage), the number of cells being that of the joint decomposition; a tie-free sublayer is
   evaluated once for both tie rules, and its decision-free work once per input object across the cells
   (:func:`_apply_rules`; docs/regions.md, "Shared work": the cells and certificate are unchanged).
4. d = 3..6 with recorded weights: the polyhedral-cell search (:func:`verify.decide.polytope.emulation_search`)
   over the 3^d faces of the closed box, at most ``max_cells`` leaves and ``time_budget`` seconds (default 600).
5. otherwise d >= 3: exact evaluation at the 2^d box corners (d <= 8) and ``samples`` seeded points of the grid
   k/1024 of the box (a compiled Transformer once per point when that evaluation met no tie).

Soundness
---------
Exact rational arithmetic and the tracer's partition of the closed box (:mod:`verify.decide.tracer`).
PROVED (kind ``emulation-regions``) and REFUTED (``emulation-witness``, or ``emulation-sizes`` for a size
formula) are re-checked by the kernel from the recorded weights (docs/regions.md, "Re-checking by the
kernel"); a REFUTED witness is re-evaluated exactly on both sides before it is reported.  The lemma entry
(S against the interval-propagation bound, the R4 hypothesis) is evidence only.  Sampling (d > 6, callables) can
only refute: equality at the sampled points is INCONCLUSIVE.

Limits
------
INCONCLUSIVE when: the cover needs more than ``max_cells`` final cells (default ``DEFAULT_COVER_CELLS`` =
50,000, accepted up to 2,000,000) or the decomposition outlives ``time_budget`` seconds (default None: no time
limit; at most ``MAX_TIME_BUDGET``, a week) -- budgets, not caps: the evidence's ``partial`` gives the cells
finished and checked equal and the exact fraction of the box they cover; the code is not piecewise affine
or not traceable (an exact point witness from up to ``samples`` points is still tried for recorded weights);
the output counts differ;
a side is a Python callable (no kernel certificate); the ``network`` given for the kernel differs from the
traced reference on a cell; d = 3..6 and a budget runs out (partial coverage in the evidence) or no exact
certificate is found; or d > 6 and every sampled point agrees.  Box dimension at most 64, samples in
[1, 100000].

>>> from verify.objects.maxout import MaxoutNetwork
>>> from verify.constructions.maxout_compiler import compile_maxout
>>> net = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])            # |x|
>>> prove_emulation(compile_maxout(net, [[-1, 1]])).verdict.value
'proved'
>>> same = lambda x, ops: (ops.max([x[0], -x[0]]),)
>>> r = prove_emulation((net, same), [(-1, 1)])
>>> r.verdict.value, r.certificate["summary"][:60]
('inconclusive', 'equal on all of the box (5 cells), but the target is a Pytho')
"""

from __future__ import annotations

import inspect
import random
import time
from fractions import Fraction
from typing import Any, Callable

from .geometry import box_faces, to_fraction, to_q
from ..canonical import jsonable
from .tracer import MAX_TRACED_CELLS, NotPiecewiseLinear, TracedCell, TracingContext, UntraceableCode, as_form, trace
from ..arith.exact import fraction_str, parse_box, parse_positive, parse_exact as parse_exact_num
from ..errors import BudgetExhausted, InputError, SizeLimitError
from ..arith.context import EXACT, ExactContext
from ..constructions.cpwl_compiler import CompiledCPWL
from ..constructions.maxout_compiler import CompiledMaxout
from ..objects.maxout import MaxoutNetwork
from ..objects.transformer import TIE_RULES, Attention, FeedForward, _winners
from ..results import Method, Result, Verdict, check_label

__all__ = ["prove_emulation", "AlteredCompiled", "alter_weight", "emulation_stages", "MAX_EXACT_DIM",
           "DEFAULT_COVER_CELLS", "MAX_TIME_BUDGET", "BudgetExhausted", "compile_budget_result"]

MAX_EXACT_DIM = 2
MAX_POLYTOPE_DIM = 6           # d = 3..6: exact polyhedral cells (verify.decide.polytope)
DEFAULT_COVER_CELLS = 50_000   # default max_cells: final cells of the closed cover (INCONCLUSIVE beyond, never a hang)
MAX_TIME_BUDGET = 7 * 24 * 3600   # seconds: a larger time_budget is refused as absurd (None: no time limit)
MAX_SAMPLE_DIM = 64
STATEMENT = ("the compiled hardmax Transformer equals the network at every point of the box "
             "(exact region decomposition, both sides affine and equal on every cell)")


# -- the two sides ------------------------------------------------------------------------------

def _is_compiled(obj) -> bool:
    return all(hasattr(obj, a) for a in ("transformer", "embed", "read"))


def _is_maxout(obj) -> bool:
    return isinstance(obj, MaxoutNetwork)


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
        memo = {}                 # shared by the cells of one run (values only: see _apply_rules)

        def embed(s, ops):
            if not (SHARE_ACROSS_CELLS and isinstance(ops, TracingContext)):
                return (s[0], s[1], dict.fromkeys(rules, target.embed(list(s[0]))))
            hit = memo.get(("embed", id(s[0])))
            if hit is None:           # the input forms are one object for every cell: one embedding of them
                hit = memo[("embed", id(s[0]))] = (s[0], target.embed(list(s[0])))
            return (s[0], s[1], dict.fromkeys(rules, hit[1]))

        stages = [embed]
        for sub in tr.sublayers:
            stages.append(lambda s, ops, sub=sub: (s[0], s[1], _apply_rules(sub, s[2], ops, memo)))
        stages.append(lambda s, ops: (s[0], s[1], {r: _as_tuple(target.read(X)) for r, X in s[2].items()}))
        return stages
    if callable(target):
        if _accepts_tie(target):
            return [lambda s, ops: (s[0], s[1], {r: _as_tuple(target(list(s[0]), tie=r, ops=ops)) for r in rules})]
        return [lambda s, ops: (s[0], s[1], {r: _as_tuple(target(list(s[0]), ops=ops)) for r in rules})]
    raise InputError("transformer", f"expected a compiled Transformer or a callable, got {type(target).__name__}")


SHARE_TIE_FREE = True      # False: every tie rule evaluates every sublayer (the same cells and certificate)
SHARE_ACROSS_CELLS = True  # False: every cell evaluates every sublayer from scratch (the same cells and certificate)
_MEMO_ENTRIES = 200_000    # the cross-cell memo is cleared past this many entries (it only saves work)


def _ffn_across(sub, X, ops, memo):
    """``sub.apply(X, ops=ops)`` for a FeedForward under the tracer, sharing work between the cells of one run.

    The pre-activations W1 x + b1 of every token are linear in the input values (no decision, the same on every
    cell): computed once per input object.  Each cell then asks its own ReLU decisions, token by token and unit
    by unit as :meth:`FeedForward.apply` does; the output of a token is a function of its pre-activations and
    the decided pattern only (an active unit passes its value, an inactive one gives 0), so it is computed once
    per (input, token, pattern) with the arithmetic of :meth:`FeedForward.apply`, and the output matrix once
    per (input, whole pattern): equal patterns give the same objects, which the next sublayer shares in turn."""
    key = ("ffn", id(sub), id(X))
    hit = memo.get(key)
    if hit is None:
        cols = list(zip(*X))
        dot = ops.sparse_combination
        pre = [[dot(col, row, b) for row, b in zip(sub._w1, sub.b1)] for col in cols]
        hit = memo[key] = (sub, X, cols, pre, {}, {})
    _, _, cols, pre, per_token, whole = hit
    pats, outs = [], []
    for j, col in enumerate(cols):
        act = [ops.relu(u) for u in pre[j]]
        pat = tuple(a is u for a, u in zip(act, pre[j]))
        pats.append(pat)
        new = per_token.get((j, pat))
        if new is None:
            new = sub.output_column(col, act, ops)
            per_token[(j, pat)] = new
        outs.append(new)
    pats = tuple(pats)
    Y = whole.get(pats)
    if Y is None:
        Y = whole[pats] = tuple(tuple(outs[j][e] for j in range(len(cols))) for e in range(len(X)))
    return Y


def _attention_across(sub, X, tie, ops, memo):
    """Hardmax ``sub.apply(X, tie=tie, ops=ops)`` for an Attention under the tracer, sharing work between the
    cells of one run: the projections W_Q x, W_K x, W_V x (linear, no decision) once per input object; the
    scores (their products need a factor constant on the cell: decided on this cell) and the argmax sets per
    cell, head by head and query by query as :meth:`Head.contributions` asks them; the output, a function of
    the input and the winners only, once per (input, tie rule, winners)."""
    key = ("attention", id(sub), id(X))
    hit = memo.get(key)
    if hit is None:
        cols = list(zip(*X))
        hit = memo[key] = (sub, X, cols, [head._project_all(cols, ops) for head in sub.heads], {})
    _, _, cols, proj, outputs = hit
    winners = []
    for head, (qs, ks, vs) in zip(sub.heads, proj):
        by_query = {}
        winners.append(tuple(_winners(head._scores(qs, ks, j, by_query, ops), tie, ops) for j in range(len(cols))))
    wkey = (tie, tuple(winners))
    Y = outputs.get(wkey)
    if Y is None:
        contribs = []
        for head, (_, _, vs), won in zip(sub.heads, proj, winners):
            by_winners = {}
            contribs.append([head._weighted(vs, w, by_winners) for w in won])
        Y = outputs[wkey] = sub._write(X, cols, contribs, ops)
    return Y


def _apply_rules(sub, states, ops, memo=None) -> dict:
    """``{rule: sub.apply(X, tie=rule)}`` for the states of every tie rule.  Under the tracer, a rule whose
    input is the same object as an earlier rule's reuses that rule's output when the earlier evaluation met no
    tie (every ``argmax_set`` it asked, recorded in ``ops.pattern``, has one member): the sublayer's output then
    does not depend on the tie rule (an FFN ignores it; hardmax weights depend on it only through argmax sets
    of two or more members), and the skipped evaluation would ask the same decisions of the same values on the
    same cell, all already decided there -- the cells, maps and certificate are unchanged, only the repeated
    arithmetic is saved.  With ``memo`` (one dict per run), FFN and attention sublayers share their
    decision-free work between cells (:func:`_ffn_across`, :func:`_attention_across`)."""
    out, done = {}, {}
    known = isinstance(ops, TracingContext) and type(sub) in (Attention, FeedForward)
    share = SHARE_TIE_FREE and known
    across = SHARE_ACROSS_CELLS and known and memo is not None
    if across and len(memo) > _MEMO_ENTRIES:
        memo.clear()
    for r, X in states.items():
        hit = done.get(id(X)) if share else None
        if hit is not None:
            out[r] = hit
            continue
        n0 = len(ops.pattern) if share else 0
        if not across:
            y = out[r] = sub.apply(X, attention="hardmax", tie=r, ops=ops)
        elif type(sub) is FeedForward:
            y = out[r] = _ffn_across(sub, X, ops, memo)
        else:
            y = out[r] = _attention_across(sub, X, r, ops, memo)
        if share and all(e[0] != "a" or len(e[1]) == 1 for e in ops.pattern[n0:]):
            done[id(X)] = y
    return out


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


def _resolve(target, box, tie, reference, S=None, deadline=None):
    if not isinstance(tie, str):
        raise InputError("tie", f"must be one of average, first, both, got {type(tie).__name__} {tie!r}")
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
        if S is not None:
            raise InputError("S", "is the gate constant used when compiling a MaxoutNetwork; a (network, "
                                  "transformer) pair is already compiled")
    elif _is_compiled(target):
        compiled = target
        reference = reference if reference is not None else getattr(target, "source", None)
        if reference is None:
            raise InputError("net_or_compiled", "the compiled object has no source network; pass (network, compiled)")
        if S is not None:
            have = getattr(target, "S", None)
            if have is None or parse_positive(S, "S") != have:
                raise InputError("S", f"the target is already compiled with S = "
                                      f"{'unknown' if have is None else fraction_str(have)}; give S only with a "
                                      "MaxoutNetwork (it is compiled here with that S)")
    elif _is_maxout(target):
        reference = target
        if box is None:
            raise InputError("box", "needed to compile a network (a list of [lo, hi] per input coordinate)")
        from ..constructions.maxout_compiler import compile_maxout

        compiled = compile_maxout(target, box, S=None if S is None else parse_positive(S, "S"), deadline=deadline)
    else:
        raise InputError("net_or_compiled", f"expected a MaxoutNetwork, a compiled Transformer or a pair, "
                                            f"got {type(target).__name__}")
    if box is None:
        box = getattr(compiled, "box", None)
        if box is None:
            raise InputError("box", "missing")
    d = getattr(reference, "input_dim", None) or len(box)
    bx = parse_box(box, d, max_dim=MAX_SAMPLE_DIM, degenerate=True)
    return reference, compiled, bx, rules


def _lemma(reference, compiled, bx) -> dict:
    """Evidence only (not re-checked by the kernel): the R4 hypothesis S >= the interval-propagation bound."""
    S = getattr(compiled, "S", None)
    if S is None:
        return {"note": "no gate constant S recorded on the target"}
    out = {"S": Fraction(S)}
    if _is_maxout(reference):
        bound = reference.interval_bounds(tuple(bx))["S"]
        out.update({"S_bound_interval_propagation": bound, "hypothesis_S_ge_bound": Fraction(S) >= bound,
                    "argument": "R4: every piece is bounded by S on the box (exact interval propagation), so each "
                                "one-hot gate (T3) passes exactly piece j at token j and each hardmax head (T1) "
                                "returns the unit's max under both tie rules"})
    return out


# -- what the kernel reads ------------------------------------------------------------------------

def spec_network(obj):
    """The SPEC-format dict of a maxout network (a MaxoutNetwork, or an object with ``.maxout``), else None."""
    if _is_maxout(obj):
        return obj.to_dict()
    inner = getattr(obj, "maxout", None)
    if inner is not None and _is_maxout(inner):
        return inner.to_dict()
    return None


def _sublayer_json(sub) -> dict:
    if getattr(sub, "kind", "") == "ffn":
        return {"ffn": {"W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}}
    return {"attention": [{"W_Q": h.W_Q, "W_K": h.W_K, "W_V": h.W_V, "W_O": h.W_O} for h in sub.heads]}


def transformer_json(compiled, d: int):
    """The exact recorded form of a compiled hardmax Transformer (format of
    :func:`verify.kernel._cells.read_transformer`): sublayer weights, the embedding x -> X as ``one + sum_m
    x_m x[m]`` and the read-out ``W X[:, token] + b``, both recovered from ``embed`` / ``read`` by probing
    and then checked on a test point.  ``None`` if the object is not of that shape (the read-out must read
    one token affinely)."""
    if not (_is_compiled(compiled) and hasattr(compiled.transformer, "sublayers")):
        return None
    tr = compiled.transformer
    try:
        zero = [Fraction(0)] * d
        X0 = [list(r) for r in compiled.embed(zero)]
        E, n = len(X0), len(X0[0])
        xs = []
        for m in range(d):
            Xm = compiled.embed([Fraction(int(i == m)) for i in range(d)])
            xs.append([[Fraction(a) - Fraction(b) for a, b in zip(r, r0)] for r, r0 in zip(Xm, X0)])
        probe = [Fraction(2 * m + 1, 3 + m) for m in range(d)]
        want = [[X0[e][j] + sum((probe[m] * xs[m][e][j] for m in range(d)), Fraction(0)) for j in range(n)]
                for e in range(E)]
        if [list(map(Fraction, r)) for r in compiled.embed(probe)] != want:
            return None
        Z = tuple(tuple(Fraction(0) for _ in range(n)) for _ in range(E))
        b = [Fraction(v) for v in compiled.read(Z)]
        cols, token = {}, None
        for e in range(E):
            for j in range(n):
                U = tuple(tuple(Fraction(int(ee == e and jj == j)) for jj in range(n)) for ee in range(E))
                col = [Fraction(v) - c for v, c in zip(compiled.read(U), b)]
                if any(col):
                    if token not in (None, j):
                        return None
                    token = j
                    cols[e] = col
        token = 0 if token is None else token
        W = [[cols[e][o] if e in cols else Fraction(0) for e in range(E)] for o in range(len(b))]
        names = list(getattr(tr, "coordinate_names", None) or [f"c{e}" for e in range(E)])
    except (AttributeError, TypeError, IndexError, ValueError, InputError):
        return None
    return jsonable({"tokens": n, "coordinates": names, "embed": {"one": X0, "x": xs},
                     "sublayers": [_sublayer_json(s) for s in tr.sublayers],
                     "read": {"token": token, "W": W, "b": b}})


def kernel_parameters(network: dict, transformer: dict, box, tie: str, formula=None) -> dict:
    """The parameters of an ``emulation-*`` Result, with the sizes recomputed by the kernel itself."""
    from ..kernel._cells import read_transformer, transformer_sizes

    params = {"network": jsonable(network), "transformer": transformer, "box": jsonable([list(iv) for iv in box]),
              "tie": tie, "sizes": transformer_sizes(read_transformer(transformer, "transformer"))}
    if formula is not None:
        params["formula"] = formula
    return params


def size_problems(params: dict) -> list:
    """The size entries that violate ``params["formula"]`` (computed by the kernel's own functions)."""
    from ..kernel import _cells, emulation as kernel_emulation

    net = _cells.read_maxout(params["network"], "network")
    want = kernel_emulation.formula_sizes(net, params["formula"])
    return kernel_emulation._formula_holds(params["sizes"], want)


def kernel_statement(params: dict, conventions: dict, kind: str) -> str:
    from ..kernel import emulation as kernel_emulation

    return kernel_emulation.statement(params, jsonable(conventions), kind)


def _cell_json(cell) -> list:
    """The vertices of a traced cell, polygons made strictly convex (collinear vertices dropped)."""
    vs = cell.vertices_fraction()
    if len(vs) >= 3:
        out = []
        for i, v in enumerate(vs):
            p, q = vs[i - 1], vs[(i + 1) % len(vs)]
            if (v[0] - p[0]) * (q[1] - p[1]) - (v[1] - p[1]) * (q[0] - p[0]) != 0:
                out.append(v)
        vs = out
    return [list(v) for v in vs]


def _result(claim, verdict, statement, cert, params, conventions, evidence, seeds=None):
    return Result(claim, statement, verdict, Method.EXACT, certificate=cert, parameters=params,
                  conventions=conventions, evidence=evidence, seeds=seeds or {})


def prove_emulation(net_or_compiled, box=None, tie: str = "both", *, S=None, reference=None, claim: str = "T6",
                    max_cells: int = DEFAULT_COVER_CELLS, samples: int = 200, seed: int = 0,
                    record_regions: bool = True, network=None, formula=None, witness=None, label=None,
                    time_budget=None, progress=None) -> Result:
    """PROVED / REFUTED (exact witness) / INCONCLUSIVE that the Transformer equals the network on the box.

    ``net_or_compiled``: a MaxoutNetwork (compiled here with ``compile_maxout(net, box, S=S)``), a compiled
    object (``.transformer``, ``.embed``, ``.read``, ``.source``), or a pair ``(network, transformer)``
    where the transformer is a compiled-like object or a callable ``f(x, tie=..., ops=...)`` /
    ``f(x, ops=...)`` and the network anything with ``evaluate(x, ops=...)``.
    ``network``: the MaxoutNetwork the kernel evaluates (default: the reference itself, or its ``.maxout``);
    it must be the same function as the traced reference.  ``formula``: ``"R4"`` / ``"R8"`` to claim the
    construction's size formulas too.  ``tie``: the hardmax tie rule(s) proved, ``"both"`` (default),
    ``"average"`` or ``"first"``.  ``S``: the gate constant of the compiler (an exact number > 0, as
    ``verify maxout --S``); only with a MaxoutNetwork, default the certified interval-propagation bound (the R4
    hypothesis is S >= that bound; a smaller S compiles a Transformer that may differ from the network,
    which is then REFUTED with a witness).  With a compiled target, ``S`` must be the one it was compiled with.
    ``label``: the user's name for the Result (``Result.label``: metadata, not part of what is claimed).
    ``record_regions``: put every cell's exact maps in the evidence.  ``witness``: a point of the box tried
    first (REFUTED there if the two sides differ; otherwise the full decomposition runs).
    ``time_budget``: seconds (a number > 0, at most ``MAX_TIME_BUDGET``) for the decomposition (any d); when it
    or ``max_cells`` runs out the verdict is INCONCLUSIVE with the partial coverage in the evidence (``partial``:
    cells finished and checked equal, the exact fraction of the box's length / area they cover), or REFUTED if a
    finished cell already differs.  ``progress``: a callable ``progress(cells_done, seconds)`` called about twice
    a second during the decomposition (the CLI's progress line).

    Algorithm
    ---------
    Steps 1-4 of the module docstring: sizes (with ``formula``), the ``witness``, then the exact
    decomposition of the closed box (d <= 2), polyhedral cells (d = 3..6) or exact sampling (otherwise).

    Soundness
    ---------
    PROVED: both sides are affine and equal at every vertex of every cell of a partition of the closed
    box, for every tie rule in ``tie``; REFUTED: an exact rational point where the two sides differ.  Both
    carry a certificate the kernel re-checks from the recorded weights.

    Limits
    ------
    See the module docstring (``max_cells`` default 50,000, at most 2,000,000; ``time_budget`` seconds for
    d = 3..6, default 600; input dimension <= 6 for a PROVED; callables give at most INCONCLUSIVE).
    """
    check_label(label)
    budget = _check_budget(time_budget)
    deadline = None if budget is None else time.monotonic() + budget   # the compile counts too
    if progress is not None and not callable(progress):
        raise InputError("progress", f"must be a callable progress(cells_done, seconds) or None, got "
                                     f"{type(progress).__name__}")
    result = _prove_emulation(net_or_compiled, box, tie, S, reference, claim, max_cells, samples, seed,
                              record_regions, network, formula, witness, deadline, progress, budget)
    return result if label is None else result.with_label(label)


def compile_budget_result(net, box, tie, claim, stopped: str) -> Result:
    """INCONCLUSIVE: the time budget ran out while ``net`` (a MaxoutNetwork) was compiled for ``box``, before any
    cell was decided (``evidence["partial"]``: no cell proved, covered fraction 0).  ``stopped``: where (the
    message of :class:`verify.errors.BudgetExhausted`)."""
    bx = parse_box([list(iv) for iv in box] if isinstance(box, tuple) else box, dim=net.input_dim)
    params = {"box": [list(iv) for iv in bx], "tie": tie, "input_dim": len(bx)}
    spec = spec_network(net)
    if spec is not None:
        params["network"] = spec
    partial = {"cells_proved": 0, "open_cells_proved": 0, "covered_fraction": Fraction(0), "stopped": stopped,
               "budget": "time_budget", "while": "compiling"}
    return _result(claim, Verdict.INCONCLUSIVE, STATEMENT,
                   {"summary": f"time_budget: {stopped}; no cell decided"},
                   params, {"tie_rules": list(TIE_RULES) if tie == "both" else [tie], "attention": "hardmax"},
                   {"partial": partial})


def _check_budget(time_budget):
    """``time_budget`` as a float number of seconds in (0, MAX_TIME_BUDGET], or None."""
    if time_budget is None:
        return None
    try:
        t = float(Fraction(parse_exact_num(time_budget, "time_budget", allow_float=True)))
    except (InputError, TypeError, ValueError):
        raise InputError("time_budget", f"must be a number of seconds > 0, got {time_budget!r}") from None
    if not 0 < t <= MAX_TIME_BUDGET:
        raise InputError("time_budget", f"must be in (0, {MAX_TIME_BUDGET}] seconds, got {time_budget!r}")
    return t


def _guarded_stages(stages, deadline, progress, finished):
    """The stages with a clock check before each run; the last one records every cell it finishes."""
    clock = time.monotonic
    t0 = clock()
    tick = [t0 + 0.5]

    def guard(stage, last):
        def run(s, ops):
            now = clock()
            if deadline is not None and now > deadline:
                raise BudgetExhausted("time_budget", "the time budget ran out")
            if progress is not None and now >= tick[0]:
                tick[0] = now + 0.5
                progress(len(finished), now - t0)
            out = stage(s, ops)
            if last:
                finished.append(TracedCell(ops.cell, out, ()))
            return out
        return run

    return [guard(st, i == len(stages) - 1) for i, st in enumerate(stages)]


def _measure(cell, axes):
    """Length (one free axis) or area (two) of a cell of full dimension in the box's free axes; a point: 1."""
    vs = cell.vertices_fraction()
    if not axes:
        return Fraction(1)
    if len(axes) == 1:
        a = axes[0]
        xs = [v[a] for v in vs]
        return max(xs) - min(xs)
    area = Fraction(0)
    for i, v in enumerate(vs):
        w = vs[(i + 1) % len(vs)]
        area += v[0] * w[1] - w[0] * v[1]
    return abs(area) / 2


def _coverage(cells, bx) -> dict:
    """Cells finished and what fraction of the box's length / area (its non-degenerate sides) they cover."""
    axes = [i for i, (lo, hi) in enumerate(bx) if lo < hi]
    whole = Fraction(1)
    for i in axes:
        whole *= bx[i][1] - bx[i][0]
    full = [tc for tc in cells if tc.cell.dim == len(axes)]
    covered = sum((_measure(tc.cell, axes) for tc in full), Fraction(0))
    return {"cells_proved": len(cells), "open_cells_proved": len(full), "covered_fraction": covered / whole,
            "measure": ["point", "length", "area"][len(axes)]}


def _prove_emulation(net_or_compiled, box, tie, S, reference, claim, max_cells, samples, seed, record_regions,
                     network, formula, witness, deadline=None, progress=None, time_budget=None) -> Result:
    if not isinstance(max_cells, int) or not 1 <= max_cells <= MAX_TRACED_CELLS:
        raise InputError("max_cells", f"must be an integer in [1, {MAX_TRACED_CELLS}], got {max_cells!r}")
    if not isinstance(samples, int) or not 1 <= samples <= 100_000:
        raise InputError("samples", f"must be an integer in [1, 100000], got {samples!r}")
    if formula not in (None, "R4", "R8"):
        raise InputError("formula", f"must be None, 'R4' or 'R8', got {formula!r}")
    try:
        ref, target, bx, rules = _resolve(net_or_compiled, box, tie, reference, S, deadline)
    except BudgetExhausted as exc:      # the budget ran out while compiling a bare MaxoutNetwork
        return compile_budget_result(net_or_compiled, box, tie, claim, exc.problem)
    d = len(bx)
    spec = spec_network(network if network is not None else ref)
    T_json = transformer_json(target, d)
    conventions = {"tie_rules": rules, "attention": "hardmax", "region_cover": "closed box (interior, edges, corners)"}
    evidence = {"lemma": _lemma(ref, target, bx)}
    note = getattr(target, "note", "")
    if note:
        evidence["alteration"] = note
    why_not = None
    if spec is None:
        why_not = "the network is not a maxout network in the SPEC format"
    elif T_json is None:
        why_not = "the target is a Python callable, not a compiled Transformer with recorded weights"
    if why_not is None:
        params = kernel_parameters(spec, T_json, bx, tie, formula)
        evidence["transformer_sha256"] = R_digest(T_json)
        if formula is not None:
            bad = size_problems(params)
            if bad:
                evidence["summary"] = f"the sizes {', '.join(bad)} differ from the {formula} formula"
                return _result(claim, Verdict.REFUTED, kernel_statement(params, conventions, "emulation-sizes"),
                               {"kind": "emulation-sizes"}, params, conventions, evidence)
    else:
        params = {"box": [list(iv) for iv in bx], "tie": tie, "input_dim": d}
        if spec is not None:
            params["network"] = spec

    def inconclusive(summary, **extra):
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT, {"summary": summary}, params, conventions,
                       {**evidence, **extra})

    if witness is not None:
        x = [to_fraction(parse_exact_num(c)) for c in witness]
        if len(x) != d or not all(lo <= c <= hi for c, (lo, hi) in zip(x, bx)):
            raise InputError("witness", f"must be a point of the box with {d} coordinates")
        a = _exact_reference(ref, x)
        for rule in rules:
            if _exact_target(target, x, rule) != a:
                return _witness_result(claim, ref, target, spec, x, rule, params, conventions, evidence, why_not)
    if d > MAX_EXACT_DIM:
        if why_not is None and d <= MAX_POLYTOPE_DIM:
            return _polytope(claim, ref, target, spec, params, conventions, evidence, max_cells, time_budget)
        return _sampled(claim, ref, target, bx, rules, samples, seed, params, conventions, evidence, why_not, spec)

    stages = emulation_stages(ref, target, rules)
    spec_obj = network if network is not None and network is not ref else None
    if spec_obj is not None:
        # the network the kernel evaluates is traced too, so the cells also fix its decisions (and it is checked
        # to be the same function as the reference on every cell)
        stages.append(lambda s, ops: (s[0], s[1], {**s[2], "spec": _as_tuple(spec_obj.evaluate(list(s[0]), ops=ops))}))
    finished = []
    stages = _guarded_stages(stages, deadline, progress, finished)
    partial = None
    try:
        cells = trace(stages, box_faces(bx), initial=(_identity(d), _identity(d), None), closed=True,
                      max_cells=max_cells, keep_patterns=False)
    except SizeLimitError as exc:
        # a budget ran out: check the cells finished so far (a difference there is still an exact witness)
        partial = {**_coverage(finished, bx), "stopped": str(exc),
                   "budget": "time_budget" if isinstance(exc, BudgetExhausted) else "max_cells"}
        cells = finished
    except (NotPiecewiseLinear, UntraceableCode) as exc:
        if why_not is None:         # recorded weights: an exact point witness is still a kernel certificate
            hit = _search_points(ref, target, bx, rules, samples, seed)
            if hit is not None:
                return _witness_result(claim, ref, target, spec, hit[0], hit[1], params, conventions,
                                       {**evidence, "trace": f"not traceable: {exc}"}, why_not)
        return inconclusive(f"not traceable as a piecewise-affine function: {exc}")
    cells.sort(key=lambda c: (tuple(min(v[i] for v in c.cell.vertices) for i in range(d)), c.cell.dim,
                              c.cell.vertices))
    regions = []
    for tc in cells:
        _, net_out, outs = tc.value
        try:
            net_forms = [as_form(v, d) for v in net_out]
            t_all = {rule: [as_form(v, d) for v in outs[rule]] for rule in rules}
        except UntraceableCode as exc:
            return inconclusive(f"not traceable as a piecewise-affine function: {exc}")
        if spec_obj is not None:
            spec_forms = [as_form(v, d) for v in outs["spec"]]
            if len(spec_forms) != len(net_forms) or any(
                    any((a - b).at(v) != 0 for v in tc.cell.vertices) for a, b in zip(spec_forms, net_forms)):
                return inconclusive("the maxout network given for the kernel differs from the reference on "
                                    f"{tc.cell!r}")
        for rule in rules:
            t_forms = t_all[rule]
            if len(t_forms) != len(net_forms):
                return inconclusive(f"the Transformer has {len(t_forms)} outputs, the network {len(net_forms)}")
            for o, (a, b) in enumerate(zip(net_forms, t_forms)):
                diff = a - b
                if all(diff.at(v) == 0 for v in tc.cell.vertices):
                    continue
                wit = _witness_in(tc.cell, lambda p: diff.at(p) != 0)
                return _refuted(claim, ref, target, spec, tc, wit, rule, params, conventions, evidence, why_not)
        if record_regions:
            regions.append({"dim": tc.cell.dim, "vertices": tc.cell.vertices_fraction(),
                            "network": [f.to_fractions() for f in net_forms],
                            "transformer": {r: [f.to_fractions() for f in t_all[r]] for r in rules}})
    if partial is not None:
        frac = partial["covered_fraction"]
        evidence["partial"] = partial
        return inconclusive(f"region decomposition stopped ({partial['stopped']}): {partial['cells_proved']} cells "
                            f"finished, equal there, covering {float(frac):.4g} of the box's {partial['measure']} "
                            f"(exactly {fraction_str(frac)}); no verdict for the rest")
    n_open = sum(1 for c in cells if c.cell.dim == d)
    summary = (f"equal on all of the box ({len(cells)} cells, {n_open} open), tie rule{'s' if len(rules) > 1 else ''} "
               f"{' and '.join(rules)}")
    evidence.update({"cells": len(cells), "open_cells": n_open})
    if record_regions:
        evidence["regions"] = regions
    if why_not is not None:
        return inconclusive(f"equal on all of the box ({len(cells)} cells), but {why_not}: no kernel certificate")
    cert = {"kind": "emulation-regions", "cells": [_cell_json(tc.cell) for tc in cells]}
    from ..kernel import emulation as kernel_emulation

    work = kernel_emulation.regions_work(params, cert["cells"])
    if work > kernel_emulation.MAX_WORK:      # never record a certificate the kernel refuses as too large
        return inconclusive(f"equal on all of the box ({len(cells)} cells), but the certificate exceeds the "
                            f"kernel's work bound ({work} > {kernel_emulation.MAX_WORK}, docs/regions.md, Limits): no "
                            "kernel certificate; a smaller box needs fewer cells")
    evidence["summary"] = summary
    return _result(claim, Verdict.PROVED, kernel_statement(params, conventions, "emulation-regions"), cert, params,
                   conventions, evidence)


def _polytope(claim, ref, target, spec, params, conventions, evidence, max_cells, time_budget):
    """d >= 3: exact polyhedral cells (:mod:`verify.decide.polytope`, kernel kind ``emulation-polytope``)."""
    from .polytope import DEFAULT_TIME_BUDGET, Stuck, emulation_search, strip

    budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget   # validated by _check_budget
    try:
        info = emulation_search(params, max_cells=max_cells, time_budget=float(budget))
    except Stuck as exc:
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT, {"summary": f"polyhedral cells: {exc}"}, params,
                       conventions, evidence)
    ev = {**evidence, "cells": info["leaves"], "faces": info["roots"], "faces_done": info["roots_done"]}
    if info["stop"] is not None:
        (_, rule), p, _ = info["stop"]
        return _witness_result(claim, ref, target, spec, [to_fraction(c) for c in p], rule, params, conventions,
                               ev, None)
    if not info["complete"]:
        ev["volume_fraction_estimate"] = info["volume_estimate"]
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT,
                       {"summary": f"budget: {info['stopped']}; {info['roots_done']} of {info['roots']} box faces "
                                   f"proved, about {info['volume_estimate']:.1%} of the volume (estimate, evidence "
                                   f"only)", "partial": {"faces_done": info["roots_done"],
                                                         "roots": strip(info["trees"][:info["roots_done"]])}},
                       params, conventions, ev)
    ev["summary"] = (f"equal on all of the box ({info['leaves']} polyhedral cells over {info['roots']} faces), tie "
                     f"{params['tie']}")
    cert = {"kind": "emulation-polytope", "roots": strip(info["trees"])}
    return _result(claim, Verdict.PROVED, kernel_statement(params, conventions, "emulation-polytope"), cert, params,
                   conventions, ev)


def R_digest(data) -> str:
    from ..kernel._cells import transformer_digest

    return transformer_digest(data)


def _identity(d):
    from .tracer import identity_forms

    return identity_forms(d)


def _refuted(claim, ref, target, spec, tc, wit, rule, params, conventions, evidence, why_not):
    def inconclusive(summary, **extra):
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT, {"summary": summary}, params, conventions,
                       {**evidence, **extra})

    if wit is None:
        return inconclusive("maps differ on a cell but no witness point was found")
    x = [to_fraction(c) for c in wit]
    return _witness_result(claim, ref, target, spec, x, rule, params, conventions, evidence, why_not,
                           cell={"dim": tc.cell.dim, "vertices": tc.cell.vertices_fraction()})


def _witness_result(claim, ref, target, spec, x, rule, params, conventions, evidence, why_not, cell=None):
    """REFUTED at the exact point x (re-evaluated exactly on both sides), or INCONCLUSIVE if the kernel could
    not re-check it."""
    a = _exact_reference(ref, x)
    b = _exact_target(target, x, rule)
    ev = dict(evidence)
    if cell is not None:
        ev["cell"] = cell
    if a == b:
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT,
                       {"summary": "traced maps differ but exact re-evaluation agrees at the witness (tracer "
                                   "inconsistency)"}, params, conventions, {**ev, "x": x})
    idx = next(i for i, (u, v) in enumerate(zip(a, b)) if u != v)
    summary = (f"at x = ({', '.join(fraction_str(c) for c in x)}) output {idx}: Transformer "
               f"{fraction_str(b[idx])} != network {fraction_str(a[idx])} (tie rule {rule})")
    ev["summary"] = summary
    if why_not is not None:
        return _result(claim, Verdict.INCONCLUSIVE, STATEMENT, {"summary": f"{summary}; but {why_not}: no kernel "
                                                                           f"certificate"},
                       params, conventions, {**ev, "witness": {"x": x, "tie": rule, "network": list(a),
                                                               "transformer": list(b)}})
    from ..objects.maxout import MaxoutNetwork

    phi = MaxoutNetwork.from_dict(spec).evaluate(x)
    cert = {"kind": "emulation-witness", "x": jsonable(x), "tie": rule, "network": jsonable(list(phi)),
            "transformer": jsonable(list(b))}
    return _result(claim, Verdict.REFUTED, kernel_statement(params, conventions, "emulation-witness"), cert, params,
                   conventions, ev)


def _points(bx, samples, seed) -> list:
    rng = random.Random(seed)
    pts = []
    if len(bx) <= 8:
        for mask in range(2 ** len(bx)):
            pts.append([hi if mask >> i & 1 else lo for i, (lo, hi) in enumerate(bx)])
    while len(pts) < samples + (2 ** len(bx) if len(bx) <= 8 else 0):
        pts.append([lo + (hi - lo) * Fraction(rng.randint(0, 1024), 1024) for lo, hi in bx])
    return pts


def _search_points(ref, target, bx, rules, samples, seed):
    """(x, rule) of the first sampled point where the two sides differ exactly, or None."""
    for x in _points(bx, samples, seed):
        a = _exact_reference(ref, x)
        for rule in rules:
            if _exact_target(target, x, rule) != a:
                return x, rule
    return None


class _TieWatch(ExactContext):
    """The exact context, noting whether some hardmax argmax set had two or more members."""

    def __init__(self):
        self.tied = False

    def argmax_set(self, values) -> list:
        best = super().argmax_set(values)
        self.tied = self.tied or len(best) > 1
        return best


def _tie_free_shareable(target) -> bool:
    """Whether ``target(x, tie=...)`` is the standard compiled evaluation (embedding, the hardmax sublayers of
    :mod:`verify.objects.transformer`, read-out): then the tie rule matters only through argmax sets of two or
    more members, and an evaluation that met none gives every rule's value."""
    calls = (CompiledMaxout.__call__, CompiledCPWL.__call__, AlteredCompiled.__call__)
    return (SHARE_TIE_FREE and type(target).__call__ in calls and hasattr(target.transformer, "sublayers")
            and all(type(sub) in (Attention, FeedForward) for sub in target.transformer.sublayers))


def _sampled(claim, ref, target, bx, rules, samples, seed, params, conventions, evidence, why_not, spec):
    pts = _points(bx, samples, seed)
    share = len(rules) > 1 and _tie_free_shareable(target)
    for x in pts:
        a = _exact_reference(ref, x)
        b = None
        for rule in rules:
            if b is None or not share or watch.tied:
                watch = _TieWatch()
                b = _as_tuple(target(list(x), tie=rule, ops=watch)) if share else _exact_target(target, x, rule)
            if a != b:
                out = _witness_result(claim, ref, target, spec, x, rule, params, conventions,
                                      evidence, why_not)
                return Result(out.claim, out.statement, out.verdict, out.method, certificate=out.certificate,
                              parameters=out.parameters, conventions=out.conventions, evidence=out.evidence,
                              seeds={"samples": seed})
    return _result(claim, Verdict.INCONCLUSIVE, STATEMENT,
                   {"summary": f"input dimension {len(bx)} > {MAX_EXACT_DIM}: no exact region decomposition; "
                               f"equal at all {len(pts)} sampled rational points"},
                   params, conventions, {**evidence, "points": len(pts), "all_equal": True,
                                         "point_set": "box corners + uniform k/1024 grid points (seeded)"},
                   seeds={"samples": seed})
