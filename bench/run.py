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
import io
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
    ("independence", "independence.py", "certified incl. kernel re-check vs exact lattice vs float64 vs "
                                        "mpmath-128 (N = 200 laws, d = 3, 8 atoms)"),
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


def _call(fn, quick: bool, source: str):
    """Call ``run(quick=...)`` or ``main(argv)``; never let a benchmark parse bench/run.py's own argv."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    if fn.__name__ == "run":
        return fn(quick=quick) if "quick" in params else fn()
    if params:
        argv = ["--quick"] if quick and "--quick" in source else []
        return fn(argv)
    saved = sys.argv
    sys.argv = [saved[0]] + (["--quick"] if quick and "--quick" in source else [])
    try:
        return fn()
    finally:
        sys.argv = saved


def run_isolated(name: str, filename: str, quick: bool, timeout_s: float) -> dict:
    """:func:`run_component` in a child process, so a benchmark that crashes, is killed (memory) or
    hangs is reported as failed instead of taking the whole table down."""
    argv = [sys.executable, os.path.abspath(__file__), "--_component", name] + (["--quick"] if quick else [])
    start = time.perf_counter()
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "figures": {}, "printed": "", "seconds": timeout_s,
                "note": f"timed out after {timeout_s:.0f} s"}
    sys.stderr.write(r.stderr)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"status": "failed", "figures": {}, "printed": r.stdout[-2000:],
                "seconds": time.perf_counter() - start,
                "note": f"benchmark process ended with status {r.returncode} (killed or crashed)"}


def run_component(name: str, filename: str, quick: bool) -> dict:
    """``{"status": "ok"|"missing"|"failed", "figures": {...}, "printed": text, "seconds": t, "note": ...}``.

    A script without ``run()`` whose ``main()`` only prints is still run: its printed table is kept."""
    path = os.path.join(HERE, filename)
    out = {"status": "ok", "figures": {}, "printed": "", "seconds": 0.0, "note": ""}
    if not os.path.exists(path):
        return dict(out, status="missing", note=f"bench/{filename} not written yet")
    start = time.perf_counter()
    buf = io.StringIO()
    try:
        module = _load(path, name)
        fn = getattr(module, "run", None) or getattr(module, "main", None)
        if fn is None:
            return dict(out, status="failed", note=f"bench/{filename} has no run() or main()")
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        with contextlib.redirect_stdout(buf):
            figures = _call(fn, quick, source)
    except SystemExit as exc:
        return dict(out, status="failed", printed=buf.getvalue(), seconds=time.perf_counter() - start,
                    note=f"bench/{filename} exited ({exc.code}) instead of returning figures")
    except Exception as exc:  # a benchmark failing must not hide the others
        return dict(out, status="failed", printed=buf.getvalue(), seconds=time.perf_counter() - start,
                    note=f"{type(exc).__name__}: {exc}")
    out.update(seconds=time.perf_counter() - start, printed=buf.getvalue())
    if isinstance(figures, dict):
        out["figures"] = figures
    else:
        out["note"] = "main() printed its figures (no run() returning a dict)"
    return out


def flatten(figures, prefix="") -> list:
    """``[(name, value)]``: nested dicts joined by '.', lists of dicts one row per entry, lists of
    timings (keys naming seconds/time) reduced to their median, other lists shown as they are."""
    rows = []
    for key in figures:
        value = figures[key]
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += flatten(value, name + ".")
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
            for i, v in enumerate(value):
                rows += flatten(v, f"{name}[{i}].")
        elif isinstance(value, (list, tuple)) and value and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value) and \
                any(w in name.lower() for w in ("second", "time", "_s")):
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
    p.add_argument("--timeout", type=float, default=1800, help="seconds allowed for each component / full run "
                   "(default 1800)")
    p.add_argument("--_component", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._component:  # child process: run one component, print its result as the last JSON line
        filename = {n: f for n, f, _ in SCRIPTS}[args._component]
        res = run_component(args._component, filename, args.quick)
        print(json.dumps(res, default=str, sort_keys=True))
        return 0

    machine = f"{platform.node() or 'machine'} / {platform.processor() or platform.machine()} / " \
              f"{os.cpu_count()} cores / Python {platform.python_version()}"
    print(f"verify bench/run.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  {machine}")
    results = {}
    for name, filename, what in SCRIPTS:
        if args.only and name not in args.only:
            continue
        print(f"... {name}: {what}", file=sys.stderr, flush=True)
        results[name] = run_isolated(name, filename, args.quick, args.timeout)
    if args.full:
        print("... full audit (verify audit)", file=sys.stderr, flush=True)
        results["full_audit"] = {"status": "ok", "seconds": 0.0, "note": "", "printed": "",
                                 "figures": time_command([sys.executable, "-m", "verify", "audit"], args.timeout)}
        print("... full test suite (pytest)", file=sys.stderr, flush=True)
        results["full_tests"] = {"status": "ok", "seconds": 0.0, "note": "", "printed": "",
                                 "figures": time_command([sys.executable, "-m", "pytest", "-q", "-p",
                                                          "no:cacheprovider"], args.timeout)}

    width = 58
    print(f"\n{'component':<14} {'figure':<{width}} {'value':>14}")
    print("-" * (16 + width + 14))
    for name, res in results.items():
        if res["status"] != "ok":
            print(f"{name:<14} {'(' + res['status'] + ': ' + res['note'] + ')':<{width}}")
            continue
        if not res["figures"] and res.get("printed"):
            print(f"{name:<14} (as printed by bench/{name}.py)")
            for line in res["printed"].rstrip().splitlines():
                print(f"{'':<14} | {line}")
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
