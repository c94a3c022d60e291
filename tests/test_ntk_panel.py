"""The NTK ladder's panel Cholesky (verify.arith.ball.ball_cholesky_panel) and the Gram built slab by slab
(verify.decide.ntk_gram.GramFeatures.column_block, verify.decide.ntk.ladder_cholesky): the same balls as
before where one panel covers the matrix, enclosures that overlap them otherwise, and no certificate for a
matrix that is not PD."""

import random
from fractions import Fraction as F

import pytest
from flint import arb, arb_mat

import verify.decide.ntk_gram as NG
from verify.arith.ball import ball_cholesky_dot, ball_cholesky_panel, lower_column_blocks, to_ball, workprec
from verify.decide.ntk import ladder_cholesky
from verify.decide.ntk_gram import ntk_gram, ntk_gram_features
from verify.laws import Discrete


def _spd(n, seed, shift=F(1, 100)):
    rng = random.Random(seed)
    B = arb_mat(n, n, [arb(rng.randint(-9, 9)) / 7 for _ in range(n * n)])
    return B * B.transpose() + arb_mat(n, n, [to_ball(shift) if i == j else 0 for i in range(n) for j in range(n)])


def _same(x, y):
    return x.mid() == y.mid() and x.rad() == y.rad()


def test_one_panel_is_the_dot_version_bit_for_bit_and_panels_overlap_it():
    with workprec(128):
        M = _spd(20, seed=4)
        a = ball_cholesky_dot(M)
        b = ball_cholesky_panel(*lower_column_blocks(M), panel=20)
        assert a.positive_definite and b.positive_definite and all(_same(x, y) for x, y in zip(a.pivots, b.pivots))
        for panel in (1, 3, 7, 19):
            c = ball_cholesky_panel(*lower_column_blocks(M), panel=panel)
            assert c.positive_definite and len(c.pivots) == 20
            assert all(x.overlaps(y) for x, y in zip(a.pivots, c.pivots))


def test_panel_never_certifies_a_matrix_that_is_not_pd():
    with workprec(128):
        rng = random.Random(3)
        C = arb_mat(12, 10, [arb(rng.randint(-5, 5)) for _ in range(120)])
        S = C * C.transpose()                     # rank 10: undecided at pivot 10, as the dot version
        r = ball_cholesky_panel(*lower_column_blocks(S), panel=4)
        assert r.positive_definite is None and r.failed_at == ball_cholesky_dot(S).failed_at == 10
        M = _spd(9, seed=1)
        M[7, 7] = arb(-50)                         # indefinite: a negative pivot in the third panel
        assert ball_cholesky_panel(*lower_column_blocks(M), panel=3).failed_at == 7
        P = arb_mat([[1, 1], [1, 1]])
        P[1, 1] = arb(1, 1e-30)                    # the ball contains a singular matrix
        assert ball_cholesky_panel(*lower_column_blocks(P), panel=1).positive_definite is None
        M = _spd(6, seed=2)
        forged = arb_mat(M)                        # only the lower triangle is read
        for i in range(6):
            for j in range(i + 1, 6):
                forged[i, j] = arb(1000)
        assert _same(ball_cholesky_panel(*lower_column_blocks(forged), panel=2).pivots[-1],
                     ball_cholesky_panel(*lower_column_blocks(M), panel=2).pivots[-1])
    with pytest.raises(ValueError):
        ball_cholesky_panel(*lower_column_blocks(arb_mat(2, 2)), panel=0)
    with pytest.raises(ValueError):
        lower_column_blocks(arb_mat(2, 3))


def test_panels_past_the_failing_pivot_are_never_built():
    with workprec(128):
        M = _spd(12, seed=5)
        M[4, 4] = arb(-1)
        n, block = lower_column_blocks(M)
        asked = []

        def spy(j0, j1):
            asked.append((j0, j1))
            return block(j0, j1)

        assert ball_cholesky_panel(n, spy, panel=3).failed_at == 4
        assert asked == [(0, 3), (3, 6)]


