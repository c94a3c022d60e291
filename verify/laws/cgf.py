"""The CGF Lambda, its gradient and its Hessian for each of the five families, each formula once.

    Lambda_mu(theta) = log E_mu exp(<theta, Y>)          (docs/paper2.md §2, §6)

For every family this module holds the **symbolic formula** (SymPy closed forms of docs/paper2.md §6: the
specification) and, next to it, the evaluators of that same formula in the other arithmetics:

* ``*_sympy(law, th)``: the SymPy closed forms at symbols ``th``;
* ``*_exact(law, t)``: exact rationals, where the formula is rational at rational theta (Gaussian, Laplace,
  mixture with separation 0);
* ``*_ball(law, t)``: rigorous python-flint ``arb`` enclosures at exact rational theta, at the current
  precision (removable singularities, e.g. a cube at theta_k = 0, are handled exactly; near them the working
  precision is raised so that cancellation cannot swallow the result);
* ``*_mp(law, t)``: mpmath values at mpf theta and the current mpmath precision (**evidence** only);
* for discrete laws also the tilt with symbolic atoms (:func:`discrete_tilt_sympy`), a vectorised ball gradient
  at many theta (:func:`discrete_grad_ball_many`) and a float64 one (:func:`discrete_grad_float`).

:data:`TABLE` maps a family name to its :class:`Formulas`; the law objects of :mod:`verify.laws.models` call
into it, and ``tests/test_laws_formulas.py`` checks on random rationals that every evaluator encloses (or, for
mpmath and float64, agrees with) the symbolic formula.  Domains are not checked here (the callers do).

>>> from fractions import Fraction as F
>>> from verify.laws import Gaussian
>>> TABLE["gaussian"].cgf_sympy(Gaussian([[1]]), sympy.symbols("t", real=True, seq=True))
t**2/2
>>> laplace_quad([[2]], (F(1, 2),))
Fraction(1, 2)
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable

import mpmath
import sympy
from flint import arb, arb_mat, ctx, fmpq

from ..arith.ball import to_ball, workprec
from ..arith.evidence import mpf_from_fraction

__all__ = ["Formulas", "TABLE", "discrete_cgf_sympy", "discrete_tilt_sympy", "discrete_grad_ball_many", "discrete_grad_float",
           "laplace_quad", "rational"]


# ---------------------------------------------------------------------------------------------
# exact helpers

def rational(x) -> sympy.Rational:
    """An exact number as a SymPy Rational."""
    x = Fraction(x)
    return sympy.Rational(x.numerator, x.denominator)


_q = rational


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _quad(S, t) -> Fraction:
    """t^T S t exactly."""
    return sum((S[i][j] * t[i] * t[j] for i in range(len(t)) for j in range(len(t))), Fraction(0))


def _matvec(S, t) -> list:
    return [sum((S[i][j] * t[j] for j in range(len(t))), Fraction(0)) for i in range(len(t))]


laplace_quad = _quad   # the Laplace domain is {theta : theta^T Sigma theta < 2}


def _sym_matrix(S) -> sympy.Matrix:
    return sympy.Matrix([[_q(x) for x in r] for r in S])


def _mp_dot(a, t):
    """<a, t> in mpmath (a exact, t mpf)."""
    return mpmath.fsum(mpf_from_fraction(x) * y for x, y in zip(a, t))


def _mp_quad(S, t):
    """t^T S t in mpmath."""
    return mpmath.fsum(mpf_from_fraction(S[i][j]) * t[i] * t[j] for i in range(len(t)) for j in range(len(t)))


def _mp_matvec(S, t) -> list:
    return [mpmath.fsum(mpf_from_fraction(S[i][j]) * t[j] for j in range(len(t))) for i in range(len(t))]


def _extra_bits(u: Fraction) -> int:
    """Guard bits for cancellation near a removable singularity at u = 0 (|u| < 1)."""
    u = abs(u)
    if u >= 1:
        return 0
    # log2(1/|u|) rounded up, doubled (second derivatives cancel to order u^2), plus slack
    k = (u.denominator.bit_length() - u.numerator.bit_length()) + 1
    return 2 * max(k, 0) + 16


def _exact_to_ball(fn):
    """The ball evaluator of a rational formula: the exact value, rounded once to a ball."""
    def ball(law, t):
        v = fn(law, t)
        if isinstance(v, list):
            return [[to_ball(x) for x in r] if isinstance(r, list) else to_ball(r) for r in v]
        return to_ball(v)
    return ball


@dataclasses.dataclass(frozen=True)
class Formulas:
    """One family's CGF, gradient and Hessian: the SymPy specification and its ball and mpmath evaluators.

    Every function takes the law first, then the symbols (``*_sympy``) or the point theta (a tuple of
    Fractions for ``*_ball``, of mpf for ``*_mp``)."""

    cgf_sympy: Callable
    grad_sympy: Callable
    hess_sympy: Callable
    cgf_ball: Callable
    grad_ball: Callable
    hess_ball: Callable
    cgf_mp: Callable
    grad_mp: Callable
    hess_mp: Callable


# ---------------------------------------------------------------------------------------------
# discrete laws  sum_k w_k delta_{x_k}:  Lambda = log sum_k w_k e^{<x_k, theta>};  grad = tilted mean;
# Hessian = tilted covariance

def discrete_tilt_sympy(theta, atoms, weights) -> tuple:
    """(p, m, H) for sum_k w_k delta_{x_k} at theta, in SymPy: the tilted weights p_k = w_k e^{<x_k, theta>} / Z,
    the tilted mean m = grad Lambda and the tilted covariance H = Hessian of Lambda (formulas, not derivatives).
    ``theta``, ``atoms`` and ``weights`` may be symbolic (sequences of SymPy expressions); exponents are expanded.

    >>> t = sympy.symbols("t", real=True)
    >>> discrete_tilt_sympy([t], [[0], [1]], [sympy.Rational(1, 2)] * 2)[1]
    [exp(t)/(2*(exp(t)/2 + 1/2))]
    """
    theta = list(theta)
    atoms = [list(a) for a in atoms]
    e = [w * sympy.exp(sympy.expand(sympy.Add(*[x * t for x, t in zip(a, theta)]))) for a, w in zip(atoms, weights)]
    Z = sympy.Add(*e)
    d = len(theta)
    m = [sympy.Add(*[ek * a[j] for ek, a in zip(e, atoms)]) / Z for j in range(d)]
    H = [[sympy.Add(*[ek * a[i] * a[j] for ek, a in zip(e, atoms)]) / Z - m[i] * m[j] for j in range(d)]
         for i in range(d)]
    return [ek / Z for ek in e], m, H


def discrete_cgf_sympy(theta, atoms, weights):
    """Lambda(theta) = log sum_k w_k e^{<x_k, theta>} in SymPy; ``theta``, ``atoms`` and ``weights`` may be
    symbolic (sequences of SymPy expressions).

    >>> t = sympy.symbols("t", real=True)
    >>> discrete_cgf_sympy([t], [[0], [1]], [sympy.Rational(1, 2)] * 2)
    log(exp(t)/2 + 1/2)
    """
    theta = list(theta)
    return sympy.log(sympy.Add(*[w * sympy.exp(sympy.Add(*[x * t for x, t in zip(a, theta)]))
                                 for a, w in zip(atoms, weights)]))


def _discrete_sym(law):
    return [[_q(x) for x in a] for a in law.atoms], [_q(w) for w in law.weights]


def _discrete_cgf_sympy(law, th):
    return discrete_cgf_sympy(th, *_discrete_sym(law))


def _discrete_grad_sympy(law, th):
    return discrete_tilt_sympy(th, *_discrete_sym(law))[1]


def _discrete_hess_sympy(law, th):
    return discrete_tilt_sympy(th, *_discrete_sym(law))[2]


def _discrete_tilt_ball(law, t):
    """(max exponent, shifted terms w_k e^{s_k - max}, their sum Z); the shift is exact."""
    s = [_dot(p, t) for p in law.atoms]
    m = max(s)
    e = [to_ball(w) * to_ball(sk - m).exp() if sk != m else to_ball(w) for sk, w in zip(s, law.weights)]
    Z = sum(e[1:], e[0])
    return m, e, Z


def _discrete_cgf_ball(law, t) -> arb:
    m, e, Z = _discrete_tilt_ball(law, t)
    return to_ball(m) + Z.log()


def _discrete_mean_ball(law, p) -> list:
    return [sum((pk * to_ball(a[j]) for pk, a in zip(p, law.atoms)), arb(0)) for j in range(law.dim)]


def _discrete_grad_ball(law, t) -> list:
    m, e, Z = _discrete_tilt_ball(law, t)
    return _discrete_mean_ball(law, [ek / Z for ek in e])


def _discrete_hess_ball(law, t) -> list:
    m, e, Z = _discrete_tilt_ball(law, t)
    p = [ek / Z for ek in e]
    g = _discrete_mean_ball(law, p)
    # centred second moments: sum_k p_k (x_k - g)(x_k - g)^T (tighter balls than E[xx^T] - gg^T)
    H = [[arb(0)] * law.dim for _ in range(law.dim)]
    for pk, a in zip(p, law.atoms):
        c = [to_ball(a[j]) - g[j] for j in range(law.dim)]
        for i in range(law.dim):
            for j in range(i, law.dim):
                H[i][j] = H[i][j] + pk * c[i] * c[j]
    for i in range(law.dim):
        for j in range(i):
            H[i][j] = H[j][i]
    return H


def discrete_grad_ball_many(atoms, weights, thetas) -> list:
    """grad Lambda (the tilted mean) at every theta of ``thetas`` for sum_k w_k delta_{x_k}, as balls at the
    current precision (exact rational inputs).

    Vectorised: logits X.Theta and the weighted sums X^T.E, 1^T.E are ``arb_mat`` products; per column the
    exponents are shifted by the midpoint of the largest one (an exact constant, so the value is unchanged).

    >>> discrete_grad_ball_many([(0,), (1,)], [Fraction(1, 2)] * 2, [(Fraction(0),)])[0][0]
    [0.500000000000000 +/- 1.25e-16]
    """
    d, k, P = len(atoms[0]), len(atoms), len(thetas)
    X = arb_mat([[fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in a] for a in atoms])
    Th = arb_mat([[fmpq(t[c].numerator, t[c].denominator) for t in thetas] for c in range(d)])
    logw = [to_ball(w).log() for w in weights]
    logits = X * Th
    E = arb_mat(k, P)
    for p in range(P):
        col = [logits[j, p] + logw[j] for j in range(k)]
        shift = max(col, key=lambda z: z.mid()).mid()
        for j in range(k):
            E[j, p] = (col[j] - shift).exp()
    S = arb_mat([[1] * k]) * E
    G = X.transpose() * E
    return [[G[c, p] / S[0, p] for c in range(d)] for p in range(P)]


def discrete_grad_float(theta, keys, logw):
    """grad Lambda (the tilted mean) in float64 for sum_k w_k delta_{keys_k}, ``logw`` = log w: numpy arrays,
    vectorised over the leading axes of ``theta`` (softmax of the logits shifted by their maximum).

    >>> import numpy as np
    >>> discrete_grad_float(np.zeros((1, 1)), np.array([[0.0], [1.0]]), np.log([0.5, 0.5]))
    array([[0.5]])
    """
    import numpy as np

    s = theta @ keys.T + logw
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return p @ keys


def _discrete_tilt_mp(law, t):
    s = [_mp_dot(p, t) for p in law.atoms]
    m = max(s)
    e = [mpf_from_fraction(w) * mpmath.exp(sk - m) for sk, w in zip(s, law.weights)]
    return m, e, mpmath.fsum(e)


def _discrete_cgf_mp(law, t):
    m, e, Z = _discrete_tilt_mp(law, t)
    return m + mpmath.log(Z)


def _discrete_grad_mp(law, t):
    m, e, Z = _discrete_tilt_mp(law, t)
    return [mpmath.fsum(ek * mpf_from_fraction(a[j]) for ek, a in zip(e, law.atoms)) / Z for j in range(law.dim)]


def _discrete_hess_mp(law, t):
    m, e, Z = _discrete_tilt_mp(law, t)
    p = [ek / Z for ek in e]
    g = [mpmath.fsum(pk * mpf_from_fraction(a[j]) for pk, a in zip(p, law.atoms)) for j in range(law.dim)]
    return [[mpmath.fsum(pk * (mpf_from_fraction(a[i]) - g[i]) * (mpf_from_fraction(a[j]) - g[j])
                         for pk, a in zip(p, law.atoms)) for j in range(law.dim)] for i in range(law.dim)]


# ---------------------------------------------------------------------------------------------
# uniform cubes  Unif(c + [-r, r]^d):  Lambda = <c, theta> + sum_k g(r theta_k),  g(u) = log(sinh u / u)

def _cube_cgf_sympy(law, th):
    r = _q(law.radius)
    return sympy.Add(*[_q(c) * t for c, t in zip(law.center, th)]) + sympy.Add(
        *[sympy.log(sympy.sinh(r * t) / (r * t)) for t in th])


def _cube_grad_sympy(law, th):
    r = _q(law.radius)
    return [_q(c) + r * sympy.coth(r * t) - 1 / t for c, t in zip(law.center, th)]


def _cube_hess_sympy(law, th):
    r = _q(law.radius)
    return [[(1 / th[i] ** 2 - r ** 2 / sympy.sinh(r * th[i]) ** 2) if i == j else sympy.Integer(0)
             for j in range(law.dim)] for i in range(law.dim)]


def _g_ball(u: Fraction):
    """(g(u), g'(u), g''(u)) for g(u) = log(sinh u / u), rigorous; exact limits at u = 0."""
    if u == 0:
        return arb(0), arb(0), arb(1) / 3
    extra = _extra_bits(u)
    with workprec(int(ctx.prec) + extra):
        ub = to_ball(u)
        sh = ub.sinh()
        g = (sh / ub).log()
        g1 = ub.coth() - 1 / ub
        g2 = 1 / (ub * ub) - 1 / (sh * sh)
    return g, g1, g2


def _g_mp(u):
    if u == 0:
        return mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(1) / 3
    a = abs(u)
    extra = 0 if a >= 1 else int(2 * (-mpmath.log(a, 2))) + 16
    with mpmath.extraprec(extra):
        g = mpmath.log(mpmath.sinh(u) / u)
        g1 = mpmath.coth(u) - 1 / u
        g2 = 1 / u ** 2 - 1 / mpmath.sinh(u) ** 2
    return +g, +g1, +g2


def _cube_cgf_ball(law, t):
    s = to_ball(_dot(law.center, t))
    for x in t:
        s += _g_ball(law.radius * x)[0]
    return s


def _cube_grad_ball(law, t):
    r = to_ball(law.radius)
    return [to_ball(c) + r * _g_ball(law.radius * x)[1] for c, x in zip(law.center, t)]


def _cube_hess_ball(law, t):
    r2 = to_ball(law.radius * law.radius)
    diag = [r2 * _g_ball(law.radius * x)[2] for x in t]
    return [[diag[i] if i == j else arb(0) for j in range(law.dim)] for i in range(law.dim)]


def _cube_cgf_mp(law, t):
    r = mpf_from_fraction(law.radius)
    return _mp_dot(law.center, t) + mpmath.fsum(_g_mp(r * x)[0] for x in t)


def _cube_grad_mp(law, t):
    r = mpf_from_fraction(law.radius)
    return [mpf_from_fraction(c) + r * _g_mp(r * x)[1] for c, x in zip(law.center, t)]


def _cube_hess_mp(law, t):
    r = mpf_from_fraction(law.radius)
    return [[r * r * _g_mp(r * t[i])[2] if i == j else mpmath.mpf(0) for j in range(law.dim)]
            for i in range(law.dim)]


# ---------------------------------------------------------------------------------------------
# symmetric Laplace  SL(m, Sigma):  Lambda = <m, theta> - log(1 - q),  q = theta^T Sigma theta / 2 < 1

def _laplace_parts_sympy(law, th):
    """(Sigma, q, Sigma theta) in SymPy."""
    S = _sym_matrix(law.cov)
    v = sympy.Matrix(th)
    return S, (v.T * S * v)[0, 0] / 2, S * v


def _laplace_cgf_sympy(law, th):
    _, q, _ = _laplace_parts_sympy(law, th)
    return sympy.Add(*[_q(m) * t for m, t in zip(law.mean, th)]) - sympy.log(1 - q)


def _laplace_grad_sympy(law, th):
    _, q, St = _laplace_parts_sympy(law, th)
    return [_q(law.mean[i]) + St[i] / (1 - q) for i in range(law.dim)]


def _laplace_hess_sympy(law, th):
    S, q, St = _laplace_parts_sympy(law, th)
    return [[S[i, j] / (1 - q) + St[i] * St[j] / (1 - q) ** 2 for j in range(law.dim)] for i in range(law.dim)]


def laplace_grad_exact(law, t) -> list:
    one_q = 1 - _quad(law.cov, t) / 2
    St = _matvec(law.cov, t)
    return [m + s / one_q for m, s in zip(law.mean, St)]


def laplace_hess_exact(law, t) -> list:
    one_q = 1 - _quad(law.cov, t) / 2
    St = _matvec(law.cov, t)
    return [[law.cov[i][j] / one_q + St[i] * St[j] / (one_q * one_q) for j in range(law.dim)]
            for i in range(law.dim)]


def _laplace_cgf_ball(law, t):
    one_q = 1 - _quad(law.cov, t) / 2
    return to_ball(_dot(law.mean, t)) - to_ball(one_q).log()


def _laplace_cgf_mp(law, t):
    return _mp_dot(law.mean, t) - mpmath.log(1 - _mp_quad(law.cov, t) / 2)


def _laplace_grad_mp(law, t):
    oq = 1 - _mp_quad(law.cov, t) / 2
    return [mpf_from_fraction(m) + s / oq for m, s in zip(law.mean, _mp_matvec(law.cov, t))]


def _laplace_hess_mp(law, t):
    oq = 1 - _mp_quad(law.cov, t) / 2
    St = _mp_matvec(law.cov, t)
    return [[mpf_from_fraction(law.cov[i][j]) / oq + St[i] * St[j] / oq ** 2 for j in range(law.dim)]
            for i in range(law.dim)]


laplace_quad_mp = _mp_quad   # the domain test of the mpmath evaluators


# ---------------------------------------------------------------------------------------------
# Gaussians  N(m, Sigma):  Lambda = <m, theta> + theta^T Sigma theta / 2  (the Gaussian part of a mixture,
# with m = c, too)

def _gaussian_cgf_sympy(law, th):
    S = _sym_matrix(law.cov)
    v = sympy.Matrix(th)
    return sympy.Add(*[_q(m) * t for m, t in zip(law.mean, th)]) + (v.T * S * v)[0, 0] / 2


def _gaussian_grad_sympy(law, th):
    St = _sym_matrix(law.cov) * sympy.Matrix(th)
    return [_q(law.mean[i]) + St[i] for i in range(law.dim)]


def _gaussian_hess_sympy(law, th):
    return [[_q(x) for x in r] for r in law.cov]


def gaussian_cgf_exact(law, t) -> Fraction:
    return _dot(law.mean, t) + _quad(law.cov, t) / 2


def gaussian_grad_exact(law, t) -> list:
    return [m + s for m, s in zip(law.mean, _matvec(law.cov, t))]


def gaussian_hess_exact(law, t) -> list:
    return [list(r) for r in law.cov]


def _gaussian_cgf_mp(law, t):
    return _mp_dot(law.mean, t) + _mp_quad(law.cov, t) / 2


def _gaussian_grad_mp(law, t):
    return [mpf_from_fraction(law.mean[i]) + s for i, s in enumerate(_mp_matvec(law.cov, t))]


def _gaussian_hess_mp(law, t):
    return [[mpf_from_fraction(x) for x in r] for r in law.cov]


# ---------------------------------------------------------------------------------------------
# Gaussian mixtures  1/2 N(c + m, Sigma) + 1/2 N(c - m, Sigma), m = a u:
# Lambda = <c, theta> + theta^T Sigma theta / 2 + log cosh <m, theta>   (law.mean is c)

def _m_sympy(law):
    u = [_q(x) for x in law.direction]
    nrm = sympy.sqrt(_q(law.dir_norm2))
    return [_q(law.separation) * x / nrm for x in u]


def _s_sympy(law, th):
    return sympy.Add(*[mi * t for mi, t in zip(_m_sympy(law), th)])


def _mixture_cgf_sympy(law, th):
    return _gaussian_cgf_sympy(law, th) + sympy.log(sympy.cosh(_s_sympy(law, th)))


def _mixture_grad_sympy(law, th):
    m = _m_sympy(law)
    s = _s_sympy(law, th)
    return [g + sympy.tanh(s) * m[i] for i, g in enumerate(_gaussian_grad_sympy(law, th))]


def _mixture_hess_sympy(law, th):
    m = _m_sympy(law)
    s = _s_sympy(law, th)
    return [[_q(law.cov[i][j]) + sympy.sech(s) ** 2 * m[i] * m[j] for j in range(law.dim)]
            for i in range(law.dim)]


def _s_ball(law, t):
    return to_ball(law.scale2).sqrt() * to_ball(_dot(law.direction, t))


def _mixture_cgf_ball(law, t):
    base = to_ball(gaussian_cgf_exact(law, t))
    if law.separation == 0:
        return base
    return base + _s_ball(law, t).cosh().log()


def _mixture_grad_ball(law, t):
    base = gaussian_grad_exact(law, t)
    if law.separation == 0:
        return [to_ball(x) for x in base]
    k = to_ball(law.scale2).sqrt()
    th = (k * to_ball(_dot(law.direction, t))).tanh()
    return [to_ball(b) + th * k * to_ball(u) for b, u in zip(base, law.direction)]


def _mixture_hess_ball(law, t):
    if law.separation == 0:
        return _exact_to_ball(gaussian_hess_exact)(law, t)
    sech2 = _s_ball(law, t).sech() ** 2
    return [[to_ball(law.cov[i][j]) + sech2 * to_ball(law.m_outer[i][j]) for j in range(law.dim)]
            for i in range(law.dim)]


def _s_mp(law, t):
    return mpmath.sqrt(mpf_from_fraction(law.scale2)) * _mp_dot(law.direction, t)


def _mixture_cgf_mp(law, t):
    return _gaussian_cgf_mp(law, t) + mpmath.log(mpmath.cosh(_s_mp(law, t)))


def _mixture_grad_mp(law, t):
    k = mpmath.sqrt(mpf_from_fraction(law.scale2))
    th = mpmath.tanh(_s_mp(law, t))
    return [g + th * k * mpf_from_fraction(law.direction[i]) for i, g in enumerate(_gaussian_grad_mp(law, t))]


def _mixture_hess_mp(law, t):
    sech2 = mpmath.sech(_s_mp(law, t)) ** 2
    return [[mpf_from_fraction(law.cov[i][j]) + sech2 * mpf_from_fraction(law.m_outer[i][j])
             for j in range(law.dim)] for i in range(law.dim)]


# ---------------------------------------------------------------------------------------------
# the table

TABLE = {
    "discrete": Formulas(_discrete_cgf_sympy, _discrete_grad_sympy, _discrete_hess_sympy,
                         _discrete_cgf_ball, _discrete_grad_ball, _discrete_hess_ball,
                         _discrete_cgf_mp, _discrete_grad_mp, _discrete_hess_mp),
    "uniform_cube": Formulas(_cube_cgf_sympy, _cube_grad_sympy, _cube_hess_sympy,
                             _cube_cgf_ball, _cube_grad_ball, _cube_hess_ball,
                             _cube_cgf_mp, _cube_grad_mp, _cube_hess_mp),
    "laplace": Formulas(_laplace_cgf_sympy, _laplace_grad_sympy, _laplace_hess_sympy,
                        _laplace_cgf_ball, _exact_to_ball(laplace_grad_exact), _exact_to_ball(laplace_hess_exact),
                        _laplace_cgf_mp, _laplace_grad_mp, _laplace_hess_mp),
    "gaussian_mixture": Formulas(_mixture_cgf_sympy, _mixture_grad_sympy, _mixture_hess_sympy,
                                 _mixture_cgf_ball, _mixture_grad_ball, _mixture_hess_ball,
                                 _mixture_cgf_mp, _mixture_grad_mp, _mixture_hess_mp),
    "gaussian": Formulas(_gaussian_cgf_sympy, _gaussian_grad_sympy, _gaussian_hess_sympy,
                         _exact_to_ball(gaussian_cgf_exact), _exact_to_ball(gaussian_grad_exact),
                         _exact_to_ball(gaussian_hess_exact),
                         _gaussian_cgf_mp, _gaussian_grad_mp, _gaussian_hess_mp),
}
