"""Rigorous ball arithmetic (python-flint ``arb``) with a precision ladder.

Every ``arb`` is a ball [m ± r] guaranteed to contain the true value.  Comparisons
between balls are **certain-only**: ``a < b`` is True only if it holds for every
pair of points of the two balls.  A False therefore means *not proved*, never
*refuted*; the helpers here return ``None`` for "undecided" to make that explicit.

>>> from flint import arb
>>> third = arb(1) / 3
>>> sign(third * 3 - 1) is None      # the ball straddles 0: undecided, not "False"
True
>>> certainly_positive(third)
True

A computation that may be undecided at one precision is retried up the ladder
(64 -> 128 -> 256 -> 512 bits by default); undecided at the top means INCONCLUSIVE:

>>> outcome = decide_with_ladder(lambda prec: (None, {"why": "never decides"}))
>>> outcome.verdict.value, outcome.precision
('inconclusive', 512)

Algorithm
---------
Exact rationals enter as balls (:func:`to_ball`); every operation is python-flint's.  A certified decision
is an ``attempt(prec)`` run at each rung of the ladder in turn (:func:`decide_with_ladder`), its balls
rebuilt from the exact inputs at that precision; it stops at the first rung that decides.
:func:`ball_cholesky` is the textbook Cholesky on balls (about n^3/6 ball multiply-adds), stopping at
the first pivot not certainly > 0; :func:`ball_cholesky_blocked` is the same factorisation 32 columns at a
time with the panel solves and trailing updates in Arb's ``arb_mat`` routines; :func:`ball_cholesky_dot`
and :func:`ball_cholesky_panel` keep the textbook order with the inner sums as ``arb_mat`` products (the
panel version reads the matrix one column panel at a time, so a lazily built matrix is built only as far
as the factorisation gets).  :func:`certify_pd_residual` proves positive-definiteness without an interval
factorisation: a fixed-point Cholesky factor L of the midpoints minus c I, computed in exact integer
arithmetic (``fmpz_mat``), whose residual K - c I - L L^T it therefore knows exactly up to the entries'
radii and one rounding, and a rigorous bound, below c, on that residual's absolute row sums.

Soundness
---------
Rests on Arb's inclusion guarantee (every ball contains the exact value; docs/conventions.md section 2)
and on certain-only comparisons (section 3): :func:`sign` answers only when the ball lies on one side of
0.  A Cholesky whose pivots are all certainly > 0 proves that *every* symmetric matrix inside the entry
balls is positive definite; so does :func:`certify_pd_residual`'s bound (K = L L^T + S with S's eigenvalues
at least c minus the bound).  Rungs cannot contradict each other (section 5).

Limits
------
Undecided at the top rung (512 bits by default) is INCONCLUSIVE, never REFUTED.  The certifiers
(:func:`certify_positive_definite`, :func:`certify_full_column_rank`) return only PROVED or INCONCLUSIVE:
a failed Cholesky is not a proof of singularity.  Precisions must lie in [16, 1000000] bits; a
non-finite ball has no bounds (``ValueError`` in :func:`ball_bounds`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

from flint import arb, arb_mat, ctx, fmpq

from ..canonical import arf_to_fraction
from ..results import Verdict

__all__ = [
    "LADDER", "workprec", "to_ball", "ball_bounds", "ball_midpoint", "sign", "certainly_positive", "certainly_negative",
    "certainly_nonzero", "certainly_less", "certainly_contains", "LadderOutcome", "decide_with_ladder",
    "ball_cholesky", "ball_cholesky_blocked", "ball_cholesky_dot", "ball_cholesky_panel", "lower_column_blocks",
    "CholeskyOutcome", "CHOLESKY_BLOCK", "CHOLESKY_PANEL",
    "certify_positive_definite", "certify_full_column_rank", "approximate_cholesky", "certify_pd_residual",
    "ResidualOutcome", "RESIDUAL_BLOCK", "RESIDUAL_PANEL",
    "ball_str",
]

LADDER: tuple = (64, 128, 256, 512)
CHOLESKY_BLOCK = 32      # the block size of ball_cholesky_blocked
CHOLESKY_PANEL = 64      # the panel width of ball_cholesky_panel


def workprec(bits: int):
    """Context manager setting the working precision (bits) of python-flint."""
    if not isinstance(bits, int) or bits < 16 or bits > 1_000_000:
        raise ValueError(f"precision: must be an integer in [16, 1000000] bits, got {bits!r}")
    return ctx.workprec(bits)


def to_ball(q) -> arb:
    """An exact rational as a ball at the current precision (radius covers the rounding)."""
    if isinstance(q, arb):
        return q
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def ball_midpoint(x: arb) -> Fraction:
    """The exact midpoint of the ball ``x`` (a dyadic rational)."""
    return arf_to_fraction(x.mid())


def ball_bounds(x: arb) -> tuple:
    """Exact rational endpoints (lower, upper) of the ball ``x``."""
    if not x.is_finite():
        raise ValueError("ball: not finite (infinite radius or NaN midpoint)")
    mid = arf_to_fraction(x.mid())
    rad = arf_to_fraction(x.rad())
    return mid - rad, mid + rad


def ball_str(x: arb, digits: int = 20) -> str:
    return x.str(digits, radius=True)


def sign(x: arb) -> Optional[int]:
    """+1 or -1 if the ball certainly excludes 0 on that side, 0 if it is exactly zero, else None."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    if x.is_exact() and x == 0:
        return 0
    return None


