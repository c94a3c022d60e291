"""The claim catalogue (docs/claims.md): IDs T1..T11 (paper 1) and N1..N10 (paper 2).

Each claim names the module that checks it and the module that audits it, so the code for
a claim is two steps from its ID:  ``verify/checks/t6_*.py`` and ``proofs/maxout/t6_*.py``.

>>> CLAIMS["T6"].check_module
'verify.checks.t6_maxout_emulation'
>>> len(CLAIMS)
21
"""

from __future__ import annotations

import dataclasses

__all__ = ["Claim", "CLAIMS", "PAPERS", "get_claim", "claim_ids"]

PAPERS = {
    "maxout": "Gu, Yang, Zhou: On the Expressive Power of Transformers for Maxout Networks and "
              "Continuous Piecewise Linear Functions (arXiv 2603.03084)",
    "lse": "Barboni, de Hoop, Furuya, Peyre: Training Infinitely Deep and Wide Transformers (arXiv 2605.17660)",
}


@dataclasses.dataclass(frozen=True)
class Claim:
    id: str
    title: str
    statement: str
    rigor: str          # as in the catalogue: "exact", "certified + exact", "evidence", ...
    source: str         # its background in the docs, e.g. "docs/paper1.md R4, O2"
    slug: str           # module-name suffix

    @property
    def paper(self) -> str:
        return "maxout" if self.id.startswith("T") else "lse"

    @property
    def check_module(self) -> str:
        return f"verify.checks.{self.id.lower()}_{self.slug}"

    @property
    def audit_module(self) -> str:
        return f"verify.proofs.{self.paper}.{self.id.lower()}_{self.slug}"


def _c(id, title, statement, rigor, source, slug):
    return Claim(id, title, statement, rigor, source, slug)


