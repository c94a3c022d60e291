"""Audits of T8 (ReLU network -> rank-2 maxout -> 2-token Transformer; docs/paper1.md R6)."""

from verify.audit.spec import Audit, seeded_instances
from verify.checks.t8_relu_emulation import (check_random_relu_emulation, check_relu_emulation,
                                             check_relu_identities, check_shared_head,
                                             check_zigzag_relu_emulation)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("T8", "lit-identities", P, check_relu_identities, {"k_max": 8},
          description="tournament max with ceil(log2 k) ReLU levels proved on R^k, k <= 8, every ReLU decided on "
                      "every ordering cone (k = 2 gives max(a, b) = a + ReLU(b - a) and ReLU(t) = max(t, 0))"),
    Audit("T8", "two-units-abs", P, check_relu_emulation,
          {"weights": [[[1], [-1]]], "biases": [[0, 0]], "readout": ([[1, 1]], [0]), "box": [[-1, 1]]},
          description="|x| = ReLU(x) + ReLU(-x) with one head per unit"),
]
# formerly one audit "random-relu-d1-d2" PROVED a universal statement from 12 samples; now each of the 12 seeded
# networks is its own Result whose statement names that network by its weights
AUDITS += seeded_instances("T8", "random-relu-{i}", P, check_random_relu_emulation, 12, 20260308,
                           "random rational ReLU network {i} of the seeded family (d in {{1, 2}}, widths <= 4, "
                           "L <= 3) on [-1, 1]^d")
AUDITS += [
    Audit("T8", f"zigzag-q{q}-L{L}", P, check_zigzag_relu_emulation, {"q": q, "L": L},
          quick=(q, L) == (2, 1), description=f"the zigzag network g_{q}^{L} on [0, 1]")
    for q in (2, 3, 4) for L in (1, 2)
]
AUDITS += [
    Audit("T8", "n-shared-head", R, check_shared_head, {"x": "1/2"},
          quick=True, description="T8.n: one head shared by u1 = ReLU(x), u2 = ReLU(-x): at x = 1/2 unit 2 reads -1/2"),
]
# d = 3, 4, 5: exact polyhedral cells (kernel kind emulation-polytope): one ReLU unit whose hyperplane cuts [0, 1]^d
AUDITS += [
    Audit("T8", f"polytope-d{d}", P, check_relu_emulation,
          {"weights": [[[1, -1] + [1] * (d - 2)]], "biases": [["-1/2" if d < 5 else "-5/2"]], "box": [[0, 1]] * d,
           "tie": "both" if d == 3 else "average"},
          description=f"d = {d}: ReLU(x1 - x2 + x3 + ... - {'1/2' if d < 5 else '5/2'}) equal to its compiled Transformer on the closed box "
                      f"[0, 1]^{d} ({3 ** d} faces)")
    for d in (3, 4, 5)
]
AUDITS += [
    Audit("T8", "n-polytope-d3-S-too-small", R, check_relu_emulation,
          {"weights": [[[1, -1, 1]]], "biases": [["-1/2"]], "box": [[0, 1]] * 3, "S": "1/4"},
          description="d = 3 with the gate constant S = 1/4 below the bound: exact witness at a corner"),
]
