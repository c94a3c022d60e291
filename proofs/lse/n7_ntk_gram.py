"""Audits of N7 (attention-NTK V-block Gram PD <=> CGF independence; docs/paper2.md §9, docs/claims.md N7)."""

from verify.audit.spec import Audit
from verify.checks.n7_ntk_gram import (check_equivalence, check_family_gram, check_float64_table,
                                       check_large_gram, check_oracle_gram, check_outside_setting,
                                       check_translates_singular)
from verify.results import Verdict

P, R, I = Verdict.PROVED, Verdict.REFUTED, Verdict.INCONCLUSIVE

AUDITS = [
    # docs/paper2.md §9.4 table: 81-matrix head sets {-s,0,s}^{2x2}, queries (1,1/2), (-3/10,1), >= 200 bits
    Audit("N7", "oracle-translates-m1", P, check_oracle_gram, {"row": "translates-m1"},
          description="beta and its translate, m = 1: PD, ratio 0.13791"),
    Audit("N7", "oracle-translates-m2", R, check_oracle_gram, {"row": "translates-m2"},
          description="beta and its translate, m = 2: singular, exact null vector (1, -1, -1, 1)"),
    Audit("N7", "oracle-dilations3-s=0.5", P, check_oracle_gram, {"row": "dilations3-s=0.5"},
          description="dilations 1, 3/2, 2 of beta: PD, ratio 5.2047e-7"),
    Audit("N7", "oracle-dilations5-s=0.25", P, check_oracle_gram, {"row": "dilations5-s=0.25"},
          description="5 dilations, s = 1/4: PD, ratio 1.7516e-15 (float64 matrix_rank misjudges)"),
    Audit("N7", "oracle-dilations5-s=0.125", P, check_oracle_gram, {"row": "dilations5-s=0.125"},
          description="5 dilations, s = 1/8: PD, ratio 1.3852e-18 (float64 eigvalsh may go negative)"),
    Audit("N7", "float64-table", P, check_float64_table, {},
          description="the docs/paper2.md §9.4 rows, each certified PD or singular as that table states "
                      "(one ntk-instances Result); "
                      "the float64 side-by-side table is platform-dependent evidence, no longer part of the statement"),
    # oracle families
    Audit("N7", "F11-m1-d1", P, check_family_gram, {"case": "F11", "m": 1, "heads": 8, "seed": 0},
          quick=True, description="N(0,1), N(1,4), m = 1, d = 1: PD (the relation 4L1 - L2 = -theta is affine, not constant)"),
    Audit("N7", "F1-m1", R, check_family_gram, {"case": "F1", "m": 1, "heads": 8, "seed": 0},
          description="mu, nu, mu*nu, m = 1: singular, constant relation (1, 1, -1)"),
    Audit("N7", "residual-140-rows", P, check_large_gram, {"laws": 70, "seed": 2026},
          description="70 random discrete laws in d = 2, two shared queries: the 140 x 140 Gram (148 heads), "
                      "beyond ball Cholesky's 128 rows, PD by the exact residual of a fixed-point Cholesky factor"),
    Audit("N7", "residual-140-rows-translate", R, check_large_gram, {"laws": 70, "seed": 2026, "translate_last": True},
          description="the same laws with the last replaced by a translate of the first: singular, exact null "
                      "vector of the translate relation, its complement PD by the same residual bound"),
    # negative readings / non-verdicts
    Audit("N7", "n1-per-token-translates-singular", P, check_translates_singular, {"reading": "per-token"},
          description="N7.n1: per-token reading, beta and its translate: the Gram is PD (1.7343e-5), so 'translates "
                      "give a singular Gram' fails under that reading (statement: the positive claim 'PD', PROVED)"),
    Audit("N7", "shared-translates-singular", R, check_translates_singular, {"reading": "shared", "m": 2},
          description="shared-query reading, m = 2: the Gram is singular, exact null vector (statement: the positive "
                      "claim 'PD', REFUTED)"),
    Audit("N7", "n2-zero-head-F8", I, check_family_gram, {"case": "F8", "m": 2, "head_set": "zero"},
          quick=True, description="N7.n2: head set {A = 0}, F8: Gram = 0 but F8 is independent: INCONCLUSIVE, not REFUTED"),
    Audit("N7", "outside-setting-d1-collinear", R, check_outside_setting, {},
          description="d = 1, queries 1 and 2 (outside 9.3): the Gram is singular (exact null vector (0, 1, -1/2, 0) "
                      "from Lambda_2(t) = Lambda_1(2t), null for every head) although the laws are independent; "
                      "REFUTED says the Gram is not PD, nothing about independence"),
    # equivalence with the independence procedure
    Audit("N7", "equivalence-oracle-and-random", P, check_equivalence, {"random_trials": 16, "seed": 7},
          quick=False,
          description="every oracle family (m = 1, 2) and 16 random families: NTK verdict = independence verdict"),
    Audit("N7", "equivalence-quick", P, check_equivalence,
          {"families": ["F1", "F2", "F9", "F11", "F12", "F14", "F15", "F19", "F24"], "random_trials": 4, "seed": 3},
          description="a quick subset of the equivalence audit"),
    Audit("N7", "equivalence-swapped-pairing", R, check_equivalence,
          {"families": ["F11"], "random_trials": 0, "swap_pairing": True},
          quick=True, description="negative control: m = 1 paired with 'affine' contradicts on F11 (PD vs dependent)"),
]
