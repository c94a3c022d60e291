"""PD by a residual bound (verify.arith.ball.certify_pd_residual, the NTK ladder's decision above 64 rows,
docs/ntk.md): certifies well-conditioned and ill-conditioned SPD matrices, never a matrix that is not PD
(singular, indefinite, a ball containing a singular matrix), reads only the lower triangle, and the ladder
that uses it decides the bench Gram as the interval Cholesky does."""

import random
from fractions import Fraction as F

import pytest
from flint import arb, arb_mat

from verify.arith.ball import approximate_cholesky, ball_cholesky_dot, certify_pd_residual, to_ball, workprec
from verify.decide.ntk import RESIDUAL_MIN_SIZE, ladder_cholesky, predicted_start
from verify.laws.oracle_families import grid_laws


def _spd(n, seed, shift=F(1, 100)):
    rng = random.Random(seed)
    B = arb_mat(n, n, [arb(rng.randint(-9, 9)) / 7 for _ in range(n * n)])
    return B * B.transpose() + arb_mat(n, n, [to_ball(shift) if i == j else 0 for i in range(n) for j in range(n)])


@pytest.mark.parametrize("n", [1, 5, 40, 90])
def test_certifies_spd_matrices_with_the_blocked_and_the_scalar_factor(n):
    with workprec(128):
        M = _spd(n, seed=n)
        r = certify_pd_residual(M)
        assert r.positive_definite is True and r.failed_at is None and 0 <= r.residual < r.shift
        assert len(r.pivots) == n
        L, piv, failed = approximate_cholesky(M, block=16, leaf=4)
        assert failed is None and all(L[i, j] == 0 for i in range(n) for j in range(i + 1, n))


def test_ill_conditioned_needs_fewer_bits_than_the_interval_cholesky():
    # Hilbert matrix of order 24: condition number ~ 1e34; the residual bound decides at 192 bits, where the
    # interval Cholesky (radii growing down the factorisation) does not
    n = 24
    with workprec(192):
        Hm = arb_mat(n, n, [arb(1) / (i + j + 1) for i in range(n) for j in range(n)])
        assert certify_pd_residual(Hm).positive_definite is True
        assert ball_cholesky_dot(Hm).positive_definite is None
    with workprec(64):
        r = certify_pd_residual(Hm)
        assert r.positive_definite is None and r.failed_at is not None


def test_never_certifies_a_matrix_that_is_not_pd():
    with workprec(128):
        rng = random.Random(3)
        C = arb_mat(12, 10, [arb(rng.randint(-5, 5)) for _ in range(120)])
        S = C * C.transpose()                       # singular, rank 10
        assert certify_pd_residual(S).positive_definite is None
        M = _spd(9, seed=1)
        M[7, 7] = arb(-50)                          # indefinite
        assert certify_pd_residual(M).positive_definite is None
        P = arb_mat([[1, 1], [1, 1]])               # a ball containing the singular [[1, 1], [1, 1]]
        P[1, 1] = arb(1, 1e-30)
        assert certify_pd_residual(P).positive_definite is None
        # PD midpoints, but radii wide enough to hold a singular matrix: the bound must fail
        W = _spd(6, seed=4, shift=F(1, 10**6))
        wide = arb_mat(6, 6, [arb(W[i, j].mid(), 1e-3) for i in range(6) for j in range(6)])
        assert certify_pd_residual(wide).positive_definite is None
        assert certify_pd_residual(arb_mat(3, 3)).positive_definite is None          # zero matrix
        with pytest.raises(ValueError):
            certify_pd_residual(arb_mat(2, 3))


def test_only_the_lower_triangle_is_read():
    with workprec(128):
        M = _spd(8, seed=2)
        forged = arb_mat(M)
        for i in range(8):
            for j in range(i + 1, 8):
                forged[i, j] = arb(1000)
        a, b = certify_pd_residual(M), certify_pd_residual(forged)
        assert a.positive_definite and b.positive_definite and a.residual == b.residual
        bad = arb_mat(M)
        bad[5, 2] = arb(1000)                        # a forged lower entry breaks positive-definiteness
        assert certify_pd_residual(bad).positive_definite is None