def certainly_positive(x: arb) -> bool:
    """True only if every point of the ball is > 0 (False = not proved)."""
    return bool(x > 0)


def certainly_negative(x: arb) -> bool:
    return bool(x < 0)


def certainly_nonzero(x: arb) -> bool:
    return bool(x > 0) or bool(x < 0)


def certainly_less(a: arb, b: arb) -> bool:
    """True only if a < b holds for all points of both balls."""
    return bool(a < b)


def certainly_contains(ball: arb, q) -> bool:
    """True if the exact rational ``q`` lies in ``ball``."""
    lo, hi = ball_bounds(ball)
    return lo <= Fraction(q) <= hi


@dataclasses.dataclass(frozen=True)
class LadderOutcome:
    """Result of :func:`decide_with_ladder`: the verdict, the precision at which it was reached
    (or the top precision if undecided), and what each attempt reported."""

    verdict: Verdict
    precision: int
    attempts: tuple
    info: Any = None

    @property
    def decided(self) -> bool:
        return self.verdict is not Verdict.INCONCLUSIVE


def decide_with_ladder(attempt: Callable[[int], tuple], ladder: Sequence[int] = LADDER) -> LadderOutcome:
    """Run ``attempt(prec) -> (verdict or None, info)`` at increasing precision until decided.

    ``attempt`` is called inside ``workprec(prec)``.  ``None`` (undecided) at the top rung gives
    INCONCLUSIVE; a verdict is returned as soon as one rung decides.

    Algorithm
    ---------
    One call of ``attempt`` per rung, in the order given, until one returns a verdict; every attempt is
    recorded (precision, decided, verdict).  Cost: the sum of the attempts' costs.

    Soundness
    ---------
    The verdict is exactly what ``attempt`` returned; this driver adds nothing and decides nothing itself.

    Limits
    ------
    INCONCLUSIVE at the top rung (``ladder[-1]``, 512 bits by default) when no rung decides; ``info`` is
    then the last attempt's.  An empty ladder is a ``ValueError``.
    """
    if not ladder:
        raise ValueError("ladder: must contain at least one precision")
    attempts = []
    info = None
    for prec in ladder:
        with workprec(prec):
            verdict, info = attempt(prec)
        attempts.append({"precision_bits": prec, "decided": verdict is not None,
                         **({"verdict": Verdict(verdict).value} if verdict is not None else {})})
        if verdict is not None:
            return LadderOutcome(Verdict(verdict), prec, tuple(attempts), info)
    return LadderOutcome(Verdict.INCONCLUSIVE, ladder[-1], tuple(attempts), info)


@dataclasses.dataclass(frozen=True)
class CholeskyOutcome:
    """Interval Cholesky of a symmetric ball matrix.

    ``positive_definite`` is True when every pivot is certainly > 0 (a proof that every
    symmetric matrix in the balls is PD), and None when some pivot's ball touches 0 or below
    (undecided: never a proof of singularity).  ``pivots`` are the squared diagonal pivots.
    """

    positive_definite: Optional[bool]
    pivots: tuple
    failed_at: Optional[int] = None


def ball_cholesky(matrix: Sequence[Sequence[arb]]) -> CholeskyOutcome:
    """Interval Cholesky factorisation (rigorous: balls propagate through every operation).

    Algorithm
    ---------
    Column by column: pivot s_j = m_jj - sum_k L_jk^2, stop unless certainly > 0, then L_jj = sqrt(s_j)
    and L_ij = (m_ij - sum_k L_ik L_jk) / L_jj for i > j.  About n^3/6 ball multiply-adds.  Only the
    diagonal and the lower triangle of ``matrix`` are read (the matrix is taken to be symmetric).

    Soundness
    ---------
    ``positive_definite`` True: every pivot's ball is certainly > 0, so every symmetric matrix whose
    entries lie in the balls is positive definite (docs/conventions.md section 2).

    Limits
    ------
    ``None`` (undecided, never "not PD") at the first pivot whose ball touches 0 or lies below it
    (``failed_at``); a non-square matrix is a ``ValueError``.
    """
    n = len(matrix)
    for i, row in enumerate(matrix):
        if len(row) != n:
            raise ValueError(f"matrix: row {i} has length {len(row)}, expected {n} (square)")
    L = [[arb(0)] * n for _ in range(n)]
    pivots = []
    for j in range(n):
        s = to_ball(matrix[j][j])
        for k in range(j):
            s -= L[j][k] * L[j][k]
        pivots.append(s)
        if not certainly_positive(s):
            return CholeskyOutcome(None, tuple(pivots), failed_at=j)
        ljj = s.sqrt()
        L[j][j] = ljj
        for i in range(j + 1, n):
            t = to_ball(matrix[i][j])
            for k in range(j):
                t -= L[i][k] * L[j][k]
            L[i][j] = t / ljj
    return CholeskyOutcome(True, tuple(pivots))


