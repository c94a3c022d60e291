"""The V-block of the attention NTK at V = 0 (docs/paper2.md §9.2): the Gram matrix k.

With V = 0 at initialisation, query tokens q_1..q_m shared by all inputs and head matrices
A = KᵀQ, the V-block Gram is (law-index-major order, index (i, a) -> i*m + a)

    k[(i,a),(j,b)] = (1/H) Σ_h ⟨∇Λ_i(A_h q_a), ∇Λ_j(A_h q_b)⟩.

Head matrices are **exact rationals** (sampled Gaussian Q, K rounded to dyadics, or an explicit
head set such as the 81 matrices {-s, 0, s}^{2x2} of docs/paper2.md §9.4), so every gradient is evaluated
at an exact argument and every entry of k is a rigorous ``arb`` enclosure.  The float64 Gram of the
same heads is available for comparison (:func:`ntk_gram_float64`).

Reading: ``"shared"`` (default, docs/paper2.md §9.2) uses the same queries for every law; ``"per-token"``
(docs/paper2.md §9.3, negative reading, N7.n1) uses each discrete law's own atoms as its queries.

Algorithm
---------
For every law i, query a and head h the exact argument theta = A_h q_a, the gradient nabla Lambda_i(theta)
as balls (discrete laws in one batch, :func:`verify.laws.cgf.discrete_grad_ball_many`); the rows form F
(n x H d) and k = F F^T / H as an ``arb_mat`` product, mirrored to exact symmetry.  Cost: n H gradient
evaluations and about n^2 H d ball multiply-adds, n = N m.

Soundness
---------
Every entry of k is an enclosure of the exact Gram entry of these exact heads (Arb's inclusion guarantee,
docs/conventions.md section 2).  The random generator only chooses the heads: the statement is about the
exact matrices returned.  :func:`ntk_gram_float64` is evidence only.  The decision is in
:mod:`verify.decide.ntk` (docs/ntk.md).

Limits
------
``MAX_GRAM_SIZE`` = 400 rows (N m), ``MAX_HEADS`` = 4096 heads, ``MAX_GRADIENTS`` = 200,000 gradient
evaluations (N m H), token dimension d <= 8, precision in [16, 100000] bits
(:class:`~verify.errors.SizeLimitError` / :class:`~verify.errors.InputError`).  A head that maps a query
outside a law's CGF domain raises :class:`~verify.errors.DomainError`; the per-token reading needs discrete
laws; :func:`oracle_head_set` exists for d = 1, 2.

>>> from fractions import Fraction as F
>>> heads = oracle_head_set(F(1, 2))
>>> len(heads), heads[0]
(81, ((Fraction(-1, 2), Fraction(-1, 2)), (Fraction(-1, 2), Fraction(-1, 2))))
>>> apply_head(((1, 2), (3, 4)), (F(1), F(-1)))
(Fraction(-1, 1), Fraction(-1, 1))
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction
from typing import Any, Optional, Sequence

from flint import arb_mat

from ..arith.ball import to_ball, workprec
from ..arith.exact import fraction_str, parse_exact, parse_int, plain
from ..errors import DomainError, InputError, InputTypeError, SizeLimitError
from ..laws.cgf import discrete_grad_ball_many, discrete_grad_float

__all__ = [
    "NtkGram", "ntk_gram", "ntk_gram_float64", "gaussian_heads", "oracle_head_set", "apply_head",
    "query_lists", "default_head_count", "MAX_GRAM_SIZE", "MAX_HEADS", "MAX_GRADIENTS",
    "HEAD_DENOMINATOR_BITS", "HEAD_LAW_GAUSSIAN",
]

MAX_GRAM_SIZE = 400          # N*m (rows of the Gram)
MAX_HEADS = 4096             # number of head matrices
MAX_GRADIENTS = 200_000      # N*m*H gradient evaluations per Gram
MAX_DIM = 8                  # token dimension d
HEAD_DENOMINATOR_BITS = 20   # sampled Q, K entries are rounded to multiples of 2^-20
HEAD_LAW_GAUSSIAN = ("Q, K in R^{k x d} with i.i.d. N(0, 1) entries (numpy PCG64(seed), Q first, row-major), "
                     "each rounded to the nearest multiple of 2^-20; A = scale * K^T Q / k (exact rational)")


# ------------------------------------------------------------------------------- head matrices
def apply_head(A, q) -> tuple:
    """A q exactly (A a d x d matrix of exact rationals, q a vector)."""
    return tuple(sum((Fraction(a) * Fraction(x) for a, x in zip(row, q)), Fraction(0)) for row in A)


def oracle_head_set(s, dim: int = 2) -> tuple:
    """The 3^(dim^2) matrices with entries in {-s, 0, s} (docs/paper2.md §9.4), in lexicographic order."""
    s = parse_exact(s, "s")
    if s <= 0:
        raise InputError("s", f"must be > 0, got {fraction_str(s)}")
    if not isinstance(dim, int) or not 1 <= dim <= 2:
        raise InputError("dim", f"must be 1 or 2 for the oracle head set (3^(d^2) matrices), got {dim!r}")
    values = (-s, Fraction(0), s)
    out = []
    for flat in itertools.product(values, repeat=dim * dim):
        out.append(tuple(tuple(flat[r * dim:(r + 1) * dim]) for r in range(dim)))
    return tuple(out)


def _dyadic(x: float, bits: int) -> Fraction:
    return Fraction(round(x * (1 << bits)), 1 << bits)


def gaussian_heads(count: int, dim: int, seed: int, key_dim: Optional[int] = None, scale=1) -> tuple:
    """``count`` exact head matrices A = scale·KᵀQ/k from Gaussian Q, K (see :data:`HEAD_LAW_GAUSSIAN`).

    Rounding Q and K (not A) keeps every A in the support of the head law (rank <= k).
    Returns ``(heads, info)``.

    >>> heads, info = gaussian_heads(2, 2, seed=1)
    >>> len(heads), info["key_dim"], all(isinstance(x, Fraction) for row in heads[0] for x in row)
    (2, 2, True)
    """
    import numpy as np

    count = parse_int(count, "heads", 1, MAX_HEADS)
    dim = parse_int(dim, "dim", 1, MAX_DIM)
    seed = parse_int(seed, "seed", 0, 2**63 - 1)
    k = dim if key_dim is None else parse_int(key_dim, "key_dim", 1, 64)
    scale = parse_exact(scale, "scale")
    if scale <= 0:
        raise InputError("scale", f"must be > 0, got {fraction_str(scale)}")
    rng = np.random.Generator(np.random.PCG64(seed))
    heads = []
    for _ in range(count):
        Q = rng.standard_normal((k, dim))
        K = rng.standard_normal((k, dim))
        Qe = [[_dyadic(float(Q[r, c]), HEAD_DENOMINATOR_BITS) for c in range(dim)] for r in range(k)]
        Ke = [[_dyadic(float(K[r, c]), HEAD_DENOMINATOR_BITS) for c in range(dim)] for r in range(k)]
        A = tuple(tuple(scale * sum((Ke[r][i] * Qe[r][j] for r in range(k)), Fraction(0)) / k
                        for j in range(dim)) for i in range(dim))
        heads.append(A)
    info = {"law": "gaussian", "description": HEAD_LAW_GAUSSIAN, "seed": seed, "key_dim": k,
            "scale": scale, "count": count, "support": ("all d x d matrices" if k >= dim else
                                                        f"matrices of rank <= {k} (key_dim < d)")}
    return tuple(heads), info


def default_head_count(n_laws: int, n_queries: int, dim: int) -> int:
    """Enough heads for the Gram to be able to be PD: rank k <= H*d, so H >= N*m/d; we take
    2*ceil(N*m/d) + 8 (capped at MAX_HEADS)."""
    return min(MAX_HEADS, 2 * -(-(n_laws * n_queries) // dim) + 8)


def _parse_heads(head_set, dim: int) -> tuple:
    head_set = plain(head_set)
    if not isinstance(head_set, (list, tuple)) or not head_set:
        raise InputError("head_set", "must be a non-empty list of d x d matrices")
    if len(head_set) > MAX_HEADS:
        raise SizeLimitError("head_set", f"{len(head_set)} matrices exceed the limit {MAX_HEADS}")
    out = []
    for h, A in enumerate(head_set):
        if not isinstance(A, (list, tuple)) or len(A) != dim:
            raise InputError(f"head_set[{h}]", f"must be a {dim} x {dim} matrix")
        rows = []
        for r, row in enumerate(A):
            if not isinstance(row, (list, tuple)) or len(row) != dim:
                raise InputError(f"head_set[{h}][{r}]", f"must be a row of length {dim}")
            rows.append(tuple(parse_exact(x, f"head_set[{h}][{r}][{c}]") for c, x in enumerate(row)))
        out.append(tuple(rows))
    return tuple(out)


# ------------------------------------------------------------------------------- laws and queries
def _check_dists(dists) -> int:
    if not isinstance(dists, (list, tuple)) or not dists:
        raise InputError("dists", "must be a non-empty list of distributions")
    dims = set()
    for i, d in enumerate(dists):
        for attr in ("dim", "grad_ball", "in_domain"):
            if not hasattr(d, attr):
                raise InputTypeError(f"dists[{i}]", f"is not a distribution (no .{attr}); use "
                                     "verify.laws")
        dims.add(d.dim)
    if len(dims) != 1:
        raise InputError("dists", f"laws of mixed dimension {sorted(dims)}")
    dim = dims.pop()
    if not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise InputError("dists", f"dimension must be in [1, {MAX_DIM}], got {dim!r}")
    return dim


def _discrete_atoms(dist):
    """(atoms, weights) of a discrete law as exact tuples, or None."""
    if getattr(dist, "family", None) != "discrete":
        return None
    atoms = getattr(dist, "atoms", None)
    weights = getattr(dist, "weights", None)
    if atoms is None or weights is None:
        params = getattr(dist, "params", {}) or {}
        atoms, weights = params.get("atoms"), params.get("weights")
    if atoms is None or weights is None:
        return None
    return tuple(tuple(Fraction(x) for x in a) for a in atoms), tuple(Fraction(w) for w in weights)


def query_lists(dists, queries, reading: str = "shared") -> tuple:
    """Per-law query tuples: the shared queries for every law, or each discrete law's own atoms."""
    dim = _check_dists(dists)
    if reading == "shared":
        queries = plain(queries)
        if not isinstance(queries, (list, tuple)) or not queries:
            raise InputError("queries", "must be a non-empty list of query tokens")
        qs = []
        for a, q in enumerate(queries):
            if not isinstance(q, (list, tuple)) or len(q) != dim:
                raise InputError(f"queries[{a}]", f"must be a vector of length d = {dim}")
            qs.append(tuple(parse_exact(x, f"queries[{a}][{c}]") for c, x in enumerate(q)))
        return tuple(tuple(qs) for _ in dists)
    if reading == "per-token":
        if queries is not None:
            raise InputError("queries", "must be None in the per-token reading (queries = each law's atoms)")
        out = []
        for i, d in enumerate(dists):
            da = _discrete_atoms(d)
            if da is None:
                raise InputError(f"dists[{i}]", "the per-token reading needs discrete laws (queries = atoms)")
            out.append(da[0])
        return tuple(out)
    raise InputError("reading", f"must be 'shared' or 'per-token', got {reading!r}")


