"""Audits of N4 (cubes, Laplace, mixtures, Gaussians, dilations; docs/paper2.md §6.2-§6.6)."""

from verify.audit.spec import Audit
from verify.checks.n4_continuous_families import (check_continuous_family, check_dilation_lemma, check_random_families,
                                                  check_series_vandermonde)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED



def _case(name, expected, **kw):
    """The oracle case named at the end of ``name`` (docs/paper2.md §6.7) through the decision procedure."""
    return Audit("N4", name, expected, check_continuous_family, {"case": name.rsplit("-", 1)[1]}, **kw)


def _section(letter, kind, cases):
    """Section ``letter`` of docs/paper2.md §6: its oracle cases, then the seeded random families of ``kind`` with
    distinct parameters (PROVED independent) and with two equal ones (REFUTED with a relation)."""
    return [_case(f"{letter}-{name}", expected) for name, expected in cases] + [
        Audit("N4", f"{letter}-random-{kind}-{which}", expected, check_random_families,
              {"kind": kind, "trials": trials, "distinct": which == "distinct"})
        for which, expected, trials in (("distinct", P, 12), ("equal", R, 8))]


AUDITS = [
    *_section("a", "cubes", [("cubes-distinct-radii-F8", P), ("cubes-translate-F9", R), ("cubes-equal-radii-F10", R)]),
    *_section("b", "laplace", [("laplace-F15", P), ("laplace-1d-F16", P), ("laplace-translate-F17", R),
                               ("laplace-8-covariances-F18", P)]),
    *_section("c", "mixtures", [("mixtures-F19", P), ("mixtures-m-and-minus-m-F20", R), ("mixtures-directions-F21", P),
                                ("mixtures-F22", P), ("mixtures-plus-gaussian-F23", P)]),
    *[_case(name, expected, quick=name in ("d-gaussians-1d-F11", "d-gaussians-1d-constants-F11c"))
      for name, expected in (
        ("d-gaussians-F12", P), ("d-gaussians-F13", R), ("d-gaussians-1d-F11", R), ("d-gaussians-1d-constants-F11c", P),
        ("d-gaussians-6-in-3d-F18g6", P), ("e-dilations-beta-F24", P), ("e-dilations-gaussian-F24g", R))],
    Audit("N4", "e-dilations-cube", P, check_dilation_lemma, {"kind": "cube"}),
    Audit("N4", "e-dilations-laplace", P, check_dilation_lemma, {"kind": "laplace", "lams": ("1", "3/2", "2")},
          description="Sigma_i = lam_i^2 Sigma"),
    Audit("N4", "e-dilations-two-point", P, check_dilation_lemma, {"kind": "two-point"}),
    Audit("N4", "e-dilations-mixture", P, check_dilation_lemma, {"kind": "mixture"}),
    Audit("N4", "e-dilations-gaussian-three", R, check_dilation_lemma, {"kind": "gaussian", "lams": ("1", "3/2", "2")}),
    Audit("N4", "series-bernoulli-vandermonde", P, check_series_vandermonde, {"K": 6}),
    _case("n1-gaussians-distinct-covariances-F14", R,
          description="S1, S2, S3 pairwise distinct, yet Lambda1 + Lambda2 - 2 Lambda3 = 0"),
    _case("n1-laplace-same-covariances-F15", P),
    _case("n2-eight-gaussians-3d-F18g", R, description="8 > 6 = dim Sym_3: an exact kernel vector of the covariances"),
]