def _scalar_block(e, r: int, b: int, pivots: list):
    """Textbook ball Cholesky of the leading b x b block of the r x r row-major entries ``e`` (lower
    triangle read); the factor's rows, or None at the first pivot not certainly > 0 (appended to ``pivots``)."""
    L = [[None] * b for _ in range(b)]
    for j in range(b):
        Lj = L[j]
        s = e[j * r + j]
        for k in range(j):
            s -= Lj[k] * Lj[k]
        pivots.append(s)
        if not certainly_positive(s):
            return None
        ljj = s.sqrt()
        Lj[j] = ljj
        for i in range(j + 1, b):
            Li = L[i]
            t = e[i * r + j]
            for k in range(j):
                t -= Li[k] * Lj[k]
            Li[j] = t / ljj
    return L


def _square_entries(matrix):
    """(n, row-major list of arb entries) of a square ``arb_mat`` or list of rows; ``ValueError`` otherwise."""
    if isinstance(matrix, arb_mat):
        n = matrix.nrows()
        if matrix.ncols() != n:
            raise ValueError(f"matrix: {n} x {matrix.ncols()} is not square")
        e = matrix.entries()
    else:
        n = len(matrix)
        for i, row in enumerate(matrix):
            if len(row) != n:
                raise ValueError(f"matrix: row {i} has length {len(row)}, expected {n} (square)")
        e = [to_ball(x) for row in matrix for x in row]
    return n, e


def ball_cholesky_blocked(matrix, block: int = CHOLESKY_BLOCK) -> CholeskyOutcome:
    """Blocked interval Cholesky: the outcome of :func:`ball_cholesky` (``positive_definite``, the squared
    pivots, ``failed_at``) with the O(n^3) work in Arb's own ``arb_mat`` routines.

    Algorithm
    ---------
    Right-looking, ``block`` columns at a time, on the trailing matrix T (an ``arb_mat``; at first the
    input, its lower triangle mirrored): the leading b x b block of T by the textbook ball Cholesky
    (b^3/6 ball operations in Python), the panel L21 = A21 L11^-T as ``arb_mat.solve(L11, A21^T)`` (Arb's
    ``arb_mat_solve``), the new trailing matrix A22 - L21 L21^T as one ``arb_mat`` product and difference.
    Cost: about n^3/3 ball multiply-adds inside Arb, n b^2/6 in Python, n^2/2 entry copies per block.

    Soundness
    ---------
    Fix any symmetric matrix A inside the entry balls (lower triangle).  Each operation is Arb's, which
    returns a ball containing the exact result for every point of its input balls: the scalar steps, the
    product and difference, and ``arb_mat_solve`` (its enclosure of A^-1 B holds for every A, B in the input
    balls; a numerically singular L11 raises, and the outcome is then undecided).  By induction every ball
    computed contains the corresponding exact quantity of the Cholesky factorisation of A (the blocked and
    the textbook factorisation are the same exact numbers); the pivots are those of A's factorisation, so if
    every pivot ball is certainly > 0, A is positive definite (docs/conventions.md section 2).  Only the
    lower triangle of each trailing matrix is read, so symmetry is exact.

    Limits
    ------
    ``None`` (undecided, never "not PD") at the first pivot whose ball touches 0 or lies below it
    (``failed_at``), or when ``arb_mat_solve`` cannot invert a diagonal block (``failed_at`` = its first
    column; no pivot recorded for it); the pivot balls are not those of :func:`ball_cholesky` (another order
    of operations), so a borderline pivot may be decided by one and not the other.  A non-square matrix is
    a ``ValueError``; ``block`` must be >= 1.
    """
    if not isinstance(block, int) or block < 1:
        raise ValueError(f"block: must be an integer >= 1, got {block!r}")
    n, e = _square_entries(matrix)
    pivots: list = []
    r, j0 = n, 0
    # the lower triangle, mirrored: T[i][c] = T[max(i, c)][min(i, c)]
    e = [e[i * r + c] if c <= i else e[c * r + i] for i in range(r) for c in range(r)]
    while r:
        b = min(block, r)
        L = _scalar_block(e, r, b, pivots)
        if L is None:
            return CholeskyOutcome(None, tuple(pivots), failed_at=len(pivots) - 1)
        rest = r - b
        if not rest:
            break
        L11 = arb_mat(b, b, [L[i][k] if k <= i else 0 for i in range(b) for k in range(b)])
        A21T = arb_mat(b, rest, [e[(b + i) * r + k] for k in range(b) for i in range(rest)])
        try:
            X = L11.solve(A21T)                          # L21^T = L11^-1 A21^T
        except ZeroDivisionError:
            return CholeskyOutcome(None, tuple(pivots), failed_at=j0 + b)
        A22 = arb_mat(rest, rest, [e[(b + i) * r + b + c] for i in range(rest) for c in range(rest)])
        t = (A22 - X.transpose() * X).entries()
        e = [t[i * rest + c] if c <= i else t[c * rest + i] for i in range(rest) for c in range(rest)]
        r, j0 = rest, j0 + b
    return CholeskyOutcome(True, tuple(pivots))


