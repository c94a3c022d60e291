"""T10: exact linear-region counts and their growth with depth (spec maxout R7, O4, O6, 2.4-2.5).

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

from ..analysis.regions import count_regions, prefix_counts_1d
from ..engines.exact import fraction_str
from ..errors import InputError
from ..objects.maxout import MaxoutNetwork
from ..results import Method, Result, Verdict

__all__ = ["zigzag_network", "check_tent_counts", "check_zigzag_counts", "check_depth_bound_table",
           "check_universal_reading", "check_one_layer_ceiling", "check_shallow_family", "check_grid_method",
           "check_region_count", "grid_piece_count", "MAX_TENT_L", "MAX_ZIGZAG_L"]

MAX_TENT_L = 20
MAX_ZIGZAG_L = 8
STATEMENT_TENT = "the tent network -T^{oL} (and its compiled hardmax Transformer) has exactly 2^L linear pieces on [0, 1]"


def _int_in(name, v, lo, hi):
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    return v


def _tent(L):
    from ..constructions.token_shift import tent_network

    return tent_network(L)


def zigzag_network(q: int, L: int) -> MaxoutNetwork:
    """g_q^{oL} as a width-q rank-2 maxout network with a linear read-out (R7): units max(y - i/q, 0),
    i = 0..q-1, with y = x at layer 1 and y = q h_0 - 2q sum_{i>=1} (-1)^(i+1) h_i afterwards.

    >>> [zigzag_network(2, 1).evaluate([x])[0] for x in (0, "1/4", "1/2", 1)]
    [Fraction(0, 1), Fraction(1, 2), Fraction(1, 1), Fraction(0, 1)]
    """
    _int_in("q", q, 2, 8)
    _int_in("L", L, 1, 64)
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


def check_tent_counts(L_max: int = MAX_TENT_L, compiled_L_max: int = 4, c_values=(2, 3)) -> Result:
    """PROVED iff count(L) = 2^L for L = 1..L_max (network, exact sweep), the compiled Transformer's
    traced count is 2^L and it is proved equal to the network (T6) for L <= compiled_L_max, and every
    row of the depth table (D = c L, c in c_values, e = 0) meets q^(floor(D/3)-1) with q = 2."""
    from ..constructions.maxout_compiler import compile_maxout
    from .emulation import prove_emulation

    _int_in("L_max", L_max, 1, MAX_TENT_L)
    _int_in("compiled_L_max", compiled_L_max, 0, min(L_max, 8))
    counts, problems = {}, []
    # the L-layer tent is the prefix of the L_max-layer one: one exact sweep gives every count
    for L, (_, pieces) in enumerate(prefix_counts_1d(_tent(L_max), 0, 1), start=1):
        counts[L] = pieces
        if pieces != 2 ** L:
            problems.append(f"L = {L}: {pieces} pieces != 2^L")
    compiled = []
    for L in range(1, compiled_L_max + 1):
        comp = compile_maxout(_tent(L), [[0, 1]], S=4)
        rc = count_regions(comp, [(0, 1)], include_regions=False)
        eq = prove_emulation(comp, record_regions=False)
        compiled.append({"L": L, "D": comp.transformer.n_sublayers, "pieces": rc.count,
                         "activation_regions": rc.activation_regions, "T6": eq.verdict.value})
        if rc.count != 2 ** L or not eq.proved:
            problems.append(f"compiled L = {L}: {rc.count} pieces, T6 {eq.verdict.value}")
    tables = {}
    for c in c_values:
        rows, ok = _depth_table(counts, 2, c, 0, c * L_max + (c - 1))
        tables[f"c={c},e=0"] = rows
        if not ok:
            problems.append(f"depth table c = {c} misses the bound")
    ratios = [Fraction(counts[L + 1], counts[L]) for L in range(1, L_max)]
    verdict = Verdict.REFUTED if problems else Verdict.PROVED
    summary = (f"tent: exactly 2^L pieces for L = 1..{L_max} ({counts[L_max]} at L = {L_max}); compiled Transformer "
               f"counted and proved equal for L <= {compiled_L_max}; every depth-table row meets 2^(floor(D/3)-1) "
               f"for c in {list(c_values)} (D up to {max(c_values) * L_max + max(c_values) - 1})"
               if not problems else "; ".join(problems))
    return Result("T10", STATEMENT_TENT, verdict, Method.EXACT,
                  certificate={"summary": summary, "counts": {str(L): n for L, n in counts.items()},
                               "ratios": ratios, "compiled": compiled, "depth_tables": tables},
                  parameters={"L_max": L_max, "compiled_L_max": compiled_L_max, "c_values": list(c_values)},
                  conventions={"depth": "D = sublayers; c sublayers per maxout layer, e extra sublayers",
                               "q": "2 = tokens (tent)", "region": "maximal open affine pieces, exact breakpoints",
                               "tie": "average (compiled counts)"})


def check_zigzag_counts(q: int = 2, L_max: int = MAX_ZIGZAG_L, compiled_L_max: int = 2, c_values=(2, 3)) -> Result:
    """PROVED iff g_q^{oL} has exactly q^L pieces on [0, 1] for L = 1..L_max, the compiled Transformer
    (n = 2, q heads per layer, E = 2q + 3, S = 4q) has q^L pieces and equals the network (T6) for
    L <= compiled_L_max, and the depth table (D = c L + 1 with the read-out FFN) meets q^(floor(D/3)-1)."""
    from ..constructions.maxout_compiler import compile_maxout
    from .emulation import prove_emulation

    _int_in("q", q, 2, 4)
    _int_in("L_max", L_max, 1, MAX_ZIGZAG_L)
    _int_in("compiled_L_max", compiled_L_max, 0, min(L_max, 3))
    counts, problems, compiled = {}, [], []
    net = zigzag_network(q, L_max)
    for L, (_, pieces) in enumerate(prefix_counts_1d(net, 0, 1, readout=net.readout), start=1):
        counts[L] = pieces
        if pieces != q ** L:
            problems.append(f"L = {L}: {pieces} pieces != {q}^L")
    for L in range(1, compiled_L_max + 1):
        comp = compile_maxout(zigzag_network(q, L), [[0, 1]], S=4 * q)
        rc = count_regions(comp, [(0, 1)], include_regions=False)
        eq = prove_emulation(comp, record_regions=False)
        E = comp.transformer.embedding_dim
        compiled.append({"L": L, "D": comp.transformer.n_sublayers + 1, "embedding": E,
                         "heads": comp.transformer.heads_per_attention, "pieces": rc.count, "T6": eq.verdict.value})
        if rc.count != q ** L or not eq.proved or E != 2 * q + 3:
            problems.append(f"compiled L = {L}: {rc.count} pieces, E = {E}, T6 {eq.verdict.value}")
    tables = {}
    for c in c_values:
        rows, ok = _depth_table(counts, q, c, 1, c * L_max + 1 + (c - 1))
        tables[f"c={c},e=1"] = rows
        if not ok:
            problems.append(f"depth table c = {c} misses the bound")
    verdict = Verdict.REFUTED if problems else Verdict.PROVED
    summary = (f"zigzag q = {q}: exactly {q}^L pieces for L = 1..{L_max}; compiled (E = {2 * q + 3}) counted and "
               f"proved equal for L <= {compiled_L_max}; depth tables meet {q}^(floor(D/3)-1) for c in {list(c_values)}"
               if not problems else "; ".join(problems))
    return Result("T10", f"g_{q}^(oL) has exactly {q}^L linear pieces on [0, 1]", verdict, Method.EXACT,
                  certificate={"summary": summary, "counts": {str(L): n for L, n in counts.items()},
                               "compiled": compiled, "depth_tables": tables},
                  parameters={"q": q, "L_max": L_max, "compiled_L_max": compiled_L_max, "c_values": list(c_values)},
                  conventions={"depth": "D = sublayers = c L + e, e = 1 (read-out FFN)",
                               "q": "heads per layer (zigzag)", "region": "maximal open affine pieces"})


def check_depth_bound_table(family: str = "tent", q: int = 2, D_max: int = 60, c: int = 3, e: int = 0) -> Result:
    """The brief's form as a table: for D = c + e .. D_max, the family member with L = floor((D - e)/c)
    layers has an exact count >= q^(floor(D/3) - 1).  PROVED iff every row holds."""
    _int_in("c", c, 1, 6)
    _int_in("e", e, 0, 3)
    _int_in("D_max", D_max, c + e, 200)
    L_need = (D_max - e) // c
    if family == "tent":
        if q != 2:
            raise InputError("q", "the tent family has q = 2 (tokens)")
        if L_need > MAX_TENT_L:
            raise InputError("D_max", f"needs L = {L_need} > {MAX_TENT_L} tent layers (2^L pieces); lower D_max or raise c")
        build = _tent
    elif family == "zigzag":
        _int_in("q", q, 2, 4)
        if L_need > MAX_ZIGZAG_L:
            raise InputError("D_max", f"needs L = {L_need} > {MAX_ZIGZAG_L} zigzag layers")
        build = lambda L: zigzag_network(q, L)
    elif family == "identical-pieces":
        build = _identical
    else:
        raise InputError("family", f"must be tent, zigzag or identical-pieces, got {family!r}")
    full = build(L_need)
    counts = {L: pieces for L, (_, pieces) in
              enumerate(prefix_counts_1d(full, 0, 1, readout=full.readout), start=1)}
    rows, ok = _depth_table(counts, q, c, e, D_max)
    bad = [r for r in rows if not r["ok"]]
    summary = (f"{family}: every depth D = {rows[0]['D']}..{rows[-1]['D']} meets {q}^(floor(D/3)-1) (c = {c}, e = {e}); "
               f"count at D = {rows[-1]['D']}: {rows[-1]['count']}" if ok else
               f"{family}: D = {bad[0]['D']} (L = {bad[0]['L']}) has {bad[0]['count']} < {q}^(floor(D/3)-1) = "
               f"{fraction_str(bad[0]['bound'])}")
    return Result("T10", f"the {family} family of depth D has >= {q}^(floor(D/3)-1) linear regions (c = {c}, e = {e})",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": summary, "table": rows},
                  parameters={"family": family, "q": q, "D_max": D_max, "c": c, "e": e},
                  conventions={"depth": f"D = sublayers, L = floor((D - e)/c), c = {c}, e = {e}", "q": q})


def _identical(L):
    """h_1 = max(2x, 2x), h_l = max(2h, 2h): one piece whatever the depth."""
    return MaxoutNetwork([([[[2], [2]]], [[0, 0]])] * L)


def check_universal_reading(L: int = 4, q: int = 2) -> Result:
    """T10.n1: "every depth-D network has >= q^(floor(D/3)-1) regions" is REFUTED by the compiled
    max(2h, 2h) network (D = 2L sublayers), counted through its hardmax Transformer."""
    from ..constructions.maxout_compiler import compile_maxout

    _int_in("L", L, 1, 8)
    comp = compile_maxout(_identical(L), [[0, 1]])
    D = comp.transformer.n_sublayers
    rc = count_regions(comp, [(0, 1)], kind="pieces")
    b = _bound(q, D)
    ok = rc.count >= b
    return Result("T10", "every depth-D network has >= q^(floor(D/3)-1) linear regions (universal reading)",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": f"compiled max(2h, 2h), L = {L}, D = {D}: {rc.count} piece(s) "
                                          f"{'>=' if ok else '<'} {q}^(floor({D}/3)-1) = {fraction_str(b)}; "
                                          "the brief's bound is existential",
                               "count": rc.count, "activation_regions": rc.activation_regions, "D": D, "bound": b,
                               "regions": rc.regions},
                  parameters={"L": L, "q": q}, conventions={"depth": "D = sublayers (c = 2, e = 0)"})


def check_one_layer_ceiling(seeds=tuple(range(10)), N: int = 3, k: int = 3) -> Result:
    """T10.n2 (first half): a 1-D maxout layer of width N and rank k with a linear read-out has
    <= 1 + N(k-1) pieces (each unit's envelope has <= k - 1 breakpoints); checked exactly on seeded
    random instances.  PROVED iff every instance is within the ceiling."""
    _int_in("N", N, 1, 8)
    _int_in("k", k, 2, 6)
    rows, ok = [], True
    for s in seeds:
        rng = random.Random(s)
        q = lambda: Fraction(rng.randint(-8, 8), rng.randint(1, 4))
        net = MaxoutNetwork([([[[q()] for _ in range(k)] for _ in range(N)], [[q() for _ in range(k)] for _ in range(N)])],
                            readout=([[q() for _ in range(N)]], [0]))
        n = count_regions(net, [(-2, 2)], include_regions=False).count
        ok = ok and n <= 1 + N * (k - 1)
        rows.append({"seed": s, "pieces": n})
    return Result("T10", f"one maxout layer (width {N}, rank {k}) has <= 1 + N(k-1) = {1 + N * (k - 1)} pieces in 1-D",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": f"{len(rows)} random instances, max {max(r['pieces'] for r in rows)} pieces "
                                          f"<= {1 + N * (k - 1)}", "instances": rows},
                  parameters={"N": N, "k": k}, seeds={"instances": list(seeds)})


def check_shallow_family(L: int = 3, q: int = 2) -> Result:
    """T10.n2 (second half): "a one-layer network of width N = qL, rank 2 reaches 2^L pieces" is REFUTED:
    the one-layer ceiling gives <= 1 + N, and the best shallow instance (N distinct ReLU breakpoints,
    alternating read-out) has exactly 1 + N < 2^L pieces for L >= 3."""
    _int_in("L", L, 1, 12)
    N = q * L
    layer = ([[[Fraction(1)], [Fraction(0)]] for _ in range(N)],
             [[Fraction(-i, N + 1), Fraction(0)] for i in range(1, N + 1)])
    net = MaxoutNetwork([layer], readout=([[Fraction((-1) ** i * (i + 1)) for i in range(N)]], [0]))
    n = count_regions(net, [(0, 1)], include_regions=False).count
    ok = n >= 2 ** L
    return Result("T10", f"a one-layer width-{N} rank-2 network reaches 2^{L} = {2 ** L} pieces",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": f"exact count {n} = 1 + N; ceiling 1 + N(k-1) = {1 + N} "
                                          f"{'>=' if ok else '<'} 2^L = {2 ** L}: depth is needed",
                               "count": n, "ceiling": 1 + N, "target": 2 ** L},
                  parameters={"L": L, "q": q, "N": N})


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
    breakpoint (``network="tent-L"``)."""
    from .t6_maxout_emulation import o2_network

    _int_in("den", den, 1, 100_000)
    if network == "O2":
        net = o2_network()
    elif isinstance(network, str) and network.startswith("tent-"):
        net = _tent(_int_in("L", int(network[5:]), 1, 12))
    else:
        raise InputError("network", f"must be 'O2' or 'tent-L', got {network!r}")
    exact = count_regions(net, [(0, 1)])
    grid = grid_piece_count(net, 0, 1, den)
    ok = grid == exact.count
    return Result("T10", f"sampling {network} on the grid of step 1/{den} finds the exact number of pieces",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": f"grid count {grid} {'=' if ok else '!='} exact count {exact.count}",
                               "grid_count": grid, "exact_count": exact.count,
                               "breakpoints": [r["interval"][0] for r in exact.regions[1:]]},
                  parameters={"network": network, "den": den})


def check_region_count(spec, box, kind: str = "pieces", expected: int | None = None, tie: str = "average") -> Result:
    """A re-checkable exact count (certificate kind ``regions-count``) of a MaxoutNetwork SPEC dict on a
    1-D or 2-D box; PROVED iff it equals ``expected`` (REFUTED otherwise)."""
    net = spec if isinstance(spec, MaxoutNetwork) else MaxoutNetwork.from_dict(spec)
    rc = count_regions(net, box, kind=kind, tie=tie)
    if expected is None:
        raise InputError("expected", "give the expected count")
    ok = rc.count == expected
    cert = {"kind": "regions-count", "summary": f"{rc.count} {kind} regions (expected {expected})",
            "network": net.to_dict(), "box": [[lo, hi] for lo, hi in rc.box], "count_kind": kind,
            "count": rc.count, "activation_regions": rc.activation_regions, "pieces": rc.pieces,
            "regions": rc.regions}
    return Result("T10", f"the network has exactly {expected} {kind} regions on the box",
                  Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT, certificate=cert,
                  parameters={"kind": kind, "expected": expected})
