"""The five law families as frozen objects with exact parameters (the models; formulas in :mod:`.cgf`).

* :class:`Discrete` -- sum_k w_k delta_{x_k} (rational atoms and weights), domain R^d;
* :class:`UniformCube` -- Unif(c + [-r, r]^d), domain R^d;
* :class:`SymmetricLaplace` -- law of m + sqrt(W) Z, W ~ Exp(1), Z ~ N(0, Sigma); domain theta^T Sigma theta < 2;
* :class:`GaussianMixture` -- 1/2 N(c + a u, Sigma) + 1/2 N(c - a u, Sigma), u = direction/|direction|;
* :class:`Gaussian` -- N(m, Sigma).

A model parses and checks its parameters (invalid ones raise :class:`verify.errors.InputError` naming the
field), is immutable afterwards, knows its CGF domain (a theta outside raises
:class:`verify.errors.DomainError`), its translates and dilates, and offers the CGF, gradient and Hessian of
:mod:`verify.laws.cgf` three ways:

* ``cgf_sympy`` / ``grad_sympy`` / ``hess_sympy``: SymPy closed forms (the formulas of docs/paper2.md §6);
* ``cgf_ball`` / ``grad_ball`` / ``hess_ball``: rigorous python-flint ``arb`` enclosures at exact rational theta;
* ``cgf_mp`` / ``grad_mp`` / ``hess_mp``: mpmath values at the current mpmath precision (**evidence** only).

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
>>> L.cov = [[2]]
Traceback (most recent call last):
...
AttributeError: SymmetricLaplace is immutable (cov)
"""

from __future__ import annotations

import contextlib
import numbers
from fractions import Fraction
from typing import Optional

import mpmath
import sympy
from flint import arb

from ..arith.ball import workprec
from ..arith.evidence import mpf_from_fraction
from ..arith.exact import fraction_str, parse_exact, parse_matrix, parse_vector
from ..errors import DomainError, InputError, InputTypeError
from . import cgf, display

__all__ = [
    "Distribution", "Discrete", "UniformCube", "SymmetricLaplace", "GaussianMixture", "Gaussian",
    "theta_symbols", "check_spd", "FAMILIES", "MAX_DIM", "MAX_ATOMS", "MAX_MAGNITUDE",
]

MAX_DIM = 16          # dimension d of a law
MAX_ATOMS = 10_000    # atoms of a discrete law
MAX_MAGNITUDE = 10**9  # |parameter| (atoms, radius, separation, means, covariance entries); larger is refused up front

FAMILIES = ("discrete", "uniform_cube", "laplace", "gaussian_mixture", "gaussian")


# ---------------------------------------------------------------------------------------------
# parsing

def _bounded(values, field):
    """Refuse parameters beyond MAX_MAGNITUDE (they make every enclosure overflow)."""
    for i, v in enumerate(values):
        if abs(v) > MAX_MAGNITUDE:
            name = field if len(values) == 1 else f"{field}[{i}]"
            raise InputError(name, f"|value| exceeds the limit {MAX_MAGNITUDE} (10^9)")
    return values


def theta_symbols(dim: int) -> tuple:
    """Real SymPy symbols theta_1..theta_d.

    >>> theta_symbols(2)
    (theta_1, theta_2)
    """
    return tuple(sympy.Symbol(f"theta_{k + 1}", real=True) for k in range(dim))


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


def _mp(x):
    if isinstance(x, (Fraction, int)):
        return mpf_from_fraction(x)
    if isinstance(x, str):
        return mpf_from_fraction(parse_exact(x, "theta"))
    return mpmath.mpf(x)


def _precision(prec: Optional[int]):
    """The ball working precision: ``prec`` bits, or the current one when None."""
    return contextlib.nullcontext() if prec is None else workprec(int(prec))


# ---------------------------------------------------------------------------------------------
# the base class

def _depth(v) -> int:
    """0 for a leaf, 1 for a tuple of leaves, 2 for a tuple of tuples of leaves, else -1 (see :func:`_fresh`)."""
    if type(v) is not tuple:
        return 0
    if all(type(x) is not tuple for x in v):
        return 1
    if all(type(x) is tuple and all(type(y) is not tuple for y in x) for x in v):
        return 2
    return -1


def _fresh(v):
    """Nested tuples as new nested lists (the leaves shared)."""
    return [_fresh(x) if type(x) is tuple else x for x in v] if type(v) is tuple else v


