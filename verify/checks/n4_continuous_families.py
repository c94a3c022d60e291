"""N4: cubes, symmetric Laplace laws, two-component Gaussian mixtures, Gaussians, dilations (docs/paper2.md §6.2-§6.6).

* :func:`check_continuous_family` -- one family (oracle case or explicit laws) through the decision procedure.
* :func:`check_random_families` -- seeded random families of one kind: ``cubes`` (N <= 6, radii in (1/4, 3),
  d <= 3), ``laplace`` (random rational SPD, d in {2, 3}), ``mixtures`` (a in (0, 3)); ``distinct=True``
  draws pairwise distinct parameters (expected: every family PROVED independent), ``distinct=False``
  forces two equal radii / covariances / separations (expected: every family REFUTED with an exact relation).
  The sweep is PROVED / REFUTED only if every family gets that verdict, else INCONCLUSIVE.
* :func:`check_series_vandermonde` -- exact facts behind the proofs: B_2k != 0, the Taylor coefficients of
  log(sinh u/u) and log cosh, and non-vanishing Vandermonde determinants in distinct r_i^2.

>>> check_series_vandermonde(6).verdict.value
'proved'
"""

from __future__ import annotations

import random
from fractions import Fraction

import sympy

from ..arith.ball import LADDER
from ..errors import InputError
from ..laws import GaussianMixture, SymmetricLaplace, UniformCube
from ..results import Method, Result, Verdict
from ..decide.independence import batch_result, independent_mod_affine
from ..decide.oracle_cases import decide_oracle_case

__all__ = ["check_continuous_family", "check_random_families", "check_series_vandermonde", "check_dilation_lemma",
           "KINDS", "DILATION_KINDS"]

KINDS = ("cubes", "laplace", "mixtures")


def check_continuous_family(case: str, claim: str = "N4") -> Result:
    return decide_oracle_case(case, claim=claim)


def _rand_frac(rng, lo: Fraction, hi: Fraction, den: int = 16) -> Fraction:
    a, b = int(lo * den) + 1, int(hi * den) - 1
    return Fraction(rng.randint(a, b), den)


def _rand_spd(rng, d):
    B = [[Fraction(rng.randint(-3, 3), 2) for _ in range(d)] for _ in range(d)]
    return [[sum(B[i][k] * B[j][k] for k in range(d)) / 2 + (Fraction(1, 2) if i == j else 0) for j in range(d)]
            for i in range(d)]


def _family(kind, rng, distinct: bool):
    if kind == "cubes":
        d = rng.randint(1, 3)
        N = rng.randint(2, 6)
        vals = set()
        while len(vals) < N:
            vals.add(_rand_frac(rng, Fraction(1, 4), Fraction(3)))
        radii = sorted(vals)
        if not distinct:
            radii[-1] = radii[0]
        rng.shuffle(radii)
        return [UniformCube(r, [Fraction(rng.randint(-4, 4), 4) for _ in range(d)]) for r in radii]
    if kind == "laplace":
        d = rng.randint(2, 3)
        N = rng.randint(2, 5)
        covs = []
        while len(covs) < N:
            S = _rand_spd(rng, d)
            if S not in covs:
                covs.append(S)
        if not distinct:
            covs[-1] = covs[0]
        return [SymmetricLaplace(S, [Fraction(rng.randint(-4, 4), 4) for _ in range(d)]) for S in covs]
    if kind == "mixtures":
        d = rng.randint(1, 2)
        N = rng.randint(2, 5)
        vals = set()
        while len(vals) < N:
            vals.add(_rand_frac(rng, Fraction(0), Fraction(3)))
        seps = sorted(vals)
        if not distinct:
            seps[-1] = seps[0]
        u = [rng.randint(1, 3)] + [rng.randint(-3, 3) for _ in range(d - 1)]
        cov = _rand_spd(rng, d)
        return [GaussianMixture(a, u, cov, [Fraction(rng.randint(-4, 4), 4) for _ in range(d)]) for a in seps]
    raise InputError("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")


