"""Probability laws with exact parameters and their cumulant generating functions (CGFs).

    Lambda_mu(theta) = log E_mu exp(<theta, Y>)          (spec lse.md section 2, 6)

Five families, each with exact (``Fraction``) parameters:

* :class:`Discrete` -- sum_k w_k delta_{x_k} (rational atoms and weights), domain R^d;
* :class:`UniformCube` -- Unif(c + [-r, r]^d), domain R^d;
* :class:`SymmetricLaplace` -- law of m + sqrt(W) Z, W ~ Exp(1), Z ~ N(0, Sigma); domain theta^T Sigma theta < 2;
* :class:`GaussianMixture` -- 1/2 N(c + a u, Sigma) + 1/2 N(c - a u, Sigma), u = direction/|direction|;
* :class:`Gaussian` -- N(m, Sigma).

Each law offers its CGF, gradient and Hessian three ways:

* ``cgf_sympy`` / ``grad_sympy`` / ``hess_sympy``: SymPy closed forms (the formulas of lse.md section 6);
* ``cgf_ball`` / ``grad_ball`` / ``hess_ball``: rigorous python-flint ``arb`` enclosures at exact rational theta
  (removable singularities, e.g. a cube at theta_k = 0, are handled exactly; near them the working precision
  is raised so cancellation cannot swallow the result);
* ``cgf_mp`` / ``grad_mp`` / ``hess_mp``: mpmath values at the current mpmath precision (**evidence** only).

Invalid parameters raise :class:`verify.errors.InputError` naming the field; a theta outside the CGF domain
raises :class:`verify.errors.DomainError`.

>>> mu = Discrete([[0], [1]])                      # 1/2 (delta_0 + delta_1)
>>> mu.cgf_ball([0])                              # log 1 = 0 exactly
0
>>> mu.grad_ball([0])[0]
0.500000000000000
>>> L = SymmetricLaplace([[1]])
>>> L.in_domain([1]), L.in_domain([2])
(True, False)
>>> L.cgf_ball([2])
Traceback (most recent call last):
...
verify.errors.DomainError: theta: theta^T Sigma theta = 4 must be < 2 (outside the CGF domain of the Laplace law)
>>> distribution_from_dict(UniformCube("1/2", center=[0, 1]).to_dict()) == UniformCube("1/2", center=[0, 1])
True
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, Optional, Sequence

import mpmath
import sympy
from flint import arb, ctx

from ..arith.ball import to_ball, workprec
from ..arith.evidence import mpf_from_fraction
from ..arith.exact import fraction_str, parse_exact, parse_matrix, parse_vector
from ..errors import DomainError, InputError, InputTypeError

__all__ = [
    "Distribution", "Discrete", "UniformCube", "SymmetricLaplace", "GaussianMixture", "Gaussian",
    "distribution_from_dict", "theta_symbols", "check_spd", "FAMILIES", "MAX_DIM", "MAX_ATOMS",
]

MAX_DIM = 16          # dimension d of a law
MAX_ATOMS = 10_000    # atoms of a discrete law
MAX_MAGNITUDE = 10**9  # |parameter| (atoms, radius, separation, means, covariance entries); larger is refused up front


def _bounded(values, field):
    """Refuse parameters beyond MAX_MAGNITUDE (they make every enclosure overflow)."""
    for i, v in enumerate(values):
        if abs(v) > MAX_MAGNITUDE:
            name = field if len(values) == 1 else f"{field}[{i}]"
            raise InputError(name, f"|value| exceeds the limit {MAX_MAGNITUDE} (10^9)")
    return values

FAMILIES = ("discrete", "uniform_cube", "laplace", "gaussian_mixture", "gaussian")


# ---------------------------------------------------------------------------------------------
# helpers

def theta_symbols(dim: int) -> tuple:
    """Real SymPy symbols theta_1..theta_d.

    >>> theta_symbols(2)
    (theta_1, theta_2)
    """
    return tuple(sympy.Symbol(f"theta_{k + 1}", real=True) for k in range(dim))


def _q(x) -> sympy.Rational:
    x = Fraction(x)
    return sympy.Rational(x.numerator, x.denominator)


def _check_dim(dim, field="dim") -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise InputTypeError(field, f"must be an integer, got {type(dim).__name__}")
    if not 1 <= dim <= MAX_DIM:
        raise InputError(field, f"must be in [1, {MAX_DIM}], got {dim}")
    return dim


def check_spd(cov, field: str = "cov", *, allow_float: bool = False) -> tuple:
    """Parse a covariance and check exactly that it is symmetric positive definite (LDL^T over Q:
    every pivot > 0, i.e. Sylvester's criterion).  Returns the matrix as a tuple of Fraction rows.

    >>> check_spd([[2, 1], [1, 2]])[0]
    (Fraction(2, 1), Fraction(1, 1))
    >>> check_spd([[1, 2], [2, 1]])
    Traceback (most recent call last):
    ...
    verify.errors.InputError: cov: not positive definite (LDL pivot 2 is -3, must be > 0)
    """
    S = parse_matrix(cov, field, allow_float=allow_float, max_size=MAX_DIM)
    for i, row in enumerate(S):
        _bounded(row, f"{field}[{i}]")
    n = len(S)
    if len(S[0]) != n:
        raise InputError(field, f"must be square, got {n}x{len(S[0])}")
    for i in range(n):
        for j in range(i + 1, n):
            if S[i][j] != S[j][i]:
                raise InputError(field, f"not symmetric: entry ({i},{j}) = {fraction_str(S[i][j])} but "
                                        f"({j},{i}) = {fraction_str(S[j][i])}")
    A = [list(r) for r in S]
    for k in range(n):
        piv = A[k][k]
        if piv <= 0:
            raise InputError(field, f"not positive definite (LDL pivot {k + 1} is {fraction_str(piv)}, must be > 0)")
        for i in range(k + 1, n):
            f = A[i][k] / piv
            if f:
                for j in range(k + 1, n):
                    A[i][j] -= f * A[k][j]
    return S


def _vec(values, field, dim=None, allow_float=False) -> tuple:
    if dim is not None:
        return _bounded(parse_vector(values, field, dim=dim, allow_float=allow_float), field)
    v = _bounded(parse_vector(values, field, allow_float=allow_float, max_len=MAX_DIM), field)
    if not v:
        raise InputError(field, "must not be empty")
    return v


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _quad(S, t) -> Fraction:
    """t^T S t exactly."""
    return sum((S[i][j] * t[i] * t[j] for i in range(len(t)) for j in range(len(t))), Fraction(0))


def _matvec(S, t) -> list:
    return [sum((S[i][j] * t[j] for j in range(len(t))), Fraction(0)) for i in range(len(t))]


def _mp(x):
    if isinstance(x, (Fraction, int)):
        return mpf_from_fraction(x)
    if isinstance(x, str):
        return mpf_from_fraction(parse_exact(x, "theta"))
    return mpmath.mpf(x)


def _extra_bits(u: Fraction) -> int:
    """Guard bits for cancellation near a removable singularity at u = 0 (|u| < 1)."""
    u = abs(u)
    if u >= 1:
        return 0
    # log2(1/|u|) rounded up, doubled (second derivatives cancel to order u^2), plus slack
    k = (u.denominator.bit_length() - u.numerator.bit_length()) + 1
    return 2 * max(k, 0) + 16


def _prec() -> int:
    return int(ctx.prec)


class _PrecisionScope:
    def __init__(self, prec):
        self.prec = prec
        self.cm = None

    def __enter__(self):
        if self.prec is not None:
            self.cm = workprec(int(self.prec))
            self.cm.__enter__()

    def __exit__(self, *exc):
        if self.cm is not None:
            return self.cm.__exit__(*exc)
        return False


# ---------------------------------------------------------------------------------------------
# the base class

class Distribution:
    """Common interface of the five families (see the module docstring)."""

    family: str = ""
    dim: int = 0

    # -- parameters -----------------------------------------------------------------------
    @property
    def params(self) -> dict:
        """The exact parameters (Fractions), as a dict."""
        raise NotImplementedError

    def to_dict(self) -> dict:
        """JSON-ready SPEC entry (issue 4 format): exact numbers as ``"p/q"`` strings (a fresh copy)."""
        cached = self.__dict__.get("_dict_cache")
        if cached is None:
            def conv(v):
                if isinstance(v, Fraction):
                    return fraction_str(v)
                if isinstance(v, (list, tuple)):
                    return tuple(conv(x) for x in v)
                return v
            cached = {"family": self.family, **{k: conv(v) for k, v in self.params.items() if v is not None}}
            self.__dict__["_dict_cache"] = cached

        def fresh(v):
            return [fresh(x) for x in v] if isinstance(v, tuple) else v
        return {k: fresh(v) for k, v in cached.items()}

    def _key(self):
        return (self.family, repr(self.to_dict()))

    def __eq__(self, other):
        return isinstance(other, Distribution) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "family")
        return f"{type(self).__name__}({items})"

    # -- structure used by the independence screen ------------------------------------------
    def location(self) -> tuple:
        """A point ``l`` such that the law is ``translation_class()`` translated by ``l``."""
        raise NotImplementedError

    def translation_class(self):
        """A hashable exact key: two laws have equal keys iff one is a translate of the other."""
        raise NotImplementedError

    def is_dirac(self) -> bool:
        return False

    def is_gaussian(self) -> bool:
        """True for laws that are Gaussian (including a mixture with separation 0)."""
        return False

    # -- domain -------------------------------------------------------------------------------
    def _theta(self, theta, field="theta") -> tuple:
        if isinstance(theta, tuple) and len(theta) == self.dim and all(type(t) is Fraction for t in theta):
            return theta
        return parse_vector(theta, field, dim=self.dim)

    def in_domain(self, theta) -> bool:
        """Exact test that theta lies in the (open) domain of the CGF."""
        self._theta(theta)
        return True

    def _require_domain(self, theta) -> tuple:
        t = self._theta(theta)
        if not self.in_domain(t):
            raise DomainError("theta", f"{[fraction_str(x) for x in t]} is outside the CGF domain")
        return t

    # -- symbolic -----------------------------------------------------------------------------
    def _symbols(self, theta_symbols_):
        if theta_symbols_ is None:
            return theta_symbols(self.dim)
        th = tuple(theta_symbols_)
        if len(th) != self.dim:
            raise InputError("theta_symbols", f"expected {self.dim} symbols, got {len(th)}")
        return th

    def cgf_sympy(self, theta_symbols=None):
        raise NotImplementedError

    def grad_sympy(self, theta_symbols=None) -> list:
        th = self._symbols(theta_symbols)
        L = self.cgf_sympy(th)
        return [sympy.diff(L, t) for t in th]

    def hess_sympy(self, theta_symbols=None) -> list:
        th = self._symbols(theta_symbols)
        g = self.grad_sympy(th)
        return [[sympy.diff(g[i], th[j]) for j in range(self.dim)] for i in range(self.dim)]

    # -- rigorous balls -----------------------------------------------------------------------
    def cgf_ball(self, theta, prec: Optional[int] = None) -> arb:
        t = self._require_domain(theta)
        with _PrecisionScope(prec):
            return self._cgf_ball(t)

    def grad_ball(self, theta, prec: Optional[int] = None) -> list:
        t = self._require_domain(theta)
        with _PrecisionScope(prec):
            return self._grad_ball(t)

    def hess_ball(self, theta, prec: Optional[int] = None) -> list:
        t = self._require_domain(theta)
        with _PrecisionScope(prec):
            return self._hess_ball(t)

    # -- mpmath evidence ----------------------------------------------------------------------
    def _theta_mp(self, theta) -> list:
        theta = list(theta)
        if len(theta) != self.dim:
            raise InputError("theta", f"expected length {self.dim}, got {len(theta)}")
        return [_mp(x) for x in theta]

    def cgf_mp(self, theta):
        return self._cgf_mp(self._theta_mp_checked(theta))

    def grad_mp(self, theta) -> list:
        return self._grad_mp(self._theta_mp_checked(theta))

    def hess_mp(self, theta) -> list:
        return self._hess_mp(self._theta_mp_checked(theta))

    def _theta_mp_checked(self, theta):
        return self._theta_mp(theta)

    # -- transformations ----------------------------------------------------------------------
    def translated(self, a) -> "Distribution":
        """The law of Y + a (CGF + <a, theta>)."""
        raise NotImplementedError

    def dilated(self, lam) -> "Distribution":
        """The law of lam * Y, lam != 0 (CGF Lambda(lam theta))."""
        raise NotImplementedError

    def _lam(self, lam) -> Fraction:
        lam = parse_exact(lam, "lam")
        if lam == 0:
            raise InputError("lam", "must be != 0")
        return lam

    # -- notebooks ----------------------------------------------------------------------------
    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"

    def _repr_markdown_(self) -> str:
        return f"**{type(self).__name__}** (d = {self.dim}): ${self._latex()}$"

    def _latex(self) -> str:
        return sympy.latex(sympy.Symbol(type(self).__name__))


def _lat(q) -> str:
    return sympy.latex(_q(q))


def _lat_vec(v) -> str:
    return "(" + ", ".join(_lat(x) for x in v) + ")"


def _lat_mat(S) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(_lat(x) for x in row) for row in S) + r"\end{pmatrix}"


# ---------------------------------------------------------------------------------------------
# Discrete laws

class Discrete(Distribution):
    """sum_k w_k delta_{x_k}; atoms a list of points of one dimension (numbers allowed for d = 1),
    weights positive and summing to 1 (``None``: uniform).  Repeated atoms are merged (weights added).

    >>> Discrete([[0, 0], [1, 1]], ["1/4", "3/4"]).params["weights"]
    [Fraction(1, 4), Fraction(3, 4)]
    >>> Discrete([[0], [1]], [1, 1])
    Traceback (most recent call last):
    ...
    verify.errors.InputError: weights: must sum to 1, got 2
    """

    family = "discrete"

    def __init__(self, atoms, weights=None, *, allow_float: bool = False):
        if isinstance(atoms, (str, bytes)) or not hasattr(atoms, "__len__"):
            raise InputTypeError("atoms", f"expected a list of points, got {type(atoms).__name__}")
        atoms = list(atoms)
        if not atoms:
            raise InputError("atoms", "must contain at least one atom")
        if len(atoms) > MAX_ATOMS:
            raise InputError("atoms", f"{len(atoms)} atoms exceed the limit {MAX_ATOMS}")
        pts = []
        for k, x in enumerate(atoms):
            if isinstance(x, (numbers.Number, str)) and not isinstance(x, bool):
                x = [x]
            pts.append(_vec(x, f"atoms[{k}]", allow_float=allow_float))
        dim = len(pts[0])
        _check_dim(dim, "atoms[0]")
        for k, p in enumerate(pts):
            if len(p) != dim:
                raise InputError(f"atoms[{k}]", f"has dimension {len(p)}, atoms[0] has dimension {dim} "
                                                "(all atoms must have the same dimension)")
        if weights is None:
            w = [Fraction(1, len(pts))] * len(pts)
        else:
            w = list(parse_vector(weights, "weights", dim=len(pts), allow_float=allow_float))
            for k, x in enumerate(w):
                if x <= 0:
                    raise InputError(f"weights[{k}]", f"must be > 0, got {fraction_str(x)}")
            s = sum(w, Fraction(0))
            if s != 1:
                raise InputError("weights", f"must sum to 1, got {fraction_str(s)}")
        merged: dict = {}
        order = []
        for p, x in zip(pts, w):
            if p not in merged:
                merged[p] = Fraction(0)
                order.append(p)
            merged[p] += x
        self.atoms = tuple(order)
        self.weights = tuple(merged[p] for p in order)
        self.dim = dim

    @property
    def params(self) -> dict:
        return {"atoms": [list(a) for a in self.atoms], "weights": list(self.weights)}

    def is_dirac(self) -> bool:
        return len(self.atoms) == 1

    def location(self) -> tuple:
        return min(self.atoms)

    def translation_class(self):
        loc = self.location()
        return ("discrete", tuple(sorted((tuple(x - l for x, l in zip(a, loc)), w)
                                         for a, w in zip(self.atoms, self.weights))))

    def translated(self, a) -> "Discrete":
        a = parse_vector(a, "a", dim=self.dim)
        return Discrete([[x + y for x, y in zip(p, a)] for p in self.atoms], list(self.weights))

    def dilated(self, lam) -> "Discrete":
        lam = self._lam(lam)
        return Discrete([[lam * x for x in p] for p in self.atoms], list(self.weights))

    # CGF
    def cgf_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        return sympy.log(sympy.Add(*[_q(w) * sympy.exp(sympy.Add(*[_q(x) * t for x, t in zip(p, th)]))
                                     for p, w in zip(self.atoms, self.weights)]))

    def grad_sympy(self, theta_symbols=None) -> list:
        th = self._symbols(theta_symbols)
        e = [_q(w) * sympy.exp(sympy.Add(*[_q(x) * t for x, t in zip(p, th)])) for p, w in zip(self.atoms, self.weights)]
        Z = sympy.Add(*e)
        return [sympy.Add(*[ek * _q(p[j]) for ek, p in zip(e, self.atoms)]) / Z for j in range(self.dim)]

    def hess_sympy(self, theta_symbols=None) -> list:
        th = self._symbols(theta_symbols)
        e = [_q(w) * sympy.exp(sympy.Add(*[_q(x) * t for x, t in zip(p, th)])) for p, w in zip(self.atoms, self.weights)]
        Z = sympy.Add(*e)
        g = [sympy.Add(*[ek * _q(p[j]) for ek, p in zip(e, self.atoms)]) / Z for j in range(self.dim)]
        return [[sympy.Add(*[ek * _q(p[i]) * _q(p[j]) for ek, p in zip(e, self.atoms)]) / Z - g[i] * g[j]
                 for j in range(self.dim)] for i in range(self.dim)]

    def _tilt_ball(self, t):
        s = [_dot(p, t) for p in self.atoms]
        m = max(s)
        e = [to_ball(w) * to_ball(sk - m).exp() if sk != m else to_ball(w) for sk, w in zip(s, self.weights)]
        Z = sum(e[1:], e[0])
        return m, e, Z

    def _cgf_ball(self, t) -> arb:
        m, e, Z = self._tilt_ball(t)
        return to_ball(m) + Z.log()

    def _grad_ball(self, t) -> list:
        m, e, Z = self._tilt_ball(t)
        p = [ek / Z for ek in e]
        return [sum((pk * to_ball(a[j]) for pk, a in zip(p, self.atoms)), arb(0)) for j in range(self.dim)]

    def _hess_ball(self, t) -> list:
        m, e, Z = self._tilt_ball(t)
        p = [ek / Z for ek in e]
        g = [sum((pk * to_ball(a[j]) for pk, a in zip(p, self.atoms)), arb(0)) for j in range(self.dim)]
        # centred second moments: sum_k p_k (x_k - g)(x_k - g)^T (tighter balls than E[xx^T] - gg^T)
        H = [[arb(0)] * self.dim for _ in range(self.dim)]
        for pk, a in zip(p, self.atoms):
            c = [to_ball(a[j]) - g[j] for j in range(self.dim)]
            for i in range(self.dim):
                for j in range(i, self.dim):
                    H[i][j] = H[i][j] + pk * c[i] * c[j]
        for i in range(self.dim):
            for j in range(i):
                H[i][j] = H[j][i]
        return H

    def _tilt_mp(self, t):
        s = [mpmath.fsum(mpf_from_fraction(x) * y for x, y in zip(p, t)) for p in self.atoms]
        m = max(s)
        e = [mpf_from_fraction(w) * mpmath.exp(sk - m) for sk, w in zip(s, self.weights)]
        return m, e, mpmath.fsum(e)

    def _cgf_mp(self, t):
        m, e, Z = self._tilt_mp(t)
        return m + mpmath.log(Z)

    def _grad_mp(self, t):
        m, e, Z = self._tilt_mp(t)
        return [mpmath.fsum(ek * mpf_from_fraction(a[j]) for ek, a in zip(e, self.atoms)) / Z for j in range(self.dim)]

    def _hess_mp(self, t):
        m, e, Z = self._tilt_mp(t)
        p = [ek / Z for ek in e]
        g = [mpmath.fsum(pk * mpf_from_fraction(a[j]) for pk, a in zip(p, self.atoms)) for j in range(self.dim)]
        return [[mpmath.fsum(pk * (mpf_from_fraction(a[i]) - g[i]) * (mpf_from_fraction(a[j]) - g[j])
                             for pk, a in zip(p, self.atoms)) for j in range(self.dim)] for i in range(self.dim)]

    def _latex(self) -> str:
        return " + ".join(f"{_lat(w)}\\,\\delta_{{{_lat_vec(a)}}}" for a, w in zip(self.atoms, self.weights))


# ---------------------------------------------------------------------------------------------
# Uniform cubes

def _g_ball(u: Fraction):
    """(g(u), g'(u), g''(u)) for g(u) = log(sinh u / u), rigorous; exact limits at u = 0."""
    if u == 0:
        return arb(0), arb(0), arb(1) / 3
    extra = _extra_bits(u)
    with workprec(_prec() + extra):
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


class UniformCube(Distribution):
    """Uniform law on c + [-r, r]^d.  ``dim`` defaults to ``len(center)`` (or 1).

    Lambda(theta) = <c, theta> + sum_k g(r theta_k), g(u) = log(sinh u / u), g(0) = 0.

    >>> C = UniformCube(1, dim=2)
    >>> C.hess_ball([0, 0])[0][0]      # r^2 / 3 exactly at theta_k = 0
    [0.333333333333333 +/- 3.71e-16]
    >>> UniformCube(0)
    Traceback (most recent call last):
    ...
    verify.errors.InputError: radius: must be > 0, got 0
    """

    family = "uniform_cube"

    def __init__(self, radius, center=None, dim=None, *, allow_float: bool = False):
        r = _bounded([parse_exact(radius, "radius", allow_float=allow_float)], "radius")[0]
        if r <= 0:
            raise InputError("radius", f"must be > 0, got {fraction_str(r)}")
        if center is not None:
            c = _vec(center, "center", allow_float=allow_float)
            _check_dim(len(c), "center")
            if dim is not None and _check_dim(dim) != len(c):
                raise InputError("dim", f"is {dim} but center has length {len(c)}")
        else:
            d = 1 if dim is None else _check_dim(dim)
            c = tuple(Fraction(0) for _ in range(d))
        self.radius = r
        self.center = c
        self.dim = len(c)

    @property
    def params(self) -> dict:
        return {"radius": self.radius, "center": list(self.center)}

    def location(self):
        return self.center

    def translation_class(self):
        return ("uniform_cube", self.dim, self.radius)

    def translated(self, a):
        a = parse_vector(a, "a", dim=self.dim)
        return UniformCube(self.radius, [x + y for x, y in zip(self.center, a)])

    def dilated(self, lam):
        lam = self._lam(lam)
        return UniformCube(abs(lam) * self.radius, [lam * x for x in self.center])

    def cgf_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        r = _q(self.radius)
        return sympy.Add(*[_q(c) * t for c, t in zip(self.center, th)]) + sympy.Add(
            *[sympy.log(sympy.sinh(r * t) / (r * t)) for t in th])

    def grad_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        r = _q(self.radius)
        return [_q(c) + r * sympy.coth(r * t) - 1 / t for c, t in zip(self.center, th)]

    def hess_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        r = _q(self.radius)
        return [[(1 / th[i] ** 2 - r ** 2 / sympy.sinh(r * th[i]) ** 2) if i == j else sympy.Integer(0)
                 for j in range(self.dim)] for i in range(self.dim)]

    def _cgf_ball(self, t):
        s = to_ball(_dot(self.center, t))
        for x in t:
            s += _g_ball(self.radius * x)[0]
        return s

    def _grad_ball(self, t):
        r = to_ball(self.radius)
        return [to_ball(c) + r * _g_ball(self.radius * x)[1] for c, x in zip(self.center, t)]

    def _hess_ball(self, t):
        r2 = to_ball(self.radius * self.radius)
        diag = [r2 * _g_ball(self.radius * x)[2] for x in t]
        return [[diag[i] if i == j else arb(0) for j in range(self.dim)] for i in range(self.dim)]

    def _cgf_mp(self, t):
        r = mpf_from_fraction(self.radius)
        return mpmath.fsum(mpf_from_fraction(c) * x for c, x in zip(self.center, t)) + mpmath.fsum(
            _g_mp(r * x)[0] for x in t)

    def _grad_mp(self, t):
        r = mpf_from_fraction(self.radius)
        return [mpf_from_fraction(c) + r * _g_mp(r * x)[1] for c, x in zip(self.center, t)]

    def _hess_mp(self, t):
        r = mpf_from_fraction(self.radius)
        return [[r * r * _g_mp(r * t[i])[2] if i == j else mpmath.mpf(0) for j in range(self.dim)]
                for i in range(self.dim)]

    def _latex(self):
        return rf"\mathrm{{Unif}}\left({_lat_vec(self.center)} + [-{_lat(self.radius)}, {_lat(self.radius)}]^{{{self.dim}}}\right)"


# ---------------------------------------------------------------------------------------------
# Laws with quadratic-form structure: Laplace, Gaussian, mixtures

class _CovLaw(Distribution):
    def _init_cov(self, cov, mean, mean_field, allow_float):
        self.cov = check_spd(cov, "cov", allow_float=allow_float)
        self.dim = _check_dim(len(self.cov), "cov")
        if mean is None:
            self.mean = tuple(Fraction(0) for _ in range(self.dim))
        else:
            self.mean = _bounded(parse_vector(mean, mean_field, dim=self.dim, allow_float=allow_float), mean_field)


class SymmetricLaplace(_CovLaw):
    """Symmetric multivariate Laplace law SL(m, Sigma) = law of m + sqrt(W) Z, W ~ Exp(1), Z ~ N(0, Sigma).

    Lambda(theta) = <m, theta> - log(1 - q), q = theta^T Sigma theta / 2, on the open ellipsoid q < 1.
    Gradient and Hessian are rational at rational theta (``grad_exact`` / ``hess_exact``).

    >>> L = SymmetricLaplace([[1, 0], [0, 2]])
    >>> L.hess_exact([0, 0])
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(2, 1)]]
    """

    family = "laplace"

    def __init__(self, cov, mean=None, *, allow_float: bool = False):
        self._init_cov(cov, mean, "mean", allow_float)

    @property
    def params(self):
        return {"cov": [list(r) for r in self.cov], "mean": list(self.mean)}

    def location(self):
        return self.mean

    def translation_class(self):
        return ("laplace", self.cov)

    def translated(self, a):
        a = parse_vector(a, "a", dim=self.dim)
        return SymmetricLaplace(self.cov, [x + y for x, y in zip(self.mean, a)])

    def dilated(self, lam):
        lam = self._lam(lam)
        return SymmetricLaplace([[lam * lam * x for x in r] for r in self.cov], [lam * x for x in self.mean])

    def in_domain(self, theta) -> bool:
        t = self._theta(theta)
        return _quad(self.cov, t) < 2

    def _require_domain(self, theta):
        t = self._theta(theta)
        v = _quad(self.cov, t)
        if not v < 2:
            raise DomainError("theta", f"theta^T Sigma theta = {fraction_str(v)} must be < 2 "
                                       "(outside the CGF domain of the Laplace law)")
        return t

    def _theta_mp_checked(self, theta):
        t = self._theta_mp(theta)
        v = mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[i] * t[j] for i in range(self.dim) for j in range(self.dim))
        if not v < 2:
            raise DomainError("theta", f"theta^T Sigma theta = {mpmath.nstr(v, 15)} must be < 2 "
                                       "(outside the CGF domain of the Laplace law)")
        return t

    def cgf_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        v = sympy.Matrix(th)
        q = (v.T * S * v)[0, 0] / 2
        return sympy.Add(*[_q(m) * t for m, t in zip(self.mean, th)]) - sympy.log(1 - q)

    def grad_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        v = sympy.Matrix(th)
        q = (v.T * S * v)[0, 0] / 2
        St = S * v
        return [_q(self.mean[i]) + St[i] / (1 - q) for i in range(self.dim)]

    def hess_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        v = sympy.Matrix(th)
        q = (v.T * S * v)[0, 0] / 2
        St = S * v
        return [[S[i, j] / (1 - q) + St[i] * St[j] / (1 - q) ** 2 for j in range(self.dim)] for i in range(self.dim)]

    def grad_exact(self, theta) -> list:
        t = self._require_domain(theta)
        one_q = 1 - _quad(self.cov, t) / 2
        St = _matvec(self.cov, t)
        return [m + s / one_q for m, s in zip(self.mean, St)]

    def hess_exact(self, theta) -> list:
        t = self._require_domain(theta)
        one_q = 1 - _quad(self.cov, t) / 2
        St = _matvec(self.cov, t)
        return [[self.cov[i][j] / one_q + St[i] * St[j] / (one_q * one_q) for j in range(self.dim)]
                for i in range(self.dim)]

    def _cgf_ball(self, t):
        one_q = 1 - _quad(self.cov, t) / 2
        return to_ball(_dot(self.mean, t)) - to_ball(one_q).log()

    def _grad_ball(self, t):
        return [to_ball(x) for x in self.grad_exact(t)]

    def _hess_ball(self, t):
        return [[to_ball(x) for x in r] for r in self.hess_exact(t)]

    def _q_mp(self, t):
        return mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[i] * t[j]
                           for i in range(self.dim) for j in range(self.dim)) / 2

    def _cgf_mp(self, t):
        return mpmath.fsum(mpf_from_fraction(m) * x for m, x in zip(self.mean, t)) - mpmath.log(1 - self._q_mp(t))

    def _grad_mp(self, t):
        oq = 1 - self._q_mp(t)
        St = [mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[j] for j in range(self.dim)) for i in range(self.dim)]
        return [mpf_from_fraction(m) + s / oq for m, s in zip(self.mean, St)]

    def _hess_mp(self, t):
        oq = 1 - self._q_mp(t)
        St = [mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[j] for j in range(self.dim)) for i in range(self.dim)]
        return [[mpf_from_fraction(self.cov[i][j]) / oq + St[i] * St[j] / oq ** 2 for j in range(self.dim)]
                for i in range(self.dim)]

    def _latex(self):
        return rf"\mathrm{{SL}}\left({_lat_vec(self.mean)}, {_lat_mat(self.cov)}\right)"


