"""Piecewise-affine tracing: run ordinary evaluation code on *affine forms* over exact cells.

An :class:`AffineForm` is ``c . x + c0`` with exact rational coefficients (``mpq``) over the input
x in R^d.  It supports ``+``, ``-`` and multiplication / division by constants, which is all the
evaluation code of the objects may apply to values (see :mod:`verify.arith.context`).  A
:class:`TracingContext` (the arithmetic context of the tracer) decides every sign on the current
:class:`~verify.decide.geometry.Cell` exactly (vertex values); when a sign is not constant it raises
:class:`Split` carrying the form.
:func:`trace` drives a pipeline of *stages* (functions ``(state, ops) -> state``) over a set of
cells: a stage that raises :class:`Split` is re-run on the parts of its cell, and the stages
before it are not repeated (their outputs are affine forms valid on the whole parent cell).
Every final cell carries the exact output forms and its activation pattern (the results of the
decisions: argmax sets, ReLU states, signs).

Algorithm
---------
A work stack of (cell, state, next stage, pattern).  A stage runs once per cell it reaches; a
:class:`Split` cuts the cell by the offending form into ``f > 0``, ``f < 0`` and the cut ``f = 0``
(:meth:`~verify.decide.geometry.Cell.split`) and only that stage is re-run on the parts.  Cost: one
stage evaluation per (cell, stage) pair reached plus the re-runs after splits; every sign costs one
exact affine evaluation per vertex.

Soundness
---------
Exact rational arithmetic (``mpq``) and the vertex lemma of :mod:`verify.decide.geometry` (an affine
function has a constant sign on a relatively open convex cell iff its vertex values say so).  The
relative interiors of the three parts of a split partition the cell, so the final cells partition the
input cells (with ``closed=True``; with ``closed=False`` the lower-dimensional cuts are dropped), every
decision is constant on each final cell and the output forms are exact on it.  The evaluation code may
only use the context (docs/regions.md); anything else is refused rather than answered for the whole cell.

Limits
------
At most ``max_cells`` final cells (default ``MAX_TRACED_CELLS`` = 2,000,000), then
:class:`~verify.errors.SizeLimitError`; intermediate cells are not counted.  Input dimension 1 or 2 (the
cells of :mod:`verify.decide.geometry`).  A product of two varying values (:class:`NotPiecewiseLinear`),
a comparison or conversion outside the context (:class:`UndecidedComparison`) and any exception of the
traced code (:class:`UntraceableCode`) propagate to the caller: there is no undecided answer.

>>> from verify.decide.geometry import box_cell
>>> def f(x, ops):                      # |x| - 1 on [-2, 3] through the context interface
...     return (ops.max([x[0], -x[0]]) - 1,)
>>> cells = trace([f], [box_cell([(-2, 3)])], closed=False)
>>> [(str(c.cell.vertices[0][0]), str(c.cell.vertices[1][0]), str(c.value[0])) for c in cells]
[('-2', '0', '-x1 - 1'), ('0', '3', 'x1 - 1')]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Sequence

from gmpy2 import mpq

from ..errors import SizeLimitError
from ..arith.context import Context
from .geometry import Cell, to_fraction, to_q

__all__ = ["AffineForm", "TracingContext", "Split", "NotPiecewiseLinear", "UntraceableCode", "UndecidedComparison",
           "TracedCell",
           "trace", "identity_forms", "as_form", "MAX_TRACED_CELLS"]

MAX_TRACED_CELLS = 2_000_000   # final cells one trace() may produce by default (SizeLimitError beyond)
_ZERO = mpq(0)
_NUM = (int, Fraction, type(_ZERO))


class Split(Exception):
    """A decision is not constant on the current cell: split it by ``form``."""

    def __init__(self, form: "AffineForm"):
        super().__init__("split")
        self.form = form


class NotPiecewiseLinear(Exception):
    """A product of two values that both vary on a cell: the traced function is not piecewise affine there."""


class UntraceableCode(TypeError):
    """The evaluation code used a value outside the context contract (a comparison, float(), bool()), or raised
    an exception of its own while being traced (the message names it)."""


class UndecidedComparison(UntraceableCode):
    """``==``, ``!=``, ``<``, ``hash``, ``bool``, ``abs`` ... applied to a traced value that varies with x: the
    answer would depend on the point, so the tracer refuses instead of answering for the whole cell."""


_MPQ = type(_ZERO)
_QCACHE: dict = {}


def _num(c):
    """An exact constant as mpq (cached for the Fraction weights that evaluation code multiplies by).

    The cache is keyed by identity (``id``), which needs no hashing or comparing of Fractions; each entry holds
    the Fraction itself, so its id cannot be reused by another object while the entry exists, and a hit is
    confirmed with ``is``."""
    t = type(c)
    if t is _MPQ:
        return c
    if t is Fraction:
        e = _QCACHE.get(id(c))
        if e is not None and e[0] is c:
            return e[1]
        if len(_QCACHE) > 100_000:
            _QCACHE.clear()
        q = mpq(c.numerator, c.denominator)
        _QCACHE[id(c)] = (c, q)
        return q
    if t is int:
        return mpq(c)
    if isinstance(c, (int, Fraction)) and not isinstance(c, bool):
        return to_q(c)
    return None


class AffineForm:
    """``lin . x + const`` over x in R^d, exact (``mpq`` coefficients)."""

    __slots__ = ("lin", "const")

    def __init__(self, lin: Sequence, const=0):
        self.lin = tuple(to_q(c) for c in lin)
        self.const = to_q(const)

    @classmethod
    def _raw(cls, lin: tuple, const) -> "AffineForm":
        f = cls.__new__(cls)
        f.lin = lin
        f.const = const
        return f

    # -- arithmetic allowed by the context contract --------------------------------------
    def __add__(self, other):
        if isinstance(other, AffineForm):
            return AffineForm._raw(tuple(a + b for a, b in zip(self.lin, other.lin)), self.const + other.const)
        c = _num(other)
        if c is None:
            return NotImplemented
        return AffineForm._raw(self.lin, self.const + c)

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, AffineForm):
            return AffineForm._raw(tuple(a - b for a, b in zip(self.lin, other.lin)), self.const - other.const)
        c = _num(other)
        if c is None:
            return NotImplemented
        return AffineForm._raw(self.lin, self.const - c)

    def __rsub__(self, other):
        c = _num(other)
        if c is None:
            return NotImplemented
        return AffineForm._raw(tuple(-a for a in self.lin), c - self.const)

    def __neg__(self):
        return AffineForm._raw(tuple(-a for a in self.lin), -self.const)

    def __pos__(self):
        return self

    def __mul__(self, other):
        c = _num(other)
        if c is None:
            if isinstance(other, AffineForm):
                if other.is_constant():
                    c = other.const
                elif self.is_constant():
                    return other * self.const
                else:
                    raise NotPiecewiseLinear(f"product of two varying affine forms ({self}) * ({other})")
            else:
                return NotImplemented
        if not c:
            return AffineForm._raw(tuple(_ZERO for _ in self.lin), _ZERO)
        if c == 1:
            return self
        return AffineForm._raw(tuple(a * c for a in self.lin), self.const * c)

    __rmul__ = __mul__

    def __truediv__(self, other):
        c = _num(other)
        if c is None:
            if isinstance(other, AffineForm) and other.is_constant():
                c = other.const
            else:
                raise NotPiecewiseLinear("division by a varying value")
        return AffineForm._raw(tuple(a / c for a in self.lin), self.const / c)

    # -- forbidden: decisions outside the context ----------------------------------------------
    def _refuse(self, *args):
        raise UndecidedComparison(f"a comparison / conversion of the traced value {self} outside the context "
                                  f"interface (==, !=, <, hash, bool, abs, float, int are refused on values "
                                  f"that vary with x)")

    def _constant_other(self, other):
        """The constant value of ``self`` and of ``other`` (a form or a number), or refuse."""
        if not self.is_constant():
            self._refuse()
        if isinstance(other, AffineForm):
            if not other.is_constant():
                other._refuse()
            return self.const, other.const
        c = _num(other)
        return self.const, c

    def __eq__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a == b

    def __ne__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a != b

    def __lt__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a < b

    def __le__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a <= b

    def __gt__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a > b

    def __ge__(self, other):
        a, b = self._constant_other(other)
        return NotImplemented if b is None else a >= b

    def __hash__(self):
        if not self.is_constant():
            self._refuse()
        return hash(self.const)

    def __bool__(self):
        if not self.is_constant():
            self._refuse()
        return bool(self.const)

    __float__ = __int__ = __index__ = __abs__ = __round__ = __floor__ = __ceil__ = __trunc__ = _refuse

    # -- queries --------------------------------------------------------------------------
    def same_as(self, other) -> bool:
        """Structural equality of two forms (the same coefficients), for the tracer's own book-keeping."""
        return isinstance(other, AffineForm) and self.lin == other.lin and self.const == other.const

    def is_constant(self) -> bool:
        return not any(self.lin)

    def at(self, point: Sequence):
        s = self.const
        for c, p in zip(self.lin, point):
            if c:
                s = s + c * p
        return s

    def to_fractions(self) -> list:
        """``[c0, c1, ..., cd]`` (constant first) as Fractions."""
        return [to_fraction(self.const)] + [to_fraction(c) for c in self.lin]

    def __repr__(self) -> str:
        terms = []
        for i, c in enumerate(self.lin):
            if c:
                terms.append((c, f"x{i + 1}"))
        out = ""
        for c, name in terms:
            mag = abs(c)
            coef = "" if mag == 1 else f"{mag}*"
            if not out:
                out = ("-" if c < 0 else "") + coef + name
            else:
                out += (" - " if c < 0 else " + ") + coef + name
        if self.const or not out:
            if not out:
                out = str(self.const)
            else:
                out += (" - " if self.const < 0 else " + ") + str(abs(self.const))
        return out


