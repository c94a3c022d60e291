"""Audits of T1 (a hardmax head with value = score computes max; docs/paper1.md R1, O1)."""

from verify.audit.spec import Audit
from verify.checks.t1_hardmax_max import check_hardmax_max, check_tie_rule_independence
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("T1", "symbolic-n6-grid-random", P, check_hardmax_max, {"n_max": 6, "random_cases": 60},
          description="every ordering/tie pattern for n = 1..6 (decision tree, kernel-checked), both tie rules; "
                      "all 169 O1 pairs and 60 random rational z (n = 3..8, half with a repeated maximum) as evidence"),
    Audit("T1", "symbolic-n8", P, check_hardmax_max, {"n_min": 7, "n_max": 8, "grid_step": 13, "random_cases": 0},
          quick=False, description="the decision-tree proof for n = 7, 8 (2187 leaves per rule at n = 8)"),
    Audit("T1", "n-value-ne-score", R, check_tie_rule_independence, {"scores": [1, 1], "values": [0, 2]},
          quick=True, description="T1.n: value != score, scores (1, 1), values (0, 2): average 1, first 0"),
    Audit("T1", "value-eq-score-control", P, check_tie_rule_independence, {"scores": [1, 1], "values": [1, 1]},
          quick=True, description="control: with value = score the tie rules agree"),
]
