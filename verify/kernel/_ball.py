"""arb balls for the kernel (python-flint), with exactly what each helper guarantees.

* :func:`ball` -- an exact rational as a ball at the current precision; the ball contains it.
* :func:`bounds` -- exact rational endpoints ``(lo, hi)`` with ``lo <= every point <= hi``; rejects a ball
  that is not finite.
* :func:`positive` / :func:`negative` -- True only if every point of the ball is > 0 (< 0); False means
  "not proved", never "false".
* :func:`cholesky_pd` -- True only if the symmetric ball matrix certainly admits a Cholesky factorisation
  with every pivot certainly > 0, which proves that every real symmetric matrix inside the balls is
  positive definite; False means "not proved".
* :func:`workprec` -- python-flint's working precision, in bits (16..100000).

>>> with workprec(64):
...     lo, hi = bounds(ball(Fraction(1, 3)))
>>> lo <= Fraction(1, 3) <= hi
True
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx, fmpq

from ._read import Rejected, tick

__all__ = ["arb", "ball", "bounds", "positive", "negative", "cholesky_pd", "workprec", "Fraction"]


def workprec(bits: int):
    if isinstance(bits, bool) or not isinstance(bits, int) or not 16 <= bits <= 100_000:
        raise Rejected(f"precision: expected 16..100000 bits, got {bits!r:.30}")
    return ctx.workprec(bits)


def ball(q) -> arb:
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def _dyadic(x) -> Fraction:
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))


def bounds(x: arb) -> tuple:
    if not isinstance(x, arb) or not x.is_finite():
        raise Rejected("ball: not finite")
    mid, rad = _dyadic(x.mid()), _dyadic(x.rad())
    return mid - rad, mid + rad


def positive(x: arb) -> bool:
    return isinstance(x, arb) and bool(x > 0)


def negative(x: arb) -> bool:
    return isinstance(x, arb) and bool(x < 0)


def cholesky_pd(G) -> bool:
    """Scalar ball Cholesky of the n x n list-of-lists ``G`` (only the lower triangle is read; the caller
    builds G symmetric)."""
    n = len(G)
    L = [[arb(0)] * n for _ in range(n)]
    for j in range(n):
        tick()
        s = G[j][j] - sum((L[j][k] * L[j][k] for k in range(j)), arb(0))
        if not s > 0:
            return False
        L[j][j] = s.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (G[i][j] - sum((L[i][k] * L[j][k] for k in range(j)), arb(0))) / L[j][j]
    return True
