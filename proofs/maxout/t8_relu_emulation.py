"""Audits of T8 (ReLU network -> rank-2 maxout -> 2-token Transformer; spec maxout R6)."""

from verify.audit.spec import Audit
from verify.checks.t8_relu_emulation import (check_random_relu_emulation, check_relu_emulation,
                                             check_relu_identities, check_shared_head,
                                             check_zigzag_relu_emulation)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("T8", "lit-identities", P, check_relu_identities, {"k_max": 8},
          description="ReLU(t) = max(t, 0), max(a, b) = a + ReLU(b - a) (symbolic), tournament max with "
                      "ceil(log2 k) ReLU levels proved on Q^k, k <= 8"),
    Audit("T8", "random-relu-d1-d2", P, check_random_relu_emulation, {"count": 12, "seed": 20260308},
          description="12 random rational ReLU networks (d in {1, 2}, widths <= 4, L <= 3) on [-1, 1]^d"),
    Audit("T8", "two-units-abs", P, check_relu_emulation,
          {"weights": [[[1], [-1]]], "biases": [[0, 0]], "readout": ([[1, 1]], [0]), "box": [[-1, 1]]},
          description="|x| = ReLU(x) + ReLU(-x) with one head per unit"),
]
AUDITS += [
    Audit("T8", f"zigzag-q{q}-L{L}", P, check_zigzag_relu_emulation, {"q": q, "L": L},
          description=f"the zigzag network g_{q}^{L} on [0, 1]")
    for q in (2, 3, 4) for L in (1, 2)
]
AUDITS += [
    Audit("T8", "n-shared-head", R, check_shared_head, {"x": "1/2"},
          description="T8.n: one head shared by u1 = ReLU(x), u2 = ReLU(-x): at x = 1/2 unit 2 reads -1/2"),
]
