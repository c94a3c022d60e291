"""T3: the one-hot FFN gate (spec maxout R3).

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

from ..engines.exact import fraction_str, parse_exact
from ..errors import InputError
from ..results import Method, Result, Verdict

__all__ = ["gate", "check_gate_identity"]

STATEMENT = "gate_S(u,p) = ReLU(u - S(1-p)) - ReLU(-u - S(1-p)) equals p*u for p in {0,1} and |u| <= S"


def gate(u, p, S) -> Fraction:
    """The gate, exactly."""
    u, p, S = Fraction(u), Fraction(p), Fraction(S)
    relu = lambda t: t if t > 0 else Fraction(0)
    return relu(u - S * (1 - p)) - relu(-u - S * (1 - p))


def _symbolic_case_split(S: Fraction) -> dict:
    """Prove the identity on the whole interval |u| <= S for p = 0 and p = 1.

    For each sign pattern of the two ReLU arguments A = u - S(1-p), B = -u - S(1-p) the feasible
    set inside [-S, S] is an interval (computed exactly); there the gate minus p*u is an affine
    polynomial in u (SymPy), which must be identically 0 (or vanish at the single feasible point).
    """
    u = sympy.Symbol("u", real=True)
    Ss = sympy.Rational(S.numerator, S.denominator)
    cases = {}
    for p in (0, 1):
        A = u - Ss * (1 - p)
        B = -u - Ss * (1 - p)
        pieces, ok = [], True
        for a_on in (True, False):
            for b_on in (True, False):
                # A > 0 <=> u > S(1-p);  B > 0 <=> u < -S(1-p)
                lo, hi, lo_open, hi_open = -Ss, Ss, False, False
                t = Ss * (1 - p)
                if a_on:
                    lo, lo_open = (t, True) if t >= lo else (lo, lo_open)
                else:
                    hi, hi_open = (t, False) if t <= hi else (hi, hi_open)
                if b_on:
                    hi, hi_open = (-t, True) if -t <= hi else (hi, hi_open)
                else:
                    lo, lo_open = (-t, False) if -t >= lo else (lo, lo_open)
                if lo > hi or (lo == hi and (lo_open or hi_open)):
                    continue
                diff = sympy.expand((A if a_on else 0) - (B if b_on else 0) - p * u)
                zero = diff == 0 if lo < hi else diff.subs(u, lo) == 0
                pieces.append({"region": f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}",
                               "relu_active": [a_on, b_on], "difference": str(diff), "zero": bool(zero)})
                ok = ok and bool(zero)
        cases[f"p={p}"] = {"pieces": pieces, "identity": ok}
    return cases


def check_gate_identity(S=10, points=None, grid_denominator: int = 4) -> Result:
    """PROVED if the identity holds on [-S, S] for p in {0,1} (symbolic case split, plus exact grid);
    REFUTED with the first exact counterexample among ``points`` (pairs (u, p)), which may lie outside
    the hypothesis (|u| > S or p not in {0, 1}) to show the hypothesis is needed."""
    S = parse_exact(S, "S")
    if S <= 0:
        raise InputError("S", f"must be > 0, got {fraction_str(S)}")
    if not isinstance(grid_denominator, int) or not 1 <= grid_denominator <= 64:
        raise InputError("grid_denominator", f"must be an integer in [1, 64], got {grid_denominator!r}")
    params = {"S": S}
    if points is not None:
        pts = [(parse_exact(u, f"points[{i}].u"), parse_exact(p, f"points[{i}].p")) for i, (u, p) in enumerate(points)]
        params["points"] = [[u, p] for u, p in pts]
        for u, p in pts:
            value = gate(u, p, S)
            if value != p * u:
                return Result("T3", STATEMENT, Verdict.REFUTED, Method.EXACT,
                              certificate={"summary": f"gate({fraction_str(u)}, {fraction_str(p)}) = "
                                                      f"{fraction_str(value)} != p*u = {fraction_str(p * u)}",
                                           "witness": {"u": u, "p": p, "S": S, "gate": value, "p_times_u": p * u}},
                              parameters=params)
        return Result("T3", STATEMENT, Verdict.PROVED, Method.EXACT,
                      certificate={"summary": f"identity holds at all {len(pts)} given points",
                                   "points_checked": len(pts)}, parameters=params)
    cases = _symbolic_case_split(S)
    n = int(S * grid_denominator)
    grid_fail = None
    for k in range(-n, n + 1):
        u = Fraction(k, grid_denominator)
        for p in (0, 1):
            if gate(u, p, S) != p * u:
                grid_fail = (u, p)
                break
        if grid_fail:
            break
    ok = all(c["identity"] for c in cases.values()) and grid_fail is None
    return Result("T3", STATEMENT, Verdict.PROVED if ok else Verdict.REFUTED, Method.EXACT,
                  certificate={"summary": "symbolic case split on [-S, S] for p = 0 and p = 1" +
                               (", exact grid agrees" if grid_fail is None else f", grid fails at {grid_fail}"),
                               "cases": cases, "grid": f"k/{grid_denominator}, |k| <= {n}"},
                  parameters=params)