def _family(n_laws, seed=2026):
    return grid_laws(n_laws, seed=seed)


def test_the_ladder_above_64_rows_uses_the_residual_bound():

    laws, q = _family(33), [[1, F(1, 2)], [F(-3, 10), 1]]
    assert 2 * len(laws) > RESIDUAL_MIN_SIZE
    _, out, attempts = ladder_cholesky(laws, q, (128, 256), heads=40, seed=0, scale=F(1, 4))
    assert out.positive_definite is True and [a["method"] for a in attempts] == ["residual"]
    # too few heads for a PD Gram (rank <= 2 H = 16 < 68): never certified, whatever the rung
    _, out, attempts = ladder_cholesky(laws, q, (64,), heads=8, seed=0, scale=F(1, 4))
    assert out.positive_definite is None and attempts[0]["failed_at_pivot"] <= 16
    # the shifted float64 Cholesky only chooses the first rung, above 64 rows only
    f64 = {"size": 100, "ratio": -1e-17, "undecided": True, "naive_rule": "not PD", "shifted_cholesky_pivots": 50}
    assert predicted_start(f64, (64, 128, 256)) == 0 and predicted_start({**f64, "shifted_cholesky_pivots": 40},
                                                                        (64, 128, 256)) == 1
    assert predicted_start({**f64, "size": 60, "shifted_cholesky_pivots": 32}, (64, 128)) == 0


def test_lower_product_encloses_the_gram(monkeypatch):
    import verify.decide.ntk_gram as NG

    laws, q = _family(5), [[1, F(1, 2)], [F(-3, 10), 1]]
    monkeypatch.setattr(NG, "GRAM_SLAB", 3)
    feats = NG.ntk_gram_features(laws, q, heads=6, seed=1, scale=F(1, 4), precision=128)
    K, Lw = feats.gram().matrix, feats.lower_product()
    n = feats.size
    assert all(Lw[i, j].overlaps(K[i, j]) for i in range(n) for j in range(i + 1))
    assert all(Lw[i, j] == 0 for i in range(n) for j in range(i + 1, n))


def _rank_one_update(n, eps):
    """I - (1 + eps) u u^T / |u|^2 for an integer vector u: eigenvalue -eps along u, 1 elsewhere (exact)."""
    u = [F((-1) ** i * (i % 7 + 1)) for i in range(n)]
    uu = sum(x * x for x in u)
    return arb_mat(n, n, [to_ball((1 if i == j else 0) - (1 + eps) * u[i] * u[j] / uu)
                          for i in range(n) for j in range(n)])


def test_integer_factor_separates_a_tiny_negative_from_a_tiny_positive_eigenvalue():
    # 70 rows (above the panel width 32, several panels): lambda_min = +-2^-150; at 256 bits the shift
    # c ~ 8 n^2 2^-256 is far below 2^-150, so PD is certified, and the indefinite twin never is
    n = 70
    with workprec(256):
        pd, neg, sing = (_rank_one_update(n, e) for e in (F(-1, 2 ** 150), F(1, 2 ** 150), F(0)))
        r = certify_pd_residual(pd)
        assert r.positive_definite is True and r.residual < r.shift < F(1, 2 ** 150)
        for block in (9, 32):
            assert certify_pd_residual(neg, block).positive_definite is None
            assert certify_pd_residual(sing, block).positive_definite is None
    with workprec(128):        # too few bits for a condition number of 2^150: undecided, never "PD"
        assert certify_pd_residual(pd).positive_definite is None


def test_residual_ladder_adds_rungs_between_doublings_only():
    from verify.decide.ntk import residual_ladder

    assert residual_ladder((64, 128, 256, 512)) == (64, 128, 192, 256, 384, 512)
    assert residual_ladder((200, 400, 800)) == (200, 320, 400, 640, 800)
    assert residual_ladder((200,)) == (200,) and residual_ladder((256, 300)) == (256, 300)
