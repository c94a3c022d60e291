"""T5 check: M > 2C proved, M = 2C never PROVED, bad input."""

import pytest
from hypothesis import given, strategies as st

from verify.checks.t5_group_isolation import check_group_isolation
from verify.errors import InputError


def test_counterexamples_and_controls():
    assert check_group_isolation(M=2, C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]], ties=["average"]).refuted
    r = check_group_isolation(M=2, C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]], ties=["first"])
    assert r.refuted and r.certificate["witness"]["output"] == 1
    assert check_group_isolation(M="201/100", C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]]).proved


@given(st.integers(1, 6), st.integers(0, 10 ** 6))
def test_hypothesis_failing_is_never_proved(C, seed):
    r = check_group_isolation(M=2 * C, C=C, N=2, k=2, cases=10, seed=seed)
    assert not r.proved


def test_bad_input():
    with pytest.raises(InputError, match=r"^values\[0\]\[0\]"):
        check_group_isolation(M=7, C=1, groups=[0, 1], values=[[2, 0]])
    with pytest.raises(InputError, match="^M"):
        check_group_isolation(M=0, C=1)
    with pytest.raises(InputError, match="^cases"):
        check_group_isolation(M=7, C=1, cases=10 ** 9)
