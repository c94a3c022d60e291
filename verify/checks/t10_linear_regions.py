"""T10: exact linear-region counts and their growth with depth (docs/paper1.md R7, O4, O6, §2.4, §2.5).

* Tent: the width-1 rank-2 network equal to -T^{oL} has exactly 2^L pieces on [0, 1] (exact breakpoint
  sweep, L up to 20 = about 10^6 pieces); the compiled hardmax Transformer is counted through the tracer
  at small L and proved equal to the network on the whole box (T6), so the counts transfer.
* Zigzag g_q^{oL}: exactly q^L pieces, ratio q per layer.
* The brief's form: under the configured depth convention (D sublayers, c per maxout layer, e extra)
  a depth-D family member has L = floor((D - e)/c) layers and the exact count must be >= q^(floor(D/3) - 1).
* Negatives: the universal reading (max(2h, 2h): 1 piece), the one-layer ceiling 1 + N(k-1), the
  1/720 grid count on O2.

>>> check_tent_counts(L_max=6, compiled_L_max=2).verdict.value
'proved'
>>> check_universal_reading().verdict.value
'refuted'
"""

from __future__ import annotations

import random
from fractions import Fraction

from gmpy2 import mpq

from ..decide.geometry import to_fraction
from ..decide.regions import (breakpoint_certificate, breakpoints_certificate_1d, count_regions, maxout_cells_2d, maxout_values_1d,
                              prefix_counts_1d)
from ..canonical import jsonable
from ..constructions.reference_networks import o2_network
from ..arith.exact import fraction_str, parse_int
from ..kernel import regions as KR
from ..errors import InputError
from ..objects.maxout import MaxoutNetwork
from ..results import Method, Result, Verdict

__all__ = ["zigzag_network", "check_tent_counts", "check_zigzag_counts", "check_depth_bound_table",
           "check_universal_reading", "check_one_layer_ceiling", "check_shallow_family", "check_grid_method",
           "check_region_count", "grid_piece_count", "region_certificate", "MAX_TENT_L", "MAX_ZIGZAG_L"]

MAX_TENT_L = 20
MAX_ZIGZAG_L = 8


def _tent(L):
    from ..constructions.token_shift import tent_network

    return tent_network(L)


def zigzag_network(q: int, L: int) -> MaxoutNetwork:
    """g_q^{oL} as a width-q rank-2 maxout network with a linear read-out (R7): units max(y - i/q, 0),
    i = 0..q-1, with y = x at layer 1 and y = q h_0 - 2q sum_{i>=1} (-1)^(i+1) h_i afterwards.

    >>> [zigzag_network(2, 1).evaluate([x])[0] for x in (0, "1/4", "1/2", 1)]
    [Fraction(0, 1), Fraction(1, 2), Fraction(1, 1), Fraction(0, 1)]
    """
    parse_int(q, "q", 2, 8)
    parse_int(L, "L", 1, 64)
    y = [Fraction(q)] + [Fraction(-2 * q * (-1) ** (i + 1)) for i in range(1, q)]
    layers = []
    for l in range(L):
        w_in = [Fraction(1)] if l == 0 else y
        zero = [Fraction(0)] * len(w_in)
        layers.append(([[w_in, zero] for _ in range(q)], [[Fraction(-i, q), Fraction(0)] for i in range(q)]))
    return MaxoutNetwork(layers, readout=([y], [0]))


def _bound(q, D):
    e = D // 3 - 1
    return Fraction(q) ** e


def _depth_table(counts: dict, q: int, c: int, e: int, D_max: int) -> tuple:
    """Rows D, L = floor((D - e)/c), count(L), bound q^(floor(D/3)-1); ok iff every count >= bound."""
    rows, ok = [], True
    for D in range(c + e, D_max + 1):
        L = (D - e) // c
        if L not in counts:
            continue
        b = _bound(q, D)
        good = counts[L] >= b
        ok = ok and good
        rows.append({"D": D, "L": L, "count": counts[L], "bound": b, "ok": good})
    return rows, ok


def _certified_L(family: str, q: int, L: int) -> int:
    """The largest L' <= L whose breakpoint certificate fits the kernel's work bound."""
    while L > 1:
        layers, ro = KR.family_network(family, q, L)
        if (q ** L + 1) * KR._work(layers, ro) <= KR.MAX_WORK:
            break
        L -= 1
    return L