class Gaussian(_CovLaw):
    """N(m, Sigma); Lambda(theta) = <m, theta> + theta^T Sigma theta / 2 (exact at rational theta).

    >>> Gaussian([[1]], [1]).cgf_ball([2])
    4.00000000000000
    """

    family = "gaussian"

    def __init__(self, cov, mean=None, *, allow_float: bool = False):
        self._init_cov(cov, mean, "mean", allow_float)

    @property
    def params(self):
        return {"cov": [list(r) for r in self.cov], "mean": list(self.mean)}

    def is_gaussian(self):
        return True

    def location(self):
        return self.mean

    def translation_class(self):
        return ("gaussian", self.cov)

    def translated(self, a):
        a = parse_vector(a, "a", dim=self.dim)
        return Gaussian(self.cov, [x + y for x, y in zip(self.mean, a)])

    def dilated(self, lam):
        lam = self._lam(lam)
        return Gaussian([[lam * lam * x for x in r] for r in self.cov], [lam * x for x in self.mean])

    def cgf_exact(self, theta) -> Fraction:
        t = self._theta(theta)
        return _dot(self.mean, t) + _quad(self.cov, t) / 2

    def grad_exact(self, theta) -> list:
        t = self._theta(theta)
        return [m + s for m, s in zip(self.mean, _matvec(self.cov, t))]

    def hess_exact(self, theta) -> list:
        self._theta(theta)
        return [list(r) for r in self.cov]

    def cgf_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        v = sympy.Matrix(th)
        return sympy.Add(*[_q(m) * t for m, t in zip(self.mean, th)]) + (v.T * S * v)[0, 0] / 2

    def grad_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        St = S * sympy.Matrix(th)
        return [_q(self.mean[i]) + St[i] for i in range(self.dim)]

    def hess_sympy(self, theta_symbols=None):
        self._symbols(theta_symbols)
        return [[_q(x) for x in r] for r in self.cov]

    def _cgf_ball(self, t):
        return to_ball(self.cgf_exact(t))

    def _grad_ball(self, t):
        return [to_ball(x) for x in self.grad_exact(t)]

    def _hess_ball(self, t):
        return [[to_ball(x) for x in r] for r in self.cov]

    def _cgf_mp(self, t):
        return mpmath.fsum(mpf_from_fraction(m) * x for m, x in zip(self.mean, t)) + mpmath.fsum(
            mpf_from_fraction(self.cov[i][j]) * t[i] * t[j] for i in range(self.dim) for j in range(self.dim)) / 2

    def _grad_mp(self, t):
        return [mpf_from_fraction(self.mean[i]) + mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[j]
                                                              for j in range(self.dim)) for i in range(self.dim)]

    def _hess_mp(self, t):
        return [[mpf_from_fraction(x) for x in r] for r in self.cov]

    def _latex(self):
        return rf"\mathcal{{N}}\left({_lat_vec(self.mean)}, {_lat_mat(self.cov)}\right)"