def ball_cholesky_dot(matrix) -> CholeskyOutcome:
    """Interval Cholesky with the inner sums in Arb: the outcome of :func:`ball_cholesky` (``positive_definite``,
    the squared pivots, ``failed_at``), its O(n^3) work as one ``arb_mat`` matrix-vector product per column.

    Algorithm
    ---------
    Left-looking, column by column: with L the factor so far (an n x n ``arb_mat``, zero beyond column j),
    d = L (L_j0, ..., L_j,j-1, 0, ...)^T gives every sum_k<j L_ik L_jk at once (``arb_mat`` product: Arb's
    dot products, one rounding per sum); then s_j = m_jj - d_j, stop unless certainly > 0, L_jj = sqrt(s_j)
    and L_ij = (m_ij - d_i) / L_jj for i > j.  n matrix-vector products (n^3 ball multiply-adds inside Arb,
    half of them by exact zeros), n^2/2 ball operations in Python.

    Soundness
    ---------
    The same factorisation and the same lemma as :func:`ball_cholesky`: every operation is Arb's, whose
    result contains the exact result for every point of its input balls, so for every symmetric matrix A
    inside the entry balls each computed ball contains the corresponding exact quantity of A's Cholesky
    factorisation; all pivots certainly > 0 prove every such A positive definite (docs/conventions.md
    section 2).  Only the diagonal and the lower triangle are read.

    Limits
    ------
    ``None`` (undecided, never "not PD") at the first pivot whose ball touches 0 or lies below it
    (``failed_at``); a non-square matrix is a ``ValueError``.  Its balls are close to, not equal to,
    :func:`ball_cholesky`'s (Arb's dot products round once per sum).
    """
    n, e = _square_entries(matrix)
    L = arb_mat(n, n)
    rows = [[] for _ in range(n)]          # rows[j] = [L_j0, ..., L_j,j-1] (Python copies, for the vectors)
    pivots = []
    for j in range(n):
        if j:
            d = (L * arb_mat(n, 1, rows[j] + [0] * (n - j))).entries()
            s = e[j * n + j] - d[j]
        else:
            d = None
            s = e[0]
        pivots.append(s)
        if not certainly_positive(s):
            return CholeskyOutcome(None, tuple(pivots), failed_at=j)
        ljj = s.sqrt()
        L[j, j] = ljj
        rows[j].append(ljj)
        for i in range(j + 1, n):
            t = e[i * n + j] if d is None else e[i * n + j] - d[i]
            lij = t / ljj
            L[i, j] = lij
            rows[i].append(lij)
    return CholeskyOutcome(True, tuple(pivots))


def lower_column_blocks(matrix):
    """(n, column_block) for :func:`ball_cholesky_panel` from a square matrix (``arb_mat`` or rows):
    ``column_block(j0, j1)`` is the (j1 - j0) x (n - j0) ``arb_mat`` C with C[c, r] = matrix[j0 + r][j0 + c]
    (the lower triangle, read column-wise; entries with r < c are never read)."""
    n, e = _square_entries(matrix)

    def column_block(j0, j1):
        return arb_mat(j1 - j0, n - j0, [e[i * n + j] if i >= j else 0 for j in range(j0, j1) for i in range(j0, n)])

    return n, column_block


