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


def _gbs_reference(f, y0, s0, s1, macro_steps, levels, ctx):
    """gbs_integrate as it was: f(s, y) evaluated at every level, constants converted in the inner loop."""
    H = (s1 - s0) / macro_steps
    y, err, s = list(y0), 0.0, s0
    ns = [2 * (j + 1) for j in range(levels)]
    for _ in range(macro_steps):
        table = []
        for j, n in enumerate(ns):
            h = H / n
            z0 = y
            f0 = f(s, z0)
            z1 = [a + h * b for a, b in zip(z0, f0)]
            for i in range(1, n):
                fi = f(s + i * h, z1)
                z0, z1 = z1, [a + 2 * h * b for a, b in zip(z0, fi)]
            fn = f(s + H, z1)
            row = [[(a + b + h * c) / 2 for a, b, c in zip(z0, z1, fn)]]
            for k in range(1, j + 1):
                ratio = ctx.convert(F(ns[j] ** 2, ns[j - k] ** 2) - 1)
                row.append([c + (c - p) / ratio for c, p in zip(row[k - 1], table[j - 1][k - 1])])
            table.append(row)
        y = table[-1][-1]
        err = max(err, max(abs(float(a - b)) for a, b in zip(table[-1][-1], table[-1][-2])))
        s = s + H
    return y, err


def test_gbs_evaluates_f_once_per_macro_step_start_same_numbers():
    be = backend("gmpy2", 30)
    with be.scope():
        calls = []

        def f(s, z):
            calls.append(s)
            return [z[1] * s, -z[0] + z[1] / 3]

        y0 = [be.convert(F(1, 3)), be.convert(F(-2, 7))]
        new = gbs_integrate(f, y0, be.convert(0), be.convert(1), 2, 4, ctx=be)
        n_new = len(calls)
        ref = _gbs_reference(f, y0, be.convert(0), be.convert(1), 2, 4, be)
        assert n_new == len(calls) - n_new - 2 * 3         # 3 repeated f(s, y) per macro step saved
        assert [repr(v) for v in new[0]] == [repr(v) for v in ref[0]] and new[1] == ref[1]


def test_inlined_velocity_equals_attend_bit_for_bit():
    be = backend("gmpy2", 25)
    heads = [([[F(1, 2), F(-1, 3)], [F(1, 5), F(2)]], [[F(1), F(-1, 2)], [F(1, 4), F(3, 4)]]),
             ([[F(-1, 4), F(1, 2)], [F(1, 3), F(-1, 2)]], [[F(-1, 3), F(1)], [F(1, 5), F(1, 2)]])]
    m = HPModel([[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]], [F(1, 3)] * 3, [heads], [[1, F(1, 2)]], be)
    with be.scope():
        y = [v for row in m.ctx + m.queries for v in row]
        X, Y = m._unpack(y)
        inv = be.convert(F(1, 2))
        ref = []
        for z in X + Y:
            acc = [0, 0]
            for A, V in m.layers[0]:
                mbar = m._attend(A, X, z)[2]
                for i in range(2):
                    acc[i] = acc[i] + sum(V[i][j] * mbar[j] for j in range(2))
            ref.extend(a * inv for a in acc)
        assert [repr(v) for v in m.velocity(m.layers[0], y)] == [repr(v) for v in ref]


def test_gradient_flow_calls_the_gradient_only_for_counted_evaluations():
    """No hidden finite-difference Jacobian at the start (it was discarded anyway): every gradient call is one
    of scipy's counted evaluations; the grid rows' losses are loss_and_grad's, bit for bit."""
    from verify.decide.mean_field import gradient_flow

    net = _net()
    rng = np.random.default_rng(3)
    A0 = rng.normal(0, .5, (1, 2, 2, 2))
    V0 = np.zeros_like(A0)
    T = net.outputs(A0, V0) + 0.05
    calls = [0]
    orig = net.loss_and_grad

    def counted(*a):
        calls[0] += 1
        return orig(*a)

    net.loss_and_grad = counted
    rows, info = gradient_flow(net, A0, V0, T, 1.0, [0.0, 0.5, 1.0], rtol=1e-8, atol=1e-10)
    assert calls[0] == info["nfev"]
    assert rows[0]["loss"] == orig(A0, V0, T)[0]
    loss, J = net.loss_and_jacobian(A0, V0, T)
    assert loss == orig(A0, V0, T)[0] and np.array_equal(J, net.jacobian(A0, V0))


