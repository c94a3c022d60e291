"""T4: in the scalar-shift network (docs/paper1.md R3s, O5) the token slabs are pairwise disjoint at every
layer over the whole domain, and the network is then exact.

Independent of the construction's own bookkeeping, for every layer l the check

1. computes the **exact** range [a_l, b_l] of the state entering layer l over K (1-D: the network prefix is
   continuous piecewise affine, so its extremes are attained at exact breakpoints), or, with
   ``ranges="interval"``, a certified interval-propagation enclosure (a sufficient condition only);
2. checks the slabs [a_l + j Delta_l, b_l + j Delta_l], j = 1..n, pairwise disjoint (margin
   gamma_l = (Delta_l - w_l)/2 > 0) and M_l gamma_l >= sup_K |P_j - P_{j-1}|;
3. proves the compiled Transformer equal to -T^{oL} on the whole box (exact region decomposition, both tie
   rules) and counts its pieces (2^L).

When two slabs meet, an exact collision witness is given (kernel kind ``token-shift-witness``): inputs x, x'
and tokens j != j' whose shifted states h_l + j Delta coincide (h_l the exact state of the tent prefix), or a
gate failure; the exact output error at x = 0 is evidence.  A PROVED Result (kind ``token-shift``) names the
compiled Transformer by its weights (``parameters.transformer``), which the kernel evaluates on every cell.

>>> check_token_shift(L=2, Delta=2, M=4).verdict.value
'proved'
>>> r = check_token_shift(L=2, Delta=1, M=4)
>>> r.verdict.value, r.certificate["collision"], r.evidence["output_at_0"]
('refuted', {'tokens': [1, 2], 'x': ['1', '0']}, {'x': Fraction(0, 1), 'transformer': Fraction(-1, 1), 'network': Fraction(0, 1)})
"""

from __future__ import annotations

from fractions import Fraction

from ..decide.geometry import to_fraction
from ..decide.regions import breakpoint_certificate, count_regions, maxout_values_1d
from ..arith.exact import fraction_str, parse_positive
from ..errors import InputError
from ..canonical import jsonable
from ..kernel import regions as KR
from ..objects.maxout import MaxoutNetwork
from ..results import Method, Result, Verdict
from ..decide.emulation import prove_emulation

__all__ = ["check_token_shift", "entering_ranges", "transformer_json", "MAX_L"]

MAX_L = 8


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


