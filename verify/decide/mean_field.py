"""The mean-field Transformer of docs/paper2.md §7-§8: particle model, mean-field flow, adjoint, gradient flow.

Everything here is floating point (numpy float64, or multiprecision mpmath / gmpy2): **evidence only**.
The checks report these numbers as evidence (INCONCLUSIVE, method ``evidence``); where N8.n, N9, N9.n and
N10.n decide, they do so from exact or ball computations of their own, not from this module.

Model (d-dimensional tokens, discrete context μ = Σ_k w_k δ_{x_k}, head θ = (A, V), A = KᵀQ)::

    Γ_θ[μ](z)  = V ∇Λ_μ(A z) = V Σ_k p_k x_k,   p_k ∝ w_k e^{⟨Az, x_k⟩}
    particle:  z ← z + (1/(L H)) Σ_h Γ_{θ_{l,h}}[μ^l](z)      (L layers, H heads, context tokens and queries)
    flow:      ∂_s X = Φ_{ρ_s}[μ(s)](X),  Φ_ρ = mean over heads of ρ_s

Conventions: heads are given per layer as arrays ``A[l, h]``, ``V[l, h]`` (shape (L, H, d, d)); the layer l
of the particle model is the depth interval [l/L, (l+1)/L); the mean-field flow of a finite head law with
``R`` heads averages them with weight 1/R.  ``freeze_context=True`` keeps the context at μ(0) (the N8.n
variant): tokens still move, but attention always reads the initial context.

Algorithm
---------
* particle model (:func:`particle_forward`): L explicit layers z <- z + (1/(L H)) sum_h V_h grad Lambda(A_h z),
  O(L H (n + m) (n + d) d) float operations;
* mean-field flow (:func:`mean_field_flow`): scipy's DOP853 (rtol 1e-13, atol 1e-15 by default);
* multiprecision flow and adjoint (:class:`HPModel`): Gragg-Bulirsch-Stoer with fixed steps and order
  (:func:`gbs_integrate`) in MPFR or mpmath (:func:`backend`), the adjoint integrated backward with the state;
* gradient flow (:func:`gradient_flow`): scipy's BDF with a low-rank Gauss-Newton Jacobian (Woodbury), the
  NTK L H J J^T and its smallest eigenvalue in float64 at the requested times.

Soundness
---------
None: no error bound is computed.  The ``err`` of :func:`gbs_integrate` is the last extrapolation
correction, an estimate, not a bound; agreement of several digits is evidence (docs/mean-field.md,
"Evidence-only results").  Nothing here returns a verdict.

Limits
------
:func:`particle_forward` refuses more than ``MAX_TOKENS`` = 64 tokens, ``MAX_LAYERS`` = 4096 layers and
``MAX_HEADS`` = 8192 heads per layer; :func:`backend` takes 15 to 2000 digits; an integrator failure raises
``RuntimeError``.  :class:`HPModel` layers given as callables support the forward flow only.

>>> import numpy as np
>>> ctx = np.array([[0.0, 0.0], [1.0, 0.3], [-0.4, 1.1]]); w = np.full(3, 1 / 3)
>>> A = np.zeros((1, 1, 2, 2)); V = np.eye(2)[None, None]
>>> X, _ = particle_forward(ctx, w, A, V)          # uniform attention: every token moves by the mean
>>> bool(np.allclose(X - ctx, ctx.mean(axis=0)))
True
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Callable, Optional, Sequence

import numpy as np

from ..arith.context import EXACT, Context, MpfrContext, MpmathContext
from ..errors import InputError, SizeLimitError
from ..laws.cgf import discrete_grad_float as tilted_mean  # ∇Λ_μ(θ), μ = Σ_k w_k δ_{keys_k} (float64)

try:        # the C routine np.einsum calls when optimize=False (the default): the same call, without the
    #         Python-level dispatch (the particle net makes ~50 tiny einsum calls per gradient)
    from numpy._core.multiarray import c_einsum as _einsum
except ImportError:             # numpy 1.x
    try:
        from numpy.core.multiarray import c_einsum as _einsum
    except ImportError:
        _einsum = np.einsum

__all__ = [
    "tilted_mean", "particle_forward", "mean_field_velocity", "mean_field_flow",
    "BACKENDS", "backend", "HPModel", "gbs_integrate",
    "ParticleNet", "particle_loss_and_grad", "particle_jacobian", "ntk_from_jacobian",
    "MAX_TOKENS", "MAX_LAYERS", "MAX_HEADS", "memoise", "gradient_flow",
]

MAX_TOKENS = 64
MAX_LAYERS = 4096
MAX_HEADS = 8192


def memoise(fn):
    """Cache a deterministic check's Result per (hashable) arguments, so an audit and the test asserting
    its ``criterion_met`` share one computation within a process.  Unhashable arguments bypass the cache."""
    cache = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        try:
            hash(key)
        except TypeError:
            return fn(*args, **kwargs)
        if key not in cache:
            cache[key] = fn(*args, **kwargs)
        return cache[key]

    wrapper.cache = cache
    return wrapper


def _check_sizes(ctx, A):
    if ctx.ndim != 2:
        raise InputError("context", f"must be an (n, d) array, got shape {ctx.shape}")
    if ctx.shape[0] > MAX_TOKENS:
        raise SizeLimitError("context", f"{ctx.shape[0]} tokens exceed the limit {MAX_TOKENS}")
    if A.ndim != 4 or A.shape[2:] != (ctx.shape[1], ctx.shape[1]):
        raise InputError("A", f"must have shape (L, H, d, d) with d = {ctx.shape[1]}, got {A.shape}")
    if A.shape[0] > MAX_LAYERS:
        raise SizeLimitError("A", f"{A.shape[0]} layers exceed the limit {MAX_LAYERS}")
    if A.shape[1] > MAX_HEADS:
        raise SizeLimitError("A", f"{A.shape[1]} heads exceed the limit {MAX_HEADS}")


# ----------------------------------------------------------------------------------- float64 model
def _layer_velocity(Z, keys, logw, A, V):
    """(1/H) Σ_h V_h ∇Λ(A_h z) for every row z of Z; A, V of shape (H, d, d)."""
    theta = np.einsum("hij,tj->hti", A, Z)
    m = tilted_mean(theta, keys, logw)
    return np.einsum("hij,htj->ti", V, m) / A.shape[0]


def particle_forward(ctx, weights, A, V, queries=None, freeze_context: bool = False, return_path: bool = False):
    """Terminal context tokens and queries of the L-layer, H-head particle model (float64).

    ``A``, ``V``: shape (L, H, d, d).  Returns (X, Y) (Y is None without queries), or the list of
    (X, Y) after every layer when ``return_path``.
    """
    X = np.array(ctx, dtype=float)
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    _check_sizes(X, A)
    logw = np.log(np.asarray(weights, dtype=float))
    Y = None if queries is None else np.array(queries, dtype=float)
    X0 = X.copy()
    L = A.shape[0]
    path = []
    for layer in range(L):
        keys = X0 if freeze_context else X
        Z = X if Y is None else np.vstack([X, Y])
        dZ = _layer_velocity(Z, keys, logw, A[layer], V[layer]) / L
        Z = Z + dZ
        X = Z[: X.shape[0]]
        if Y is not None:
            Y = Z[X.shape[0]:]
        if return_path:
            path.append((X.copy(), None if Y is None else Y.copy()))
    return path if return_path else (X, Y)


def mean_field_velocity(X, weights, A, V, Y=None, keys=None):
    """Φ_ρ[μ](z) for the finite head law {(A_r, V_r)} (equal weights) at every context token / query."""
    logw = np.log(np.asarray(weights, dtype=float))
    keys = X if keys is None else keys
    Z = X if Y is None else np.vstack([X, Y])
    return _layer_velocity(Z, keys, logw, np.asarray(A, float), np.asarray(V, float))


def mean_field_flow(ctx, weights, heads_at: Callable[[float], tuple], queries=None, freeze_context=False,
                    rtol: float = 1e-13, atol: float = 1e-15, breakpoints: Sequence[float] = ()):
    """Terminal state X(1) (and Y(1)) of the mean-field ODE for the head law ``heads_at(s) -> (A, V)``
    (arrays (R, d, d)), solved with scipy's DOP853 (float64; evidence)."""
    from scipy.integrate import solve_ivp

    X0 = np.array(ctx, dtype=float)
    n, d = X0.shape
    Y0 = None if queries is None else np.array(queries, dtype=float)
    z0 = X0.ravel() if Y0 is None else np.concatenate([X0.ravel(), Y0.ravel()])

    def rhs(s, z):
        Z = z.reshape(-1, d)
        X = Z[:n]
        Y = Z[n:] if Y0 is not None else None
        A, V = heads_at(s)
        return mean_field_velocity(X, weights, A, V, Y, keys=X0 if freeze_context else None).ravel()

    edges = [0.0, *sorted(b for b in breakpoints if 0 < b < 1), 1.0]
    z = z0
    for a, b in zip(edges[:-1], edges[1:]):
        sol = solve_ivp(rhs, (a, b), z, method="DOP853", rtol=rtol, atol=atol)
        if not sol.success:
            raise RuntimeError(f"mean_field_flow: integrator failed: {sol.message}")
        z = sol.y[:, -1]
    Z = z.reshape(-1, d)
    return Z[:n], (Z[n:] if Y0 is not None else None)


