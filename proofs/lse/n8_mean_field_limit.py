"""Audits of N8 (particle model -> mean-field flow, docs/paper2.md §7). The convergence audits are evidence
(INCONCLUSIVE; tests/test_n8_mean_field.py asserts certificate["criterion_met"]); N8.n is refuted with an
exact/certified argument in a configuration where both limits are explicit."""

from verify.audit.spec import Audit
from verify.checks.n8_mean_field_limit import (check_depth_convergence, check_frozen_context,
                                               check_width_convergence)
from verify.results import Verdict

AUDITS = [
    Audit("N8", "depth-euler-rate", Verdict.INCONCLUSIVE, check_depth_convergence,
          {"layers": (8, 16, 32, 64, 128)},
          description="8 heads theta_r(s) = theta0 + s theta1, 4 tokens; error(L)/error(2L) in [1.8, 2.2]; "
                      "reference: 30-digit GBS"),
    Audit("N8", "width-monte-carlo-rate", Verdict.INCONCLUSIVE, check_width_convergence,
          {"heads": (16, 32, 64, 128, 256, 512, 1024), "layers": 8, "seeds": 20},
          description="iid heads A, V~ ~ N(0, 1/4), V = (1+s)V~; exact identity limit; slope in [-0.6, -0.4]"),
    Audit("N8", "n-frozen-context-certified", Verdict.REFUTED, check_frozen_context, {"mode": "certified"},
          quick=True, description="A = 0, V = diag(1/2, -1/3): frozen limit x + V m0 vs flow x + (e^V - I) m0, certified gap"),
    Audit("N8", "n-frozen-context-evidence", Verdict.INCONCLUSIVE, check_frozen_context, {"mode": "evidence"},
          description="general heads with frozen context: error stays ~0.03-0.04 while the coupled model -> 0"),
]
