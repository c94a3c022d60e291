"""Every evaluator of the law table agrees with the family's symbolic formula, on random rationals.

For each family and seed: random rational parameters and points (inside the CGF domain); the SymPy formula of
``verify.laws.cgf.TABLE`` (the specification) is evaluated at 60 digits (or exactly, where it is rational), and

* every ball (CGF, gradient, Hessian; at 64 and 200 bits) contains that value, up to the reference's own error;
* mpmath (50 digits) agrees to 40 digits, float64 (discrete tilted mean) to 1e-12 relative;
* exact evaluators (Gaussian, Laplace, mixture with separation 0) equal the SymPy rational exactly;
* the vectorised discrete ball gradient and the symbolic-atom tilt agree with the same formula.
"""

import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

from verify.arith.ball import ball_bounds
from verify.laws import FAMILIES, Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube, theta_symbols
from verify.laws.cgf import TABLE, discrete_grad_ball_many, discrete_grad_float, discrete_tilt_sympy

SEEDS = range(4)
DIGITS = 60


def _rat(rng, lo=-3, hi=3, den=9):
    return F(rng.randint(lo * den, hi * den), rng.randint(1, den))


def _spd(rng, d):
    B = [[_rat(rng, -2, 2, 4) for _ in range(d)] for _ in range(d)]
    return [[sum(B[i][k] * B[j][k] for k in range(d)) + (F(1, 2) if i == j else 0) for j in range(d)]
            for i in range(d)]


def random_law(family, seed):
    rng = random.Random(f"{family}-{seed}")
    d = 1 + seed % 3
    if family == "discrete":
        k = rng.randint(1, 5)
        w = [F(rng.randint(1, 9)) for _ in range(k)]
        return Discrete([[_rat(rng) for _ in range(d)] for _ in range(k)], [x / sum(w) for x in w])
    if family == "uniform_cube":
        return UniformCube(F(rng.randint(1, 30), rng.randint(1, 9)), [_rat(rng) for _ in range(d)])
    if family == "laplace":
        return SymmetricLaplace(_spd(rng, d), [_rat(rng) for _ in range(d)])
    if family == "gaussian":
        return Gaussian(_spd(rng, d), [_rat(rng) for _ in range(d)])
    separation = F(0) if seed == 0 else F(rng.randint(1, 20), rng.randint(1, 7))
    direction = [rng.randint(-3, 3) for _ in range(d)]
    direction[0] = direction[0] or 1
    return GaussianMixture(separation, direction, _spd(rng, d), [_rat(rng) for _ in range(d)])


def random_points(law, seed, count=3):
    rng = random.Random(f"points-{law.family}-{seed}")
    pts = []
    while len(pts) < count:
        t = [_rat(rng, -2, 2, 11) for _ in range(law.dim)]
        if len(pts) == 0 and law.family == "uniform_cube":
            t[0] = F(rng.choice([-1, 1]), 1000)       # near the removable singularity at 0
        if law.family == "uniform_cube" and 0 in t:
            continue                                  # the closed form is singular there (balls use the limit)
        while not law.in_domain(t):
            t = [x / 2 for x in t]
        pts.append(tuple(t))
    return pts


def _values(expr, th, t):
    """The SymPy formula at the rational point t: exact if rational, else a Fraction of its 60-digit value."""
    v = sympy.sympify(expr).subs({s: sympy.Rational(x.numerator, x.denominator) for s, x in zip(th, t)})
    if v.is_Rational:
        return F(int(v.p), int(v.q)), True
    return F(str(sympy.N(v, DIGITS))), False


def _flat(x):
    """A CGF value, gradient or Hessian as a flat list (Hessians row-major)."""
    if not isinstance(x, list):
        return [x]
    return [y for r in x for y in r] if x and isinstance(x[0], list) else x


def _reference(law, t):
    """{kind: [(value, exact?)...]} for kind in cgf, grad, hess (flattened row-major)."""
    th = theta_symbols(law.dim)
    fm = TABLE[law.family]
    return {kind: [_values(e, th, t) for e in _flat(getattr(fm, kind + "_sympy")(law, th))]
            for kind in ("cgf", "grad", "hess")}


def _slack(v):
    return (abs(v) + 1) * F(1, 10 ** (DIGITS - 5))


def _contains(ball, value, exact):
    lo, hi = ball_bounds(ball)
    s = 0 if exact else _slack(value)
    return lo - s <= value <= hi + s


CASES = [(fam, seed) for fam in FAMILIES for seed in SEEDS]


@pytest.fixture(scope="module")
def references():
    out = {}
    for fam, seed in CASES:
        law = random_law(fam, seed)
        out[fam, seed] = law, [(t, _reference(law, t)) for t in random_points(law, seed)]
    return out