# ------------------------------------------------------------------------ multiprecision contexts
BACKENDS = ("gmpy2", "mpmath")


def backend(name: str = "gmpy2", dps: int = 50) -> Context:
    """The multiprecision arithmetic context of the mean-field flow: ``"gmpy2"`` (MPFR, the default: several
    times faster) or ``"mpmath"``, at ``dps`` digits plus 8 guard bits; both are evidence only."""
    if name not in BACKENDS:
        raise InputError("backend", f"must be 'gmpy2' or 'mpmath', got {name!r}")
    if not isinstance(dps, int) or not 15 <= dps <= 2000:
        raise InputError("dps", f"must be an integer in [15, 2000], got {dps!r}")
    bits = int(dps * 3.3219280948873626) + 8      # dps * log2(10) + 8 guard bits (not libmp.dps_to_prec:
    #                                               that rounds differently and would change the numbers)
    return MpfrContext(bits) if name == "gmpy2" else MpmathContext(prec=bits)


def gbs_integrate(f, y0: list, s0, s1, macro_steps: int, levels: int, ctx: Context = EXACT):
    """Gragg-Bulirsch-Stoer: ``macro_steps`` equal steps, each by modified midpoint with 2, 4, .., 2*levels
    substeps and polynomial extrapolation in h² (order 2*levels).  Fixed steps and order, so the discrete
    map is smooth in every parameter (central differences of it are meaningful).  Returns (y1, err) where
    err estimates the local error (the last extrapolation correction, max over macro steps).  The
    extrapolation constants are converted by ``ctx`` (exact Fractions by default)."""
    H = (s1 - s0) / macro_steps
    y = list(y0)
    err = 0.0
    s = s0
    ns = [2 * (j + 1) for j in range(levels)]
    # the extrapolation constants, converted once (the same conversions every macro step made)
    ratios = [[ctx.convert(Fraction(ns[j] ** 2, ns[j - k] ** 2) - 1) for k in range(j + 1)] for j in range(levels)]
    for _ in range(macro_steps):
        table = []
        f_start = f(s, y)               # f(s, y) opens every level's midpoint rule: evaluated once (f is pure)
        for j, n in enumerate(ns):
            h = H / n
            z0 = y
            f0 = f_start
            z1 = [a + h * b for a, b in zip(z0, f0)]
            h2 = 2 * h                  # (2 * h) * b, the product the expression a + 2 * h * b forms
            for i in range(1, n):
                fi = f(s + i * h, z1)
                z0, z1 = z1, [a + h2 * b for a, b in zip(z0, fi)]
            fn = f(s + H, z1)
            row = [[(a + b + h * c) / 2 for a, b, c in zip(z0, z1, fn)]]
            for k in range(1, j + 1):
                ratio = ratios[j][k]
                prev = table[j - 1][k - 1]
                cur = row[k - 1]
                row.append([c + (c - p) / ratio for c, p in zip(cur, prev)])
            table.append(row)
        y = table[-1][-1]
        corr = max(abs(float(a - b)) for a, b in zip(table[-1][-1], table[-1][-2])) if levels > 1 else float("inf")
        err = max(err, corr)
        s = s + H
    return y, err


