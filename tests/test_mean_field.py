"""The mean-field model: particle model, multiprecision flow and adjoint, particle net gradients."""

from fractions import Fraction as F

import numpy as np
import pytest

from verify.decide.mean_field import (HPModel, ParticleNet, backend, gbs_integrate, mean_field_flow,
                                        particle_forward)
from verify.errors import InputError, SizeLimitError


def _net():
    beta = np.array([[0, 0], [1, .3], [-.4, 1.1]])
    w = np.full(3, 1 / 3)
    return ParticleNet([(beta, w), (1.5 * beta, w)], np.array([[1, .5], [-.3, 1]]))


def test_particle_net_gradient_matches_finite_differences():
    net = _net()
    rng = np.random.default_rng(1)
    A = rng.normal(0, .5, (2, 3, 2, 2))
    V = rng.normal(0, .5, (2, 3, 2, 2))
    T = rng.normal(size=(2, 2, 2))
    _, dA, dV = net.loss_and_grad(A, V, T)
    h = 1e-6
    for idx in [(0, 0, 0, 1), (1, 2, 1, 0)]:
        for M, G in ((A, dA), (V, dV)):
            P = M.copy(); P[idx] += h
            N = M.copy(); N[idx] -= h
            args_p = (P, V) if M is A else (A, P)
            args_n = (N, V) if M is A else (A, N)
            fd = (net.loss_and_grad(*args_p, T)[0] - net.loss_and_grad(*args_n, T)[0]) / (2 * h)
            assert abs(fd - G[idx]) < 1e-7 * max(1, abs(fd))
    J = net.jacobian(A, V)
    out = net.outputs(A, V)
    assert J.shape == (8, 2 * A.size) and out.shape == (2, 2, 2)


def test_gbs_exact_on_exponential():
    y, err = gbs_integrate(lambda s, y: [y[0]], [1.0], 0.0, 1.0, 2, 6)
    assert abs(y[0] - np.e) < 1e-12


def test_backends_agree_and_euler_converges():
    ctx = [[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]]
    heads = [([[F(1, 2), F(-1, 3)], [F(1, 5), F(1, 4)]], [[1, F(1, 2)], [F(-1, 2), F(3, 4)]])]
    vals = []
    for name in ("gmpy2", "mpmath"):
        model = HPModel(ctx, [F(1, 3)] * 3, [heads], queries=[[1, F(1, 2)]], be=backend(name, 30))
        y, err = model.forward(2, 8)
        vals.append([float(v) for v in y])
        assert err < 1e-15
    assert np.allclose(vals[0], vals[1], rtol=0, atol=1e-25)
    ref = np.array(vals[0][:6]).reshape(3, 2)
    c = np.array([[float(v) for v in r] for r in ctx])
    A = np.array([[[float(v) for v in r] for r in heads[0][0]]])
    V = np.array([[[float(v) for v in r] for r in heads[0][1]]])
    errs = []
    for L in (16, 32):
        X, _ = particle_forward(c, np.full(3, 1 / 3), np.repeat(A[None], L, 0), np.repeat(V[None], L, 0))
        errs.append(np.abs(X - ref).max())
    assert 1.8 < errs[0] / errs[1] < 2.2
    Xf, _ = mean_field_flow(c, np.full(3, 1 / 3), lambda s: (A, V))
    assert np.abs(Xf - ref).max() < 1e-11


def test_size_limits_and_shapes():
    with pytest.raises(SizeLimitError):
        particle_forward(np.zeros((100, 2)), np.full(100, .01), np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 2, 2)))
    with pytest.raises(InputError, match="^A"):
        particle_forward(np.zeros((3, 2)), np.full(3, 1 / 3), np.zeros((1, 2, 2)), np.zeros((1, 2, 2)))
    with pytest.raises(InputError, match="^backend"):
        backend("float128", 30)
