"""Audits of T5 (score-shift group isolation, M > 2C; docs/paper1.md R4', O7)."""

from verify.audit.spec import Audit
from verify.checks.t5_group_isolation import check_group_isolation
from verify.results import Verdict

P, R, I = Verdict.PROVED, Verdict.REFUTED, Verdict.INCONCLUSIVE

AUDITS = [
    Audit("T5", "O7-M-2C-plus-1-100", P, check_group_isolation, {"M": "601/100", "C": 3, "N": 3, "k": 4},
          description="O7: N = 3 groups of k = 4, C = 3, M = 2C + 1/100: every z in [-C, C]^12 by one scan tree "
                      "per group (kernel-checked), 300 random rational z as evidence, both rules"),
    Audit("T5", "O7-M-7C", P, check_group_isolation, {"M": 21, "C": 3, "N": 3, "k": 4, "cases": 150},
          description="O7 with M = 7C (group trees; 150 random z as evidence)"),
    Audit("T5", "n-M-2C-average", R, check_group_isolation,
          {"M": 2, "C": 1, "groups": [0, 0, 1, 1], "values": [[-1, -1, 1, 0]], "ties": ["average"]},
          description="T5.n: M = 2C, groups {a,b} z = (-1,-1), {c,d} z = (1,0): average gives -1/3 at group 1"),
    Audit("T5", "n-M-2C-first-order-cdab", R, check_group_isolation,
          {"M": 2, "C": 1, "groups": [1, 1, 0, 0], "values": [[1, 0, -1, -1]], "ties": ["first"]},
          quick=True, description="T5.n: first with token order (c, d, a, b) gives 1 at group 1"),
    Audit("T5", "control-M-201-100", P, check_group_isolation,
          {"M": "201/100", "C": 1, "groups": [0, 0, 1, 1], "values": [[-1, -1, 1, 0]]},
          description="control: M = 201/100 gives -1 under both rules"),
    Audit("T5", "control-M-201-100-order-cdab", P, check_group_isolation,
          {"M": "201/100", "C": 1, "groups": [1, 1, 0, 0], "values": [[1, 0, -1, -1]]},
          quick=True, description="control in the order (c, d, a, b)"),
    Audit("T5", "M-2C-no-counterexample-sampled", I, check_group_isolation,
          {"M": 2, "C": 1, "N": 2, "k": 2, "cases": 50},
          quick=True, description="M = 2C without the tie-producing values: no verdict (hypothesis fails, no counterexample found)"),
]
