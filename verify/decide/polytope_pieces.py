"""Linear pieces in any input dimension: the search behind the ``regions-polytope-pieces`` kernel kinds
(docs/regions.md, "Pieces in d >= 3").

Algorithm
---------
1. The activation split tree of :mod:`verify.decide.polytope` (the open box, zero children dropped; the same
   search and leaf evaluation as ``activation_search``).  Regions are the distinct leaf patterns; each region's
   exact affine map and its constraints come from the network and the pattern
   (:func:`verify.kernel.regions.region_forms`).  Regions are grouped by map: pieces >= number of maps.
2. Merges: for two leaves of different regions with the same map, each constraint h of one leaf whose
   negation (up to a positive factor) is a constraint of the other is tried: an exact point x with h(x) = 0 and
   every other constraint of both leaves > 0 (the Chebyshev LP of :func:`verify.decide.polytope.find_point` on
   {h = 0}, rounded and checked exactly; multiples of h left out).  A point found joins the two regions
   (union-find; leaves in leaf order, pairs already joined skipped), so each certificate holds a spanning
   forest of merges.
3. Separations, only for a map whose regions stay in two or more components: for every pair of its regions in
   different components, one HiGHS LP over y >= 0 on the closed constraints of both regions (the closed box and
   the region forms >= 0) and the constant form 1, sum y c = 0, maximising the support (z_i <= min(y_i, 1)); the
   support is made exact by exact row reduction on its columns (free multipliers rounded, pivot ones solved)
   and checked: the constant form in the support means the closures are disjoint; otherwise the support's
   linear parts must have rank >= 2 (the closures meet in dimension <= d - 2).
4. Pieces = number of components when every such pair is separated (or every map is one component).

Soundness
---------
Floats only propose: every merge point, multiplier and leaf is exact and re-checked by the kernel
(``regions-polytope-pieces``); the lemmas are in docs/regions.md, "Pieces in d >= 3".  A pair that no exact
separation is found for leaves the count between the number of maps and the number of components: PROVED
never follows from it; REFUTED only when the claimed count lies outside those bounds.

Limits
------
Input dimension 1..6 (as :mod:`verify.decide.polytope`, whose ``max_cells`` and ``time_budget`` apply; the
time budget also ends the merges and the separations, leaving the count between its bounds); one LP per
candidate pair of leaves for the merges (pairs of different final pieces on one hyperplane all cost theirs); at
most ``max_pairs`` (default :data:`verify.kernel.regions.MAX_SEPARATIONS`) same-map pairs needing a
separation, above which the count is INCONCLUSIVE with the bounds; a separation LP whose support does not
round to an exact certificate leaves the count INCONCLUSIVE (or REFUTED by the bounds).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
from gmpy2 import mpq
from scipy.optimize import linprog

from ..kernel import _cells as KC
from ..kernel import _poly as KP
from ..kernel import regions as KR
from .polytope import (_DENS as _PDENS, DEFAULT_MAX_CELLS, DEFAULT_TIME_BUDGET, MAX_DIM, POOL, Stuck, _eval_pattern,
                       _limit, _lp, _open_box_root, _parametrise, rref_rows, search, strip)

__all__ = ["pieces_search", "prove_pieces_count", "CONVENTIONS", "MAX_DIM"]

CONVENTIONS = {"region": "linear pieces = maximal connected open sets on which f is affine (exact polyhedral cells of "
                         "the open box; regions of one map joined across shared facets by exact points, kept apart "
                         "by exact separation certificates)"}
_DENS = (2 ** 10, 2 ** 20, 2 ** 32)


def _s(q) -> str:
    q = mpq(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _merge_point(h, rows, others, d):
    """An exact point x with h(x) = 0 and g(x) > 0 for every g in ``others`` (float rows ``rows``), or None: the
    Chebyshev LP of :func:`verify.decide.polytope.find_point` on {h = 0}, its optimum rounded on the free
    coordinates of the exact parametrisation of h = 0 and checked exactly; no emptiness certificate is needed
    (a pair without a point is simply not merged)."""
    Gl, G0 = rows[:, 1:], rows[:, 0]
    norms = np.linalg.norm(Gl, axis=1)
    A_ub = np.hstack([-Gl, norms[:, None]])
    c = np.zeros(d + 1)
    c[-1] = -1.0
    hf = np.array([float(v) for v in h])
    ok, fun, xv, _ = _lp(c, A_ub, G0, np.r_[hf[1:], 0.0][None, :], np.array([-hf[0]]), ub_last=1.0)
    if not ok or -fun <= 1e-9:
        return None
    free, x_of = _parametrise([h], d)
    xs = xv[:d]
    for den in _PDENS:
        x = x_of([_limit(xs[k], den) for k in free])
        if all(KP._at(g, x) > 0 for g in others):
            return tuple(x)
    return None


def _leaves_in_kernel_order(tree) -> list:
    """The point leaves of a search tree in the order of :func:`verify.kernel._poly.walk` (pre-order, child 0
    first)."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if "children" in node:
            kids = node["children"]
            stack.extend([kids[1], kids[0]])
        elif "point" in node:
            out.append(node)
    return out