class GaussianMixture(_CovLaw):
    """1/2 N(c + a u, Sigma) + 1/2 N(c - a u, Sigma) with u = direction / |direction|, a >= 0.

    Lambda(theta) = <c, theta> + theta^T Sigma theta / 2 + log cosh(<m, theta>), m = a u.
    |direction| may be irrational: SymPy keeps the exact square root; the balls use arb's sqrt.
    Exact helpers: ``m_outer`` = m m^T = a^2 dir dir^T / |dir|^2 (rational), ``m_sq`` = |m|^2.

    >>> M = GaussianMixture(1, [1, 1], [[1, 0], [0, 1]])
    >>> M.m_outer[0][0]
    Fraction(1, 2)
    >>> M.hess_ball([0, 0])[0][0]            # Sigma + sech^2(0) m m^T
    1.50000000000000
    """

    family = "gaussian_mixture"

    def __init__(self, separation, direction, cov, center=None, *, allow_float: bool = False):
        a = _bounded([parse_exact(separation, "separation", allow_float=allow_float)], "separation")[0]
        if a < 0:
            raise InputError("separation", f"must be >= 0, got {fraction_str(a)}")
        self._init_cov(cov, center, "center", allow_float)
        u = _bounded(parse_vector(direction, "direction", dim=self.dim, allow_float=allow_float), "direction")
        n2 = _dot(u, u)
        if n2 == 0:
            raise InputError("direction", "must be a nonzero vector")
        self.separation = a
        self.direction = u
        self.center = self.mean
        self.dir_norm2 = n2
        self.m_sq = a * a                     # |m|^2
        self.scale2 = a * a / n2              # m = sqrt(scale2) * direction
        self.m_outer = tuple(tuple(self.scale2 * x * y for y in u) for x in u)

    @property
    def params(self):
        return {"separation": self.separation, "direction": list(self.direction),
                "cov": [list(r) for r in self.cov], "center": list(self.center)}

    def is_gaussian(self):
        return self.separation == 0

    def location(self):
        return self.center

    def translation_class(self):
        if self.separation == 0:
            return ("gaussian", self.cov)
        return ("gaussian_mixture", self.cov, self.m_outer)

    def translated(self, a):
        a = parse_vector(a, "a", dim=self.dim)
        return GaussianMixture(self.separation, self.direction, self.cov, [x + y for x, y in zip(self.center, a)])

    def dilated(self, lam):
        lam = self._lam(lam)
        return GaussianMixture(abs(lam) * self.separation, self.direction,
                               [[lam * lam * x for x in r] for r in self.cov], [lam * x for x in self.center])

    def _m_sympy(self):
        u = [_q(x) for x in self.direction]
        nrm = sympy.sqrt(_q(self.dir_norm2))
        return [_q(self.separation) * x / nrm for x in u]

    def cgf_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        v = sympy.Matrix(th)
        m = self._m_sympy()
        return (sympy.Add(*[_q(c) * t for c, t in zip(self.center, th)]) + (v.T * S * v)[0, 0] / 2
                + sympy.log(sympy.cosh(sympy.Add(*[mi * t for mi, t in zip(m, th)]))))

    def grad_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        S = sympy.Matrix([[_q(x) for x in r] for r in self.cov])
        St = S * sympy.Matrix(th)
        m = self._m_sympy()
        s = sympy.Add(*[mi * t for mi, t in zip(m, th)])
        return [_q(self.center[i]) + St[i] + sympy.tanh(s) * m[i] for i in range(self.dim)]

    def hess_sympy(self, theta_symbols=None):
        th = self._symbols(theta_symbols)
        m = self._m_sympy()
        s = sympy.Add(*[mi * t for mi, t in zip(m, th)])
        return [[_q(self.cov[i][j]) + sympy.sech(s) ** 2 * m[i] * m[j] for j in range(self.dim)]
                for i in range(self.dim)]

    def _s_ball(self, t):
        return to_ball(self.scale2).sqrt() * to_ball(_dot(self.direction, t))

    def _cgf_ball(self, t):
        base = to_ball(_dot(self.center, t) + _quad(self.cov, t) / 2)
        if self.separation == 0:
            return base
        s = self._s_ball(t)
        return base + s.cosh().log()

    def _grad_ball(self, t):
        base = [c + x for c, x in zip(self.center, _matvec(self.cov, t))]
        if self.separation == 0:
            return [to_ball(x) for x in base]
        k = to_ball(self.scale2).sqrt()
        th = (k * to_ball(_dot(self.direction, t))).tanh()
        return [to_ball(b) + th * k * to_ball(u) for b, u in zip(base, self.direction)]

    def _hess_ball(self, t):
        if self.separation == 0:
            return [[to_ball(x) for x in r] for r in self.cov]
        sech2 = self._s_ball(t).sech() ** 2
        return [[to_ball(self.cov[i][j]) + sech2 * to_ball(self.m_outer[i][j]) for j in range(self.dim)]
                for i in range(self.dim)]

    def _s_mp(self, t):
        k = mpmath.sqrt(mpf_from_fraction(self.scale2))
        return k * mpmath.fsum(mpf_from_fraction(u) * x for u, x in zip(self.direction, t))

    def _cgf_mp(self, t):
        base = mpmath.fsum(mpf_from_fraction(c) * x for c, x in zip(self.center, t)) + mpmath.fsum(
            mpf_from_fraction(self.cov[i][j]) * t[i] * t[j] for i in range(self.dim) for j in range(self.dim)) / 2
        return base + mpmath.log(mpmath.cosh(self._s_mp(t)))

    def _grad_mp(self, t):
        k = mpmath.sqrt(mpf_from_fraction(self.scale2))
        th = mpmath.tanh(self._s_mp(t))
        return [mpf_from_fraction(self.center[i]) + mpmath.fsum(mpf_from_fraction(self.cov[i][j]) * t[j]
                                                                for j in range(self.dim))
                + th * k * mpf_from_fraction(self.direction[i]) for i in range(self.dim)]

    def _hess_mp(self, t):
        sech2 = mpmath.sech(self._s_mp(t)) ** 2
        return [[mpf_from_fraction(self.cov[i][j]) + sech2 * mpf_from_fraction(self.m_outer[i][j])
                 for j in range(self.dim)] for i in range(self.dim)]

    def _latex(self):
        return (rf"\tfrac12\mathcal{{N}}(c + a u, \Sigma) + \tfrac12\mathcal{{N}}(c - a u, \Sigma),\ "
                rf"a = {_lat(self.separation)},\ u \propto {_lat_vec(self.direction)},\ "
                rf"c = {_lat_vec(self.center)},\ \Sigma = {_lat_mat(self.cov)}")