def ball_cholesky_panel(n: int, column_block, panel: int = CHOLESKY_PANEL) -> CholeskyOutcome:
    """Interval Cholesky, left-looking by panels of ``panel`` columns: the outcome of :func:`ball_cholesky_dot`
    (``positive_definite``, the squared pivots, ``failed_at``) with about n^3/6 instead of n^3 ball
    multiply-adds inside Arb, reading the matrix one column panel at a time.

    ``column_block(j0, j1)`` returns the (j1 - j0) x (n - j0) ``arb_mat`` C with C[c, r] enclosing
    A[j0 + r, j0 + c] for r >= c (the lower triangle of columns j0..j1-1, rows j0..n-1; see
    :func:`lower_column_blocks`); it is called once per panel, in order, and never past the panel of the
    first pivot not certainly > 0, so a matrix built lazily (the NTK Gram, docs/ntk.md) is only built as
    far as the factorisation gets.

    Algorithm
    ---------
    For each panel [j0, j1): its columns C, minus the contribution of the columns already factored,
    L[j0:j1, :j0] L[j0:, :j0]^T (one ``arb_mat`` product and difference); then inside the panel
    :func:`ball_cholesky_dot`'s step on a (n - j0) x (j1 - j0) ``arb_mat`` of the panel's factor, one
    matrix-vector product per column.  With one panel (n <= ``panel``) every operation is
    :func:`ball_cholesky_dot`'s, so its balls are the same, bit for bit.

    Soundness
    ---------
    The same lemma as :func:`ball_cholesky`: every operation (product, difference, square root, division)
    is Arb's, whose result contains the exact result for every point of its input balls, so for every
    symmetric matrix A inside the entry balls (lower triangle) each computed ball contains the corresponding
    exact quantity of A's Cholesky factorisation (the sum over k < j of L_ik L_jk split at j0 is the same
    exact number); all pivots certainly > 0 prove every such A positive definite (docs/conventions.md
    section 2).

    Limits
    ------
    ``None`` (undecided, never "not PD") at the first pivot whose ball touches 0 or lies below it
    (``failed_at``); ``panel`` must be >= 1.  For n > ``panel`` the balls differ from
    :func:`ball_cholesky_dot`'s by the extra rounding of each split sum (measured: no decision changes).
    """
    if not isinstance(panel, int) or panel < 1:
        raise ValueError(f"panel: must be an integer >= 1, got {panel!r}")
    rows = [[] for _ in range(n)]          # rows[i] = [L_i0, ..., L_i,j-1]
    pivots = []
    for j0 in range(0, n, panel):
        j1 = min(n, j0 + panel)
        b, r = j1 - j0, n - j0
        C = column_block(j0, j1)
        if j0:
            Lo = arb_mat([rows[i][:j0] for i in range(j0, n)])          # r x j0
            Lb = arb_mat([rows[i][:j0] for i in range(j0, j1)])         # b x j0
            C = C - Lb * Lo.transpose()
        e = C.entries()                     # e[c * r + rr] = A[j0 + rr, j0 + c] - sum_{k < j0} L L
        P = arb_mat(r, b)                   # the panel of the factor, L[j0:, j0:j1]
        for c in range(b):
            j = j0 + c
            base = c * r
            if c:
                d = (P * arb_mat(b, 1, rows[j][j0:] + [0] * (b - c))).entries()
                s = e[base + c] - d[c]
            else:
                d = None
                s = e[base]
            pivots.append(s)
            if not certainly_positive(s):
                return CholeskyOutcome(None, tuple(pivots), failed_at=j)
            ljj = s.sqrt()
            P[c, c] = ljj
            rows[j].append(ljj)
            for rr in range(c + 1, r):
                t = e[base + rr] if d is None else e[base + rr] - d[rr]
                lij = t / ljj
                P[rr, c] = lij
                rows[j0 + rr].append(lij)
    return CholeskyOutcome(True, tuple(pivots))


def certify_positive_definite(build: Callable[[int], Sequence[Sequence[arb]]],
                              ladder: Sequence[int] = LADDER) -> LadderOutcome:
    """Certify that the symmetric matrix produced by ``build(prec)`` (balls) is positive definite.

    The matrix is rebuilt at each rung.  PROVED if the interval Cholesky succeeds; otherwise
    INCONCLUSIVE at the top rung (this routine never REFUTES: singularity needs an exact null vector).
    The ``info`` of the outcome holds the pivots of the last attempt.

    Algorithm
    ---------
    :func:`ball_cholesky` of ``build(prec)`` at each rung of ``ladder``, without rescaling.

    Soundness
    ---------
    PROVED rests on :func:`ball_cholesky` (every symmetric matrix in the balls is PD) and on ``build``
    returning enclosures of the intended matrix.

    Limits
    ------
    Only PROVED or INCONCLUSIVE; an ill-conditioned matrix needs about 2 log2(cond) bits before the
    pivots separate from 0.
    """

    def attempt(prec):
        M = build(prec)
        # factored as built, without rescaling (certify_full_column_rank normalises its columns first)
        chol = ball_cholesky(M)
        return (Verdict.PROVED if chol.positive_definite else None), chol

    return decide_with_ladder(attempt, ladder)