def as_form(value, d: int) -> AffineForm:
    """A traced output value (form or exact constant) as an AffineForm in d variables."""
    if isinstance(value, AffineForm):
        return value
    c = _num(value)
    if c is None:
        raise UntraceableCode(f"output value of type {type(value).__name__} is neither exact nor affine")
    return AffineForm._raw(tuple(_ZERO for _ in range(d)), c)


def identity_forms(d: int) -> tuple:
    """The input x = (x1, ..., xd) as affine forms."""
    one, z = mpq(1), _ZERO
    return tuple(AffineForm._raw(tuple(one if i == j else z for j in range(d)), z) for i in range(d))


class TracingContext(Context):
    """Exact decisions on one cell; records the results as the activation pattern.  Values are affine
    forms (or exact constants) and take exact constants natively."""

    name = "tracer"
    exact = True

    def __init__(self, cell: Cell):
        self.cell = cell
        self.pattern = []

    def _decide(self, a) -> int:
        if isinstance(a, AffineForm):
            s = self.cell.sign(a.lin, a.const)
            if s is None:
                raise Split(a)
            return s
        c = _num(a)
        if c is None:
            raise UntraceableCode(f"decision on a value of type {type(a).__name__}")
        return (c > 0) - (c < 0)


    def sign(self, a) -> int:
        s = self._decide(a)
        self.pattern.append(("s", s))
        return s

    def zero_like(self, a):
        return a * 0

    def relu(self, a):
        s = self._decide(a)
        self.pattern.append(("r", s > 0))
        return a if s > 0 else a * 0

    def argmax_set(self, values) -> list:
        best = super().argmax_set(values)       # pairwise comparisons through _decide (no pattern entries)
        self.pattern.append(("a", tuple(best)))
        return best

    def max(self, values):
        values = list(values)
        return values[self.argmax_set(values)[0]]

    def mul(self, a, b):
        if isinstance(a, AffineForm) and isinstance(b, AffineForm):
            ca = self._constant_on_cell(a)
            if ca is not None:
                return b * ca
            cb = self._constant_on_cell(b)
            if cb is not None:
                return a * cb
            raise NotPiecewiseLinear(f"product of two values varying on the cell: ({a}) * ({b})")
        return a * b

    def _constant_on_cell(self, a: AffineForm):
        if a.is_constant():
            return a.const
        vals = self.cell.values(a.lin, a.const)
        return vals[0] if all(v == vals[0] for v in vals) else None