class Distribution:
    """Common interface of the five families (see the module docstring)."""

    family: str = ""
    dim: int = 0

    def __setattr__(self, name, value):
        if self.__dict__.get("_frozen"):
            raise AttributeError(f"{type(self).__name__} is immutable ({name})")
        object.__setattr__(self, name, value)

    def _freeze(self):
        self.__dict__["_frozen"] = True

    @property
    def formulas(self) -> cgf.Formulas:
        """The family's row of :data:`verify.laws.cgf.TABLE`."""
        return cgf.TABLE[self.family]

    # -- parameters -----------------------------------------------------------------------
    @property
    def params(self) -> dict:
        """The exact parameters (Fractions), as a dict."""
        raise NotImplementedError

    def to_dict(self) -> dict:
        """JSON-ready SPEC entry: exact numbers as ``"p/q"`` strings (a fresh copy)."""
        cached = self.__dict__.get("_dict_cache")
        if cached is None:
            def conv(v):
                if isinstance(v, Fraction):
                    return fraction_str(v)
                if isinstance(v, (list, tuple)):
                    return tuple(conv(x) for x in v)
                return v
            cached = {"family": self.family, **{k: conv(v) for k, v in self.params.items() if v is not None}}
            cached = self.__dict__["_dict_cache"] = [(k, v, _depth(v)) for k, v in cached.items()]
        # the copy: conv's tuples (never a subclass) become new lists, the leaves (strings, ints) are shared
        return {k: v if t == 0 else list(v) if t == 1 else list(map(list, v)) if t == 2 else _fresh(v)
                for k, v, t in cached}

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
        return self.formulas.cgf_sympy(self, self._symbols(theta_symbols))

    def grad_sympy(self, theta_symbols=None) -> list:
        return self.formulas.grad_sympy(self, self._symbols(theta_symbols))

    def hess_sympy(self, theta_symbols=None) -> list:
        return self.formulas.hess_sympy(self, self._symbols(theta_symbols))

    # -- rigorous balls -----------------------------------------------------------------------
    def cgf_ball(self, theta, prec: Optional[int] = None) -> arb:
        t = self._require_domain(theta)
        with _precision(prec):
            return self.formulas.cgf_ball(self, t)

    def grad_ball(self, theta, prec: Optional[int] = None) -> list:
        t = self._require_domain(theta)
        with _precision(prec):
            return self.formulas.grad_ball(self, t)

    def hess_ball(self, theta, prec: Optional[int] = None) -> list:
        t = self._require_domain(theta)
        with _precision(prec):
            return self.formulas.hess_ball(self, t)

    # -- mpmath evidence ----------------------------------------------------------------------
    def _theta_mp(self, theta) -> list:
        theta = list(theta)
        if len(theta) != self.dim:
            raise InputError("theta", f"expected length {self.dim}, got {len(theta)}")
        return [_mp(x) for x in theta]

    def _theta_mp_checked(self, theta):
        return self._theta_mp(theta)

    def cgf_mp(self, theta):
        return self.formulas.cgf_mp(self, self._theta_mp_checked(theta))

    def grad_mp(self, theta) -> list:
        return self.formulas.grad_mp(self, self._theta_mp_checked(theta))

    def hess_mp(self, theta) -> list:
        return self.formulas.hess_mp(self, self._theta_mp_checked(theta))

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

    # -- notebooks (verify.laws.display) ------------------------------------------------------
    def _repr_latex_(self) -> str:
        return "$" + display.latex(self) + "$"

    def _repr_markdown_(self) -> str:
        return f"**{type(self).__name__}** (d = {self.dim}): ${display.latex(self)}$"


# ---------------------------------------------------------------------------------------------
# discrete laws

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
        self._freeze()

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

    def grad_ball_many(self, thetas) -> list:
        """grad Lambda at every exact theta of ``thetas`` (balls at the current precision; vectorised, see
        :func:`verify.laws.cgf.discrete_grad_ball_many`)."""
        return cgf.discrete_grad_ball_many(self.atoms, self.weights, [self._theta(t) for t in thetas])


# ---------------------------------------------------------------------------------------------
# uniform cubes

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
        self._freeze()

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


# ---------------------------------------------------------------------------------------------
# laws with quadratic-form structure: Laplace, Gaussian, mixtures

class _CovLaw(Distribution):
    """A law with a covariance ``cov`` and a location ``mean`` (the centre of a mixture)."""

    def __init__(self, cov, mean=None, *, allow_float: bool = False):
        self._init_cov(cov, mean, "mean", allow_float)
        self._freeze()

    def _init_cov(self, cov, mean, mean_field, allow_float):
        self.cov = check_spd(cov, "cov", allow_float=allow_float)
        self.dim = _check_dim(len(self.cov), "cov")
        if mean is None:
            self.mean = tuple(Fraction(0) for _ in range(self.dim))
        else:
            self.mean = _bounded(parse_vector(mean, mean_field, dim=self.dim, allow_float=allow_float), mean_field)

    @property
    def params(self):
        return {"cov": [list(r) for r in self.cov], "mean": list(self.mean)}

    def location(self):
        return self.mean

    def translation_class(self):
        return (self.family, self.cov)

    def _rebuilt(self, cov, mean, scale=1):
        """The law of the same family with covariance ``cov``, location ``mean`` (separation times ``scale``)."""
        return type(self)(cov, mean)

    def translated(self, a):
        a = parse_vector(a, "a", dim=self.dim)
        return self._rebuilt(self.cov, [x + y for x, y in zip(self.mean, a)])

    def dilated(self, lam):
        lam = self._lam(lam)
        return self._rebuilt([[lam * lam * x for x in r] for r in self.cov], [lam * x for x in self.mean], abs(lam))


