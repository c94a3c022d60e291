"""N8: criterion fields of the evidence audits, and the certified negative control."""

from verify.checks.n8_mean_field_limit import (check_depth_convergence, check_frozen_context,
                                               check_width_convergence)
from verify.results import Verdict


def test_depth_rate_criterion():       # same arguments as the audit (memoised: no recomputation)
    r = check_depth_convergence(layers=(8, 16, 32, 64, 128))
    assert r.verdict is Verdict.INCONCLUSIVE and r.certificate["criterion_met"] is True
    assert all(1.8 <= q <= 2.2 for q in r.evidence["ratios"])


def test_width_rate_criterion():
    r = check_width_convergence(heads=(16, 32, 64, 128, 256, 512, 1024), layers=8, seeds=20)
    assert r.certificate["criterion_met"] is True and -0.6 <= r.evidence["slope"] <= -0.4


def test_frozen_context():
    assert check_frozen_context(mode="certified").verdict is Verdict.REFUTED
    assert check_frozen_context(mode="evidence").certificate["criterion_met"] is True


def test_frozen_context_v_zero_is_not_refuted():
    """With V = 0 nothing moves and both models agree: the check must not refute."""
    r = check_frozen_context(mode="certified", v=(0, 0), layers=(8, 16), heads=(1, 2), ladder=(64,))
    assert r.verdict is not Verdict.REFUTED


def test_bad_input():
    import pytest
    from verify.errors import InputError
    with pytest.raises(InputError, match=r"^layers\[1\]"):
        check_depth_convergence(layers=(8, 0))
    with pytest.raises(InputError, match="^seeds"):
        check_width_convergence(seeds=1)
    with pytest.raises(InputError, match="^mode"):
        check_frozen_context(mode="guess")