class TracedCell:
    """A final cell: its geometry, the traced output (``value``) and the activation pattern."""

    __slots__ = ("cell", "value", "pattern")

    def __init__(self, cell: Cell, value, pattern: tuple):
        self.cell = cell
        self.value = value
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"TracedCell({self.cell!r}, value={self.value!r})"


def trace(stages: Sequence[Callable], cells: Iterable[Cell], *, initial=None, closed: bool = True,
          max_cells: int = MAX_TRACED_CELLS, keep_patterns: bool = True) -> list:
    """Run ``stages`` (each ``(state, ops) -> state``) over ``cells``, splitting cells on demand.

    ``initial``: the starting state (default: the identity forms of the input).  ``closed``: keep
    the lower-dimensional cuts (so the final cells partition the closed union of the input cells);
    with ``closed=False`` only full-dimensional cells are kept (region counting).  More than
    ``max_cells`` final cells raises :class:`~verify.errors.SizeLimitError`.
    Errors :class:`NotPiecewiseLinear` / :class:`UntraceableCode` propagate to the caller.

    Algorithm
    ---------
    Depth-first over (cell, state, stage); a :class:`Split` pushes the parts ``f > 0``, ``f < 0`` and (if
    ``closed`` or full-dimensional) the cut, with the state before the failing stage.

    Soundness
    ---------
    Each returned cell's ``value`` is the exact output of the stages at every point of the cell and its
    ``pattern`` the decisions taken there; the cells partition the input cells (``closed=True``) or their
    full-dimensional part up to lower-dimensional sets (``closed=False``).

    Limits
    ------
    ``SizeLimitError`` beyond ``max_cells`` final cells (default 2,000,000); the errors above propagate;
    cells must be those of :mod:`verify.decide.geometry` (dimension 1 or 2).
    """
    cells = list(cells)
    if not cells:
        return []
    d = cells[0].ambient
    state0 = identity_forms(d) if initial is None else initial
    top = max(c.dim for c in cells)
    work = [(c, state0, 0, ()) for c in reversed(cells)]
    done = []
    n_stages = len(stages)
    while work:
        cell, state, si, pat = work.pop()
        if si == n_stages:
            done.append(TracedCell(cell, state, pat))
            if len(done) > max_cells:
                raise SizeLimitError("max_cells", f"more than {max_cells} cells; refine the limit or shrink the box")
            continue
        ops = TracingContext(cell)
        try:
            new_state = stages[si](state, ops)
        except (NotPiecewiseLinear, UntraceableCode):
            raise
        except Split as sp:
            pos, neg, cut = cell.split(sp.form.lin, sp.form.const)
            if closed or cut.dim >= top:
                work.append((cut, state, si, pat))
            work.append((neg, state, si, pat))
            work.append((pos, state, si, pat))
            continue
        except SizeLimitError:
            raise
        except Exception as exc:   # user code under tracing: never an answer, always the reason
            raise UntraceableCode(f"the traced code raised {type(exc).__name__}: {str(exc)[:200]}") from exc
        work.append((cell, new_state, si + 1, pat + tuple(ops.pattern) if keep_patterns else ()))
    return done
