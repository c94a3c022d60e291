"""Reference maxout networks of the catalogue: O2 (docs/paper1.md O2), max(x, -x) (the sharpness example of R5)
and the seeded random family of T6.

>>> net = o2_network()
>>> net.input_dim, net.rank, net.widths, net.evaluate([0])
(1, 2, (2, 1), (Fraction(7, 6),))
>>> abs_network().evaluate(["-1/2"])
(Fraction(1, 2),)
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..errors import InputError
from ..objects.maxout import MaxoutNetwork

__all__ = ["o2_network", "abs_network", "random_maxout"]


def o2_network() -> MaxoutNetwork:
    """docs/paper1.md O2: d = 1, k = 2, L = 2, N = (2, 1) on K = [0, 1]."""
    return MaxoutNetwork([([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]),
                          ([[[1, -2], [-1, 1]]], [[0, "1/2"]])])


def abs_network() -> MaxoutNetwork:
    """max(x, -x): L = 1, k = 2 (the sharpness example of R5)."""
    return MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])


def random_maxout(seed: int, d: int, k: int, L: int, max_width: int) -> MaxoutNetwork:
    """Seeded random rational maxout network: widths in [1, max_width], weights in [-2, 2] with
    denominators <= 4 (catalogue T6)."""
    for name, v, lo, hi in (("d", d, 1, 8), ("k", k, 1, 6), ("L", L, 1, 6), ("max_width", max_width, 1, 6)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    rng = random.Random(seed)

    def q():
        den = rng.randint(1, 4)
        return Fraction(rng.randint(-2 * den, 2 * den), den)

    layers, n_in = [], d
    for _ in range(L):
        N = rng.randint(1, max_width)
        layers.append(([[[q() for _ in range(n_in)] for _ in range(k)] for _ in range(N)],
                       [[q() for _ in range(k)] for _ in range(N)]))
        n_in = N
    return MaxoutNetwork(layers)
