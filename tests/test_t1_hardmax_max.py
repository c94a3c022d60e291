"""T1 check: the decision-tree proof, and that broken heads are never PROVED."""

from fractions import Fraction as F

import pytest

import verify.checks.t1_hardmax_max as t1
from verify.errors import InputError
from verify.objects.transformer import Attention, Head, Transformer


def test_decision_tree_counts_and_witnesses():
    r = t1.check_hardmax_max(n_max=4, grid_step=3, random_cases=6)
    assert r.proved
    # argmax_set branches 3 ways per comparison: 3^(n-1) leaves
    assert [r.certificate["symbolic"][str(n)]["leaves"]["first"] for n in range(1, 5)] == [1, 3, 9, 27]
    assert r.certificate["random_with_repeated_maximum"] >= 3


def test_linear_form_arithmetic():
    z = [t1.LinearForm.var(i) for i in range(3)]
    f = z[0] * F(1, 2) + z[1] - z[0] * F(1, 2) + 1
    assert f.key() == (((1, F(1)),), F(1))
    with pytest.raises(TypeError):
        z[0] * z[1]


@pytest.mark.parametrize("head", [
    Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [2]]),        # writes 2 max
    Head([[0, 1, 0]], [[-1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]]),       # key = -z: computes min
    Head([[0, 1, 0]], [[1, 0, 0]], [[1, 1, 0]], [[0], [0], [1]]),        # value = z + 1
])
def test_broken_heads_never_proved(monkeypatch, head):
    broken = Transformer([Attention([head])], coordinate_names=["z", "one", "out"])
    monkeypatch.setattr(t1, "max_head_transformer", lambda: broken)
    r = t1.check_hardmax_max(n_max=3, grid_step=6, random_cases=4)
    assert r.verdict.value == "refuted"
    z = r.certificate["witness"]
    assert len(z) >= 1


def test_tie_rule_matters_and_bad_input():
    r = t1.check_tie_rule_independence([1, 1], [0, 2])
    assert r.refuted and r.certificate["outputs"]["average"] == (F(1), F(1))
    assert t1.check_tie_rule_independence([1, 2], [0, 2]).proved
    with pytest.raises(InputError, match="^n_max"):
        t1.check_hardmax_max(n_max=9)
    with pytest.raises(InputError, match="^ties"):
        t1.check_hardmax_max(n_max=2, ties=["last"])
    with pytest.raises(InputError, match="^scores"):
        t1.check_tie_rule_independence([1], [0, 2])


def test_undecidable_comparisons_give_inconclusive(monkeypatch):
    # the key mixes z and the constant: comparisons are no longer pairwise -> the case analysis stops
    head = Head([[0, 1, 0]], [[1, 1, 0]], [[1, 0, 0]], [[0], [0], [1]])
    T = Transformer([Attention([head]), Attention([Head([[1, 0, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])],
                    coordinate_names=["z", "one", "out"])
    monkeypatch.setattr(t1, "max_head_transformer", lambda: T)
    r = t1.check_hardmax_max(n_max=2, grid_step=13, random_cases=0)
    assert not r.proved