def certify_full_column_rank(build: Callable[[int], Sequence[Sequence[arb]]],
                             ladder: Sequence[int] = LADDER) -> LadderOutcome:
    """Certify full column rank of the ball matrix ``build(prec)`` (rows x cols, rows >= cols).

    Method: the column-scaled Gram matrix G = D Φᵀ Φ D (D = 1/‖column‖ as a ball) is certified
    PD by interval Cholesky.  Only PROVED or INCONCLUSIVE can come out.

    Algorithm
    ---------
    Per rung: column norms as balls, columns divided by them, G = (normalised Φ)ᵀ (normalised Φ) in
    O(rows cols^2) ball operations, then :func:`ball_cholesky` of G.

    Soundness
    ---------
    G PD implies that the columns of every matrix in the balls are independent (full column rank).

    Limits
    ------
    Undecided (INCONCLUSIVE at the top rung) when rows < cols, when a column's squared norm is not
    certainly > 0, or when a pivot of G is not certainly > 0; never REFUTED.
    """

    def attempt(prec):
        Phi = build(prec)
        nr = len(Phi)
        nc = len(Phi[0]) if nr else 0
        if nr < nc:
            return None, {"reason": f"{nr} rows < {nc} columns"}
        cols = [[to_ball(Phi[r][c]) for r in range(nr)] for c in range(nc)]
        norms = []
        for col in cols:
            s = arb(0)
            for v in col:
                s += v * v
            if not certainly_positive(s):
                return None, CholeskyOutcome(None, (), failed_at=len(norms))
            norms.append(s.sqrt())
        cols = [[v / norms[c] for v in col] for c, col in enumerate(cols)]
        G = [[arb(0)] * nc for _ in range(nc)]
        for a in range(nc):
            for b in range(a, nc):
                s = arb(0)
                ca, cb = cols[a], cols[b]
                for r in range(nr):
                    s += ca[r] * cb[r]
                G[a][b] = s
                G[b][a] = s
        chol = ball_cholesky(G)
        return (Verdict.PROVED if chol.positive_definite else None), chol

    return decide_with_ladder(attempt, ladder)


# ------------------------------------------------------------------------------- PD by a residual bound
RESIDUAL_BLOCK = 128      # the block size of approximate_cholesky
RESIDUAL_LEAF = 32        # ... and of its leading blocks (the textbook loop at or below)
RESIDUAL_PANEL = 32       # the panel width of certify_pd_residual's integer factorisation


def _mirrored_lower(K: arb_mat) -> arb_mat:
    """The square ``arb_mat`` whose (i, j) entry is K[max(i, j), min(i, j)] (the lower triangle, mirrored)."""
    n = K.nrows()
    e = K.entries()
    return arb_mat(n, n, [e[i * n + j] if j <= i else e[j * n + i] for i in range(n) for j in range(n)])


def approximate_cholesky(M: arb_mat, block: int = RESIDUAL_BLOCK, leaf: int = RESIDUAL_LEAF) -> tuple:
    """(L, pivots, failed_at): a floating-point Cholesky factor of the symmetric ``arb_mat`` M at the current
    precision, with no error bound: L is an n x n lower-triangular ``arb_mat`` of exact (midpoint) entries,
    ``pivots`` the approximate squared pivots (Python floats), ``failed_at`` the first pivot not > 0 (then
    L is None) or None.  It decides nothing (the arb version of the factor; :func:`certify_pd_residual`
factors in exact integers instead, which is faster and gives the residual exactly).

    Right-looking, ``block`` columns at a time on the midpoints: the leading block by the same routine with
    blocks of ``leaf`` columns (the textbook loop at or below ``leaf``), the panel L21^T = L11^-1 A21^T by
    ``arb_mat.solve(..., algorithm="approx")`` (Arb's floating-point solve), the trailing matrix
    A22 - L21 L21^T as one ``arb_mat`` product (wide blocks: Arb's products are slow on thin ones), all
    rounded to midpoints.
    """
    n = M.nrows()
    T = M.mid()
    if n <= leaf or block >= n and leaf >= n:
        return _approx_scalar_cholesky(T, n)
    L = [0] * (n * n)
    pivots = []
    j0 = 0
    while j0 < n:
        r = n - j0
        b = min(block, r)
        e = T.entries()
        A11 = arb_mat(b, b, [e[i * r + k] for i in range(b) for k in range(b)])
        if b > leaf:
            L11, piv, failed = approximate_cholesky(A11, leaf, leaf)
        else:
            L11, piv, failed = _approx_scalar_cholesky(A11, b)
        pivots.extend(piv)
        if L11 is None:
            return None, tuple(pivots), j0 + failed
        l11 = L11.entries()
        for i in range(b):
            for k in range(i + 1):
                L[(j0 + i) * n + j0 + k] = l11[i * b + k]
        rest = r - b
        if rest:
            A21T = arb_mat(b, rest, [e[(b + i) * r + k] for k in range(b) for i in range(rest)])
            X = L11.solve(A21T, algorithm="approx").mid()          # L21^T, b x rest
            x = X.entries()
            for k in range(b):
                for i in range(rest):
                    L[(j0 + b + i) * n + j0 + k] = x[k * rest + i]
            A22 = arb_mat(rest, rest, [e[(b + i) * r + b + c] for i in range(rest) for c in range(rest)])
            T = (A22 - X.transpose() * X).mid()
        j0 += b
    return arb_mat(n, n, L), tuple(pivots), None