class HPModel:
    """Multiprecision mean-field flow with a piecewise-constant finite head law, and its adjoint (docs/paper2.md §8).

    ``layers``: list over depth intervals [l/L, (l+1)/L) of lists of heads (A, V) (d x d nested lists of
    exact numbers or floats); each head has weight 1/H_l on its interval.  A layer may instead be a callable
    ``s -> list of (A, V)`` of context numbers (heads depending on depth; forward flow only).  Loss (squared)::

        ℒ = Σ_k w_k ½|X_k(1) − T_k|² + Σ_a ½|Y_a(1) − y*_a|².

    Adjoint (per unit mass p for context tokens, r for queries), integrated backward with the state::

        −∂_s r_a = B̄(Y_a)ᵀ r_a
        −∂_s p_k = B̄(X_k)ᵀ p_k + Σ_j w_j J̄(X_j, X_k)ᵀ p_j + Σ_a J̄(Y_a, X_k)ᵀ r_a
        ∂ℒ/∂V = (1/H) ∫ (Σ_k w_k p_k m̄_kᵀ + Σ_a r_a m̄_aᵀ) ds,
        ∂ℒ/∂A = (1/H) ∫ (Σ_k w_k H_k Vᵀ p_k X_kᵀ + Σ_a H_a Vᵀ r_a Y_aᵀ) ds

    ``drop_context`` / ``drop_query`` remove the J̄-terms driven by p (context) / r (queries) — the N9.n variants.
    """

    def __init__(self, ctx, weights, layers, queries=(), be: Optional[Context] = None):
        self.be = be or backend()
        # MpfrContext.exp is gmpy2.exp of its argument: call it directly (same function, one call less)
        self._exp = self.be._g.exp if type(self.be) is MpfrContext else self.be.exp
        self._invs = {}
        self.d = len(ctx[0])
        self.n = len(ctx)
        self.m = len(queries)
        with self.be.scope():
            num = self.be.convert
            self.ctx = [[num(v) for v in row] for row in ctx]
            self.w = [num(v) for v in weights]
            self.queries = [[num(v) for v in row] for row in queries]
            self.layers = [heads if callable(heads) else
                           [([[num(v) for v in r] for r in A], [[num(v) for v in r] for r in V]) for A, V in heads]
                           for heads in layers]

    # -- per head, per token pieces -----------------------------------------------------------
    def _attend(self, A, X, z, logw=None):
        # every sum is the left fold 0 + t_0 + t_1 + ... of builtins.sum, written as loops (no generator
        # frames): the same operations in the same order, so the same numbers bit for bit
        theta = []
        for row in A:
            t = 0
            for a, zj in zip(row, z):
                t = t + a * zj
            theta.append(t)
        scores = []
        for xk in X:
            t = 0
            for th, x in zip(theta, xk):
                t = t + th * x
            scores.append(t)
        top = max(scores)
        exp = self._exp
        e = [wk * exp(sk - top) for wk, sk in zip(self.w, scores)]
        Z = sum(e)
        p = [ek / Z for ek in e]
        mbar = []
        for i in range(self.d):
            t = 0
            for pk, xk in zip(p, X):
                t = t + pk * xk[i]
            mbar.append(t)
        return theta, p, mbar, Z, top

    def _unpack(self, y):
        d, n, m = self.d, self.n, self.m
        X = [y[k * d:(k + 1) * d] for k in range(n)]
        Y = [y[(n + a) * d:(n + a + 1) * d] for a in range(m)]
        return X, Y

    def _inv(self, H):
        """1/H in the backend (converted once per H; every call is inside ``self.be.scope()``); H = 0: the
        backend's zero (+0)."""
        v = self._invs.get(H)
        if v is None:
            v = self._invs[H] = self.be.convert(Fraction(1, H) if H else 0)
        return v

    def velocity(self, heads, y):
        if self.d == 2:
            return self._velocity_d2(heads, y)
        return self._velocity(heads, y)

    def _velocity_d2(self, heads, y):
        """:meth:`_velocity` for d = 2 with the index loops written out: the same operations on the same
        operands in the same order, so the same numbers bit for bit (tests/test_mean_field.py compares the
        two), with two shortcuts that give the same numbers:

        * the first step 0 + t_0 of every left fold is ``t_0 or zero``: t_0 is already rounded to the working
          precision, so 0 + t_0 is t_0 itself, except that a -0 becomes +0 -- and so does ``or``;
        * the top score's w_k * exp(s_k - top) is w_k itself: s_k - top is ±0 there, exp(±0) = 1 exactly and
          w_k * 1 = w_k (w_k is already rounded to the working precision)."""
        n = self.n
        xs = [(y[2 * k], y[2 * k + 1]) for k in range(n)]
        zs = xs + [(y[2 * (n + a)], y[2 * (n + a) + 1]) for a in range(self.m)]
        inv = self._inv(len(heads))
        zero = self._inv(0)
        w = self.w
        exp = self._exp
        hs = [(A[0][0], A[0][1], A[1][0], A[1][1], V[0][0], V[0][1], V[1][0], V[1][1]) for A, V in heads]
        out = []
        for z0, z1 in zs:
            acc0 = acc1 = None
            for a00, a01, a10, a11, v00, v01, v10, v11 in hs:
                t0 = (a00 * z0 or zero) + a01 * z1
                t1 = (a10 * z0 or zero) + a11 * z1
                scores = [(t0 * x0 or zero) + t1 * x1 for x0, x1 in xs]
                top = max(scores)
                e = [wk if sk == top else wk * exp(sk - top) for wk, sk in zip(w, scores)]
                Zs = e[0] or zero
                for ek in e[1:]:
                    Zs = Zs + ek
                pk = e[0] / Zs
                mb0 = pk * xs[0][0] or zero
                mb1 = pk * xs[0][1] or zero
                for ek, (x0, x1) in zip(e[1:], xs[1:]):
                    pk = ek / Zs
                    mb0 = mb0 + pk * x0
                    mb1 = mb1 + pk * x1
                u0 = (v00 * mb0 or zero) + v01 * mb1
                u1 = (v10 * mb0 or zero) + v11 * mb1
                if acc0 is None:
                    acc0, acc1 = u0 or zero, u1 or zero
                else:
                    acc0, acc1 = acc0 + u0, acc1 + u1
            out.append(acc0 * inv)
            out.append(acc1 * inv)
        return out

    def _velocity(self, heads, y):
        X, Y = self._unpack(y)
        d = self.d
        rd = range(d)
        out = []
        inv = self._inv(len(heads))
        w = self.w
        exp = self._exp
        for z in X + Y:
            acc = [0] * d
            for A, V in heads:
                # mbar = self._attend(A, X, z)[2], inlined: the same operations in the same order
                theta = []
                for row in A:
                    t = 0
                    for a, zj in zip(row, z):
                        t = t + a * zj
                    theta.append(t)
                scores = []
                for xk in X:
                    t = 0
                    for th, x in zip(theta, xk):
                        t = t + th * x
                    scores.append(t)
                top = max(scores)
                e = [wk * exp(sk - top) for wk, sk in zip(w, scores)]
                Zs = sum(e)
                p = [ek / Zs for ek in e]
                mbar = []
                for i in rd:
                    t = 0
                    for pk, xk in zip(p, X):
                        t = t + pk * xk[i]
                    mbar.append(t)
                for i in rd:
                    t = 0                                  # sum(V[i][j] * mbar[j]) as a loop, same order
                    for v, mb in zip(V[i], mbar):
                        t = t + v * mb
                    acc[i] = acc[i] + t
            out.extend(a * inv for a in acc)
        return out

    def forward(self, macro_steps: int = 2, levels: int = 10):
        """State at s = 1 and the largest extrapolation correction."""
        with self.be.scope():
            y = [v for row in self.ctx + self.queries for v in row]
            err = 0.0
            L = len(self.layers)
            for l, heads in enumerate(self.layers):
                if callable(heads):      # heads depending on depth: heads(s) -> list of (A, V)
                    f = lambda s, z, heads=heads: self.velocity(heads(s), z)
                else:
                    f = lambda s, z, heads=heads: self.velocity(heads, z)
                y, e = gbs_integrate(f, y, self.be.convert(Fraction(l, L)), self.be.convert(Fraction(l + 1, L)),
                                     macro_steps, levels, ctx=self.be)
                err = max(err, e)
            return y, err

    def loss(self, y, targets, query_targets):
        X, Y = self._unpack(y)
        half = self.be.convert(Fraction(1, 2))
        tot = 0
        for wk, xk, tk in zip(self.w, X, targets):
            tot = tot + wk * half * sum((a - b) ** 2 for a, b in zip(xk, tk))
        for ya, ta in zip(Y, query_targets):
            tot = tot + half * sum((a - b) ** 2 for a, b in zip(ya, ta))
        return tot

    def loss_value(self, targets, query_targets, macro_steps=2, levels=10):
        with self.be.scope():
            t = [[self.be.convert(v) for v in r] for r in targets]
            tq = [[self.be.convert(v) for v in r] for r in query_targets]
            y, err = self.forward(macro_steps, levels)
            return self.loss(y, t, tq), err

    def _backward_rhs(self, heads, aug, drop_context, drop_query):
        """d/dτ (τ = 1 − s) of (X, Y, p, r, gradient accumulators of the heads)."""
        if self.d == 2 and heads:
            return self._backward_rhs_d2(heads, aug, drop_context, drop_query)
        return self._backward_rhs_loops(heads, aug, drop_context, drop_query)

    def _backward_rhs_d2(self, heads, aug, drop_context, drop_query):
        """:meth:`_backward_rhs_loops` for d = 2 with the index loops written out: the same operations on the
        same operands in the same order, with the shortcuts of :meth:`_velocity_d2` (``t_0 or zero`` for the
        first step 0 + t_0 of a fold, no exp at the top score), accumulators started at the backend's +0
        (+0 + t is the operation 0 + t performs), 1 * x written x (exact, signed zeros included) and a
        product both coordinates use (p_k dev_k, inv * c) formed once; the same numbers bit for bit
        (tests/test_mean_field.py compares the two)."""
        n, m = self.n, self.m
        nz = (n + m) * 2
        st, du = aug[:nz], aug[nz:2 * nz]
        xs = [(st[2 * k], st[2 * k + 1]) for k in range(n)]
        tokens = [(xs[k], (du[2 * k], du[2 * k + 1]), self.w[k], k, drop_context) for k in range(n)] + \
                 [((st[2 * (n + a)], st[2 * (n + a) + 1]), (du[2 * (n + a)], du[2 * (n + a) + 1]), None, n + a,
                   drop_query) for a in range(m)]
        inv = self._inv(len(heads))
        zero = self._inv(0)
        w = self.w
        exp = self._exp
        vel = [zero] * nz
        ddual = [zero] * nz
        grads = []
        for A, V in heads:
            (a00, a01), (a10, a11) = A
            (v00, v01), (v10, v11) = V
            gV00 = gV01 = gV10 = gV11 = gA00 = gA01 = gA10 = gA11 = zero
            for (z0, z1), (l0, l1), omega, idx, dropped in tokens:
                t0 = (a00 * z0 or zero) + a01 * z1
                t1 = (a10 * z0 or zero) + a11 * z1
                scores = [(t0 * x0 or zero) + t1 * x1 for x0, x1 in xs]
                top = max(scores)
                e = [wk if sk == top else wk * exp(sk - top) for wk, sk in zip(w, scores)]
                Zs = e[0] or zero
                for ek in e[1:]:
                    Zs = Zs + ek
                p = [ek / Zs for ek in e]
                mb0 = p[0] * xs[0][0] or zero
                mb1 = p[0] * xs[0][1] or zero
                for pk, (x0, x1) in zip(p[1:], xs[1:]):
                    mb0 = mb0 + pk * x0
                    mb1 = mb1 + pk * x1
                i0, i1 = 2 * idx, 2 * idx + 1
                vel[i0] = vel[i0] + inv * ((v00 * mb0 or zero) + v01 * mb1)
                vel[i1] = vel[i1] + inv * ((v10 * mb0 or zero) + v11 * mb1)
                u0 = (v00 * l0 or zero) + v10 * l1                      # Vᵀλ
                u1 = (v01 * l0 or zero) + v11 * l1
                dev = [((x0 - mb0) * u0 or zero) + (x1 - mb1) * u1 for x0, x1 in xs]
                pd = [pk * dk for pk, dk in zip(p, dev)]
                Hu0 = pd[0] * xs[0][0] or zero
                Hu1 = pd[0] * xs[0][1] or zero
                for c, (x0, x1) in zip(pd[1:], xs[1:]):
                    Hu0 = Hu0 + c * x0
                    Hu1 = Hu1 + c * x1
                ddual[i0] = ddual[i0] + inv * ((a00 * Hu0 or zero) + a10 * Hu1)     # Aᵀ H Vᵀ λ
                ddual[i1] = ddual[i1] + inv * ((a01 * Hu0 or zero) + a11 * Hu1)
                if not dropped:
                    for k in range(n):
                        ic = inv * ((p[k] if omega is None else omega * p[k]) / w[k])
                        ddual[2 * k] = ddual[2 * k] + ic * (u0 + t0 * dev[k])
                        ddual[2 * k + 1] = ddual[2 * k + 1] + ic * (u1 + t1 * dev[k])
                s0, s1 = (l0, l1) if omega is None else (omega * l0, omega * l1)
                h0, h1 = (Hu0, Hu1) if omega is None else (omega * Hu0, omega * Hu1)
                gV00, gV01, gV10, gV11 = gV00 + s0 * mb0, gV01 + s0 * mb1, gV10 + s1 * mb0, gV11 + s1 * mb1
                gA00, gA01, gA10, gA11 = gA00 + h0 * z0, gA01 + h0 * z1, gA10 + h1 * z0, gA11 + h1 * z1
            grads.extend(inv * g for g in (gA00, gA01, gA10, gA11, gV00, gV01, gV10, gV11))
        return [-v for v in vel] + ddual + grads

    def _backward_rhs_loops(self, heads, aug, drop_context, drop_query):
        d, n, m = self.d, self.n, self.m
        H = len(heads)
        nz = (n + m) * d
        state, duals = aug[:nz], aug[nz:2 * nz]
        X, Y = self._unpack(state)
        P = [duals[k * d:(k + 1) * d] for k in range(n)]
        R = [duals[(n + a) * d:(n + a + 1) * d] for a in range(m)]
        inv = self._inv(H)
        vel = [0] * nz
        ddual = [0] * nz
        grads = []
        tokens = [(X[k], P[k], self.w[k], k, "ctx") for k in range(n)] + \
                 [(Y[a], R[a], None, n + a, "query") for a in range(m)]
        for A, V in heads:
            gV = [[0] * d for _ in range(d)]
            gA = [[0] * d for _ in range(d)]
            for z, lam, omega, idx, kind in tokens:
                theta, p, mbar, Zs, top = self._attend(A, X, z)
                # velocity (forward field)
                for i in range(d):
                    vel[idx * d + i] = vel[idx * d + i] + inv * sum(V[i][j] * mbar[j] for j in range(d))
                u = [sum(V[j][i] * lam[j] for j in range(d)) for i in range(d)]          # Vᵀλ
                # H u = Σ p_k x_k <x_k - mbar, u>
                dev = [sum((xk[i] - mbar[i]) * u[i] for i in range(d)) for xk in X]
                Hu = [sum(pk * dk * xk[i] for pk, dk, xk in zip(p, dev, X)) for i in range(d)]
                BTl = [sum(A[j][i] * Hu[j] for j in range(d)) for i in range(d)]       # Aᵀ H Vᵀ λ
                for i in range(d):
                    ddual[idx * d + i] = ddual[idx * d + i] + inv * BTl[i]
                scale = omega if omega is not None else 1
                # context (J̄) terms: to every context key k, scale * (p_k / w_k) [u + θ <x_k - mbar, u>]
                if not ((kind == "ctx" and drop_context) or (kind == "query" and drop_query)):
                    for k in range(n):
                        c = scale * p[k] / self.w[k]
                        for i in range(d):
                            ddual[k * d + i] = ddual[k * d + i] + inv * c * (u[i] + theta[i] * dev[k])
                # parameter gradients (density of (1/H) ∫ ∇G ds)
                for i in range(d):
                    for j in range(d):
                        gV[i][j] = gV[i][j] + scale * lam[i] * mbar[j]
                        gA[i][j] = gA[i][j] + scale * Hu[i] * z[j]
            grads.extend(inv * g for row in gA + gV for g in row)
        return [-v for v in vel] + ddual + grads

    def adjoint_gradient(self, targets, query_targets, macro_steps=2, levels=10,
                         drop_context: bool = False, drop_query: bool = False):
        """Gradient of ℒ w.r.t. every head's (A, V), by the adjoint ODEs; returns (grads, loss, err).

        ``grads[l][h] = (dA, dV)`` as nested lists of context numbers."""
        with self.be.scope():
            num = self.be.convert
            tg = [[num(v) for v in r] for r in targets]
            tq = [[num(v) for v in r] for r in query_targets]
            y, err = self.forward(macro_steps, levels)
            loss = self.loss(y, tg, tq)
            X, Y = self._unpack(y)
            duals = [a - b for xk, tk in zip(X, tg) for a, b in zip(xk, tk)] + \
                    [a - b for ya, ta in zip(Y, tq) for a, b in zip(ya, ta)]
            d = self.d
            L = len(self.layers)
            out = [None] * L
            state = list(y)
            for l in reversed(range(L)):
                heads = self.layers[l]
                aug = state + duals + [num(0)] * (len(heads) * 2 * d * d)
                f = lambda tau, a, heads=heads: self._backward_rhs(heads, a, drop_context, drop_query)
                aug, e = gbs_integrate(f, aug, num(0), num(Fraction(1, L)), macro_steps, levels, ctx=self.be)
                err = max(err, e)
                nz = len(state)
                state, duals, g = aug[:nz], aug[nz:2 * nz], aug[2 * nz:]
                per = []
                for h in range(len(heads)):
                    block = g[h * 2 * d * d:(h + 1) * 2 * d * d]
                    dA = [block[i * d:(i + 1) * d] for i in range(d)]
                    dV = [block[d * d + i * d: d * d + (i + 1) * d] for i in range(d)]
                    per.append((dA, dV))
                out[l] = per
            return out, loss, err


