"""Seeded random ReLU networks written as ``.nnet`` text (the Reluplex / Marabou format), for the reader and CLI
tests: ``nnet_text([5, 50, 50, 50, 50, 50, 50, 5], seed=1)`` is a 5-input network of 300 ReLUs (6 x 50)."""

import random


def dense_weights(sizes, seed=0, digits=6, dyadic=False):
    """Per layer (W rows, b) as decimal strings: Gaussian (He scale) rounded to ``digits`` decimals, or with
    ``dyadic`` multiples of 1/8 in [-2, 2] (exact in binary and in decimal)."""
    rng = random.Random(seed)
    out = []
    for a, b in zip(sizes, sizes[1:]):
        if dyadic:
            W = [[str(rng.randint(-16, 16) / 8) for _ in range(a)] for _ in range(b)]
            bias = [str(rng.randint(-8, 8) / 8) for _ in range(b)]
        else:
            sc = (2 / a) ** 0.5
            W = [[f"{rng.gauss(0, sc):.{digits}f}" for _ in range(a)] for _ in range(b)]
            bias = [f"{rng.gauss(0, 0.1):.{digits}f}" for _ in range(b)]
        out.append((W, bias))
    return out


def nnet_text(sizes, seed=0, *, layers=None, mins=None, maxs=None, means=None, ranges=None, dyadic=False):
    n_in = sizes[0]
    layers = layers or dense_weights(sizes, seed, dyadic=dyadic)
    lines = ["// seeded random ReLU network (tests/data/nnet_gen.py)",
             ",".join(map(str, [len(sizes) - 1, n_in, sizes[-1], max(sizes)])) + ",",
             ",".join(map(str, sizes)) + ",", "0,",
             ",".join(mins or ["-1"] * n_in) + ",", ",".join(maxs or ["1"] * n_in) + ",",
             ",".join(means or ["0"] * (n_in + 1)) + ",", ",".join(ranges or ["1"] * (n_in + 1)) + ","]
    for W, b in layers:
        lines += [",".join(row) + "," for row in W]
        lines += [v + "," for v in b]
    return "\n".join(lines) + "\n"
