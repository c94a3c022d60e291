"""Certificates of linear independence modulo affine functions (docs/paper2.md §5.1).

A relation sum_i c_i Lambda_i = <a, theta> + b forces, at every theta in U,
* the **design** rows [Lambda_1 .. Lambda_N | 1 | theta] to annihilate (c, -b, -a)        (modulo constants: no theta);
* the **Hessian** rows vec(nabla^2 Lambda_i(theta)) to annihilate c;
* the **gradient** rows nabla Lambda_i(theta) to annihilate c when a = 0 (modulo constants).
So a full-column-rank matrix of any of these kinds, at any points of U, proves independence.

Three certificate builders:

* :func:`modular_certificate` -- discrete laws with rational atoms.  At theta = q log z (z a vector of
  positive integers) every tilted weight is rational, so the Hessian (or gradient) matrix is a rational matrix.
  Its reduction modulo a prime p (legal when no denominator is divisible by p, which is checked) has rank at
  most its rank over Q, so **rank N modulo p proves rank N over Q**.  Exact, and fast (vectorised int64
  arithmetic modulo p < 2^30, then ``nmod_mat.rank``).
* :func:`exact_rational_certificate` -- Gaussian and Laplace laws (and mixtures with separation 0), whose
  gradients and Hessians are rational at rational theta: rank over Q (``fmpq_mat``).
* :func:`ball_design_certificate` -- any laws: arb enclosures of the design matrix at exact rational points,
  full column rank certified by interval Cholesky of the preconditioned Gram matrix (Phi X)^T (Phi X),
  X ~ R^{-1} from a QR of the midpoints, up a precision ladder.

Algorithm
---------
* modular: ceil(N / rows per point) + 2 random integer points z (coordinates in [2, 2^20)), the matrix
  mod p in int64 numpy (chunks of at most 2^21 elements), ``nmod_mat.rank``; up to three primes, fresh
  points for each.  Cost: O(points x atoms x d) modular products plus the rank.
* exact: the rational Hessian / gradient rows at the given points, ``fmpq_mat.rank``.
* ball: the design rows as balls, Y = Phi X, interval Cholesky of Y^T Y, at each rung
  (O(rows x N^2) ball operations).
* kernel certificates (:func:`kernel_modular`, :func:`kernel_exact`, :func:`kernel_ball`): N (or
  N + 1 + d) pivot rows and the determinant of that square minor.

Soundness
---------
Modular: rank mod p <= rank over Q when no denominator vanishes mod p (weights, z and every normaliser
are checked).  Exact: rank over Q.  Ball: rank(Phi X) <= rank(Phi) for any X, so the preconditioner may be
computed in floating point (docs/conventions.md section 7) and Cholesky of the balls proves full rank.
The Result carries only the minor, whose determinant the kernel recomputes (:mod:`verify.kernel.lse`).

Limits
------
A rank below N at all three primes, a singular preconditioner or an undecided Cholesky at the top rung is
"not certified", never a proof of dependence.  The modular certificate needs discrete laws with rational
atoms; the exact one Gaussian / Laplace laws or mixtures with separation 0.  :func:`kernel_ball` gives up
(None) when no square determinant is certified with radius < 2^-18 |midpoint| at the kernel's ladder
(128, 512, 2048 bits).  :func:`design_points` raises :class:`~verify.errors.InputError` when it cannot
place the points in the common domain (box halved down to 2^-20).

>>> from verify.laws import Discrete
>>> cert = modular_certificate([Discrete([[0], [1]]), Discrete([[0], [2]])], "affine", seed=0)
>>> cert["certified"], cert["variant"], cert["rank"]
(True, 'hessian-modp', 2)
"""

from __future__ import annotations

import math
import random
from itertools import chain
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np
from flint import fmpq, fmpq_mat, fmpz_mat, nmod_mat
from gmpy2 import powmod

from flint import arb

from ..arith.ball import LADDER, ball_cholesky, ball_midpoint, decide_with_ladder, to_ball, workprec
from ..results import Verdict
from ..arith.exact import fraction_str
from ..errors import InputError
from ..kernel.lse import det_mod_handed
from ..laws.cgf import laplace_quad
from .lattice import integer_atoms

__all__ = [
    "PRIMES", "modular_certificate", "modular_matrix", "exact_rational_certificate", "ball_design_certificate",
    "design_points", "design_rows_ball", "square_design_points", "square_design_certificate", "certify_rank_preconditioned", "in_common_domain", "sigma_ratio_mp", "rational_hessian_family",
]

PRIMES = (1073741789, 1073741783, 1073741741)   # the largest primes < 2^30: products of residues fit in int64, and
#                                                 CPython reduces modulo a one-digit (30-bit) int fastest
Z_RANGE = (2, 1 << 20)                          # z coordinates: random positive integers in this range


# ---------------------------------------------------------------------------------------------
# modular arithmetic (vectorised, int64, p < 2^31)

