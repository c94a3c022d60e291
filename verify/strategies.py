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
* :func:`laws` -- a law of one of the five families of :mod:`verify.laws.models` (or of any of them).

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

__all__ = ["rationals", "points", "boxes", "maxout_networks", "laws"]

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
