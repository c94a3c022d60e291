"""Benchmark: exact polyhedral cells in d = 3..5 (verify/decide/polytope.py) against a float LP walker, and
prove_emulation cells per second, before and after a change of the search.

    python3 bench/polytope.py [--repeat 3] [--quick] [--large] [--before REV] [--no-emulation | --no-activation]
    python3 bench/polytope.py --audits [--repeat 3]
    python3 bench/polytope.py --shapes [--shape-budget 150]

For each seeded random ReLU network (rank-2 maxout form) on [-1, 1]^d it prints, side by side, the exact
activation count (every cell certified exactly, the certificate the kernel re-checks) and the count of a float
LP walker written here as the yardstick (BFS over activation patterns: from a region, flip one unit and keep
the neighbour if its polytope has Chebyshev radius > 1e-9 by HiGHS; NOT a proof), the regions per second of
both (median of the repeats) and the ratio exact / walker.  ``--before REV`` (default 355859d, the commit
before the second speed round) also runs the search of verify/decide/polytope.py as it was at REV (read with
``git show``; with the kernel's Transformer evaluator and emulation leaf, verify/kernel/_cells.py and
emulation.py, as they were at REV too, so kernel speed-ups count in the ratio), alternating with the current one in every repeat, and prints its figures and the ratio
after / before (wall and CPU time); both must give the same trees (compared by sha256).  Then prove_emulation on d = 3..5
networks: cells (leaves of the split trees) per second, before and after.  The issue's targets: exact >= 10x
the walker; prove_emulation >= 1e4 cells in <= 60 s (``--large``: the networks of ``LARGE``, d = 5, 4, 3, one
repeat unless ``--large-repeat``).  Every PROVED prove_emulation Result is re-checked by the kernel
(``verify.kernel.check``; its seconds and verdict are printed).
``--shapes``: prove_emulation once on each network of ``SHAPES`` (deeper and narrower networks than ``LARGE``'s,
same generator, seed 300 first), ``time_budget`` ``--shape-budget`` seconds each: verdict, cells (finished
leaves when the budget ends it), wall and CPU time, cells per CPU second.
Wall-clock medians, and the CPU-time (process time) ratio exact / walker beside them, since the machine may be
shared.  The numbers printed are what this machine measures.

``--audits``: the T6 audits the emulation shortcuts of verify/decide/emulation.py speed up (the 2-D tracer path,
the sampled path in d = 7), each run with the shortcuts off (``SHARE_TIE_FREE = SHARE_ACROSS_CELLS = False``)
and on, alternating, in one process: medians of wall and CPU time, the ratio off / on, and whether the Results
(canonical JSON minus timing) are byte-identical.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import deque
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _at_rev import module_at  # noqa: E402  (bench/ is on sys.path when a bench script runs)


# --large: prove_emulation on networks with >= 10^4 cells, one per dimension (seed, d, hidden widths; ReLU, rank-2
# maxout form, box [-1, 1]^d, tie average): d = 5, one layer of 3 units (13,111 cells); d = 4, one layer of 7 units
# (seed 214: 82 activation regions on the box, 10,517 cells); d = 3, one layer of 20 units (seed 206: 833
# activation regions; one layer of 18 units, seed 205, 637 regions, gives 8,857 cells only).  These "wide" networks
# stay: no deeper / narrower network of SHAPES has >= 10^4 cells with more cells per CPU second
# (docs/regions.md, "Fourth round").
LARGE = [(204, 5, [3]), (214, 4, [7]), (206, 3, [20])]
# --shapes: deeper / narrower networks tried against LARGE (docs/regions.md, "Fourth round"): a leaf's cost grows
# with the width of a layer (its compiled tokens' scores are compared pairwise) but also with the number of
# layers, and in this order seed 300 of each shape (then 301, 302 for d = 4, widths 6) stays below 10^4 cells in
# 150 s or has fewer cells per CPU second than LARGE's networks
SHAPES = [(300, 3, [6, 6]), (300, 3, [5, 5, 5]), (300, 3, [8, 8]), (300, 3, [4, 4, 4]), (300, 4, [4, 4]),
          (300, 4, [5, 5]), (300, 4, [3, 3]), (300, 4, [3, 3, 3]), (300, 4, [4, 3]), (300, 4, [5]), (300, 4, [6]),
          (301, 4, [6]), (302, 4, [6])]


def relu_spec(seed: int, d: int, widths) -> dict:
    rng = random.Random(seed)
    layers, n_in = [], d
    for w in widths:
        W = [[[str(Fraction(rng.randint(-8, 8), rng.randint(1, 4))) for _ in range(n_in)], ["0"] * n_in]
             for _ in range(w)]
        b = [[str(Fraction(rng.randint(-4, 4), rng.randint(1, 4))), "0"] for _ in range(w)]
        layers.append({"W": W, "b": b})
        n_in = w
    return {"layers": layers}


def walker_count(spec: dict, d: int, lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> int:
    """Float LP walker (the yardstick; not a proof): BFS over activation patterns joined by one unit flip."""
    import numpy as np
    from scipy.optimize import linprog

    Ws = [np.array([[float(Fraction(c)) for c in u[0]] for u in L["W"]]) for L in spec["layers"]]
    bs = [np.array([float(Fraction(u[0])) for u in L["b"]]) for L in spec["layers"]]
    box_A = np.vstack([np.eye(d), -np.eye(d)])
    box_b = np.r_[np.full(d, hi), np.full(d, -lo)]

    def polytope(pattern):
        """A x <= b of the open region of the pattern (a tuple of 0/1 per unit, layers concatenated)."""
        A_rows, b_rows = [box_A], [box_b]
        M, c = np.eye(d), np.zeros(d)            # h = M x + c
        k = 0
        for W, b in zip(Ws, bs):
            pre_M, pre_c = W @ M, W @ c + b
            s = np.array(pattern[k:k + len(b)])
            k += len(b)
            sign = np.where(s == 1, -1.0, 1.0)   # active: pre > 0  <=>  -pre < 0
            A_rows.append(sign[:, None] * pre_M)
            b_rows.append(-sign * pre_c)
            M, c = pre_M * s[:, None], pre_c * s
        return np.vstack(A_rows), np.concatenate(b_rows)

    def feasible(pattern):
        A, b = polytope(pattern)
        n = np.linalg.norm(A, axis=1)
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.c_[A, n], b_ub=b, bounds=[(None, None)] * d + [(None, 1)],
                      method="highs")
        return res.status == 0 and -res.fun > 1e-9

    def pattern_at(x):
        h, out = x, []
        for W, b in zip(Ws, bs):
            pre = W @ h + b
            out.extend(int(v > 0) for v in pre)
            h = np.maximum(pre, 0)
        return tuple(out)

    rng = np.random.default_rng(seed)
    start = pattern_at(rng.uniform(lo, hi, d))
    seen, queue = {start}, deque([start])
    n_units = len(start)
    while queue:
        p = queue.popleft()
        for i in range(n_units):
            q = p[:i] + (1 - p[i],) + p[i + 1:]
            if q not in seen and feasible(q):
                seen.add(q)
                queue.append(q)
    return len(seen)


KERNEL_BEFORE = ("_cells", "emulation")     # kernel modules of the search's leaf loaded at REV too (load_before)


class _Kernel:
    """While active: the kernel modules ``mods`` ({short name: module}) stand for verify.kernel.<name> (in
    sys.modules and as attributes of the package, which ``from ..kernel import emulation`` reads)."""

    def __init__(self, mods):
        self.mods, self.saved = mods, {}

    def __enter__(self):
        import verify.kernel as K

        for name, mod in self.mods.items():
            full = f"verify.kernel.{name}"
            self.saved[name] = (sys.modules.get(full), getattr(K, name, None))
            sys.modules[full] = mod
            setattr(K, name, mod)

    def __exit__(self, *exc):
        import verify.kernel as K

        for name, (m, a) in self.saved.items():
            sys.modules[f"verify.kernel.{name}"] = m
            setattr(K, name, a)


def load_before(rev: str):
    """verify/decide/polytope.py as it was at the git revision ``rev``, as the module
    ``verify.decide._polytope_before``, with the kernel modules of its leaf (``KERNEL_BEFORE``: the Transformer
    evaluator and the emulation leaf) as they were at ``rev`` too: ``mod.KERNEL`` is a :class:`_Kernel` to
    enter while the before search runs (the kernel's speed-ups then count in the ratio after / before)."""
    import verify.kernel._cells  # noqa: F401  (the current modules first: _Kernel restores them)
    import verify.kernel.emulation  # noqa: F401

    kern = {}
    for name in KERNEL_BEFORE:
        with _Kernel(kern):         # the modules loaded so far (emulation's ``from . import _cells``)
            kern[name] = module_at(rev, f"verify/kernel/{name}.py", f"verify.kernel._{name.strip('_')}_before",
                                  "verify.kernel")
    with _Kernel(kern):
        mod = module_at(rev, "verify/decide/polytope.py", "verify.decide._polytope_before", "verify.decide")
    mod.KERNEL = _Kernel(kern)
    return mod


def _kernel_of(mod):
    """The context the search ``mod`` runs in (its kernel modules; none for the current one)."""
    import contextlib

    return getattr(mod, "KERNEL", None) or contextlib.nullcontext()


def _tree_hash(mod, trees) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(mod.strip(trees), sort_keys=True).encode()).hexdigest()


