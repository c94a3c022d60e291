"""Exact emulation of a maxout network by a recorded hardmax Transformer (T6, T8, T9), re-checked exactly.

Parameters (read strictly; they name everything that is claimed):

* ``network``: the maxout network Phi in the SPEC format (:func:`verify.kernel._cells.read_maxout`);
* ``transformer``: the exact weights of the compiled hardmax Transformer T, its embedding x -> X and its
  read-out (:func:`verify.kernel._cells.read_transformer`); the statement shows its digest
  (:func:`verify.kernel._cells.transformer_digest`);
* ``box``: the closed box K (dimension 1 or 2 for the region kinds);
* ``tie``: ``average``, ``first`` or ``both`` (hardmax tie rules covered);
* ``sizes``: the sizes of T (tokens, E, D, heads, head sizes, FFN widths, non-zeros of every weight block);
  the kernel recomputes them from the weights and rejects any difference;
* ``formula`` (optional): ``"R4"`` (maxout compile) or ``"R8"`` (CPWL difference-of-maxima compile): the
  statement also claims that the sizes satisfy that construction's size formulas in terms of Phi.

Kinds (the polarity is fixed by the kind):

* ``emulation-regions`` -- PROVED means T(x) = Phi(x) for every x in the closed box K under every listed tie
  rule (and, with ``formula``, the size formulas hold).  The check reads the certificate's cells (relatively
  open: points, open intervals, open segments, open convex polygons), checks that they partition the closed
  box (:func:`verify.kernel._cells.check_partition`), evaluates Phi and T from the recorded weights on every
  cell with every decision (argmax set, ReLU sign, hardmax selection, constant score factor) decided on the
  whole cell, and checks the two exact affine maps equal on the cell.  Nothing is sampled.
* ``emulation-polytope`` -- PROVED means the same as ``emulation-regions``, in any input dimension 1..6.  The
  kernel builds the 3^d relatively open faces of the closed box itself and reads one split tree per face
  (:mod:`verify.kernel._poly`: empty leaves by Motzkin multipliers, every other leaf an exact point and one
  sign certificate per decision); on every non-empty leaf it evaluates Phi and T with the same evaluators
  (:func:`polytope_leaf`) and checks the outputs equal on the whole leaf.  The leaves partition the box by
  construction.
* ``emulation-witness`` -- REFUTED means there is an x in K and a listed tie rule with T(x) != Phi(x).  The
  check embeds the certificate's exact x itself (from the recorded embedding), evaluates T and Phi exactly,
  compares them with the recorded output vectors and checks that they differ.
* ``emulation-sizes`` -- REFUTED means the sizes of T do not satisfy the ``formula`` of Phi; the kernel
  recomputes both (the certificate carries nothing else).
* ``relu-tournament`` (T8 [LIT] identities) -- PROVED means that for k = 1..k_max the tournament of
  a + ReLU(b - a) levels returns max(a_1..a_k) for every real a, with ceil(log2 k) levels.  The kernel evaluates
  the tournament on linear forms over every open ordering cone a_p(1) < ... < a_p(k), deciding every ReLU sign
  on the whole cone, and checks that the result is the top coordinate; continuity extends it to all of R^k
  (both sides are continuous, the open cones are dense).

Trusted: :mod:`verify.kernel._cells`, :mod:`verify.kernel._poly`, :mod:`verify.kernel._read`, Python's
``fractions``.
"""

from __future__ import annotations

from . import Kind
from . import _cells as C
from . import _poly as P
from . import _read as R
from ._read import Rejected

__all__ = ["KINDS", "statement", "tournament_statement", "formula_sizes", "polytope_leaf", "regions_work", "MAX_CELLS",
           "MAX_WORK"]

MAX_CELLS = 200_000
MAX_WORK = 15_000_000      # sum over cells of vertices x (Transformer + network work) x tie rules: a few seconds
_PARAMS = ("network", "transformer", "box", "tie", "sizes")


def _rules(tie) -> list:
    tie = R.string(tie, "parameters.tie", choices=("average", "first", "both"))
    return list(C.TIE_RULES) if tie == "both" else [tie]


