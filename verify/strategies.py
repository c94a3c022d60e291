"""Hypothesis strategies for the toolkit's exact objects: rationals, points, boxes, maxout networks, token laws.

Every number drawn is an exact :class:`fractions.Fraction` (never a float), so a property test drives the
exact code paths of the package and a failing example is an exact, reproducible input.  The strategies are
the ones the toolkit's own test suite uses (docs/strategies.md):

* :func:`rationals` -- Fractions in ``[min_value, max_value]`` with denominators ``<= max_denominator``;
* :func:`points` -- tuples of ``dim`` such rationals;
* :func:`boxes` -- boxes ``[[lo, hi], ...]`` (``lo < hi``, or ``lo <= hi`` with ``degenerate=True``), the box
  format of :func:`verify.arith.exact.parse_box`;
* :func:`maxout_networks` -- :class:`verify.objects.maxout.MaxoutNetwork` of bounded input dimension, rank,
  depth and widths with rational weights;
* :func:`laws` -- a law of one of the five families of :mod:`verify.laws.models` (or of any of them);
* :func:`planted_families` -- families of laws whose independence modulo affine functions is **known**
  (relations planted by convolution, translation, the doubling identity, mixture - Gaussian - two-point,
  proportional Gaussians, Diracs; independent controls; perturbations by 10^-20), for testing a decision
  procedure: a verdict against ``truth`` is a false verdict.

hypothesis is not a dependency of the package: it is imported when a strategy is built, and a missing
hypothesis raises :class:`ImportError` saying how to install it.  Sizes are ranges: an ``int`` fixes the
size, a pair ``(lo, hi)`` draws it uniformly from ``lo..hi``.

>>> from hypothesis import given, settings
>>> @settings(max_examples=10, database=None, derandomize=True)
... @given(maxout_networks(input_dim=1), rationals(-1, 1))
... def test_evaluation_is_exact(net, x):
...     assert net.evaluate([x]) == net.evaluate([str(x)])
>>> test_evaluation_is_exact()
"""

from __future__ import annotations

from fractions import Fraction

from .arith.exact import parse_exact
from .errors import InputError, InputTypeError

__all__ = ["rationals", "points", "boxes", "maxout_networks", "laws", "planted_families", "PLANTED_KINDS",
           "PlantedFamily"]

MAX_STRATEGY_DIM = 16         # dimension of points, boxes and laws (the laws' own limit)
MAX_STRATEGY_DENOMINATOR = 10**6


def _st():
    """``hypothesis.strategies``, or an ImportError that says how to get it."""
    try:
        from hypothesis import strategies as st
    except ImportError as exc:
        raise ImportError("verify.strategies needs hypothesis, which is not installed: pip install hypothesis "
                          "(it comes with the package's 'test' extra)", name="hypothesis") from exc
    return st


def _bounds(min_value, max_value):
    lo = parse_exact(min_value, "min_value")
    hi = parse_exact(max_value, "max_value")
    if lo > hi:
        raise InputError("max_value", f"must be >= min_value = {lo}, got {hi}")
    return lo, hi


def _denominator(max_denominator):
    if isinstance(max_denominator, bool) or not isinstance(max_denominator, int) or not (
            1 <= max_denominator <= MAX_STRATEGY_DENOMINATOR):
        raise InputError("max_denominator", f"must be an integer in [1, {MAX_STRATEGY_DENOMINATOR}], "
                                            f"got {max_denominator!r}")
    return max_denominator


def _size_range(value, field: str, lo: int, hi: int) -> tuple:
    """``value`` as an inclusive range (a, b) inside [lo, hi]: an int n gives (n, n)."""
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    if (not isinstance(pair, (tuple, list)) or len(pair) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in pair)):
        raise InputTypeError(field, f"expected an integer or a pair (lo, hi) of integers, got {value!r}")
    a, b = pair
    if not lo <= a <= b <= hi:
        raise InputError(field, f"must lie in [{lo}, {hi}] with lo <= hi, got {value!r}")
    return a, b


def _draw_size(draw, st, rng):
    a, b = rng
    return a if a == b else draw(st.integers(a, b))


def rationals(min_value=-2, max_value=2, *, max_denominator: int = 4):
    """Fractions q with ``min_value <= q <= max_value`` and denominator ``<= max_denominator`` (bounds are
    exact numbers: ints, Fractions, ``"p/q"`` or decimal strings)."""
    lo, hi = _bounds(min_value, max_value)
    return _st().fractions(min_value=lo, max_value=hi, max_denominator=_denominator(max_denominator))


