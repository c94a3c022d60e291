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
as balls (a discrete law's n H arguments in one batch: logits, numerators and denominators as ``arb_mat``
products, one pass of exponentials); the rows form F
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

from flint import arb, arb_mat, ctx, fmpq

from ..arith.ball import to_ball, workprec
from ..arith.exact import fraction_str, parse_exact, parse_int, plain
from ..errors import DomainError, InputError, InputTypeError, SizeLimitError
from ..laws.cgf import discrete_grad_float

__all__ = [
    "NtkGram", "GramFeatures", "ntk_gram", "ntk_gram_features", "ntk_inputs", "ntk_gram_float64", "gaussian_heads", "oracle_head_set", "apply_head",
    "query_lists", "default_head_count", "MAX_GRAM_SIZE", "MAX_HEADS", "MAX_GRADIENTS",
    "HEAD_DENOMINATOR_BITS", "HEAD_LAW_GAUSSIAN",
]

MAX_GRAM_SIZE = 400          # N*m (rows of the Gram)
MAX_HEADS = 4096             # number of head matrices
MAX_GRADIENTS = 200_000      # N*m*H gradient evaluations per Gram
MAX_DIM = 8                  # token dimension d
GRAM_SLAB = 128              # columns per arb_mat product of GramFeatures.column_block
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
    key = (count, dim, seed, k, scale)
    if key in _HEADS_CACHE:           # the same heads again (the N7 check asks twice per instance)
        heads, info = _HEADS_CACHE[key]
        return heads, dict(info)
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
    if len(_HEADS_CACHE) >= 64:
        _HEADS_CACHE.clear()
    _HEADS_CACHE[key] = (tuple(heads), dict(info))
    return tuple(heads), info


_HEADS_CACHE: dict = {}   # (count, dim, seed, key_dim, scale) -> (heads, info): exact, immutable heads


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


_GRADIENTS: dict = {}          # (law, theta, precision) -> gradient balls: the same point recurs across rows,
_GRADIENTS_MAX = 50_000       # queries and instances (m = 1 and m = 2 share heads); arb balls are immutable


def _gradient_ball(dist, theta, law_index: int) -> list:
    """The balls of grad Lambda(theta) at the current precision, memoised by value (a law is a frozen
    dataclass: equal laws have equal gradients), so a repeated point costs a look-up: the same balls."""
    theta = tuple(theta)
    try:
        key = (dist, theta, ctx.prec)
        hit = _GRADIENTS.get(key)
    except TypeError:        # an unhashable law: no memo
        key, hit = None, None
    if hit is not None:
        return list(hit)
    if not dist.in_domain(theta):
        raise DomainError("heads", f"A q = ({', '.join(fraction_str(t) for t in theta)}) lies outside "
                          f"the CGF domain of dists[{law_index}]; use smaller head matrices (scale)")
    g = [to_ball(x) for x in dist.grad_ball(theta)]
    if key is not None:
        if len(_GRADIENTS) >= _GRADIENTS_MAX:
            _GRADIENTS.clear()
        _GRADIENTS[key] = tuple(g)
    return g


MAX_LATTICE_EXPONENT = 64    # shared exponentials when every atom is n / D with |n_c| <= 64


def _lattice(atom_sets):
    """(D, J) when every atom of every set lies on (1/D) Z^d (D the least common denominator) with
    |n_c| <= J <= MAX_LATTICE_EXPONENT, else None."""
    D = 1
    for atoms in atom_sets:
        for a in atoms:
            for x in a:
                D = D * x.denominator // math.gcd(D, x.denominator)
    J = max((abs(x) * D for atoms in atom_sets for a in atoms for x in a), default=0)
    return (D, int(J)) if J <= MAX_LATTICE_EXPONENT else None


def _power_table(thetas, D: int, J: int, dim: int) -> list:
    """T[c][p][J + j] = exp(theta_pc / D)^j for |j| <= J (balls; one exp per argument and coordinate, the
    powers by repeated products)."""
    table = []
    for c in range(dim):
        col = []
        for t in thetas:
            u = to_ball(t[c] / D).exp()
            ui = 1 / u
            pos, neg = [arb(1)], [arb(1)]
            for _ in range(J):
                pos.append(pos[-1] * u)
                neg.append(neg[-1] * ui)
            col.append(neg[:0:-1] + pos)
        table.append(col)
    return table