def check_random_families(kind: str = "cubes", trials: int = 20, distinct: bool = True, seed: int = 4,
                          claim: str = "N4", ladder=LADDER) -> Result:
    if kind not in KINDS:
        raise InputError("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 1000:
        raise InputError("trials", f"must be an integer in [1, 1000], got {trials!r}")
    rng = random.Random(seed)
    results = []
    for t in range(trials):
        laws = _family(kind, rng, distinct)
        results.append(independent_mod_affine(laws, "affine", claim=claim, seed=t, ladder=ladder))
    what = {"cubes": "radii", "laplace": "covariances", "mixtures": "separations (common u, common Sigma)"}[kind]
    target = "proved" if distinct else "refuted"
    got = sum(r.verdict.value == target for r in results)
    label = (f"{trials} random {kind} families ({'pairwise distinct' if distinct else 'two equal'} {what}, "
             f"seed {seed})")
    return batch_result(claim, results, f"{got}/{trials} families {target} (per-family certificates)", label=label,
                        seeds={"families": seed}, evidence={"kind": kind, "distinct": distinct,
                                                            "ladder": list(ladder)})


DILATION_KINDS = ("cube", "laplace", "two-point", "mixture", "gaussian")


def check_dilation_lemma(kind: str = "cube", lams=("1", "3/2", "2", "5/2"), claim: str = "N4") -> Result:
    """N4(e): dilations Lambda(lam_i theta) of one law with pairwise distinct lam_i > 0 are independent unless
    the law is Gaussian (or a Dirac); Gaussian dilations are dependent (c = (lam2^2, -lam1^2) for two)."""
    from ..arith.exact import parse_exact

    if kind not in DILATION_KINDS:
        raise InputError("kind", f"must be one of {', '.join(DILATION_KINDS)}, got {kind!r}")
    lam = [parse_exact(x, f"lams[{i}]") for i, x in enumerate(lams)]
    if any(x <= 0 for x in lam) or len(set(lam)) != len(lam) or not 1 <= len(lam) <= 8:
        raise InputError("lams", "must be 1..8 pairwise distinct positive numbers")
    from ..laws import Discrete, Gaussian

    base = {"cube": UniformCube(1, [Fraction(1, 3), 0]),
            "laplace": SymmetricLaplace([[Fraction(1, 4), Fraction(1, 10)], [Fraction(1, 10), Fraction(1, 5)]]),
            "two-point": Discrete([[-1], [1]]),
            "mixture": GaussianMixture(1, [1, 2], [[1, 0], [0, 1]]),
            "gaussian": Gaussian([[2, 1], [1, 1]], [1, 0])}[kind]
    laws = [base.dilated(x) for x in lam]
    return independent_mod_affine(laws, "affine", claim=claim)


def check_series_vandermonde(K: int = 6, claim: str = "N4") -> Result:
    """Exact: B_2k != 0 (k <= K); the Taylor coefficients of log(sinh u / u) and log cosh x equal
    2^2k B_2k / (2k (2k)!) and 2^2k (2^2k - 1) B_2k / (2k (2k)!) through order 2K; the Vandermonde
    determinant in distinct squares r_i^2 is non-zero (F8 radii, F16 variances, F19 separations)."""
    if isinstance(K, bool) or not isinstance(K, int) or not 1 <= K <= 30:
        raise InputError("K", f"must be an integer in [1, 30], got {K!r}")
    u = sympy.Symbol("u")
    sg = sympy.series(sympy.log(sympy.sinh(u) / u), u, 0, 2 * K + 2).removeO()
    sc = sympy.series(sympy.log(sympy.cosh(u)), u, 0, 2 * K + 2).removeO()
    rows = []
    ok = True
    for k in range(1, K + 1):
        B = sympy.bernoulli(2 * k)
        cg = sympy.Integer(2) ** (2 * k) * B / (2 * k * sympy.factorial(2 * k))
        cc = sympy.Integer(2) ** (2 * k) * (sympy.Integer(2) ** (2 * k) - 1) * B / (2 * k * sympy.factorial(2 * k))
        good = B != 0 and sg.coeff(u, 2 * k) == cg and sc.coeff(u, 2 * k) == cc
        ok = ok and bool(good)
        rows.append({"k": k, "B_2k": str(B), "log_sinh_u_over_u": str(cg), "log_cosh": str(cc), "ok": bool(good)})
    groups = {"F8 radii": [Fraction(1, 2), 1, Fraction(3, 2), 2],
              "F16 variances": [Fraction(1, 4), Fraction(1, 2), 1, Fraction(3, 2)],
              "F19 separations": [Fraction(1, 2), 1, Fraction(3, 2), 2]}
    dets = {}
    for name, vals in groups.items():
        sq = [sympy.Rational(Fraction(v).numerator, Fraction(v).denominator) ** 2 for v in vals]
        det = sympy.Matrix([[x ** k for x in sq] for k in range(1, len(sq) + 1)]).det()
        dets[name] = str(det)
        ok = ok and det != 0
    from ..canonical import jsonable
    from ..kernel.lse import CONVENTIONS, statement_series

    params = {"K": K, "vandermonde": {k: [Fraction(v) for v in vs] for k, vs in groups.items()}}
    statement = statement_series(jsonable(params), jsonable(CONVENTIONS))
    summary = (f"exact SymPy series through order {2 * K}, {len(dets)} Vandermonde determinants in r_i^2 non-zero")
    if not ok:     # never happens (the facts are true); an exact failure is not a certified refutation
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EXACT, certificate={"summary": summary},
                      parameters=params, conventions=dict(CONVENTIONS), evidence={"coefficients": rows})
    from ..decide.independence import self_checked

    return self_checked(Result(claim, statement, Verdict.PROVED, Method.EXACT,
                               certificate={"kind": "series-vandermonde"}, parameters=params,
                               conventions=dict(CONVENTIONS),
                               evidence={"summary": summary, "coefficients": rows, "determinants": dets}))