def test_two_term_contractions_equal_einsum_bit_for_bit():
    """ParticleNet's d = 2 contractions (_sum2) against the einsums they replace, signed zeros included."""
    from verify.decide.mean_field import _sum2

    rng = np.random.default_rng(5)
    for trial in range(30):
        A = rng.normal(size=(16, 2, 2))
        Z = rng.normal(size=(2, 5, 2))
        A[rng.random(A.shape) < 0.4] = -0.0 if trial % 2 else 0.0
        Z[rng.random(Z.shape) < 0.3] = -0.0
        X = Z[:, :3]
        th = np.einsum("hij,btj->bhti", A, Z)
        assert th.tobytes() == _sum2(A[None, :, None, :, 0], Z[:, None, :, None, 0], A[None, :, None, :, 1],
                                     Z[:, None, :, None, 1]).tobytes()
        U = np.einsum("hji,btj->bhti", A, Z)
        assert U.tobytes() == _sum2(A[None, :, None, 0, :], Z[:, None, :, None, 0], A[None, :, None, 1, :],
                                    Z[:, None, :, None, 1]).tobytes()
        assert np.einsum("bhti,bki->bhtk", U, X).tobytes() == _sum2(
            U[..., None, 0], X[:, None, None, :, 0], U[..., None, 1], X[:, None, None, :, 1]).tobytes()
        assert np.einsum("bhti,bhti->bht", U, th).tobytes() == _sum2(U[..., 0], th[..., 0], U[..., 1],
                                                                    th[..., 1]).tobytes()


def test_velocity_d2_equals_general_loops_bit_for_bit():
    """HPModel._velocity_d2 (d = 2, folds written out, `t_0 or zero`, no exp at the top score) against the
    general loops, signed zeros and tied scores included (the N9 forward flow runs the d = 2 path)."""
    import random

    be = backend("gmpy2", 25)
    heads = [([[F(1, 2), F(-1, 3)], [F(0), F(2)]], [[F(1), F(0)], [F(1, 4), F(3, 4)]]),
             ([[F(-1, 4), F(1, 2)], [F(1, 3), F(-1, 2)]], [[F(-1, 3), F(1)], [F(1, 5), F(1, 2)]])]
    m = HPModel([[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]], [F(1, 3)] * 3, [heads], [[1, F(1, 2)]], be)
    rng = random.Random(1)
    with be.scope():
        states = [[v for row in m.ctx + m.queries for v in row], [be.convert(0)] * 8, [-be.convert(0)] * 8]
        for _ in range(60):
            states.append([(-1) ** rng.randint(0, 1) * be.convert(F(rng.randint(-3, 3), rng.choice([1, 3, 8])))
                           for _ in range(8)])
        for y in states:
            assert [repr(v) for v in m._velocity_d2(m.layers[0], y)] == [repr(v) for v in m._velocity(m.layers[0], y)]


def test_head_sums_and_max_equal_einsum_bit_for_bit():
    """ParticleNet's d = 2 sums (_heads_sum, _heads_rows_sum) against the einsums they replace, signed
    zeros included, and _max_last against max(axis=-1) (the same values up to the sign of a tied zero)."""
    from verify.decide.mean_field import _einsum, _heads_rows_sum, _heads_sum, _max_last

    rng = np.random.default_rng(3)
    for trial in range(40):
        V = rng.normal(size=(16, 2, 2)) * np.exp(rng.uniform(-30, 30, (16, 2, 2)))
        M = rng.normal(size=(2, 16, 5, 2)) * np.exp(rng.uniform(-30, 30, (2, 16, 5, 2)))
        if trial % 4 == 0:
            V[rng.random(V.shape) < 0.7] = -0.0
            M[rng.random(M.shape) < 0.7] = 0.0
        if trial % 8 == 0:
            V[:] = -0.0
        assert _heads_sum(V, M).tobytes() == _einsum("hij,bhtj->bti", V, M).tobytes()
        assert _heads_rows_sum(V, M).tobytes() == _einsum("hij,bhti->btj", V, M).tobytes()
        P = rng.normal(size=(2, 16, 5, 3)) * np.exp(rng.uniform(-30, 30, (2, 16, 5, 3)))
        if trial % 4 == 0:
            P[rng.random(P.shape) < 0.7] = -0.0
        assert np.array_equal(_max_last(P), P.max(axis=-1, keepdims=True))


def test_backward_rhs_d2_equals_general_loops_bit_for_bit():
    """HPModel._backward_rhs_d2 (the N9 adjoint field for d = 2) against the general loops, for the full and
    both dropped-term variants, signed zeros included."""
    import random

    be = backend("gmpy2", 25)
    heads = [([[F(1, 2), F(-1, 3)], [F(0), F(2)]], [[F(1), F(0)], [F(1, 4), F(3, 4)]]),
             ([[F(-1, 4), F(1, 2)], [F(1, 3), F(-1, 2)]], [[F(-1, 3), F(1)], [F(1, 5), F(1, 2)]])]
    m = HPModel([[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]], [F(1, 3)] * 3, [heads], [[1, F(1, 2)]], be)
    rng = random.Random(2)
    with be.scope():
        z = be.convert(0)
        states = [[z] * 16, [-z] * 16]
        for _ in range(20):
            states.append([(-1) ** rng.randint(0, 1) * be.convert(F(rng.randint(-3, 3), rng.choice([1, 3, 8])))
                           for _ in range(16)])
        for y in states:
            for dc, dq in ((False, False), (True, False), (False, True)):
                new = m._backward_rhs_d2(m.layers[0], y, dc, dq)
                assert [repr(v) for v in new] == [repr(v) for v in m._backward_rhs_loops(m.layers[0], y, dc, dq)]
