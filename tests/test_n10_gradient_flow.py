"""N10: PL decay evidence (criterion fields) and the exact negative control."""

import pytest

from verify.checks.n10_gradient_flow import check_kernel_residual, check_pl_decay
from verify.results import Verdict


@pytest.mark.slow
def test_pl_decay_criteria():   # same arguments as the audits (memoised)
    for eps in ("1e-2", "1e-1"):
        r = check_pl_decay(eps=eps)
        assert r.verdict is Verdict.INCONCLUSIVE and r.certificate["criterion_met"] is True
        assert r.evidence["inequality_integral_holds"] and r.evidence["inequality_pl_holds"]
    assert check_pl_decay(eps="1e-2").evidence["lambda_min_stays_above_half_lambda0"] is True


def test_kernel_residual_refuted_exactly():
    r = check_kernel_residual(eps="1e-2")
    assert r.verdict is Verdict.REFUTED and r.method.value == "exact"
    assert r.evidence["symbolic_sum_c_grad_zero"] is True
    assert r.evidence["float_grad_norm_at_theta0"] < 1e-12


def test_lambda0_is_certified_positive():
    r = check_pl_decay(eps="1e-2")
    cert = r.evidence["lambda0_certified"]
    assert cert["certified"] is True and 0 < cert["lower_bound"] <= r.evidence["lambda0"]


def test_bad_input():
    import pytest
    from verify.errors import InputError
    with pytest.raises(InputError, match="^eps"):
        check_pl_decay(eps=0)
    with pytest.raises(InputError, match="^heads"):
        check_pl_decay(heads=1000)
    with pytest.raises(InputError, match="^e"):
        check_kernel_residual(e=(0, 0))