def _join(xs) -> str:
    return "/".join(map(str, xs))


def formula_sizes(net: dict, formula: str) -> dict:
    """The sizes the construction ``formula`` gives for the network: ``{name: value}``; ``W1_nonzeros_at_most``
    is an upper bound, every other entry an equality."""
    d, k, N, L = net["input_dim"], net["rank"], net["widths"], len(net["widths"])
    if formula == "R4":
        nb = max([d] + N)
        prev = [d] + N[:-1]
        return {"tokens": k, "embedding": 2 * nb + k + 1, "sublayers": L * 2, "layout": "FA" * L, "heads": N,
                "head_sizes": [[1] * w for w in N], "ffn_widths": [2 * k * w + 4 * nb for w in N],
                "W1_nonzeros_at_most": [2 * k * w * (p + 2) + 4 * nb for w, p in zip(N, prev)],
                "W2_nonzeros": [2 * k * w + 4 * nb for w in N], "attention_nonzeros": [4 * w for w in N]}
    # R8: f = max of k pieces - max of k pieces: one layer of two rank-k units, read-out (1, -1)
    if L != 1 or N != [2] or net["readout"] is None or net["readout"] != ([[1, -1]], [0]):
        raise Rejected("parameters.network: the R8 formula needs one layer of two units and the read-out u1 - u2")
    return {"tokens": k, "embedding": d + k + 4, "sublayers": 2, "layout": "FA", "heads": [2],
            "head_sizes": [[1, 1]], "ffn_widths": [4 * k]}


def _formula_text(formula: str) -> str:
    if formula == "R4":
        return ("its sizes are those of R4: n = k tokens, E = 2 Nbar + k + 1, D = 2L sublayers (FFN, attention), "
                "N_l heads of size 1, FFN widths 2k N_l + 4 Nbar, non-zeros W1 <= 2k N_l (N_(l-1) + 2) + 4 Nbar, "
                "W2 = 2k N_l + 4 Nbar, attention = 4 N_l")
    return ("its sizes are those of R8: n = k tokens, E = d + k + 4, one FFN of width 4k and one attention layer "
            "of 2 heads of size 1")


def _formula_holds(sizes: dict, want: dict) -> list:
    """The names of the formula entries that the measured sizes violate."""
    bad = []
    for key, v in want.items():
        if key == "W1_nonzeros_at_most":
            if len(sizes["W1_nonzeros"]) != len(v) or any(a > b for a, b in zip(sizes["W1_nonzeros"], v)):
                bad.append("W1_nonzeros")
        elif sizes[key] != v:
            bad.append(key)
    return bad


def _describe(net, T, T_json, sizes) -> str:
    s = sizes
    flat = [m for h in s["head_sizes"] for m in h]
    sizes_text = ("of size 1" if set(flat) == {1} else
                  "of sizes " + "/".join("(" + ", ".join(map(str, h)) + ")" for h in s["head_sizes"]))
    ro = ", affine read-out" if net["readout"] is not None else ""
    return (f"the hardmax Transformer sha256:{C.transformer_digest(T_json)} (n = {s['tokens']} tokens, "
            f"E = {s['embedding']}, D = {s['sublayers']} sublayers {s['layout']}, heads {_join(s['heads']) or '-'} "
            f"{sizes_text}, FFN widths {_join(s['ffn_widths']) or '-'}, "
            f"non-zeros W1 {_join(s['W1_nonzeros']) or '-'}, W2 {_join(s['W2_nonzeros']) or '-'}, attention "
            f"{_join(s['attention_nonzeros']) or '-'}) and the maxout network (d = {net['input_dim']}, rank "
            f"{net['rank']}, widths {_join(net['widths'])}{ro})")