# ----------------------------------------------------------- float64 particle net with backprop (N10)
def _sum2(x0, y0, x1, y1, zero: bool = True):
    """x0*y0 + x1*y1 (+ 0.0): a two-term contraction of einsum as two products and one sum.  einsum
    accumulates 0 + x0*y0 + x1*y1 into a zeroed output; a sum of two terms is the same number in either
    order (IEEE addition commutes), and the final + 0.0 turns a -0 into +0 as einsum's zero start does, so
    the result is the same bit for bit (tests/test_mean_field.py compares them, signed zeros included)."""
    out = x0 * y0
    out += x1 * y1
    if zero:
        out += 0.0
    return out


def _max_last(s):
    """s.max(axis=-1, keepdims=True) as a chain of np.maximum over the last axis (length >= 2): the same
    maximum; where +0 and -0 tie the sign may differ, which the softmax cannot see (s - top is then ±0 or
    the same non-zero number, and exp(±0) = 1)."""
    out = np.maximum(s[..., 0], s[..., 1])
    for k in range(2, s.shape[-1]):
        np.maximum(out, s[..., k], out=out)
    return out[..., None]


def _heads_sum(V, M):
    """einsum("hij,bhtj->bti", V, M) for d = 2, bit for bit: einsum adds, head after head into a zeroed
    output, the two-term sum V_i0 M_0 + V_i1 M_1 of its inner loop; here the pairs are formed for every
    head at once (heads first, C order) and np.add.reduce over that outer axis adds them in head order;
    + 0.0 gives einsum's +0 for a zero sum (tests/test_mean_field.py compares them)."""
    Mt = M.transpose(1, 0, 2, 3)
    pair = np.multiply(V[:, None, None, :, 0], Mt[..., None, 0], order="C")
    pair += V[:, None, None, :, 1] * Mt[..., None, 1]
    out = np.add.reduce(pair, axis=0)
    out += 0.0
    return out


