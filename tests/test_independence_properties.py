"""Property tests of the independence decision procedure over exact rationals (docs/independence.md).

Families with KNOWN truth in d <= 3, drawn by hypothesis from exact parameters:

* dependent, by construction: convolutions (Lambda_{mu * nu} = Lambda_mu + Lambda_nu), translates
  (Lambda_{mu + c} = Lambda_mu + <c, theta>), the doubling identity sinh(2x)/(2x) = sinh(x)/x cosh(x)
  (cube(2r), cube(r), the uniform law on {-r, r}^d), mixture - Gaussian - two-point
  (log cosh(a <u, theta>) on both sides), Gaussians with proportional covariances, Dirac laws;
* independent controls: the laws {0, k v} for distinct k (their MGF polynomials 1 + z^k share no
  primitive cyclotomic factor), Gaussians whose covariances are linearly independent (checked exactly
  here), uniform cubes of distinct radii;
* perturbations by 10^-20 of dependent families whose perturbed truth is known (independent): the doubling
  identity with radius 2r + 10^-20, the two-point law at a + 10^-20, a Gaussian covariance 2 Sigma + 10^-20 E.

Every example asserts 0 false verdicts (dependent never PROVED, independent never REFUTED); the verdicts are
collected and the last test bounds the INCONCLUSIVE rate on these rational families.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from verify.decide.independence import independent_mod_affine
from verify.errors import InputError
from verify.laws import Discrete, Gaussian, GaussianMixture, UniformCube
from verify.strategies import laws as any_law, points, rationals

EPS = F(1, 10 ** 20)
VERDICTS: list = []          # (kind, truth, verdict) of every example, for the rate test at the end
SETTINGS = dict(deadline=None, derandomize=True, database=None)


def decide(laws, truth: str, kind: str, modulo: str = "affine"):
    try:
        r = independent_mod_affine(laws, modulo=modulo)
    except InputError as exc:
        # a valid family refused is no verdict, and no false one: it counts as undecided in the rate
        assert "polynomial identity" in str(exc), exc
        VERDICTS.append((kind, truth, "inconclusive"))
        return None
    v = r.verdict.value
    VERDICTS.append((kind, truth, v))
    if truth == "dependent":
        assert v != "proved", f"{kind}: a dependent family was PROVED independent: {r.certificate}"
    else:
        assert v != "refuted", f"{kind}: an independent family was REFUTED: {r.certificate}"
    return r


# -- generators -------------------------------------------------------------------------------------------

def _uniform(atoms):
    return Discrete([list(a) for a in atoms])


@st.composite
def discrete_laws(draw, d, max_atoms=3):
    atoms = draw(st.lists(st.tuples(*[rationals(-2, 2, max_denominator=2)] * d), min_size=2, max_size=max_atoms,
                          unique=True))
    raw = [draw(st.integers(1, 4)) for _ in atoms]
    return Discrete([list(a) for a in atoms], [F(x, sum(raw)) for x in raw])


def convolve(mu, nu):
    out: dict = {}
    for a, w in zip(mu.atoms, mu.weights):
        for b, v in zip(nu.atoms, nu.weights):
            k = tuple(x + y for x, y in zip(a, b))
            out[k] = out.get(k, F(0)) + w * v
    keys = sorted(out)
    return Discrete([list(k) for k in keys], [out[k] for k in keys])


def spd(draw, d):
    off = [[F(0)] * d for _ in range(d)]
    for i in range(d):
        for j in range(i + 1, d):
            off[i][j] = off[j][i] = draw(rationals(-1, 1, max_denominator=2))
    return [[off[i][j] if i != j else sum(abs(v) for v in off[i]) + draw(rationals("1/2", 2, max_denominator=2))
             for j in range(d)] for i in range(d)]


DIMS = st.integers(1, 3)


# -- dependent families -------------------------------------------------------------------------------------

@settings(max_examples=6, **SETTINGS)
@given(st.data())
def test_convolution_is_dependent(data):
    d = data.draw(st.integers(1, 2))
    mu, nu = data.draw(discrete_laws(d)), data.draw(discrete_laws(d))
    extra = data.draw(st.lists(discrete_laws(d), max_size=1))
    modulo = data.draw(st.sampled_from(["affine", "constants"]))
    decide([mu, nu, convolve(mu, nu)] + extra, "dependent", "convolution", modulo)


@settings(max_examples=6, **SETTINGS)
@given(DIMS.flatmap(lambda d: st.tuples(any_law(None, d, max_atoms=3), points(d, -2, 2))))
def test_translate_is_dependent(pair):
    law, c = pair
    decide([law, law.translated(list(c))], "dependent", "translate")


@settings(max_examples=5, **SETTINGS)
@given(st.data())
def test_doubling_identity_is_dependent(data):
    d = data.draw(st.integers(1, 2))
    r = data.draw(rationals("1/4", 2, max_denominator=4))
    c1, c2, c3 = (list(data.draw(points(d, -1, 1))) for _ in range(3))
    signs = [[]]
    for _ in range(d):
        signs = [s + [e] for s in signs for e in (1, -1)]
    two = _uniform([tuple(x + e * r for x, e in zip(c3, s)) for s in signs])
    decide([UniformCube(2 * r, c1), UniformCube(r, c2), two], "dependent", "doubling")


def _mixture_family(data, d, a_shift=F(0)):
    a = data.draw(rationals("1/2", 2, max_denominator=4))
    j = data.draw(st.integers(0, d - 1))
    u = [F(int(k == j)) for k in range(d)]
    cov = spd(data.draw, d)
    c, m, c3 = (list(data.draw(points(d, -1, 1))) for _ in range(3))
    b = a + a_shift
    two = _uniform([tuple(x + s * b * y for x, y in zip(c3, u)) for s in (1, -1)])
    return [GaussianMixture(a, u, cov, c), Gaussian(cov, m), two]


@settings(max_examples=5, **SETTINGS)
@given(st.data())
def test_mixture_gaussian_two_point_is_dependent(data):
    decide(_mixture_family(data, data.draw(DIMS)), "dependent", "mixture")


@settings(max_examples=5, **SETTINGS)
@given(st.data())
def test_dirac_and_proportional_gaussians_are_dependent(data):
    d = data.draw(DIMS)
    k = data.draw(st.sampled_from([2, 3, F(1, 2)]))
    cov = spd(data.draw, d)
    g = [Gaussian(cov, list(data.draw(points(d)))), Gaussian([[k * x for x in row] for row in cov],
                                                              list(data.draw(points(d))))]
    dirac = Discrete([list(data.draw(points(d)))])
    other = data.draw(any_law(None, d, max_atoms=3))
    fam = data.draw(st.sampled_from(["gaussians", "dirac"]))
    decide(g if fam == "gaussians" else [other, dirac], "dependent", fam)


# -- independent controls -----------------------------------------------------------------------------------

@settings(max_examples=6, **SETTINGS)
@given(st.data())
def test_cyclotomic_two_point_laws_are_independent(data):
    d = data.draw(DIMS)
    ks = data.draw(st.lists(st.integers(1, 12), min_size=2, max_size=6, unique=True))
    v = data.draw(points(d, -2, 2).filter(any))
    laws = [Discrete([[0] * d, [k * x for x in v]]) for k in ks]
    decide(laws, "independent", "cyclotomic", data.draw(st.sampled_from(["affine", "constants"])))


def _rank(rows):
    return sympy.Matrix(rows).rank()


@settings(max_examples=5, **SETTINGS)
@given(st.data())
def test_gaussians_with_independent_covariances(data):
    d = data.draw(st.integers(2, 3))
    n = data.draw(st.integers(2, d * (d + 1) // 2))
    covs = [spd(data.draw, d) for _ in range(n)]
    vecs = [[S[a][b] for a in range(d) for b in range(a, d)] for S in covs]
    truth = "independent" if _rank(vecs) == n else "dependent"
    decide([Gaussian(S, list(data.draw(points(d)))) for S in covs], truth, "gaussians")


@settings(max_examples=4, **SETTINGS)
@given(st.data())
def test_cubes_of_distinct_radii_are_independent(data):
    d = data.draw(st.integers(1, 2))
    radii = data.draw(st.lists(rationals("1/4", 3, max_denominator=4), min_size=2, max_size=4, unique=True))
    decide([UniformCube(r, list(data.draw(points(d, -1, 1)))) for r in radii], "independent", "cubes")


# -- perturbations by 1e-20 (truth: independent) --------------------------------------------------------------

@settings(max_examples=4, **SETTINGS)
@given(st.data())
def test_perturbed_dependent_families_never_refuted(data):
    kind = data.draw(st.sampled_from(["doubling", "mixture", "gaussians"]))
    d = data.draw(st.integers(1, 2))
    if kind == "doubling":
        r = data.draw(rationals("1/4", 2, max_denominator=4))
        laws = [UniformCube(2 * r + EPS), UniformCube(r), _uniform([(r,) * d, (-r,) * d])] if d == 1 else \
            [UniformCube(2 * r + EPS, [0] * d), UniformCube(r, [0] * d),
             _uniform([(x, y) for x in (r, -r) for y in (r, -r)])]
    elif kind == "mixture":
        laws = _mixture_family(data, d, a_shift=EPS)
    else:
        d = 2
        cov = spd(data.draw, d)
        bumped = [[2 * x + (EPS if (i, j) == (0, 0) else 0) for j, x in enumerate(row)] for i, row in enumerate(cov)]
        laws = [Gaussian(cov), Gaussian(bumped)]
    decide(laws, "independent", "perturbed-" + kind)


# -- the rate (runs last: it reads the verdicts collected above) ---------------------------------------------

@pytest.mark.xfail(strict=False, reason="the exact exponent-lattice procedure for mixed rational families "
                                        "(verify/decide/exponent_lattice.py) is not on this branch yet")
def test_inconclusive_rate_on_rational_families():
    if len(VERDICTS) < 20:
        pytest.skip("run with the property tests above (they collect the verdicts)")
    undecided = [(k, t) for k, t, v in VERDICTS if v == "inconclusive"]
    rate = len(undecided) / len(VERDICTS)
    print(f"\nINCONCLUSIVE {len(undecided)}/{len(VERDICTS)} = {rate:.1%}: {sorted(set(k for k, _ in undecided))}")
    assert rate <= 0.01, f"INCONCLUSIVE {len(undecided)}/{len(VERDICTS)} = {rate:.1%} > 1%: {undecided}"
