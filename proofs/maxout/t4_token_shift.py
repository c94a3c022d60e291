"""Audits of T4 (token-shift slabs disjoint at every layer over the whole domain; docs/paper1.md R3s, O5)."""

from verify.audit.spec import Audit
from verify.checks.t4_token_shift import check_token_shift
from verify.results import Verdict

P, R, I = Verdict.PROVED, Verdict.REFUTED, Verdict.INCONCLUSIVE

AUDITS = [
    Audit("T4", f"O5-Delta2-M4-L{L}", P, check_token_shift, {"L": L, "Delta": 2, "M": 4},
          quick=L == 1, description="exact ranges, disjoint slabs, gates exact; the compiled Transformer (weights in the "
                      "parameters) equals -T^L on every breakpoint cell of [0,1] under both tie rules")
    for L in range(1, 6)
] + [
    Audit("T4", "n-Delta1-L2", R, check_token_shift, {"L": 2, "Delta": 1, "M": 4},
          description="T4.n: slabs touch at layers 1 and 2 (witness at layer 1: token 1 at x = 1, token 2 at x = 0); "
                      "output -1 instead of 0 (evidence)"),
    Audit("T4", "n-Delta1-2-L2", R, check_token_shift, {"L": 2, "Delta": "1/2", "M": 4},
          description="T4.n: overlapping slabs; output -3/2 instead of 0"),
    Audit("T4", "n-Delta1-L1-disjointness", R, check_token_shift, {"L": 1, "Delta": 1, "M": 4},
          quick=True, description="at L = 1 the output happens to be right, but the slabs still touch: disjointness REFUTED"),
    Audit("T4", "n-M3-gates", R, check_token_shift, {"L": 3, "Delta": 2, "M": 3},
          description="M gamma = 3/2 < sup|P_2 - P_1| = 2: the gates are not exact"),
    Audit("T4", "interval-enclosures-Delta2", I, check_token_shift, {"L": 3, "Delta": 2, "M": 4, "ranges": "interval"},
          quick=True, description="interval enclosures are too wide to certify Delta = 2: sufficient condition only, no verdict"),
    Audit("T4", "interval-enclosures-Delta10", P, check_token_shift,
          {"L": 3, "Delta": 10, "M": 4, "ranges": "interval"},
          description="a large shift is certified disjoint from interval enclosures alone (the kernel redoes the "
                      "interval propagation; the Transformer is evaluated on the exact breakpoint cells)"),
]
