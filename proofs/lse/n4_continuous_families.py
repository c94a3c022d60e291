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


# -- f. the exact exponent lattice on mixed families (docs/independence.md, "The exponent lattice for rational
# families"): every example below has rational frequencies and is decided exactly, in either direction.
from verify.decide.independence import check_relation, independent_mod_affine  # noqa: E402


def _cube(r, c):
    return {"family": "uniform_cube", "radius": r, "center": c}


def _pts(*atoms):
    return {"family": "discrete", "atoms": [list(a) for a in atoms]}


def _lattice(name, expected, dists, modulo="affine", description=""):
    return Audit("N4", f"f-lattice-{name}", expected, independent_mod_affine,
                 {"dists": dists, "modulo": modulo, "claim": "N4", "label": f"f-lattice-{name}"},
                 description=description)


def _mix(a, u, S, c=None):
    return {"family": "gaussian_mixture", "separation": a, "direction": u, "cov": S,
            **({"center": c} if c is not None else {})}


def _gauss(S, m=None):
    return {"family": "gaussian", "cov": S, **({"mean": m} if m is not None else {})}


AUDITS += [
    _lattice("sinh-double-1d", R, [_cube("1/2", ["1/3"]), _cube("1/4", ["-2"]), _pts(["3/4"], ["5/4"])],
             description="sinh(2x)/(2x) = sinh(x)/x cosh(x), translated: cube(2r), cube(r), {c -+ r}"),
    _lattice("sinh-double-1d-constants", P, [_cube("1/2", ["1/3"]), _cube("1/4", ["-2"]), _pts(["3/4"], ["5/4"])],
             "constants", description="the same laws modulo constants: the relation has a != 0"),
    _lattice("sinh-double-1d-untranslated-constants", R,
             [_cube("1/2", [0]), _cube("1/4", [0]), _pts(["-1/4"], ["1/4"])], "constants"),
    _lattice("sinh-quadruple-1d", R, [_cube(4, [0]), _cube(1, [0]), _pts([-3], [-1], [1], [3])],
             description="cube(4r), cube(r), the uniform law on {+-r, +-3r}"),
    _lattice("sinh-double-2d", R, [_cube(2, [1, 0]), _cube(1, [0, "1/2"]), _pts([-1, -1], [-1, 1], [1, -1], [1, 1])],
             description="2-D cube(2r), cube(r), the uniform law on {(+-r, +-r)}, translated"),
    _lattice("mixture-gaussian-two-point", R, [_mix(5, [3, 4], [[2, 1], [1, 3]]), _gauss([[2, 1], [1, 3]]),
                                               _pts([-3, -4], [3, 4])],
             description="mixture(a, u, S), gaussian(S), {+- a u} (a u = (3, 4))"),
    _lattice("mixture-gaussian-two-point-translated", R, [_mix(5, [3, 4], [[2, 1], [1, 3]], [1, 2]),
                                                          _gauss([[2, 1], [1, 3]], ["1/2", 0]), _pts([7, 1], [13, 9])]),
    _lattice("mixture-any-gaussian-two-point-1d", R, [_mix("3/2", [1], [[5]], ["1/3"]), _gauss([["7/2"]]),
                                                      _pts(["-3/2"], ["3/2"])],
             description="d = 1: mixture - two-point is a quadratic, a multiple of any Gaussian CGF"),
    _lattice("cubes-equal-mixture-minus-gaussian", R,
             [_cube(2, [0]), _cube(1, [0]), _mix(1, [1], [[3]]), _gauss([[3]])],
             description="cube(2r) - cube(r) = mixture(r, s^2) - gaussian(s^2)"),
    _lattice("dirac-and-cube", R, [_pts([3]), _cube(1, [0])], description="a Dirac's CGF is affine"),
    _lattice("control-wrong-two-point", P, [_cube("1/2", ["1/3"]), _cube("1/4", ["-2"]), _pts(["3/4"], ["4/3"])],
             description="control: {c -+ r'} with r' != r"),
    _lattice("control-perturbed-radius", P, [_cube("1/2", [0]), _cube("1/4", [0]),
                                             _pts(["-25000000000000000000001/100000000000000000000000"],
                                                  ["25000000000000000000001/100000000000000000000000"])],
             description="control: the two-point law moved by 1e-20 (exact; beyond the lattice's exponent span, "
                         "decided by the ball design)"),
    _lattice("control-mixture-wrong-separation", P, [_mix(5, [3, 4], [[2, 1], [1, 3]]), _gauss([[2, 1], [1, 3]]),
                                                     _pts([-6, -8], [6, 8])]),
    _lattice("control-laplace-cube-gaussian", P,
             [{"family": "laplace", "cov": [[2]]}, {"family": "laplace", "cov": [[1]]}, _cube(1, [0]), _gauss([[1]]),
              _pts([0], [1])]),
    Audit("N4", "f-relation-sinh-double-holds", P, check_relation,
          {"dists": [_cube(2, [1]), _cube(1, [0]), _pts([-1], [1])], "c": [2, -2, -2], "claim": "N4"},
          description="check_relation confirms the cube relation with c = (2, -2, -2): a = 2, C = 1"),
    Audit("N4", "f-relation-gaussians-without-a", P, check_relation,
          {"dists": [_gauss([[1]], [1]), _gauss([[2]])], "c": [2, -1], "claim": "N4"}),
]