def transformer_json(comp) -> dict:
    """The compiled scalar-shift Transformer in the kernel's format (:mod:`verify.kernel._cells`): tokens
    j = 1..n embedded as (h, z, pi, one) = (x, 0, j, 1), read-out h of token 1."""
    T, n, L = comp.transformer, comp.n_tokens, comp.layout
    one = list(L.stack({"h": [[0] * n], "z": [[0] * n], "pi": [list(range(1, n + 1))], "one": [[1] * n]}))
    xrow = list(L.stack({"h": [[1] * n], "z": [[0] * n], "pi": [[0] * n], "one": [[0] * n]}))
    subs = []
    for sub in T.sublayers:
        if sub.kind == "ffn":
            subs.append({"ffn": {"W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}})
        else:
            subs.append({"attention": [{"W_Q": h.W_Q, "W_K": h.W_K, "W_V": h.W_V, "W_O": h.W_O} for h in sub.heads]})
    W, b = comp.source.readout if comp.source.readout else ([[1]], [0])
    read = [L.row({"h": row[0]}) for row in W]
    return jsonable({"tokens": n, "coordinates": list(comp.coordinate_names), "embed": {"one": one, "x": [xrow]},
                     "sublayers": subs, "read": {"token": 0, "W": read, "b": list(b)}})


def _witness(net, rng, layer_rows, L, Delta, M, n):
    """An exact refutation: a collision of two tokens' shifted states, or a gate failure, at the first
    failing layer (exact ranges only)."""
    for l in range(L):
        pts = rng[l]["points"]
        a, b = rng[l]["range"]
        for j in range(1, n + 1):
            for j2 in range(j + 1, n + 1):
                lo, hi = max(a + j * Delta, a + j2 * Delta), min(b + j * Delta, b + j2 * Delta)
                if lo <= hi:
                    x, x2 = _locate(pts, lo - j * Delta), _locate(pts, lo - j2 * Delta)
                    if x is not None and x2 is not None:
                        return {"layer": l + 1, "collision": {"tokens": [j, j2], "x": [x, x2]}}
        row = layer_rows[l]
        if not row["gates_exact"]:
            u, v = _locate(pts, b), _locate(pts, a)
            s, t = row["pieces_diff"]
            worst = a if abs(s * a + t) >= abs(s * b + t) else b
            return {"layer": l + 1, "gate": {"u": u, "v": v, "x": _locate(pts, worst)}}
    return None


def check_token_shift(L: int = 3, Delta=2, M=4, ranges: str = "exact", prove_equal: bool = True) -> Result:
    """T4 on O5: the tent -T^{oL} on [0, 1] compiled with scalar shifts Delta and gate slopes M.

    PROVED (kernel kind ``token-shift``): the slabs are disjoint and the gates exact at every layer, and the
    compiled Transformer (its weights in ``parameters.transformer``) equals -T^{oL} on every cell of the exact
    breakpoint partition of [0, 1] under both tie rules.  REFUTED (``token-shift-witness``): an exact collision
    of two tokens' shifted states, or a gate failure.  INCONCLUSIVE: interval enclosures too wide (a sufficient
    condition only), or ``prove_equal=False``."""
    from ..constructions.token_shift import scalar_shift_tent

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
        layers.append({"layer": l + 1, "range": [a, b], "width": w, "Delta": Delta, "gamma": gamma, "slabs": slabs,
                       "disjoint": disjoint, "M_gamma": M * gamma, "sup_abs_differences": sups, "gates_exact": gates,
                       "pieces_diff": (pieces[1][0] - pieces[0][0], pieces[1][1] - pieces[0][1]),
                       "construction_range": list(comp.layer_data[l]["range"])})
        if not (disjoint and gates):
            failures.append(l + 1)
    x0 = Fraction(0)
    tv, nv = comp([x0])[0], net.evaluate([x0])[0]
    evidence = {"layers": layers, "output_at_0": {"x": x0, "transformer": tv, "network": nv}}
    params = {"L": L, "Delta": Delta, "M": M, "ranges": ranges}
    conv = {"construction": "R3s / O5 scalar shift s = h + Delta pi, thresholds t = a + j Delta - gamma",
            "ranges": ranges, "tie_rules": ["average", "first"]}

    def result(verdict, method, cert, params, summary):
        params, cv = jsonable(params), jsonable(conv)
        return Result("T4", KR.statement("token-shift", params, cv), verdict, method, certificate=cert,
                      parameters=params, conventions=cv, evidence={"summary": summary, **evidence})

    if failures:
        if ranges == "interval":
            return result(Verdict.INCONCLUSIVE, Method.CERTIFIED, {}, params,
                          f"interval enclosures do not certify disjoint slabs at layer(s) {failures}: the sufficient "
                          "condition fails (no counterexample implied)")
        wit = _witness(net, rng, layers, L, Delta, M, n)
        if wit is None:
            return result(Verdict.INCONCLUSIVE, Method.EXACT, {}, params, f"layer(s) {failures} fail but no exact "
                                                                          "witness was found")
        what = (f"tokens {wit['collision']['tokens']} at x = {[fraction_str(v) for v in wit['collision']['x']]} share "
                "a shifted state" if "collision" in wit else "M gamma < sup|P_2 - P_1|")
        return result(Verdict.REFUTED, Method.EXACT, {"kind": "token-shift-witness", **jsonable(wit)}, params,
                      f"layer {wit['layer']}: {what}; output at x = 0: {fraction_str(tv)} instead of {fraction_str(nv)}")
    if not prove_equal:
        return result(Verdict.INCONCLUSIVE, Method.EXACT if ranges == "exact" else Method.CERTIFIED, {}, params,
                      "slabs disjoint and gates exact; the whole-box equality was not checked (prove_equal=False)")
    eq = prove_emulation((net, comp), [[0, 1]], tie="both", claim="T4", record_regions=False)
    pieces = count_regions(comp, [(0, 1)], include_regions=False).count
    evidence.update({"whole_box_equality": {"verdict": eq.verdict.value, "summary": eq.certificate.get("summary")},
                     "pieces": pieces})
    params["transformer"] = transformer_json(comp)
    xs, _ = maxout_values_1d(net, 0, 1)
    cert = {"kind": "token-shift", "breakpoints": breakpoint_certificate(xs)}
    return result(Verdict.PROVED, Method.EXACT if ranges == "exact" else Method.CERTIFIED, cert, params,
                  f"every layer 1..{L}: slabs disjoint with margin gamma > 0 and M gamma >= sup|P_j - P_(j-1)| "
                  f"({ranges} ranges); output = -T^(o{L}) on all of [0, 1] under both tie rules, {pieces} pieces")
