"""Timing of T1 at n = 8 (exact decision-tree proof over every ordering/tie pattern; with and without the
case-split engine's shared memo, ratio printed) and of T6 (exact region
decomposition) for the O2 network and for a 2-D maxout network with >= 50 regions.

    python3 bench/t1_t6.py            # prints the table; run() returns the figures for bench/run.py

Also compares the exact hardmax evaluation of the compiled O2 Transformer with a float64 (numpy) version of the
same forward pass (a speed ratio only: the float version is never used for a verdict).
"""

from __future__ import annotations

import contextlib
import random
import statistics
import sys
import time
from fractions import Fraction


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
    figs = run()
    for k, v in figs.items():
        if isinstance(v, list):
            v = f"median {statistics.median(v):.4f} s over {len(v)} runs"
        print(f"{k:40s} {v}", file=sys.stderr)
    return figs


if __name__ == "__main__":
    main()
