"""T5 check: M > 2C proved, M = 2C never PROVED, bad input."""

import json

import pytest
from hypothesis import given, strategies as st

from verify import kernel
from verify.checks.t5_group_isolation import check_group_isolation
from verify.errors import InputError


@pytest.mark.slow
def test_counterexamples_and_controls():
    a = check_group_isolation(M=2, C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]], ties=["average"])
    assert a.refuted and "for each of the 1 given value vectors z" in a.statement
    r = check_group_isolation(M=2, C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]], ties=["first"])
    assert r.refuted and r.certificate["z"] == [1, 0, -1, -1] and "gets 1 instead of -1" in r.certificate["summary"]
    c = check_group_isolation(M="201/100", C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]])
    assert c.proved and c.certificate["kind"] == "group-isolation-instances"
    for x in (a, r, c):
        kernel.check(json.loads(x.to_json()))


def test_proved_box_statement_is_backed_by_group_trees():
    # issue 11: PROVED from random cases must be backed by a certificate covering the claim's scope
    r = check_group_isolation(M="601/100", C=3, N=3, k=4, cases=4)
    assert r.proved and r.certificate["kind"] == "group-isolation-tree"
    assert "token groups [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]" in r.statement and "every z in [-C, C]^n" in r.statement
    assert [t.count([]) for t in r.certificate["trees"]] == [27, 27, 27]
    assert kernel.check(json.loads(r.to_json())) == ("group-isolation-tree: M - 2C = 1/100: 3 group trees, 81 leaves, "
                                                     "average/first on [-C, C]^12")


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