def _rref(cols, rows: int):
    """Reduced row echelon form of the matrix with these columns (exact mpq): ``(R, pivot columns)``."""
    M = [[mpq(cols[j][i]) for j in range(len(cols))] for i in range(rows)]
    return M, rref_rows(M, len(cols))


def _separate(C, d: int):
    """An exact separation ``[[index, q], ...]`` of the closed constraints C (y >= 0, sum y c a constant <= 0,
    and rank >= 2 of the support when the constant is 0), or None."""
    cols = list(C) + [tuple([mpq(1)] + [mpq(0)] * d)]
    m = len(cols)
    F = np.array([[float(c) for c in f] for f in cols])
    scale = np.abs(F).max(axis=1)
    scale[scale == 0] = 1.0
    Fn = F / scale[:, None]
    # variables y_0..y_{m-1}, z_0..z_{m-1}: max sum z, z <= y, sum y c = 0, 0 <= y <= 1000, 0 <= z <= 1
    c = np.concatenate([np.zeros(m), -np.ones(m)])
    A_eq = np.hstack([Fn.T, np.zeros((d + 1, m))])
    A_ub = np.hstack([-np.eye(m), np.eye(m)])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=np.zeros(d + 1),
                  bounds=[(0, 1000)] * m + [(0, 1)] * m, method="highs")
    if res.status != 0:
        return None
    yf = res.x[:m] / scale
    S = [i for i in range(m) if res.x[i] > 0.5]
    if not S:
        return None
    R, piv = _rref([cols[i] for i in S], d + 1)
    free = [k for k in range(len(S)) if k not in piv]
    if not free:
        return None
    for den in _DENS:
        y = [None] * len(S)
        for k in free:
            y[k] = mpq(Fraction(float(yf[S[k]])).limit_denominator(den))
        for r, k in enumerate(piv):
            y[k] = -sum((R[r][f] * y[f] for f in free), mpq(0))
        if any(v <= 0 for v in y):
            continue
        combo = KP._combine([(v, cols[S[k]]) for k, v in enumerate(y)], d)
        if any(combo):
            continue
        const = (m - 1) in S
        pairs = [(S[k], v) for k, v in enumerate(y) if S[k] != m - 1]
        if not const and not KR._rank2([cols[i] for i, _ in pairs]):
            return None            # the closures may share a facet: no separation of this kind
        if not pairs:
            return None
        return [[i, _s(v)] for i, v in pairs]
    return None


