"""Audits of N9 (adjoint gradient = central finite differences, docs/paper2.md §8). The 50-digit comparisons are
evidence (INCONCLUSIVE; tests/test_n9_adjoint.py asserts certificate["criterion_met"]); an explicit A = 0
instance gives an exact proof of the full adjoint and certified refutations of the dropped-term variants."""

from verify.audit.spec import Audit
from verify.checks.n9_adjoint_gradient import check_adjoint_exact_instance, check_adjoint_gradient
from verify.results import Verdict

AUDITS = [
    Audit("N9", "constant-heads-50digits", Verdict.INCONCLUSIVE, check_adjoint_gradient,
          {"configuration": "constant-heads", "max_coordinates": 8},
          description="2 heads constant in s (head 0 as (Q, K, V)); 50 digits, GBS ODE error <= 1e-30, "
                      "FD step 1e-12; criterion: relative agreement <= 1e-20"),
    Audit("N9", "layers-4-50digits", Verdict.INCONCLUSIVE, check_adjoint_gradient,
          {"configuration": "layers-4", "max_coordinates": 2, "directions": 2},
          description="L = 4 piecewise-constant layers, 2 heads each: 2 coordinates + 2 seeded directions"),
    Audit("N9", "n-drop-context-term", Verdict.INCONCLUSIVE, check_adjoint_gradient,
          {"configuration": "constant-heads", "variant": "drop-context", "max_coordinates": 2},
          description="N9.n: without the context term the mismatch is ~1e-1 (evidence; not certified)"),
    Audit("N9", "n-drop-query-term", Verdict.INCONCLUSIVE, check_adjoint_gradient,
          {"configuration": "constant-heads", "variant": "drop-query", "max_coordinates": 2},
          description="N9.n: without the query term the mismatch is ~1e-1 (evidence; not certified)"),
    Audit("N9", "exact-instance-A0", Verdict.PROVED, check_adjoint_exact_instance, {"variant": "full"},
          quick=True, description="d = 1, A = 0, V = 1/2: closed-form adjoint integral = d loss / dv exactly (for all v)"),
    Audit("N9", "n-drop-context-certified", Verdict.REFUTED, check_adjoint_exact_instance,
          {"variant": "drop-context"}, description="N9.n: difference 4e/25 - 2e^(1/2)/5 + 7/30, certified non-zero"),
    Audit("N9", "n-drop-query-certified", Verdict.REFUTED, check_adjoint_exact_instance,
          {"variant": "drop-query"}, description="N9.n: difference e/25 - 13e^(1/2)/150 + 1/75, certified non-zero"),
]