def _read_params(result_or_params):
    p = R.obj(result_or_params, "parameters", required=_PARAMS, optional=("formula",))
    net = C.read_maxout(p["network"], "parameters.network")
    T = C.read_transformer(p["transformer"], "parameters.transformer")
    bx = R.box(p["box"], "parameters.box")
    if net["input_dim"] != len(bx) or T["d"] != len(bx):
        raise Rejected(f"parameters: the box has dimension {len(bx)}, the network {net['input_dim']}, the "
                       f"Transformer {T['d']}")
    if len(T["read_W"]) != net["output_dim"]:
        raise Rejected("parameters: the Transformer and the network have different output dimensions")
    sizes = C.transformer_sizes(T)
    if p["sizes"] != sizes:
        raise Rejected(f"parameters.sizes: {p['sizes']!r:.300} differ from the sizes of the recorded weights "
                       f"{sizes!r:.300}")
    formula = p.get("formula")
    if formula is not None:
        R.string(formula, "parameters.formula", choices=("R4", "R8"))
    return p, net, T, bx, _rules(p["tie"]), sizes, formula


def _box_text(bx) -> str:
    return " x ".join(f"[{lo}, {hi}]" for lo, hi in bx)


def statement(parameters: dict, conventions: dict, kind: str = "emulation-regions") -> str:
    """The statement a Result of ``kind`` proves or refutes, built from JSON-level parameters."""
    p, net, T, bx, rules, sizes, formula = _read_params(parameters)
    who = _describe(net, T, p["transformer"], sizes)
    tie = f"under the hardmax tie rule{'s' if len(rules) > 1 else ''} {' and '.join(rules)}"
    if kind == "emulation-sizes":
        if formula is None:
            raise Rejected("parameters.formula: an emulation-sizes Result needs the formula it refutes")
        text = f"{who}: {_formula_text(formula)}"
    else:
        text = (f"{who}: T(x) = Phi(x) for every x in the closed box {_box_text(bx)} {tie}"
                + ("; " + _formula_text(formula) if formula else ""))
    return R.bound_statement(text, parameters, conventions)


def _expect(result, kind):
    if kind == "relu-tournament":
        want = tournament_statement(result.get("parameters", {}), result.get("conventions", {}))
    else:
        want = statement(result.get("parameters", {}), result.get("conventions", {}), kind)
    if result.get("statement") != want:
        raise Rejected(f"statement: does not match what the parameters say is claimed; expected {want!r:.500}, "
                       f"got {result.get('statement')!r:.500}")


def _check_regions(result: dict) -> str:
    _expect(result, "emulation-regions")
    p, net, T, bx, rules, sizes, formula = _read_params(result["parameters"])
    if formula is not None:
        bad = _formula_holds(sizes, formula_sizes(net, formula))
        if bad:
            raise Rejected(f"parameters.sizes: {', '.join(bad)} differ from the {formula} formula")
    cert = R.obj(result["certificate"], "certificate", required=("kind", "cells"))
    if len(bx) not in (1, 2):
        raise Rejected("parameters.box: region certificates exist for dimensions 1 and 2 only")
    raw = R.lst(cert["cells"], "certificate.cells", 1, MAX_CELLS)
    work = _regions_work(raw, net, T, rules)
    if work > MAX_WORK:
        raise Rejected(f"certificate.cells: {len(raw)} cells of this network and Transformer exceed the work "
                       f"bound ({work} > {MAX_WORK})")
    cells = C.read_cells(raw, "certificate.cells", len(bx), MAX_CELLS)
    C.check_partition(cells, bx)
    for i, cell in enumerate(cells):
        bad = polytope_leaf(net, T, rules, cell)      # the one comparison of both sides on a cell, any cell kind
        if bad is not None:
            raise Rejected(f"certificate.cells[{i}]: output {bad[0]} differs on {cell!r} (tie {bad[1]})")
    n_open = sum(1 for c in cells if c.dim == len(bx))
    return (f"T = Phi on the closed box, {len(cells)} cells ({n_open} open), tie {'+'.join(rules)}"
            + (f", {formula} sizes" if formula else ""))


def _regions_work(raw_cells, net, T, rules) -> int:
    return sum(len(c) if isinstance(c, list) else 1 for c in raw_cells) * _cost(net, T) * len(rules)


