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

    python3 bench/mean_field.py --audits                       # the N8-N10 audits, base 24c02c1 vs HEAD, 3 rounds
    python3 bench/mean_field.py --audits --base REV --rounds 5 N10/pl-decay-eps-1e-1 N9/layers-4-50digits

``--audits``: CPU seconds (``time.process_time``) of single audits, each in a fresh process per side and round
(imports not timed), on two ``git archive`` snapshots -- the base revision and HEAD (so edits to the work tree
during the run do not leak in) -- alternating; medians per audit, their ratio, and whether the Results hash the
same on both sides (tests/_pins.py's result_hash: without timing, versions, float64 and figure entries).
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


AUDITS = ["N10/pl-decay-eps-1e-1", "N10/pl-decay-eps-1e-2", "N9/constant-heads-50digits", "N9/layers-4-50digits",
          "N9/n-drop-context-term", "N9/n-drop-query-term", "N9/n-drop-context-certified", "N9/n-drop-query-certified",
          "N9/exact-instance-A0", "N8/depth-euler-rate", "N8/width-monte-carlo-rate", "N8/n-frozen-context-evidence",
          "N8/n-frozen-context-certified"]
_CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, "tests")
from _pins import result_hash
from verify.audit.discovery import load_audits
from verify.audit.runner import run_audit
audits = {a.id: a for a in load_audits()}
t = time.process_time()
r = run_audit(audits[sys.argv[1]]).result
print(json.dumps([time.process_time() - t, result_hash(r)]))
"""


def audits(base: str, rounds: int, ids) -> dict:
    """Per audit: median CPU seconds on ``base`` and on HEAD, their ratio, and whether the Results agree."""
    import json
    import os
    import subprocess
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ids = list(ids) or AUDITS
    times = {i: ([], [], set()) for i in ids}
    with tempfile.TemporaryDirectory() as tmp:
        trees = []
        for k, rev in enumerate((base, "HEAD")):
            d = os.path.join(tmp, str(k))
            os.mkdir(d)
            data = subprocess.run(["git", "-C", root, "archive", rev], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", d], input=data, check=True)
            trees.append(d)
        for _ in range(rounds):
            for i in ids:
                for side, d in enumerate(trees):
                    out = subprocess.run([sys.executable, "-c", _CHILD, i], cwd=d, env=dict(os.environ, PYTHONPATH=d),
                                         capture_output=True, text=True, check=True).stdout
                    dt, h = json.loads(out.strip().splitlines()[-1])
                    times[i][side].append(dt)
                    times[i][2].add(h)
    err = sys.stderr
    err.write(f"{'audit':32s} {'base s':>8s} {'HEAD s':>8s} {'ratio':>6s}  same Result   (CPU seconds, medians of {rounds})\n")
    rows, tb, ta = [], 0.0, 0.0
    for i in ids:
        b, a, hashes = times[i]
        mb, ma = statistics.median(b), statistics.median(a)
        tb, ta = tb + mb, ta + ma
        rows.append({"audit": i, "base_s": mb, "head_s": ma, "same": len(hashes) == 1})
        err.write(f"{i:32s} {mb:8.2f} {ma:8.2f} {mb / ma:5.2f}x  {len(hashes) == 1}\n")
    err.write(f"{'total':32s} {tb:8.2f} {ta:8.2f} {tb / ta:5.2f}x  (saved {tb - ta:.2f} s)\n")
    return {"base": base, "rounds": rounds, "rows": rows, "base_total_s": tb, "head_total_s": ta}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--audits", action="store_true", help="time the N8-N10 audits on --base and HEAD")
    ap.add_argument("--base", default="24c02c1")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    if a.audits:
        audits(a.base, a.rounds, a.ids)
    else:
        run(a.repeats)
