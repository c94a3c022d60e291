"""Seeded network builders shared by tests (tests do not import bench/)."""

import random
from fractions import Fraction


def bench_relu_spec(seed, d, widths) -> dict:
    """bench/polytope.py's ``relu_spec`` (the benchmark networks: ReLU units as rank-2 maxout units with
    weights p/q, p in [-8, 8], q in [1, 4], biases p/q with p in [-4, 4]), the same networks for a seed."""
    rng = random.Random(seed)
    layers, n_in = [], d
    for w in widths:
        W = [[[str(Fraction(rng.randint(-8, 8), rng.randint(1, 4))) for _ in range(n_in)], ["0"] * n_in]
             for _ in range(w)]
        b = [[str(Fraction(rng.randint(-4, 4), rng.randint(1, 4))), "0"] for _ in range(w)]
        layers.append({"W": W, "b": b})
        n_in = w
    return {"layers": layers}