# ------------------------------------------------------------------------------- the Gram
@dataclasses.dataclass(frozen=True)
class NtkGram:
    """A certified V-block Gram: ``matrix`` (arb_mat, entries are enclosures at ``precision`` bits)
    with its exact inputs.  ``index[r] = (i, a)``: row r belongs to law i and its a-th query."""

    matrix: Any
    precision: int
    heads: tuple
    queries: tuple
    index: tuple
    reading: str
    head_law: dict
    laws: tuple = ()

    def float64(self):
        """The same Gram in plain float64 (:func:`ntk_gram_float64`): evidence only."""
        return ntk_gram_float64(self.laws, self.queries, self.heads)

    @property
    def size(self) -> int:
        return self.matrix.nrows()

    def entries(self) -> list:
        """The Gram as a list of lists of ``arb``."""
        n = self.size
        return [[self.matrix[r, c] for c in range(n)] for r in range(n)]

    # display: the sizes, and the ball midpoints to 6 digits (never raw Fractions)
    def __repr__(self) -> str:
        return (f"NtkGram({self.size}x{self.size}, {len(self.laws)} laws, {len(self.heads)} heads, reading "
                f"{self.reading}, {self.precision} bits)")

    def _repr_html_(self) -> str:
        n = min(self.size, 12)
        rows = "".join("<tr>" + "".join(f"<td>{float(self.matrix[r, c].mid()):.6g}</td>" for c in range(n)) + "</tr>"
                       for r in range(n))
        more = f"<p>&hellip; {self.size - n} more rows and columns</p>" if self.size > n else ""
        return (f"<p><b>{repr(self).replace('<', '&lt;')}</b>: ball midpoints (each entry is an enclosure of the "
                f"exact Gram entry)</p><table>{rows}</table>{more}")

    def midpoints(self):
        """Ball midpoints as a numpy float64 array (for display / eigenvalue estimates only)."""
        import numpy as np

        n = self.size
        return np.array([[float(self.matrix[r, c].mid()) for c in range(n)] for r in range(n)])