def points(dim, min_value=-2, max_value=2, *, max_denominator: int = 4):
    """Tuples of ``dim`` rationals (:func:`rationals`); ``dim`` an int or a pair (lo, hi)."""
    rng = _size_range(dim, "dim", 1, MAX_STRATEGY_DIM)
    q = rationals(min_value, max_value, max_denominator=max_denominator)
    st = _st()
    if rng[0] == rng[1]:
        return st.tuples(*[q] * rng[0])
    return st.integers(*rng).flatmap(lambda n: st.tuples(*[q] * n))


def boxes(dim=1, min_value=-2, max_value=2, *, max_denominator: int = 4, degenerate: bool = False):
    """Boxes ``[[lo, hi], ...]`` of ``dim`` intervals inside [min_value, max_value], ``lo < hi`` in every
    coordinate (``lo <= hi`` with ``degenerate=True``); accepted by :func:`verify.arith.exact.parse_box`."""
    rng = _size_range(dim, "dim", 1, MAX_STRATEGY_DIM)
    lo, hi = _bounds(min_value, max_value)
    if lo == hi and not degenerate:
        raise InputError("max_value", "must be > min_value for boxes with lo < hi (or pass degenerate=True)")
    q = rationals(lo, hi, max_denominator=max_denominator)
    st = _st()

    def interval(draw):
        a = draw(q)
        b = draw(q if degenerate else q.filter(lambda v: v != a))
        return [min(a, b), max(a, b)]

    @st.composite
    def build(draw):
        return [interval(draw) for _ in range(_draw_size(draw, st, rng))]

    return build()


def maxout_networks(input_dim=1, *, rank=(2, 3), depth=(1, 2), width=(1, 2), weights=None,
                    readout: bool = False):
    """:class:`~verify.objects.maxout.MaxoutNetwork` with the given input dimension, rank k, depth L and
    layer widths (each an int or a pair (lo, hi)); ``weights`` is the strategy of every weight and bias
    (default :func:`rationals` in [-2, 2] with denominators <= 4); ``readout=True`` adds an affine read-out
    with one output.  The draws are: input dimension, k, L, then per layer its width, weights and biases."""
    from .objects.maxout import MAX_DEPTH, MAX_INPUT_DIM, MAX_RANK, MAX_WIDTH, MaxoutNetwork

    d_rng = _size_range(input_dim, "input_dim", 1, min(MAX_INPUT_DIM, MAX_STRATEGY_DIM))
    k_rng = _size_range(rank, "rank", 1, MAX_RANK)
    L_rng = _size_range(depth, "depth", 1, MAX_DEPTH)
    N_rng = _size_range(width, "width", 1, MAX_WIDTH)
    st = _st()
    w = rationals(-2, 2, max_denominator=4) if weights is None else weights
    if not isinstance(w, st.SearchStrategy):
        raise InputTypeError("weights", f"expected a hypothesis strategy of exact numbers, got {type(w).__name__}")

    @st.composite
    def build(draw):
        n_in = _draw_size(draw, st, d_rng)
        k = _draw_size(draw, st, k_rng)
        L = _draw_size(draw, st, L_rng)
        layers = []
        for _ in range(L):
            N = _draw_size(draw, st, N_rng)
            W = [[[draw(w) for _ in range(n_in)] for _ in range(k)] for _ in range(N)]
            b = [[draw(w) for _ in range(k)] for _ in range(N)]
            layers.append((W, b))
            n_in = N
        out = ([[draw(w) for _ in range(n_in)]], [draw(w)]) if readout else None
        return MaxoutNetwork(layers, out)

    return build()


def _spd(draw, st, dim, q_off, q_diag):
    """A symmetric, strictly diagonally dominant matrix with a positive diagonal (hence positive definite)."""
    off = [[Fraction(0)] * dim for _ in range(dim)]
    for i in range(dim):
        for j in range(i + 1, dim):
            off[i][j] = off[j][i] = draw(q_off)
    return [[off[i][j] if i != j else sum(abs(v) for v in off[i]) + draw(q_diag) for j in range(dim)]
            for i in range(dim)]