def regions_work(parameters: dict, raw_cells) -> int:
    """The work figure of an ``emulation-regions`` certificate that the check bounds by ``MAX_WORK`` (the search
    side asks before it claims PROVED, so that it never records a certificate the kernel refuses as too large)."""
    _, net, T, _, rules, _, _ = _read_params(parameters)
    return _regions_work(raw_cells, net, T, rules)


def _cost(net, T) -> int:
    """A count of the exact operations of one evaluation of both sides per vertex (for the work bound)."""
    n = T["n"]
    cost = sum(len(W) * len(W[0]) * (len(W[0][0]) + 1) for W, _ in net["layers"]) + T["E"] * len(T["sublayers"]) * n
    for kind, s in T["sublayers"]:
        if kind == "ffn":
            cost += n * (sum(map(len, s["sW1"])) + sum(map(len, s["sW2"])) + len(s["b1"]))
        else:
            for h in s:
                cost += n * sum(sum(map(len, h[k])) for k in ("sW_Q", "sW_K", "sW_V", "sW_O")) + n * n * len(h["W_Q"])
    return cost


def polytope_leaf(net, T, rules, cell):
    """``(output, rule)`` of the first output where Phi and T differ on the cell (a vertex cell or a polyhedral
    one; every decision and the comparison decided on the whole cell through ``cell.sign``), or None when they
    are equal there.  The search
    (:mod:`verify.decide.polytope`) runs this same function, so both take the same decisions in the same order."""
    phi, _ = C.eval_maxout(net, cell)
    ties = True
    for rule in rules:
        if not ties:            # every hardmax argmax set was a singleton: both rules compute the same thing
            continue
        out, decisions = C.eval_transformer(T, cell, rule)
        ties = any(isinstance(a, tuple) and len(a) > 1 for dec in decisions for a in dec)
        for o, (a, b) in enumerate(zip(phi, out)):
            if cell.sign(C.sub(a, b)) != 0:
                return o, rule
    return None


def _check_polytope(result: dict) -> str:
    _expect(result, "emulation-polytope")
    p, net, T, bx, rules, sizes, formula = _read_params(result["parameters"])
    if formula is not None:
        bad = _formula_holds(sizes, formula_sizes(net, formula))
        if bad:
            raise Rejected(f"parameters.sizes: {', '.join(bad)} differ from the {formula} formula")
    cert = R.obj(result["certificate"], "certificate", required=("kind", "roots"))
    roots = P.roots(bx)

    def leaf(cell):
        bad = polytope_leaf(net, T, rules, cell)
        if bad is not None:
            raise Rejected(f"{cell.field}: output {bad[0]} of T and Phi differ on the cell (tie {bad[1]})")

    st = P.walk(cert["roots"], roots, leaf)
    return (f"T = Phi on the closed box, {len(roots)} faces, {st['nodes']} nodes, {st['points']} cells "
            f"({st['open']} open, {st['empty']} empty), tie {'+'.join(rules)}" + (f", {formula} sizes" if formula else ""))


def _check_witness(result: dict) -> str:
    _expect(result, "emulation-witness")
    p, net, T, bx, rules, sizes, formula = _read_params(result["parameters"])
    cert = R.obj(result["certificate"], "certificate", required=("kind", "x", "tie", "network", "transformer"))
    x = R.vec(cert["x"], "certificate.x", len(bx))
    if not all(lo <= v <= hi for v, (lo, hi) in zip(x, bx)):
        raise Rejected("certificate.x: not in the box")
    rule = R.string(cert["tie"], "certificate.tie", choices=rules)
    if _cost(net, T) > MAX_WORK:
        raise Rejected(f"parameters: the network and Transformer exceed the work bound {MAX_WORK}")
    phi = C.eval_maxout_at(net, x)
    out = C.eval_transformer_at(T, x, rule)
    if R.vec(cert["network"], "certificate.network", len(phi)) != phi:
        raise Rejected(f"certificate.network: the network's value at x is {[str(v) for v in phi]}")
    if R.vec(cert["transformer"], "certificate.transformer", len(out)) != out:
        raise Rejected(f"certificate.transformer: the Transformer's value at x is {[str(v) for v in out]}")
    if phi == out:
        raise Rejected("certificate: T(x) = Phi(x) at the witness")
    return f"T(x) != Phi(x) at x = ({', '.join(map(str, x))}), tie {rule}"


