"""One arithmetic context protocol, shared by every evaluation that can run in more than one arithmetic.

The model is mpmath's ``mp`` / ``fp`` / ``iv``: the evaluation code of an object (maxout network,
Transformer, CPWL function, mean-field flow) is written once against a :class:`Context` and applies only
``+``, ``-``, products by constants and the context's operations to its values.  A context supplies

* **constants**: :meth:`~Context.convert` turns an exact constant (int, Fraction; floats only where the
  caller passes floats) into the context's value type; :attr:`~Context.zero`, :attr:`~Context.one`;
* **decisions**: :meth:`~Context.sign` answers -1, 0, +1 -- or ``None`` (*unknown*) when the context
  cannot decide, e.g. a ball that contains 0.  A compound decision (:meth:`~Context.relu`,
  :meth:`~Context.argmax_set`, :meth:`~Context.max`) that meets an unknown sign raises
  :class:`UndecidedSign`: an undecided comparison is never treated as a decided one (a caller deciding
  with balls climbs its precision ladder or answers INCONCLUSIVE);
* **derived operations**: :meth:`~Context.relu`, :meth:`~Context.max`, :meth:`~Context.argmax_set`,
  :meth:`~Context.linear_combination`, :meth:`~Context.exp`, :meth:`~Context.softmax`;
* a working-precision :meth:`~Context.scope` (``contextlib.nullcontext`` when there is none) and
  :meth:`~Context.text` for evidence display.

Implementations: :data:`EXACT` (``Fraction``), :data:`MPQ` / :data:`FMPQ` (the same exact rationals in
gmpy2 / python-flint types, for the region sweeps), :class:`BallContext` (python-flint ``arb`` at a given
precision; rigorous, signs may be unknown), :class:`MpmathContext` and :class:`MpfrContext` (evidence
only), :data:`SYMPY` (symbolic; signs are SymPy's fuzzy answers).  The region tracer's
:class:`~verify.decide.tracer.TracingContext` (affine forms on a cell) and the case-split
:class:`~verify.decide.casesplit.DecisionTree` implement the same protocol; the float64 baselines
of the benchmarks live in ``bench/``.

Algorithm
---------
Every compound decision is built from :meth:`~Context.sign`: ``relu`` asks one sign; ``argmax_set``
compares each value with the current best (n - 1 signs of differences) and keeps all ties; ``max`` is the
first member of the argmax set; ``softmax`` is p_l = 1 / sum_m exp(scale (s_m - s_l)) (n^2 exponentials,
no decision).

Soundness
---------
The exact contexts (:data:`EXACT`, :data:`MPQ`, :data:`FMPQ`; ``exact = True``) decide every sign exactly.
:class:`BallContext` answers a sign only when the ball lies on one side of 0 (docs/conventions.md section
3), and a compound decision that meets an undecided sign raises :class:`UndecidedSign` instead of
guessing; its ReLU is the enclosure ``max(a, 0)``.  :class:`MpmathContext` and :class:`MpfrContext`
decide signs in floating point: evidence only, never a basis for PROVED or REFUTED.  :data:`SYMPY` answers
only what SymPy's assumptions decide (``None`` otherwise).

Limits
------
``exp`` is not available in the exact contexts (``NotImplementedError``).  A ball sign is undecided when
the ball contains 0 without being exactly 0; a caller then climbs its precision ladder or answers
INCONCLUSIVE.  The floating-point contexts never answer "undecided", so they may decide wrongly near 0.

>>> EXACT.relu(Fraction(-2)), EXACT.max([Fraction(1), Fraction(3)]), EXACT.argmax_set([1, 3, 3])
(Fraction(0, 1), Fraction(3, 1), [1, 2])
>>> EXACT.linear_combination([Fraction(1, 2), Fraction(3)], [2, 0], 1)
Fraction(2, 1)
>>> ball = BallContext(64)
>>> with ball.scope():
...     third = ball.convert(Fraction(1, 3))
...     ball.sign(third * 3 - 1) is None, ball.sign(third)
(True, 1)
>>> with ball.scope():
...     ball.max([third * 3, ball.one])      # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
UndecidedSign: the sign of [+/- 1.09e-19] is not decided in arb
"""

