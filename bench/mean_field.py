"""bench/mean_field: the 50-digit forward flow of the N9 audits (verify.decide.mean_field.HPModel, gmpy2 mpfr)
before and after the loop rewrite of HPModel._attend / HPModel.velocity, in one run, with the results
compared bit for bit.

    python3 bench/mean_field.py               # 5 repeats, alternating before / after
    python3 bench/mean_field.py --repeats 9

before = the previous _attend / velocity (kept below: every sum a builtins.sum over a generator);
after  = the current ones (the same left folds 0 + t_0 + t_1 + ... as explicit loops).
Workload: HPModel(...).loss_value of the N9 'constant-heads' and 'layers-4' configurations (the forward
solve each finite difference of check_adjoint_gradient runs).  ``run()`` returns the figures for
bench/run.py; the table goes to stderr.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from verify.checks.n9_adjoint_gradient import BETA, QUERY, QUERY_TARGET, TARGETS, WEIGHTS, n9_configuration
from verify.decide.mean_field import HPModel, backend


def _attend_before(self, A, X, z, logw=None):
    d = self.d
    theta = [sum(A[i][j] * z[j] for j in range(d)) for i in range(d)]
    scores = [sum(theta[i] * xk[i] for i in range(d)) for xk in X]
    top = max(scores)
    e = [wk * self.be.exp(sk - top) for wk, sk in zip(self.w, scores)]
    Z = sum(e)
    p = [ek / Z for ek in e]
    mbar = [sum(pk * xk[i] for pk, xk in zip(p, X)) for i in range(d)]
    return theta, p, mbar, Z, top


def _velocity_before(self, heads, y):
    from fractions import Fraction

    X, Y = self._unpack(y)
    d = self.d
    out = []
    inv = self.be.convert(Fraction(1, len(heads)))
    for z in X + Y:
        acc = [0] * d
        for A, V in heads:
            _, _, mbar, _, _ = self._attend(A, X, z)
            for i in range(d):
                acc[i] = acc[i] + sum(V[i][j] * mbar[j] for j in range(d))
        out.extend(a * inv for a in acc)
    return out


def _forward(configuration, previous: bool):
    layers, settings = n9_configuration(configuration, 0)
    be = backend("gmpy2", 50)
    model = HPModel(BETA, WEIGHTS, layers, QUERY, be)
    if previous:
        model._attend = _attend_before.__get__(model)
        model.velocity = _velocity_before.__get__(model)
    t0 = time.perf_counter()
    value, err = model.loss_value(TARGETS, QUERY_TARGET, settings["macro_steps"], settings["levels"])
    return be.text(value, 45), err, time.perf_counter() - t0


def run(repeats: int = 5) -> dict:
    out = {"rows": []}
    err = sys.stderr
    err.write(f"{'configuration':>15} {'before s':>9} {'after s':>8} {'before/after':>13} {'identical':>10}\n")
    for conf in ("constant-heads", "layers-4"):
        tb, ta, same = [], [], True
        for _ in range(repeats):
            vb, eb, t = _forward(conf, True)
            tb.append(t)
            va, ea, t = _forward(conf, False)
            ta.append(t)
            same = same and (vb, eb) == (va, ea)
        row = {"configuration": conf, "before_s": statistics.median(tb), "after_s": statistics.median(ta),
               "identical": same}
        row["speedup"] = row["before_s"] / row["after_s"]
        out["rows"].append(row)
        err.write(f"{conf:>15} {row['before_s']:>9.3f} {row['after_s']:>8.3f} {row['speedup']:>13.2f} {str(same):>10}\n")
        err.flush()
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    run(ap.parse_args().repeats)
