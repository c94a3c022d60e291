"""The NTK speed-ups: ball Cholesky with Arb's sums (verify.arith.ball.ball_cholesky_dot, the one the NTK
check uses) and blocked (verify.arith.ball.ball_cholesky_blocked), the Gram's shared
exponentials (verify.decide.ntk_gram), the ladder's predicted first rung (verify.decide.ntk.predicted_start),
and the null basis of a refuted Gram whose kernel has dimension 2."""

import json
import random
from fractions import Fraction as F

import pytest
from flint import arb, arb_mat

from verify import kernel
from verify.arith.ball import ball_cholesky, ball_cholesky_blocked, ball_cholesky_dot, to_ball, workprec
from verify.decide.ntk import predicted_start, ntk_positive_definite
from verify.decide.ntk_gram import ntk_gram
from verify.laws import Discrete, Gaussian
from verify.results import Verdict


def _spd(n, seed, shift=F(1, 100)):
    rng = random.Random(seed)
    B = arb_mat(n, n, [arb(rng.randint(-9, 9)) / 7 for _ in range(n * n)])
    return B * B.transpose() + arb_mat(n, n, [to_ball(shift) if i == j else 0 for i in range(n) for j in range(n)])


@pytest.mark.parametrize("n,block", [(1, 1), (7, 3), (24, 5), (40, 32)])
def test_blocked_agrees_with_the_textbook_cholesky(n, block):
    with workprec(128):
        M = _spd(n, seed=n)
        a = ball_cholesky([[M[i, j] for j in range(n)] for i in range(n)])
        b = ball_cholesky_blocked(M, block=block)
        assert a.positive_definite and b.positive_definite and len(b.pivots) == n
        assert all(x.overlaps(y) for x, y in zip(a.pivots, b.pivots))


def test_blocked_never_certifies_a_matrix_that_is_not_pd():
    with workprec(128):
        # singular (rank n - 2): undecided at the first vanishing pivot, like the textbook version
        rng = random.Random(3)
        C = arb_mat(12, 10, [arb(rng.randint(-5, 5)) for _ in range(120)])
        S = C * C.transpose()
        a = ball_cholesky([[S[i, j] for j in range(12)] for i in range(12)])
        b = ball_cholesky_blocked(S, block=4)
        assert a.positive_definite is None and b.positive_definite is None and b.failed_at == a.failed_at == 10
        # indefinite: a negative pivot inside a later block
        M = _spd(9, seed=1)
        M[7, 7] = arb(-50)
        r = ball_cholesky_blocked(M, block=3)
        assert r.positive_definite is None and r.failed_at == 7
        # a ball that contains a singular matrix is not certified, however narrow its other entries
        P = arb_mat([[1, 1], [1, 1]])
        P[1, 1] = arb(1, 1e-30)
        assert ball_cholesky_blocked(P, block=1).positive_definite is None
        # only the lower triangle is read: a forged upper triangle changes nothing
        M = _spd(6, seed=2)
        forged = arb_mat(M)
        for i in range(6):
            for j in range(i + 1, 6):
                forged[i, j] = arb(1000)
        assert ball_cholesky_blocked(forged, block=2).pivots[-1].overlaps(ball_cholesky_blocked(M, block=2).pivots[-1])
    with pytest.raises(ValueError):
        ball_cholesky_blocked(arb_mat(2, 3))
    with pytest.raises(ValueError):
        ball_cholesky_blocked(arb_mat(2, 2), block=0)


def test_shared_exponentials_enclose_the_same_gram():
    # lattice atoms (shared powers) and atoms off any small lattice (one exp each) give overlapping Grams
    on = [Discrete([[0, 1], [F(1, 2), -1], [1, F(3, 4)]]), Discrete([[F(-1, 4), 0], [1, 1]])]
    off = [Discrete([[0, 1], [F(1, 2), -1], [1, F(3, 4)]]), Discrete([[F(-1, 4), 0], [1, F(1, 997)]])]
    q = [[1, F(1, 2)], [F(-3, 10), 1]]
    with workprec(128):
        g1 = ntk_gram(on, q, heads=6, seed=1, precision=128)
        g2 = ntk_gram(on[:1] + [Discrete([[F(-1, 4), 0], [1, 1]])], q, heads=6, seed=1, precision=128)
        g3 = ntk_gram(off, q, heads=6, seed=1, precision=128)
    for r in range(4):
        for c in range(4):
            assert g1.matrix[r, c].overlaps(g2.matrix[r, c])
            assert g1.matrix[r, c].rad() < 1e-30
    assert g3.matrix[0, 0].overlaps(g1.matrix[0, 0]) and not g3.matrix[3, 3].overlaps(g1.matrix[3, 3])


def test_predicted_start():
    ladder = (64, 128, 256, 512)
    assert predicted_start({"size": 100, "ratio": 1e-30, "undecided": False, "naive_rule": "PD"}, ladder) == 2
    assert predicted_start({"size": 10, "ratio": 0.5, "undecided": False, "naive_rule": "PD"}, ladder) == 0
    assert predicted_start({"size": 10, "ratio": 1e-300, "undecided": False, "naive_rule": "PD"}, ladder) == 3
    for bad in ({"size": 10, "ratio": -1e-17, "undecided": True, "naive_rule": "not PD"},
                {"unavailable": "overflow"}, {"size": 10, "ratio": float("nan"), "undecided": True}):
        assert predicted_start(bad, ladder) == 0


