"""Benchmark: the region sweeps against their previous implementation and against a vectorised float64 floor.

    python3 bench/sweeps.py [--repeat 3] [--quick] [--base REV]

Prints, in one run, medians of ``--repeat`` runs and the ratios side by side:

* 1-D: pieces/s of ``maxout_values_1d`` today versus the same function at git revision ``--base`` (default
  ``0f6d16a``, the commit before the matrix-form sweep).  The old module is read with ``git show REV:path`` and
  executed as ``verify.decide._regions_base`` beside the current one (same process, same inputs), so both are
  timed in the same run; their outputs are compared exactly (``same`` column).
* kernel (``--only kernel``): the re-check of T10 Results by ``verify/kernel/regions.py`` today and at ``--base``.
* T6 (``--only tracer``, one run each): ``prove_emulation`` on the 1-D tent with the tracer's id-keyed number
  cache against the value-keyed one of the base commit (swapped in for the comparison).
* Slow base cases (the old 1-D sweep at width 256, the old 2-D sweep on the deep slice) are timed once.
  The pairs compared (new / base in 1-D, exact / float64 in 2-D) are timed alternately, so that a change of
  the (shared) machine's load hits both sides.
* 2-D: exact regions/s of ``count_regions`` (activation, no region listing) today and at ``--base``, and a
  vectorised float64 sweep of the same cells (:func:`float_sweep_2d`, numpy; NOT a proof, its own count is
  printed beside the exact one), with the ratio exact time / float time.  The three are timed in turn
  (today, base, float; ``--repeat`` rounds; the base only once where its first run takes over 30 s), and
  regions per wall second and per CPU second of the process are printed for today and for the base (a
  loaded machine stretches the wall time, less so the CPU time).  ``--base 355859d`` compares with the fmpz_mat 2-D sweep (before the
  residue sweep).

The float64 sweep is the physical floor the exact sweep is measured against: the same layer-by-layer,
unit-by-unit polygon splitting, every piece of a layer evaluated at every vertex of a cell with one numpy
product, signs taken from rounded floats (no error bound: a count, not a proof).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _at_rev import module_at  # noqa: E402
DEFAULT_BASE = "0f6d16a"


def load_base(rev: str):
    """The module ``verify/decide/regions.py`` at git revision ``rev``, importable beside the current one."""
    return module_at(rev, "verify/decide/regions.py", "verify.decide._regions_base", "verify.decide")


def relu_net(sizes, seed, den=64):
    from verify.objects.maxout import MaxoutNetwork

    rng = random.Random(seed)
    q = lambda: Fraction(rng.randint(-100, 100), den)
    Ws = [[[q() for _ in range(sizes[i])] for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    bs = [[q() for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    return MaxoutNetwork.from_relu(Ws[:-1], bs[:-1], readout=(Ws[-1], bs[-1]))


def deep_slice_net(seed=0, width=50, depth=6, digits=7):
    """A 2-D slice of a 5-input ReLU network with ``depth`` hidden layers of ``width`` units and 7-digit
    decimal weights (the shape of the public ReLU benchmark networks): inputs 3, 4, 5 fixed at 1/10, 0, -1/10,
    folded exactly into the first layer's biases."""
    from verify.objects.maxout import MaxoutNetwork

    rng = random.Random(seed)
    scale = 10 ** digits
    q = lambda s: Fraction(round(rng.gauss(0, s) * scale), scale)
    sizes = [5] + [width] * depth + [1]
    Ws = [[[q((2 / sizes[i]) ** 0.5) for _ in range(sizes[i])] for _ in range(sizes[i + 1])]
          for i in range(len(sizes) - 1)]
    bs = [[q(0.05) for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    fixed = [Fraction(1, 10), Fraction(0), Fraction(-1, 10)]
    W0 = [row[:2] for row in Ws[0]]
    b0 = [bb + sum(c * v for c, v in zip(row[2:], fixed)) for row, bb in zip(Ws[0], bs[0])]
    return MaxoutNetwork.from_relu([W0] + Ws[1:-1], [b0] + bs[1:-1], readout=(Ws[-1], bs[-1]))


def _time(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def _time_pair(fa, fb, repeat, repeat_b=None):
    """Medians of ``fa`` and ``fb`` timed alternately (a, b, a, b, ...), so a change of the machine's load
    hits both; ``repeat_b`` (default ``repeat``) runs of ``fb``."""
    ta, tb, oa, ob = [], [], None, None
    for i in range(max(repeat, repeat_b or repeat)):
        if i < repeat:
            t = time.perf_counter()
            oa = fa()
            ta.append(time.perf_counter() - t)
        if i < (repeat_b or repeat):
            t = time.perf_counter()
            ob = fb()
            tb.append(time.perf_counter() - t)
    return statistics.median(ta), oa, statistics.median(tb), ob


def float_sweep_2d(net, box):
    """Vectorised float64 twin of the 2-D polygon sweep (numpy): per cell and layer, all pieces of all units at
    all vertices in ONE product (recomputed only on the two parts of a split), the unit decisions on those
    rows in plain floats.  NOT exact: rounded crossings, and a comparison within a relative 1e-9 of zero
    counts as no sign change (a rounded crossing vertex would otherwise split again forever); returns the
    number of distinct activation patterns (the float count)."""
    import numpy as np

    (x0, x1), (y0, y1) = [(float(lo), float(hi)) for lo, hi in box]
    cells = [(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), np.array([[1.0, 0, 0], [0, 1.0, 0]]), ())]
    for W, b in net.layers:
        N, k = len(W), len(b[0])
        Wm = np.array([[float(c) for c in w] for Wi in W for w in Wi])          # (N k) x n_in
        bm = np.array([float(c) for bi in b for c in bi])
        new = []
        for vs, Hm, pat in cells:
            A = Wm @ Hm                                                          # (N k) x 3 affine maps
            A[:, 2] += bm
            L, C = A[:, :2].T, A[:, 2]
            stack = [(vs, 0, (), (vs @ L + C).T.tolist())]                       # rows: pieces, cols: vertices
            while stack:
                cv, u, chosen, vals = stack.pop()
                while u < N:
                    best, split = 0, None
                    for j in range(1, k):
                        rj, rb = vals[u * k + j], vals[u * k + best]
                        dv = [p - q for p, q in zip(rj, rb)]
                        tol = 1e-9 * (max(map(abs, rj)) + max(map(abs, rb)) + 1e-300)
                        hi_, lo_ = max(dv), min(dv)
                        if hi_ > tol and lo_ < -tol:
                            split = j
                            break
                        if hi_ > tol:
                            best = j
                    if split is not None:
                        break
                    chosen += (best,)
                    u += 1
                if u == N:
                    Hn = np.array([A[i * k + a] for i, a in enumerate(chosen)])
                    new.append((cv, Hn, pat + chosen))
                    continue
                f = [p - q for p, q in zip(vals[u * k + split], vals[u * k + best])]
                pos, neg = [], []
                n = len(cv)
                for i in range(n):
                    p, fp, q_, fq = cv[i], f[i], cv[(i + 1) % n], f[(i + 1) % n]
                    if fp >= 0:
                        pos.append(p)
                    if fp <= 0:
                        neg.append(p)
                    if (fp > 0 > fq) or (fp < 0 < fq):
                        r = p + fp / (fp - fq) * (q_ - p)
                        pos.append(r)
                        neg.append(r)
                if len(pos) < 3 or len(neg) < 3:
                    stack.append((cv, u + 1, chosen + (best,), vals))
                    continue
                for part in (np.array(neg), np.array(pos)):
                    stack.append((part, u, chosen, (part @ L + C).T.tolist()))
        cells = new
    return len({p for _, _, p in cells})


def bench_1d(base, repeat, quick):
    from verify.decide.regions import maxout_values_1d, pieces_from_values
    from verify.constructions.token_shift import tent_network

    cases = [("ReLU [1,64,64,1]", relu_net([1, 64, 64, 1], 1), (-1, 1)),
             ("ReLU [1,128,128,1]", relu_net([1, 128, 128, 1], 1), (-1, 1)),
             ("tent L=14", tent_network(14), (0, 1))]
    if not quick:
        cases.insert(2, ("ReLU [1,256,256,1]", relu_net([1, 256, 256, 1], 1), (-1, 1)))
    print("1-D exact breakpoint sweep: today vs base (same run, same inputs)")
    print(f"  {'case':<20} {'pieces':>7} {'new/s':>10} {'base/s':>10} {'speed-up':>9}  same")
    for name, net, (lo, hi) in cases:
        slow = len(net.widths) > 1 and max(net.widths) >= 256          # the old sweep takes ~20 s here
        tn, (xs, Y), tb, (xb, Yb) = _time_pair(lambda: maxout_values_1d(net, lo, hi),
                                               lambda: base.maxout_values_1d(net, lo, hi), repeat,
                                               1 if slow else repeat)
        n = len(pieces_from_values(xs, Y))
        print(f"  {name:<20} {n:>7} {n / tn:>10.0f} {n / tb:>10.0f} {tb / tn:>8.1f}x  {xs == xb and Y == Yb}")
    # T10's evidence: the counts of every prefix of the tent (L = 1..20 in one sweep), today vs base (base once)
    from verify.decide.regions import prefix_counts_1d

    L = 16 if quick else 20
    net = tent_network(L)
    tn, cn, tb, cb = _time_pair(lambda: prefix_counts_1d(net, 0, 1), lambda: base.prefix_counts_1d(net, 0, 1),
                                repeat, 1)
    n = cn[-1][1]
    print(f"  {'tent prefixes L<=' + str(L):<20} {n:>7} {n / tn:>10.0f} {n / tb:>10.0f} {tb / tn:>8.1f}x  {cn == cb}"
          f"   (prefix_counts_1d: {tn:.2f} s vs {tb:.2f} s)")


def bench_2d(base, repeat, quick):
    from verify.decide.regions import count_regions

    cases = [("ReLU [2,32,32,1]", relu_net([2, 32, 32, 1], 0), [(-1, 1), (-1, 1)]),
             ("ReLU [2,64,64,1]", relu_net([2, 64, 64, 1], 0), [(-1, 1), (-1, 1)]),
             ("6x50 slice r=1/16", deep_slice_net(), [(Fraction(-1, 16), Fraction(1, 16))] * 2)]
    if quick:
        cases = cases[:1] + cases[2:]
    print("2-D exact polygon sweep: today vs base, and vs the vectorised float64 floor (same cells)")
    print("  regions/s per wall second (wall) and per CPU second of the process (cpu), medians")
    print(f"  {'case':<20} {'regions':>8} {'new wall':>9} {'new cpu':>9} {'base wall':>9} {'base cpu':>9} "
          f"{'speed-up':>9} {'cpu x':>6} {'float/s':>9} {'exact/float time':>17}  float count")
    for name, net, box in cases:
        tns, tbs, tfs, cpus, cpub = [], [], [], [], []
        rc = rb = nf = None
        for i in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            rc = count_regions(net, box, kind="activation", include_regions=False)
            tns.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            if i == 0 or tbs[0] < 30:
                t, c = time.perf_counter(), time.process_time()
                rb = base.count_regions(net, box, kind="activation", include_regions=False)
                tbs.append(time.perf_counter() - t)
                cpub.append(time.process_time() - c)
            t = time.perf_counter()
            nf = float_sweep_2d(net, box)
            tfs.append(time.perf_counter() - t)
        tn, tb, tf, cpu, cb = (statistics.median(v) for v in (tns, tbs, tfs, cpus, cpub))
        same = rc.count == rb.count
        print(f"  {name:<20} {rc.count:>8} {rc.count / tn:>9.0f} {rc.count / cpu:>9.0f} {rb.count / tb:>9.0f} "
              f"{rb.count / cb:>9.0f} {tb / tn:>8.2f}x {cb / cpu:>5.2f}x {nf / tf:>9.0f} {tn / tf:>17.2f}  "
              f"{nf}{'' if nf == rc.count else ' (differs)'}{'' if same else '  BASE COUNT DIFFERS'}"
              f"   (base runs {len(tbs)})")


def _old_num_factory():
    """The tracer's number cache as it was at the base commit (keyed by the Fraction's value), for comparison."""
    from fractions import Fraction as F

    from verify.decide import tracer as T

    cache = {}

    def _num(c):
        t = type(c)
        if t is T._MPQ:
            return c
        if t is F:
            q = cache.get(c)
            if q is None:
                if len(cache) > 100_000:
                    cache.clear()
                q = cache[c] = T.mpq(c.numerator, c.denominator)
            return q
        if t is int:
            return T.mpq(c)
        if isinstance(c, (int, F)) and not isinstance(c, bool):
            return T.to_q(c)
        return None

    return _num


def bench_tracer(repeat, quick):
    """T6 on the 1-D tent (prove_emulation): the tracer's id-keyed number cache vs the value-keyed one."""
    from verify.constructions.token_shift import tent_network
    from verify.decide import tracer as T
    from verify.decide.emulation import prove_emulation

    L = 8 if quick else 10
    net = tent_network(L)
    print(f"T6 prove_emulation, 1-D tent L={L}: tracer number cache keyed by id vs by value (same run)")
    new_num, old_num = T._num, _old_num_factory()
    try:
        tn, rn = _time(lambda: prove_emulation(net, [[0, 1]], record_regions=False), repeat)
        T._num = old_num
        tb, rb = _time(lambda: prove_emulation(net, [[0, 1]], record_regions=False), repeat)
    finally:
        T._num = new_num
    print(f"  id-keyed {tn:.2f} s  value-keyed {tb:.2f} s  speed-up {tb / tn:.2f}x  verdicts {rn.verdict.value}/"
          f"{rb.verdict.value}")


def bench_kernel(rev, repeat, quick=False):
    """The kernel's re-check of T10 Results (``verify.kernel.regions``) today vs at ``rev`` (read with git show and
    executed as ``verify.kernel._regions_base``), alternately in one run; both must accept."""
    import json

    from verify.canonical import canonical_dumps
    from verify.checks.t10_linear_regions import check_depth_bound_table, check_region_count, check_zigzag_counts
    from verify.kernel import regions as KR

    old = module_at(rev, "verify/kernel/regions.py", "verify.kernel._regions_base", "verify.kernel")
    cases = [("tent depth table L<=14", check_depth_bound_table(family="tent", D_max=45, c=3)),
             ("zigzag q=3 L<=7", check_zigzag_counts(q=3, L_max=8, compiled_L_max=0)),
             ("2-D [2,16,16,1]", check_region_count(relu_net([2, 16, 16, 1], 0), [(-1, 1), (-1, 1)], "activation"))]
    print(f"kernel re-check of T10 Results: today vs {rev} (same run, alternately)")
    print(f"  {'case':<24} {'today s':>8} {'base s':>8} {'speed-up':>9}")
    for label, res in cases:
        d = json.loads(canonical_dumps(res.to_dict()))
        kind = d["certificate"]["kind"]
        tn, a, tb, b = _time_pair(lambda: KR.KINDS[kind].check(d), lambda: old.KINDS[kind].check(d), repeat)
        print(f"  {label:<24} {tn:>8.3f} {tb:>8.3f} {tb / tn:>8.2f}x  {a == b}")
    if not quick:
        # the real size of the issue: a 2-D slice of a 6 x 50 network with 2,354 regions, PROVED and re-checked
        r = Fraction(1, 16)
        t, c = time.perf_counter(), time.process_time()
        res = check_region_count(deep_slice_net(), [(-r, r)] * 2, "activation")
        tw, tc = time.perf_counter() - t, time.process_time() - c
        d = json.loads(canonical_dumps(res.to_dict()))
        t, c = time.perf_counter(), time.process_time()
        out = KR.KINDS[d["certificate"]["kind"]].check(d)
        kw, kc = time.perf_counter() - t, time.process_time() - c
        try:
            old.KINDS[d["certificate"]["kind"]].check(d)
            base_says = "accepts"
        except Exception as exc:              # the base kernel's work bound
            base_says = f"rejects: {str(exc)[:70]}"
        print(f"  6x50 slice r=1/16: {res.verdict.value}, {len(d['certificate']['cells'])} cells; recorded in "
              f"{tw:.1f} s wall / {tc:.1f} s CPU, re-checked in {kw:.1f} s wall / {kc:.1f} s CPU ({out}); "
              f"base kernel {base_says}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--base", default=DEFAULT_BASE)
    ap.add_argument("--only", choices=("1d", "2d", "tracer", "kernel"))
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= 20:
        print("error: --repeat: must be in [1, 20]", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    base = load_base(args.base)
    print(f"median of {args.repeat} runs; python {sys.version.split()[0]}; base {args.base}")
    if args.only in (None, "1d"):
        bench_1d(base, args.repeat, args.quick)
    if args.only in (None, "2d"):
        bench_2d(base, args.repeat, args.quick)
    if args.only in (None, "tracer"):
        bench_tracer(1, args.quick)
    if args.only in (None, "kernel"):
        bench_kernel(args.base, args.repeat, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