def _gradient_ball(dist, theta, law_index: int) -> list:
    if not dist.in_domain(theta):
        raise DomainError("heads", f"A q = ({', '.join(fraction_str(t) for t in theta)}) lies outside "
                          f"the CGF domain of dists[{law_index}]; use smaller head matrices (scale)")
    g = dist.grad_ball(tuple(theta))
    return [to_ball(x) for x in g]


def ntk_gram(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
             key_dim: Optional[int] = None, head_set=None, precision: int = 128, scale=1,
             reading: str = "shared") -> NtkGram:
    """The V-block Gram k of docs/paper2.md §9.2 with rigorous ``arb`` entries at ``precision`` bits.

    Heads: ``head_set`` (explicit exact d x d matrices, e.g. :func:`oracle_head_set`) or ``heads``
    Gaussian samples (``law="gaussian"``, ``seed``, ``key_dim``, ``scale``; see :func:`gaussian_heads`).
    Limits: N*m <= 400, H <= 4096, N*m*H <= 200000 gradient evaluations, d <= 8.

    Algorithm
    ---------
    Parse laws, queries and heads, then the gradient rows and k = F F^T / H at ``precision`` bits (module
    docstring); the default head count is 2 ceil(N m / d) + 8.

    Soundness
    ---------
    Returns enclosures, decides nothing: each ``matrix`` entry contains the exact Gram entry.

    Limits
    ------
    The sizes above (``SizeLimitError``); ``DomainError`` when some A q lies outside a CGF domain.
    """
    dim = _check_dists(dists)
    qlists = query_lists(dists, queries, reading)
    n = sum(len(q) for q in qlists)
    if n > MAX_GRAM_SIZE:
        raise SizeLimitError("queries", f"Gram size N*m = {n} exceeds the limit {MAX_GRAM_SIZE}")
    if head_set is not None:
        if heads is not None:
            raise InputError("heads", "give either heads (a count of sampled heads) or head_set, not both")
        H = _parse_heads(head_set, dim)
        info = {"law": "explicit head set", "count": len(H)}
    else:
        if law != "gaussian":
            raise InputError("law", f"only 'gaussian' head sampling is implemented, got {law!r}")
        count = default_head_count(len(dists), max(len(q) for q in qlists), dim) if heads is None else heads
        H, info = gaussian_heads(count, dim, seed, key_dim=key_dim, scale=scale)
    if n * len(H) > MAX_GRADIENTS:
        raise SizeLimitError("heads", f"N*m*H = {n * len(H)} gradient evaluations exceed the limit {MAX_GRADIENTS}")
    precision = parse_int(precision, "precision", 16, 100_000)
    index = tuple((i, a) for i, q in enumerate(qlists) for a in range(len(q)))
    theta_cache = {}

    def thetas_of(ql):
        if ql not in theta_cache:
            theta_cache[ql] = [apply_head(A, q) for A in H for q in ql]  # column h*m_i + a
        return theta_cache[ql]

    with workprec(precision):
        rows = []
        for i, dist in enumerate(dists):
            ql = qlists[i]
            thetas = thetas_of(ql)
            da = _discrete_atoms(dist)
            if da is not None:
                feats = discrete_grad_ball_many(da[0], da[1], thetas)
            else:
                feats = [_gradient_ball(dist, t, i) for t in thetas]
            m_i = len(ql)
            for a in range(m_i):
                rows.append([g for h in range(len(H)) for g in feats[h * m_i + a]])
        F = arb_mat(rows)
        K = (F * F.transpose()) / len(H)
        # exact symmetry: mirror the upper triangle (both balls enclose the same value)
        for r in range(n):
            for c in range(r + 1, n):
                K[c, r] = K[r, c]
    return NtkGram(K, precision, H, qlists, index, reading, info, tuple(dists))


def ntk_gram_float64(dists, query_lists_, heads):
    """The same Gram in plain float64 (numpy): discrete laws by a max-shifted softmax, other laws from
    53-bit ball midpoints of their gradients.  Evidence only."""
    import numpy as np

    n = sum(len(q) for q in query_lists_)
    H = len(heads)
    dim = len(heads[0])
    Af = np.array([[[float(x) for x in row] for row in A] for A in heads])  # H x d x d
    G = np.zeros((n, H * dim))
    r = 0
    for i, dist in enumerate(dists):
        da = _discrete_atoms(dist)
        for q in query_lists_[i]:
            qf = np.array([float(x) for x in q])
            thetas = Af @ qf  # H x d
            if da is not None:
                X = np.array([[float(x) for x in a] for a in da[0]])
                grads = discrete_grad_float(thetas, X, np.log(np.array([float(w) for w in da[1]])))
            else:
                with workprec(53):
                    grads = np.array([[float(g.mid()) for g in _gradient_ball(dist, apply_head(A, q), i)]
                                      for A in heads])
            G[r] = grads.reshape(-1)
            r += 1
    return (G @ G.T) / H