from __future__ import annotations

from contextlib import nullcontext
from fractions import Fraction
from typing import Optional

from .ball import sign as _ball_sign, to_ball, workprec
from .evidence import mpf_from_fraction

__all__ = ["Context", "UndecidedSign", "ExactContext", "EXACT", "MpqContext", "MPQ", "FmpqContext", "FMPQ",
           "BallContext", "MpmathContext", "MpfrContext", "SympyContext", "SYMPY"]


class UndecidedSign(ArithmeticError):
    """A decision met a value whose sign the context cannot decide (``sign`` answered ``None``)."""

    def __init__(self, value, context: str = ""):
        super().__init__(f"the sign of {value} is not decided" + (f" in {context}" if context else ""))
        self.value = value


class Context:
    """The protocol; the default implementation suits exact values that take exact constants natively.

    Subclasses implement :meth:`sign` (and :meth:`convert` / :meth:`exp` when they have them).  A context
    whose values do not multiply by a ``Fraction`` (balls, mpf, SymPy) sets ``lifts_constants = True`` so
    that :meth:`linear_combination` converts the constants first.
    """

    name = "context"
    exact = False              # decisions are exact (a PROVED verdict may rest on them)
    lifts_constants = False    # constants go through convert() before they meet a value

    # -- constants -------------------------------------------------------------------------------
    def convert(self, q):
        """An exact constant as a value of this context (exact contexts: unchanged)."""
        return q

    @property
    def zero(self):
        return self.convert(0)

    @property
    def one(self):
        return self.convert(1)

    def is_native(self, v) -> bool:
        """Is ``v`` already a value of this context (inputs of that type are not converted)?"""
        return False

    def zero_like(self, a):
        """The zero of ``a``'s own type (an affine form in the same variables, a ball ...)."""
        return a * 0

    def scope(self):
        """Context manager setting this context's working precision (none by default)."""
        return nullcontext()

    def text(self, x, digits: int = 30) -> str:
        return str(x)

    # -- arithmetic helpers ------------------------------------------------------------------------
    def mul(self, a, b):
        """Product of two values (scores in attention; a tracer refuses it when both vary)."""
        return a * b

    def linear_combination(self, values, coeffs, const=0):
        """sum_m values[m] * coeffs[m] + const with value-first products and sums, zero coefficients
        skipped, so foreign values (affine forms, balls) own the arithmetic."""
        return self.sparse_combination(values, [(i, c) for i, c in zip(range(len(values)), coeffs) if c != 0],
                                       const)

    def sparse_combination(self, values, pairs, const=0):
        """:meth:`linear_combination` over the non-zero ``(index, coefficient)`` pairs of a sparse row."""
        lift = self.convert if self.lifts_constants else None
        acc = None
        for i, c in pairs:
            term = values[i] * c if lift is None else values[i] * lift(c)
            acc = term if acc is None else acc + term
        if acc is None:
            acc = values[0] * 0
        if const != 0:
            acc = acc + (const if lift is None else lift(const))
        return acc

    # -- decisions -------------------------------------------------------------------------------
    def sign(self, a) -> Optional[int]:
        """-1, 0 or +1; ``None`` when this context cannot decide."""
        raise NotImplementedError

    def _decide(self, a) -> int:
        """The sign used inside compound decisions (relu, argmax); unknown raises :class:`UndecidedSign`.
        A tracer overrides it to record the compound decision instead of each sign."""
        s = self.sign(a)
        if s is None:
            raise UndecidedSign(a, self.name)
        return s

    def relu(self, a):
        return a if self._decide(a) > 0 else self.zero_like(a)

    def argmax_set(self, values) -> list:
        """Indices attaining the maximum (all of them), in increasing order."""
        values = list(values)
        if not values:
            raise ValueError("values: argmax of an empty sequence")
        best = [0]
        for i in range(1, len(values)):
            s = self._decide(values[i] - values[best[0]])
            if s > 0:
                best = [i]
            elif s == 0:
                best.append(i)
        return best

    def max(self, values):
        values = list(values)
        return values[self.argmax_set(values)[0]]

    # -- transcendental --------------------------------------------------------------------------
    def exp(self, a):
        raise NotImplementedError(f"exp: not available in the {self.name} context")

    def softmax(self, scores, scale) -> list:
        """softmax(scale * scores) as p_l = 1 / sum_m exp(scale (s_m - s_l)): no decision, and in ball
        arithmetic each p_l is a tight ball inside (0, 1]."""
        out = []
        for s_l in scores:
            tot = self.zero
            for s_m in scores:
                tot += self.exp(scale * (s_m - s_l))
            out.append(1 / tot)
        return out


