"""Audits of T6 (exact maxout emulation on the whole box, with sizes; docs/paper1.md R4, O2)."""

from verify.audit.spec import Audit
from verify.checks.t6_maxout_emulation import (check_altered_emulation, check_maxout_emulation,
                                               check_random_emulation)
from verify.results import Verdict

P, R, I = Verdict.PROVED, Verdict.REFUTED, Verdict.INCONCLUSIVE

AUDITS = [
    Audit("T6", "O2-S40", P, check_maxout_emulation, {"network": "O2", "S": 40},
          quick=True, description="O2 with S = 40: equal on all of [0, 1] under both tie rules, every catalogue size"),
    Audit("T6", "O2-S-certified", P, check_maxout_emulation, {"network": "O2"},
          description="O2 with the certified S = 11/2"),
    Audit("T6", "O2-S2", P, check_maxout_emulation, {"network": "O2", "S": 2},
          description="S = 2 < 11/2 happens to pass: the hypothesis is sufficient, not necessary"),
    Audit("T6", "n-O2-S3-2", R, check_maxout_emulation, {"network": "O2", "S": "3/2"},
          quick=True, description="T6.n: S = 3/2, at x = 0 the output is 2/3 instead of 7/6"),
]
AUDITS += [
    Audit("T6", f"random-d1-k{k}-L{L}-seed{s}", P, check_random_emulation,
          {"seed": s, "d": 1, "k": k, "L": L, "max_width": 3},
          description="seeded random rational network on [-1, 1]")
    for s in range(4) for k, L in ((2, 2), (3, 3))
]
AUDITS += [
    Audit("T6", f"random-d2-k{k}-L{L}-seed{s}", P, check_random_emulation,
          {"seed": s, "d": 2, "k": k, "L": L, "max_width": 3},
          description="seeded random rational network on [-1, 1]^2 (exact polygons)")
    for s, k, L in ((1, 2, 2), (3, 2, 2), (2, 3, 3), (4, 3, 3))
]
AUDITS += [
    Audit("T6", "random-d2-k3-L3-seed0", P, check_random_emulation,
          {"seed": 0, "d": 2, "k": 3, "L": 3, "max_width": 3}, quick=False,
          description="larger 2-D instance (125 open cells)"),
    Audit("T6", "n-altered-O2-W1", R, check_altered_emulation,
          {"network": "O2", "sublayer": 0, "name": "W1", "index": (0, 0), "delta": 1},
          description="one FFN weight of the compiled O2 Transformer changed by 1: exact witness"),
    Audit("T6", "n-altered-O2-WO", R, check_altered_emulation,
          {"network": "O2", "sublayer": 3, "name": "W_O", "index": (0, 0), "delta": "1/2"},
          description="the last head writes 3/2 of the max: exact witness"),
    Audit("T6", "n-altered-random-d2-WO", R, check_altered_emulation,
          {"network": "random", "seed": 1, "d": 2, "sublayer": 3, "name": "W_O", "index": (0, 0), "delta": "1/4"},
          description="a 2-D random network, the output weight of a layer-2 head changed by 1/4"),
    Audit("T6", "inactive-alteration-still-equal", P, check_altered_emulation,
          {"network": "random", "seed": 1, "d": 2, "sublayer": 2, "name": "b1", "index": 0, "delta": "1/4"},
          description="a bias change inside a gate's dead margin does not change the function: PROVED is right"),
    Audit("T6", "d7-sampled", I, check_random_emulation, {"seed": 0, "d": 7, "k": 2, "L": 2, "max_width": 2},
          description="input dimension 7 (past the polyhedral path's d <= 6): exact evaluation at sampled points "
                      "only, so INCONCLUSIVE"),
]

# d = 3, 4, 5: exact polyhedral cells (kernel kind emulation-polytope; docs/regions.md, "Polyhedral cells in any
# dimension"): one rank-2 unit max(x1 - x2 + x3 + ... - c, 0) whose hyperplane cuts the box [0, 1]^d (c = 1/2 for
# d = 3, 4; in d = 5 the plane x1 - x2 + x3 + x4 + x5 = 5/2 cuts fewer of the 243 faces, which keeps the audit cheap)


def _unit_spec(d):
    return {"layers": [{"W": [[["1", "-1"] + ["1"] * (d - 2), ["0"] * d]], "b": [["-1/2" if d < 5 else "-5/2", "0"]]}]}


AUDITS += [
    Audit("T6", "polytope-d3", P, check_maxout_emulation, {"network": _unit_spec(3), "box": [["0", "1"]] * 3},
          description="d = 3: equal on the closed cube under both tie rules (27 faces split by the unit's plane)"),
    Audit("T6", "polytope-d4", P, check_maxout_emulation,
          {"network": _unit_spec(4), "box": [["0", "1"]] * 4, "tie": "average"},
          description="d = 4: equal on the closed box [0, 1]^4 (81 faces), tie rule average"),
    Audit("T6", "polytope-d5", P, check_maxout_emulation,
          {"network": _unit_spec(5), "box": [["0", "1"]] * 5, "tie": "average"},
          description="d = 5: equal on the closed box [0, 1]^5 (243 faces), tie rule average"),
    Audit("T6", "n-altered-random-d3-W1", R, check_altered_emulation,
          {"network": "random", "seed": 0, "d": 3, "sublayer": 0, "name": "W1", "index": (0, 0), "delta": 1},
          description="d = 3: one FFN weight of a compiled random network changed by 1: exact witness from the "
                      "polyhedral cells"),
]