def _discrete_rows(atoms, weights, thetas, n_heads: int, m: int, dim: int, tables: dict) -> list:
    """The m feature rows (head-major, d gradient coordinates per head) of the discrete law sum_k w_k
    delta_{x_k} at the arguments ``thetas`` (index h*m + a), as balls at the current precision.

    grad Lambda(theta) = X^T E / 1^T E with E_kp = w_k exp(<x_k, theta_p>) (the tilted mean of
    :func:`verify.laws.cgf.discrete_grad_ball_many`, without its per-column shift, which changes no value).
    Atoms on a lattice (1/D) Z^d (|n_c| <= 64): exp(<x_k, theta>) = prod_c exp(theta_c / D)^(n_kc), from a
    table of powers shared by every law with the same arguments and D (``tables``); otherwise the logits
    are one ``arb_mat`` product and each exponential one call.  Numerator and denominator are one product
    each.  Every operation is a ball operation, so each row encloses the exact gradients."""
    k, P = len(atoms), len(thetas)
    X = arb_mat([[fmpq(x.numerator, x.denominator) for x in a] for a in atoms])
    lat = tables.get("lattice") or _lattice([atoms])
    if lat is not None:
        D, J = lat
        ints = [tuple(int(x * D) for x in a) for a in atoms]
        key = (id(thetas), D, J)
        if key not in tables:
            T = _power_table(thetas, D, J, dim)
            # cols[c][J + j] = [exp(theta_pc / D)^j for every argument p] (the same balls, by lattice index)
            cols = [[[T[c][p][i] for p in range(P)] for i in range(2 * J + 1)] for c in range(dim)]
            tables[key] = (thetas, cols, {})
        _, cols, memo = tables[key]
        wb = [to_ball(w) for w in weights]
        vals = []
        for j, n in enumerate(ints):
            # E_jp = ((w_j * T_0p) * T_1p) * ..., the same products in the same order for every law, so a
            # row already computed for the same weight and lattice point (another law's atom) is reused
            mk = (weights[j], n)
            row = memo.get(mk)
            if row is None:
                w = wb[j]
                if dim == 1:
                    row = [w * x for x in cols[0][J + n[0]]]
                elif dim == 2:
                    row = [w * x * y for x, y in zip(cols[0][J + n[0]], cols[1][J + n[1]])]
                else:
                    row = [w] * P
                    for c in range(dim):
                        row = [v * x for v, x in zip(row, cols[c][J + n[c]])]
                memo[mk] = row
            vals.extend(row)
        E = arb_mat(k, P, vals)
    else:
        Th = arb_mat([[fmpq(t[c].numerator, t[c].denominator) for t in thetas] for c in range(dim)])
        logw = [to_ball(w).log() for w in weights]
        logits = (X * Th).entries()
        E = arb_mat(k, P, [(logits[j * P + p] + logw[j]).exp() for j in range(k) for p in range(P)])
    S = (arb_mat([[1] * k]) * E).entries()
    G = (X.transpose() * E).entries()
    return [[G[c * P + h * m + a] / S[h * m + a] for h in range(n_heads) for c in range(dim)] for a in range(m)]


def ntk_inputs(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
               key_dim: Optional[int] = None, head_set=None, scale=1, reading: str = "shared") -> tuple:
    """(per-law query tuples, exact head matrices, head-law record) of a Gram, checked against the limits
    (the inputs :func:`ntk_gram` builds from; the same errors)."""
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
    return qlists, H, info