def _family_breakpoints(family, q, L):
    return breakpoints_certificate_1d(MaxoutNetwork.from_dict(KR.family_spec(family, q, L)), 0, 1)


def _kernel_result(claim, form, verdict, method, cert, params, conv=None, **kw) -> Result:
    params, conv = jsonable(params), jsonable(conv or {})
    return Result(claim, KR.statement(form, params, conv), verdict, method, certificate=cert, parameters=params,
                  conventions=conv, **kw)


CONV_PIECES = {"region": "pieces = maximal connected open sets on which the network is affine (exact breakpoints); "
                         "activation regions = maximal open sets with constant argmax sets"}


def _family_counts(family, q, L_max, c_values, e, compiled_L_max, compile_S):
    """Shared body of the tent and zigzag checks: certified rows L = 1..L_cert, the rest as evidence."""
    from ..constructions.maxout_compiler import compile_maxout
    from ..decide.emulation import prove_emulation

    full = MaxoutNetwork.from_dict(KR.family_spec(family, q, L_max))
    counts = {L: pieces for L, (_, pieces) in
              enumerate(prefix_counts_1d(full, 0, 1, readout=full.readout), start=1)}
    L_cert = _certified_L(family, q, L_max)
    compiled = []
    for L in range(1, compiled_L_max + 1):
        comp = compile_maxout(MaxoutNetwork.from_dict(KR.family_spec(family, q, L)), [[0, 1]], S=compile_S)
        rc = count_regions(comp, [(0, 1)], include_regions=False)
        eq = prove_emulation(comp, record_regions=False)
        compiled.append({"L": L, "D": comp.transformer.n_sublayers + e, "embedding": comp.transformer.embedding_dim,
                         "pieces": rc.count, "activation_regions": rc.activation_regions, "T6": eq.verdict.value})
    tables = {f"c={c},e={e}": _depth_table(counts, q, c, e, c * L_max + e + c - 1)[0] for c in c_values}
    evidence = {"counts_L_1_to_L_max": {str(L): n for L, n in counts.items()},
                "ratios": [Fraction(counts[L + 1], counts[L]) for L in range(1, L_max)],
                "depth_tables": tables, "compiled_transformer": compiled,
                "uncertified_rows": f"L = {L_cert + 1}..{L_max} (exact sweep, beyond the kernel's work bound)"
                if L_cert < L_max else "none",
                "figure": _depth_figure(family, q, {c: tables[f"c={c},e={e}"] for c in c_values})}
    params = {"family": family, "q": q, "L_max": L_cert, "c_values": list(c_values), "e": e}
    bad = [L for L in range(1, L_cert + 1) if counts[L] != q ** L]
    if bad or any(not _depth_table(counts, q, c, e, c * L_cert + e + c - 1)[1] for c in c_values):
        return _kernel_result("T10", "family", Verdict.INCONCLUSIVE, Method.EXACT,
                              {"summary": f"unexpected counts at L = {bad}: no certificate of a refutation"}, params,
                              CONV_PIECES, evidence=evidence)
    cert = {"kind": "regions-family", "breakpoints": _family_breakpoints(family, q, L_cert)}
    return _kernel_result("T10", "family", Verdict.PROVED, Method.EXACT, cert, params, CONV_PIECES, evidence=evidence)


def check_tent_counts(L_max: int = MAX_TENT_L, compiled_L_max: int = 4, c_values=(2, 3)) -> Result:
    """PROVED iff the tent network has exactly 2^L pieces on [0, 1] for L = 1..L_cert (L_cert <= L_max, the
    largest L whose breakpoint certificate fits the kernel's work bound; the statement names it) and every
    depth-table row (D = c L, c in c_values, e = 0) meets 2^(floor(D/3)-1).  Counts up to L_max, the compiled
    Transformer's traced counts and T6 verdicts (L <= compiled_L_max) are evidence only."""
    parse_int(L_max, "L_max", 1, MAX_TENT_L)
    parse_int(compiled_L_max, "compiled_L_max", 0, min(L_max, 8))
    return _family_counts("tent", 2, L_max, c_values, 0, compiled_L_max, 4)