_ALL = [
    _c("T1", "hardmax head computes max",
       "A hardmax head whose value equals its score writes max_l z_l into every token, for all n >= 1 and "
       "rational z, under both tie rules.", "exact", "docs/paper1.md R1, O1", "hardmax_max"),
    _c("T2", "sharp softmax bound",
       "0 <= max s - <softmax(lambda s), s> <= W0((n-1)/e)/lambda, attained at s*; n = 2 closed form; "
       "ln(n)/lambda and (n-1)/(e lambda) are weaker bounds; the gap bound (n-1)e^(-lambda delta).",
       "certified, exact, evidence", "docs/paper1.md R2", "softmax_bound"),
    _c("T3", "one-hot gate identity",
       "ReLU(u - S(1-p)) - ReLU(-u - S(1-p)) = p u for p in {0, 1} and |u| <= S.", "exact", "docs/paper1.md R3",
       "onehot_gate"),
    _c("T4", "token-shift slabs disjoint at every layer",
       "In the scalar-shift network the token slabs [a_l + j Delta_l, b_l + j Delta_l] are pairwise disjoint at "
       "every layer over the whole domain, and the network is then exact.", "exact / certified",
       "docs/paper1.md R3s, O5", "token_shift"),
    _c("T5", "score-shift group isolation",
       "With |z| <= C and score M[g_l = i] + z_l, M > 2C makes hardmax return the group maximum under both tie "
       "rules.", "exact", "docs/paper1.md R4', O7", "group_isolation"),
    _c("T6", "exact maxout emulation on a box",
       "The compiled hardmax Transformer equals the maxout network at every point of the box, under both tie "
       "rules, with the stated sizes.", "exact", "docs/paper1.md R4, O2", "maxout_emulation"),
    _c("T7", "softmax emulation error bound",
       "sup_K |T_lambda - Phi| <= (W0((k-1)/e)/lambda) sum_l prod_{m>l} Lip_m.", "certified (+ evidence)",
       "docs/paper1.md R5, O3", "softmax_emulation"),
    _c("T8", "ReLU -> rank-2 maxout -> 2-token Transformer",
       "A ReLU network written as rank-2 maxout and compiled by R4 is reproduced exactly with n = 2 tokens.",
       "exact", "docs/paper1.md R6", "relu_emulation"),
    _c("T9", "CPWL -> Transformer",
       "A difference-of-convex or 1-D breakpoint CPWL function is computed exactly by one FFN and one 2-head "
       "attention layer (padding by repetition).", "exact", "docs/paper1.md R8, O8", "cpwl_emulation"),
    _c("T10", "linear regions grow exponentially with depth",
       "Exact region counts: tent 2^L, zigzag q^L, and >= q^(floor(D/3)-1) under the configured depth "
       "convention.", "exact", "docs/paper1.md R7, O4, O6", "linear_regions"),
    _c("T11", "permutation equivariance",
       "Without positional information T(X Pi) = T(X) Pi for softmax and hardmax-average attention.",
       "exact (+ evidence)", "docs/paper1.md R9", "permutation_equivariance"),
    _c("N1", "CGF closed forms and derivatives",
       "The closed-form CGFs, gradients and Hessians of the families equal log E e^<theta,Y> and its derivatives.",
       "exact + evidence", "docs/paper2.md §2, §6", "cgf_closed_forms"),
    _c("N2", "attention = V grad Lambda_mu(A x)",
       "Gamma_(Q,K,V)[mu](x) = V grad Lambda_mu(K^T Q x), with the derivative table of docs/paper2.md §3.",
       "exact (+ evidence)", "docs/paper2.md §3", "attention_gradient"),
    _c("N3", "three-way independence decision",
       "PROVED only with a certified full-rank certificate, REFUTED only with a verified exact relation, else "
       "INCONCLUSIVE.", "certified + exact", "docs/paper2.md §5", "decision_procedure"),
    _c("N4", "cubes, Laplace, mixtures, Gaussians",
       "Distinct radii / covariances / separations give independence modulo affine functions; equal ones, and "
       "Gaussians with dependent covariances, give dependence.", "certified + exact", "docs/paper2.md §6.2-§6.6",
       "continuous_families"),
    _c("N5", "discrete laws",
       "S1 or S2 imply independence; Diracs, translates and convolutions give dependence; the lattice criterion "
       "decides rational discrete laws.", "exact + certified", "docs/paper2.md §6.1", "discrete_laws"),
    _c("N6", "a.s. independence of i.i.d. samples",
       "Empirical laws of i.i.d. absolutely continuous samples (n_i >= 2) are independent modulo affine "
       "functions almost surely.", "certified per trial, evidence overall", "docs/paper2.md §6.1", "iid_samples"),
    _c("N7", "NTK V-block Gram PD iff independence",
       "The V-block NTK Gram with shared queries is PD iff the CGFs are independent modulo constants (m = 1) / "
       "affine functions (m >= 2).", "certified + exact", "docs/paper2.md §9", "ntk_gram"),
    _c("N8", "particle model -> mean-field flow",
       "Terminal tokens of the L-layer, H-head particle model converge to the mean-field flow: O(1/L) and "
       "O(H^(-1/2)).", "evidence", "docs/paper2.md §7", "mean_field_limit"),
    _c("N9", "adjoint gradient = finite differences",
       "The adjoint-ODE gradient of the loss equals central finite differences.", "evidence", "docs/paper2.md §8",
       "adjoint_gradient"),
    _c("N10", "PL decay of the loss",
       "With PD NTK at initialisation and small loss, L(t) <= exp(-2 int lambda_min) L(0) and "
       "L(t) <= e^(-2 lambda t) L(0).", "evidence (+ exact negative)", "docs/paper2.md §10", "gradient_flow"),
]

CLAIMS = {c.id: c for c in _ALL}


def claim_ids() -> list:
    """All IDs in catalogue order."""
    return [c.id for c in _ALL]


def get_claim(claim_id: str) -> Claim:
    """Look up a claim by ID (a suffix such as ``T6.n2`` resolves to ``T6``)."""
    if not isinstance(claim_id, str):
        raise TypeError(f"claim: must be a string, got {type(claim_id).__name__}")
    base = claim_id.split(".", 1)[0].upper()
    if base not in CLAIMS:
        raise ValueError(f"claim: unknown ID {claim_id!r}; known: {', '.join(claim_ids())}")
    return CLAIMS[base]