LAWS = [Discrete([[0, 1], [F(1, 2), -1], [1, F(3, 4)]]), Discrete([[F(-1, 4), 0], [1, 1]]),
        Discrete([[0, 0], [F(1, 2), F(1, 2)], [-1, F(1, 4)]]), Discrete([[1, 0], [0, -1], [F(3, 8), F(5, 8)]])]
Q = [[1, F(1, 2)], [F(-3, 10), 1]]


def test_gram_slabs_are_the_gram_and_the_ladder_decides_as_before(monkeypatch):
    feats = ntk_gram_features(LAWS, Q, heads=12, seed=2, scale=F(1, 4), precision=128)
    K = feats.gram().matrix
    n = feats.size
    assert K.nrows() == n == 8
    # one slab: the lower triangle of the Gram, bit for bit
    C = feats.column_block(0, n)
    assert all(_same(C[j, i], K[i, j]) for j in range(n) for i in range(j, n))
    assert all(_same(a, b) for a, b in zip(ntk_gram(LAWS, Q, heads=12, seed=2, scale=F(1, 4), precision=128)
                                           .matrix.entries(), K.entries()))
    # several slabs (and a panel across a slab boundary): enclosures of the same entries
    monkeypatch.setattr(NG, "GRAM_SLAB", 3)
    small = ntk_gram_features(LAWS, Q, heads=12, seed=2, scale=F(1, 4), precision=128)
    for j0, j1 in ((0, 2), (2, 3), (3, 6), (5, 8)):
        B = small.column_block(j0, j1)
        assert B.nrows() == j1 - j0 and B.ncols() == n - j0
        assert all(B[j - j0, i - j0].overlaps(K[i, j]) for j in range(j0, j1) for i in range(j, n))
    with workprec(128):
        a = ball_cholesky_dot(K)
        b = ball_cholesky_panel(n, small.column_block, panel=3)
    assert a.positive_definite == b.positive_definite
    monkeypatch.undo()
    # the ladder: same outcome as the Gram + dot Cholesky of each rung; a head set too small never certifies
    _, chol, attempts = ladder_cholesky(LAWS, Q, (64, 128), heads=12, seed=2, scale=F(1, 4))
    with workprec(attempts[-1]["precision_bits"]):
        ref = ball_cholesky_dot(ntk_gram(LAWS, Q, heads=12, seed=2, scale=F(1, 4),
                                         precision=attempts[-1]["precision_bits"]).matrix)
    assert chol.positive_definite == ref.positive_definite and all(_same(x, y) for x, y in zip(chol.pivots, ref.pivots))
    _, chol, attempts = ladder_cholesky(LAWS, Q, (64, 128), head_set=[[[0, 0], [0, 0]]])
    assert chol.positive_definite is None and [a["positive_definite"] for a in attempts] == [False, False]


def test_rung_skipping_is_a_choice_of_rungs_only(monkeypatch):
    import verify.decide.ntk as N

    assert N.predicted_bits(64, 38, 400) == 64 * 400 / 38
    assert N.predicted_bits(64, 31, 400) is None and N.predicted_bits(64, None, 400) is None
    assert N.predicted_bits(64, 400, 400) is None
    # a head set too small for a PD Gram (rank <= 2 < 8): every rung fails at pivot 2; with the threshold
    # lowered the growth predicts 64 * 8 / 2 = 256 bits, so 100 is skipped, the top rung never is, and
    # nothing is certified
    monkeypatch.setattr(N, "SKIP_MIN_PIVOTS", 1)
    _, chol, attempts = N.ladder_cholesky(LAWS, Q, (64, 100, 512), head_set=[[[1, 0], [0, 1]]])
    assert chol.positive_definite is None
    assert [a["precision_bits"] for a in attempts] == [64, 512]
    assert attempts[0]["skipped_after"] == {"rungs": [100], "predicted_bits": 256}
    assert all(a["failed_at_pivot"] == 2 for a in attempts)
