"""The V-block NTK Gram (verify.decide.ntk_gram): entries, ordering, heads, limits, bad input."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from verify.decide.ntk_gram import (MAX_GRAM_SIZE, gaussian_heads, ntk_gram, ntk_gram_float64, oracle_head_set,
                                 query_lists)
from verify.arith.ball import ball_bounds, workprec
from verify.errors import DomainError, InputError, InputTypeError, SizeLimitError
from verify.laws import Discrete, Gaussian, SymmetricLaplace, UniformCube
from verify.laws.oracle_families import beta

Q94 = [[1, F(1, 2)], [F(-3, 10), 1]]


def _mp_grad(atoms, theta):
    e = [mpmath.e ** (theta[0] * x + theta[1] * y) for x, y in atoms]
    s = sum(e)
    return [sum(w * a[0] for w, a in zip(e, atoms)) / s, sum(w * a[1] for w, a in zip(e, atoms)) / s]


def test_entries_enclose_an_independent_mpmath_gram():
    b = beta()
    t = b.translated([F(1, 2), F(-1, 5)])
    g = ntk_gram([b, t], Q94, head_set=oracle_head_set(F(1, 2)), precision=200)
    assert g.size == 4 and g.index == ((0, 0), (0, 1), (1, 0), (1, 1))
    with mpmath.workdps(50):
        laws = [[(mpmath.mpf(x.numerator) / x.denominator, mpmath.mpf(y.numerator) / y.denominator)
                 for x, y in L.atoms] for L in (b, t)]
        K = mpmath.zeros(4, 4)
        heads = oracle_head_set(F(1, 2))
        for A in heads:
            Af = [[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in A]
            feats = []
            for atoms in laws:
                for q in Q94:
                    qf = [mpmath.mpf(F(x).numerator) / F(x).denominator for x in q]
                    th = [Af[0][0] * qf[0] + Af[0][1] * qf[1], Af[1][0] * qf[0] + Af[1][1] * qf[1]]
                    feats.append(_mp_grad(atoms, th))
            for i in range(4):
                for j in range(4):
                    K[i, j] += feats[i][0] * feats[j][0] + feats[i][1] * feats[j][1]
        K /= len(heads)
    with workprec(200):
        for i in range(4):
            for j in range(4):
                lo, hi = ball_bounds(g.matrix[i, j])
                ref = F(mpmath.nstr(K[i, j], 50))
                assert hi - lo < F(1, 10**50)
                assert lo - F(1, 10**45) <= ref <= hi + F(1, 10**45)


def test_gram_is_symmetric_and_float64_agrees():
    laws = [UniformCube(F(1, 2), [0, 0]), Gaussian([[2, 0], [0, 1]]), SymmetricLaplace([[1, 0], [0, 1]])]
    g = ntk_gram(laws, Q94, heads=6, seed=3, scale=F(1, 4), precision=128)
    n = g.size
    assert n == 6
    for r in range(n):
        for c in range(n):
            assert g.matrix[r, c].mid() == g.matrix[c, r].mid()
    M = ntk_gram_float64(laws, g.queries, g.heads)
    assert np.allclose(M, g.midpoints(), rtol=1e-12, atol=1e-14)
    assert np.array_equal(M, g.float64())


def test_gaussian_heads_are_exact_and_seeded():
    h1, info = gaussian_heads(5, 2, seed=11)
    h2, _ = gaussian_heads(5, 2, seed=11)
    h3, _ = gaussian_heads(5, 2, seed=12)
    assert h1 == h2 and h1 != h3
    assert info["seed"] == 11 and info["key_dim"] == 2 and "2^-20" in info["description"]
    for A in h1:
        for row in A:
            for x in row:
                assert isinstance(x, F) and (x * 2 * 2**40).denominator == 1  # K^T Q / k with dyadic Q, K
    _, info1 = gaussian_heads(2, 3, seed=0, key_dim=1)
    assert "rank <= 1" in info1["support"]


def test_oracle_head_set():
    hs = oracle_head_set(F(1, 4))
    assert len(hs) == 81 and ((0, 0), (0, 0)) in hs and len(set(hs)) == 81
    assert len(oracle_head_set(1, dim=1)) == 3


def test_per_token_queries_are_the_atoms():
    b = beta()
    ql = query_lists([b, b.translated([1, 0])], None, reading="per-token")
    assert ql[0] == b.atoms and len(ql[1]) == 3
    with pytest.raises(InputError, match="^dists\\[0\\]"):
        query_lists([Gaussian([[1]])], None, reading="per-token")


@pytest.mark.parametrize("kwargs, err, field", [
    ({"dists": []}, InputError, "dists"),
    ({"dists": [beta(), Gaussian([[1]])]}, InputError, "dists"),
    ({"dists": ["x"]}, InputTypeError, "dists[0]"),
    ({"queries": []}, InputError, "queries"),
    ({"queries": [[1, 2, 3]]}, InputError, "queries[0]"),
    ({"queries": [[0.5, 1]]}, InputTypeError, "queries[0][0]"),
    ({"heads": 0}, InputError, "heads"),
    ({"heads": 10**9}, InputError, "heads"),
    ({"heads": 4, "head_set": [[[0, 0], [0, 0]]]}, InputError, "heads"),
    ({"heads": None, "head_set": [[[0, 0]]]}, InputError, "head_set[0]"),
    ({"heads": None, "head_set": []}, InputError, "head_set"),
    ({"reading": "diagonal"}, InputError, "reading"),
    ({"law": "uniform"}, InputError, "law"),
    ({"precision": 8}, InputError, "precision"),
    ({"scale": -1}, InputError, "scale"),
])
def test_bad_input_names_the_field(kwargs, err, field):
    args = {"dists": [beta(), beta().dilated(2)], "queries": Q94, "heads": 4}
    args.update(kwargs)
    with pytest.raises(err) as exc:
        ntk_gram(**args)
    assert str(exc.value).startswith(field)


def test_size_limits_refused_up_front():
    laws = [Discrete([[k, 0], [0, k + 1]]) for k in range(1, 202)]
    with pytest.raises(SizeLimitError, match="^queries: Gram size N\\*m = 402"):
        ntk_gram(laws, Q94, heads=4)
    with pytest.raises(SizeLimitError, match="^heads"):
        ntk_gram(laws[:100], Q94, heads=4000)
    assert MAX_GRAM_SIZE == 400


def test_domain_error_for_laplace_outside_its_domain():
    with pytest.raises(DomainError, match="^heads"):
        ntk_gram([SymmetricLaplace([[1, 0], [0, 1]])], Q94, head_set=[[[10, 0], [0, 10]]])


def test_gaussian_heads_memo_returns_the_same_exact_heads_and_a_fresh_info():
    from verify.decide import ntk_gram as NG

    NG._HEADS_CACHE.clear()
    h1, i1 = NG.gaussian_heads(5, 2, seed=3, scale=F(1, 4))
    i1["seed"] = -1                                   # a caller mutating its info must not reach the memo
    h2, i2 = NG.gaussian_heads(5, 2, seed=3, scale=F(1, 4))
    assert h1 == h2 and i2["seed"] == 3 and len(NG._HEADS_CACHE) == 1
    assert NG.gaussian_heads(5, 2, seed=4, scale=F(1, 4))[0] != h1       # another seed: other heads
    assert NG.gaussian_heads(5, 2, seed=3, scale=F(1, 2))[0] != h1       # another scale: other heads