def _approx_scalar_cholesky(T: arb_mat, n: int) -> tuple:
    """The textbook Cholesky loop of :func:`approximate_cholesky` on the midpoints of an n x n ``arb_mat``."""
    e = T.entries()
    Lb = [[0] * n for _ in range(n)]
    pivots = []
    for j in range(n):
        Lj = Lb[j]
        s = e[j * n + j]
        for k in range(j):
            s -= Lj[k] * Lj[k]
        s = s.mid()
        pivots.append(float(s))
        if not s > 0:
            return None, tuple(pivots), j
        ljj = s.sqrt().mid()
        Lj[j] = ljj
        for i in range(j + 1, n):
            Li = Lb[i]
            t = e[i * n + j]
            for k in range(j):
                t -= Li[k] * Lj[k]
            Li[j] = (t / ljj).mid()
    return arb_mat(Lb), tuple(pivots), None


@dataclasses.dataclass(frozen=True)
class ResidualOutcome:
    """Outcome of :func:`certify_pd_residual`.  ``positive_definite`` True is a proof that every symmetric
    matrix inside the balls is PD; None is undecided (never "not PD").  ``shift`` c and ``residual`` (an
    upper bound on max_i sum_j |(K - c I - L L^T)_ij|) are exact rationals (None when the approximate
    factorisation broke down, at ``failed_at``); ``pivots`` are the approximate squared pivots (floats,
    evidence only)."""

    positive_definite: Optional[bool]
    shift: Optional[Fraction]
    residual: Optional[Fraction]
    pivots: tuple
    failed_at: Optional[int] = None


def _mid_fixed(x: arb, s: int) -> int:
    """floor(mid(x) 2^s) as an ``fmpz`` (exact: the midpoint is a dyadic number)."""
    m, e = x.mid().man_exp()
    e = int(e) + s
    return m << e if e >= 0 else m >> -e


def certify_pd_residual(K: arb_mat, block: int = RESIDUAL_PANEL) -> ResidualOutcome:
    """Certify that every symmetric matrix inside the ball matrix K (lower triangle read) is positive definite,
    from a fixed-point Cholesky factor computed in exact integer arithmetic, whose residual is then exact.

    Algorithm
    ---------
    p = the working precision, t = max_i mid(K_ii), u = 2^-s with u ~ 2^-(p+8) sqrt(t) (a fixed-point
    quantum).  K's midpoints are rounded down to integers at scale u^2 (Kz = floor(mid(K) / u^2), the lower
    triangle mirrored) and the shift is the integer C = floor(8 (n + 2)^2 t_z 2^-p) (t_z = max_i Kz_ii),
    i.e. c = C u^2 (about 8 (n + 2)^2 2^-p t: a few times the error a p-bit factorisation is expected to
    make, and the entries' own radii).  A left-looking Cholesky of the integer matrix A = Kz - C I by panels
    of ``block`` columns gives an integer lower-triangular Z (L = Z u): per panel one ``fmpz_mat`` product
    with the columns already factored, then per column one ``fmpz_mat`` matrix-vector product, an integer
    square root for the pivot and round-to-nearest integer divisions below it.  Every Schur complement
    entry is computed exactly, so the residual R' = A - Z Z^T falls out of the factorisation exactly, entry
    by entry (R'_ij = S_ij - Z_ij Z_jj).  With r = the largest radius of K's lower entries, the row bound
    is s_i = (sum_j |R'_ij| + n) u^2 + n r (R' symmetric), compared exactly with c.  Cost: about n^3/6
    integer multiply-adds inside flint, n^2/2 integer operations in Python.

    Soundness
    ---------
    Fix any symmetric matrix A inside the balls (only the lower triangle is read; the upper one mirrors it).
    L = Z u and c = C u^2 are exact, and A - c I - L L^T = (A - mid K) + (mid K - Kz u^2) + R' u^2 entry
    for entry, with |A_ij - mid K_ij| <= r (the balls), 0 <= mid K_ij - Kz_ij u^2 < u^2 (the floor) and
    R' exact; it is symmetric, so its spectral radius is at most its largest absolute row sum, at most
    max_i s_i < c.  Hence S = A - L L^T has every eigenvalue >= c - max_i s_i > 0, and A = L L^T + S is
    positive semidefinite plus positive definite: positive definite.  The factorisation only chooses Z (the
    roundings, the square roots); whether it is accurate decides nothing but whether the bound passes.  The
    precision a success needs is about log2 of the condition number plus 2 log2 n bits, against about one
    bit per row more for the interval Cholesky, whose radii grow down the factorisation.

    Limits
    ------
    ``None`` (undecided, never "not PD") when the factorisation breaks down (``failed_at``: a pivot of
    A not > 0, e.g. lambda_min(K) below c), an entry is not finite, or the bound fails; a non-square
    matrix is a ``ValueError``.  The pivots are floating-point estimates, not enclosures.
    """
    if not isinstance(K, arb_mat):
        raise ValueError("K: must be an arb_mat")
    n = K.nrows()
    if K.ncols() != n:
        raise ValueError(f"K: {n} x {K.ncols()} is not square")
    if not isinstance(block, int) or block < 1:
        raise ValueError(f"block: must be an integer >= 1, got {block!r}")
    prec = ctx.prec
    e = K.entries()
    lower = [e[i * n:i * n + i + 1] for i in range(n)]
    if not n or not all(x.is_finite() for row in lower for x in row):
        return ResidualOutcome(None, None, None, (), failed_at=0)
    top = max(row[-1].mid() for row in lower)
    if not top > 0:
        return ResidualOutcome(None, None, None, (), failed_at=0)
    s2 = 2 * (prec + 8) - _log2(top)                                    # u^2 = 2^-s2
    A = [[_mid_fixed(x, s2) for x in row] for row in lower]
    u2 = _pow2(-s2)
    # |A_ij - Kz_ij u^2| <= (radius) + (floor error) for every A inside the balls
    entry = ball_bounds(_max_rad(lower))[1] + u2
    return _residual_core(A, n, prec, u2, entry, block)