def _heads_rows_sum(A, g):
    """einsum("hij,bhti->btj", A, g) bit for bit: einsum adds the products A_hij g_bhti one by one in the
    order (h, i) = (0, 0), (0, 1), .., (1, 0), .. into a zeroed output; here they are formed in that order
    along an outer axis (C order) and np.add.reduce over it adds them in the same order; + 0.0 as above."""
    p = np.multiply(A[:, :, None, None, :], g.transpose(1, 3, 0, 2)[..., None], order="C")
    out = np.add.reduce(p.reshape((-1,) + p.shape[2:]), axis=0)
    out += 0.0
    return out


class ParticleNet:
    """The L-layer particle model for several inputs sharing query tokens, with reverse-mode gradients.

    Parameters θ = (A, V), arrays (L, H, d, d).  Inputs: list of (context (n, d), weights (n,)), all with
    the same number n of context tokens (they are processed as one batch).  Outputs F[i, a] = Y_{i,a}(L)
    (the queries after the last layer), shape (N, m, d).
    """

    def __init__(self, inputs, queries):
        ctxs = [np.asarray(c, float) for c, _ in inputs]
        if len({c.shape for c in ctxs}) != 1:
            raise InputError("inputs", "all contexts must have the same shape (n, d)")
        self.ctx = np.stack(ctxs)                                           # (b, n, d)
        self.logw = np.stack([np.log(np.asarray(w, float)) for _, w in inputs])   # (b, n)
        self.queries = np.asarray(queries, float)
        self.n = self.ctx.shape[1]
        # constants of every forward pass (the same arrays the pass used to rebuild each call)
        self._query_block = np.broadcast_to(self.queries, (self.ctx.shape[0],) + self.queries.shape)
        self._logw_scores = self.logw[:, None, None, :]

    def _forward(self, A, V):
        L, H = A.shape[:2]
        n = self.n
        Z = np.concatenate([self.ctx, self._query_block], axis=1)
        logw = self._logw_scores
        d2 = A.shape[-1] == 2
        tape = []
        for l in range(L):
            X = Z[:, :n]
            if d2:          # the same numbers as the einsums below, with less overhead (see _sum2)
                Al = A[l]
                theta = _sum2(Al[None, :, None, :, 0], Z[:, None, :, None, 0], Al[None, :, None, :, 1],
                              Z[:, None, :, None, 1])
                # + logw (non-zero) absorbs the sign of a zero sum: no + 0.0 needed
                s = _sum2(theta[..., None, 0], X[:, None, None, :, 0], theta[..., None, 1],
                          X[:, None, None, :, 1], zero=False)
                s += logw
            else:
                theta = _einsum("hij,btj->bhti", A[l], Z)
                s = _einsum("bhti,bki->bhtk", theta, X) + logw
            s -= _max_last(s) if n > 1 else s.max(axis=-1, keepdims=True)
            P = np.exp(s, out=s)
            P /= P.sum(axis=-1, keepdims=True)
            M = _einsum("bhtk,bki->bhti", P, X)
            tape.append((Z, theta, P, M))
            Z = Z + (_heads_sum(V[l], M) if d2 else _einsum("hij,bhtj->bti", V[l], M)) / (L * H)
        return Z, tape

    def outputs(self, A, V):
        return self._forward(A, V)[0][:, self.n:]

    def _backward(self, tape, A, V, G_out):
        """VJP per input: G_out (b, m, d) on the final queries -> (dA, dV) of shape (b, L, H, d, d)."""
        L, H = A.shape[:2]
        n = self.n
        c = 1.0 / (L * H)
        b = G_out.shape[0]
        G = np.zeros((b, n + self.queries.shape[0], A.shape[-1]))
        G[:, n:] = G_out
        dA = np.zeros((b,) + A.shape)
        dV = np.zeros((b,) + V.shape)
        d2 = A.shape[-1] == 2
        for l in reversed(range(L)):
            Z, theta, P, M = tape[l]
            X = Z[:, :n]
            dV[:, l] = c * _einsum("bti,bhtj->bhij", G, M)
            if d2:          # the same numbers as the einsums below (see _sum2)
                Vl = V[l]
                U = c * _sum2(Vl[None, :, None, 0, :], G[:, None, :, None, 0], Vl[None, :, None, 1, :],
                              G[:, None, :, None, 1])
                UX = _sum2(U[..., None, 0], X[:, None, None, :, 0], U[..., None, 1], X[:, None, None, :, 1])
                UM = _sum2(U[..., 0], M[..., 0], U[..., 1], M[..., 1])
            else:
                U = c * _einsum("hji,btj->bhti", V[l], G)                    # V^T g per (b, h, t)
                UX = _einsum("bhti,bki->bhtk", U, X)
                UM = _einsum("bhti,bhti->bht", U, M)
            g = P * (UX - UM[..., None])
            gtheta = _einsum("bhtk,bki->bhti", g, X)
            dA[:, l] = _einsum("bhti,btj->bhij", gtheta, Z)
            if l == 0:              # the cotangent of the input tokens is not needed
                break
            Gnew = G + (_heads_rows_sum(A[l], gtheta) if d2 else _einsum("hij,bhti->btj", A[l], gtheta))  # theta = A z
            Gnew[:, :n] += _einsum("bhtk,bhti->bki", P, U) + _einsum("bhtk,bhti->bki", g, theta)
            G = Gnew
        return dA, dV

    def loss_and_grad(self, A, V, targets):
        """ℒ = ½ Σ |F − targets|² and its gradient (dA, dV)."""
        Zf, tape = self._forward(A, V)
        r = Zf[:, self.n:] - np.asarray(targets, float)
        dA, dV = self._backward(tape, A, V, r)
        return 0.5 * float(np.sum(r * r)), dA.sum(axis=0), dV.sum(axis=0)

    def loss_and_jacobian(self, A, V, targets):
        """(ℒ, J) from one forward pass: the loss of :meth:`loss_and_grad` and :meth:`jacobian`, the same numbers."""
        Zf, tape = self._forward(A, V)
        r = Zf[:, self.n:] - np.asarray(targets, float)
        return 0.5 * float(np.sum(r * r)), self._jacobian(tape, A, V)

    def jacobian(self, A, V) -> np.ndarray:
        """J: rows = outputs (i, a, c) (law-major), columns = parameters (A then V, flattened)."""
        return self._jacobian(self._forward(A, V)[1], A, V)

    def _jacobian(self, tape, A, V) -> np.ndarray:
        b = self.ctx.shape[0]
        m, d = self.queries.shape
        J = np.zeros((b, m, d, 2 * A.size))
        for a in range(m):
            for cc in range(d):
                G = np.zeros((b, m, d))
                G[:, a, cc] = 1.0
                gA, gV = self._backward(tape, A, V, G)
                J[:, a, cc, :A.size] = gA.reshape(b, -1)
                J[:, a, cc, A.size:] = gV.reshape(b, -1)
        return J.reshape(b * m * d, -1)


