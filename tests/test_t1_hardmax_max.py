"""T1 check: the decision-tree proof, and that broken heads are never PROVED."""

from fractions import Fraction as F

import pytest

import json

import verify.checks.t1_hardmax_max as t1
from verify import kernel
from verify.decide.casesplit import LinearForm
from verify.errors import InputError
from verify.objects.transformer import Attention, Head, Transformer


def _kernel(r):
    return kernel.check(json.loads(r.to_json()))


def test_decision_tree_counts_and_witnesses():
    r = t1.check_hardmax_max(n_max=4, grid_step=3, random_cases=6)
    assert r.proved and r.certificate["kind"] == "hardmax-max-tree"
    # argmax_set branches 3 ways per comparison: 3^(n-1) leaves
    assert [tree.count([]) for tree in r.certificate["trees"]] == [1, 3, 9, 27]
    assert r.evidence["random_with_repeated_maximum"] >= 3
    assert _kernel(r) == "hardmax-max-tree: n = 1..4, 40 leaves, average/first: out = max z at every leaf"


def test_statement_says_the_n_range():
    # issue 11: "for all z in Q^n" while n <= 8 is proved; the statement now says the range and the rules
    r = t1.check_hardmax_max(n_min=2, n_max=3, ties=["first"], grid_step=13, random_cases=0)
    assert "for n = 2..3 and every z in Q^n, under the tie rule(s) first [instance sha256:" in r.statement
    assert "for all z" not in r.statement
    full = t1.check_hardmax_max(n_max=2, grid_step=13, random_cases=0)
    assert "for n = 1..2 and every z in Q^n, under the tie rule(s) average and first" in full.statement
    assert _kernel(r).startswith("hardmax-max-tree: n = 2..3, 12 leaves, first")


def test_linear_form_arithmetic():
    z = [LinearForm.var(i) for i in range(3)]
    f = z[0] * F(1, 2) + z[1] - z[0] * F(1, 2) + 1
    assert f.key() == (((1, F(1)),), F(1))
    with pytest.raises(TypeError):
        z[0] * z[1]


@pytest.mark.parametrize("head", [
    Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [2]]),        # writes 2 max
    Head([[0, 1, 0]], [[-1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]]),       # key = -z: computes min
    Head([[0, 1, 0]], [[1, 0, 0]], [[1, 1, 0]], [[0], [0], [1]]),        # value = z + 1
])
def test_broken_heads_never_proved(head):
    broken = Transformer([Attention([head])], coordinate_names=["z", "one", "out"])
    r = t1.check_hardmax_max(n_max=3, grid_step=6, random_cases=4, transformer=broken)
    assert r.verdict.value == "refuted" and r.certificate["kind"] == "hardmax-max-witness"
    assert len(r.certificate["z"]) >= 1 and "The hardmax head (W_Q, W_K, W_V, W_O) = " in r.statement
    assert _kernel(r).startswith("hardmax-max-witness: n = ")


def test_tie_rule_matters_and_bad_input():
    r = t1.check_tie_rule_independence([1, 1], [0, 2])
    assert r.refuted and r.evidence["outputs"]["average"] == (F(1), F(1))
    assert _kernel(r) == "tie-rule-differ: average gives 1, first gives 0 at token 1"
    ok = t1.check_tie_rule_independence([1, 2], [0, 2])
    assert ok.proved and _kernel(ok) == "tie-rule-agree: average and first both give ['2', '2']"
    with pytest.raises(InputError, match="^n_max"):
        t1.check_hardmax_max(n_max=9)
    with pytest.raises(InputError, match="^ties"):
        t1.check_hardmax_max(n_max=2, ties=["last"])
    with pytest.raises(InputError, match="^scores"):
        t1.check_tie_rule_independence([1], [0, 2])


def test_undecidable_comparisons_give_inconclusive():
    # the key mixes z and the constant: comparisons are no longer pairwise -> the case analysis stops
    head = Head([[0, 1, 0]], [[1, 1, 0]], [[1, 0, 0]], [[0], [0], [1]])
    T = Transformer([Attention([head]), Attention([Head([[1, 0, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])],
                    coordinate_names=["z", "one", "out"])
    r = t1.check_hardmax_max(n_max=2, grid_step=13, random_cases=0, transformer=T)
    assert not r.proved
