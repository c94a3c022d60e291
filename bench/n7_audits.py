"""bench/n7_audits: CPU time of the N7 equivalence audits with and without the memo of the exact Gaussian heads
(verify.decide.ntk_gram.gaussian_heads), alternating, medians, in one run.  Results are byte-identical
either way (tests/test_casesplit_speed.py pins them).

    python3 bench/n7_audits.py [--repeats R] [--audits N7/equivalence-quick ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import verify.decide.ntk_gram as NG
from verify.audit.discovery import load_audits
from verify.audit.runner import run_audit


class _NoMemo(dict):
    def __setitem__(self, key, value):        # never stores: every call draws the heads again
        pass


def _cpu(audit, memo: bool) -> float:
    NG._HEADS_CACHE = {} if memo else _NoMemo()
    t = time.process_time()
    run_audit(audit)
    return time.process_time() - t


def run(repeats: int = 3, ids=("N7/equivalence-quick", "N7/float64-table")) -> dict:
    audits = {a.id: a for a in load_audits()}
    out = {}
    sys.stderr.write(f"{'audit':<38} {'no memo s':>10} {'memo s':>8} {'ratio':>6}\n")
    for aid in ids:
        off, on = [], []
        for _ in range(repeats):
            off.append(_cpu(audits[aid], False))
            on.append(_cpu(audits[aid], True))
        a, b = statistics.median(off), statistics.median(on)
        out[aid] = {"no_memo_cpu_s": a, "memo_cpu_s": b, "ratio": a / b}
        sys.stderr.write(f"{aid:<38} {a:>10.3f} {b:>8.3f} {a / b:>6.2f}\n")
    NG._HEADS_CACHE = {}
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--audits", nargs="+", default=["N7/equivalence-quick", "N7/float64-table"])
    a = ap.parse_args()
    run(a.repeats, a.audits)