def particle_loss_and_grad(net: ParticleNet, A, V, targets):
    return net.loss_and_grad(A, V, targets)


def particle_jacobian(net: ParticleNet, A, V):
    return net.jacobian(A, V)


def ntk_from_jacobian(J: np.ndarray, L: int, H: int) -> np.ndarray:
    """𝒦 = L H J Jᵀ: the NTK of the mean-field-scaled gradient flow θ̇ = −L H ∇ℒ (so dF/dt = −𝒦 r)."""
    return (L * H) * (J @ J.T)


# ------------------------------------------------------------------ gradient flow of the head particles
class _LowRank:
    """The Gauss-Newton Jacobian −a UᵀU of θ̇ = −LH ∇ℒ (U = output Jacobian, k x n, k small)."""

    def __init__(self, U, a):
        self.U, self.a = U, a

    def __rmul__(self, c):
        return _LowRank(self.U, self.a * c)

    __mul__ = __rmul__


class _Ident:
    def __init__(self, sigma=1.0):
        self.sigma = sigma

    def __rmul__(self, c):
        return _Ident(self.sigma * c)

    __mul__ = __rmul__

    def __sub__(self, J):
        return _System(self.sigma, J.a, J.U)


class _System:
    """σI + a UᵀU, solved by the Woodbury identity with a k x k inverse (k = number of outputs)."""

    def __init__(self, sigma, a, U):
        self.sigma, self.U = sigma, U
        k = U.shape[0]
        self.X = np.linalg.inv(sigma / a * np.eye(k) + U @ U.T)

    def solve(self, b):
        return (b - self.U.T @ (self.X @ (self.U @ b))) / self.sigma


