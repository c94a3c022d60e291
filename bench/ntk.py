"""bench/ntk: time of the certified PD verdict before and after (Cholesky sums in Arb, shared exponentials)
beside float64, for Gram sizes N*m up to 400, in one run.

    python3 bench/ntk.py            # sizes 20, 50, 100, 200, 400 (a few minutes at most)
    python3 bench/ntk.py --quick    # sizes 20, 50, 100
    python3 bench/ntk.py --sizes 400 --repeats 3

Family: N random discrete laws in d = 2 (4 distinct atoms each, coordinates k/8, |k| <= 16, seed 2026),
m = 2 shared queries (1, 1/2), (-3/10, 1); H = ceil(N*m/d) + 8 Gaussian heads (seed 0, scale 1/4).

Columns (medians over the repeats):
  before    = the previous path: per-law gradient batches (verify.laws.cgf.discrete_grad_ball_many), the
              textbook ball Cholesky (verify.arith.ball.ball_cholesky), the ladder 64, 128, ..., 2048 bits
              from its bottom until the Cholesky succeeds, times summed over every rung tried;
  after     = the check's ladder, verify.decide.ntk.ladder_cholesky: per rung the Gram's rows
              (verify.decide.ntk_gram.ntk_gram_features, shared exponentials) and, up to 64 rows, the panel
              ball Cholesky (verify.arith.ball.ball_cholesky_panel) of the Gram built slab by slab as far as
              the factorisation gets; above 64 rows the residual certificate
              (verify.arith.ball.certify_pd_residual: a fixed-point Cholesky factor L of the Gram's
              midpoints minus c I in exact integers, whose residual K - c I - L L^T is then exact up to the
              radii, and a rigorous bound on its rows; the finer rungs of verify.decide.ntk.residual_ladder,
              64, 128, 192, 256, 384, ...); the ladder started
              at the rung the float64 Gram predicts (verify.decide.ntk.predicted_start: its condition number,
              and above 64 rows how far a shifted float64 Cholesky gets; the float64 Gram's time is counted
              in 'after');
  float64   = numpy Gram from the same exact heads + eigvalsh.
Ratios: before / after (the speed-up), after / float64 and before / float64 (certified over the float floor);
'cpu b/a' is the same speed-up in CPU time (time.process_time, medians), less sensitive to the machine's load.
``run()`` returns the figures for bench/run.py; the table goes to stderr.
"""

from __future__ import annotations

import os

# numpy's BLAS on one thread, like every other path here: on the shared 2-core machine a threaded OpenBLAS
# spins (measured: eigvalsh of the 400-row Gram 1.2 s of CPU time threaded, 0.009 s on one thread).  Only
# effective when numpy is first imported here (python3 bench/ntk.py), not under bench/run.py.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import statistics
import sys
import time
from fractions import Fraction as F

import numpy as np
from flint import arb_mat

import scipy.linalg.lapack  # noqa: F401  (imported once here, not inside the first timed row)

from verify.decide.ntk import (FLOAT64_UNDECIDED_RATIO, RESIDUAL_MIN_SIZE, ladder_cholesky, predicted_start,
                               residual_ladder, shifted_cholesky_pivots)
from verify.decide.ntk_gram import _discrete_atoms, apply_head, gaussian_heads, ntk_gram_float64, query_lists
from verify.arith.ball import ball_cholesky, workprec
from verify.laws.oracle_families import grid_laws
from verify.laws.cgf import discrete_grad_ball_many

QUERIES = [[F(1), F(1, 2)], [F(-3, 10), F(1)]]
LADDER = (64, 128, 256, 512, 1024, 2048)


def family(n_laws: int, seed: int = 2026) -> list:
    return grid_laws(n_laws, seed=seed)


def _gram_before(laws, heads, prec):
    """The Gram as built before (one discrete_grad_ball_many batch per law, per-column shifted exponentials)."""
    qs = query_lists(laws, QUERIES)[0]
    thetas = [apply_head(A, q) for A in heads for q in qs]
    m = len(qs)
    with workprec(prec):
        rows = []
        for law in laws:
            atoms, weights = _discrete_atoms(law)
            feats = discrete_grad_ball_many(atoms, weights, thetas)
            for a in range(m):
                rows.append([g for h in range(len(heads)) for g in feats[h * m + a]])
        Fm = arb_mat(rows)
        K = (Fm * Fm.transpose()) / len(heads)
        n = K.nrows()
        return [[K[max(r, c), min(r, c)] for c in range(n)] for r in range(n)]


def before(laws, heads):
    """(verdict, deciding precision, seconds, CPU seconds), the previous path."""
    t0, c0 = time.perf_counter(), time.process_time()
    for prec in LADDER:
        M = _gram_before(laws, heads, prec)
        with workprec(prec):
            if ball_cholesky(M).positive_definite:
                return "PD", prec, time.perf_counter() - t0, time.process_time() - c0
    return "undecided", LADDER[-1], time.perf_counter() - t0, time.process_time() - c0


