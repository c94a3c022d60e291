"""T3: the one-hot FFN gate (docs/paper1.md R3).

    gate_S(u, p) = ReLU(u - S(1-p)) - ReLU(-u - S(1-p)) = p u     for p in {0, 1}, |u| <= S.

Proof (exact, symbolic case split): for p = 1 the gate is ReLU(u) - ReLU(-u) = u; for p = 0 both
arguments u - S and -u - S are <= 0 when |u| <= S, so the gate is 0.  The check also evaluates the
gate exactly on a rational grid and, for the counterexample side, at user-given points.

>>> check_gate_identity(S=10).verdict.value
'proved'
>>> check_gate_identity(S=10, points=[(11, 0)]).verdict.value
'refuted'
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact
from ..errors import InputError
from ..kernel import casesplit as K
from ..results import Method, Result, Verdict, kernel_checked as _self_checked

__all__ = ["gate", "check_gate_identity"]


def gate(u, p, S) -> Fraction:
    """The gate, exactly."""
    u, p, S = Fraction(u), Fraction(p), Fraction(S)
    relu = lambda t: t if t > 0 else Fraction(0)
    return relu(u - S * (1 - p)) - relu(-u - S * (1 - p))


def _half_line(expr, u, positive: bool):
    """{u : expr > 0} (positive) or {u : expr <= 0} as (lo, hi, lo_open, hi_open) for an affine expr in u
    (±oo for unbounded ends); computed from the coefficients of expr itself."""
    poly = sympy.Poly(expr, u)
    alpha, beta = poly.coeff_monomial(u), poly.coeff_monomial(1)
    oo = sympy.oo
    if alpha == 0:
        holds = (beta > 0) if positive else (beta <= 0)
        return (-oo, oo, True, True) if holds else None
    root = -beta / alpha
    if (alpha > 0) == positive:      # expr > 0 <=> u > root (alpha > 0);  expr <= 0 <=> u >= root (alpha < 0)
        return (root, oo, positive, True)
    return (-oo, root, True, positive)


def _intersect(a, b):
    lo, lo_open = (a[0], a[2]) if (a[0] > b[0] or (a[0] == b[0] and a[2])) else (b[0], b[2])
    hi, hi_open = (a[1], a[3]) if (a[1] < b[1] or (a[1] == b[1] and a[3])) else (b[1], b[3])
    if lo > hi or (lo == hi and (lo_open or hi_open)):
        return None
    return (lo, hi, lo_open, hi_open)


def _partitions(regions: list, S) -> bool:
    """True iff the intervals partition [-S, S] exactly: sorted, each starting where the previous
    one ended with complementary openness, from -S (closed) to S (closed)."""
    regions = sorted(regions, key=lambda r: (r[0], r[2], r[1]))
    at, at_open = -S, False            # the next interval must start at `at`, closed iff at_open is False
    for lo, hi, lo_open, hi_open in regions:
        if lo != at or lo_open != at_open:
            return False
        at, at_open = hi, not hi_open
    return at == S and at_open is True


def _frac(r) -> Fraction:
    return Fraction(int(r.p), int(r.q))


def _symbolic_case_split(S: Fraction) -> dict:
    """Prove the identity on the whole interval |u| <= S for p = 0 and p = 1.

    For each sign pattern of the two ReLU arguments A = u - S(1-p), B = -u - S(1-p) the feasible
    set inside [-S, S] is an interval, computed exactly from A and B themselves; there the gate minus
    p*u is an affine polynomial in u (SymPy), which must be identically 0 (or vanish at the single
    feasible point).  The feasible intervals must also partition [-S, S] exactly (checked end to end,
    isolated points included), so no part of the domain escapes the case split.
    """
    u = sympy.Symbol("u", real=True)
    Ss = sympy.Rational(S.numerator, S.denominator)
    domain = (-Ss, Ss, False, False)
    cases = {}
    for p in (0, 1):
        A = u - Ss * (1 - p)
        B = -u - Ss * (1 - p)
        pieces, ok, regions = [], True, []
        for a_on in (True, False):
            for b_on in (True, False):
                ra, rb = _half_line(A, u, a_on), _half_line(B, u, b_on)
                if ra is None or rb is None:
                    continue
                both = _intersect(ra, rb)
                region = _intersect(both, domain) if both else None
                if region is None:
                    continue
                regions.append(region)
                lo, hi, lo_open, hi_open = region
                diff = sympy.expand((A if a_on else 0) - (B if b_on else 0) - p * u)
                zero = diff == 0 if lo < hi else diff.subs(u, lo) == 0
                pieces.append({"region": f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}",
                               "piece": [p, _frac(lo), _frac(hi), not lo_open, not hi_open],
                               "relu_active": [a_on, b_on], "difference": str(diff), "zero": bool(zero)})
                ok = ok and bool(zero)
        covered = _partitions(regions, Ss)
        cases[f"p={p}"] = {"pieces": pieces, "covers_domain": bool(covered), "identity": ok and bool(covered)}
    return cases


def _result(kind, verdict, params, summary, **cert) -> Result:
    """A certificate with data carries its summary; one without (the kernel recomputes from the parameters)
    carries only its kind, the summary goes to the evidence."""
    return Result("T3", K.statement(kind, jsonable(params), {}), verdict, Method.EXACT, parameters=params,
                  certificate={"kind": kind, **({"summary": summary, **cert} if cert else {})},
                  evidence={} if cert else {"summary": summary})


def check_gate_identity(S=10, points=None, grid_denominator: int = 4, gate_fn=None) -> Result:
    """Without ``points``: PROVED if the identity holds for p in {0, 1} and every u in [-S, S], by the exact
    case split (kind ``gate-case-split``: the pieces tile [-S, S] for each p, the kernel re-derives the ReLU
    argument signs on each piece); the exact grid is evidence.  With ``points`` (pairs (u, p), which may lie
    outside the hypothesis): the statement is "gate = p*u at these points", PROVED (``gate-points``) or
    REFUTED (``gate-witness``) by exact evaluation.  Anything the kernel does not accept is INCONCLUSIVE.
    ``gate_fn(u, p, S)``: the gate evaluated exactly at points and on the grid (default: :func:`gate`); the
    statement is about :func:`gate`, so another evaluator can at most make the Result INCONCLUSIVE."""
    gate_fn = gate if gate_fn is None else gate_fn
    S = parse_exact(S, "S")
    if S <= 0:
        raise InputError("S", f"must be > 0, got {fraction_str(S)}")
    if not isinstance(grid_denominator, int) or not 1 <= grid_denominator <= 64:
        raise InputError("grid_denominator", f"must be an integer in [1, 64], got {grid_denominator!r}")
    params = {"S": S}
    if points is not None:
        if not isinstance(points, (list, tuple)) or not 1 <= len(points) <= 10_000:
            raise InputError("points", "expected 1..10000 pairs (u, p)")
        pts = [(parse_exact(u, f"points[{i}].u"), parse_exact(p, f"points[{i}].p")) for i, (u, p) in enumerate(points)]
        params["points"] = [[u, p] for u, p in pts]
        bad = [(u, p) for u, p in pts if gate_fn(u, p, S) != p * u]
        if bad:
            u, p = bad[0]
            r = _result("gate-witness", Verdict.REFUTED, params, f"gate({fraction_str(u)}, {fraction_str(p)}) = "
                        f"{fraction_str(gate_fn(u, p, S))} != p*u = {fraction_str(p * u)}")
        else:
            r = _result("gate-points", Verdict.PROVED, params, f"identity holds at all {len(pts)} given points")
        return _self_checked(r)
    cases = _symbolic_case_split(S)
    n = int(S * grid_denominator)
    grid_fail = next(((Fraction(k, grid_denominator), p) for k in range(-n, n + 1) for p in (0, 1)
                      if gate_fn(Fraction(k, grid_denominator), p, S) != p * Fraction(k, grid_denominator)), None)
    evidence = {"cases": cases, "grid": f"k/{grid_denominator}, |k| <= {n}", "grid_failure": grid_fail}
    if not all(c["identity"] for c in cases.values()) or grid_fail is not None:
        return Result("T3", K.statement("gate-case-split", jsonable(params), {}), Verdict.INCONCLUSIVE, Method.EXACT,
                      parameters=params, evidence=evidence,
                      certificate={"summary": "the case split or the grid disagrees with p*u" +
                                   (f" (grid fails at {grid_fail})" if grid_fail else "")})
    pieces = [pc["piece"] for c in cases.values() for pc in c["pieces"]]
    r = _result("gate-case-split", Verdict.PROVED, params, f"symbolic case split on [-S, S] for p = 0 and p = 1 "
                f"({len(pieces)} pieces), exact grid agrees", pieces=pieces)
    return _self_checked(Result(r.claim, r.statement, r.verdict, r.method, parameters=r.parameters,
                                certificate=r.certificate, evidence=evidence))