def check_zigzag_counts(q: int = 2, L_max: int = MAX_ZIGZAG_L, compiled_L_max: int = 2, c_values=(2, 3)) -> Result:
    """PROVED iff g_q^{oL} has exactly q^L pieces on [0, 1] for L = 1..L_cert (the statement names L_cert <=
    L_max) and the depth tables (D = c L + 1 with the read-out FFN) meet q^(floor(D/3)-1).  The compiled
    Transformer (n = 2, q heads per layer, E = 2q + 3, S = 4q) counts and T6 verdicts are evidence."""
    parse_int(q, "q", 2, 4)
    parse_int(L_max, "L_max", 1, MAX_ZIGZAG_L)
    parse_int(compiled_L_max, "compiled_L_max", 0, min(L_max, 3))
    return _family_counts("zigzag", q, L_max, c_values, 1, compiled_L_max, 4 * q)


def _depth_figure(family: str, q: int, tables: dict) -> dict:
    """Typed figure data ``region_counts`` (docs/reports.md): exact counts against depth D, one series per
    c (L = floor((D - e)/c) layers), and the bound q^(floor(D/3) - 1)."""
    series = [{"name": f"exact count, one network layer per {c} sublayers", "role": "exact",
               "points": [[str(r["D"]), str(r["count"])] for r in rows]} for c, rows in sorted(tables.items())]
    longest = max(tables.values(), key=len)
    series.append({"name": f"bound {q}^(floor(D/3) - 1)", "role": "bound",
                   "points": [[str(r["D"]), fraction_str(r["bound"])] for r in longest]})
    return {"type": "region_counts", "group": f"{family}, q = {q}", "series": series}


def _pieces_figure(rc) -> dict | None:
    """Typed figure data ``pieces_2d`` (docs/reports.md): the exact cells of each region of a 2-D count, grouped
    by region, so a figure colours regions, not cells (at most 400 regions)."""
    if len(rc.box) != 2 or not rc.regions or len(rc.regions) > 400:
        return None
    return {"type": "pieces_2d", "kind": rc.kind, "box": [[fraction_str(lo), fraction_str(hi)] for lo, hi in rc.box],
            "pieces": [[[[fraction_str(c) for c in v] for v in cell] for cell in reg["cells"]] for reg in rc.regions]}


def check_depth_bound_table(family: str = "tent", q: int = 2, D_max: int = 60, c: int = 3, e: int = 0) -> Result:
    """The brief's form as a table: for D = c + e .. D_max, the family member with L = floor((D - e)/c)
    layers has an exact count >= q^(floor(D/3) - 1).  PROVED iff every row holds, REFUTED iff one fails
    (kernel kinds regions-depth-bound / regions-depth-miss); INCONCLUSIVE beyond the kernel's work bound."""
    parse_int(c, "c", 1, 6)
    parse_int(e, "e", 0, 3)
    parse_int(D_max, "D_max", c + e, 200)
    L_need = (D_max - e) // c
    if family == "tent":
        if q != 2:
            raise InputError("q", "the tent family has q = 2 (tokens)")
        if L_need > MAX_TENT_L:
            raise InputError("D_max", f"needs L = {L_need} > {MAX_TENT_L} tent layers (2^L pieces); lower D_max or raise c")
    elif family == "zigzag":
        parse_int(q, "q", 2, 4)
        if L_need > MAX_ZIGZAG_L:
            raise InputError("D_max", f"needs L = {L_need} > {MAX_ZIGZAG_L} zigzag layers")
    elif family == "identical-pieces":
        if q != 2:
            raise InputError("q", "the identical-pieces family is read with q = 2")
    else:
        raise InputError("family", f"must be tent, zigzag or identical-pieces, got {family!r}")
    full = MaxoutNetwork.from_dict(KR.family_spec(family, q, L_need))
    counts = {L: pieces for L, (_, pieces) in
              enumerate(prefix_counts_1d(full, 0, 1, readout=full.readout), start=1)}
    rows, ok = _depth_table(counts, q, c, e, D_max)
    bad = [r for r in rows if not r["ok"]]
    summary = (f"{family}: every depth D = {rows[0]['D']}..{rows[-1]['D']} meets {q}^(floor(D/3)-1) (c = {c}, e = {e}); "
               f"count at D = {rows[-1]['D']}: {rows[-1]['count']}" if ok else
               f"{family}: D = {bad[0]['D']} (L = {bad[0]['L']}) has {bad[0]['count']} < {q}^(floor(D/3)-1) = "
               f"{fraction_str(bad[0]['bound'])}")
    conv = {"depth": f"D = sublayers, L = floor((D - e)/c), c = {c}, e = {e}", **CONV_PIECES}
    evidence = {"summary": summary, "table": rows, "figure": _depth_figure(family, q, {c: rows})}
    L_cert = _certified_L(family, q, L_need) if family != "identical-pieces" else L_need
    if L_cert < L_need:            # narrowed to the rows whose breakpoints fit the kernel's work bound
        D_max = min(D_max, c * L_cert + e + c - 1)
        evidence["uncertified_rows"] = f"D = {D_max + 1}..{rows[-1]['D']} (beyond the kernel's work bound)"
        rows = [r for r in rows if r["D"] <= D_max]
        bad = [r for r in rows if not r["ok"]]
        ok = not bad
    params = {"family": family, "q": q, "D_max": D_max, "c": c, "e": e}
    cert = {"kind": "regions-depth-bound" if ok else "regions-depth-miss",
            "breakpoints": _family_breakpoints(family, q, L_cert)}
    return _kernel_result("T10", "depth", Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT, cert, params, conv,
                          evidence=evidence)


