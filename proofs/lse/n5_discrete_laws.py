"""Audits of N5 (discrete laws: S1/S2, forced dependence, lattice criterion; docs/paper2.md §6.1)."""

from verify.audit.spec import Audit
from verify.checks.n3_decision_procedure import check_oracle_family
from verify.checks.n5_discrete_laws import (check_criterion_agreement, check_forced_dependent, check_s1_not_necessary,
                                            check_sufficient_condition)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("N5", "a-S1-F2", P, check_sufficient_condition, {"case": "F2"}),
    Audit("N5", "a-S1-F7", P, check_sufficient_condition, {"case": "F7"}),
    Audit("N5", "b-convolution-F1", R, check_oracle_family, {"case": "F1", "claim": "N5"}),
    Audit("N5", "b-dirac-F4", R, check_oracle_family, {"case": "F4", "claim": "N5"}, quick=True),
    Audit("N5", "b-forced-constructions", R, check_forced_dependent, {"trials": 24}),
    Audit("N5", "c-poisson-binomial-F5", R, check_oracle_family, {"case": "F5", "claim": "N5"}),
    Audit("N5", "c-poisson-binomial-F6", P, check_oracle_family, {"case": "F6", "claim": "N5"}, quick=True),
    Audit("N5", "d-criterion-vs-certificate-200", P, check_criterion_agreement, {"families": 200},
          description="200 random rational families: criterion rank N <=> certificate PROVED; kernels verified"),
    Audit("N5", "n-disjoint-supports-F3", R, check_oracle_family, {"case": "F3", "claim": "N5.n"}),
    Audit("N5", "n-distinct-laws-F5", R, check_oracle_family, {"case": "F5", "claim": "N5.n"}),
    Audit("N5", "n-S1-not-necessary-F6", R, check_s1_not_necessary, {}),
]
