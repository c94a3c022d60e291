"""CPU seconds of ``compile_maxout`` on a base commit and on the current code, side by side in one run: each round
compiles every listed network once per tree (the base tree from ``git archive``, the current checkout) in a fresh
subprocess, alternating, imports not timed; medians over the rounds and their ratio are printed, and the compiled
Transformers' recorded weights (``transformer_json``, canonical JSON) and the bound S must hash the same on both
sides.

    python3 bench/compile.py                          # base 26d8554 (before the compile speed-up), 3 rounds
    python3 bench/compile.py --base REV --rounds 5

The networks are bench/polytope.py's seeded ReLU networks (``relu_spec``): 6 x 50 in d = 5 (the size of the
standard public benchmark networks) and 8 x 200 in d = 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "26d8554"
NETWORKS = [(1, 5, [50] * 6), (1, 2, [200] * 8)]   # (seed, d, widths) of bench/polytope.py relu_spec
_CHILD = r"""
import hashlib, json, sys, time
from verify.canonical import canonical_dumps
from verify.constructions.maxout_compiler import compile_maxout
from verify.decide.emulation import transformer_json
from verify.objects.maxout import MaxoutNetwork
import verify
assert verify.__file__.startswith(sys.argv[3]), verify.__file__    # the tree under test, not another checkout
out = []
for spec, d in json.loads(sys.stdin.read()):   # the networks, built by this script's caller
    net = MaxoutNetwork.from_dict(spec)
    t = time.process_time()
    c = compile_maxout(net, [["-1", "1"]] * d)
    dt = time.process_time() - t
    h = hashlib.sha256((canonical_dumps(transformer_json(c, d)) + str(c.S)).encode()).hexdigest()
    out.append([dt, h])
print(json.dumps(out))
"""


def _child(root: str) -> list:
    from polytope import relu_spec    # bench/polytope.py's seeded networks, built here: the same on both trees

    specs = [(relu_spec(seed, d, widths), d) for seed, d, widths in NETWORKS]
    out = subprocess.run([sys.executable, "-c", _CHILD, ROOT, "", root], cwd=root, input=json.dumps(specs),
                         env=dict(os.environ, PYTHONPATH=root), capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=BASE, help=f"the commit compared with this checkout (default {BASE})")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, each compiling every network once per tree")
    args = ap.parse_args(argv)
    base, rounds = args.base, args.rounds
    runs = {0: [], 1: []}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", ROOT, "archive", base, "verify"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for r in range(rounds):
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                runs[side].append(_child(tmp if side == 0 else ROOT))
    print(f"compile_maxout, CPU seconds, medians of {rounds} (base {base} / current)")
    print(f"{'network':>16} {'base s':>8} {'current s':>9} {'ratio':>6}  same weights")
    for k, (seed, d, widths) in enumerate(NETWORKS):
        b = statistics.median(run[k][0] for run in runs[0])
        a = statistics.median(run[k][0] for run in runs[1])
        same = len({run[k][1] for side in runs.values() for run in side}) == 1
        name = f"d={d} {len(widths)}x{widths[0]}"
        print(f"{name:>16} {b:8.2f} {a:9.2f} {b / a:5.2f}x  {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