def laws(family=None, dim=1, *, max_atoms: int = 4):
    """A law of ``family`` (one of :data:`verify.laws.models.FAMILIES`; ``None``: any of them) of dimension ``dim`` (an int or a
    pair (lo, hi)), with small exact parameters: discrete laws of 1..``max_atoms`` distinct atoms with
    coordinates in [-3, 3] and positive weights summing to 1; cubes of radius in [1/4, 2]; covariances
    symmetric and strictly diagonally dominant (positive definite) with entries of denominator <= 4;
    locations in [-2, 2]; mixture separations in [0, 2] along a nonzero direction."""
    from .laws.models import FAMILIES, Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube

    if family is not None and family not in FAMILIES:
        raise InputError("family", f"must be None or one of {', '.join(FAMILIES)}, got {family!r}")
    rng = _size_range(dim, "dim", 1, MAX_STRATEGY_DIM)
    if isinstance(max_atoms, bool) or not isinstance(max_atoms, int) or not 1 <= max_atoms <= 64:
        raise InputError("max_atoms", f"must be an integer in [1, 64], got {max_atoms!r}")
    st = _st()
    loc = rationals(-2, 2, max_denominator=4)
    q_off = rationals(-1, 1, max_denominator=4)
    q_pos = rationals("1/4", 2, max_denominator=4)
    coordinate = rationals(-3, 3, max_denominator=2)

    @st.composite
    def build(draw):
        fam = family if family is not None else draw(st.sampled_from(FAMILIES))
        d = _draw_size(draw, st, rng)
        vec = st.tuples(*[loc] * d)
        if fam == "discrete":
            atoms = draw(st.lists(st.tuples(*[coordinate] * d), min_size=1, max_size=max_atoms, unique=True))
            raw = [draw(st.integers(1, 8)) for _ in atoms]
            total = sum(raw)
            return Discrete([list(a) for a in atoms], [Fraction(r, total) for r in raw])
        if fam == "uniform_cube":
            return UniformCube(draw(q_pos), list(draw(vec)))
        cov = _spd(draw, st, d, q_off, q_pos)
        if fam == "laplace":
            return SymmetricLaplace(cov, list(draw(vec)))
        if fam == "gaussian":
            return Gaussian(cov, list(draw(vec)))
        direction = draw(vec.filter(lambda v: any(c != 0 for c in v)))
        return GaussianMixture(draw(rationals(0, 2)), list(direction), cov, list(draw(vec)))

    return build()


# -- families with known truth (independence modulo affine functions) --------------------------------------

PLANTED_KINDS = ("convolution", "translate", "doubling", "mixture", "gaussians", "dirac",
                 "cyclotomic", "covariances", "cubes",
                 "perturbed-doubling", "perturbed-mixture", "perturbed-gaussians")


class PlantedFamily(tuple):
    """``(laws, truth, kind)``: ``truth`` is ``"dependent"`` or ``"independent"`` (modulo affine functions;
    an independent family is also independent modulo constants)."""

    __slots__ = ()

    def __new__(cls, laws, truth, kind):
        return super().__new__(cls, (laws, truth, kind))

    laws = property(lambda self: self[0])
    truth = property(lambda self: self[1])
    kind = property(lambda self: self[2])


def _convolve(mu, nu):
    from .laws.models import Discrete

    out: dict = {}
    for a, w in zip(mu.atoms, mu.weights):
        for b, v in zip(nu.atoms, nu.weights):
            k = tuple(x + y for x, y in zip(a, b))
            out[k] = out.get(k, Fraction(0)) + w * v
    keys = sorted(out)
    return Discrete([list(k) for k in keys], [out[k] for k in keys])


def _rank_q(rows) -> int:
    """Rank over Q of a list of rows of Fractions (Gaussian elimination)."""
    M = [list(r) for r in rows]
    rank, cols = 0, len(M[0]) if M else 0
    for c in range(cols):
        piv = next((i for i in range(rank, len(M)) if M[i][c] != 0), None)
        if piv is None:
            continue
        M[rank], M[piv] = M[piv], M[rank]
        for i in range(len(M)):
            if i != rank and M[i][c] != 0:
                f = M[i][c] / M[rank][c]
                M[i] = [x - f * y for x, y in zip(M[i], M[rank])]
        rank += 1
    return rank