def _identical(L):
    """h_1 = max(2x, 2x), h_l = max(2h, 2h): one piece whatever the depth."""
    return MaxoutNetwork.from_dict(KR.family_spec("identical-pieces", 2, L))


def check_universal_reading(L: int = 4, q: int = 2) -> Result:
    """T10.n1: "every L-layer network of depth D = 2L sublayers (the compiled depth) has >= q^(floor(D/3)-1)
    pieces" is REFUTED by max(2h, 2h) with L layers (1 piece), certified by its exact breakpoints (kind
    regions-universal-miss); the compiled hardmax Transformer's count is evidence."""
    from ..constructions.maxout_compiler import compile_maxout

    parse_int(L, "L", 1, 8)
    net = _identical(L)
    comp = compile_maxout(net, [[0, 1]])
    D = comp.transformer.n_sublayers
    rc = count_regions(net, [(0, 1)], kind="pieces")
    rct = count_regions(comp, [(0, 1)], kind="pieces", include_regions=False)
    b = _bound(q, 2 * L)
    evidence = {"compiled_transformer": {"D": D, "pieces": rct.count, "activation_regions": rct.activation_regions}}
    params = {"q": q, "c": 2, "e": 0, "counterexample": net.to_dict()}
    conv = {"depth": "D = c L + e sublayers of the compiled network (c = 2, e = 0)", **CONV_PIECES}
    if rc.count >= b:
        return _kernel_result("T10", "universal", Verdict.INCONCLUSIVE, Method.EXACT,
                              {"summary": f"{rc.count} pieces >= {fraction_str(b)}: no counterexample at L = {L}"},
                              params, conv, evidence=evidence)
    xs, _ = maxout_values_1d(net, 0, 1)
    cert = {"kind": "regions-universal-miss", "breakpoints": breakpoint_certificate(xs)}
    return _kernel_result("T10", "universal", Verdict.REFUTED, Method.EXACT, cert, params, conv,
                          evidence={"summary": f"max(2h, 2h), L = {L}, D = {2 * L}: {rc.count} piece(s) < {q}^(floor("
                                               f"{2 * L}/3)-1) = {fraction_str(b)}; the brief's bound is existential",
                                    **evidence})