def _lowrank_bdf():
    """scipy's BDF (variable order 1-5, adaptive) whose Newton systems use the low-rank Gauss-Newton
    Jacobian: I − c·Jac = I + c·LH·UᵀU is solved by Woodbury instead of a dense LU.  The Jacobian only
    drives the Newton iteration; accuracy is controlled by BDF's own error estimate (rtol, atol)."""
    from scipy.integrate import BDF

    class LowRankBDF(BDF):
        def __init__(self, fun, t0, y0, t_bound, lowrank_jac=None, **kw):
            kw.pop("jac", None)
            super().__init__(fun, t0, y0, t_bound, **kw)
            self._lowrank_jac = lowrank_jac
            self.jac = lambda t, y: self._lowrank_jac(t, y)
            self.J = lowrank_jac(t0, y0)
            self.I = _Ident()
            self.lu = self._lu
            self.solve_lu = lambda LU, b: LU.solve(b)

        def _validate_jac(self, jac, sparsity):
            # BDF.__init__ would estimate a dense finite-difference Jacobian here (one rhs call per parameter,
            # not counted in nfev) that __init__ above replaces at once by the low-rank one: skip it.  Nothing
            # else reads it (its jac_factor only feeds later finite-difference Jacobians, which never happen)
            return None, None

        def _lu(self, A):
            self.nlu += 1
            return A

    return LowRankBDF


