"""Benchmark: the slow N4-N6 audits today versus at a base git revision, side by side in one run.

    python3 bench/independence_audits.py [--base REV] [--repeat 3] [--ids N6/normal-1000-trials ...]

The base revision is extracted with ``git archive`` into a temporary folder; each audit runs in a fresh child
process per tree (``verify.audit.runner.run_audit``; its wall time measured inside the child, after the
imports and one warm-up audit), the two trees alternately, ``--repeat`` rounds.  Prints the medians, the ratio
base / today, and whether the Result hashes (tests/test_casesplit_speed.result_hash: canonical JSON without
timing and versions) agree.  Default base: the commit before the speed-ups of the modular path and of the
kernel's re-check (docs/independence.md, "Benchmark").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_BASE = "b62b873"
DEFAULT_IDS = ["N6/normal-1000-trials", "N5/d-criterion-vs-certificate-200", "N4/a-random-cubes-distinct",
               "N6/uniform-d1-N10", "N6/uniform-d3-N10", "N6/n2-lattice-samples"]
CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests")
from verify.audit.discovery import audit_modules, audits_of_module
from verify.audit.runner import run_audit
from test_casesplit_speed import result_hash
names = [m for m in audit_modules() if m.rsplit(".", 1)[-1].startswith(("n4_", "n5_", "n6_"))]
A = {a.id: a for m in names for a in audits_of_module(m)}
run_audit(A["N6/F25-one-trial"])
t = time.perf_counter()
r = run_audit(A[sys.argv[2]]).result
print(json.dumps({"seconds": time.perf_counter() - t, "hash": result_hash(r), "verdict": r.verdict.value}))
"""


def _run(tree: str, audit_id: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD, tree, audit_id], capture_output=True, text=True, env=env,
                         cwd=tree, timeout=1800)
    if out.returncode:
        raise RuntimeError(f"{audit_id} in {tree}: {out.stderr[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default=DEFAULT_BASE)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ids", nargs="*", default=DEFAULT_IDS)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        print(f"N4-N6 audits, today ({ROOT}) vs base {args.base}; medians of {args.repeat} alternate runs")
        print(f"  {'audit':<38} {'today s':>9} {'base s':>9} {'base/today':>11}  same Result")
        for audit_id in args.ids:
            now, base = [], []
            for _ in range(args.repeat):
                now.append(_run(ROOT, audit_id))
                base.append(_run(tmp, audit_id))
            tn = statistics.median(x["seconds"] for x in now)
            tb = statistics.median(x["seconds"] for x in base)
            same = len({x["hash"] for x in now + base}) == 1
            print(f"  {audit_id:<38} {tn:>9.2f} {tb:>9.2f} {tb / tn:>10.2f}x  {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