# ------------------------------------------------------------------------------------------------ exact

class ExactContext(Context):
    """Exact rationals (``Fraction`` / ``int``): exact decisions, constants used as they are."""

    name = "exact"
    exact = True

    def sign(self, a) -> int:
        return (a > 0) - (a < 0)


EXACT = ExactContext()


class MpqContext(ExactContext):
    """The exact rationals as gmpy2 ``mpq`` (the 1-D region sweep's numbers)."""

    name = "mpq"

    def __init__(self):
        from gmpy2 import mpq

        self._mpq = mpq

    def convert(self, q):
        q = Fraction(q)
        return self._mpq(q.numerator, q.denominator)

    def is_native(self, v) -> bool:
        return isinstance(v, type(self._mpq(0)))


MPQ = MpqContext()


class FmpqContext(ExactContext):
    """The exact rationals as python-flint ``fmpq`` with ``fmpq_mat`` products (the 2-D region sweep)."""

    name = "fmpq"
    lifts_constants = True      # fmpq does not multiply by a Fraction

    def __init__(self):
        from flint import fmpq, fmpq_mat

        self._fmpq, self._mat = fmpq, fmpq_mat

    def convert(self, q):
        q = Fraction(q)
        return self._fmpq(q.numerator, q.denominator)

    def is_native(self, v) -> bool:
        return isinstance(v, self._fmpq)

    def matrix(self, rows: int, cols: int, flat):
        return self._mat(rows, cols, flat)

    @staticmethod
    def affine(W, B, H) -> list:
        """The entries of W H + B, row-major."""
        return (W * H + B).entries()

    @staticmethod
    def to_fraction(v) -> Fraction:
        return Fraction(int(v.p), int(v.q))


FMPQ = FmpqContext()


# ------------------------------------------------------------------------------------------------ balls

class BallContext(Context):
    """python-flint ``arb`` balls at ``prec`` bits (the current precision if None): rigorous enclosures.

    :meth:`sign` is certain-only (``None`` when the ball contains 0 without being exactly 0); ReLU is the
    ball enclosure ``max(a, 0)``, which needs no decision.
    """

    name = "arb"
    lifts_constants = True

    def __init__(self, prec: Optional[int] = None):
        from flint import arb, ctx

        self._arb = arb
        self._flint = ctx
        self.prec = prec
        self._balls = {}        # id(q) -> (q, precision, ball): each weight object converted once

    def scope(self):
        return nullcontext() if self.prec is None else workprec(self.prec)

    def convert(self, q):
        hit = self._balls.get(id(q))
        if hit is not None and hit[0] is q and hit[1] == self._flint.prec:
            return hit[2]
        if isinstance(q, self._arb):
            return q
        ball = to_ball(q)
        self._balls[id(q)] = (q, self._flint.prec, ball)     # keeps q alive: its id is not reused
        return ball

    def is_native(self, v) -> bool:
        return isinstance(v, self._arb)

    def text(self, x, digits: int = 20) -> str:
        return x.str(digits, radius=True)

    def sign(self, a) -> Optional[int]:
        return _ball_sign(a)

    def relu(self, a):
        return a.max(self._arb(0))

    def exp(self, a):
        return a.exp()


