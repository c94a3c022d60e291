"""T2: softmax versus hardmax, the sharp bound W0((n-1)/e)/lambda and the gap bound (docs/paper1.md R2).

E_lambda(s) := max_l s_l - <softmax(lambda s), s>.

Every decided Result carries a certificate of a kernel kind (``verify.kernel.softmax``), and its
statement is built by the kernel's statement function from the parameters:

1. **Universal upper bound** (``softmax-bound``): the R2 reduction [lemma: lambda E = sum_l a_l ln(1/a_l)/(1+A),
   a_l = e^(-lambda(max s - s_l)) over the m = n - 1 non-top indices, A = sum a_l in (0, m], and Jensen for
   the concave a ln(1/a)] gives lambda E <= g(A) = A ln(m/A)/(1+A); the kernel's SymPy lemma shows
   max g = W0(m/e).  A candidate c * bound(n)/lambda is PROVED when c * bound(n) >= W0((n-1)/e) (exactly
   for the sharp bound with c >= 1, by balls otherwise); the certificate's rational witness s_q next to s*
   shows E(s_q) > W0((n-1)/e)/lambda - 1e-30, so the sharp value is the supremum.
2. **REFUTED** (``softmax-bound-exceeded``): the ball for E(s_q) lies above the candidate.
3. **Global search, evidence only**: random + adversarial points, a local optimiser, re-scored at 50
   digits (``evidence["search"]``); it never decides.

Also: ``check_scalar_problem`` (``scalar-maximiser`` / ``-wrong``), ``check_two_token_identity``
(``two-token-identity`` / ``-wrong``) and ``check_gap_bound`` (``softmax-gap-lemma`` / ``-exceeded``).

>>> r = check_softmax_bound(2, 10, search_points=30, local_starts=1)
>>> r.verdict.value, r.method.value
('proved', 'certified')
>>> check_softmax_bound(2, 10, factor="0.999", search_points=0).verdict.value
'refuted'
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb

from ..decide.softmax_error import (
    search_softmax_error, sharp_bound, sharp_constant, softmax_error_ball, softmax_weights_ball, star_point,
    star_point_rational,
    scalar_derivative_numerator_ball, scalar_objective_ball,
)
from ..arith.ball import ball_bounds, to_ball, workprec
from ..arith.evidence import mpf_from_fraction
from ..arith.exact import fraction_str, parse_positive
from ..errors import InputError, InputTypeError
from ..canonical import jsonable
from ..results import Method, Result, Verdict
from .. import kernel
from ..kernel import softmax as kernel_softmax
from ..kernel import Rejected

__all__ = [
    "BOUNDS", "check_softmax_bound", "check_scalar_problem", "check_two_token_identity",
    "check_gap_bound", "TWO_TOKEN_FORMULAS", "MAX_TOKENS", "MAX_SEARCH_TOKENS", "MAX_SEARCH_POINTS",
]

MAX_TOKENS = 4096            # certified part: n entries in arb
MAX_SEARCH_TOKENS = 256      # evidence search: n-dimensional float search
MAX_SEARCH_POINTS = 200_000
MAX_LAMBDA = Fraction(10) ** 12
RADIUS_TARGET = Fraction(1, 10**30)
EXCESS_TOLERANCE = mpmath.mpf("1e-20")
RESCORE_MARGIN = 1e-9
# docs/paper1.md R2 table: W0((n-1)/e) to 12 significant digits
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

CONVENTIONS = {"softmax": "softmax(lambda * s), no 1/sqrt(m)", "lambert_w": "principal branch W0"}
TOL = Fraction(1, 10**30)


def check_softmax_bound(n: int, lam, *, bound: str = "w0", factor="1", search_points: int = 3000,
                        local_starts: int = 4, seed: int = 0) -> Result:
    """Check "E_lambda(s) <= factor * bound(n)/lambda for all s in R^n" (see the module docstring).

    PROVED (kernel kind ``softmax-bound``): factor * bound(n) >= W0((n-1)/e) (exactly for the sharp bound
    with factor >= 1, else by balls), so the R2 proof applies; the witness s_q next to s* has E within 1e-30
    of W0((n-1)/e)/lambda.  REFUTED (``softmax-bound-exceeded``): the ball for E(s_q) lies above the bound.
    """
    n = _parse_n(n)
    lam = _parse_lam(lam)
    if bound not in BOUNDS:
        raise InputError("bound", f"must be one of {', '.join(BOUNDS)}, got {bound!r}")
    factor = parse_positive(factor, "factor")
    _parse_search(search_points, local_starts, seed, n)
    params = jsonable({"n": n, "lam": lam, "bound": bound, "factor": factor})
    conventions = jsonable(CONVENTIONS)
    verdict, cert, info = Verdict.INCONCLUSIVE, {}, {}
    for prec in (128, 256, 512, 1024):
        with workprec(prec):
            W = sharp_constant(n)
            B = W / to_ball(lam)
            C = to_ball(factor) * _bound_times_lambda(bound, n) / to_ball(lam)
            sq = star_point_rational(n, lam)
            e_q = softmax_error_ball(sq, lam)
            info = {"E_at_witness": e_q.str(25, radius=True), "sharp_bound": B.str(25, radius=True),
                    "candidate": C.str(25, radius=True), "precision_bits": prec}
            if e_q > C:
                verdict, kind = Verdict.REFUTED, "softmax-bound-exceeded"
            elif ((bound == "w0" and factor >= 1) or C > B) and e_q > B - to_ball(TOL):
                verdict, kind = Verdict.PROVED, "softmax-bound"
            else:
                continue
            cert = {"kind": kind, "witness": jsonable(list(sq)), "precision_bits": prec}
            break
    evidence = {"balls": info}
    if search_points:
        with workprec(128):
            B = sharp_constant(n) / to_ball(lam)
            C = to_ball(factor) * _bound_times_lambda(bound, n) / to_ball(lam)
            evidence["search"] = _search_evidence(n, lam, C, B, search_points, local_starts, seed)
    evidence["search_parameters"] = {"search_points": search_points, "local_starts": local_starts}
    evidence["figure"] = _figure_data(n, lam, e_q, B, evidence.get("search"))
    negative = bound == "w0_n_minus_2" or factor < 1
    return Result("T2.n" if negative else "T2", kernel_softmax.bound_statement(params, conventions), verdict,
                  Method.CERTIFIED, certificate=cert, parameters=params, conventions=conventions,
                  seeds={"search": seed} if search_points else {}, evidence=evidence)


def _figure_data(n, lam, e_q: arb, B: arb, search) -> dict:
    """The typed figure data (``softmax_error``, docs/reports.md): one point per series at this lambda (the
    sharp bound and the error at s* do not depend on the candidate bound under test)."""
    lam_s = fraction_str(lam)
    series = [{"name": "bound W0((n-1)/e)/lambda (certified)", "role": "bound",
               "points": [[lam_s, repr(float(ball_bounds(B)[1]))]]},
              {"name": "error at the maximiser s* (certified)", "role": "certified",
               "points": [[lam_s, repr(float(ball_bounds(e_q)[1]))]]}]
    if search and search.get("max_E_found") is not None:
        series.append({"name": "largest error found by search (evidence)", "role": "evidence",
                       "points": [[lam_s, search["max_E_found"]]]})
    return {"type": "softmax_error", "group": f"n = {n}", "series": series}


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

_MAXIMISERS = kernel_softmax.MAXIMISERS


def check_scalar_problem(maximiser: str = "W0(m/e)", m_values=(1, 2, 3, 7, 15)) -> Result:
    """max_{0 < A <= m} A ln(m/A)/(1+A): maximiser and value both W0(m/e) (exact, for every m > 0).

    ``maximiser`` names the claimed maximiser; "W0(m/e)" is PROVED by the kernel's symbolic lemma
    (``scalar-maximiser``); a wrong one is REFUTED (``scalar-maximiser-wrong``) at the first m in
    ``m_values`` where the certified h(A) = ln(m/A) - 1 - A is non-zero at the claimed A (so g'(A) != 0).
    """
    if maximiser not in _MAXIMISERS:
        raise InputError("maximiser", f"must be one of {', '.join(_MAXIMISERS)}, got {maximiser!r}")
    ms = [parse_positive(v, f"m_values[{i}]") for i, v in enumerate(m_values)]
    if not 1 <= len(ms) <= 100:
        raise InputError("m_values", f"must hold 1 to 100 values, got {len(ms)}")
    params = {"maximiser": maximiser}
    rows, witness = [], None
    with workprec(256):
        for m in ms:
            mb = to_ball(m)
            A = _MAXIMISERS[maximiser](mb)
            hA = scalar_derivative_numerator_ball(A, mb)
            rows.append({"m": m, "claimed_A": A.str(20, radius=True), "h_at_A": hA.str(20, radius=True),
                         "g_at_A": scalar_objective_ball(A, mb).str(20, radius=True)})
            if witness is None and A > 0 and (hA > 0 or hA < 0):
                witness = m
    if maximiser == "W0(m/e)":
        kernel_softmax.scalar_lemma()
        verdict, method, cert = Verdict.PROVED, Method.EXACT, {"kind": "scalar-maximiser"}
    elif witness is not None:
        verdict, method = Verdict.REFUTED, Method.CERTIFIED
        cert = {"kind": "scalar-maximiser-wrong", "m": fraction_str(witness), "precision_bits": 256}
    else:
        verdict, method, cert = Verdict.INCONCLUSIVE, Method.CERTIFIED, {}
    return Result("T2" if maximiser == "W0(m/e)" else "T2.n", kernel_softmax.scalar_statement(params, {}),
                  verdict, method, certificate=cert, parameters=params, evidence={"values": jsonable(rows)})


# -- (b) n = 2 closed form -------------------------------------------------------------------------------

# named formulas as kernel expression trees in delta and X = exp(lambda * delta)
TWO_TOKEN_FORMULAS = {
    "delta/(1+exp(lam*delta))": ["/", "delta", ["+", 1, "X"]],
    "delta/(1+exp(-lam*delta))": ["/", "delta", ["+", 1, ["pow", "X", -1]]],
    "delta*exp(-lam*delta)": ["*", "delta", ["pow", "X", -1]],
}


def check_two_token_identity(formula="delta/(1+exp(lam*delta))") -> Result:
    """n = 2: E_lambda(a, b) = delta/(1 + e^(lambda delta)), delta = |a - b| (exact: the kernel cancels E - F as
    a rational function of delta and X = e^(lambda delta) in both orderings; kind ``two-token-identity``).

    ``formula``: a name of :data:`TWO_TOKEN_FORMULAS` or a kernel expression tree.  A wrong formula is REFUTED
    (``two-token-identity-wrong``) at (a, b, lambda) = (1, 0, 1) where the certified difference is non-zero.
    """
    tree = TWO_TOKEN_FORMULAS.get(formula, formula) if isinstance(formula, str) else formula
    params = {"formula": tree}
    try:
        statement = kernel_softmax.two_token_statement(params, {})
    except Rejected as exc:
        raise InputError("formula", f"must be one of {', '.join(TWO_TOKEN_FORMULAS)} or an expression tree "
                                    f"({exc})") from None
    trial = {"claim": "T2", "statement": statement, "verdict": "proved", "method": "exact",
             "certificate": {"kind": "two-token-identity"}, "parameters": params, "conventions": {}}
    try:
        kernel.check(trial, seconds=30)
        verdict, method, cert = Verdict.PROVED, Method.EXACT, trial["certificate"]
    except Rejected:
        cert = {"kind": "two-token-identity-wrong", "a": 1, "b": 0, "lam": 1, "precision_bits": 256}
        trial.update(verdict="refuted", method="certified", certificate=cert)
        try:
            kernel.check(trial, seconds=30)
            verdict, method = Verdict.REFUTED, Method.CERTIFIED
        except Rejected:
            verdict, method, cert = Verdict.INCONCLUSIVE, Method.CERTIFIED, {}
    with workprec(256):
        sup_val = softmax_error_ball(star_point(2, 1), 1, top=0)
    evidence = {"sup_at_lambda_1": sup_val.str(20, radius=True), "oracle_W0(1/e)": "0.278464542761"}
    return Result("T2" if verdict is Verdict.PROVED else "T2.n", statement, verdict, method, certificate=cert,
                  parameters=params, evidence=evidence)


# -- (d) the gap bound --------------------------------------------------------------------------------------

def check_gap_bound(n: int = 4, lam=10, delta="1/5", *, rate="1", trials: int = 200, dim: int = 3,
                    seed: int = 0) -> Result:
    """Gap bound: with a unique maximiser l* and gap delta > 0,
    p_l <= e^(-r lambda delta)/(1 + e^(-r lambda delta)) (l != l*), 1 - p_l* <= (n-1) e^(-r lambda delta) and
    |sum p_l v_l - v_l*|_inf <= (n-1) e^(-r lambda delta) max_l |v_l - v_l*|_inf, with rate r (the claim: r = 1).

    PROVED for r <= 1 (``softmax-gap-lemma``): the kernel's symbolic lemma (``kernel.softmax.gap_lemma``) with
    r <= 1 checked exactly -- a proof for every s, not a sample.  For r > 1 the points (delta, 0, ..., 0),
    (delta, 0, -1, ...) and ``trials`` random rational s with gap exactly delta are tried: a certified
    violation of the first two bounds is REFUTED (``softmax-gap-exceeded``, exact witness), else INCONCLUSIVE.
    The sampled balls are evidence only.
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
    params = jsonable({"n": n, "lam": lam, "delta": delta, "rate": rate})
    statement = kernel_softmax.gap_statement(params, {})
    rng = random.Random(seed)
    pts = [tuple([delta] + [Fraction(0)] * (n - 1))]
    if n >= 3:
        pts.append(tuple([delta, Fraction(0)] + [Fraction(-1)] * (n - 2)))
    for _ in range(trials):
        others = [Fraction(rng.randint(0, 400), 100) for _ in range(n - 1)]
        others[0] = Fraction(0)
        s = [delta] + [-o for o in others]
        rng.shuffle(s)
        pts.append(tuple(s))
    witness, worst = None, None
    with workprec(256):
        q = (-to_ball(rate) * to_ball(lam) * to_ball(delta)).exp()
        for s in pts:
            top = max(range(n), key=lambda i: s[i])
            p = softmax_weights_ball(s, lam)
            slack = (n - 1) * q - (1 - p[top])
            worst = slack if worst is None or slack.mid() < worst.mid() else worst
            if any(p[i] > q / (1 + q) for i in range(n) if i != top) or slack < 0:
                witness = s
                break
    evidence = {"label": "evidence: the gap bounds at sampled points (balls); never decides a PROVED",
                "points_tried": len(pts), "min_slack_one_minus_p_top": worst.str(15, radius=True),
                "trials": trials, "dim": dim}
    if rate <= 1:
        kernel_softmax.gap_lemma()
        verdict, method, cert = Verdict.PROVED, Method.EXACT, {"kind": "softmax-gap-lemma"}
    elif witness is not None:
        verdict, method = Verdict.REFUTED, Method.CERTIFIED
        cert = {"kind": "softmax-gap-exceeded", "witness": jsonable(list(witness)), "precision_bits": 256}
    else:
        verdict, method, cert = Verdict.INCONCLUSIVE, Method.CERTIFIED, {}
        evidence["reason"] = "no violation found, but the proof covers rate <= 1 only"
    return Result("T2" if rate <= 1 else "T2.n", statement, verdict, method, certificate=cert,
                  parameters=params, seeds={"points": seed}, evidence=evidence)


def _max_ball(balls):
    """An enclosure of the max of several balls (elementwise upper/lower envelopes)."""
    out = balls[0]
    for b in balls[1:]:
        out = out.max(b)
    return out