def gradient_flow(net: ParticleNet, A0, V0, targets, t_end: float, times, rtol: float = 1e-12,
                  atol: float = 1e-14):
    """Integrate θ̇ = −L H ∇ℒ(θ) from (A0, V0) to ``t_end``; at every t in ``times`` return the loss, the
    NTK 𝒦_t = L H J_t J_tᵀ (all parameters) and its smallest eigenvalue.  Returns (rows, info)."""
    from scipy.integrate import solve_ivp

    L, H = A0.shape[:2]
    n = A0.size
    shape = A0.shape

    def split(th):
        return th[:n].reshape(shape), th[n:].reshape(shape)

    def rhs(t, th):
        A, V = split(th)
        _, dA, dV = net.loss_and_grad(A, V, targets)
        return -(L * H) * np.concatenate([dA.ravel(), dV.ravel()])

    def lowrank_jac(t, th):
        A, V = split(th)
        return _LowRank(net.jacobian(A, V), float(L * H))

    y0 = np.concatenate([np.asarray(A0, float).ravel(), np.asarray(V0, float).ravel()])
    try:
        method = _lowrank_bdf()
        sol = solve_ivp(rhs, (0.0, t_end), y0, method=method, rtol=rtol, atol=atol, dense_output=True,
                        lowrank_jac=lowrank_jac)
        solver = "scipy BDF (orders 1-5) with low-rank Gauss-Newton Jacobian (Woodbury)"
    except (AttributeError, TypeError):         # scipy internals changed: dense Jacobian (slow but standard)
        def dense_jac(t, th):
            A, V = split(th)
            J = net.jacobian(A, V)
            return -(L * H) * (J.T @ J)
        sol = solve_ivp(rhs, (0.0, t_end), y0, method="BDF", rtol=rtol, atol=atol, dense_output=True, jac=dense_jac)
        solver = "scipy BDF with dense Gauss-Newton Jacobian"
    if not sol.success:
        raise RuntimeError(f"gradient_flow: integrator failed: {sol.message}")
    rows = []
    for t in times:
        A, V = split(sol.sol(t) if t > 0 else y0)
        loss, J = net.loss_and_jacobian(A, V, targets)       # one forward pass for both (same numbers)
        K = ntk_from_jacobian(J, L, H)
        rows.append({"t": float(t), "loss": loss, "lambda_min": float(np.linalg.eigvalsh(K)[0])})
    info = {"solver": solver, "rtol": rtol, "atol": atol, "nfev": int(sol.nfev), "steps": int(len(sol.t) - 1)}
    return rows, info