def check_one_layer_ceiling(seeds=tuple(range(10)), N: int = 3, k: int = 3) -> Result:
    """T10.n2 (first half), narrowed to the instances: each of the seeded random 1-D maxout layers of width N
    and rank k (linear read-out) has <= 1 + N(k-1) pieces on [-2, 2], each counted exactly (kind
    regions-one-layer).  The instances are in ``parameters.networks``; the universal ceiling is a lemma
    (each unit's envelope has <= k - 1 breakpoints), not what this Result proves."""
    parse_int(N, "N", 1, 8)
    parse_int(k, "k", 2, 6)
    rows, ok, nets, pts = [], True, [], []
    for s in seeds:
        rng = random.Random(s)
        q = lambda: Fraction(rng.randint(-8, 8), rng.randint(1, 4))
        net = MaxoutNetwork([([[[q()] for _ in range(k)] for _ in range(N)], [[q() for _ in range(k)] for _ in range(N)])],
                            readout=([[q() for _ in range(N)]], [0]))
        n = count_regions(net, [(-2, 2)], include_regions=False).count
        ok = ok and n <= 1 + N * (k - 1)
        rows.append({"seed": s, "pieces": n})
        nets.append(net.to_dict())
        pts.append(breakpoint_certificate(maxout_values_1d(net, -2, 2)[0]))
    params = {"box": [[-2, 2]], "networks": nets}
    evidence = {"instances": rows, "N": N, "k": k}
    if not ok:
        return _kernel_result("T10", "one-layer", Verdict.INCONCLUSIVE, Method.EXACT,
                              {"summary": "an instance exceeds the ceiling (impossible: a bug)"}, params, CONV_PIECES,
                              evidence=evidence, seeds={"instances": list(seeds)})
    return _kernel_result("T10", "one-layer", Verdict.PROVED, Method.EXACT,
                          {"kind": "regions-one-layer", "breakpoints": pts}, params, CONV_PIECES,
                          evidence={"summary": f"{len(rows)} instances, max {max(r['pieces'] for r in rows)} pieces "
                                               f"<= {1 + N * (k - 1)}", **evidence}, seeds={"instances": list(seeds)})


def check_shallow_family(L: int = 3, q: int = 2) -> Result:
    """T10.n2 (second half): "some one-layer network of width N = qL, rank 2 reaches 2^L pieces" is REFUTED
    by the one-layer ceiling 1 + N(k-1) = 1 + N < 2^L (kind regions-one-layer-lemma, which trusts that lemma);
    the best shallow instance (N distinct ReLU breakpoints, alternating read-out) with exactly 1 + N pieces is
    evidence that the ceiling is attained.  INCONCLUSIVE when 1 + N >= 2^L."""
    parse_int(L, "L", 1, 12)
    N = q * L
    layer = ([[[Fraction(1)], [Fraction(0)]] for _ in range(N)],
             [[Fraction(-i, N + 1), Fraction(0)] for i in range(1, N + 1)])
    net = MaxoutNetwork([layer], readout=([[Fraction((-1) ** i * (i + 1)) for i in range(N)]], [0]))
    n = count_regions(net, [(0, 1)], include_regions=False).count
    evidence = {"best_instance_pieces": n, "ceiling": 1 + N, "L": L, "q": q}
    params = {"N": N, "target": 2 ** L}
    if 1 + N >= 2 ** L:
        return _kernel_result("T10", "shallow", Verdict.INCONCLUSIVE, Method.EXACT,
                              {"summary": f"the ceiling 1 + N = {1 + N} does not rule out 2^{L} = {2 ** L}"}, params,
                              CONV_PIECES, evidence=evidence)
    return _kernel_result("T10", "shallow", Verdict.REFUTED, Method.EXACT, {"kind": "regions-one-layer-lemma"}, params,
                          CONV_PIECES, evidence={"summary": f"ceiling 1 + N(k-1) = {1 + N} < 2^L = {2 ** L} (the best "
                                                            f"instance has exactly {n}): depth is needed", **evidence})


def grid_piece_count(net, lo, hi, den: int) -> int:
    """Pieces "found" by sampling at the grid lo + i (hi - lo)/den: runs of equal consecutive slopes."""
    lo, hi = Fraction(lo), Fraction(hi)
    xs = [lo + (hi - lo) * Fraction(i, den) for i in range(den + 1)]
    ys = [net.evaluate([x])[0] for x in xs]
    slopes = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(den)]
    return 1 + sum(1 for i in range(1, den) if slopes[i] != slopes[i - 1])