class SymmetricLaplace(_CovLaw):
    """Symmetric multivariate Laplace law SL(m, Sigma) = law of m + sqrt(W) Z, W ~ Exp(1), Z ~ N(0, Sigma).

    Lambda(theta) = <m, theta> - log(1 - q), q = theta^T Sigma theta / 2, on the open ellipsoid q < 1.
    Gradient and Hessian are rational at rational theta (``grad_exact`` / ``hess_exact``).

    >>> L = SymmetricLaplace([[1, 0], [0, 2]])
    >>> L.hess_exact([0, 0])
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(2, 1)]]
    """

    family = "laplace"

    def in_domain(self, theta) -> bool:
        return cgf.laplace_quad(self.cov, self._theta(theta)) < 2

    @staticmethod
    def _outside(value: str) -> DomainError:
        return DomainError("theta", f"theta^T Sigma theta = {value} must be < 2 (outside the CGF domain of the "
                                    "Laplace law)")

    def _require_domain(self, theta):
        t = self._theta(theta)
        v = cgf.laplace_quad(self.cov, t)
        if not v < 2:
            raise self._outside(fraction_str(v))
        return t

    def _theta_mp_checked(self, theta):
        t = self._theta_mp(theta)
        v = cgf.laplace_quad_mp(self.cov, t)
        if not v < 2:
            raise self._outside(mpmath.nstr(v, 15))
        return t

    def grad_exact(self, theta) -> list:
        return cgf.laplace_grad_exact(self, self._require_domain(theta))

    def hess_exact(self, theta) -> list:
        return cgf.laplace_hess_exact(self, self._require_domain(theta))


class Gaussian(_CovLaw):
    """N(m, Sigma); Lambda(theta) = <m, theta> + theta^T Sigma theta / 2 (exact at rational theta).

    >>> Gaussian([[1]], [1]).cgf_ball([2])
    4.00000000000000
    """

    family = "gaussian"

    def is_gaussian(self):
        return True

    def cgf_exact(self, theta) -> Fraction:
        return cgf.gaussian_cgf_exact(self, self._theta(theta))

    def grad_exact(self, theta) -> list:
        return cgf.gaussian_grad_exact(self, self._theta(theta))

    def hess_exact(self, theta) -> list:
        return cgf.gaussian_hess_exact(self, self._theta(theta))


class GaussianMixture(_CovLaw):
    """1/2 N(c + a u, Sigma) + 1/2 N(c - a u, Sigma) with u = direction / |direction|, a >= 0.

    Lambda(theta) = <c, theta> + theta^T Sigma theta / 2 + log cosh(<m, theta>), m = a u.
    |direction| may be irrational: SymPy keeps the exact square root; the balls use arb's sqrt.
    Exact helpers: ``m_outer`` = m m^T = a^2 dir dir^T / |dir|^2 (rational), ``m_sq`` = |m|^2.
    With separation 0 the law is N(c, Sigma) and ``grad_exact`` / ``hess_exact`` give its rational derivatives.

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
        n2 = cgf._dot(u, u)
        if n2 == 0:
            raise InputError("direction", "must be a nonzero vector")
        self.separation = a
        self.direction = u
        self.center = self.mean
        self.dir_norm2 = n2
        self.m_sq = a * a                     # |m|^2
        self.scale2 = a * a / n2              # m = sqrt(scale2) * direction
        self.m_outer = tuple(tuple(self.scale2 * x * y for y in u) for x in u)
        self._freeze()

    @property
    def params(self):
        return {"separation": self.separation, "direction": list(self.direction),
                "cov": [list(r) for r in self.cov], "center": list(self.center)}

    def is_gaussian(self):
        return self.separation == 0

    def translation_class(self):
        if self.separation == 0:
            return ("gaussian", self.cov)
        return ("gaussian_mixture", self.cov, self.m_outer)

    def _rebuilt(self, cov, mean, scale=1):
        return GaussianMixture(scale * self.separation, self.direction, cov, mean)

    def _gaussian_only(self, what):
        if self.separation != 0:
            raise InputError("separation", f"the {what} is rational only for separation 0, got "
                                           f"{fraction_str(self.separation)}")

    def grad_exact(self, theta) -> list:
        """The gradient c + Sigma theta of a mixture with separation 0 (exact)."""
        self._gaussian_only("gradient")
        return cgf.gaussian_grad_exact(self, self._theta(theta))

    def hess_exact(self, theta) -> list:
        """The Hessian Sigma of a mixture with separation 0 (exact)."""
        self._gaussian_only("Hessian")
        return cgf.gaussian_hess_exact(self, self._theta(theta))
