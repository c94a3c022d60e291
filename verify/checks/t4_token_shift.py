"""T4: in the scalar-shift network (spec maxout R3s, O5) the token slabs are pairwise disjoint at every
layer over the whole domain, and the network is then exact.

Independent of the construction's own bookkeeping, for every layer l the check

1. computes the **exact** range [a_l, b_l] of the state entering layer l over K (1-D: the network prefix is
   continuous piecewise affine, so its extremes are attained at exact breakpoints), or, with
   ``ranges="interval"``, a certified interval-propagation enclosure (a sufficient condition only);
2. checks the slabs [a_l + j Delta_l, b_l + j Delta_l], j = 1..n, pairwise disjoint (margin
   gamma_l = (Delta_l - w_l)/2 > 0) and M_l gamma_l >= sup_K |P_j - P_{j-1}|;
3. proves the compiled Transformer equal to -T^{oL} on the whole box (exact region decomposition, both tie
   rules) and counts its pieces (2^L).

When two slabs meet, an exact collision witness is given: inputs x, x' and tokens j != j' whose shifted
states h + Delta_l pi coincide, re-computed from the compiled Transformer's own intermediate token states,
together with the exact output error at x = 0.

>>> check_token_shift(L=2, Delta=2, M=4).verdict.value
'proved'
>>> r = check_token_shift(L=2, Delta=1, M=4)
>>> r.verdict.value, r.certificate["output_at_0"]
('refuted', {'x': Fraction(0, 1), 'transformer': Fraction(-1, 1), 'network': Fraction(0, 1)})
"""

from __future__ import annotations

from fractions import Fraction

from ..analysis.geometry import to_fraction
from ..analysis.regions import count_regions, maxout_values_1d
from ..engines.exact import fraction_str, parse_positive
from ..errors import InputError
from ..objects.maxout import MaxoutNetwork
from ..results import Method, Result, Verdict

__all__ = ["check_token_shift", "entering_ranges", "MAX_L"]

MAX_L = 8
STATEMENT = ("in the scalar-shift compiled tent network the token slabs are pairwise disjoint at every layer over "
             "the whole domain (margin gamma_l > 0, M_l gamma_l >= sup|P_j - P_(j-1)|), and the network is exact")


def _prefix(net: MaxoutNetwork, l: int) -> MaxoutNetwork:
    return MaxoutNetwork([net.layers[m] for m in range(l)])


def entering_ranges(net: MaxoutNetwork, lo, hi, mode: str = "exact") -> list:
    """Per layer l (1-based) the range of the state entering it over [lo, hi]: exact (min/max over the
    exact breakpoint values of the prefix network) or an interval-propagation enclosure.  Also returns,
    for ``exact``, the breakpoints and values so witnesses can be located."""
    lo, hi = Fraction(lo), Fraction(hi)
    out = [{"range": (lo, hi), "points": [(lo, lo), (hi, hi)]}]
    for l in range(1, net.depth):
        pre = _prefix(net, l)
        if mode == "exact":
            xs, V = maxout_values_1d(pre, lo, hi)
            pts = [(to_fraction(x), to_fraction(v[0])) for x, v in zip(xs, V)]
            vals = [p[1] for p in pts]
            out.append({"range": (min(vals), max(vals)), "points": pts})
        else:
            enc = pre.interval_bounds(((lo, hi),))["units"][-1][0]
            out.append({"range": (enc[0], enc[1]), "points": None})
    return out


