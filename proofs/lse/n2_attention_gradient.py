"""Audits of N2 (attention = V grad Lambda_mu(K^T Q x), docs/paper2.md §3)."""

from verify.audit.spec import Audit
from verify.checks.n2_attention_gradient import (check_attention_identity, check_continuous_attention,
                                                 check_derivative_table)
from verify.results import Verdict

AUDITS = [
    *[Audit("N2", f"identity-beta-k{k}", Verdict.PROVED, check_attention_identity, {"key_dim": k},
            quick=k == 1, description=f"3-atom law beta in d = 2, symbolic Q, K in R^({k}x2), V, x: difference cancels to 0")
      for k in (1, 2, 3)],
    Audit("N2", "identity-weighted-atoms", Verdict.PROVED, check_attention_identity,
          {"key_dim": 2, "atoms": [(1, 0), (0, 1), ("-1/2", "1/3")], "weights": ["1/2", "1/3", "1/6"]},
          description="non-uniform weights"),
    Audit("N2", "derivative-table-k1", Verdict.PROVED, check_derivative_table, {"key_dim": 1},
          description="d_V, d_A, d_Q, d_K, query and context Jacobians, Hessian = tilted covariance"),
    Audit("N2", "continuous-quadrature", Verdict.INCONCLUSIVE, check_continuous_attention, {"dps": 50},
          description="evidence: cube, Laplace, mixture by 50-digit quadrature (criterion_met asserted in tests)"),
    *[Audit("N2", f"n-transposed-k{k}", Verdict.REFUTED, check_attention_identity, {"key_dim": k, "transpose": True},
            quick=k == 1, description="Q^T K in place of K^T Q: certified non-zero difference at a rational witness")
      for k in (1, 2, 3)],
]
