"""CPU seconds of single audits on a base commit and on the current code, side by side in one run: each round
runs every listed audit once (and the kernel's re-check of its Result) in a fresh subprocess per tree (the base tree from ``git archive``, the current
checkout), alternating, imports not timed; medians over the rounds and their ratio are printed, and the
Results' JSON (without timing, versions, float64 and figure entries, as tests/test_casesplit_speed.py) must hash
the same on both sides.

    python3 bench/audits_before_after.py                      # the default audits, base b62b873, 3 rounds
    python3 bench/audits_before_after.py --base REV --rounds 5 N2/derivative-table-k1 T7/o2-four-lambdas

CPU time (``time.process_time``) rather than wall time: the figures stay comparable on a loaded machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "b62b873"
AUDITS = ["N2/derivative-table-k1", "N1/translation-convolution-cube-limits", "N1/symbolic-derivatives",
          "T7/o2-four-lambdas", "T5/O7-M-2C-plus-1-100", "T5/O7-M-7C", "T11/hardmax-average-random"]
_CHILD = r"""
import hashlib, json, sys, time
from verify.audit.discovery import load_audits
from verify.audit.runner import run_audit
from verify.canonical import canonical_dumps
from verify import kernel
ids = sys.argv[1:]
audits = {a.id: a for a in load_audits()}
kernel.kinds()
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in ("timing", "float64")}
    return [strip(v) for v in o] if isinstance(o, list) else o
out = {}
for i in ids:
    t = time.process_time()
    r = run_audit(audits[i]).result
    dt = time.process_time() - t
    d = strip(r.to_dict()); d.pop("versions", None)
    if isinstance(d.get("evidence"), dict):
        d["evidence"].pop("figure", None)
    t = time.process_time()
    if r.verdict.value != "inconclusive":
        kernel.check(json.loads(r.to_json()))
    dk = time.process_time() - t
    out[i] = [dt, dk, hashlib.sha256(canonical_dumps(d).encode()).hexdigest()]
print(json.dumps(out))
"""


def _child(root, ids):
    import json

    out = subprocess.run([sys.executable, "-c", _CHILD, *ids], cwd=root, env=dict(os.environ, PYTHONPATH=root),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv):
    base, rounds, ids = BASE, 3, []
    it = iter(argv)
    for a in it:
        if a == "--base":
            base = next(it)
        elif a == "--rounds":
            rounds = int(next(it))
        else:
            ids.append(a)
    ids = ids or AUDITS
    times = {i: ([], []) for i in ids}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", ROOT, "archive", base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for _ in range(rounds):
            for side, root in enumerate((tmp, ROOT)):
                for i, (dt, dk, h) in _child(root, ids).items():
                    times[i][side].append((dt, dk, h))
    print(f"{'audit':40s} {'check: base':>11s} {'current':>8s} {'ratio':>6s}   {'kernel: base':>12s} {'current':>8s} "
          f"{'ratio':>6s}  same Result")
    tot = [0.0] * 4
    for i in ids:
        b, a = times[i]
        m = [statistics.median(x[k] for x in side) for k in (0, 1) for side in (b, a)]
        tot = [t + x for t, x in zip(tot, m)]
        same = len({x[2] for x in b + a}) == 1
        print(f"{i:40s} {m[0]:10.2f}s {m[1]:7.2f}s {m[0] / m[1]:5.2f}x   {m[2]:11.2f}s {m[3]:7.2f}s "
              f"{m[2] / max(m[3], 1e-9):5.2f}x  {same}")
    print(f"{'total':40s} {tot[0]:10.2f}s {tot[1]:7.2f}s {tot[0] / tot[1]:5.2f}x   {tot[2]:11.2f}s {tot[3]:7.2f}s "
          f"{tot[2] / tot[3]:5.2f}x  (CPU seconds, medians of {rounds})")


if __name__ == "__main__":
    main(sys.argv[1:])
