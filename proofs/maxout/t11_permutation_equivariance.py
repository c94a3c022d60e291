"""Audits of T11 (permutation equivariance without positional information; docs/paper1.md R9)."""

from verify.audit.spec import Audit
from verify.checks.t11_permutation_equivariance import (check_first_rule_ties, check_identical_tokens,
                                                        check_permutation_equivariance, check_positional_codes,
                                                        check_softmax_equivariance_evidence,
                                                        check_softmax_equivariance_symbolic)
from verify.results import Verdict

P, R, I = Verdict.PROVED, Verdict.REFUTED, Verdict.INCONCLUSIVE

AUDITS = [
    Audit("T11", "hardmax-average-random", P, check_permutation_equivariance, {"trials": 16},
          description="16 random rational Transformers (E <= 6, n <= 5, H <= 2, <= 4 sublayers), every "
                      "permutation, half the inputs with forced ties, exact; the statement is narrowed to these 16 "
                      "recorded instances (sampling never proves the universal claim; issue 11)"),
    Audit("T11", "softmax-symbolic-n3", P, check_softmax_equivariance_symbolic, {"n_max": 3, "trials": 3},
          description="softmax with symbolic lambda and symbolic token entries, n <= 3: T(X Pi) and T(X) Pi the "
                      "same SymPy expression for the 3 recorded Transformers (re-built by the kernel)"),
    Audit("T11", "softmax-50-digits-n5", I, check_softmax_equivariance_evidence, {"n": 5, "trials": 3},
          description="softmax, n = 5, 50-digit evidence (never a verdict; criterion_met records < 1e-40)"),
    Audit("T11", "identical-tokens", P, check_identical_tokens, {"trials": 12},
          quick=True, description="X = x 1^T: equal columns, attention = X + sum W_O W_V X, both tie rules, for the 12 "
                      "recorded instances (narrowed from the sampled universal claim; issue 11)"),
    Audit("T11", "n1-first-rule-ties", R, check_first_rule_ties, {"values": [0, 5]},
          quick=True, description="T11.n1: first rule, keys (1, 1), values (0, 5): T(X Pi) = (5, 5) != T(X) Pi = (0, 0)"),
    Audit("T11", "n1-first-rule-random", R, check_permutation_equivariance, {"trials": 16, "tie": "first"},
          description="the universal first-rule claim, REFUTED by an exact counterexample (sampled, else the "
                      "T11.n1 instance, so the verdict does not depend on the seed)"),
    Audit("T11", "n2-onehot-codes", R, check_positional_codes, {},
          description="T11.n2: R4 one-hot codes fixed to positions (O2): swapping token contents changes h_1"),
]
