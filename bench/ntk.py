"""bench/ntk: time of the certified PD verdict vs float64 eigvalsh for Gram sizes N*m up to 400.

    python3 bench/ntk.py            # sizes 20, 50, 100, 200, 400 (a few minutes at most)
    python3 bench/ntk.py --quick    # sizes 20, 50, 100

Family: N random discrete laws in d = 2 (4 distinct atoms each, coordinates k/8, |k| <= 16, seed 2026),
m = 2 shared queries (1, 1/2), (-3/10, 1); H = ceil(N*m/d) + 8 Gaussian heads (seed 0, scale 1/4).

Columns (medians over the repeats):
  certified = arb Gram + interval Cholesky, summed over the rungs of the ladder 64, 128, ..., 2048 bits
              until the Cholesky succeeds (gram / cholesky = the two parts);
  float64   = numpy Gram from the same exact heads + eigvalsh;  eigvalsh = the eigenvalue call alone.
Ratios: certified / float64 (whole verdict) and cholesky / eigvalsh (the decision step alone).
``run()`` returns the figures for bench/run.py; the table goes to stderr.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from fractions import Fraction as F

import numpy as np

from verify.decide.ntk_gram import gaussian_heads, ntk_gram, ntk_gram_float64, query_lists
from verify.arith.ball import ball_cholesky, workprec
from verify.laws import Discrete

QUERIES = [[F(1), F(1, 2)], [F(-3, 10), F(1)]]
LADDER = (64, 128, 256, 512, 1024, 2048)


def family(n_laws: int, seed: int = 2026) -> list:
    rng = random.Random(seed)
    laws = []
    for _ in range(n_laws):
        pts = set()
        while len(pts) < 4:
            pts.add((F(rng.randint(-16, 16), 8), F(rng.randint(-16, 16), 8)))
        laws.append(Discrete([list(p) for p in sorted(pts)]))
    return laws


def certified(laws, heads):
    """(verdict, deciding precision, gram seconds, cholesky seconds), times summed over every rung tried."""
    tg = tc = 0.0
    for prec in LADDER:
        t0 = time.perf_counter()
        g = ntk_gram(laws, QUERIES, head_set=heads, precision=prec)
        t1 = time.perf_counter()
        with workprec(prec):
            chol = ball_cholesky(g.entries())
        t2 = time.perf_counter()
        tg, tc = tg + t1 - t0, tc + t2 - t1
        if chol.positive_definite:
            return "PD", prec, tg, tc
    return "undecided", LADDER[-1], tg, tc


def float64(laws, heads):
    t0 = time.perf_counter()
    M = ntk_gram_float64(laws, query_lists(laws, QUERIES), heads)
    t1 = time.perf_counter()
    eig = np.linalg.eigvalsh(M)
    t2 = time.perf_counter()
    return float(eig[0] / eig[-1]), t1 - t0, t2 - t1


def run(quick: bool = False, repeats: int = None) -> dict:
    sizes = (20, 50, 100) if quick else (20, 50, 100, 200, 400)
    out = {"sizes": list(sizes), "rows": []}
    err = sys.stderr
    err.write(f"{'N*m':>5} {'H':>4} {'verdict':>9} {'bits':>5} {'certified s':>12} {'(gram':>8} {'chol)':>8} "
              f"{'float64 s':>10} {'eigvalsh s':>11} {'cert/f64':>9} {'chol/eig':>9} {'f64 ratio':>11}\n")
    cert_ratios, step_ratios = [], []
    for n in sizes:
        laws = family(n // 2)
        H = -(-n // 2) + 8
        heads, _ = gaussian_heads(H, 2, seed=0, scale=F(1, 4))
        reps = repeats or (3 if n <= 100 else 1)
        c_tot, c_gram, c_chol, f_tot, f_eig = [], [], [], [], []
        verdict = prec = ratio = None
        for _ in range(reps):
            verdict, prec, tg, tc = certified(laws, heads)
            ratio, fg, fe = float64(laws, heads)
            c_tot.append(tg + tc), c_gram.append(tg), c_chol.append(tc)
            f_tot.append(fg + fe), f_eig.append(fe)
        row = {"size": n, "heads": H, "verdict": verdict, "precision_bits": prec,
               "certified_s": statistics.median(c_tot), "gram_s": statistics.median(c_gram),
               "cholesky_s": statistics.median(c_chol), "float64_s": statistics.median(f_tot),
               "eigvalsh_s": statistics.median(f_eig), "float64_lambda_ratio": ratio}
        row["certified_over_float64_ratio"] = row["certified_s"] / row["float64_s"]
        row["cholesky_over_eigvalsh_ratio"] = row["cholesky_s"] / max(row["eigvalsh_s"], 1e-9)
        cert_ratios.append(row["certified_over_float64_ratio"])
        step_ratios.append(row["cholesky_over_eigvalsh_ratio"])
        out["rows"].append(row)
        err.write(f"{n:>5} {H:>4} {verdict:>9} {prec:>5} {row['certified_s']:>12.3f} {row['gram_s']:>8.3f} "
                  f"{row['cholesky_s']:>8.3f} {row['float64_s']:>10.4f} {row['eigvalsh_s']:>11.5f} "
                  f"{row['certified_over_float64_ratio']:>9.1f} {row['cholesky_over_eigvalsh_ratio']:>9.0f} "
                  f"{ratio:>11.3e}\n")
        err.flush()
    out["median_certified_over_float64_ratio"] = statistics.median(cert_ratios)
    out["median_cholesky_over_eigvalsh_ratio"] = statistics.median(step_ratios)
    err.write(f"median certified/float64 = {out['median_certified_over_float64_ratio']:.1f}x, "
              f"median cholesky/eigvalsh = {out['median_cholesky_over_eigvalsh_ratio']:.0f}x\n")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=None)
    a = ap.parse_args()
    run(quick=a.quick, repeats=a.repeats)
