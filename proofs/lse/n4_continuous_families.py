"""Audits of N4 (cubes, Laplace, mixtures, Gaussians, dilations; spec lse.md 6.2-6.6)."""

from verify.audit.spec import Audit
from verify.checks.n4_continuous_families import (check_continuous_family, check_dilation_lemma, check_random_families,
                                                  check_series_vandermonde)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("N4", "a-cubes-distinct-radii-F8", P, check_continuous_family, {"case": "F8"}),
    Audit("N4", "a-cubes-translate-F9", R, check_continuous_family, {"case": "F9"}),
    Audit("N4", "a-cubes-equal-radii-F10", R, check_continuous_family, {"case": "F10"}),
    Audit("N4", "a-random-cubes-distinct", P, check_random_families, {"kind": "cubes", "trials": 12, "distinct": True}),
    Audit("N4", "a-random-cubes-equal", R, check_random_families, {"kind": "cubes", "trials": 8, "distinct": False}),
    Audit("N4", "b-laplace-F15", P, check_continuous_family, {"case": "F15"}),
    Audit("N4", "b-laplace-1d-F16", P, check_continuous_family, {"case": "F16"}),
    Audit("N4", "b-laplace-translate-F17", R, check_continuous_family, {"case": "F17"}),
    Audit("N4", "b-laplace-8-covariances-F18", P, check_continuous_family, {"case": "F18"}),
    Audit("N4", "b-random-laplace-distinct", P, check_random_families, {"kind": "laplace", "trials": 12, "distinct": True}),
    Audit("N4", "b-random-laplace-equal", R, check_random_families, {"kind": "laplace", "trials": 8, "distinct": False}),
    Audit("N4", "c-mixtures-F19", P, check_continuous_family, {"case": "F19"}),
    Audit("N4", "c-mixtures-m-and-minus-m-F20", R, check_continuous_family, {"case": "F20"}),
    Audit("N4", "c-mixtures-directions-F21", P, check_continuous_family, {"case": "F21"}),
    Audit("N4", "c-mixtures-F22", P, check_continuous_family, {"case": "F22"}),
    Audit("N4", "c-mixtures-plus-gaussian-F23", P, check_continuous_family, {"case": "F23"}),
    Audit("N4", "c-random-mixtures-distinct", P, check_random_families, {"kind": "mixtures", "trials": 12, "distinct": True}),
    Audit("N4", "c-random-mixtures-equal", R, check_random_families, {"kind": "mixtures", "trials": 8, "distinct": False}),
    Audit("N4", "d-gaussians-F12", P, check_continuous_family, {"case": "F12"}),
    Audit("N4", "d-gaussians-F13", R, check_continuous_family, {"case": "F13"}),
    Audit("N4", "d-gaussians-1d-F11", R, check_continuous_family, {"case": "F11"}),
    Audit("N4", "d-gaussians-1d-constants-F11c", P, check_continuous_family, {"case": "F11c"}),
    Audit("N4", "d-gaussians-6-in-3d-F18g6", P, check_continuous_family, {"case": "F18g6"}),
    Audit("N4", "e-dilations-beta-F24", P, check_continuous_family, {"case": "F24"}),
    Audit("N4", "e-dilations-gaussian-F24g", R, check_continuous_family, {"case": "F24g"}),
    Audit("N4", "e-dilations-cube", P, check_dilation_lemma, {"kind": "cube"}),
    Audit("N4", "e-dilations-laplace", P, check_dilation_lemma, {"kind": "laplace", "lams": ("1", "3/2", "2")},
          description="Sigma_i = lam_i^2 Sigma"),
    Audit("N4", "e-dilations-two-point", P, check_dilation_lemma, {"kind": "two-point"}),
    Audit("N4", "e-dilations-mixture", P, check_dilation_lemma, {"kind": "mixture"}),
    Audit("N4", "e-dilations-gaussian-three", R, check_dilation_lemma, {"kind": "gaussian", "lams": ("1", "3/2", "2")}),
    Audit("N4", "series-bernoulli-vandermonde", P, check_series_vandermonde, {"K": 6}),
    Audit("N4", "n1-gaussians-distinct-covariances-F14", R, check_continuous_family, {"case": "F14"},
          description="S1, S2, S3 pairwise distinct, yet Lambda1 + Lambda2 - 2 Lambda3 = 0"),
    Audit("N4", "n1-laplace-same-covariances-F15", P, check_continuous_family, {"case": "F15"}),
    Audit("N4", "n2-eight-gaussians-3d-F18g", R, check_continuous_family, {"case": "F18g"},
          description="8 > 6 = dim Sym_3: an exact kernel vector of the covariances"),
]
