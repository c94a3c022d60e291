"""The case-split engine's fork into the first child, the attention work shared between decision nodes
(``shared_cache``) and the mpq point checks: each changes no leaf, output, node count or verdict."""

from fractions import Fraction as F

import pytest

import verify.checks.t1_hardmax_max as t1
from verify.decide import casesplit as C
from verify.decide.casesplit import MPQ_TOKENS, DecisionTree, LinearForm, explore_decisions, shared_memo
from verify.objects.transformer import Attention, FeedForward, Head, Transformer


def _restart(n, run, max_nodes=C.MAX_NODES):
    """The reference explorer: every node restarts the run (no fork, no memo)."""
    stack, leaves, nodes = [()], [], 0
    while stack:
        facts = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            return None, nodes
        ops = DecisionTree(n, facts)
        try:
            out = run(ops)
        except C.Undecided as u:
            stack.extend(facts + ((u.a, u.b, s),) for s in (-1, 0, 1))
            continue
        leaves.append((ops, out))
    return leaves, nodes


def _scan_max(n):
    def run(ops):
        z = [LinearForm.var(a) for a in range(n)]
        m = z[0]
        for a in range(1, n):
            m = m + ops.relu(z[a] - m)
        return ((m,),)
    return run


def _head_run(T, n, tie):
    one, zero = LinearForm(None, 1), LinearForm()
    X = (tuple(LinearForm.var(a) for a in range(n)), (one,) * n, (zero,) * n)
    return lambda ops: T.evaluate(X, tie=tie, ops=ops)


def _summary(result):
    leaves, nodes = result
    if leaves is None:
        return None, nodes
    return [tuple(o.facts) for o, _ in leaves], [tuple(f.key() for row in Y for f in row) for _, Y in leaves], nodes


two_heads = Transformer([Attention([Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]]),
                                    Head([[0, 1, 0]], [[-1, 0, 0]], [[1, 0, 0]], [[0], [0], [F(1, 2)]])]),
                         FeedForward([[0, 1, 0]], [0], [[0], [0], [-1]])], coordinate_names=["z", "one", "out"])


@pytest.mark.parametrize("make", [lambda n: _scan_max(n), lambda n: _head_run(t1.max_head_transformer(), n, "average"),
                                  lambda n: _head_run(t1.max_head_transformer(), n, "first"),
                                  lambda n: _head_run(two_heads, n, "average")])
def test_fork_and_shared_work_match_restarting_every_node(make):
    for n in (1, 3, 4):
        assert _summary(explore_decisions(n, make(n))) == _summary(_restart(n, make(n)))
    # the node budget stops both at the same count
    assert _summary(explore_decisions(4, make(4), max_nodes=5)) == _summary(_restart(4, make(4), max_nodes=5)) \
        == (None, 6)


def test_shared_cache_still_refuses_products_of_token_values():
    # negative: a query reading z makes every score a product of two symbols; with the shared cache the
    # plain path repeats the work and raises as before (never a cached answer)
    T = Transformer([Attention([Head([[1, 0, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])],
                    coordinate_names=["z", "one", "out"])
    with shared_memo():
        for _ in range(2):
            with pytest.raises(C.UnsupportedDecision):
                _head_run(T, 3, "average")(DecisionTree(3))
    assert t1.check_hardmax_max(n_max=3, grid_step=13, random_cases=0, transformer=T).verdict.value == "inconclusive"


def test_a_fact_added_during_a_run_keeps_earlier_answers():
    seen = []
    ops = DecisionTree(3, on_undecided=lambda o, a, b: seen.append((a, b)) or True)
    z = [LinearForm.var(a) for a in range(3)]
    assert ops.sign(z[0] - z[1]) == 1 and ops.sign(z[1] - z[2]) == 1 and ops.sign(z[0] - z[2]) == 1
    assert seen == [(0, 1), (1, 2)] and ops.facts == [(0, 1, 1), (1, 2, 1)]      # the last one is implied
    assert ops.classes() == [[0], [1], [2]] and ops.witness() == [3, 2, 1]
    with pytest.raises(C.Undecided):                      # without a callback: raised as before
        DecisionTree(3).sign(z[0] - z[1])


def test_mpq_point_checks_and_their_argmax_reuse():
    q = MPQ_TOKENS.convert
    assert MPQ_TOKENS.argmax_set([q(1), q(3), q(3)]) == [1, 2]
    assert MPQ_TOKENS.argmax_set([q(1), q(3), q(3)]) == [1, 2]          # equal values: the same answer
    assert MPQ_TOKENS.argmax_set([q(3), q(1), q(3)]) == [0, 2]          # other values: decided again
    assert q(F(-2, 6)) == F(-1, 3) and q(2) == 2
    T = t1.max_head_transformer()
    assert t1._check_point(T, [F(1, 3), F(2), F(2)], "average")[0]
    broken = Transformer([Attention([Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [2]])])],
                         coordinate_names=["z", "one", "out"])
    ok, Y = t1._check_point(broken, [F(1, 3), F(2), F(2)], "first")
    assert not ok and list(Y[2]) == [4, 4, 4]                            # negative: 2 max z is caught
