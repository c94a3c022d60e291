"""The decisions an exact evaluation makes, behind one small interface.

Every piecewise-linear object (maxout network, hardmax Transformer, CPWL function) evaluates
with ordinary ``+``/``*`` on its values and asks an :class:`Ops` for every *decision*: the sign of a
value (ReLU, max, argmax, hardmax selection).  With :data:`EXACT` the values are ``Fraction`` and the
decisions are exact comparisons.  The region tracer of :mod:`verify.decide` passes affine forms
in x instead, and an ``Ops`` that decides signs on a whole cell (or asks to split the cell), so the
*same* evaluation code that computes a value is the code whose regions are proved.

Contract for evaluation code:
* only ``+``, ``-``, multiplication by a constant, and ``ops.*`` decisions are applied to values;
* products of two values go through :meth:`Ops.mul` (a tracer can refuse them when both vary).

>>> EXACT.relu(Fraction(-2)), EXACT.max([Fraction(1), Fraction(3)]), EXACT.argmax_set([1, 3, 3])
(Fraction(0, 1), Fraction(3, 1), [1, 2])
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["Ops", "ExactOps", "EXACT", "hardmax_weights", "TIE_RULES", "linear_combination"]

TIE_RULES = ("average", "first")


class Ops:
    """Decisions derived from one primitive, :meth:`sign` (-1, 0 or +1)."""

    def sign(self, a) -> int:
        raise NotImplementedError

    def zero_like(self, a):
        return a * 0

    def mul(self, a, b):
        """Product of two values (scores in attention)."""
        return a * b

    def _decide(self, a) -> int:
        """The sign used inside compound decisions (relu, argmax); a tracer records the compound decision."""
        return self.sign(a)

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


class ExactOps(Ops):
    """Exact decisions on ``Fraction`` / ``int`` values."""

    def sign(self, a) -> int:
        return (a > 0) - (a < 0)


EXACT = ExactOps()


def hardmax_weights(scores, tie: str, ops: Ops = EXACT) -> list:
    """Hardmax probability vector (Fractions) over keys for one query column.

    ``average``: 1/|A| on each maximiser; ``first``: 1 on the smallest maximiser index.

    >>> hardmax_weights([1, 3, 3], "average"), hardmax_weights([1, 3, 3], "first")
    ([Fraction(0, 1), Fraction(1, 2), Fraction(1, 2)], [Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)])
    """
    if tie not in TIE_RULES:
        raise ValueError(f"tie: must be one of {', '.join(TIE_RULES)}, got {tie!r}")
    winners = ops.argmax_set(scores)
    n = len(scores)
    if tie == "first":
        winners = winners[:1]
    w = Fraction(1, len(winners))
    return [w if i in winners else Fraction(0) for i in range(n)]


def linear_combination(values, coeffs, const, lift=None):
    """sum_m values[m] * coeffs[m] + const with only value-first products and sums, so foreign values
    (affine forms, balls) handle the arithmetic; zero coefficients are skipped.  ``lift`` converts the
    exact constants into the values' own type first (e.g. ``to_ball`` for arb, which does not multiply
    by a Fraction).

    >>> linear_combination([Fraction(1, 2), Fraction(3)], [2, 0], 1)
    Fraction(2, 1)
    """
    acc = None
    for v, c in zip(values, coeffs):
        if c == 0:
            continue
        term = v * (lift(c) if lift else c)
        acc = term if acc is None else acc + term
    if acc is None:
        acc = values[0] * 0
    if const == 0:
        return acc
    return acc + (lift(const) if lift else const)
