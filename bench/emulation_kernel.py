"""Benchmark: prove_emulation (search) and the kernel's re-check of its certificate on d = 3..5 networks, a base
commit against the working tree, in one run.

    python3 bench/emulation_kernel.py [--base REV] [--repeat 1] [--large] [--quick]

The base commit is exported with ``git archive`` into a temporary directory; every case runs in a fresh
subprocess per version (alternating base / current), each printing its search and kernel times (wall and
process CPU).  Prints medians side by side and the ratios base / current, and whether both versions recorded
the same certificate (sha256 of its canonical JSON).  Cases: the networks of bench/polytope.py's
prove_emulation table (seeded random ReLU networks on [-1, 1]^d), ``--large`` adds d = 5 widths 3 (>= 10^4 cells).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/bench")
from polytope import relu_spec
from verify.canonical import canonical_dumps
from verify.decide.emulation import prove_emulation
from verify.kernel import check
from verify.objects.maxout import MaxoutNetwork
d, widths, seed = int(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
net = MaxoutNetwork.from_dict(relu_spec(seed, d, widths))
prove_emulation(MaxoutNetwork.from_dict(relu_spec(1, 3, [2])), [["-1", "1"]] * 3, tie="average", record_regions=False)
w, c = time.perf_counter(), time.process_time()
r = prove_emulation(net, [["-1", "1"]] * d, tie="average", record_regions=False, max_cells=200_000)
sw, sc = time.perf_counter() - w, time.process_time() - c
rd = r.to_dict()
w, c = time.perf_counter(), time.process_time()
check(rd, seconds=10_000)
kw, kc = time.perf_counter() - w, time.process_time() - c
cert = hashlib.sha256(canonical_dumps(rd["certificate"]).encode()).hexdigest()[:16]
print(json.dumps({"verdict": r.verdict.value, "cells": r.evidence.get("cells"), "search_wall": sw, "search_cpu": sc,
                  "kernel_wall": kw, "kernel_cpu": kc, "cert": cert}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="2008683")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    cases = [(3, [2]), (3, [4]), (4, [3]), (5, [2])] if not args.quick else [(3, [4])]
    if args.large:
        cases.append((5, [3]))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        versions = [("base", tmp), ("current", str(ROOT))]
        print(f"prove_emulation search + kernel re-check, base {args.base} vs current, medians of {args.repeat}")
        print(f"{'d':>2} {'widths':>6} {'cells':>6} | {'search wall b/c':>17} {'ratio':>6} {'cpu ratio':>9} | "
              f"{'kernel wall b/c':>17} {'ratio':>6} {'cpu ratio':>9} | same cert")
        for i, (d, widths) in enumerate(cases):
            got = {"base": [], "current": []}
            for rep in range(args.repeat):
                for name, path in versions[::-1] if rep % 2 else versions:
                    out = subprocess.run([sys.executable, "-c", CHILD, path, str(d), json.dumps(widths), str(200 + i)],
                                         check=True, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
                    got[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
            med = {n: {k: statistics.median(g[k] for g in got[n]) for k in
                       ("search_wall", "search_cpu", "kernel_wall", "kernel_cpu")} for n in got}
            b, c = med["base"], med["current"]
            same = got["base"][0]["cert"] == got["current"][0]["cert"] and \
                got["base"][0]["verdict"] == got["current"][0]["verdict"]
            print(f"{d:>2} {'x'.join(map(str, widths)):>6} {got['current'][0]['cells']:>6} | "
                  f"{b['search_wall']:>7.2f}/{c['search_wall']:<7.2f}  {b['search_wall'] / c['search_wall']:>6.2f} "
                  f"{b['search_cpu'] / c['search_cpu']:>9.2f} | "
                  f"{b['kernel_wall']:>7.2f}/{c['kernel_wall']:<7.2f}  {b['kernel_wall'] / c['kernel_wall']:>6.2f} "
                  f"{b['kernel_cpu'] / c['kernel_cpu']:>9.2f} | {'yes' if same else 'NO'} "
                  f"({got['current'][0]['verdict']})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