@pytest.mark.parametrize("family, seed", CASES, ids=[f"{f}-{s}" for f, s in CASES])
@pytest.mark.parametrize("prec", [64, 200])
def test_balls_enclose_the_formula(references, family, seed, prec):
    law, rows = references[family, seed]
    for t, ref in rows:
        for kind in ("cgf", "grad", "hess"):
            got = _flat(getattr(law, kind + "_ball")(t, prec))
            assert len(got) == len(ref[kind])
            for ball, (v, exact) in zip(got, ref[kind]):
                assert ball.is_finite() and _contains(ball, v, exact), (kind, t, ball, float(v))


@pytest.mark.parametrize("family, seed", CASES, ids=[f"{f}-{s}" for f, s in CASES])
def test_mpmath_agrees_with_the_formula(references, family, seed):
    law, rows = references[family, seed]
    with mpmath.workdps(50):
        for t, ref in rows:
            for kind in ("cgf", "grad", "hess"):
                got = _flat(getattr(law, kind + "_mp")(t))
                for x, (v, _) in zip(got, ref[kind]):
                    assert abs(F(mpmath.nstr(x, 50, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)) - v) \
                        <= (abs(v) + 1) * F(1, 10 ** 40), (kind, t)


@pytest.mark.parametrize("family, seed", CASES, ids=[f"{f}-{s}" for f, s in CASES])
def test_exact_evaluators_equal_the_formula(references, family, seed):
    law, rows = references[family, seed]
    kinds = {"gaussian": ("cgf", "grad", "hess"), "laplace": ("grad", "hess"),
             "gaussian_mixture": ("grad", "hess") if law.is_gaussian() else ()}.get(family, ())
    for t, ref in rows:
        for kind in kinds:
            got = _flat(getattr(law, kind + "_exact")(t))
            assert [v for v, _ in ref[kind]] == got and all(e for _, e in ref[kind]), (kind, t)


@pytest.mark.parametrize("seed", SEEDS)
def test_discrete_batch_float_and_symbolic_tilt_agree_with_the_formula(references, seed):
    law, rows = references["discrete", seed]
    thetas = [t for t, _ in rows]
    batch = law.grad_ball_many(thetas)
    X = np.array([[float(x) for x in a] for a in law.atoms])
    logw = np.log(np.array([float(w) for w in law.weights]))
    flt = discrete_grad_float(np.array([[float(x) for x in t] for t in thetas]), X, logw)
    assert discrete_grad_ball_many(law.atoms, law.weights, thetas)[0][0].rad() == batch[0][0].rad()
    # the tilt with symbolic atoms and weights, specialised to the law's, is the law's formula
    th = theta_symbols(law.dim)
    ys = [[sympy.Symbol(f"y{k}_{j}", real=True) for j in range(law.dim)] for k in range(len(law.atoms))]
    ws = [sympy.Symbol(f"w{k}", positive=True) for k in range(len(law.atoms))]
    _, m, H = discrete_tilt_sympy(th, ys, ws)
    sub = {y: sympy.Rational(x.numerator, x.denominator) for ya, a in zip(ys, law.atoms) for y, x in zip(ya, a)}
    sub.update({w: sympy.Rational(x.numerator, x.denominator) for w, x in zip(ws, law.weights)})
    for (t, ref), balls, floats in zip(rows, batch, flt):
        for j, (v, exact) in enumerate(ref["grad"]):
            assert _contains(balls[j], v, exact), (t, j)
            assert abs(float(floats[j]) - float(v)) <= 1e-12 * (1 + abs(float(v))), (t, j)
        sym = [_values(e.subs(sub), th, t)[0] for e in m] + [_values(e.subs(sub), th, t)[0] for e in _flat(H)]
        for x, (v, _) in zip(sym, ref["grad"] + ref["hess"]):
            assert abs(x - v) <= _slack(v), t


@pytest.mark.parametrize("family", FAMILIES)
def test_gradient_and_hessian_formulas_are_derivatives_of_the_cgf(family):
    law = random_law(family, 1)
    th = theta_symbols(law.dim)
    fm = TABLE[family]
    L, g, H = fm.cgf_sympy(law, th), fm.grad_sympy(law, th), fm.hess_sympy(law, th)
    for t in random_points(law, 1, count=2):
        for i in range(law.dim):
            v, _ = _values(g[i] - sympy.diff(L, th[i]), th, t)
            assert abs(v) <= F(1, 10 ** 50)
            for j in range(law.dim):
                v, _ = _values(H[i][j] - sympy.diff(g[i], th[j]), th, t)
                assert abs(v) <= F(1, 10 ** 50)
