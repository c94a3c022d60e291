"""T2: softmax versus hardmax, the sharp bound W0((n-1)/e)/lambda and the gap bound (spec maxout R2).

E_lambda(s) := max_l s_l - <softmax(lambda s), s>.

What is proved, and how (``check_softmax_bound``):

1. **Universal upper bound, exact (SymPy), for every n >= 2, lambda > 0, s** -- the R2 proof, each step a
   symbolic identity or sign fact: with a_l = exp(-lambda(max s - s_l)) over the m = n - 1 non-top
   indices and A = sum a_l in (0, m]: lambda E = sum a_l ln(1/a_l) / (1 + A) (identity); a ln(1/a) is
   concave (second derivative -1/a), so by Jensen lambda E <= g(A) := A ln(m/A)/(1 + A); g'(A)(1+A)^2 =
   h(A) := ln(m/A) - 1 - A (identity), h' = -1 - 1/A < 0; writing m = W e^(W+1) (a bijection of (0, inf),
   W = W0(m/e)), h(W) = 0 and g(W) = W (identities), and W <= m.  So max g = W0(m/e) and
   0 <= E <= W0((n-1)/e)/lambda.  Equality: a_l = W/m for all l, i.e. s = s*.
2. **Attainment, certified (arb)**: the ball for E_lambda(s*) at the irrational s* = (u*/lambda, 0, ..)
   contains W0/lambda and has radius <= 1e-30; at the rational witness s_q next to s* the ball for
   E(s_q) lies within 1e-30 of the bound (recorded with exact endpoints).
3. **A candidate bound C** (``bound``, ``factor``): REFUTED if the certified ball for E(s_q) lies strictly
   above C (exact point s_q); PROVED if C >= W0/lambda (exact when C is a rational multiple >= 1 of the
   sharp bound, certified by balls otherwise) -- validity then follows from step 1; else INCONCLUSIVE.
4. **Global search, evidence only**: random + adversarial points, a local optimiser, re-scored at 50
   digits; ``evidence["criterion_met"]`` says whether no point exceeded C by more than 1e-20.

Also: ``check_scalar_problem`` (exact, step 1 on its own, and refutation of a wrong maximiser),
``check_two_token_identity`` (n = 2: E = delta/(1 + e^(lambda delta)), exact) and ``check_gap_bound``.

>>> r = check_softmax_bound(2, 10, search_points=30, local_starts=1)
>>> r.verdict.value, r.method.value
('proved', 'certified')
>>> check_softmax_bound(2, 10, factor="0.999", search_points=0).verdict.value
'refuted'
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import sympy
from flint import arb

from ..analysis.softmax_error import (
    rational_inside, search_softmax_error, sharp_bound, sharp_constant, softmax_error_ball, softmax_weights_ball,
    star_point, star_point_rational, star_u, scalar_derivative_numerator_ball, scalar_objective_ball,
)
from ..engines.ball import LADDER, ball_bounds, decide_with_ladder, to_ball, workprec
from ..engines.evidence import mpf_from_fraction
from ..engines.exact import fraction_str, parse_exact, parse_positive
from ..errors import InputError, InputTypeError
from ..results import Method, Result, Verdict

__all__ = [
    "BOUNDS", "STATEMENT", "check_softmax_bound", "check_scalar_problem", "check_two_token_identity",
    "check_gap_bound", "universal_bound_proof", "MAX_TOKENS", "MAX_SEARCH_TOKENS", "MAX_SEARCH_POINTS",
]

STATEMENT = ("0 <= E_lambda(s) = max s - <softmax(lambda s), s> <= W0((n-1)/e)/lambda for all s in R^n, "
             "attained at s* = ((1 + W0((n-1)/e))/lambda, 0, ..., 0)")

MAX_TOKENS = 4096            # certified part: n entries in arb
MAX_SEARCH_TOKENS = 256      # evidence search: n-dimensional float search
MAX_SEARCH_POINTS = 200_000
MAX_LAMBDA = Fraction(10) ** 12
RADIUS_TARGET = Fraction(1, 10**30)
EXCESS_TOLERANCE = mpmath.mpf("1e-20")
RESCORE_MARGIN = 1e-9
# spec maxout R2 table: W0((n-1)/e) to 12 significant digits
SPEC_ORACLE = {2: "0.278464542761", 3: "0.463055513366", 4: "0.603545739536", 8: "0.973138752867",
               16: "1.38346150535"}

# bound name -> (description, ball of the bound times lambda, as a function of n)
BOUNDS = {
    "w0": "W0((n-1)/e)/lambda (sharp)",
    "w0_n_minus_2": "W0((n-2)/e)/lambda (too small: the constant of n-1 tokens)",
    "ln_n": "ln(n)/lambda (entropy bound)",
    "n_minus_1_over_e": "(n-1)/(e lambda) (t e^(-lambda t) <= 1/(e lambda))",
}


def _bound_times_lambda(name: str, n: int) -> arb:
    if name == "w0":
        return sharp_constant(n)
    if name == "w0_n_minus_2":
        return sharp_constant(n - 1)
    if name == "ln_n":
        return to_ball(n).log()
    if name == "n_minus_1_over_e":
        return to_ball(n - 1) / arb.const_e()
    raise InputError("bound", f"must be one of {', '.join(BOUNDS)}, got {name!r}")


# -- step 1: the universal proof (exact, SymPy) ------------------------------------------------------

@functools.lru_cache(maxsize=1)
def universal_bound_proof() -> dict:
    """The R2 proof of 0 <= E <= W0((n-1)/e)/lambda for every n >= 2, each step checked by SymPy.

    Returns {"steps": [...], "holds": bool}; every step records the expression that had to simplify
    to 0 or the sign fact SymPy established (``True`` means proved, anything else means not proved).
    """
    A, W, m, a, lam, t = sympy.symbols("A W m a lambda t", positive=True)
    steps = []

    def record(name, what, ok):
        steps.append({"step": name, "checked": what, "holds": bool(ok is True)})

    # (i) reduction lambda E = sum a_l ln(1/a_l)/(1 + A), for n = 2..4 with symbolic gaps d_l > 0
    ok_red = True
    for n in (2, 3, 4):
        d = sympy.symbols(f"d1:{n}", positive=True)
        s = [t] + [t - di for di in d]
        z = sum(sympy.exp(lam * si) for si in s)
        E = t - sum(sympy.exp(lam * si) * si for si in s) / z
        al = [sympy.exp(-lam * di) for di in d]
        Asum = sum(al)
        rhs = sum(ai * sympy.log(1 / ai) for ai in al) / (1 + Asum)
        diff = sympy.simplify(sympy.expand_log(lam * E - rhs, force=True))
        ok_red = ok_red and diff == 0
    record("reduction", "lambda*E - sum a_l ln(1/a_l)/(1+A) == 0 (n = 2, 3, 4, symbolic gaps; the identity "
           "is ln(1/a_l) = lambda d_l termwise, so it holds for every n)", ok_red)
    # (ii) nonnegativity: every term a_l ln(1/a_l) = a_l lambda d_l >= 0
    record("nonnegative", "a*lambda*d >= 0 for a, lambda, d > 0", (a * lam * t).is_nonnegative)
    # (iii) Jensen: phi(a) = a ln(1/a) concave
    phi2 = sympy.diff(a * sympy.log(1 / a), a, 2)
    record("jensen-concavity", f"d2/da2 [a ln(1/a)] = {phi2} < 0 for a > 0", phi2.is_negative)
    # (iv) g'(A) (1 + A)^2 = h(A)
    g = A * sympy.log(m / A) / (1 + A)
    h = sympy.log(m / A) - 1 - A
    dg = sympy.simplify(sympy.diff(g, A) * (1 + A) ** 2 - h)
    record("derivative", "g'(A)(1+A)^2 - (ln(m/A) - 1 - A) == 0", dg == 0)
    # (v) h strictly decreasing
    dh = sympy.diff(h, A)
    record("h-decreasing", f"h'(A) = {dh} < 0 for A > 0", dh.is_negative)
    # (vi) m = W e^(W+1): h(W) = 0, g(W) = W; and W <= m
    mW = W * sympy.exp(W + 1)
    hW = sympy.simplify(sympy.expand_log(h.subs({m: mW, A: W}), force=True))
    gW = sympy.simplify(sympy.expand_log(g.subs({m: mW, A: W}), force=True) - W)
    record("critical-point", "h(W) == 0 at m = W e^(W+1)", hW == 0)
    record("maximum-value", "g(W) - W == 0 at m = W e^(W+1)", gW == 0)
    bij = sympy.simplify(sympy.diff(mW, W) - (1 + W) * sympy.exp(W + 1))
    record("parametrisation", "d/dW [W e^(W+1)] = (1+W) e^(W+1) > 0: W -> m is a bijection of (0, inf), "
           "W e^W = m/e, so W = W0(m/e)", bij == 0)
    ratio_log = sympy.simplify(sympy.expand_log(sympy.log(mW / W), force=True))
    record("critical-point-inside", f"ln(m/W) = {ratio_log} > 0, so 0 < W < m", ratio_log.is_positive)
    # (vii) scale law E_lambda(s) = E_1(lambda s)/lambda (n = 3, symbolic)
    x = sympy.symbols("x1:4", real=True)
    def E_of(vec, scale):
        z = sum(sympy.exp(scale * v) for v in vec)
        return -sum(sympy.exp(scale * v) * v for v in vec) / z     # max s cancels in the difference
    scale_diff = sympy.simplify(E_of(x, lam) - E_of([lam * xi for xi in x], 1) / lam)
    record("scale-law", "E_lambda(s) - E_1(lambda s)/lambda == 0 (the max terms agree trivially)", scale_diff == 0)
    holds = all(s["holds"] for s in steps)
    return {"steps": steps, "holds": holds,
            "conclusion": "lambda*E <= g(A) <= g(W0(m/e)) = W0(m/e), m = n - 1, for every n >= 2, lambda > 0, s; "
                          "E >= 0; equality iff all a_l = W0(m/e)/m, i.e. at s* (up to permutation and shift)"}


# -- input parsing -------------------------------------------------------------------------------------

def _parse_n(n, field="n", limit=MAX_TOKENS):
    if isinstance(n, bool) or not isinstance(n, int):
        raise InputTypeError(field, f"must be an integer, got {type(n).__name__}")
    if not 2 <= n <= limit:
        raise InputError(field, f"must be an integer in [2, {limit}], got {n}")
    return n


def _parse_lam(lam, field="lam"):
    q = parse_positive(lam, field)
    if q > MAX_LAMBDA or q < 1 / MAX_LAMBDA:
        raise InputError(field, f"must lie in [1e-12, 1e12], got {fraction_str(q)}")
    return q


def _parse_search(points, local_starts, seed, n):
    for name, v, hi in (("search_points", points, MAX_SEARCH_POINTS), ("local_starts", local_starts, 64)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputTypeError(name, f"must be an integer, got {type(v).__name__}")
        if not 0 <= v <= hi:
            raise InputError(name, f"must be an integer in [0, {hi}], got {v}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("seed", f"must be a non-negative integer, got {seed!r}")
    if points and n > MAX_SEARCH_TOKENS:
        raise InputError("n", f"the evidence search is limited to n <= {MAX_SEARCH_TOKENS} (got {n}); "
                              "pass search_points=0 to skip it")


def _endpoints(b: arb) -> dict:
    lo, hi = ball_bounds(b)
    return {"lower": lo, "upper": hi, "approx": b.str(25, radius=True)}


# -- the main check ------------------------------------------------------------------------------------

def check_softmax_bound(n: int, lam, *, bound: str = "w0", factor="1", search_points: int = 3000,
                        local_starts: int = 4, seed: int = 0) -> Result:
    """Check "E_lambda(s) <= factor * bound(n)/lambda for all s in R^n" (see module docstring).

    PROVED (certified): the bound is >= W0((n-1)/e)/lambda, which the exact universal proof bounds E by;
    with ``bound="w0"``, ``factor=1`` the certificate also shows attainment at s*.
    REFUTED (certified): at the exact rational witness s_q next to s*, the ball for E lies above the bound.
    """
    n = _parse_n(n)
    lam = _parse_lam(lam)
    if bound not in BOUNDS:
        raise InputError("bound", f"must be one of {', '.join(BOUNDS)}, got {bound!r}")
    factor = parse_positive(factor, "factor")
    _parse_search(search_points, local_starts, seed, n)
    params = {"n": n, "lam": lam, "bound": bound, "factor": factor, "search_points": search_points,
              "local_starts": local_starts}
    proof = universal_bound_proof()

    def attempt(prec):
        W = sharp_constant(n)
        B = W / to_ball(lam)
        C = to_ball(factor) * _bound_times_lambda(bound, n) / to_ball(lam)
        # attainment at the irrational s* (ball input, top index 0 certain since u* > 0)
        e_star = softmax_error_ball(star_point(n, lam), lam, top=0)
        sq = star_point_rational(n, lam)
        e_q = softmax_error_ball(sq, lam)
        info = {"W": W, "B": B, "C": C, "e_star": e_star, "sq": sq, "e_q": e_q, "prec": prec}
        radius_ok = all(Fraction(*_rad(x)) <= RADIUS_TARGET for x in (e_star, B, e_q))
        info["bracket"] = bracket = _critical_bracket(n, W, prec)
        if not radius_ok:
            return None, info
        if e_q > C:
            info["decision"] = "witness-above"
            return Verdict.REFUTED, info
        sound = proof["holds"] and bracket["certified"]
        if bound == "w0" and factor >= 1:
            info["decision"] = "exact: factor >= 1 times the sharp bound"
            return (Verdict.PROVED if sound else None), info
        if C > B:
            info["decision"] = "certified: candidate > sharp bound"
            return (Verdict.PROVED if sound else None), info
        return None, info

    outcome = decide_with_ladder(attempt, ladder=(128, 256, 512, 1024))
    info = outcome.info
    W, B, C, e_star, sq, e_q = (info[k] for k in ("W", "B", "C", "e_star", "sq", "e_q"))
    with workprec(info["prec"]):
        attain_gap = e_star - B
        witness_gap = e_q - B
        attained = bool(attain_gap.contains(0)) and Fraction(*_rad(e_star)) <= RADIUS_TARGET
        near = Fraction(ball_bounds(witness_gap)[0]) >= -RADIUS_TARGET
        gap_c = e_q - C
    cert = {
        "precision_bits": outcome.precision,
        "ladder": list(outcome.attempts),
        "universal_proof": proof,
        "critical_point_bracket": info["bracket"],
        "sharp_constant_W0": _endpoints(W),
        "spec_oracle": _oracle(n, W),
        "sharp_bound": _endpoints(B),
        "candidate_bound": {"name": bound, "description": BOUNDS[bound], "factor": factor, "ball": _endpoints(C)},
        "attainment": {
            "E_at_s_star": _endpoints(e_star), "E_minus_bound": _endpoints(attain_gap),
            "contains_bound": attained, "radius_target": "1e-30",
            "s_star": "((1 + W0((n-1)/e))/lambda, 0, ..., 0)",
        },
        "witness": {"point": list(sq), "E": _endpoints(e_q), "E_minus_candidate": _endpoints(gap_c),
                    "within_1e-30_of_sharp_bound": near},
    }
    verdict = outcome.verdict
    if verdict is Verdict.REFUTED:
        cert["summary"] = (f"at the rational s_q = ({_short(sq[0])}, 0, ...) E_lambda lies in "
                           f"{e_q.str(12, radius=True)} > candidate {fraction_str(factor)}*{bound} = "
                           f"{C.str(12)} (n={n}, lambda={fraction_str(lam)})")
    elif verdict is Verdict.PROVED:
        cert["summary"] = (f"E <= W0((n-1)/e)/lambda by the exact R2 proof; candidate {fraction_str(factor)}*"
                           f"{bound} = {C.str(12)} >= {B.str(12)} ({info.get('decision')}); E(s*) ball contains "
                           f"the bound: {attained} (n={n}, lambda={fraction_str(lam)})")
    else:
        cert["summary"] = f"undecided up to {outcome.precision} bits (candidate too close to the sharp bound)"
    if verdict is Verdict.PROVED and bound == "w0" and factor == 1 and not (attained and near):
        verdict = Verdict.INCONCLUSIVE
        cert["summary"] = "attainment at s* not certified to 1e-30"
    evidence = _search_evidence(n, lam, C, B, search_points, local_starts, seed) if search_points else {}
    negative = bound == "w0_n_minus_2" or factor < 1
    return Result("T2.n" if negative else "T2",
                  f"E_lambda(s) <= {fraction_str(factor)} * {BOUNDS[bound]} for all s in R^{n} "
                  f"(lambda = {fraction_str(lam)}); " + STATEMENT,
                  verdict, Method.CERTIFIED, certificate=cert, parameters=params,
                  conventions={"softmax": "softmax(lambda * s), no 1/sqrt(m)", "lambert_w": "principal branch W0"},
                  seeds={"search": seed} if search_points else {}, evidence=evidence)


def _critical_bracket(n: int, W: arb, prec: int) -> dict:
    """Per-n certified companion of the exact proof: rational A_lo < W0(m/e) < A_hi (m = n - 1) within
    2^(20-prec) of each other with h(A_lo) > 0 > h(A_hi) certified, so the unique zero of the decreasing h
    (the maximiser of g) is the Lambert W ball's value; g(A_lo), g(A_hi) <= the W0 ball's upper end."""
    lo_w, hi_w = ball_bounds(W)
    eps = Fraction(1, 2 ** (prec - 20))
    a_lo, a_hi = lo_w - eps, hi_w + eps
    m = n - 1
    h_lo, h_hi = scalar_derivative_numerator_ball(a_lo, m), scalar_derivative_numerator_ball(a_hi, m)
    g_lo, g_hi = scalar_objective_ball(a_lo, m), scalar_objective_ball(a_hi, m)
    top = W + to_ball(eps)
    ok = bool(h_lo > 0) and bool(h_hi < 0) and bool(g_lo < top) and bool(g_hi < top)
    return {"m": m, "A_lo": a_lo, "A_hi": a_hi, "h_at_A_lo": _endpoints(h_lo), "h_at_A_hi": _endpoints(h_hi),
            "g_at_A_lo": _endpoints(g_lo), "g_at_A_hi": _endpoints(g_hi), "certified": ok,
            "meaning": "h(A) = ln(m/A) - 1 - A changes sign inside [A_lo, A_hi], which contains the W0((n-1)/e) ball"}


def _oracle(n: int, W: arb):
    """Agreement of the certified W0((n-1)/e) with the spec table (to the table's last digit)."""
    if n not in SPEC_ORACLE:
        return None
    ref = Fraction(SPEC_ORACLE[n])
    digits = len(SPEC_ORACLE[n].split(".")[1])
    lo, hi = ball_bounds(W)
    return {"table_value": SPEC_ORACLE[n], "agrees": abs((lo + hi) / 2 - ref) <= Fraction(1, 2 * 10**digits)}


def _rad(x: arb):
    lo, hi = ball_bounds(x)
    r = (hi - lo) / 2
    return r.numerator, r.denominator


def _short(q: Fraction) -> str:
    return mpmath.nstr(mpf_from_fraction(q), 15)


def _search_evidence(n, lam, C: arb, B: arb, points, local_starts, seed) -> dict:
    with mpmath.workdps(50):
        Cm = mpmath.mpf(C.mid().str(60, radius=False))
        Bm = mpmath.mpf(B.mid().str(60, radius=False))
        found = search_softmax_error(n, lam, points=points, seed=seed, local_starts=local_starts,
                                     rescore_above=float(Cm) * (1 - RESCORE_MARGIN))
        scored = found["rescored"]
        best = max(scored, key=lambda t: t[0]) if scored else None
        max_excess_c = max((v - Cm for v, _, _ in scored), default=mpmath.mpf("-inf"))
        max_excess_b = max((v - Bm for v, _, _ in scored), default=mpmath.mpf("-inf"))
        fv = found["float_values"]
        # points not re-scored have a float value below C (1 - 1e-9): far outside float rounding (~1e-13)
        floor = found["max_float_not_rescored"]
        unscored_safe = floor is None or floor < float(Cm) * (1 - RESCORE_MARGIN)
        criterion = bool(max_excess_c <= EXCESS_TOLERANCE) and unscored_safe
        return {
            "label": "evidence (float search, top points re-scored with mpmath at 50 digits); never decides",
            "points": found["points"],
            "random_and_adversarial": found["random_and_adversarial"],
            "local_optimiser_runs": found["local_optimiser_runs"],
            "max_E_found": mpmath.nstr(best[0], 30) if best else None,
            "argmax_point": [mpmath.nstr(mpf_from_fraction(v), 20) for v in best[1]] if best else None,
            "max_excess_over_candidate": mpmath.nstr(max_excess_c, 10),
            "max_excess_over_sharp_bound": mpmath.nstr(max_excess_b, 10),
            "ratio_max_E_to_sharp_bound": mpmath.nstr(best[0] / Bm, 20) if best else None,
            "tolerance": "1e-20",
            "rescored_at_50_digits": len(scored),
            "rescore_rule": "every point with float E >= C (1 - 1e-9), and the 20 largest",
            "float_max_of_unrescored_points": floor,
            "criterion": "no search point exceeds the candidate bound by more than 1e-20",
            "criterion_met": criterion,
            "float_mean_E": mpmath.nstr(mpmath.mpf(float(fv.mean())), 12),
        }


# -- step 1 alone: the scalar problem ---------------------------------------------------------------

_MAXIMISERS = {
    "W0(m/e)": lambda m: (m / arb.const_e()).lambertw(),
    "W0(m)": lambda m: m.lambertw(),
    "m/e": lambda m: m / arb.const_e(),
    "ln(1+m)": lambda m: (1 + m).log(),
}


def check_scalar_problem(maximiser: str = "W0(m/e)", m_values=(1, 2, 3, 7, 15)) -> Result:
    """max_{0 < A <= m} A ln(m/A)/(1+A): maximiser and value both W0(m/e) (exact, for every m > 0).

    ``maximiser`` names the claimed maximiser; "W0(m/e)" is PROVED by the exact proof (plus certified
    consistency at ``m_values``); a wrong one is REFUTED at the first m in ``m_values`` where the certified
    derivative numerator h(A) = ln(m/A) - 1 - A is non-zero at the claimed A (so g'(A) != 0).
    """
    if maximiser not in _MAXIMISERS:
        raise InputError("maximiser", f"must be one of {', '.join(_MAXIMISERS)}, got {maximiser!r}")
    ms = [parse_positive(v, f"m_values[{i}]") for i, v in enumerate(m_values)]
    if not 1 <= len(ms) <= 100:
        raise InputError("m_values", f"must hold 1 to 100 values, got {len(ms)}")
    proof = universal_bound_proof()
    rows = []
    verdict = Verdict.PROVED if (maximiser == "W0(m/e)" and proof["holds"]) else Verdict.INCONCLUSIVE
    witness = None
    with workprec(256):
        for m in ms:
            mb = to_ball(m)
            A = _MAXIMISERS[maximiser](mb)
            hA = scalar_derivative_numerator_ball(A, mb)
            gA = scalar_objective_ball(A, mb)
            W = (mb / arb.const_e()).lambertw()
            rows.append({"m": m, "claimed_A": _endpoints(A), "h_at_A": _endpoints(hA), "g_at_A": _endpoints(gA),
                         "W0(m/e)": _endpoints(W)})
            if witness is None and (hA > 0 or hA < 0):
                witness = rows[-1]
    if maximiser != "W0(m/e)" and witness is not None:
        verdict = Verdict.REFUTED
    if maximiser == "W0(m/e)" and witness is not None:       # would contradict the proof: never PROVED then
        verdict = Verdict.INCONCLUSIVE
    summary = {
        Verdict.PROVED: "exact: g'(A)(1+A)^2 = ln(m/A)-1-A, decreasing, zero at A = W0(m/e) where g = W0(m/e)",
        Verdict.REFUTED: (f"claimed maximiser {maximiser}: at m = {fraction_str(witness['m'])} the certified "
                          f"h(A) = {witness['h_at_A']['approx']} != 0, so g'(A) != 0") if witness else "",
        Verdict.INCONCLUSIVE: "not decided",
    }[verdict]
    method = Method.EXACT if verdict is Verdict.PROVED else Method.CERTIFIED
    return Result("T2" if maximiser == "W0(m/e)" else "T2.n",
                  f"max over 0 < A <= m of A ln(m/A)/(1+A) is attained at A = {maximiser} with value A",
                  verdict, method, certificate={"summary": summary, "universal_proof": proof, "values": rows},
                  parameters={"maximiser": maximiser, "m_values": ms})


# -- (b) n = 2 closed form -------------------------------------------------------------------------------

_TWO_TOKEN_FORMULAS = {
    "delta/(1+exp(lam*delta))": lambda d, lam: d / (1 + sympy.exp(lam * d)),
    "delta/(1+exp(-lam*delta))": lambda d, lam: d / (1 + sympy.exp(-lam * d)),
    "delta*exp(-lam*delta)": lambda d, lam: d * sympy.exp(-lam * d),
}


def check_two_token_identity(formula: str = "delta/(1+exp(lam*delta))") -> Result:
    """n = 2: E_lambda(a, b) = delta/(1 + e^(lambda delta)), delta = |a - b| (exact symbolic identity, both
    orderings), and its sup W0(1/e)/lambda at delta = (1 + W0(1/e))/lambda (certified).

    A wrong ``formula`` is REFUTED at (a, b, lambda) = (1, 0, 1) where the certified difference is non-zero.
    """
    if formula not in _TWO_TOKEN_FORMULAS:
        raise InputError("formula", f"must be one of {', '.join(_TWO_TOKEN_FORMULAS)}, got {formula!r}")
    b = sympy.Symbol("b", real=True)
    d, lam = sympy.symbols("delta lambda", positive=True)
    F = _TWO_TOKEN_FORMULAS[formula](d, lam)
    cases = {}
    for name, (x, y) in {"a = b + delta": (b + d, b), "b = a + delta": (b, b + d)}.items():
        top = x if name.startswith("a") else y
        E = top - (x * sympy.exp(lam * x) + y * sympy.exp(lam * y)) / (sympy.exp(lam * x) + sympy.exp(lam * y))
        diff = sympy.simplify(E - F)
        cases[name] = {"difference": str(diff), "zero": diff == 0}
    tie = sympy.simplify(F.subs(d, 0))
    with workprec(256):
        one = to_ball(1)
        e_ball = softmax_error_ball([Fraction(1), Fraction(0)], 1)
        f_ball = {"delta/(1+exp(lam*delta))": 1 / (1 + one.exp()),
                  "delta/(1+exp(-lam*delta))": 1 / (1 + (-one).exp()),
                  "delta*exp(-lam*delta)": (-one).exp()}[formula]
        point_diff = e_ball - f_ball
        W = sharp_constant(2)
        sup_val = softmax_error_ball(star_point(2, 1), 1, top=0)
        sup_ok = bool((sup_val - W).contains(0))
    if all(c["zero"] for c in cases.values()):
        verdict, method = Verdict.PROVED, Method.EXACT
        summary = ("E(a,b) - delta/(1+e^(lambda delta)) simplifies to 0 in both orderings; sup = W0(1/e)/lambda "
                   f"= {W.str(12)}/lambda at delta = (1+W0(1/e))/lambda")
    elif point_diff > 0 or point_diff < 0:
        verdict, method = Verdict.REFUTED, Method.CERTIFIED
        summary = f"at a=1, b=0, lambda=1: E - formula = {point_diff.str(12, radius=True)} != 0"
    else:
        verdict, method = Verdict.INCONCLUSIVE, Method.CERTIFIED
        summary = "SymPy did not reduce the difference to 0 and the point test is undecided"
    return Result("T2" if formula == "delta/(1+exp(lam*delta))" else "T2.n",
                  f"n = 2: E_lambda(a, b) = {formula} with delta = |a - b|", verdict, method,
                  certificate={"summary": summary, "cases": cases, "at_tie_delta_0": str(tie),
                               "point_check": {"a": 1, "b": 0, "lambda": 1, "E": _endpoints(e_ball),
                                               "formula": _endpoints(f_ball),
                                               "difference": _endpoints(point_diff)},
                               "sup": {"value_times_lambda": _endpoints(sup_val), "equals_W0(1/e)": sup_ok,
                                       "oracle": "0.278464542761"}},
                  parameters={"formula": formula})


# -- (d) the gap bound --------------------------------------------------------------------------------------

def check_gap_bound(n: int = 4, lam=10, delta="1/5", *, rate="1", trials: int = 200, dim: int = 3,
                    seed: int = 0) -> Result:
    """Gap bound: with a unique maximiser l* and gap delta > 0,
    p_l <= e^(-r lambda delta)/(1 + e^(-r lambda delta)) (l != l*), 1 - p_l* <= (n-1) e^(-r lambda delta) and
    |sum p_l v_l - v_l*|_inf <= (n-1) e^(-r lambda delta) max_l |v_l - v_l*|_inf, with rate r (the claim: r = 1).

    Proof for r <= 1 (exact, recorded): p_l = 1/(1 + sum_{k != l} e^(lambda(s_k - s_l))) <= 1/(1 + e^(lambda
    (s_l* - s_l))) <= 1/(1 + e^(lambda delta)); 1 - p_l* = sum_{l != l*} e^(lambda(s_l - s_l*)) p_l* <=
    (n-1)e^(-lambda delta); the value bound is the triangle inequality with weights summing to 1 - p_l*.
    The certified part evaluates all three at ``trials`` random rational s with gap exactly ``delta`` and
    at the extremal points (delta, 0, ..., 0) and (delta, 0, -big, ...).  A certified violation is REFUTED
    (with the exact point); r > 1 is not covered by the proof, so without a violation it stays INCONCLUSIVE.
    """
    import random

    n = _parse_n(n, limit=64)
    lam = _parse_lam(lam)
    delta = parse_positive(delta, "delta")
    rate = parse_positive(rate, "rate")
    for name, v, lo, hi in (("trials", trials, 0, 10_000), ("dim", dim, 1, 16)):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("seed", f"must be a non-negative integer, got {seed!r}")
    rng = random.Random(seed)
    pts = [tuple([delta] + [Fraction(0)] * (n - 1))]
    if n >= 3:
        pts.append(tuple([delta, Fraction(0)] + [Fraction(-1)] * (n - 2)))
    for _ in range(trials):
        others = [Fraction(rng.randint(0, 400), 100) for _ in range(n - 1)]
        others[0] = Fraction(0)                                # the runner-up: gap exactly delta
        top = delta
        s = [top] + [-o for o in others]
        rng.shuffle(s)
        pts.append(tuple(s))
    values = [[[Fraction(rng.randint(-20, 20), 4) for _ in range(dim)] for _ in range(n)] for _ in pts]

    def attempt(prec):
        violation, undecided = None, 0
        worst = {"p_other": None, "one_minus_p_top": None, "value": None}
        q = (-to_ball(rate) * to_ball(lam) * to_ball(delta)).exp()
        b_other = q / (1 + q)
        b_top = (n - 1) * q
        for idx, s in enumerate(pts):
            top = max(range(n), key=lambda i: s[i])
            p = softmax_weights_ball(s, lam)
            vs = values[idx]
            spread = max(max(abs(vs[l][c] - vs[top][c]) for c in range(dim)) for l in range(n))
            checks = {"one_minus_p_top": (1 - p[top], b_top)}
            if not (n == 2 and rate == 1):
                # n = 2, rate 1: p_other = 1/(1 + e^(lambda delta)) IS the bound (an exact identity, no ball
                # can certify a non-strict inequality at equality); recorded in the certificate instead
                checks["p_other"] = (_max_ball([p[l] for l in range(n) if l != top]), b_other)
            if spread > 0:       # spread = 0: every v_l = v_l*, both sides are exactly 0
                avg = [sum((p[l] * to_ball(vs[l][c]) for l in range(n)), arb(0)) for c in range(dim)]
                lhs_v = _max_ball([abs(avg[c] - to_ball(vs[top][c])) for c in range(dim)])
                checks["value"] = (lhs_v, b_top * to_ball(spread))
            for name, (lhs, rhs) in checks.items():
                slack = rhs - lhs
                if worst[name] is None or slack.mid() < worst[name][0].mid():
                    worst[name] = (slack, idx)
                if not slack >= 0:
                    undecided += 1
                if slack < 0 and violation is None:
                    violation = {"inequality": name, "point": list(s), "values": vs if name == "value" else None,
                                 "lhs": _endpoints(lhs), "rhs": _endpoints(rhs)}
        info = {"violation": violation, "worst": worst, "undecided": undecided}
        if violation is not None:
            return Verdict.REFUTED, info
        return (Verdict.PROVED if undecided == 0 else None), info

    outcome = decide_with_ladder(attempt, ladder=(128, 256, 512))
    violation, worst = outcome.info["violation"], outcome.info["worst"]
    all_certain = outcome.info["undecided"] == 0
    params = {"n": n, "lam": lam, "delta": delta, "rate": rate, "trials": trials, "dim": dim}
    cert = {"points_checked": len(pts), "precision_bits": outcome.precision,
            "min_slack": {k: {"slack": _endpoints(v[0]), "point": list(pts[v[1]])}
                          for k, v in worst.items() if v is not None},
            "proof": ("p_l <= 1/(1+e^(lambda(s_l*-s_l))) <= 1/(1+e^(lambda delta)); 1-p_l* <= (n-1)e^(-lambda delta);"
                      " |sum p v - v*| <= (1-p_l*) max|v_l - v*|; valid for rate r <= 1"),
            "n2_identity": ("for n = 2 and rate 1, p_other = 1/(1 + e^(lambda delta)) = e^(-lambda delta)/(1 + "
                            "e^(-lambda delta)) exactly (equality), so it is not ball-checked") if n == 2 else None}
    if violation is not None:
        cert["summary"] = (f"{violation['inequality']} violated at the exact point {[fraction_str(x) for x in violation['point']]}: "
                           f"lhs {violation['lhs']['approx']} > rhs {violation['rhs']['approx']}")
        cert["witness"] = violation
        verdict = Verdict.REFUTED
    elif rate <= 1 and all_certain:
        verdict = Verdict.PROVED
        cert["summary"] = (f"exact proof (rate {fraction_str(rate)} <= 1) and all three inequalities certified at "
                           f"{len(pts)} points (n={n}, lambda={fraction_str(lam)}, delta={fraction_str(delta)})")
    else:
        verdict = Verdict.INCONCLUSIVE
        cert["summary"] = "no violation found, but the proof covers rate <= 1 only" if rate > 1 else "undecided balls"
    return Result("T2" if rate <= 1 else "T2.n",
                  f"gap bound with rate {fraction_str(rate)}: p_l <= e^(-r lambda delta)/(1+e^(-r lambda delta)), "
                  "1 - p_l* <= (n-1) e^(-r lambda delta), |sum p v - v*| <= (n-1) e^(-r lambda delta) max|v - v*|",
                  verdict, Method.CERTIFIED, certificate=cert, parameters=params, seeds={"points": seed})


def _max_ball(balls):
    """An enclosure of the max of several balls (elementwise upper/lower envelopes)."""
    out = balls[0]
    for b in balls[1:]:
        out = out.max(b)
    return out