def _timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


AUDIT_CASES = [("random-d2-k3-L3-seed0", {"seed": 0, "d": 2, "k": 3, "L": 3, "max_width": 3}),
               ("random-d2-k3-L3-seed4", {"seed": 4, "d": 2, "k": 3, "L": 3, "max_width": 3}),
               ("d7-sampled", {"seed": 0, "d": 7, "k": 2, "L": 2, "max_width": 2})]


def audits(repeat: int) -> int:
    """The T6 audits with the emulation shortcuts off and on (alternating), medians and ratios."""
    import hashlib

    import verify.decide.emulation as E
    from verify.canonical import canonical_dumps
    from verify.checks.t6_maxout_emulation import check_random_emulation

    def digest(r):
        d = r.to_dict()
        d.pop("timing", None)
        return hashlib.sha256(canonical_dumps(d).encode()).hexdigest()

    check_random_emulation(seed=1, d=2, k=2, L=2, max_width=3)          # imports outside the timings
    print(f"T6 audits, emulation shortcuts off / on (median of {repeat}, alternating):")
    print(f"{'audit':>24} {'off s':>7} {'on s':>7} {'ratio':>6} {'off cpu':>8} {'on cpu':>7} {'cpu ratio':>9}  same")
    for name, kw in AUDIT_CASES:
        wall, cpu, h = {False: [], True: []}, {False: [], True: []}, {}
        for rep in range(repeat):
            for on in ((False, True) if rep % 2 == 0 else (True, False)):
                E.SHARE_TIE_FREE = E.SHARE_ACROSS_CELLS = on
                try:
                    r, w, c = _timed(lambda: check_random_emulation(**kw))
                finally:
                    E.SHARE_TIE_FREE = E.SHARE_ACROSS_CELLS = True
                wall[on].append(w)
                cpu[on].append(c)
                h[on] = digest(r)
        mw = {k: statistics.median(v) for k, v in wall.items()}
        mc = {k: statistics.median(v) for k, v in cpu.items()}
        print(f"{name:>24} {mw[False]:>7.2f} {mw[True]:>7.2f} {mw[False] / mw[True]:>6.2f} {mc[False]:>8.2f} "
              f"{mc[True]:>7.2f} {mc[False] / mc[True]:>9.2f}  {'yes' if h[False] == h[True] else 'NO'}")
    return 0