def _check_sizes(result: dict) -> str:
    _expect(result, "emulation-sizes")
    p, net, T, bx, rules, sizes, formula = _read_params(result["parameters"])
    R.obj(result["certificate"], "certificate", required=("kind",))
    bad = _formula_holds(sizes, formula_sizes(net, formula))
    if not bad:
        raise Rejected(f"certificate: the sizes satisfy the {formula} formula")
    return f"{', '.join(bad)} differ from the {formula} formula"


# -- the [LIT] ReLU identities of T8 -----------------------------------------------------------------------------
MAX_TOURNAMENT = 8


def tournament_statement(parameters: dict, conventions: dict) -> str:
    p = R.obj(parameters, "parameters", required=("k_max",))
    K = R.integer(p["k_max"], "parameters.k_max", 2, MAX_TOURNAMENT)
    text = (f"for k = 1..{K} and every a in R^k the ReLU tournament (levels mapping pairs (a, b) to a + ReLU(b - a), "
            f"an odd last value passed on) returns max(a_1, ..., a_k) after ceil(log2 k) ReLU levels; in particular "
            f"max(a, b) = a + ReLU(b - a) and ReLU(t) = max(t, 0) (k = 2, a = 0), with ReLU(u) = u if u > 0 else 0")
    return R.bound_statement(text, parameters, conventions)


def _tournament(k, perm):
    """The tournament on the open ordering cone a_perm[0] < ... < a_perm[k-1], evaluated exactly on linear forms
    over a.  Every value is a coordinate form e_i: the inputs are, and a pair (e_i, e_j) becomes
    e_i + ReLU(e_j - e_i), where e_j - e_i > 0 on the whole cone if j comes after i in perm (then the result is
    e_j) and < 0 on the whole cone otherwise (then it is e_i); i != j, so the sign is never undecided.  Returns
    (the index of the result, the number of ReLU levels)."""
    pos = {v: i for i, v in enumerate(perm)}
    vals, levels = list(range(k)), 0
    while len(vals) > 1:
        R.tick()
        nxt = [j if pos[j] > pos[i] else i for i, j in zip(vals[0::2], vals[1::2])]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals, levels = nxt, levels + 1
    return vals[0], levels


def _check_tournament(result: dict) -> str:
    _expect(result, "relu-tournament")
    K = R.integer(result["parameters"]["k_max"], "parameters.k_max", 2, MAX_TOURNAMENT)
    R.obj(result["certificate"], "certificate", required=("kind",))
    import itertools

    count = 0
    for k in range(1, K + 1):
        want_levels = (k - 1).bit_length()          # ceil(log2 k)
        for perm in itertools.permutations(range(k)):
            out, levels = _tournament(k, perm)
            if out != perm[-1] or levels != want_levels:
                raise Rejected(f"tournament: k = {k}, ordering {perm}: returns {out} after {levels} levels")
            count += 1
    return (f"the tournament returns the max on each of the {count} ordering cones for k <= {K} (hence on all of "
            f"R^k: both sides are continuous and the open cones are dense)")


_CLAIMS = frozenset({"T6", "T8", "T9"})
KINDS = {
    "emulation-regions": Kind(_CLAIMS, "proved", frozenset({"exact"}), _check_regions),
    "emulation-polytope": Kind(_CLAIMS, "proved", frozenset({"exact"}), _check_polytope),
    "emulation-witness": Kind(_CLAIMS, "refuted", frozenset({"exact"}), _check_witness),
    "emulation-sizes": Kind(_CLAIMS, "refuted", frozenset({"exact"}), _check_sizes),
    "relu-tournament": Kind(frozenset({"T8"}), "proved", frozenset({"exact"}), _check_tournament),
}