# -------------------------------------------------------------------------------------- evidence only

class MpmathContext(Context):
    """mpmath ``mpf`` at ``dps`` digits or ``prec`` bits (the current precision if neither): **evidence only**,
    its comparisons are floating-point decisions."""

    name = "mpmath"
    lifts_constants = True

    def __init__(self, dps: Optional[int] = None, prec: Optional[int] = None):
        import mpmath

        self._mp = mpmath
        self.dps, self.prec = dps, prec

    def scope(self):
        if self.prec is not None:
            return self._mp.workprec(self.prec)
        if self.dps is not None:
            return self._mp.workdps(self.dps)
        return nullcontext()

    def convert(self, q):
        if isinstance(q, (int, Fraction)):
            return mpf_from_fraction(q)
        return self._mp.mpf(q)

    def is_native(self, v) -> bool:
        return isinstance(v, self._mp.mpf)

    def text(self, x, digits: int = 30) -> str:
        return self._mp.nstr(x, digits)

    def sign(self, a) -> int:
        return (a > 0) - (a < 0)

    def relu(self, a):
        return a if a > 0 else self._mp.mpf(0)

    def exp(self, a):
        return self._mp.exp(a)

    def softmax(self, scores, scale) -> list:
        top = max(scores)
        e = [self._mp.exp(scale * (s - top)) for s in scores]
        tot = self._mp.fsum(e)
        return [v / tot for v in e]


class MpfrContext(Context):
    """gmpy2 ``mpfr`` (MPFR) at ``prec`` bits: **evidence only**, several times faster than mpmath."""

    name = "gmpy2"
    lifts_constants = True

    def __init__(self, prec: int):
        import gmpy2

        self._g = gmpy2
        self.prec = prec

    def scope(self):
        return self._g.context(self._g.get_context(), precision=self.prec)

    def convert(self, q):
        if isinstance(q, Fraction):
            return self._g.mpfr(self._g.mpq(q.numerator, q.denominator))
        return self._g.mpfr(q)

    def is_native(self, v) -> bool:
        return isinstance(v, type(self._g.mpfr(0)))

    def text(self, x, digits: int = 30) -> str:
        return format(x, f".{digits}g")

    def sign(self, a) -> int:
        return (a > 0) - (a < 0)

    def exp(self, a):
        return self._g.exp(a)


# ------------------------------------------------------------------------------------------------ symbolic

class SympyContext(Context):
    """SymPy expressions: exact rationals and symbols.  :meth:`sign` is SymPy's fuzzy answer (``None``
    when the assumptions do not decide it); ReLU stays the unevaluated ``Max(a, 0)``."""

    name = "sympy"
    lifts_constants = True

    @property
    def _sp(self):
        import sympy            # imported on first use (slow to import)

        return sympy

    def convert(self, q):
        q = Fraction(q)
        return self._sp.Rational(q.numerator, q.denominator)

    def is_native(self, v) -> bool:
        return isinstance(v, self._sp.Basic) and not isinstance(v, self._sp.Rational)

    def sign(self, a) -> Optional[int]:
        a = self._sp.sympify(a)
        if a.is_zero:
            return 0
        if a.is_positive:
            return 1
        if a.is_negative:
            return -1
        return None

    def relu(self, a):
        return self._sp.Max(a, 0, evaluate=False)

    def exp(self, a):
        return self._sp.exp(a)

    def softmax(self, scores, scale) -> list:
        e = [self._sp.exp(scale * s) for s in scores]
        tot = self._sp.Add(*e)
        return [v / tot for v in e]


SYMPY = SympyContext()
