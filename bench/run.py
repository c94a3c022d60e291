"""One command that prints every performance ratio the issues ask for, side by side, in one run.

    python3 bench/run.py                 # the component benchmarks (independence, NTK, regions, T1/T6)
    python3 bench/run.py --full          # + full audit time and full test-suite time (minutes)
    python3 bench/run.py --json out.json # also write the figures as JSON

It calls the other bench scripts' entry points when they exist: each of bench/independence.py,
bench/ntk.py, bench/regions.py, bench/t1_t6.py exposes ``run()`` (or ``main()``) returning a dict of
figures (numbers, lists of timings, or nested dicts).  Their own printing goes to stderr so this
table stays readable.  A missing or failing script is listed with the reason, never a crash.
Lists of timings are reduced to their median; keys naming a ratio are flagged in the table.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPTS = [
    ("independence", "independence.py", "certified vs float64 vs mpmath-128 (N = 200 laws, d = 3, 8 atoms)"),
    ("ntk", "ntk.py", "certified PD vs float64 eigvalsh (N*m up to 400)"),
    ("regions", "regions.py", "exact vs float64 region counting, regions/s (1-D, 2-D), T6 2-D timing"),
    ("t1_t6", "t1_t6.py", "T1 at n = 8 and T6 times"),
]
RATIO_WORDS = ("ratio", "speedup", "slowdown", "_x", "times_")


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, HERE)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(HERE)
    return module


def _call(fn, quick: bool):
    kwargs = {}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    if "quick" in params:
        kwargs["quick"] = quick
    return fn(**kwargs)


def run_component(name: str, filename: str, quick: bool) -> dict:
    """``{"status": "ok"|"missing"|"failed", "figures": {...}, "seconds": t, "note": ...}``."""
    path = os.path.join(HERE, filename)
    if not os.path.exists(path):
        return {"status": "missing", "figures": {}, "seconds": 0.0, "note": f"bench/{filename} not written yet"}
    start = time.perf_counter()
    try:
        module = _load(path, name)
        fn = getattr(module, "run", None) or getattr(module, "main", None)
        if fn is None:
            return {"status": "failed", "figures": {}, "seconds": 0.0,
                    "note": f"bench/{filename} has no run() or main()"}
        with contextlib.redirect_stdout(sys.stderr):
            figures = _call(fn, quick)
    except SystemExit as exc:
        return {"status": "failed", "figures": {}, "seconds": time.perf_counter() - start,
                "note": f"bench/{filename} exited ({exc.code}) instead of returning figures"}
    except Exception as exc:  # a benchmark failing must not hide the others
        return {"status": "failed", "figures": {}, "seconds": time.perf_counter() - start,
                "note": f"{type(exc).__name__}: {exc}"}
    if not isinstance(figures, dict):
        return {"status": "failed", "figures": {}, "seconds": time.perf_counter() - start,
                "note": f"run() returned {type(figures).__name__}, not a dict of figures"}
    return {"status": "ok", "figures": figures, "seconds": time.perf_counter() - start, "note": ""}


def flatten(figures, prefix="") -> list:
    """``[(name, value)]`` with nested dicts joined by '.', lists of numbers reduced to their median."""
    rows = []
    for key in figures:
        value = figures[key]
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += flatten(value, name + ".")
        elif isinstance(value, (list, tuple)) and value and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            rows.append((name + " (median)", statistics.median(value)))
        else:
            rows.append((name, value))
    return rows


def _fmt(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v == 0 or not math.isfinite(v):
            return str(v)
        if abs(v) >= 1e5 or abs(v) < 1e-3:
            return f"{v:.3e}"
        return f"{v:.4g}"
    text = " ".join(str(v).split())
    return text if len(text) <= 60 else text[:57] + "..."


def time_command(argv, timeout_s: float) -> dict:
    start = time.perf_counter()
    try:
        r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
        code = r.returncode
        tail = (r.stdout.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        code, tail = None, f"timed out after {timeout_s} s"
    return {"seconds": round(time.perf_counter() - start, 2), "exit": code, "last_line": tail}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--full", action="store_true", help="also time the full audit and the full test suite")
    p.add_argument("--quick", action="store_true", help="ask each benchmark for its quick variant (if it has one)")
    p.add_argument("--only", nargs="*", metavar="NAME", help="run only these components "
                   f"({', '.join(n for n, _, _ in SCRIPTS)})")
    p.add_argument("--json", metavar="FILE", help="write all figures to FILE")
    p.add_argument("--timeout", type=float, default=1800, help="seconds allowed for each full run (default 1800)")
    args = p.parse_args(argv)

    machine = f"{platform.node() or 'machine'} / {platform.processor() or platform.machine()} / " \
              f"{os.cpu_count()} cores / Python {platform.python_version()}"
    print(f"verify bench/run.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  {machine}")
    results = {}
    for name, filename, what in SCRIPTS:
        if args.only and name not in args.only:
            continue
        print(f"... {name}: {what}", file=sys.stderr, flush=True)
        results[name] = run_component(name, filename, args.quick)
    if args.full:
        print("... full audit (verify audit)", file=sys.stderr, flush=True)
        results["full_audit"] = {"status": "ok", "seconds": 0.0, "note": "",
                                 "figures": time_command([sys.executable, "-m", "verify", "audit"], args.timeout)}
        print("... full test suite (pytest)", file=sys.stderr, flush=True)
        results["full_tests"] = {"status": "ok", "seconds": 0.0, "note": "",
                                 "figures": time_command([sys.executable, "-m", "pytest", "-q", "-p",
                                                          "no:cacheprovider"], args.timeout)}

    width = 58
    print(f"\n{'component':<14} {'figure':<{width}} {'value':>14}")
    print("-" * (16 + width + 14))
    for name, res in results.items():
        if res["status"] != "ok":
            print(f"{name:<14} {'(' + res['status'] + ': ' + res['note'] + ')':<{width}}")
            continue
        for fig, value in flatten(res["figures"]):
            flag = "  <- ratio" if any(w in fig.lower() for w in RATIO_WORDS) else ""
            print(f"{name:<14} {fig:<{width}} {_fmt(value):>14}{flag}")
        if res["seconds"]:
            print(f"{name:<14} {'(benchmark wall time, s)':<{width}} {_fmt(round(res['seconds'], 2)):>14}")
    if not args.full:
        print("\n(full audit time and full test time: run with --full; they take minutes)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"machine": machine, "results": results}, fh, indent=1, sort_keys=True, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
