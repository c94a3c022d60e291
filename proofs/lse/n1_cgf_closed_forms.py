"""Audits of N1 (CGF closed forms, derivatives, identities; docs/paper2.md §2, §6)."""

from verify.audit.spec import Audit
from verify.checks.n1_cgf_closed_forms import (check_cgf_quadrature, check_domain_enforced, check_identities,
                                               check_symbolic_derivatives, check_taylor_coefficients)
from verify.results import Verdict

AUDITS = [
    *[Audit("N1", f"quadrature-cube-r={r.replace('/', '_')}", Verdict.PROVED, check_cgf_quadrature,
            {"family": "cube", "params": {"radius": r, "center": "1/3"}},
            quick=r == "1", description="theta in {-1, -1/3, 1/5, 2}; certified |closed form - log integral| <= 1e-40")
      for r in ("1/2", "1", "2")],
    *[Audit("N1", f"quadrature-laplace-s2={s2.replace('/', '_')}", Verdict.PROVED, check_cgf_quadrature,
            {"family": "laplace", "params": {"variance": s2, "mean": "-1/4"}},
            description="1-D density (1/2b) e^(-|y-m|/b), b^2 = s^2/2; theta in the sample set inside the domain")
      for s2 in ("1/4", "1", "3/2")],
    Audit("N1", "quadrature-laplace-2d-mixing", Verdict.PROVED, check_cgf_quadrature,
          {"family": "laplace-mixing", "params": {"cov": [[1, "1/5"], ["1/5", "1/2"]], "mean": ["1/2", -1]}},
          description="d-D Laplace via int_0^inf e^(-w) e^(wq) dw = 1/(1-q)"),
    *[Audit("N1", f"quadrature-mixture-a={a.replace('/', '_')}-sigma={s.replace('/', '_')}", Verdict.PROVED, check_cgf_quadrature,
            {"family": "mixture", "params": {"separation": a, "sigma": s, "center": "1/5"}},
            description="1/2 N(c+a, s^2) + 1/2 N(c-a, s^2)")
      for a in ("1/2", "2") for s in ("1", "3/2")],
    Audit("N1", "quadrature-gaussian", Verdict.PROVED, check_cgf_quadrature,
          {"family": "gaussian", "params": {"variance": 2, "mean": 1}}),
    Audit("N1", "symbolic-derivatives", Verdict.PROVED, check_symbolic_derivatives, {},
          description="cube (1-D, 2-D), Laplace, mixture, Gaussian, discrete: CGF = spec formula, grad/Hessian = diff"),
    Audit("N1", "taylor-bernoulli-order-12", Verdict.PROVED, check_taylor_coefficients, {"order": 12}),
    Audit("N1", "translation-convolution-cube-limits", Verdict.PROVED, check_identities, {}),
    Audit("N1", "n1-laplace-variance-mistake", Verdict.REFUTED, check_cgf_quadrature,
          {"family": "laplace", "params": {"variance": 1}, "formula": "laplace-variance-mistake"},
          description="1/(1 - s^2 t^2) in place of 1/(1 - s^2 t^2 / 2): certified non-zero difference"),
    Audit("N1", "n2-domain-enforced", Verdict.PROVED, check_domain_enforced, {},
          description="library evaluators raise DomainError at every theta with theta^T Sigma theta >= 2"),
    Audit("N1", "n2-naive-formula-returns-number", Verdict.REFUTED, check_domain_enforced,
          {"evaluator": "naive-formula"},
          quick=True, description="an unguarded -log|1 - q| returns a number outside the domain, where the integral diverges"),
]