def pieces_search(network: dict, bx, *, max_cells: int = DEFAULT_MAX_CELLS, time_budget: float = DEFAULT_TIME_BUDGET,
                  max_pairs: int = KR.MAX_SEPARATIONS) -> dict:
    """The activation split tree, merges and separations of a ``regions-polytope-pieces`` certificate.
    Returns the search's info (``trees``, ``complete``, ...) with ``regions``, ``maps``, ``components``,
    ``exact`` (the piece count, or None), ``merges``, ``separations`` and ``reason`` (why ``exact`` is None)."""
    t0 = time.monotonic()
    net = KC.read_maxout(network, "network")
    d = len(bx)
    bxq = [(mpq(lo), mpq(hi)) for lo, hi in bx]
    memo: dict = {}
    found = {}

    def leaf(cell):
        pat = _eval_pattern(net, cell, memo)
        found[id(cell.node)] = (cell.G, pat)
        return None

    info = search([_open_box_root(bxq)], leaf, lower=False, max_cells=max_cells, time_budget=time_budget, bx=bxq,
                  pool=POOL)
    if not info["complete"]:
        return info
    leaves = [found[id(node)] for node in _leaves_in_kernel_order(info["trees"][0])]
    region, pats = [], {}
    for _, pat in leaves:
        region.append(pats.setdefault(pat, len(pats)))
    rpat = list(pats)
    forms = [KR.region_forms(net, p, d) for p in rpat]
    rmap = [f[1] for f in forms]
    parent = list(range(len(rpat)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    groups: dict = {}
    for r, m in enumerate(rmap):
        groups.setdefault(m, []).append(r)
    # merges: leaves of shared maps, indexed by the norm keys of their constraints
    multi = {m for m, rs in groups.items() if len(rs) > 1}
    index: dict = {}
    keys, frows = {}, {}
    for a, (G, _) in enumerate(leaves):
        if rmap[region[a]] not in multi:
            continue
        ks = keys[a] = [KP.norm_key(g) for g in G]
        frows[a] = np.array([[float(c) for c in g] for g in G])
        for i in range(2 * d, len(G)):
            index.setdefault(ks[i], []).append((a, i))
    merges, late = [], False
    for a in sorted(keys):
        if time.monotonic() - t0 > time_budget:
            late = True
            break
        Ga, ka = leaves[a][0], keys[a]
        for i in range(2 * d, len(Ga)):
            for b, j in index.get(tuple(-c for c in ka[i]), ()):
                if b <= a or rmap[region[a]] != rmap[region[b]] or find(region[a]) == find(region[b]):
                    continue
                Gb, kb = leaves[b][0], keys[b]
                # the other constraints of both leaves (multiples of h left out; b's repeats of a's dropped)
                sa = [k for k in range(len(Ga)) if ka[k] != ka[i]]
                have = set(Ga[k] for k in sa)
                sb = [k for k in range(len(Gb)) if kb[k] != kb[j] and Gb[k] not in have]
                others = [Ga[k] for k in sa] + [Gb[k] for k in sb]
                x = _merge_point(Ga[i], np.vstack([frows[a][sa], frows[b][sb]]), others, d)
                if x is None:
                    continue
                merges.append([a, i, b, j, [_s(v) for v in x]])
                parent[find(region[a])] = find(region[b])
    n_maps, n_comps = len(groups), len({find(r) for r in range(len(rpat))})
    n_pairs = 0                    # same-map pairs in different components, counted before any is listed
    for rs in groups.values():
        sizes: dict = {}
        for r in rs:
            sizes[find(r)] = sizes.get(find(r), 0) + 1
        n_pairs += (len(rs) ** 2 - sum(k * k for k in sizes.values())) // 2
    pairs = []
    if n_pairs <= max_pairs:
        for rs in groups.values():
            for u in range(len(rs)):
                for v in range(u + 1, len(rs)):
                    if find(rs[u]) != find(rs[v]):
                        pairs.append((rs[u], rs[v]))
    first = {}
    for a, r in enumerate(region):
        first.setdefault(r, a)
    seps, reason = [], None
    if late:
        reason = f"time_budget = {time_budget} s spent in the merges"
    elif n_pairs > max_pairs:
        reason = f"{n_pairs} same-map pairs of regions need a separation, more than max_pairs = {max_pairs}"
    else:
        bf = KR.box_forms(bxq)
        for ra, rb in pairs:
            if time.monotonic() - t0 > time_budget:
                reason = f"time_budget = {time_budget} s spent in the separations"
                break
            y = _separate(bf + forms[ra][0] + bf + forms[rb][0], d)
            if y is None:
                reason = (f"no exact separation of two regions with the same map in different components "
                          f"(leaves {first[ra]} and {first[rb]})")
                break
            seps.append([first[ra], first[rb], y])
    exact = n_comps if n_maps == n_comps or (reason is None and len(seps) == n_pairs) else None
    if exact is not None:
        reason = None
    info.update(regions=len(rpat), maps=n_maps, components=n_comps, exact=exact, merges=merges,
                separations=seps, pairs=n_pairs, reason=reason)
    return info


def prove_pieces_count(network: dict, bx, expected=None, *, claim: str = "T10", max_cells: int = DEFAULT_MAX_CELLS,
                       time_budget: float = DEFAULT_TIME_BUDGET, max_pairs: int = KR.MAX_SEPARATIONS):
    """A Result (kernel kinds ``regions-polytope-pieces`` / ``regions-polytope-pieces-miscount``): PROVED iff the
    SPEC ``network`` has exactly ``expected`` linear pieces on the box (``None``: the count found), REFUTED
    otherwise (also when ``expected`` lies outside the bounds #maps..#components while a separation is
    missing); INCONCLUSIVE when a budget runs out or no exact certificate decides.  ``bx``: exact
    ``[(lo, hi)]``, lo < hi, 1..6 sides."""
    from ..canonical import jsonable
    from ..results import Method, Result, Verdict

    if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool) or expected < 0):
        from ..errors import InputError

        raise InputError("expected", f"must be a non-negative integer, got {expected!r}")
    if not isinstance(max_pairs, int) or isinstance(max_pairs, bool) or not 0 <= max_pairs <= KR.MAX_SEPARATIONS:
        from ..errors import InputError

        raise InputError("max_pairs", f"must be an integer in [0, {KR.MAX_SEPARATIONS}], got {max_pairs!r}")
    params = {"network": jsonable(network), "box": jsonable([[lo, hi] for lo, hi in bx]), "kind": "pieces"}
    conv = dict(CONVENTIONS)

    def inconclusive(summary, **ev):
        return Result(claim, "exact linear piece count on the box (polyhedral cells)", Verdict.INCONCLUSIVE,
                      Method.EXACT, certificate={"summary": summary}, parameters={**params, "count": expected},
                      conventions=conv, evidence=ev)

    try:
        info = pieces_search(network, bx, max_cells=max_cells, time_budget=time_budget, max_pairs=max_pairs)
    except Stuck as exc:
        return inconclusive(f"polyhedral cells: {exc}")
    if not info["complete"]:
        return inconclusive(f"budget: {info['stopped']}; about {info['volume_estimate']:.1%} of the volume in "
                            f"finished cells (estimate, evidence only)", cells=info["leaves"],
                            volume_fraction_estimate=info["volume_estimate"])
    lo, hi, n = info["maps"], info["components"], info["exact"]
    bounds = {"activation_regions": info["regions"], "maps": lo, "components": hi, "cells": info["leaves"],
              "merges": len(info["merges"]), "separations": len(info["separations"])}
    if n is None and (expected is None or lo <= expected <= hi):
        return inconclusive(f"pieces between {lo} and {hi}: {info['reason']}", **bounds)
    ok = n is not None and (expected is None or expected == n)
    params["count"] = n if expected is None else expected
    params = jsonable(params)
    cert = {"kind": "regions-polytope-pieces" if ok else "regions-polytope-pieces-miscount",
            "roots": strip(info["trees"]), "merges": info["merges"], "separations": info["separations"]}
    found = str(n) if n is not None else f"{lo}..{hi}"
    return Result(claim, KR.statement("polytope", params, conv), Verdict.PROVED if ok else Verdict.REFUTED,
                  Method.EXACT, certificate=cert, parameters=params, conventions=conv,
                  evidence={"summary": f"{found} pieces ({info['regions']} activation regions, {info['leaves']} open "
                                       f"cells), claimed {params['count']}", "pieces": n, **bounds})