def check_grid_method(network: str = "O2", den: int = 720) -> Result:
    """T10.n3: "the grid count equals the exact count" -- REFUTED on O2 with step 1/720 (5 versus 4:
    9/26 is not a grid point); PROVED for the tent on the dyadic grid {i/2^(L+1)}, which contains every
    breakpoint (``network="tent-L"``).  Kinds regions-grid / regions-grid-miss (the network's SPEC is in
    the parameters, its name in the evidence)."""
    parse_int(den, "den", 1, 100_000)
    if network == "O2":
        net = o2_network()
    elif isinstance(network, str) and network.startswith("tent-"):
        net = _tent(parse_int(int(network[5:]), "L", 1, 12))
    else:
        raise InputError("network", f"must be 'O2' or 'tent-L', got {network!r}")
    exact = count_regions(net, [(0, 1)])
    grid = grid_piece_count(net, 0, 1, den)
    ok = grid == exact.count
    params = {"network": net.to_dict(), "box": [[0, 1]], "den": den}
    cert = {"kind": "regions-grid" if ok else "regions-grid-miss",
            "breakpoints": breakpoint_certificate(maxout_values_1d(net, 0, 1)[0])}
    return _kernel_result("T10", "grid", Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT, cert, params,
                          CONV_PIECES, evidence={"summary": f"grid count {grid} {'=' if ok else '!='} exact count "
                                                            f"{exact.count}", "network_name": network,
                                                 "grid_count": grid, "exact_count": exact.count,
                                                 "breakpoints": [r["interval"][0] for r in exact.regions[1:]]})


def region_certificate(net, box) -> dict:
    """The kernel certificate of an exact count on a 1-D / 2-D box: breakpoints, or the full partition of the
    closed box (open polygons, open segments of their skeleton, points)."""
    if len(box) == 1:
        return {"breakpoints": breakpoint_certificate(maxout_values_1d(net, box[0][0], box[0][1])[0])}
    polys = [_clean(vs) for vs, _, _ in maxout_cells_2d(net, box)]
    return {"cells": [[[fraction_str(c) for c in v] for v in P] for P in polys + _skeleton(polys)]}


def _clean(vs):
    """A strictly convex counter-clockwise vertex list (collinear and repeated vertices removed), as exact
    ``mpq`` (gmpy2: the same numbers as Fractions, several times faster)."""
    vs = [tuple(mpq(to_fraction(c)) for c in v) for v in vs]
    out = []
    for v in vs:
        if not out or out[-1] != v:
            out.append(v)
    if out[0] == out[-1]:
        out.pop()
    changed = True
    while changed and len(out) > 3:
        changed = False
        for i in range(len(out)):
            a, b, c = out[i - 1], out[i], out[(i + 1) % len(out)]
            if (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) == 0:
                del out[i]
                changed = True
                break
    area = sum(out[i][0] * out[(i + 1) % len(out)][1] - out[(i + 1) % len(out)][0] * out[i][1] for i in range(len(out)))
    return out if area > 0 else out[::-1]


def _skeleton(polys) -> list:
    """The open segments and points that complete the open polygons to a partition of the closed box (exact
    ``mpq`` coordinates)."""
    polys = [[tuple(map(mpq, v)) for v in P] for P in polys]
    lines, points = {}, set()
    for P in polys:
        for a, b in zip(P, P[1:] + P[:1]):
            dy, dx = b[1] - a[1], a[0] - b[0]
            c = dy * a[0] + dx * a[1]
            n = dy if dy != 0 else dx
            key, k = (dy / n, dx / n, c / n), (0 if dx != 0 else 1)
            lines.setdefault(key, []).append((min(a, b, key=lambda p: p[k]), max(a, b, key=lambda p: p[k]), k))
            points.update((a, b))
    out = []
    for key, es in lines.items():
        k = es[0][2]
        ts = sorted({p for a, b, _ in es for p in (a, b)}, key=lambda p: p[k])
        union = []                                   # the edges' union on this line, as disjoint intervals
        for lo, hi in sorted((a[k], b[k]) for a, b, _ in es):
            if union and lo <= union[-1][1]:
                union[-1][1] = max(union[-1][1], hi)
            else:
                union.append([lo, hi])
        u = 0
        for p, r in zip(ts, ts[1:]):
            mid = (p[k] + r[k]) / 2
            while u < len(union) and union[u][1] <= mid:
                u += 1
            if u < len(union) and union[u][0] < mid:
                out.append([p, r])
            points.update((p, r))
    return out + [[p] for p in sorted(points)]