def _inverses_vec(a: np.ndarray, p: int) -> np.ndarray:
    """x^-1 mod p elementwise (int64 array of residues non-zero mod p, p < 2^31): a product tree of pairs
    level by level, one modular inverse of its root, then down the tree (the inverse of a pair's product times
    one member is the inverse of the other)."""
    levels = [a.ravel()]
    while len(levels[-1]) > 1:
        x = levels[-1]
        if len(x) % 2:
            x = levels[-1] = np.append(x, 1)
        levels.append(x[0::2] * x[1::2] % p)
    inv = np.array([pow(int(levels[-1][0]), -1, p)], dtype=np.int64)
    for x in reversed(levels[:-1]):
        inv = inv[:len(x) // 2]          # without the inverse of a padding 1 of the level above
        out = np.empty(len(x), dtype=np.int64)
        out[0::2] = inv * x[1::2] % p
        out[1::2] = inv * x[0::2] % p
        inv = out
    return inv[:a.size].reshape(a.shape)


def _residue(x: Fraction, p: int) -> Optional[int]:
    if x.denominator % p == 0:
        return None
    return (x.numerator % p) * pow(x.denominator, -1, p) % p


CHUNK_ELEMENTS = 1 << 21     # bound on points x laws x atoms held in one int64 array


def modular_matrix(laws, variant: str, zpoints: Sequence, q: int, p: int):
    """As :func:`_modular_block`, processing the laws in chunks so memory stays bounded."""
    K = max(len(l.atoms) for l in laws)
    step = max(1, CHUNK_ELEMENTS // max(1, K * len(zpoints)))
    blocks = []
    for start in range(0, len(laws), step):
        rows, bad = _modular_block(laws[start:start + step], variant, zpoints, q, p)
        if rows is None:
            return None, bad
        blocks.append(rows)
    return [sum((b[r] for b in blocks), []) for r in range(len(blocks[0]))], []


SMALL_BLOCK = 4096           # points x laws x atoms up to which the block is formed with Python ints (no numpy:
#                              for the many small families of the N6 audits numpy's per-call overhead dominates)


def _atom_sum(A):
    """Sum over the last axis (the atoms) of an int64 array (einsum: faster than ``sum(axis=2)`` for a short
    last axis; integers, so the same sums)."""
    return np.einsum("mnk->mn", A)


def _power_table(zs, vals, p: int):
    """int64 table [z^v mod p for v in vals] for each z of ``zs`` (p does not divide z; v sorted integers):
    gmpy2 ``powmod`` for each v when the values are spread, else z^(v_0) once and successive products by z."""
    if vals[-1] - vals[0] > 64:
        return np.array([[int(powmod(z, v % (p - 1), p)) for v in vals] for z in zs], dtype=np.int64)
    Z = np.array(zs, dtype=np.int64)
    run = np.empty((len(zs), vals[-1] - vals[0] + 1), dtype=np.int64)
    run[:, 0] = [int(powmod(z, vals[0] % (p - 1), p)) for z in zs]
    for t in range(1, run.shape[1]):
        run[:, t] = run[:, t - 1] * Z % p
    return run[:, [v - vals[0] for v in vals]]


def _modular_block(laws, variant: str, zpoints: Sequence, q: int, p: int):
    """The Hessian (``variant='hessian'``: d(d+1)/2 rows per point) or gradient (d rows per point) matrix
    of the laws at theta_k = q log z_k, reduced modulo p, as a list of rows (columns = laws), computed for
    the integer atoms X = q x (a common factor q^2 or q, which does not change the rank).

    Returns ``(rows, bad)`` where ``bad`` lists the (law, point) pairs whose normaliser vanished mod p
    (their rows are then unusable and the caller must pick another prime or point set).
    """
    N = len(laws)
    d = laws[0].dim
    K = max(len(l.atoms) for l in laws)
    M = len(zpoints)
    if variant in ("hessian", "gradient") and M * N * K <= SMALL_BLOCK:
        return _modular_block_small(laws, variant, zpoints, q, p)
    # coordinates X = q x mod p and weights mod p; padded atoms get weight 0 (and X = 0).  z^X mod p is a
    # product over j of z_j^{X_j}: one Python pow per point and distinct exponent of coordinate j (a table),
    # then gathered by index (exact: z_j^e = z_j^(e mod (p - 1)) mod p as p does not divide z_j).
    W = np.zeros((N, K), dtype=np.int64)
    _, ints = integer_atoms(laws, q)                                   # q x, integer
    dens = {w.denominator for law in laws for w in law.weights}
    if any(den % p == 0 for den in dens):
        i, k = min((i, k) for i, law in enumerate(laws) for k, w in enumerate(law.weights) if w.denominator % p == 0)
        return None, [("weight", i, k)]
    inv = {den: pow(den, -1, p) for den in dens}                       # weight denominator -> inverse mod p
    if all(len(law.weights) == K for law in laws):                    # one array of all the residues
        W[:] = np.array([w.numerator % p * inv[w.denominator] % p for law in laws for w in law.weights],
                        dtype=np.int64).reshape(N, K)
    else:
        for i, law in enumerate(laws):
            W[i, :len(law.weights)] = [w.numerator % p * inv[w.denominator] % p for w in law.weights]
    Zi = [[int(z) % p for z in zp] for zp in zpoints]
    if any(z == 0 for zp in Zi for z in zp):
        return None, [("z divisible by p",)]
    # X[i, k] = q x of atom k of law i (padded atoms: 0), as Python ints (any size), then their positions in the
    # sorted distinct values of each coordinate and their residues mod p (int64)
    xmax = max(map(abs, chain.from_iterable(chain.from_iterable(ints))))
    small = xmax < (1 << 62)
    X = np.zeros((N, K, d), dtype=np.int64 if small else object)
    if small and all(len(A) == K for A in ints):
        X[:] = ints
    else:
        for i, A in enumerate(ints):
            if A:
                X[i, :len(A)] = A
    mono = np.ones((M, N, K), dtype=np.int64)                          # mono[m, i, k] = prod_j z_mj^{X_ikj}
    Xp = np.zeros((N, K, d), dtype=np.int64)
    for j in range(d):
        vals = sorted({a[j] for A in ints for a in A} | {0})
        if small:                      # int64: positions by a sorted search, residues by numpy's % (>= 0)
            idx = np.searchsorted(np.array(vals, dtype=np.int64), X[:, :, j])
            Xp[:, :, j] = X[:, :, j] % p
        else:
            pos = {v: n for n, v in enumerate(vals)}
            Xj = X[:, :, j].ravel().tolist()
            idx = np.array([pos[x] for x in Xj], dtype=np.int64).reshape(N, K)
            Xp[:, :, j] = np.array([x % p for x in Xj], dtype=np.int64).reshape(N, K)
        table = _power_table([zp[j] for zp in Zi], vals, p)
        mono = (mono * table[:, idx]) % p
    wt = (mono * W[None, :, :]) % p                                    # w_k z^{X_k}
    S = _atom_sum(wt) % p                                              # (M, N)
    bad = [(int(m), int(i)) for m, i in zip(*np.nonzero(S == 0))]
    if bad:
        return None, bad
    Sinv = _inverses_vec(S, p)
    G = np.zeros((d, M, N), dtype=np.int64)                            # G[j]: E[X_j] at every (point, law)
    tiny = small and K * xmax * xmax < (1 << 31)
    pairs = [(a, b) for a in range(d) for b in range(a, d)]
    if tiny:
        # small exponents (K X^2 < 2^31): the moments sum_k w_k z^X_k Y_k of Y = X_j and X_a X_b (signed, exact:
        # every sum stays below K p X^2 < 2^62) in one product over the atoms, reduced, times 1 / S
        Y = np.concatenate([X] + ([X[:, :, [a for a, _ in pairs]] * X[:, :, [b for _, b in pairs]]]
                                  if variant == "hessian" else []), axis=2)
        Y = np.ascontiguousarray(Y.transpose(2, 0, 1))                # (moments, N, K)
        mom = np.stack([np.einsum("mnk,nk->mn", wt, Yc) for Yc in Y]) % p * Sinv[None] % p
        G[:] = mom[:d]                                                 # gradient: E[X_j]
        second = mom[d:]                                               # E[X_a X_b], (pairs, M, N)
    else:                               # each product reduced mod p, with the tilted weights P = w z^X / S
        P = (wt * Sinv[:, :, None]) % p
        PX = [(P * Xp[None, :, :, j]) % p for j in range(d)]           # (M, N, K) each
        for j in range(d):
            G[j] = _atom_sum(PX[j]) % p
        second = None
    if variant == "gradient":
        block = G.transpose(1, 0, 2)                                       # (M, d, N): row (m, j)
    elif variant == "hessian":
        block = np.empty((M, len(pairs), N), dtype=np.int64)
        for r, (a, b) in enumerate(pairs):
            sec = second[r] if second is not None else _atom_sum((PX[a] * Xp[None, :, :, b]) % p) % p
            block[:, r, :] = (sec - (G[a] * G[b]) % p) % p
    else:
        raise InputError("variant", f"must be 'hessian' or 'gradient', got {variant!r}")
    return block.reshape(M * block.shape[1], N).tolist(), []


def _modular_block_small(laws, variant: str, zpoints: Sequence, q: int, p: int):
    """:func:`_modular_block` with Python integers: the same residues in the same order (every entry is the
    same expression modulo p), for small blocks."""
    d = laws[0].dim
    Xs, Ws = [], []
    for i, law in enumerate(laws):
        W = []
        for k, w in enumerate(law.weights):
            r = _residue(w, p)
            if r is None:
                return None, [("weight", i, k)]
            W.append(r)
        Ws.append(W)
        Xs.append([[x.numerator * (q // x.denominator) for x in a] for a in law.atoms])    # q x, integer
    Zi = [[int(z) % p for z in zp] for zp in zpoints]
    if any(z == 0 for zp in Zi for z in zp):
        return None, [("z divisible by p",)]
    vals = [sorted({X[j] for A in Xs for X in A}) for j in range(d)]
    tables = [[{v: int(powmod(zp[j], v % (p - 1), p)) for v in vals[j]} for j in range(d)] for zp in Zi]
    Xm = [[[x % p for x in X] for X in A] for A in Xs]
    pairs = [(a, b) for a in range(d) for b in range(a, d)] if variant == "hessian" else None
    bad, blocks = [], []
    for m in range(len(Zi)):
        tab = tables[m]
        cols = []
        for i, (A, W, Am) in enumerate(zip(Xs, Ws, Xm)):
            wt = []
            for X, w in zip(A, W):
                v = w
                for j in range(d):
                    v = v * tab[j][X[j]] % p
                wt.append(v)
            S = sum(wt) % p
            if S == 0:
                bad.append((m, i))
                continue
            Sinv = pow(S, -1, p)
            P = [v * Sinv % p for v in wt]
            G = [sum(u * X[j] % p for u, X in zip(P, Am)) % p for j in range(d)]
            if pairs is None:
                cols.append(G)
            else:
                cols.append([(sum(u * X[a] % p * X[b] % p for u, X in zip(P, Am)) % p - G[a] * G[b] % p) % p
                             for a, b in pairs])
        blocks.append(cols)
    if bad:
        return None, bad
    return [list(r) for cols in blocks for r in zip(*cols)], []


def _zpoints(rng: random.Random, M: int, d: int) -> list:
    return [tuple(rng.randrange(*Z_RANGE) for _ in range(d)) for _ in range(M)]


def modular_certificate(laws, modulo: str = "affine", seed: int = 0, n_points: Optional[int] = None,
                        primes: Sequence[int] = PRIMES) -> dict:
    """Exact rank certificate for discrete laws with rational atoms (see the module docstring).

    ``modulo='affine'`` uses the Hessian variant, ``'constants'`` the gradient variant.  Returns a dict
    with ``certified`` (True only when rank N modulo p was reached), the variant, prime, q, z points and rank.

    Algorithm
    ---------
    For each prime of ``primes`` (three by default): fresh z points, the matrix mod p, its rank; stop at
    rank N.

    Soundness
    ---------
    ``certified`` True: rank N modulo p, hence rank N over Q, hence independence (module docstring).

    Limits
    ------
    ``certified`` False when every prime gave rank < N or a vanishing denominator: not a proof of anything.
    """
    N = len(laws)
    d = laws[0].dim
    variant = "hessian" if modulo == "affine" else "gradient"
    per_point = d * (d + 1) // 2 if variant == "hessian" else d
    M = n_points if n_points is not None else -(-N // per_point) + 2
    q = integer_atoms(laws)[0]           # the common denominator (integer_atoms keeps it for the matrix)
    rng = random.Random(seed)
    best = {"certified": False, "variant": f"{variant}-modp", "rank": 0, "q": q}
    for attempt, p in enumerate(primes):
        zp = _zpoints(rng, M, d)
        rows, bad = modular_matrix(laws, variant, zp, q, p)
        if rows is None:
            best.update({"reason": f"prime {p}: a denominator vanishes modulo p at {bad[:3]}"})
            continue
        det = _leading_det(rows, N, p)
        # the first N rows independent (the usual case): they are the rank profile _pivots would return
        piv, rank = (list(range(N)), N) if det else _pivots(rows, N, p) if rows else (None, 0)
        info = {"certified": rank == N, "variant": f"{variant}-modp", "prime": p, "q": q,
                "z_points": [list(z) for z in zp], "rank": rank, "rows": len(rows), "columns": N,
                "attempt": attempt + 1, "seed": seed}
        if rank == N:
            info["entries"] = {"rows": rows, "pivots": piv,     # for kernel_modular (callers drop "entries")
                               **({"det": det} if det else {})}
            return info
        if rank >= best.get("rank", 0):
            best = info
    best["certified"] = False
    return best


# ---------------------------------------------------------------------------------------------
# exact rational certificate (Gaussian / Laplace / degenerate mixtures)

def rational_hessian_family(laws) -> bool:
    """True if every law has rational gradient and Hessian at rational theta."""
    for l in laws:
        if l.family in ("gaussian", "laplace"):
            continue
        if l.family == "gaussian_mixture" and l.separation == 0:
            continue
        return False
    return True


def exact_rational_certificate(laws, modulo: str, points: Sequence) -> dict:
    """Rank over Q of the Hessian (affine) or gradient (constants) matrix at exact rational ``points``.

    Algorithm
    ---------
    Exact rows from ``hess_exact`` / ``grad_exact`` of each law, then ``fmpq_mat.rank``.

    Soundness
    ---------
    Exact: rank N proves independence (module docstring).

    Limits
    ------
    Only for laws whose gradient and Hessian are rational at rational points
    (:func:`rational_hessian_family`); rank < N at these points proves nothing.
    """
    N = len(laws)
    d = laws[0].dim
    rows = []
    for t in points:
        if modulo == "affine":
            Hs = [l.hess_exact(t) for l in laws]
            for a in range(d):
                for b in range(a, d):
                    rows.append([H[a][b] for H in Hs])
        else:
            gs = [l.grad_exact(t) for l in laws]
            for j in range(d):
                rows.append([g[j] for g in gs])
    flat = [fmpq(v.numerator, v.denominator) for r in rows for v in r]
    rank = int(fmpq_mat(len(rows), N, flat).rank())
    return {"certified": rank == N, "variant": ("hessian" if modulo == "affine" else "gradient") + "-exact",
            "points": [list(t) for t in points], "rank": rank, "rows": len(rows), "columns": N}


# ---------------------------------------------------------------------------------------------
# ball design certificate

def in_common_domain(laws, t, margin: bool = False) -> bool:
    """Exact test that t lies in every law's domain (``margin``: Laplace theta^T Sigma theta <= 3/2)."""
    for l in laws:
        if l.family == "laplace":
            v = laplace_quad(l.cov, t)
            if v >= (Fraction(3, 2) if margin else 2):
                return False
    return True


def design_points(laws, M: int, seed: int = 0, box=None, denominator: int = 64) -> list:
    """M distinct exact rational points of [-box, box]^d (default box 1) inside the common domain
    (with margin), drawn from a seeded generator; the box halves if too many points fall outside."""
    d = laws[0].dim
    R = Fraction(box) if box is not None else Fraction(1)
    rng = random.Random(seed)
    pts: list = []
    seen = set()
    tries = 0
    while len(pts) < M:
        n = int(R * denominator)
        t = tuple(Fraction(rng.randint(-n, n), denominator) for _ in range(d))
        tries += 1
        if t not in seen and in_common_domain(laws, t, margin=True):
            seen.add(t)
            pts.append(t)
        if tries > 50 * M:
            R /= 2
            denominator *= 2
            tries = 0
            if R < Fraction(1, 2 ** 20):
                raise InputError("points", "could not place points inside the common CGF domain")
    return pts


def design_rows_ball(laws, points, modulo: str) -> list:
    """Design matrix rows [Lambda_i(theta_k) | 1 | theta_k] (constants: no theta) as arb balls at the
    current precision."""
    rows = []
    for t in points:
        row = [l.cgf_ball(t) for l in laws]
        row.append(to_ball(1))
        if modulo == "affine":
            row.extend(to_ball(x) for x in t)
        rows.append(row)
    return rows


def sigma_ratio_mp(rows_mid, dps: int = 60) -> Optional[str]:
    """sigma_min/sigma_max of the column-normalised matrix of exact midpoints (mpmath; evidence)."""
    import mpmath

    with mpmath.workdps(dps):
        A = mpmath.matrix([[mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in r]
                           for r in rows_mid])
        for j in range(A.cols):
            nrm = mpmath.sqrt(mpmath.fsum(A[i, j] ** 2 for i in range(A.rows)))
            if nrm:
                for i in range(A.rows):
                    A[i, j] /= nrm
        try:
            s = mpmath.svd_r(A, compute_uv=False)
        except Exception:  # pragma: no cover - mpmath convergence failure
            return None
        vals = [abs(s[i]) for i in range(len(s))]
        if not vals or max(vals) == 0:
            return None
        return mpmath.nstr(min(vals) / max(vals), 6)


def _mp_inverse_r(rows_mid, prec: int):
    """R^{-1} from a QR factorisation of the midpoint matrix (mpmath at ``prec`` bits): a preconditioner."""
    import mpmath

    with mpmath.workprec(prec + 32):
        A = mpmath.matrix([[mpmath.mpf(v.numerator) / v.denominator for v in r] for r in rows_mid])
        Q, R = mpmath.qr(A)
        n = A.cols
        Rn = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(n):
                Rn[i, j] = R[i, j]
        X = mpmath.inverse(Rn)
        return [[_mpf_fraction(X[i, j]) for j in range(n)] for i in range(n)]


def _mpf_fraction(x) -> Fraction:
    """The exact value of an mpmath mpf."""
    sign, man, exp, _ = x._mpf_
    v = Fraction(int(man) * 2 ** exp) if exp >= 0 else Fraction(int(man), 2 ** (-exp))
    return -v if sign else v


def certify_rank_preconditioned(build, ladder: Sequence[int] = LADDER):
    """Certify full column rank of the ball matrix ``build(prec)`` (rows >= columns).

    With X ~ R^{-1} from a QR of the midpoints (any matrix works: rank(Phi X) <= rank(Phi)), form
    Y = Phi X in ball arithmetic and certify Y^T Y (close to the identity) positive definite by interval
    Cholesky.  Unlike Cholesky of Phi^T Phi this needs about log2(cond Phi) bits, not 2 log2(cond Phi).
    Only PROVED or INCONCLUSIVE can come out.

    Algorithm
    ---------
    Per rung: midpoints, X from an mpmath QR at prec + 32 bits, Y = Phi X and Y^T Y in balls,
    :func:`~verify.arith.ball.ball_cholesky`.

    Soundness
    ---------
    PROVED: Y^T Y is PD for every matrix in the balls, so Y and hence Phi have full column rank.

    Limits
    ------
    Undecided when rows < columns, when the preconditioner fails (singular midpoints) or when a pivot is
    not certainly > 0; INCONCLUSIVE at the top rung.
    """

    def attempt(prec):
        Phi = build(prec)
        nr, nc = len(Phi), len(Phi[0])
        if nr < nc:
            return None, {"reason": f"{nr} rows < {nc} columns"}
        mids = [[ball_midpoint(v) for v in r] for r in Phi]
        try:
            X = _mp_inverse_r(mids, prec)
        except Exception as exc:   # singular midpoint matrix: mpmath raises various errors; undecided
            return None, {"reason": f"preconditioner failed: {type(exc).__name__}"}
        Xb = [[to_ball(x) for x in r] for r in X]
        Y = [[sum((row[k] * Xb[k][j] for k in range(nc) if X[k][j]), arb(0)) for j in range(nc)] for row in Phi]
        G = [[arb(0)] * nc for _ in range(nc)]
        for a in range(nc):
            for b in range(a, nc):
                acc = arb(0)
                for r in range(nr):
                    acc += Y[r][a] * Y[r][b]
                G[a][b] = acc
                G[b][a] = acc
        chol = ball_cholesky(G)
        return (Verdict.PROVED if chol.positive_definite else None), chol

    return decide_with_ladder(attempt, ladder)


def ball_design_certificate(laws, modulo: str, points: Sequence, ladder: Sequence[int] = LADDER,
                            record_entries: bool = True) -> dict:
    """Certified full column rank of the design matrix at ``points`` up the precision ``ladder``.

    Algorithm
    ---------
    :func:`certify_rank_preconditioned` of :func:`design_rows_ball`; the float64 rank and the mpmath
    sigma_min/sigma_max of the midpoints are added as evidence.

    Soundness
    ---------
    ``certified`` True rests on the ball enclosures of the CGFs and the preconditioned Cholesky; the
    float64 rank and the sigma ratio are evidence only.

    Limits
    ------
    ``certified`` False when undecided at the top of ``ladder`` (512 bits by default).
    """
    holder = {}

    def build(prec):
        rows = design_rows_ball(laws, points, modulo)
        holder["rows"] = rows
        holder["prec"] = prec
        return rows

    outcome = certify_rank_preconditioned(build, ladder)
    rows = holder.get("rows", [])
    certified = outcome.verdict.value == "proved"
    info = {"certified": certified, "variant": "design-ball", "points": [list(t) for t in points],
            "precision_bits": outcome.precision, "attempts": list(outcome.attempts),
            "rows": len(rows), "columns": len(rows[0]) if rows else 0}
    chol = outcome.info
    pivots = getattr(chol, "pivots", ())
    if pivots:
        info["cholesky_pivots"] = list(pivots)
        if certified:
            low = min(p.lower() for p in pivots)
            info["min_pivot_lower"] = low
    if record_entries and rows and len(rows) * len(rows[0]) <= 600:
        info["entries"] = [[v for v in r] for r in rows]
    mids = [[ball_midpoint(v) for v in r] for r in rows]
    info["sigma_ratio_evidence"] = sigma_ratio_mp(mids)
    try:
        Af = np.array([[float(v) for v in r] for r in mids])
        norms = np.linalg.norm(Af, axis=0)
        Af = Af / np.where(norms > 0, norms, 1.0)     # a zero column stays zero (no 0/0 warning)
        info["float64_rank"] = int(np.linalg.matrix_rank(Af))
    except Exception:  # pragma: no cover
        pass
    return info


def square_design_points(laws, count: int, seed: int = 0, box=None) -> list:
    """``count`` exact points for :func:`square_design_certificate`: drawn as by :func:`design_points` on a
    grid of denominator >= 4 ``count`` (a power of 2), keeping one point per orbit of the signed coordinate
    permutations (the multiset of |theta_j|).  Symmetric laws (centred cubes, Gaussians, Laplace laws,
    mixtures) have CGFs invariant under some of these maps, so two points of one orbit can make a square
    design singular although the laws are independent; an oversampled design does not mind, a square one does.
    """
    den = 64
    while den < 4 * count:
        den *= 2
    out, seen, k = [], set(), 0
    while len(out) < count:
        for t in design_points(laws, 4 * count, seed + 7919 * k, box, denominator=den):
            key = tuple(sorted(abs(x) for x in t))
            if key not in seen:
                seen.add(key)
                out.append(t)
                if len(out) == count:
                    break
        k += 1
        if k > 8:
            raise InputError("points", f"could not place {count} points of distinct orbits in the common domain")
    return out


def square_design_certificate(laws, modulo: str, points: Sequence, ladder: Sequence[int] = LADDER) -> dict:
    """Certified full column rank of the design matrix from one **square** minor: the design rows at
    exactly nc = N + 1 (+ d) ``points`` and their determinant in arb balls (python-flint ``arb_mat.det``,
    compiled Gaussian elimination) up the precision ``ladder``.  This is the certificate the kernel
    re-checks (kind ``design-ball``), built without the O(rows x N^2) Python loops of
    :func:`ball_design_certificate`, so it runs for any N.

    Algorithm
    ---------
    The nc x nc ball matrix of :func:`design_rows_ball`, computed once at the top rung of ``ladder``; per
    rung, ``arb_mat.det`` at that working precision; certified when the determinant's ball excludes 0 with
    radius < 2^-18 |midpoint| (the kernel's test), and its midpoint is the certificate's ``det``.  Evidence:
    sigma_min/sigma_max of the column-normalised float64 midpoints (an estimate, floored near 10^-16).
    Cost: nc x N CGF balls and one nc^3 determinant per rung.

    Soundness
    ---------
    A determinant ball excluding 0 proves the square matrix non-singular for every matrix in the balls,
    hence full column rank of the design matrix, hence independence (module docstring).  The float64
    ratio is evidence only.

    Limits
    ------
    ``certified`` False when ``len(points) != nc``, when a point lies outside U, or when no rung of
    ``ladder`` (top 512 bits by default) certifies the determinant; never a proof of dependence.
    """
    from flint import arb_mat

    N, d = len(laws), laws[0].dim
    nc = N + 1 + (d if modulo == "affine" else 0)
    pts = [tuple(Fraction(x) for x in t) for t in points]
    info = {"certified": False, "variant": "design-ball", "square": True, "points": [list(t) for t in pts],
            "rows": len(pts), "columns": nc, "precision_bits": None, "attempts": []}
    if len(pts) != nc:
        info["reason"] = f"{len(pts)} points, the square design needs exactly {nc}"
        return info
    if any(not in_common_domain(laws, t) for t in pts):
        info["reason"] = "a point lies outside the common CGF domain U"
        return info
    with workprec(max(ladder)):           # the entries once, at the top rung (a ball is valid at any precision)
        rows = design_rows_ball(laws, pts, modulo)
    mids = [[float(v.mid()) for v in r] for r in rows]
    for bits in ladder:
        with workprec(bits):
            D = arb_mat(rows).det()
            ok = bool(D.is_finite() and D.mid() != 0 and D.rad() * 2 ** 18 < abs(D.mid()))
        info["attempts"].append({"precision_bits": bits, "decided": ok, **({"verdict": "proved"} if ok else {})})
        info["precision_bits"] = bits
        if ok:
            info["certified"] = True
            info["det"] = _dyadic_str(D)
            break
    try:
        Af = np.array(mids, dtype=float)
        norms = np.linalg.norm(Af, axis=0)
        Af = Af / np.where(norms > 0, norms, 1.0)
        sv = np.linalg.svd(Af, compute_uv=False)
        info["float64_rank"] = int(np.linalg.matrix_rank(Af))
        info["sigma_ratio_evidence"] = f"{sv[-1] / sv[0]:.6g} (float64 estimate)" if sv[0] > 0 else None
    except Exception:  # pragma: no cover - evidence only (overflowing midpoints)
        info["sigma_ratio_evidence"] = None
    if not info["certified"]:
        info["reason"] = (f"the square {nc} x {nc} design determinant was not certified non-zero up to "
                          f"{info['precision_bits']} bits")
    return info


# ---------------------------------------------------------------------------------------------
# kernel certificates (verify.kernel.lse): an N x N minor with its determinant, recomputed by the kernel

def _leading_det(rows, N, p) -> int:
    """The determinant modulo ``p`` of the first ``N`` rows of ``rows`` (0 when there are fewer), computed by
    :func:`verify.kernel.lse.det_mod_handed`, which hands it to the kernel's re-check of this minor (the
    re-check computes the minor itself and uses the value only for the very same matrix)."""
    if len(rows) < N:
        return 0
    return det_mod_handed(rows[:N], p)


def _pivots(rows, N, field):
    """(pivots, rank) of the R x N matrix ``rows`` over Q (``field="Q"``) or modulo the prime ``field``: the
    rank and, when it is N, the indices of N linearly independent rows (rank profile of the transpose; else
    None), from one reduced row echelon form."""
    R = len(rows)
    if field == "Q":
        T = fmpq_mat(N, R, [fmpq(Fraction(rows[r][i]).numerator, Fraction(rows[r][i]).denominator)
                            for i in range(N) for r in range(R)])
    else:
        T = nmod_mat(R, N, [v for r in rows for v in r], field).transpose()
    E, rank = T.rref()
    if int(rank) != N:
        return None, int(rank)
    piv, j = [], 0
    for i in range(N):                  # reduced row echelon form: the pivot columns increase
        while E[i, j] == 0:
            j += 1
        piv.append(j)
        j += 1
    return piv, N


def _pivot_rows(rows, N, field):
    """Indices of N linearly independent rows (rank profile of the transpose) or None."""
    return _pivots(rows, N, field)[0] if len(rows) >= N else None


def _minor(rows, piv, per):
    used = sorted({r // per for r in piv})
    new = {k: n for n, k in enumerate(used)}
    return used, [new[r // per] * per + r % per for r in piv]


def kernel_modular(laws, info: dict) -> Optional[dict]:
    """The ``hessian-modp`` / ``gradient-modp`` kernel certificate for a certified modular ``info``."""
    variant, p, q, zp = info["variant"], info["prime"], info["q"], info["z_points"]
    N = len(laws)
    if info.get("entries"):             # the matrix and pivots modular_certificate computed
        rows, piv = info["entries"]["rows"], info["entries"]["pivots"]
    else:
        rows, _ = modular_matrix(laws, variant.split("-")[0], zp, q, p)
        if rows is None:
            return None
        piv = _pivot_rows(rows, N, p)
    if piv is None:
        return None
    used, new = _minor(rows, piv, len(rows) // len(zp))
    det = info.get("entries", {}).get("det") or int(nmod_mat(fmpz_mat([rows[r] for r in piv]), p).det())
    return {"variant": variant, "prime": p, "q": q, "points": [[int(x) for x in zp[k]] for k in used],
            "rows": new, "det": det}


def kernel_exact(laws, modulo: str, points) -> Optional[dict]:
    """The ``hessian-exact`` / ``gradient-exact`` kernel certificate at exact rational ``points``."""
    N, d = len(laws), laws[0].dim
    rows = []
    for t in points:
        if modulo == "affine":
            Hs = [l.hess_exact(t) for l in laws]
            rows.extend([H[a][b] for H in Hs] for a in range(d) for b in range(a, d))
        else:
            gs = [l.grad_exact(t) for l in laws]
            rows.extend([g[j] for g in gs] for j in range(d))
    piv = _pivot_rows(rows, N, "Q")
    if piv is None:
        return None
    used, new = _minor(rows, piv, len(rows) // len(points))
    D = fmpq_mat(N, N, [fmpq(Fraction(rows[r][i]).numerator, Fraction(rows[r][i]).denominator)
                        for r in piv for i in range(N)]).det()
    return {"variant": ("hessian" if modulo == "affine" else "gradient") + "-exact",
            "points": [[fraction_str(Fraction(x)) for x in points[k]] for k in used], "rows": new,
            "det": fraction_str(Fraction(int(D.p), int(D.q)))}


def _dyadic_str(x) -> str:
    """The midpoint of the arb ``x`` as an exact "p/q" string (q a power of 2, written even if 1)."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    v = Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))
    return f"{v.numerator}/{v.denominator}"


def kernel_ball(laws, modulo: str, points) -> Optional[dict]:
    """The ``design-ball`` kernel certificate: N + 1 (+ d) of ``points`` whose square design matrix has a
    determinant the kernel certifies (computed with the kernel's own CGF enclosures, at its ladder)."""
    import mpmath
    from flint import arb_mat

    from ..canonical import jsonable
    from ..kernel import _laws as KL, lse as KLSE
    from ..kernel._ball import workprec as kworkprec

    klaws = KL.read_laws(jsonable([l.to_dict() for l in laws]))
    N, d = len(laws), laws[0].dim
    nc = N + 1 + (d if modulo == "affine" else 0)
    pts = [tuple(Fraction(x) for x in t) for t in points]
    if len(pts) < nc:
        return None

    def rows_at(ps):
        return [[KL.cgf_ball(l, t) for l in klaws] + [arb(1)] + ([to_ball(x) for x in t] if modulo == "affine"
                                                                 else []) for t in ps]

    if len(pts) == nc:                  # already square (square_design_certificate): no selection
        return _kernel_det(rows_at, pts, KLSE.LADDER, kworkprec)
    with kworkprec(512):
        mids = [[ball_midpoint(v) for v in r] for r in rows_at(pts)]
    chosen = []
    with mpmath.workprec(600):          # greedy row selection (modified Gram-Schmidt with pivoting)
        V = [mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in r]) for r in mids]
        for _ in range(nc):
            k = max((k for k in range(len(V)) if k not in chosen), key=lambda k: mpmath.norm(V[k]))
            nrm = mpmath.norm(V[k])
            if nrm == 0:
                return None
            chosen.append(k)
            u = V[k] / nrm
            for j in range(len(V)):
                if j not in chosen:
                    V[j] = V[j] - (V[j].T * u)[0] * u
    chosen.sort()
    return _kernel_det(rows_at, [pts[k] for k in chosen], KLSE.LADDER, kworkprec)


def _kernel_det(rows_at, sub, ladder, kworkprec) -> Optional[dict]:
    """The design-ball body for the square point set ``sub``: the first rung whose determinant ball
    excludes 0 with radius < 2^-18 |midpoint| (the kernel's test), else None."""
    from flint import arb_mat

    for bits in ladder:
        with kworkprec(bits):
            D = arb_mat(rows_at(sub)).det()
            if D.is_finite() and D.mid() != 0 and bool(D.rad() * 2 ** 18 < abs(D.mid())):
                return {"variant": "design-ball", "points": [[fraction_str(x) for x in t] for t in sub],
                        "det": _dyadic_str(D)}
    return None