# ---------------------------------------------------------------------------------------------
# SPEC (issue 4) <-> objects

_KEYS = {
    "discrete": ({"atoms"}, {"weights"}),
    "uniform_cube": ({"radius"}, {"center", "dim"}),
    "laplace": ({"cov"}, {"mean"}),
    "gaussian_mixture": ({"separation", "direction", "cov"}, {"center"}),
    "gaussian": ({"cov"}, {"mean"}),
}


def distribution_from_dict(d: Any, field: str = "distribution", *, allow_float: bool = False) -> Distribution:
    """Build a law from its SPEC entry, e.g. ``{"family": "discrete", "atoms": [[0], [1]]}``.

    Errors name the field (``distributions[2].cov: not symmetric ...``).

    >>> distribution_from_dict({"family": "laplace", "cov": [[1]]}).family
    'laplace'
    >>> distribution_from_dict({"family": "poisson"})
    Traceback (most recent call last):
    ...
    verify.errors.InputError: distribution.family: unknown family 'poisson'; known: discrete, uniform_cube, laplace, gaussian_mixture, gaussian
    """
    if not isinstance(d, dict):
        raise InputTypeError(field, f"expected a JSON object, got {type(d).__name__}")
    fam = d.get("family")
    if fam not in _KEYS:
        raise InputError(f"{field}.family", f"unknown family {fam!r}; known: {', '.join(FAMILIES)}")
    required, optional = _KEYS[fam]
    missing = sorted(required - set(d))
    if missing:
        raise InputError(f"{field}.{missing[0]}", f"missing (required for family {fam!r})")
    unknown = sorted(set(d) - required - optional - {"family"})
    if unknown:
        raise InputError(f"{field}.{unknown[0]}", f"unknown key for family {fam!r}; allowed: "
                                                  f"{', '.join(sorted(required | optional))}")
    try:
        if fam == "discrete":
            return Discrete(d["atoms"], d.get("weights"), allow_float=allow_float)
        if fam == "uniform_cube":
            return UniformCube(d["radius"], d.get("center"), d.get("dim"), allow_float=allow_float)
        if fam == "laplace":
            return SymmetricLaplace(d["cov"], d.get("mean"), allow_float=allow_float)
        if fam == "gaussian_mixture":
            return GaussianMixture(d["separation"], d["direction"], d["cov"], d.get("center"), allow_float=allow_float)
        return Gaussian(d["cov"], d.get("mean"), allow_float=allow_float)
    except InputError as exc:
        raise type(exc)(f"{field}.{exc.field}", exc.problem) from None
    except InputTypeError as exc:
        raise InputTypeError(f"{field}.{exc.field}", exc.problem) from None