def check_region_count(spec, box, kind: str = "pieces", expected: int | None = None, tie: str = "average") -> Result:
    """A re-checkable exact count (kernel kinds ``regions-count`` / ``regions-miscount``) of a maxout network
    SPEC on a 1-D or 2-D box: PROVED iff it has exactly ``expected`` regions of ``kind`` (REFUTED otherwise);
    ``expected=None`` claims the exact count found.  Input dimension 3..6: exact polyhedral cells, kinds
    ``regions-polytope`` (activation) and ``regions-polytope-pieces`` (pieces; docs/regions.md, "Pieces in
    d >= 3"), each with its ``-miscount`` kind."""
    net = spec if isinstance(spec, MaxoutNetwork) else MaxoutNetwork.from_dict(spec)
    if net.input_dim >= 3 and kind == "activation":      # exact polyhedral cells (kind regions-polytope)
        from ..arith.exact import parse_box
        from ..decide.polytope import MAX_DIM, prove_activation_count

        return prove_activation_count(net.to_dict(), parse_box(box, net.input_dim, max_dim=MAX_DIM), expected)
    if net.input_dim >= 3 and kind == "pieces":          # polyhedral cells, merges, separations (regions-polytope-pieces)
        from ..arith.exact import parse_box
        from ..decide.polytope import MAX_DIM
        from ..decide.polytope_pieces import prove_pieces_count

        return prove_pieces_count(net.to_dict(), parse_box(box, net.input_dim, max_dim=MAX_DIM), expected)
    rc = count_regions(net, box, kind=kind, tie=tie, include_regions=False)
    if rc.complete and rc.count <= 2000:      # the regions are evidence up to 2000 of them: list them
        rc = count_regions(net, box, kind=kind, tie=tie)
    if not rc.complete:            # a budget ran out: no count, never a verdict
        params = {"network": net.to_dict(), "box": [[lo, hi] for lo, hi in rc.box], "kind": kind,
                  "count": expected}
        return _kernel_result("T10", "count", Verdict.INCONCLUSIVE, Method.EXACT, {}, params, CONV_PIECES,
                              evidence={"summary": f"count stopped by {rc.partial['stopped']}: not certified",
                                        "partial": rc.partial})
    claimed = rc.count if expected is None else expected
    if not isinstance(claimed, int) or isinstance(claimed, bool) or claimed < 0:
        raise InputError("expected", f"must be a non-negative integer, got {claimed!r}")
    ok = rc.count == claimed
    params = {"network": net.to_dict(), "box": [[lo, hi] for lo, hi in rc.box], "kind": kind, "count": claimed}
    evidence = {"summary": f"{rc.count} {kind} regions (claimed {claimed})", "activation_regions": rc.activation_regions,
                "pieces": rc.pieces, "regions": rc.regions if rc.count <= 2000 else None}
    figure = _pieces_figure(rc)
    if figure is not None:
        evidence["figure"] = figure
    spec = jsonable(net.to_dict())
    if len(rc.box) == 1:
        too_big = (rc.cells + 1) * KR._work(*KR.read_network(spec, "network", 1)) > KR.MAX_WORK or \
            rc.cells + 1 > KR.MAX_POINTS
    else:                          # the kernel evaluates the open polygons only (kernel.regions.work_2d)
        too_big = KR.work_2d(spec, rc.cells) > KR.MAX_WORK_2D
    cert = None if too_big else region_certificate(net, rc.box)
    if cert is not None and len(cert.get("cells", ())) > KR.MAX_CELLS_2D:
        too_big = True
    if too_big:
        evidence["summary"] += "; too large for a kernel certificate (work bound): not certified"
        return _kernel_result("T10", "count", Verdict.INCONCLUSIVE, Method.EXACT, {}, params, CONV_PIECES,
                              evidence=evidence)
    cert = {"kind": "regions-count" if ok else "regions-miscount", **cert}
    return _kernel_result("T10", "count", Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT, cert, params,
                          CONV_PIECES, evidence=evidence)