def shapes(budget: float) -> int:
    """prove_emulation once on each network of SHAPES (time_budget ``budget`` s): verdict, cells, wall, CPU."""
    from verify.decide.emulation import prove_emulation
    from verify.objects.maxout import MaxoutNetwork

    prove_emulation(MaxoutNetwork.from_dict(relu_spec(1, 3, [2])), [["-1", "1"]] * 3, tie="average",
                    record_regions=False)                          # imports outside the timings
    print(f"prove_emulation on SHAPES (tie average, time_budget {budget:g} s; cells: finished leaves):")
    print(f"{'seed':>4} {'d':>2} {'widths':>8} {'verdict':>12} {'cells':>7} {'wall s':>7} {'cpu s':>7} {'cells/cpu s':>11}")
    for seed, d, widths in SHAPES:
        net = MaxoutNetwork.from_dict(relu_spec(seed, d, widths))
        r, w, c = _timed(lambda: prove_emulation(net, [["-1", "1"]] * d, tie="average", record_regions=False,
                                                 max_cells=200_000, time_budget=budget))
        cells = r.evidence.get("cells", 0)
        print(f"{seed:>4} {d:>2} {'x'.join(map(str, widths)):>8} {r.verdict.value:>12} {cells:>7} {w:>7.1f} "
              f"{c:>7.1f} {cells / c:>11.1f}", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", action="store_true", help="only the T6 audits, emulation shortcuts off / on")
    ap.add_argument("--shapes", action="store_true", help="only prove_emulation on the networks of SHAPES")
    ap.add_argument("--shape-budget", type=float, default=150.0, help="time_budget of each --shapes run (s)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--large", action="store_true",
                    help="add the prove_emulation runs with >= 10^4 cells in d = 5, 4, 3 (LARGE)")
    ap.add_argument("--large-repeat", type=int, default=1)
    ap.add_argument("--no-emulation", action="store_true", help="only the activation counts")
    ap.add_argument("--no-activation", action="store_true", help="only prove_emulation")
    ap.add_argument("--before", default="355859d", help="git revision of the search to compare with ('' for none)")
    args = ap.parse_args(argv)
    if args.audits:
        return audits(args.repeat)
    if args.shapes:
        return shapes(args.shape_budget)
    import scipy.optimize  # noqa: F401  (import cost outside the timings)

    import verify.decide.polytope as after
    import json

    from verify.decide.emulation import prove_emulation
    from verify.kernel import check
    from verify.kernel._read import Rejected
    from verify.objects.maxout import MaxoutNetwork

    before = load_before(args.before) if args.before else None
    versions = [("after", after)] + ([("before", before)] if before else [])
    warm = MaxoutNetwork.from_dict(relu_spec(1, 3, [2]))
    for _, mod in versions:                  # imports and first-call costs outside the timings
        sys.modules["verify.decide.polytope"] = mod
        with _kernel_of(mod):
            prove_emulation(warm, [["-1", "1"]] * 3, tie="average", record_regions=False)
            mod.activation_search(relu_spec(1, 3, [3]), [(Fraction(-1), Fraction(1))] * 3)
    sys.modules["verify.decide.polytope"] = after
    med = statistics.median
    cases = [(3, [8]), (3, [6, 4]), (4, [8]), (5, [8])] if not args.quick else [(3, [6])]
    if args.no_activation:
        cases = []
    print("exact polyhedral cells vs float LP walker (activation regions on [-1, 1]^d, median of "
          f"{args.repeat}{'; before = ' + args.before if before else ''}):")
    print(f"{'d':>2} {'widths':>8} {'exact':>6} {'walker':>6} {'exact reg/s':>11} {'before reg/s':>12} "
          f"{'walker reg/s':>12} {'ratio':>6} {'cpu ratio':>9} {'after/before':>12} {'cpu a/b':>7}")
    for i, (d, widths) in enumerate(cases):
        spec = relu_spec(100 + i, d, widths)
        bx = [(Fraction(-1), Fraction(1))] * d
        wall = {"after": [], "before": [], "walker": []}
        cpu = {"after": [], "before": [], "walker": []}
        n = {}
        hashes = {}
        for rep in range(args.repeat):
            for name, mod in versions[::-1] if rep % 2 else versions:     # alternate the order
                with _kernel_of(mod):
                    info, w, c = _timed(lambda: mod.activation_search(spec, bx))
                wall[name].append(w)
                cpu[name].append(c)
                n[name] = len(set(info["patterns"]))
                hashes[name] = _tree_hash(mod, info["trees"])
            n["walker"], w, c = _timed(lambda: walker_count(spec, d))
            wall["walker"].append(w)
            cpu["walker"].append(c)
        rate = {k: n[k] / med(v) for k, v in wall.items() if v}
        crate = {k: n[k] / med(v) for k, v in cpu.items() if v}
        note = "" if n["after"] == n["walker"] else "  (counts differ)"
        if before and hashes["after"] != hashes["before"]:
            note += "  (trees differ from before)"
        print(f"{d:>2} {'x'.join(map(str, widths)):>8} {n['after']:>6} {n['walker']:>6} {rate['after']:>11.1f} "
              f"{rate.get('before', float('nan')):>12.1f} {rate['walker']:>12.1f} "
              f"{rate['after'] / rate['walker']:>6.2f} {crate['after'] / crate['walker']:>9.2f} "
              f"{rate['after'] / rate.get('before', float('nan')):>12.2f} "
              f"{crate['after'] / crate.get('before', float('nan')):>7.2f}{note}")
    if args.no_emulation:
        return 0
    print("\nprove_emulation (T6/T8 path, compiled Transformer, tie average), cells = leaves of the split trees:")
    print(f"{'d':>2} {'widths':>8} {'verdict':>9} {'cells':>7} {'seconds':>8} {'cpu s':>7} {'before s':>8} "
          f"{'cells/s':>8} {'after/before':>12} {'before cpu':>10} {'cpu a/b':>7} {'kernel s':>8}")
    emu = [(200 + i, d, w, False) for i, (d, w) in enumerate([(3, [2]), (3, [4]), (4, [3]), (5, [2])])]
    if args.quick:
        emu = emu[:1]
    if args.large:
        emu += [(seed, d, w, True) for seed, d, w in LARGE]
    for seed, d, widths, large in emu:
        net = MaxoutNetwork.from_dict(relu_spec(seed, d, widths))
        reps = args.large_repeat if large else args.repeat
        ts, cs, r, same = {"after": [], "before": []}, {"after": [], "before": []}, {}, True
        for rep in range(reps):
            for name, mod in versions[::-1] if rep % 2 else versions:
                sys.modules["verify.decide.polytope"] = mod       # prove_emulation imports the search at call time
                try:
                    with _kernel_of(mod):
                        r[name], w, c = _timed(lambda: prove_emulation(net, [["-1", "1"]] * d, tie="average",
                                                                       record_regions=False, max_cells=200_000,
                                                                       time_budget=3600.0))
                finally:
                    sys.modules["verify.decide.polytope"] = after
                ts[name].append(w)
                cs[name].append(c)
        if before:
            same = r["after"].certificate == r["before"].certificate
        m = med(ts["after"])
        mb = med(ts["before"]) if before else float("nan")
        mcb = med(cs["before"]) if before else float("nan")
        cells = r["after"].evidence.get("cells", 0)
        kern = "-"
        if r["after"].verdict.value == "proved":          # the kernel re-checks the Result from its own data
            t = time.perf_counter()
            try:
                check(json.loads(json.dumps(r["after"].to_dict())), seconds=3600.0)
                kern = f"{time.perf_counter() - t:.1f}"
            except Rejected as exc:
                kern = f"REJECTED ({str(exc)[:60]})"
        print(f"{d:>2} {'x'.join(map(str, widths)):>8} {r['after'].verdict.value:>9} {cells:>7} {m:>8.2f} "
              f"{med(cs['after']):>7.2f} {mb:>8.2f} {cells / m:>8.1f} {mb / m:>12.2f} {mcb:>10.2f} "
              f"{mcb / med(cs['after']):>7.2f} {kern:>8}"
              f"{'' if same else '  (certificates differ from before)'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
