"""Audits of T2 (softmax vs hardmax: the sharp bound W0((n-1)/e)/lambda, the n = 2 closed form, the weaker
bounds, the scalar problem and the gap bound; docs/paper1.md R2).

The 21 sharp-bound audits each run the full evidence search (>= 3000 random + adversarial points and a
local optimiser per (n, lambda)); the verdict rests on the R2 proof (the kernel's SymPy lemma for the scalar
problem) and the certified attainment only.  Every decided Result is re-checked by ``verify.kernel.softmax``.

The gap-bound audits were PROVED from ~200 sampled points before issue 11 (unsound for a universal claim);
they are now PROVED by the gap lemma (kernel kind ``softmax-gap-lemma``: symbolic steps, rate r <= 1 checked
exactly), and the sampled points are evidence only.
"""

from verify.audit.spec import Audit
from verify.checks.t2_softmax_bound import (
    check_gap_bound, check_scalar_problem, check_softmax_bound, check_two_token_identity,
)
from verify.results import Verdict

NS = (2, 3, 4, 5, 8, 10, 16)
LAMBDAS = (1, 10, 100)

AUDITS = [
    Audit("T2", f"sharp-bound-n{n}-lam{lam}", Verdict.PROVED, check_softmax_bound,
          {"n": n, "lam": lam, "search_points": 3000, "local_starts": 4, "seed": 0},
          description="R2 proof (kernel: scalar lemma in SymPy) + certified attainment within 1e-30 at a rational "
                      "witness + 3000-point search (evidence)")
    for n in NS for lam in LAMBDAS
] + [
    Audit("T2", "scalar-problem", Verdict.PROVED, check_scalar_problem, {},
          description="max_A A ln(m/A)/(1+A): maximiser and value W0(m/e), symbolic for every m > 0"),
    Audit("T2", "scalar-problem-wrong-maximiser", Verdict.REFUTED, check_scalar_problem, {"maximiser": "W0(m)"},
          description="W0(m) is not a critical point: certified h(A) != 0 at m = 1"),
    Audit("T2", "two-token-identity", Verdict.PROVED, check_two_token_identity, {},
          description="n = 2: E = delta/(1 + e^(lambda delta)), symbolic, both orderings"),
    Audit("T2", "two-token-wrong-sign", Verdict.REFUTED, check_two_token_identity,
          {"formula": "delta/(1+exp(-lam*delta))"}, description="sign error in the exponent"),
] + [
    Audit("T2", f"weaker-{b}-n{n}", Verdict.PROVED, check_softmax_bound,
          {"n": n, "lam": 10, "bound": b, "search_points": 300, "local_starts": 1},
          description="valid because certified >= W0((n-1)/e)/lambda")
    for b in ("ln_n", "n_minus_1_over_e") for n in (2, 16)
] + [
    Audit("T2", "gap-bound-n4", Verdict.PROVED, check_gap_bound, {"n": 4, "lam": 10, "delta": "1/5"},
          description="the gap lemma (symbolic, rate 1 <= 1); 202 sampled points with gap exactly delta are evidence"),
    Audit("T2", "gap-bound-n16", Verdict.PROVED, check_gap_bound, {"n": 16, "lam": 100, "delta": "1/50", "trials": 60},
          description="larger n, lambda (the gap lemma)"),
    Audit("T2", "gap-bound-rate-2", Verdict.REFUTED, check_gap_bound, {"n": 4, "lam": 10, "delta": "1/5", "rate": 2},
          description="the decay e^(-2 lambda delta) is too fast: violated at (delta, 0, 0, 0)"),
] + [
    Audit("T2", f"n-0.999-w0-n{n}", Verdict.REFUTED, check_softmax_bound,
          {"n": n, "lam": 10, "factor": "0.999", "search_points": 0},
          description="T2.n: (1 - 1e-3) W0((n-1)/e)/lambda is exceeded at the rational witness next to s*")
    for n in (2, 4, 16)
] + [
    Audit("T2", f"n-w0-n-minus-2-n{n}", Verdict.REFUTED, check_softmax_bound,
          {"n": n, "lam": 10, "bound": "w0_n_minus_2", "search_points": 0},
          quick=n == 4, description="T2.n: W0((n-2)/e)/lambda is exceeded at s*")
    for n in (2, 4, 16)
]
