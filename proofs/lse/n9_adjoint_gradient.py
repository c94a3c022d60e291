"""Audits of N9 (adjoint gradient = central finite differences, spec lse.md 8). Evidence: every verdict is
INCONCLUSIVE; tests/test_n9_adjoint.py asserts certificate["criterion_met"] on the same checks."""

from verify.audit.spec import Audit
from verify.checks.n9_adjoint_gradient import check_adjoint_gradient
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
]
