"""Benchmark: exact region counting (1-D and 2-D) versus a float64 run of the same algorithm, and T6 on a
2-D network with >= 50 regions.

    python3 bench/regions.py [--repeat 3] [--quick]

Prints, side by side, regions per second of the exact counter (mpq / fmpq) and of the float64 version of the
same algorithm (same code path, numbers converted with ``float``), with the ratio and the median of the
repeats.  The float version is NOT a proof: its counts may differ (rounded crossings, missed or spurious
splits); differences are reported.  Issue 5 targets: >= 100,000 pieces/s (1-D), >= 2,000 regions/s (2-D);
the numbers printed are what this machine measures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from fractions import Fraction


def _float_context():
    """The float64 arithmetic context of the baselines (numpy products): NOT exact, benchmark only."""
    import numpy as np

    from verify.arith.context import Context

    class FloatContext(Context):
        name = "float64"
        exact = False

        def convert(self, q):
            return float(q)

        def sign(self, a):
            return (a > 0) - (a < 0)

        def exp(self, a):
            return float(np.exp(a))

        def matrix(self, rows, cols, flat):
            return np.array(flat, dtype=float).reshape(rows, cols)

        @staticmethod
        def affine(W, B, H):
            return (W @ H + B).ravel().tolist()

        @staticmethod
        def to_fraction(v):
            return v                 # the baseline compares counts; its numbers stay floats

    return FloatContext()


def _relu_net(sizes, seed, den=64):
    from verify.objects.maxout import MaxoutNetwork

    rng = random.Random(seed)
    q = lambda: Fraction(rng.randint(-100, 100), den)
    Ws = [[[q() for _ in range(sizes[i])] for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    bs = [[q() for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    return MaxoutNetwork.from_relu(Ws[:-1], bs[:-1], readout=(Ws[-1], bs[-1]))


def _time(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def bench_1d(repeat, quick):
    from verify.decide.regions import maxout_values_1d, pieces_from_values
    from verify.checks.t10_linear_regions import zigzag_network
    from verify.constructions.token_shift import tent_network

    cases = [("tent L=14", tent_network(14), (0, 1)), ("zigzag q=3 L=7", zigzag_network(3, 7), (0, 1)),
             ("ReLU [1,64,64,1]", _relu_net([1, 64, 64, 1], 1), (-1, 1))]
    if not quick:
        cases.insert(1, ("tent L=18", tent_network(18), (0, 1)))
    FLOAT = _float_context()
    print("1-D exact breakpoint sweep vs float64 (same algorithm)")
    print(f"  {'case':<20} {'pieces':>9} {'exact/s':>11} {'float/s':>11} {'float/exact time':>17}  float count")
    for name, net, (lo, hi) in cases:
        te, (xs, Y) = _time(lambda: maxout_values_1d(net, lo, hi), repeat)
        n = len(pieces_from_values(xs, Y))
        tf, (xf, Yf) = _time(lambda: maxout_values_1d(net, lo, hi, ctx=FLOAT), repeat)
        nf = len(pieces_from_values(xf, Yf))
        print(f"  {name:<20} {n:>9} {n / te:>11.0f} {nf / tf:>11.0f} {tf / te:>17.2f}  "
              f"{nf}{'' if nf == n else '  (DIFFERS)'}")


def bench_2d(repeat, quick):
    from verify.decide.regions import count_regions, maxout_cells_2d

    cases = [("ReLU [2,16,16,1]", [2, 16, 16, 1]), ("ReLU [2,32,32,1]", [2, 32, 32, 1])]
    if not quick:
        cases.append(("ReLU [2,24,24,24,1]", [2, 24, 24, 24, 1]))
    FLOAT = _float_context()
    print("2-D exact polygon sweep vs float64 (same algorithm)")
    print(f"  {'case':<20} {'regions':>8} {'pieces':>7} {'exact/s':>9} {'float/s':>9} {'float/exact time':>17}  float count")
    for name, sizes in cases:
        net = _relu_net(sizes, 0)
        box = [(-1, 1), (-1, 1)]
        te, rc = _time(lambda: count_regions(net, box, kind="activation", include_regions=False), repeat)
        tf, cells = _time(lambda: maxout_cells_2d(net, box, ctx=FLOAT), repeat)
        nf = len({p for _, p, _ in cells})
        print(f"  {name:<20} {rc.count:>8} {rc.pieces:>7} {rc.count / te:>9.0f} {nf / tf:>9.0f} {tf / te:>17.2f}  "
              f"{nf}{'' if nf == rc.count else '  (DIFFERS)'}")


def bench_t6(repeat):
    from verify.decide.emulation import prove_emulation
    from verify.constructions.reference_networks import random_maxout
    from verify.constructions.maxout_compiler import compile_maxout

    print("T6: prove_emulation on a 2-D network (whole closed box, both tie rules)")
    for seed, k, L in ((5, 2, 2), (0, 3, 3)):
        net = random_maxout(seed, 2, k, L, 3)
        comp = compile_maxout(net, [[-1, 1], [-1, 1]])
        t, r = _time(lambda: prove_emulation(comp, record_regions=False), repeat)
        c = r.evidence                  # cell counts (the certificate lists the cells themselves)
        print(f"  random d=2 k={k} L={L} seed={seed}: {r.verdict.value}, {c.get('open_cells')} open cells "
              f"(+{c.get('cells', 0) - c.get('open_cells', 0)} lower-dim), {t:.2f} s "
              f"({c.get('open_cells', 0) / t:.0f} open cells/s)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= 20:
        print("error: --repeat: must be in [1, 20]", file=sys.stderr)
        return 2
    print(f"median of {args.repeat} runs; python {sys.version.split()[0]}")
    bench_1d(args.repeat, args.quick)
    bench_2d(args.repeat, args.quick)
    bench_t6(max(1, args.repeat // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