def planted_families(kind=None, dim=(1, 3)):
    """:class:`PlantedFamily` ``(laws, truth, kind)`` of exact laws in dimension ``dim`` (an int or a pair
    (lo, hi) inside [1, 3]) whose independence modulo affine functions is known by construction;
    ``kind`` one of :data:`PLANTED_KINDS` (``None``: any).  Dependent: ``convolution`` (mu, nu, mu * nu),
    ``translate`` (a law of any family and a translate), ``doubling`` (cube(2r), cube(r), the uniform law
    on {-r, r}^d, any centres: sinh(2x)/(2x) = sinh(x)/x cosh(x)), ``mixture`` (1/2 N(c +- a e_j, Sigma),
    N(m, Sigma), {c' +- a e_j}), ``gaussians`` (covariances Sigma and k Sigma), ``dirac`` (a law and a Dirac).
    Independent: ``cyclotomic`` (the laws {0, k v}, distinct k: their MGF polynomials 1 + z^k differ in a
    primitive cyclotomic factor), ``covariances`` (Gaussians; the truth is the exact rank of the
    covariances), ``cubes`` (distinct radii), and the ``perturbed-*`` families: the doubling radius, the
    two-point separation or one covariance entry moved by 10^-20."""
    from .laws.models import Discrete, Gaussian, GaussianMixture, UniformCube

    if kind is not None and kind not in PLANTED_KINDS:
        raise InputError("kind", f"must be None or one of {', '.join(PLANTED_KINDS)}, got {kind!r}")
    d_rng = _size_range(dim, "dim", 1, 3)
    st = _st()
    eps = Fraction(1, 10 ** 20)

    def pt(draw, d, lo=-1, hi=1):
        return list(draw(points(d, lo, hi)))

    def discrete(draw, d):
        atoms = draw(st.lists(st.tuples(*[rationals(-2, 2, max_denominator=2)] * d), min_size=2, max_size=3,
                              unique=True))
        raw = [draw(st.integers(1, 4)) for _ in atoms]
        return Discrete([list(a) for a in atoms], [Fraction(x, sum(raw)) for x in raw])

    def spd(draw, d):
        return _spd(draw, st, d, rationals(-1, 1, max_denominator=2), rationals("1/2", 2, max_denominator=2))

    def corners(c, r, d):
        signs = [[]]
        for _ in range(d):
            signs = [s + [e] for s in signs for e in (1, -1)]
        return Discrete([[x + e * r for x, e in zip(c, s)] for s in signs])

    def mixture(draw, d, shift):
        a = draw(rationals("1/2", 2, max_denominator=4))
        j = draw(st.integers(0, d - 1))
        u = [Fraction(int(k == j)) for k in range(d)]
        cov = spd(draw, d)
        c, m, c3 = pt(draw, d), pt(draw, d), pt(draw, d)
        two = Discrete([[x + s * (a + shift) * y for x, y in zip(c3, u)] for s in (1, -1)])
        return [GaussianMixture(a, u, cov, c), Gaussian(cov, m), two]

    @st.composite
    def build(draw):
        k = kind if kind is not None else draw(st.sampled_from(PLANTED_KINDS))
        d = _draw_size(draw, st, d_rng)
        if k == "convolution":
            mu, nu = discrete(draw, d), discrete(draw, d)
            return PlantedFamily([mu, nu, _convolve(mu, nu)], "dependent", k)
        if k == "translate":
            law = draw(laws(None, d, max_atoms=3))
            return PlantedFamily([law, law.translated(pt(draw, d, -2, 2))], "dependent", k)
        if k in ("doubling", "perturbed-doubling"):
            r = draw(rationals("1/4", 2, max_denominator=4))
            c1, c2, c3 = pt(draw, d), pt(draw, d), pt(draw, d)
            if k == "doubling":
                return PlantedFamily([UniformCube(2 * r, c1), UniformCube(r, c2), corners(c3, r, d)], "dependent", k)
            zero = [0] * d
            return PlantedFamily([UniformCube(2 * r + eps, zero), UniformCube(r, zero), corners(zero, r, d)],
                                 "independent", k)
        if k in ("mixture", "perturbed-mixture"):
            return PlantedFamily(mixture(draw, d, eps if k != "mixture" else 0),
                                 "dependent" if k == "mixture" else "independent", k)
        if k == "gaussians":
            cov = spd(draw, d)
            f = draw(st.sampled_from([2, 3, Fraction(1, 2)]))
            return PlantedFamily([Gaussian(cov, pt(draw, d)), Gaussian([[f * x for x in row] for row in cov],
                                                                       pt(draw, d))], "dependent", k)
        if k == "perturbed-gaussians":
            d = max(d, 2)
            cov = spd(draw, d)
            bumped = [[2 * x + (eps if i == j == 0 else 0) for j, x in enumerate(row)] for i, row in enumerate(cov)]
            return PlantedFamily([Gaussian(cov), Gaussian(bumped)], "independent", k)
        if k == "dirac":
            return PlantedFamily([draw(laws(None, d, max_atoms=3)), Discrete([pt(draw, d, -2, 2)])], "dependent", k)
        if k == "cyclotomic":
            ks = draw(st.lists(st.integers(1, 12), min_size=2, max_size=6, unique=True))
            v = list(draw(points(d, -2, 2).filter(any)))
            return PlantedFamily([Discrete([[0] * d, [j * x for x in v]]) for j in ks], "independent", k)
        if k == "covariances":
            d = max(d, 2)
            n = draw(st.integers(2, d * (d + 1) // 2))
            covs = [spd(draw, d) for _ in range(n)]
            rank = _rank_q([[S[a][b] for a in range(d) for b in range(a, d)] for S in covs])
            return PlantedFamily([Gaussian(S, pt(draw, d)) for S in covs],
                                 "independent" if rank == n else "dependent", k)
        radii = draw(st.lists(rationals("1/4", 3, max_denominator=4), min_size=2, max_size=4, unique=True))
        return PlantedFamily([UniformCube(r, pt(draw, d)) for r in radii], "independent", k)

    return build()
