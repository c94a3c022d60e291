"""Distributions: validation, CGF closed forms in three engines, transformations, SPEC round trip."""

from fractions import Fraction as F

import mpmath
import pytest
import sympy
from hypothesis import given, strategies as st

from verify.arith.ball import ball_bounds, to_ball
from verify.errors import DomainError, InputError, InputTypeError
from verify.laws import (Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube,
                                          distribution_from_dict, theta_symbols)

LAWS = [
    Discrete([[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]], [F(1, 2), F(1, 4), F(1, 4)]),
    UniformCube(F(3, 2), [F(1, 3), -1]),
    SymmetricLaplace([[1, F(1, 5)], [F(1, 5), F(4, 5)]], [F(1, 2), 0]),
    GaussianMixture(F(3, 2), [1, 2], [[2, F(1, 2)], [F(1, 2), 1]], [0, F(-1, 3)]),
    Gaussian([[2, 1], [1, 3]], [1, -1]),
]
THETAS = [(F(1, 3), F(-1, 2)), (F(0), F(1, 7)), (F(-2, 5), F(0))]


def _sym_value(expr, th, t, dps=40):
    return sympy.N(expr.subs({s: sympy.Rational(x.numerator, x.denominator) for s, x in zip(th, t)}), dps)


def _contains(ball, value, slack=F(1, 10 ** 30)):
    """The ball contains the (40-digit) reference value, up to the reference's own error."""
    lo, hi = ball_bounds(ball)
    v = F(str(value)) if not isinstance(value, F) else value
    return lo - slack <= v <= hi + slack


def _mid(ball):
    lo, hi = ball_bounds(ball)
    return (lo + hi) / 2


@pytest.mark.parametrize("law", LAWS, ids=lambda l: l.family)
@pytest.mark.parametrize("t", THETAS)
def test_ball_matches_sympy_and_mpmath(law, t):
    th = theta_symbols(law.dim)
    if law.family == "uniform_cube" and 0 in t:
        pytest.skip("the symbolic closed form is singular at theta_k = 0 (balls use the limit)")
    with mpmath.workdps(40):
        cm = law.cgf_mp(t)
    c = law.cgf_ball(t, prec=128)
    assert c.rad() < 1e-30
    assert abs(_mid(c) - F(mpmath.nstr(cm, 40))) < F(1, 10 ** 30)
    assert _contains(c, _sym_value(law.cgf_sympy(th), th, t))
    g = law.grad_ball(t, prec=128)
    gs = law.grad_sympy(th)
    gd = [sympy.diff(law.cgf_sympy(th), s) for s in th]
    for j in range(law.dim):
        assert _contains(g[j], _sym_value(gs[j], th, t))
        assert _contains(g[j], _sym_value(gd[j], th, t))
    H = law.hess_ball(t, prec=128)
    Hs = law.hess_sympy(th)
    for i in range(law.dim):
        for j in range(law.dim):
            assert _contains(H[i][j], _sym_value(Hs[i][j], th, t))
            assert _contains(H[i][j], _sym_value(sympy.diff(gs[i], th[j]), th, t))


def test_cube_removable_singularity():
    C = UniformCube(2, [1, 0])
    H0 = C.hess_ball([0, 0])
    assert _contains(H0[0][0], F(4, 3), 0) and H0[0][0].rad() < 1e-15
    assert _contains(C.grad_ball([0, 0])[0], F(1), 0)
    tiny = F(1, 10 ** 30)
    H = C.hess_ball([tiny, 0], prec=64)
    assert abs(float(H[0][0].mid()) - 4 / 3) < 1e-12 and H[0][0].rad() < 1e-15
    g = C.grad_ball([tiny, 0], prec=64)[0]
    assert abs(float(g.mid()) - 1) < 1e-12 and g.rad() < 1e-15


def test_translate_and_dilate_identities():
    a = (F(1, 2), F(-3, 4))
    for law in LAWS:
        for t in THETAS:
            diff = law.translated(a).cgf_ball(t, 128) - law.cgf_ball(t, 128) - to_ball(a[0] * t[0] + a[1] * t[1])
            assert _contains(diff, F(0), 0)
            lam = F(3, 2)
            lt = tuple(lam * x for x in t)
            if law.in_domain(lt):
                assert _contains(law.dilated(lam).cgf_ball(t, 128) - law.cgf_ball(lt, 128), F(0), 0)


def test_round_trip_and_equality():
    for law in LAWS:
        again = distribution_from_dict(law.to_dict())
        assert again == law and hash(again) == hash(law)
        assert law._repr_latex_().startswith("$") and type(law).__name__ in law._repr_markdown_()


@pytest.mark.parametrize("bad, field", [
    (lambda: Discrete([[0, 0], [1]]), "atoms[1]"),
    (lambda: Discrete([[0], [1]], ["1/2", "1/3"]), "weights"),
    (lambda: Discrete([[0], [1]], [1, 0]), "weights[1]"),
    (lambda: Discrete([]), "atoms"),
    (lambda: UniformCube(-1), "radius"),
    (lambda: SymmetricLaplace([[1, 2], [2, 1]]), "cov"),
    (lambda: SymmetricLaplace([[1, 0], [1, 1]]), "cov"),
    (lambda: Gaussian([[0]]), "cov"),
    (lambda: GaussianMixture(-1, [1], [[1]]), "separation"),
    (lambda: GaussianMixture(1, [0, 0], [[1, 0], [0, 1]]), "direction"),
    (lambda: distribution_from_dict({"family": "gaussian", "cov": [[1]], "extra": 1}), "distribution.extra"),
    (lambda: distribution_from_dict({"family": "discrete"}), "distribution.atoms"),
])
def test_invalid_parameters_name_the_field(bad, field):
    with pytest.raises((InputError, InputTypeError)) as exc:
        bad()
    assert str(exc.value).startswith(field)


def test_floats_refused_unless_opted_in():
    with pytest.raises(InputTypeError):
        Discrete([[0.5]])
    assert Discrete([[0.5]], allow_float=True).atoms == ((F(1, 2),),)


def test_laplace_domain_error_everywhere():
    L = SymmetricLaplace([[1, 0], [0, 2]])
    assert L.in_domain([1, 0]) and not L.in_domain([1, 1])
    for f in (L.cgf_ball, L.grad_ball, L.hess_ball, L.cgf_mp, L.grad_mp, L.hess_mp, L.grad_exact):
        with pytest.raises(DomainError):
            f([1, 1])
    with pytest.raises(InputError):
        L.cgf_ball([1])


@given(st.lists(st.integers(-5, 5), min_size=2, max_size=5, unique=True),
       st.fractions(min_value=-2, max_value=2, max_denominator=9))
def test_discrete_gradient_is_tilted_mean(xs, t):
    law = Discrete([[x] for x in xs])
    g = law.grad_ball([t], prec=96)[0]
    with mpmath.workdps(30):
        w = [mpmath.exp(mpmath.mpf(t.numerator) / t.denominator * x) for x in xs]
        mean = mpmath.fsum(wi * x for wi, x in zip(w, xs)) / mpmath.fsum(w)
    assert abs(_mid(g) - F(mpmath.nstr(mean, 30))) < F(1, 10 ** 20)
    assert min(xs) <= float(g.mid()) <= max(xs)
    H = law.hess_ball([t], prec=96)[0][0]
    assert H.upper() > 0
