"""N1: CGF closed forms (certified quadrature), symbolic derivatives, identities, domain enforcement."""

from fractions import Fraction as F

import pytest
from hypothesis import given, strategies as st

from verify.checks.n1_cgf_closed_forms import (check_cgf_quadrature, check_domain_enforced,
                                               check_taylor_coefficients)
from verify.checks.n2_attention_gradient import exp_free_zero
from verify.errors import InputError
from verify.results import Verdict


def test_quadrature_certifies_small_difference():
    r = check_cgf_quadrature("cube", {"radius": "1/2"})
    assert r.verdict is Verdict.PROVED and r.method.value == "certified"
    assert all(abs(row["difference"][0]) <= F(1, 10**40) and abs(row["difference"][1]) <= F(1, 10**40)
               for row in r.certificate["rows"])


@given(st.fractions(min_value=F(1, 8), max_value=F(3), max_denominator=16),
       st.fractions(min_value=F(-1, 2), max_value=F(1, 2), max_denominator=16))
def test_variance_mistake_is_never_proved(s2, theta):
    """The mistaken Laplace form is never PROVED (it equals the truth only at theta = 0)."""
    if theta == 0:
        theta = F(1, 7)
    if 1 - s2 * theta * theta <= 0 or s2 * theta * theta >= 2:
        return
    r = check_cgf_quadrature("laplace", {"variance": s2}, thetas=[[theta]], formula="laplace-variance-mistake")
    assert r.verdict is not Verdict.PROVED


def test_mistake_equals_truth_at_zero_is_not_refuted():
    r = check_cgf_quadrature("laplace", {"variance": 1}, thetas=[[0]], formula="laplace-variance-mistake")
    assert r.verdict is not Verdict.REFUTED


def test_bad_input():
    with pytest.raises(InputError, match="^family"):
        check_cgf_quadrature("cauchy", {})
    with pytest.raises(InputError, match="^thetas"):
        check_cgf_quadrature("laplace", {"variance": 2}, thetas=[[5]])
    with pytest.raises(InputError, match="^params"):
        check_cgf_quadrature("cube", [1])
    with pytest.raises(InputError, match="^order"):
        check_taylor_coefficients(order=13)


def test_domain_checks_both_ways():
    assert check_domain_enforced().verdict is Verdict.PROVED
    assert check_domain_enforced(evaluator="naive-formula").verdict is Verdict.REFUTED
    # only inside points: the naive formula is not caught, so no refutation
    assert check_domain_enforced(thetas=[(0, 0)], evaluator="naive-formula").verdict is Verdict.INCONCLUSIVE


def test_exp_free_zero_never_claims_a_false_identity():
    import sympy
    a, b = sympy.symbols("a b")
    assert not exp_free_zero(sympy.exp(a) + sympy.exp(b) - 2 * sympy.exp((a + b) / 2), fine=True)
    assert not exp_free_zero(sympy.log(1 + sympy.exp(a)) - a)
