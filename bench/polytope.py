"""Benchmark: exact polyhedral cells in d = 3..5 (verify/decide/polytope.py) against a float LP walker, and
prove_emulation cells per second.

    python3 bench/polytope.py [--repeat 3] [--quick] [--large]

For each seeded random ReLU network (rank-2 maxout form) on [-1, 1]^d it prints, side by side, the exact
activation count (every cell certified exactly, the certificate the kernel re-checks) and the count of a float
LP walker written here as the yardstick (BFS over activation patterns: from a region, flip one unit and keep
the neighbour if its polytope has Chebyshev radius > 1e-9 by HiGHS; NOT a proof), the regions per second of
both (median of the repeats) and the ratio exact / walker.  Then prove_emulation on d = 3..5 networks: cells
(leaves of the split trees) per second.  The issue's targets: exact >= 10x the walker; prove_emulation >= 1e4
cells in <= 60 s.  The numbers printed are what this machine measures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import deque
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def relu_spec(seed: int, d: int, widths) -> dict:
    rng = random.Random(seed)
    layers, n_in = [], d
    for w in widths:
        W = [[[str(Fraction(rng.randint(-8, 8), rng.randint(1, 4))) for _ in range(n_in)], ["0"] * n_in]
             for _ in range(w)]
        b = [[str(Fraction(rng.randint(-4, 4), rng.randint(1, 4))), "0"] for _ in range(w)]
        layers.append({"W": W, "b": b})
        n_in = w
    return {"layers": layers}


def walker_count(spec: dict, d: int, lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> int:
    """Float LP walker (the yardstick; not a proof): BFS over activation patterns joined by one unit flip."""
    import numpy as np
    from scipy.optimize import linprog

    Ws = [np.array([[float(Fraction(c)) for c in u[0]] for u in L["W"]]) for L in spec["layers"]]
    bs = [np.array([float(Fraction(u[0])) for u in L["b"]]) for L in spec["layers"]]
    box_A = np.vstack([np.eye(d), -np.eye(d)])
    box_b = np.r_[np.full(d, hi), np.full(d, -lo)]

    def polytope(pattern):
        """A x <= b of the open region of the pattern (a tuple of 0/1 per unit, layers concatenated)."""
        A_rows, b_rows = [box_A], [box_b]
        M, c = np.eye(d), np.zeros(d)            # h = M x + c
        k = 0
        for W, b in zip(Ws, bs):
            pre_M, pre_c = W @ M, W @ c + b
            s = np.array(pattern[k:k + len(b)])
            k += len(b)
            sign = np.where(s == 1, -1.0, 1.0)   # active: pre > 0  <=>  -pre < 0
            A_rows.append(sign[:, None] * pre_M)
            b_rows.append(-sign * pre_c)
            M, c = pre_M * s[:, None], pre_c * s
        return np.vstack(A_rows), np.concatenate(b_rows)

    def feasible(pattern):
        A, b = polytope(pattern)
        n = np.linalg.norm(A, axis=1)
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.c_[A, n], b_ub=b, bounds=[(None, None)] * d + [(None, 1)],
                      method="highs")
        return res.status == 0 and -res.fun > 1e-9

    def pattern_at(x):
        h, out = x, []
        for W, b in zip(Ws, bs):
            pre = W @ h + b
            out.extend(int(v > 0) for v in pre)
            h = np.maximum(pre, 0)
        return tuple(out)

    rng = np.random.default_rng(seed)
    start = pattern_at(rng.uniform(lo, hi, d))
    seen, queue = {start}, deque([start])
    n_units = len(start)
    while queue:
        p = queue.popleft()
        for i in range(n_units):
            q = p[:i] + (1 - p[i],) + p[i + 1:]
            if q not in seen and feasible(q):
                seen.add(q)
                queue.append(q)
    return len(seen)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--large", action="store_true", help="add a d = 5 prove_emulation run with > 10^4 cells")
    args = ap.parse_args(argv)
    import scipy.optimize  # noqa: F401  (import cost outside the timings)

    from verify.decide.emulation import prove_emulation
    from verify.decide.polytope import activation_search
    from verify.objects.maxout import MaxoutNetwork

    cases = [(3, [8]), (3, [6, 4]), (4, [8]), (5, [8])] if not args.quick else [(3, [6])]
    print("exact polyhedral cells vs float LP walker (activation regions on [-1, 1]^d, median of "
          f"{args.repeat}):")
    print(f"{'d':>2} {'widths':>8} {'exact':>7} {'walker':>7} {'exact reg/s':>12} {'walker reg/s':>13} {'ratio':>7}")
    for i, (d, widths) in enumerate(cases):
        spec = relu_spec(100 + i, d, widths)
        te, tw, n_e, n_w = [], [], None, None
        for _ in range(args.repeat):
            t = time.perf_counter()
            info = activation_search(spec, [(Fraction(-1), Fraction(1))] * d)
            te.append(time.perf_counter() - t)
            n_e = len(set(info["patterns"]))
            t = time.perf_counter()
            n_w = walker_count(spec, d)
            tw.append(time.perf_counter() - t)
        me, mw = statistics.median(te), statistics.median(tw)
        print(f"{d:>2} {'x'.join(map(str, widths)):>8} {n_e:>7} {n_w:>7} {n_e / me:>12.1f} {n_w / mw:>13.1f} "
              f"{(n_e / me) / (n_w / mw):>7.2f}{'' if n_e == n_w else '  (counts differ)'}")
    print("\nprove_emulation (T6/T8 path, compiled Transformer, tie average), cells = leaves of the split trees:")
    print(f"{'d':>2} {'widths':>8} {'verdict':>9} {'cells':>7} {'seconds':>8} {'cells/s':>8}")
    emu = [(3, [2]), (3, [4]), (4, [3]), (5, [2])] if not args.quick else [(3, [2])]
    if args.large:
        emu.append((5, [3]))
    for i, (d, widths) in enumerate(emu):
        net = MaxoutNetwork.from_dict(relu_spec(200 + i, d, widths))
        ts, r = [], None
        for _ in range(args.repeat):
            t = time.perf_counter()
            r = prove_emulation(net, [["-1", "1"]] * d, tie="average", record_regions=False, max_cells=200_000)
            ts.append(time.perf_counter() - t)
        m = statistics.median(ts)
        cells = r.evidence.get("cells", 0)
        print(f"{d:>2} {'x'.join(map(str, widths)):>8} {r.verdict.value:>9} {cells:>7} {m:>8.2f} {cells / m:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
