"""Audits of T3 (one-hot gate identity, docs/paper1.md R3)."""

from verify.audit.spec import Audit
from verify.checks.t3_onehot_gate import check_gate_identity
from verify.results import Verdict

AUDITS = [
    Audit("T3", "symbolic-S10", Verdict.PROVED, check_gate_identity, {"S": 10},
          quick=True, description="case split p in {0,1}: pieces tiling [-S, S] (kernel re-derives the ReLU signs); grid "
                      "k/4, |k| <= 40 as evidence"),
    Audit("T3", "n1-u-exceeds-S", Verdict.REFUTED, check_gate_identity, {"S": 10, "points": [(11, 0)]},
          description="u = S + 1, p = 0 gives 1, not 0 (statement: the identity at that point)"),
    Audit("T3", "n2-non-binary-code", Verdict.REFUTED, check_gate_identity, {"S": 10, "points": [(1, "1/2")]},
          quick=True, description="p = 1/2, u = S/10 gives 0, not u/2 (statement: the identity at that point)"),
]
