"""Wall and CPU seconds of ``verify audit --workers N`` on a base commit and on the current checkout, side by side
in one run: each round runs the same command once per tree (the base tree from ``git archive``), alternating;
medians over the rounds and their ratios are printed, and the JSON reports must be identical apart from
``"timing"`` (the verdicts, certificates and table order of both trees agree).

    python3 bench/audit_runner.py                                   # --quick, 2 workers, base 24c02c1, 3 rounds
    python3 bench/audit_runner.py --base REV --rounds 5 --workers 2 -- T3 N5   # any `verify audit` selection
    python3 bench/audit_runner.py --all                             # the full audit (about 2 minutes a run)

The machine is shared: say its load (``uptime``) beside the figures; CPU seconds (user + system of the
command and its worker processes) are the steadier figure.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "24c02c1"


def _strip(o):
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k != "timing"}
    return [_strip(v) for v in o] if isinstance(o, list) else o


def _run(root, selection, workers, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verify", "audit", *selection, "--workers", str(workers), "--quiet",
                    "--json", out], cwd=root, env=dict(os.environ, PYTHONPATH=root), check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out) as fh:
        return wall, cpu, _strip(json.load(fh))


def main(argv):
    base, rounds, workers, selection = BASE, 3, 2, ["--quick"]
    it = iter(argv)
    for a in it:
        if a == "--base":
            base = next(it)
        elif a == "--rounds":
            rounds = int(next(it))
        elif a == "--workers":
            workers = int(next(it))
        elif a == "--all":
            selection = []
        elif a == "--":
            selection = list(it)
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "base")
        os.makedirs(tree)
        archive = subprocess.run(["git", "-C", ROOT, "archive", base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        walls, cpus, docs = ([], []), ([], []), [None, None]
        for _ in range(rounds):
            for side, root in enumerate((tree, ROOT)):
                wall, cpu, doc = _run(root, selection, workers, os.path.join(tmp, f"out{side}.json"))
                walls[side].append(wall)
                cpus[side].append(cpu)
                if docs[side] is None:
                    docs[side] = doc
                assert doc == docs[side], "a tree's report changed between rounds"
        assert docs[0] == docs[1], "the reports of the two trees differ (apart from timing)"
    n = len(docs[1]["audits"])
    print(f"verify audit {' '.join(selection) or '(all)'} --workers {workers}: {n} audits, {rounds} rounds, "
          f"load {os.getloadavg()[0]:.2f}")
    for name, pair in (("wall s", walls), ("cpu s", cpus)):
        b, c = statistics.median(pair[0]), statistics.median(pair[1])
        print(f"  {name:<7} base {base} {b:7.2f}   current {c:7.2f}   ratio {b / c:5.2f}x")
    print("  reports identical apart from timing: yes")


if __name__ == "__main__":
    main(sys.argv[1:])
