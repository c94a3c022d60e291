"""N3: the three-way decision procedure is sound and decides the oracle families F1-F24 (docs/paper2.md §5.3, §6.7).

* :func:`check_oracle_family` -- run :func:`verify.decide.independence.independent_mod_affine` on an oracle
  case (:func:`verify.decide.oracle_cases.decide_oracle_case`); for a dependent case the relation stated by
  the table of docs/paper2.md §6.7 is re-verified exactly as well (if it does not verify, the Result is
  INCONCLUSIVE and says so).
* :func:`check_no_overclaiming` -- N3.n1: 5 dilations of beta on the 25-point grid of half-width h; at double
  precision (ladder ``(53,)``) the verdict must be INCONCLUSIVE, at >= 60 digits PROVED.
* :func:`check_perturbed_relation` -- N3.n2: the relation (1, 0, -2, 1 + eps) on F5 must fail.

>>> check_oracle_family("F2").verdict.value
'proved'
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.ball import LADDER
from ..arith.exact import parse_exact
from ..errors import InputError
from ..laws.oracle_families import beta_dilations, dilation_grid, oracle_case
from ..results import Result
from ..decide.independence import check_relation, independent_mod_affine
from ..decide.oracle_cases import decide_oracle_case

__all__ = ["check_oracle_family", "check_no_overclaiming", "check_perturbed_relation", "N3N1_LAMBDAS"]

N3N1_LAMBDAS = (Fraction(1), Fraction(6, 5), Fraction(7, 5), Fraction(8, 5), Fraction(9, 5))


def check_oracle_family(case: str, claim: str = "N3", seed: int = 0, ladder=LADDER, modulo=None) -> Result:
    """Decide the oracle case ``case`` (``F1`` .. ``F25``, variants ``F11c``, ``F18g`` ...) with
    :func:`verify.decide.oracle_cases.decide_oracle_case`; ``modulo`` overrides the case's reading (the table
    relation is then not checked)."""
    return decide_oracle_case(case, claim=claim, seed=seed, ladder=ladder, modulo=modulo)


def check_no_overclaiming(h="1/128", ladder=LADDER, claim: str = "N3.n1") -> Result:
    """N3.n1: the 5 dilations lambda = 1, 6/5, 7/5, 8/5, 9/5 of beta, design matrix on {-h,-h/2,0,h/2,h}^2."""
    h = parse_exact(h, "h")
    if not 0 < h <= 1:
        raise InputError("h", "must be in (0, 1]")
    laws = beta_dilations(N3N1_LAMBDAS)
    return independent_mod_affine(laws, "affine", claim=claim, points=dilation_grid(h), ladder=ladder, search=False,
                                  label=f"5 dilations of beta on the 25-point grid of half-width {h}")


def check_perturbed_relation(eps="1e-20", claim: str = "N3.n2") -> Result:
    """N3.n2: is Lambda_1 - 2 Lambda_3 + (1 + eps) Lambda_4 affine for the Poisson-binomial laws F5?
    REFUTED (certified non-zero Hessian) for eps != 0; PROVED (exact identity) for eps = 0."""
    eps = parse_exact(eps, "eps")
    return check_relation(oracle_case("F5").laws, (1, 0, -2, 1 + eps), a=(0,), C=1, claim=claim)