@dataclasses.dataclass(frozen=True)
class GramFeatures:
    """The gradient rows F (n x H d balls at ``precision`` bits) of a Gram k = F F^T / H, before the product:
    :meth:`gram` is the whole Gram (:func:`ntk_gram`), :meth:`column_block` one panel of its lower triangle
    (for :func:`verify.arith.ball.ball_cholesky_panel`, which builds only the panels it reaches)."""

    rows: tuple
    precision: int
    heads: tuple
    queries: tuple
    index: tuple
    reading: str
    head_law: dict
    laws: tuple = ()

    @property
    def size(self) -> int:
        return len(self.rows)

    def _product(self, j0: int, j1: int):
        with workprec(self.precision):
            A = arb_mat(list(self.rows[j0:j1]))
            B = A if j0 == 0 and j1 == len(self.rows) else arb_mat(list(self.rows[j0:]))
            return (A * B.transpose()) / len(self.heads)

    def lower_product(self):
        """The lower triangle of k = F F^T / H as an n x n ``arb_mat`` (zeros above the diagonal), one product
        (F[b0:] F[b0:b1]^T) / H per slab of ``GRAM_SLAB`` columns b0..b1-1 (about half the work of the whole
        product); each entry encloses the exact Gram entry.  For
        :func:`verify.arith.ball.certify_pd_residual`, which reads only the lower triangle."""
        n = len(self.rows)
        e = [0] * (n * n)
        with workprec(self.precision):
            for b0 in range(0, n, GRAM_SLAB):
                b1 = min(n, b0 + GRAM_SLAB)
                b = b1 - b0
                P = ((arb_mat(list(self.rows[b0:])) * arb_mat(list(self.rows[b0:b1])).transpose())
                     / len(self.heads)).entries()
                for r in range(n - b0):
                    row = (b0 + r) * n + b0
                    e[row:row + min(b, r + 1)] = P[r * b:r * b + min(b, r + 1)]
            return arb_mat(n, n, e)

    def column_block(self, j0: int, j1: int):
        """C[c, r] = k[j0 + c, j0 + r] for columns j0..j1-1 and rows j0..n-1 (the (j1 - j0) x (n - j0)
        ``arb_mat``), cut from the product (F[b0:b1] F[b0:]^T) / H of the slab of ``GRAM_SLAB`` columns
        b0..b1-1 that holds it (one ``arb_mat`` product per slab, computed when first asked for: Arb's
        products are faster on wide slabs).  Entry for entry the product :meth:`gram` computes (its upper
        triangle, which it mirrors into the lower one) when n <= ``GRAM_SLAB``."""
        n = len(self.rows)
        cache = self.__dict__.setdefault("_slabs", {})
        b0 = (j0 // GRAM_SLAB) * GRAM_SLAB
        b1 = min(n, b0 + GRAM_SLAB)
        if j1 > b1:                          # a panel across two slabs: its own product
            return self._product(j0, j1)
        if b0 not in cache:
            cache.clear()                    # panels are asked for in order: one slab alive at a time
            cache[b0] = self._product(b0, b1)
        C = cache[b0]
        if (j0, j1) == (b0, b1):
            return C
        e, w = C.entries(), n - b0
        return arb_mat(j1 - j0, n - j0, [e[(j - b0) * w + i - b0] for j in range(j0, j1) for i in range(j0, n)])

    def gram(self) -> "NtkGram":
        """The whole Gram k = F F^T / H as an :class:`NtkGram` (the upper triangle mirrored)."""
        n = self.size
        with workprec(self.precision):
            F = arb_mat(list(self.rows))
            K = (F * F.transpose()) / len(self.heads)
            # exact symmetry: mirror the upper triangle (both balls enclose the same value)
            for r in range(n):
                for c in range(r + 1, n):
                    K[c, r] = K[r, c]
        return NtkGram(K, self.precision, self.heads, self.queries, self.index, self.reading, self.head_law,
                       self.laws)


def ntk_gram_features(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
                      key_dim: Optional[int] = None, head_set=None, precision: int = 128, scale=1,
                      reading: str = "shared") -> GramFeatures:
    """The gradient rows of :func:`ntk_gram`'s Gram (same arguments, same errors), as a
    :class:`GramFeatures`: ``ntk_gram(...)`` is ``ntk_gram_features(...).gram()``.

    Algorithm
    ---------
    Parse laws, queries and heads, then the gradient rows at ``precision`` bits (module docstring).

    Soundness
    ---------
    Returns enclosures, decides nothing: each row entry contains the exact gradient coordinate.

    Limits
    ------
    Those of :func:`ntk_gram`.
    """
    dim = _check_dists(dists)
    qlists, H, info = ntk_inputs(dists, queries, heads, seed, law, key_dim, head_set, scale, reading)
    precision = parse_int(precision, "precision", 16, 100_000)
    index = tuple((i, a) for i, q in enumerate(qlists) for a in range(len(q)))
    theta_cache = {}

    def thetas_of(ql):
        if ql not in theta_cache:
            theta_cache[ql] = [apply_head(A, q) for A in H for q in ql]  # column h*m_i + a
        return theta_cache[ql]

    discrete = [_discrete_atoms(d) for d in dists]
    # one lattice (1/D) Z^d for all discrete laws: their exponentials share one table of powers per argument list
    tables = {"lattice": _lattice([da[0] for da in discrete if da is not None])}
    with workprec(precision):
        rows = []
        for i, dist in enumerate(dists):
            ql = qlists[i]
            thetas = thetas_of(ql)
            da = discrete[i]
            m_i = len(ql)
            if da is not None:
                rows.extend(_discrete_rows(da[0], da[1], thetas, len(H), m_i, dim, tables))
                continue
            feats = [_gradient_ball(dist, t, i) for t in thetas]
            for a in range(m_i):
                rows.append([g for h in range(len(H)) for g in feats[h * m_i + a]])
    return GramFeatures(tuple(rows), precision, H, qlists, index, reading, info, tuple(dists))


def ntk_gram(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
             key_dim: Optional[int] = None, head_set=None, precision: int = 128, scale=1,
             reading: str = "shared") -> NtkGram:
    """The V-block Gram k of docs/paper2.md §9.2 with rigorous ``arb`` entries at ``precision`` bits.

    Heads: ``head_set`` (explicit exact d x d matrices, e.g. :func:`oracle_head_set`) or ``heads``
    Gaussian samples (``law="gaussian"``, ``seed``, ``key_dim``, ``scale``; see :func:`gaussian_heads`).
    Limits: N*m <= 400, H <= 4096, N*m*H <= 200000 gradient evaluations, d <= 8.

    Algorithm
    ---------
    Parse laws, queries and heads, then the gradient rows (:func:`ntk_gram_features`) and k = F F^T / H at
    ``precision`` bits (module docstring); the default head count is 2 ceil(N m / d) + 8.

    Soundness
    ---------
    Returns enclosures, decides nothing: each ``matrix`` entry contains the exact Gram entry.

    Limits
    ------
    The sizes above (``SizeLimitError``); ``DomainError`` when some A q lies outside a CGF domain.
    """
    return ntk_gram_features(dists, queries, heads, seed, law, key_dim, head_set, precision, scale, reading).gram()


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
