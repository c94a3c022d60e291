"""Audits of N10 (PL decay along the gradient flow, docs/paper2.md §10). The trajectory audits are evidence
(INCONCLUSIVE; tests/test_n10_gradient_flow.py asserts certificate["criterion_met"]); N10.n is exact."""

from verify.audit.spec import Audit
from verify.checks.n10_gradient_flow import check_kernel_residual, check_pl_decay
from verify.results import Verdict

AUDITS = [
    Audit("N10", "pl-decay-eps-1e-2", Verdict.INCONCLUSIVE, check_pl_decay, {"eps": "1e-2"},
          description="beta and 3/2 beta, q1, q2, L = 4, H = 16, rtol 1e-12 to t = 5/lambda0: both inequalities, "
                      "lambda_min(K_t) >= lambda0/2 throughout"),
    Audit("N10", "pl-decay-eps-1e-1", Verdict.INCONCLUSIVE, check_pl_decay, {"eps": "1e-1"},
          description="as above with eps = 1e-1: both inequalities along the trajectory"),
    Audit("N10", "n-residual-in-kernel", Verdict.REFUTED, check_kernel_residual, {"eps": "1e-2"},
          quick=True, description="translates beta, beta + (1/2, -1/5), c = (1,-1,-1,1): r(0) in ker K_0 exactly, "
                      "theta(0) stationary, no positive rate from t = 0"),
]
