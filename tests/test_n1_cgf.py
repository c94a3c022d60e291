"""N1: CGF closed forms (certified quadrature), symbolic derivatives, identities, domain enforcement."""

from fractions import Fraction as F

import pytest
from hypothesis import given, strategies as st

from verify.checks.n1_cgf_closed_forms import (check_cgf_quadrature, check_domain_enforced,
                                               check_taylor_coefficients)
from verify.decide.symbolic import exp_free_zero
from verify.errors import InputError
from verify.results import Verdict


def _kernel_ok(r):
    import json

    from verify import kernel
    return kernel.check(json.loads(r.to_json()))


def test_quadrature_certifies_small_difference():
    r = check_cgf_quadrature("cube", {"radius": "1/2"})
    assert r.verdict is Verdict.PROVED and r.method.value == "certified"
    assert all(abs(row["difference"][0]) <= F(1, 10**40) and abs(row["difference"][1]) <= F(1, 10**40)
               for row in r.evidence["rows"])
    assert r.certificate["kind"] == "cgf-quadrature" and _kernel_ok(r).startswith("cgf-quadrature")


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
    if r.verdict is Verdict.REFUTED:        # every decided Result is re-checked by the kernel
        assert _kernel_ok(r).startswith("cgf-quadrature-witness")


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
    r = check_domain_enforced()
    assert r.verdict is Verdict.PROVED and _kernel_ok(r).startswith("laplace-domain: 3 points outside")
    r = check_domain_enforced(evaluator="naive-formula")
    assert r.verdict is Verdict.REFUTED and _kernel_ok(r).startswith("laplace-naive-witness")
    # only q == 1 outside: the unguarded formula returns +inf there, not a number: no refutation
    assert check_domain_enforced(thetas=[(1, "1/2")], evaluator="naive-formula").verdict is Verdict.INCONCLUSIVE
    # only inside points: the naive formula is not caught, so no refutation
    assert check_domain_enforced(thetas=[(0, 0)], evaluator="naive-formula").verdict is Verdict.INCONCLUSIVE


def test_exp_free_zero_never_claims_a_false_identity():
    import sympy
    a, b = sympy.symbols("a b")
    assert not exp_free_zero(sympy.exp(a) + sympy.exp(b) - 2 * sympy.exp((a + b) / 2), fine=True)
    assert not exp_free_zero(sympy.log(1 + sympy.exp(a)) - a)


def test_exp_free_zero_fresh_symbols_do_not_collide():
    """issue 11: fresh symbols were Symbol("_E0", positive=True), so exp(a) - _E0 'cancelled' to 0."""
    import sympy
    a = sympy.Symbol("a")
    for name in ("_E0", "_Z0", "_W0"):
        assert not exp_free_zero(sympy.exp(a) - sympy.Symbol(name, positive=True))
        assert not exp_free_zero(sympy.exp(a) - sympy.Symbol(name, positive=True), fine=True)
    assert exp_free_zero(sympy.exp(a) * sympy.exp(-a) - 1)


@pytest.mark.slow
def test_kernel_derivatives_at_their_bounds_within_10s():
    """6 two-dimensional mixtures (irrational directions) and 6 discrete laws of 4 atoms: each < 10 s CPU."""
    import json
    import time

    from verify import kernel
    from verify.kernel import symbolic as S
    from verify.results import Method, Result
    for laws in ({f"m{i}": {"family": "gaussian_mixture", "separation": f"{i + 1}/3", "direction": ["1", f"{i}/7"],
                            "cov": [["2", "1/3"], ["1/3", "1"]], "center": ["1/4", "0"]} for i in range(6)},
                 {f"d{i}": {"family": "discrete", "atoms": [[f"{j}/{i + 3}", f"-{j}/11"] for j in range(4)],
                            "weights": ["1/4"] * 4} for i in range(6)}):
        r = json.loads(Result("N1", S.statement("cgf-derivatives", {"laws": laws}, {}), Verdict.PROVED, "exact",
                              certificate={"kind": "cgf-derivatives"}, parameters={"laws": laws}).to_json())
        t = time.process_time()
        assert kernel.check(r).startswith("cgf-derivatives: 6 laws")
        assert time.process_time() - t < 10


@pytest.mark.slow
def test_audit_results_pass_the_kernel():
    from verify.checks.n1_cgf_closed_forms import check_identities, check_symbolic_derivatives
    for r in (check_symbolic_derivatives(), check_identities(), check_taylor_coefficients(),
              check_cgf_quadrature("mixture", {"separation": "2", "sigma": "3/2", "center": "1/5"}),
              check_cgf_quadrature("laplace", {"variance": "3/2", "mean": "-1/4"}),
              check_cgf_quadrature("gaussian", {"variance": 2, "mean": 1})):
        assert r.verdict is Verdict.PROVED and _kernel_ok(r).startswith(r.certificate["kind"])