def after(laws, heads):
    """(verdict, deciding precision, seconds, CPU seconds), the current path with the predicted first rung."""
    t0, c0 = time.perf_counter(), time.process_time()
    M = ntk_gram_float64(laws, query_lists(laws, QUERIES), heads)
    eig = np.linalg.eigvalsh(M)
    ratio = float(eig[0] / eig[-1])
    rungs = residual_ladder(LADDER) if len(M) > RESIDUAL_MIN_SIZE else LADDER
    start = predicted_start({"size": len(M), "ratio": ratio, "undecided": not abs(ratio) > FLOAT64_UNDECIDED_RATIO,
                             "naive_rule": "PD" if eig[0] > 0 else "not PD",
                             **({"shifted_cholesky_pivots": shifted_cholesky_pivots(M)} if len(M) > RESIDUAL_MIN_SIZE
                                else {})}, rungs)
    feats, chol, attempts = ladder_cholesky(laws, QUERIES, rungs[start:], head_set=heads)
    return (("PD" if chol.positive_definite else "undecided"), attempts[-1]["precision_bits"],
            time.perf_counter() - t0, time.process_time() - c0)


def float64(laws, heads):
    t0 = time.perf_counter()
    M = ntk_gram_float64(laws, query_lists(laws, QUERIES), heads)
    eig = np.linalg.eigvalsh(M)
    return float(eig[0] / eig[-1]), time.perf_counter() - t0


def run(quick: bool = False, repeats: int = None, sizes=None) -> dict:
    sizes = tuple(sizes) if sizes else (20, 50, 100) if quick else (20, 50, 100, 200, 400)
    out = {"sizes": list(sizes), "rows": []}
    err = sys.stderr
    err.write(f"{'N*m':>5} {'H':>4} {'verdict':>9} {'bits b/a':>9} {'before s':>9} {'after s':>8} "
              f"{'float64 s':>10} {'before/after':>13} {'after/f64':>10} {'before/f64':>11} {'f64 ratio':>10} "
              f"{'cpu b/a s':>13} {'cpu b/a':>8}\n")
    for n in sizes:
        laws = family(n // 2)
        H = -(-n // 2) + 8
        heads, _ = gaussian_heads(H, 2, seed=0, scale=F(1, 4))
        reps = repeats or (3 if n <= 100 else 1)
        tb, ta, tf, cb, ca = [], [], [], [], []
        for _ in range(reps):
            vb, pb, t, c = before(laws, heads)
            tb.append(t)
            cb.append(c)
            va, pa, t, c = after(laws, heads)
            ta.append(t)
            ca.append(c)
            ratio, t = float64(laws, heads)
            tf.append(t)
        row = {"size": n, "heads": H, "verdict_before": vb, "verdict_after": va, "precision_before": pb,
               "precision_after": pa, "before_s": statistics.median(tb), "after_s": statistics.median(ta),
               "float64_s": statistics.median(tf), "float64_lambda_ratio": ratio,
               "before_cpu_s": statistics.median(cb), "after_cpu_s": statistics.median(ca)}
        row["speedup"] = row["before_s"] / row["after_s"]
        row["cpu_speedup"] = row["before_cpu_s"] / row["after_cpu_s"]
        row["certified_over_float64_ratio"] = row["after_s"] / row["float64_s"]
        row["before_over_float64_ratio"] = row["before_s"] / row["float64_s"]
        out["rows"].append(row)
        verdict = va if va == vb else f"{vb}/{va}"
        err.write(f"{n:>5} {H:>4} {verdict:>9} {f'{pb}/{pa}':>9} {row['before_s']:>9.3f} {row['after_s']:>8.3f} "
                  f"{row['float64_s']:>10.4f} {row['speedup']:>13.1f} {row['certified_over_float64_ratio']:>10.1f} "
                  f"{row['before_over_float64_ratio']:>11.1f} {ratio:>10.3e} "
                  f"{row['before_cpu_s']:>6.2f}/{row['after_cpu_s']:<6.2f} {row['cpu_speedup']:>8.1f}\n")
        err.flush()
    out["median_certified_over_float64_ratio"] = statistics.median(r["certified_over_float64_ratio"]
                                                                   for r in out["rows"])
    out["speedup_at_largest"] = out["rows"][-1]["speedup"]
    out["cpu_speedup_at_largest"] = out["rows"][-1]["cpu_speedup"]
    err.write(f"median after/float64 = {out['median_certified_over_float64_ratio']:.1f}x; "
              f"before/after at N*m = {sizes[-1]}: {out['speedup_at_largest']:.1f}x "
              f"(CPU time {out['cpu_speedup_at_largest']:.1f}x)\n")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="Gram sizes N*m (even, <= 400)")
    a = ap.parse_args()
    run(quick=a.quick, repeats=a.repeats, sizes=a.sizes)