def _locate(points, value):
    """An exact x in the breakpoint list where the piecewise-affine state equals ``value`` (it lies in range)."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if y0 == value:
            return x0
        if (y0 - value) * (y1 - value) < 0:
            return x0 + (value - y0) / (y1 - y0) * (x1 - x0)
    if points[-1][1] == value:
        return points[-1][0]
    return None


def check_token_shift(L: int = 3, Delta=2, M=4, ranges: str = "exact", prove_equal: bool = True) -> Result:
    """T4 on O5: the tent -T^{oL} on [0, 1] compiled with scalar shifts Delta and gate slopes M."""
    from ..constructions.token_shift import scalar_shift_tent
    from .emulation import prove_emulation

    if not isinstance(L, int) or isinstance(L, bool) or not 1 <= L <= MAX_L:
        raise InputError("L", f"must be an integer in [1, {MAX_L}], got {L!r}")
    if ranges not in ("exact", "interval"):
        raise InputError("ranges", f"must be exact or interval, got {ranges!r}")
    Delta = parse_positive(Delta, "Delta")
    M = parse_positive(M, "M")
    comp = scalar_shift_tent(L, Delta, M)
    net = comp.source
    n = net.rank
    rng = entering_ranges(net, 0, 1, ranges)
    layers, failures = [], []
    for l in range(L):
        a, b = rng[l]["range"]
        w = b - a
        gamma = (Delta - w) / 2
        slabs = [(a + j * Delta, b + j * Delta) for j in range(1, n + 1)]
        disjoint = all(slabs[j][1] < slabs[j2][0] for j in range(n) for j2 in range(j + 1, n))
        pieces = [(net.layers[l][0][0][j][0], net.layers[l][1][0][j]) for j in range(n)]
        sups = []
        for j in range(1, n):
            va, vb = pieces[j][0] - pieces[j - 1][0], pieces[j][1] - pieces[j - 1][1]
            sups.append(max(abs(va * a + vb), abs(va * b + vb)))
        gates = gamma > 0 and all(M * gamma >= s for s in sups)
        rec = comp.layer_data[l]
        row = {"layer": l + 1, "range": [a, b], "width": w, "Delta": Delta, "gamma": gamma, "slabs": slabs,
               "disjoint": disjoint, "M_gamma": M * gamma, "sup_abs_differences": sups, "gates_exact": gates,
               "construction_range": list(rec["range"]),
               "construction_range_encloses": rec["range"][0] <= a and b <= rec["range"][1]}
        if not disjoint and ranges == "exact":
            row["collision"] = _collision(comp, rng[l]["points"], l, a, b, Delta, n)
        layers.append(row)
        if not (disjoint and gates):
            failures.append(l + 1)
    cert = {"summary": "", "layers": layers}
    x0 = Fraction(0)
    tv, nv = comp([x0])[0], net.evaluate([x0])[0]
    cert["output_at_0"] = {"x": x0, "transformer": tv, "network": nv}
    params = {"L": L, "Delta": Delta, "M": M, "ranges": ranges}
    conv = {"construction": "R3s / O5 scalar shift s = h + Delta pi, thresholds t = a + j Delta - gamma",
            "ranges": ranges, "tie_rules": ["average", "first"]}
    if failures:
        if ranges == "interval":
            cert["summary"] = (f"interval enclosures do not certify disjoint slabs at layer(s) {failures}: "
                               "the sufficient condition fails (no counterexample implied)")
            return Result("T4", STATEMENT, Verdict.INCONCLUSIVE, Method.CERTIFIED, certificate=cert,
                          parameters=params, conventions=conv)
        col = next((r["collision"] for r in layers if "collision" in r and r["collision"]), None)
        txt = ""
        if col:
            txt = (f"; at layer {col['layer']} token {col['tokens'][0]} at x = {fraction_str(col['x'][0])} and token "
                   f"{col['tokens'][1]} at x = {fraction_str(col['x'][1])} share the shifted state "
                   f"{fraction_str(col['shifted_state'])}")
        cert["summary"] = (f"slabs not disjoint (or gates inexact) at layer(s) {failures}{txt}; output at x = 0: "
                           f"{fraction_str(tv)} instead of {fraction_str(nv)}")
        return Result("T4", STATEMENT, Verdict.REFUTED, Method.EXACT, certificate=cert, parameters=params,
                      conventions=conv)
    if prove_equal:
        eq = prove_emulation((net, comp), [[0, 1]], tie="both", claim="T4", record_regions=False)
        pieces = count_regions(comp, [(0, 1)], include_regions=False).count
        cert["whole_box_equality"] = {"verdict": eq.verdict.value, "summary": eq.certificate.get("summary")}
        cert["pieces"] = pieces
        if not eq.proved or pieces != 2 ** L:
            cert["summary"] = (f"slabs disjoint at every layer, but the whole-box equality is {eq.verdict.value} "
                               f"and the count is {pieces}")
            return Result("T4", STATEMENT, eq.verdict if not eq.proved else Verdict.REFUTED, Method.EXACT,
                          certificate=cert, parameters=params, conventions=conv)
    cert["summary"] = (f"every layer 1..{L}: slabs disjoint with margin gamma > 0 and M gamma >= sup|P_j - P_(j-1)| "
                       f"({ranges} ranges)" + (f"; output = -T^(o{L}) on all of [0, 1] under both tie rules, "
                                              f"{cert['pieces']} pieces" if prove_equal else ""))
    return Result("T4", STATEMENT, Verdict.PROVED, Method.EXACT if ranges == "exact" else Method.CERTIFIED,
                  certificate=cert, parameters=params, conventions=conv)


def _collision(comp, points, l, a, b, Delta, n):
    """Tokens j < j' and inputs x, x' whose shifted states h + Delta pi coincide at layer l (0-based),
    read from the compiled Transformer's token states entering that layer's FFN."""
    for j in range(1, n + 1):
        for j2 in range(j + 1, n + 1):
            lo, hi = max(a + j * Delta, a + j2 * Delta), min(b + j * Delta, b + j2 * Delta)
            if lo > hi:
                continue
            t = lo
            x = _locate(points, t - j * Delta)
            x2 = _locate(points, t - j2 * Delta)
            if x is None or x2 is None:
                continue
            states = []
            for xx, tok in ((x, j), (x2, j2)):
                X = comp.transformer.evaluate(comp.embed([xx]), trace=True)[2 * l]
                h, pi = X[0][tok - 1], X[2][tok - 1]
                states.append(h + Delta * pi)
            if states[0] == states[1]:
                return {"layer": l + 1, "tokens": [j, j2], "x": [x, x2], "shifted_state": states[0],
                        "from_transformer_states": True}
    return None
