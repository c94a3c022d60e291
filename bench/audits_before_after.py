"""CPU seconds of single audits on a base commit and on the current code, side by side in one run: each round
runs every listed audit once in a fresh subprocess per tree (the base tree from ``git archive``, the current
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
    out[i] = [dt, hashlib.sha256(canonical_dumps(d).encode()).hexdigest()]
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
                for i, (dt, h) in _child(root, ids).items():
                    times[i][side].append((dt, h))
    print(f"{'audit':42s} {'base ' + base:>12s} {'current':>10s} {'ratio':>7s}  same Result")
    tot_b = tot_a = 0.0
    for i in ids:
        b, a = times[i]
        mb, ma = statistics.median(x for x, _ in b), statistics.median(x for x, _ in a)
        tot_b, tot_a = tot_b + mb, tot_a + ma
        same = len({h for _, h in b + a}) == 1
        print(f"{i:42s} {mb:11.2f}s {ma:9.2f}s {mb / ma:6.2f}x  {same}")
    print(f"{'total':42s} {tot_b:11.2f}s {tot_a:9.2f}s {tot_b / tot_a:6.2f}x  (CPU seconds, medians of {rounds})")


if __name__ == "__main__":
    main(sys.argv[1:])