def test_a_predicted_start_still_proves_and_the_kernel_accepts():
    laws = [Discrete([[0, 0], [1, 0], [0, 1]]), Discrete([[0, 0], [2, 1], [1, 3]])]
    q = [[1, F(1, 2)], [F(-3, 10), 1]]
    r = ntk_positive_definite(laws, q, heads=8, seed=0, ladder=(16, 24, 200), spectrum=False)
    assert r.verdict is Verdict.PROVED and r.evidence["ladder_attempts"][0]["precision_bits"] > 16
    assert "float64 predicts" in r.evidence["ladder_start"]
    assert kernel.check(json.loads(r.to_json())).startswith("ntk-cholesky")


def test_two_dimensional_null_spaces_are_reported_as_a_basis():
    # collinear queries in d = 1: Lambda_{i+1}(t) = Lambda_i(2t) for three dilations gives two null vectors
    mu = Discrete([[0], [1]])
    r = ntk_positive_definite([mu, mu.dilated(2), mu.dilated(4)], [[1], [2]], heads=8, seed=0,
                              ladder=(200, 400))
    assert r.verdict is Verdict.REFUTED
    assert r.certificate["null_space"] == [["0", "1", "-1/2", "0", "0", "0"], ["0", "0", "0", "1", "-1/2", "0"]]
    assert "null space of dimension 2" in kernel.check(json.loads(r.to_json()))
    # a Gaussian relation with alpha = 0 (d = 1, m = 1): Lambda_1 - 2 Lambda_2 + Lambda_3 = 0 and more
    laws = [Gaussian([[1]]), Gaussian([[2]]), Gaussian([[3]])]
    r = ntk_positive_definite(laws, [[1]], heads=8, seed=0, ladder=(200, 400))
    assert r.verdict is Verdict.REFUTED and len(r.certificate["null_space"]) == 2
    assert "null space of dimension 2" in kernel.check(json.loads(r.to_json()))


@pytest.mark.parametrize("n", [1, 2, 9, 30])
def test_dot_cholesky_agrees_with_the_textbook_one(n):
    with workprec(128):
        M = _spd(n, seed=n + 100)
        rows = [[M[i, j] for j in range(n)] for i in range(n)]
        a, b = ball_cholesky(rows), ball_cholesky_dot(M)
        assert a.positive_definite and b.positive_definite and ball_cholesky_dot(rows).positive_definite
        assert all(x.overlaps(y) and y.rad() <= 4 * x.rad() for x, y in zip(a.pivots, b.pivots))


def test_dot_cholesky_never_certifies_a_matrix_that_is_not_pd():
    with workprec(128):
        rng = random.Random(5)
        C = arb_mat(10, 8, [arb(rng.randint(-5, 5)) for _ in range(80)])
        S = C * C.transpose()                                   # rank 8
        r = ball_cholesky_dot(S)
        assert r.positive_definite is None and r.failed_at == 8
        M = _spd(7, seed=4)
        M[5, 5] = arb(-50)                                      # indefinite
        assert ball_cholesky_dot(M).failed_at == 5
        P = arb_mat([[1, 1], [1, 1]])
        P[1, 1] = arb(1, 1e-30)                                 # the ball contains a singular matrix
        assert ball_cholesky_dot(P).positive_definite is None
        M = _spd(5, seed=6)
        forged = arb_mat(M)
        for i in range(5):
            for j in range(i + 1, 5):
                forged[i, j] = arb(-1000)                       # only the lower triangle is read
        assert ball_cholesky_dot(forged).pivots[-1].overlaps(ball_cholesky_dot(M).pivots[-1])
    with pytest.raises(ValueError):
        ball_cholesky_dot(arb_mat(3, 2))


def test_gradient_memo_returns_the_same_balls_and_keeps_the_domain_error():
    """The memo of gradients (law, theta, precision): a repeat gives the same balls, another precision its own
    balls, and a point outside the domain still raises (it is never stored)."""
    from verify.decide import ntk_gram as NG
    from verify.errors import DomainError
    from verify.laws import SymmetricLaplace

    law = Gaussian([[2, F(1, 2)], [F(1, 2), 1]])
    theta = (F(1, 3), F(-2, 7))
    NG._GRADIENTS.clear()
    with workprec(128):
        a = NG._gradient_ball(law, theta, 0)
        b = NG._gradient_ball(Gaussian([[2, F(1, 2)], [F(1, 2), 1]]), list(theta), 0)   # an equal law
    with workprec(256):
        c = NG._gradient_ball(law, theta, 0)
    assert [x.mid() == y.mid() and x.rad() == y.rad() for x, y in zip(a, b)] == [True, True]
    assert len(NG._GRADIENTS) == 2 and c[0].rad() < a[0].rad()
    lap = SymmetricLaplace([[1, 0], [0, 1]])
    for _ in range(2):
        with pytest.raises(DomainError):
            NG._gradient_ball(lap, (F(3), F(3)), 1)
    assert len(NG._GRADIENTS) == 2
