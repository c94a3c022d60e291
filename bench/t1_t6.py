"""Timing of T1 at n = 8 (exact decision-tree proof over every ordering/tie pattern; with and without the
case-split engine's shared memo, ratio printed; and before / after the fork-and-share speed-up: the code
of commit ``T1_BEFORE`` run in a subprocess from ``git archive``, alternating with the current code, each
in a fresh subprocess, medians and the ratio printed, the Results' JSON compared) and of T6 (exact region
decomposition) for the O2 network and for a 2-D maxout network with >= 50 regions.

    python3 bench/t1_t6.py            # prints the table; run() returns the figures for bench/run.py
    python3 bench/t1_t6.py --t1       # only the T1 before / after comparison (5 alternating rounds)
    T1_BEFORE=<commit> python3 bench/t1_t6.py --t1     # the same against another commit

Also compares the exact hardmax evaluation of the compiled O2 Transformer with a float64 (numpy) version of the
same forward pass (a speed ratio only: the float version is never used for a verdict).
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

T1_BEFORE = os.environ.get("T1_BEFORE", "355859d")   # main before the T1 fork-and-share speed-up (or any commit)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_T1_CHILD = (
    "import hashlib, sys, time\n"
    "from verify.checks.t1_hardmax_max import check_hardmax_max\n"
    "t = time.perf_counter()\n"
    "r = check_hardmax_max(n_min=8, n_max=8, grid_step=13, random_cases=0)\n"
    "dt = time.perf_counter() - t\n"
    "print(dt, hashlib.sha256(r.to_json().split('\"timing\"')[0].encode()).hexdigest())\n")


def _t1_child(root):
    out = subprocess.run([sys.executable, "-c", _T1_CHILD], cwd=root, env=dict(os.environ, PYTHONPATH=root),
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), out[1]


def t1_before_after(rounds: int = 3) -> dict:
    """T1 at n = 8: the code of ``T1_BEFORE`` and the current code, alternating, one fresh subprocess each
    (imports not timed); the Results without their timing must hash the same."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", ROOT, "archive", T1_BEFORE], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        before, after, hashes = [], [], set()
        for _ in range(rounds):
            for root, times in ((tmp, before), (ROOT, after)):
                dt, h = _t1_child(root)
                times.append(dt)
                hashes.add(h)
    assert len(hashes) == 1, "the Result changed"
    return {"t1_n8_before_seconds": before, "t1_n8_after_seconds": after,
            "t1_n8_before_over_after_ratio": statistics.median(before) / statistics.median(after)}


def _time(fn, repeat=3):
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, times


def _net2d(seed=7, widths=(3, 2), k=2):
    from verify.objects.maxout import MaxoutNetwork

    rng = random.Random(seed)
    num = lambda: Fraction(rng.randint(-8, 8), rng.randint(1, 4))
    layers, prev = [], 2
    for N in widths:
        layers.append(([[[num() for _ in range(prev)] for _ in range(k)] for _ in range(N)],
                       [[num() for _ in range(k)] for _ in range(N)]))
        prev = N
    return MaxoutNetwork(layers, readout=([[num() for _ in range(prev)]], [num()]))


@contextlib.contextmanager
def _memo_off():
    """The case-split engine without its shared memo (each node evaluated from scratch, as before)."""
    import verify.checks.t1_hardmax_max as t1
    import verify.decide.casesplit as cs

    saved = cs.shared_memo, t1.shared_memo
    cs.shared_memo = t1.shared_memo = contextlib.nullcontext
    try:
        yield
    finally:
        cs.shared_memo, t1.shared_memo = saved


def _float_forward(T, X):
    import numpy as np

    X = np.array([[float(v) for v in row] for row in X])
    for sub in T.sublayers:
        if sub.kind == "ffn":
            W1 = np.array(sub.W1, dtype=float); W2 = np.array(sub.W2, dtype=float)
            b1 = np.array(sub.b1, dtype=float)[:, None]; b2 = np.array(sub.b2, dtype=float)[:, None]
            X = X + W2 @ np.maximum(W1 @ X + b1, 0) + b2
        else:
            add = np.zeros_like(X)
            for h in sub.heads:
                S = (np.array(h.W_K, dtype=float) @ X).T @ (np.array(h.W_Q, dtype=float) @ X)
                P = (S == S.max(axis=0, keepdims=True)).astype(float)
                P /= P.sum(axis=0, keepdims=True)
                add += np.array(h.W_O, dtype=float) @ (np.array(h.W_V, dtype=float) @ X @ P)
            X = X + add
    return X


def run(quick: bool = False) -> dict:
    from verify.decide.emulation import prove_emulation
    from verify.checks.t1_hardmax_max import check_hardmax_max
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.constructions.reference_networks import o2_network

    figures = {}
    t1 = lambda: check_hardmax_max(n_min=8, n_max=8, grid_step=13, random_cases=0)
    r, t = _time(t1, repeat=1 if quick else 3)
    figures["t1_n8_seconds"] = t
    with _memo_off():
        r_off, t_off = _time(t1, repeat=1 if quick else 3)
    assert r_off.to_json().split('"timing"')[0] == r.to_json().split('"timing"')[0]
    figures["t1_n8_seconds_memo_off"] = t_off
    figures["t1_n8_memo_off_over_on_ratio"] = statistics.median(t_off) / statistics.median(t)
    figures.update(t1_before_after(1 if quick else 3))
    # one case-split tree per n, a flat preorder list in which [] is a leaf (docs/soundness.md §2, casesplit)
    figures["t1_n8_leaves"] = sum(1 for node in r.certificate["trees"][-1] if node == [])
    figures["t1_n8_verdict"] = r.verdict.value

    c = compile_maxout(o2_network(), [[0, 1]], S=40)
    r, t = _time(lambda: prove_emulation(c, tie="both", record_regions=False))
    figures["t6_o2_seconds"] = t
    figures["t6_o2_cells"] = len(r.certificate["cells"])

    net = _net2d()
    c2 = compile_maxout(net, [[-1, 1], [-1, 1]])
    r, t = _time(lambda: prove_emulation(c2, tie="both", record_regions=False), repeat=1 if quick else 2)
    figures["t6_2d_seconds"] = t
    figures["t6_2d_open_regions"] = r.evidence.get("open_cells")
    figures["t6_2d_verdict"] = r.verdict.value

    xs = [Fraction(q, 64) for q in range(65)]
    _, t_exact = _time(lambda: [c([x]) for x in xs])
    _, t_float = _time(lambda: [_float_forward(c.transformer, c.embed([x])) for x in xs])
    figures["o2_forward_exact_seconds_65pts"] = t_exact
    figures["o2_forward_float64_seconds_65pts"] = t_float
    figures["exact_over_float64_slowdown_ratio"] = statistics.median(t_exact) / statistics.median(t_float)
    return figures


def main():
    if "--t1" in sys.argv[1:]:
        figs = t1_before_after(5)
        print(f"T1 n = 8, {T1_BEFORE} -> current: before median {statistics.median(figs['t1_n8_before_seconds']):.3f} s, "
              f"after median {statistics.median(figs['t1_n8_after_seconds']):.3f} s, before/after "
              f"{figs['t1_n8_before_over_after_ratio']:.2f}x (5 alternating rounds, same Result)", file=sys.stderr)
        return figs
    figs = run()
    for k, v in figs.items():
        if isinstance(v, list):
            v = f"median {statistics.median(v):.4f} s over {len(v)} runs"
        print(f"{k:40s} {v}", file=sys.stderr)
    return figs


if __name__ == "__main__":
    main()