def _log2(x: arb) -> int:
    """An integer within 1 of log2 of the positive exact number mid(x)."""
    q = arf_to_fraction(x.mid())
    return q.numerator.bit_length() - q.denominator.bit_length()


def _pow2(k: int) -> Fraction:
    return Fraction(2 ** k) if k >= 0 else Fraction(1, 2 ** -k)


def _max_rad(rows) -> arb:
    """The largest radius of the balls in ``rows`` (an exact arb: radii are dyadic numbers)."""
    rmax = arb(0)
    for row in rows:
        for x in row:
            rx = x.rad()
            if rx > rmax:
                rmax = rx
    return rmax


def _residual_core(A: list, n: int, prec: int, u2: Fraction, entry: Fraction, block: int) -> ResidualOutcome:
    """The integer factorisation and exact residual of :func:`certify_pd_residual`: ``A`` the lower triangle
    (rows of ``fmpz``) of an integer matrix at scale ``u2``, every entry of the exact matrix within ``entry``
    of A u2 (modified in place: the shift is subtracted from its diagonal)."""
    from flint import fmpz, fmpz_mat

    if not max(row[-1] for row in A) > 0:
        return ResidualOutcome(None, None, None, (), failed_at=0)
    C = (8 * (n + 2) ** 2 * int(max(row[-1] for row in A))) >> prec
    for i in range(n):
        A[i][i] -= C
    Z = [[] for _ in range(n)]              # Z[i] = [Z_i0, ..., Z_i,j-1]
    sums = [fmpz(0)] * n                   # sum_j |R'_ij| over the entries computed so far
    pivots = []

    def fl(v: int) -> float:                # an approximate pivot (evidence only)
        try:
            return float(Fraction(int(v)) * u2)
        except OverflowError:
            return float("inf") if v > 0 else float("-inf")

    for j0 in range(0, n, block):
        j1 = min(n, j0 + block)
        b, r = j1 - j0, n - j0
        Cm = [A[j0 + rr][j0:j0 + min(b, rr + 1)] for rr in range(r)]
        if j0:
            W = (fmpz_mat([Z[i][:j0] for i in range(j0, n)]) * fmpz_mat([Z[i][:j0] for i in range(j0, j1)]).transpose()).entries()
            for rr in range(r):
                row = Cm[rr]
                base = rr * b
                for c in range(len(row)):
                    row[c] -= W[base + c]
        P = fmpz_mat(r, b)                  # the panel of Z, Z[j0:, j0:j1]
        for c in range(b):
            j = j0 + c
            if c:
                d = (P * fmpz_mat(b, 1, Z[j][j0:] + [0] * (b - c))).entries()
                sjj = Cm[c][c] - d[c]
            else:
                d = None
                sjj = Cm[c][c]
            pivots.append(fl(sjj))
            if not sjj > 0:
                return ResidualOutcome(None, None, None, tuple(pivots), failed_at=j)
            z = sjj.isqrt()
            sums[j] += abs(sjj - z * z)
            P[c, c] = z
            Z[j].append(z)
            z2 = 2 * z
            for rr in range(c + 1, r):
                t = Cm[rr][c] if d is None else Cm[rr][c] - d[rr]
                q = (2 * t + z) // z2               # round(t / z)
                P[rr, c] = q
                Z[j0 + rr].append(q)
                res = abs(t - q * z)                # R'_(j0+rr, j), exactly
                sums[j0 + rr] += res
                sums[j] += res
    shift = C * u2
    worst = (int(max(sums)) * u2) + n * entry
    ok = worst < shift
    return ResidualOutcome(True if ok else None, shift, worst, tuple(pivots), failed_at=None if ok else n)
