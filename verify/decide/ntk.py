"""N7: is the attention-NTK V-block Gram positive definite? (docs/paper2.md §9.2-§9.4)

The statement is always :func:`verify.kernel.ntk.statement` of the parameters (laws, reading, queries and
the exact head matrices): "this Gram is positive definite".  Three-valued, each decided verdict carrying a
certificate that the kernel (:mod:`verify.kernel.ntk`) re-checks:

* **PROVED** (certified): interval Cholesky of the ``arb`` Gram succeeds (every pivot certainly > 0) on the
  precision ladder.  Certificate ``{"kind": "ntk-cholesky", "precision_bits", "pivots", "diagonal"}``.  A PD finite-head
  Gram implies the mean-field kernel is PD for every head law whose support contains the heads
  (:data:`MEAN_FIELD_ARGUMENT`) and that the CGFs are independent modulo affine functions (m >= 2) /
  constants (m = 1).
* **REFUTED** (exact): a basis of the whole null space, each vector v with Σ_(i,a) v_(i,a) ∇Λ_i(A q_a) = 0
  identically in A (verified exactly by the kernel, so k v = 0 for every head set), and the complement
  certified PD.  Candidates come from an exact dependence relation Σ c_iΛ_i = ⟨α,θ⟩ + β
  (:func:`verify.decide.independence.independent_mod_affine`: v = c ⊗ s with Σ s_a = 0 when α != 0) or from
  the numerical null space of the Gram (rationalised); only exactly verified vectors are used.
  Certificate ``{"kind": "ntk-null-vector", "null_space", "precision_bits", "pivots", "diagonal"}``.
* **INCONCLUSIVE** otherwise: a Gram that does not certify PD without exact null vectors valid for every
  head (the head set may be too small: N7.n2), or the ladder ran out.

Float64 verdicts (naive λ_min > 0, ``numpy.linalg.matrix_rank``, Cholesky) are recorded in ``evidence``
beside the certified one, flagged ``undecided`` when λ_min/λ_max <= 1e-12.

Algorithm
---------
1. The float64 Gram first (evidence), whose condition number picks the first rung worth trying
   (:func:`predicted_start`; the bottom rung when float64 is undecided or sees no PD matrix); then for each
   rung of ``ladder`` (``NTK_LADDER`` = 200, 400, 800 bits) from there (:func:`ladder_cholesky`): the
   Gram's gradient rows (:func:`~verify.decide.ntk_gram.ntk_gram_features`) and, up to 64 rows, the panel
   interval Cholesky (:func:`~verify.arith.ball.ball_cholesky_panel`: the sums inside Arb's ``arb_mat``
   routines, the Gram built one column panel at a time as far as the factorisation gets), above 64 rows
   the residual certificate (:func:`~verify.arith.ball.certify_pd_residual`), until it succeeds; a
   rung that fails after >= 32 pivots skips the rungs its radius growth predicts to fail
   (:func:`predicted_bits`, never the top rung).
2. PD: the kernel's own Gram and pivots give the certificate (:func:`pd_certificate`); the certified
   spectrum (n <= 40) is added as evidence.
3. Not PD: candidate null bases, from the numerical null space of the midpoints (n <= 40: eigenvalues
   <= 2^(-prec/3) λ_max, rationalised with denominators <= 10^6) and, in the shared reading, from a relation
   found by :func:`~verify.decide.independence.independent_mod_affine`; the kernel checks each vector
   exactly and certifies the complement PD (:func:`null_certificate`).

Soundness
---------
PROVED rests on Arb's enclosures and, up to 128 rows, the interval Cholesky lemma (every symmetric matrix in
the balls is PD; docs/conventions.md section 2) applied by the kernel to its own ball Gram (above 64 rows the
search decides by the residual bound of :func:`~verify.arith.ball.certify_pd_residual` and then climbs the
ladder until the kernel's Cholesky succeeds); above 128 rows on the kernel's own residual bound (A = L L^T + S
with S certainly PD; kind ``ntk-residual``, docs/ntk.md).  REFUTED rests on an exact identity in A,
checked by the kernel, so the vectors are null for every head set.  What PD implies beyond this Gram (the
mean-field kernel, independence of the CGFs) is the argument of :data:`MEAN_FIELD_ARGUMENT`, within the
scope of :data:`SCOPE_NOTE` (docs/ntk.md).  Float64 numbers and the spectrum estimates are evidence.

Limits
------
INCONCLUSIVE when the Cholesky is undecided at the top rung and no exactly verified null basis with a PD
complement is found.  Numerical null candidates and the spectrum need n <= 40 rows; the kernel re-checks ball
Cholesky (of the Gram, or of a null space's complement) up to 128 rows, and above that up to 256 rows the
residual bound instead (``ntk-residual``; a null space's complement likewise), within its bounds
(verify.kernel.ntk.RESIDUAL_LIMITS; above 128 rows null candidates come from exact relations only); beyond, an :class:`~verify.errors.InputError` naming the Gram's size, raised before any
ball arithmetic; the Gram's own limits are those of :mod:`verify.decide.ntk_gram`; rungs in [16, 4096] bits.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence

from flint import arb

import math

from .ntk_gram import NtkGram, ntk_gram, ntk_gram_features, ntk_gram_float64, ntk_inputs
from ..canonical import jsonable
from ..arith.ball import (CHOLESKY_PANEL, ball_bounds, ball_cholesky, ball_cholesky_panel, certify_pd_residual,
                          to_ball, workprec)
from ..arith.exact import fraction_str, parse_exact, rank_q
from ..errors import InputError
from ..kernel import Rejected, ntk as kernel_ntk
from ..results import Method, Result, Verdict

__all__ = ["ntk_positive_definite", "ladder_cholesky", "residual_ladder", "predicted_bits", "float64_verdicts", "predicted_start",
           "shifted_cholesky_pivots", "RESIDUAL_MIN_SIZE", "certified_spectrum", "null_vector_from_relation",
           "null_basis_from_relation", "numerical_null_basis", "canonical_basis", "instance_parameters", "pd_certificate",
           "null_certificate",
           "NTK_LADDER", "FLOAT64_UNDECIDED_RATIO", "MEAN_FIELD_ARGUMENT", "SCOPE_NOTE", "STATEMENT"]

NTK_LADDER: tuple = (200, 400, 800)   # 200 bits ~ 60 decimal digits
FLOAT64_UNDECIDED_RATIO = 1e-12
SPECTRUM_MAX_SIZE = 40

STATEMENT = ("The V-block NTK Gram k[(i,a),(j,b)] = (1/H) sum_h <grad Lambda_i(A_h q_a), grad Lambda_j(A_h q_b)> "
             "of the laws, queries and exact head matrices of the parameters is positive definite "
             "(verify.kernel.ntk.statement gives the exact text of each instance)")

MEAN_FIELD_ARGUMENT = (
    "v^T k v = (1/H) sum_h |sum_(i,a) v_(i,a) grad Lambda_i(A_h q_a)|^2. If the finite-head Gram is PD, then for "
    "every v != 0 some head A_h has f_v(A_h) = |sum v_(i,a) grad Lambda_i(A_h q_a)|^2 > 0; f_v is continuous in A, "
    "so f_v > 0 on an open neighbourhood of A_h, which has positive measure under any head law whose support "
    "contains A_h (Gaussian Q, K rounded to dyadics: A_h = K^T Q/k lies in the support; key_dim >= d gives "
    "support = all d x d matrices). Hence the mean-field kernel int f_v d rho > 0: it is PD. Conversely a PD Gram "
    "on any head set rules out an exact relation, so it also proves independence modulo affine functions (m >= 2) "
    "/ constants (m = 1).")

SCOPE_NOTE = (
    "The equivalence 'PD <=> independent' (docs/paper2.md §9.3) needs the joint law of (A q_1..A q_m) to have support with "
    "non-empty interior in (R^d)^m: key_dim >= d, linearly independent queries, m <= d. Outside that setting "
    "(e.g. d = 1 with two queries, where A q_1 and A q_2 are collinear, or m > d) PROVED (PD) still proves "
    "independence and REFUTED (exact null vector) still holds for every head law, but independence no longer "
    "implies PD, so a non-PD Gram says nothing about the CGFs.")


# ------------------------------------------------------------------------------- float64 side
def float64_verdicts(M) -> dict:
    """What plain float64 numpy says about the symmetric matrix ``M`` (evidence).

    >>> import numpy as np
    >>> v = float64_verdicts(np.array([[1.0, 1.0], [1.0, 1.0]]))
    >>> v["matrix_rank"], v["undecided"]
    (1, True)
    """
    import numpy as np

    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    eig = np.linalg.eigvalsh(M)
    lmin, lmax = float(eig[0]), float(eig[-1])
    ratio = lmin / lmax if lmax > 0 else float("nan")
    try:
        np.linalg.cholesky(M)
        chol = "succeeded"
    except np.linalg.LinAlgError:
        chol = "failed"
    rank = int(np.linalg.matrix_rank(M))
    undecided = not (lmax > 0) or abs(ratio) <= FLOAT64_UNDECIDED_RATIO
    return {"size": n, "lambda_min": lmin, "lambda_max": lmax, "ratio": ratio,
            "naive_rule": "PD" if lmin > 0 else "not PD", "matrix_rank": rank,
            "rank_rule": "PD" if rank == n else "singular", "cholesky": chol, "undecided": bool(undecided),
            **({"shifted_cholesky_pivots": shifted_cholesky_pivots(M)} if n > RESIDUAL_MIN_SIZE else {}),
            "note": "float64 evidence only; platform-dependent; 'undecided' when |lambda_min|/lambda_max <= 1e-12"}


def shifted_cholesky_pivots(M) -> int:
    """How many pivots a float64 Cholesky (LAPACK ``dpotrf``) of M - c I passes, c = 8 (n + 2)^2 2^-53 max_i M_ii
    (the shift :func:`verify.arith.ball.certify_pd_residual` uses at 53 bits); n when it succeeds.  Evidence
    that only chooses rungs (:func:`predicted_start`).

    >>> import numpy as np
    >>> shifted_cholesky_pivots(np.diag([1.0, 1e-20, 1.0]))
    1
    """
    import numpy as np
    from scipy.linalg import lapack

    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if not n or not np.all(np.isfinite(M)):
        return 0
    c = 8.0 * (n + 2) ** 2 * 2.0 ** -53 * float(np.max(np.diag(M)))
    _, info = lapack.dpotrf(M - c * np.eye(n), lower=1)
    return n if info == 0 else max(0, int(info) - 1)


def predicted_start(f64: dict, ladder: Sequence[int]) -> int:
    """The index of the first rung of ``ladder`` worth trying, from float64 evidence (:func:`float64_verdicts`):
    the first rung of at least log2(lambda_max / lambda_min) + 2 log2(n) + 16 bits, when float64 sees a PD
    matrix it calls decided; 0 (the bottom) otherwise.  Above ``RESIDUAL_MIN_SIZE`` rows, also: when a
    shifted float64 Cholesky (:func:`shifted_cholesky_pivots`) passes f >= 32 of the n pivots, the first
    rung q with 2 q >= 53 n / f (the same extrapolation as :func:`predicted_bits`); the later of the two.  A choice of where to start only: the verdict still
    comes from the ball Cholesky, and an under-estimate climbs the ladder as before.

    >>> predicted_start({"size": 100, "ratio": 1e-30, "undecided": False, "naive_rule": "PD"}, (64, 128, 256, 512))
    2
    >>> predicted_start({"size": 100, "ratio": 1e-3, "undecided": True, "naive_rule": "PD"}, (64, 128))
    0
    """
    ratio, n = f64.get("ratio"), f64.get("size")
    passed = f64.get("shifted_cholesky_pivots")
    start = 0
    if n and n > RESIDUAL_MIN_SIZE and isinstance(passed, int) and SKIP_MIN_PIVOTS <= passed < n:
        need = 53 * n / passed                     # the residual certificate's 53-bit growth, extrapolated
        start = next((i for i, p in enumerate(ladder) if 2 * p >= need), len(ladder) - 1)
    if f64.get("undecided", True) or f64.get("naive_rule") != "PD" or not isinstance(ratio, float) \
            or not ratio > 0 or not n:
        return start
    need = math.log2(1 / ratio) + 2 * math.log2(n) + 16
    return max(start, next((i for i, p in enumerate(ladder) if p >= need), len(ladder) - 1))


def _float64_evidence(dists, gram) -> dict:
    """:func:`float64_verdicts` of the float64 Gram, or ``{"unavailable": why}`` when the Gram does not fit in
    float64 (an overflow, a non-finite entry): evidence only, so the certified verdict stands either way."""
    import numpy as np

    try:
        with np.errstate(over="ignore", invalid="ignore"):
            M = ntk_gram_float64(dists, gram.queries, gram.heads)
        if not np.all(np.isfinite(M)):
            return {"unavailable": "the float64 Gram overflows (non-finite entries): the certified verdict stands"}
        return float64_verdicts(M)
    except (OverflowError, FloatingPointError, ValueError, np.linalg.LinAlgError) as exc:
        return {"unavailable": f"float64 cannot evaluate this Gram ({type(exc).__name__}: {exc}); "
                               "the certified verdict stands"}


class _Inputs:
    """The queries and heads of a Gram, for :func:`_float64_evidence` before the Gram is built."""

    def __init__(self, queries, heads):
        self.queries, self.heads = queries, heads


# ------------------------------------------------------------------------------- certified spectrum
def _fraction_of_mpf(x) -> Fraction:
    import mpmath

    x = mpmath.mpf(x)
    m, e = x.man_exp
    q = Fraction(int(m) * 2**int(e)) if e >= 0 else Fraction(int(m), 2 ** (-int(e)))
    return -q if x < 0 else q


def _down(q: Fraction, digits: int = 30) -> Fraction:
    """Round a positive rational *down* to ``digits`` significant decimal digits (outward rounding).

    >>> _down(Fraction(2, 3), 3), _up(Fraction(2, 3), 3)
    (Fraction(333, 500), Fraction(667, 1000))
    """
    if q <= 0:
        return q
    e = len(str(q.numerator // q.denominator)) if q >= 1 else -len(str(q.denominator // q.numerator)) + 1
    scale = Fraction(10) ** (digits - e)
    return Fraction((q * scale).numerator // (q * scale).denominator) / scale


def _up(q: Fraction, digits: int = 30) -> Fraction:
    d = _down(q, digits)
    if d == q:
        return d
    e = len(str(q.numerator // q.denominator)) if q >= 1 else -len(str(q.denominator // q.numerator)) + 1
    return d + Fraction(10) ** (e - digits)


def _shifted_pd(entries, shift: Fraction, sign: int) -> bool:
    """Certify sign*(K - shift I) PD by interval Cholesky (current precision)."""
    n = len(entries)
    s = to_ball(shift)
    M = [[(entries[r][c] - s if r == c else entries[r][c]) * sign for c in range(n)] for r in range(n)]
    return bool(ball_cholesky(M).positive_definite)


def _rayleigh(entries, v) -> arb:
    n = len(entries)
    vb = [to_ball(x) for x in v]
    num = arb(0)
    for r in range(n):
        t = arb(0)
        for c in range(n):
            t += entries[r][c] * vb[c]
        num += vb[r] * t
    den = sum((x * x for x in vb), arb(0))
    return num / den


def certified_spectrum(gram: NtkGram) -> Optional[dict]:
    """Certified enclosures of λ_min, λ_max and λ_min/λ_max of a PD Gram (n <= 40), or None.

    Estimates (mpmath eigsy on midpoints) only choose the shifts and test vectors; the bounds come from
    interval Cholesky of K - lo I and hi I - K (λ_min >= lo, λ_max <= hi) and exact-vector Rayleigh
    quotients (λ_min <= R(v_min), λ_max >= R(v_max)).

    Algorithm
    ---------
    mpmath ``eigsy`` on the midpoints picks lo = λ_min (1 - 2^-30), hi = λ_max (1 + 2^-30) and the test
    vectors; two interval Choleskys and two ball Rayleigh quotients give the bounds, rounded outward to 30
    digits.  O(n^3).

    Soundness
    ---------
    The returned intervals contain λ_min, λ_max and their ratio (ball arithmetic on exact shifts and
    exact vectors); the eigen-solver only chooses them.

    Limits
    ------
    None when n > 40, when the estimated λ_min <= 0, when either shifted Cholesky is undecided, or when
    the lower bound on λ_max is not positive.
    """
    import mpmath

    n = gram.size
    if n > SPECTRUM_MAX_SIZE:
        return None
    prec = gram.precision
    with workprec(prec), mpmath.workprec(prec):
        entries = gram.entries()
        mids = [[sum(ball_bounds(entries[r][c])) / 2 for c in range(n)] for r in range(n)]
        M = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in mids])
        E, Q = mpmath.eigsy(M)
        order = sorted(range(n), key=lambda k: E[k])
        kmin, kmax = order[0], order[-1]
        emin, emax = E[kmin], E[kmax]
        if emin <= 0:
            return None
        tol = mpmath.mpf(2) ** (-30)
        lo = _fraction_of_mpf(emin * (1 - tol))
        hi = _fraction_of_mpf(emax * (1 + tol))
        if not (_shifted_pd(entries, lo, 1) and _shifted_pd(entries, hi, -1)):
            return None
        vmin = [_fraction_of_mpf(Q[r, kmin]) for r in range(n)]
        vmax = [_fraction_of_mpf(Q[r, kmax]) for r in range(n)]
        rmin_hi = ball_bounds(_rayleigh(entries, vmin))[1]
        rmax_lo = ball_bounds(_rayleigh(entries, vmax))[0]
    if rmax_lo <= 0:
        return None
    lo, rmin_hi, rmax_lo, hi = _down(lo), _up(rmin_hi), _down(rmax_lo), _up(hi)
    ratio_lo, ratio_hi = _down(lo / hi), _up(rmin_hi / rmax_lo)
    return {"lambda_min": {"lower": lo, "upper": rmin_hi}, "lambda_max": {"lower": rmax_lo, "upper": hi},
            "ratio": {"lower": ratio_lo, "upper": ratio_hi,
                      "approx": mpmath.nstr(mpmath.mpf(ratio_lo.numerator) / ratio_lo.denominator, 8)},
            "method": "lambda_min >= lo: interval Cholesky of K - lo*I; lambda_max <= hi: of hi*I - K; "
                      "upper/lower bounds: Rayleigh quotients of exact rational vectors (ball arithmetic)"}


# ------------------------------------------------------------------------------- null vectors
def null_vector_from_relation(c: Sequence[Fraction], m: int) -> list:
    """The Gram null vector built from a relation Σ c_iΛ_i = ⟨α,θ⟩ + β (law-index-major order).

    m = 1 (α must be 0): v_i = c_i.  m >= 2: v_(i,1) = c_i, v_(i,2) = -c_i, other queries 0.

    >>> null_vector_from_relation([1, -1], 2)
    [Fraction(1, 1), Fraction(-1, 1), Fraction(-1, 1), Fraction(1, 1)]
    """
    out = []
    for ci in c:
        ci = Fraction(ci)
        if m == 1:
            out.append(ci)
        else:
            out.extend([ci, -ci] + [Fraction(0)] * (m - 2))
    return out


def null_basis_from_relation(c: Sequence[Fraction], alpha, m: int) -> list:
    """The null space a relation gives: c ⊗ e_a for every a when α = 0; c ⊗ (e_1 - e_a), a >= 2, otherwise
    (empty for m = 1 and α != 0: an affine relation does not make the m = 1 Gram singular).

    >>> [[str(x) for x in v] for v in null_basis_from_relation([1, -1], [0], 2)]
    [['1', '0', '-1', '0'], ['0', '1', '0', '-1']]
    """
    c = [Fraction(x) for x in c]
    affine = alpha is not None and any(Fraction(x) for x in alpha)
    weights = ([[Fraction(int(b == 0)) - Fraction(int(b == a)) for b in range(m)] for a in range(1, m)] if affine
               else [[Fraction(int(b == a)) for b in range(m)] for a in range(m)])
    return [[ci * w for ci in c for w in s] for s in weights]


def _relation_of(dep: Result):
    """(c, alpha) from a REFUTED independence Result (its relation certificate), or None."""
    cert = dict(dep.certificate)
    rel = cert.get("relation", cert)
    if not isinstance(rel, dict):
        return None
    c = rel.get("c", rel.get("coefficients"))
    alpha = rel.get("a", rel.get("alpha", rel.get("linear")))
    if c is None:
        return None
    return [Fraction(x) for x in c], ([Fraction(x) for x in alpha] if alpha is not None else None)


def _rationalise(x, tol) -> Optional[Fraction]:
    import mpmath

    q = _fraction_of_mpf(x).limit_denominator(10 ** 6)
    return q if abs(mpmath.mpf(q.numerator) / q.denominator - x) <= tol else None


def numerical_null_basis(gram: NtkGram) -> list:
    """A rational candidate basis of the numerical null space of the Gram (eigenvalues <= 2^(-prec/3) lambda_max),
    in reduced row echelon form; [] when there is none or it does not rationalise.  Candidates only: the
    kernel verifies each vector exactly."""
    import mpmath

    n, prec = gram.size, gram.precision
    if n > SPECTRUM_MAX_SIZE:
        return []
    with workprec(prec), mpmath.workprec(prec):
        mids = [[sum(ball_bounds(gram.matrix[r, c])) / 2 for c in range(n)] for r in range(n)]
        E, Q = mpmath.eigsy(mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in mids]))
        top = max(abs(E[k]) for k in range(n))
        null = [k for k in range(n) if abs(E[k]) <= top * mpmath.mpf(2) ** (-prec // 3)]
        if not null:
            return []
        B = [[Q[r, k] for r in range(n)] for k in null]          # rows span the null space
        pivots = []
        for j in range(len(B)):                                    # Gauss-Jordan with column choice
            col = max((c for c in range(n) if c not in pivots), key=lambda c: abs(B[j][c]))
            pivots.append(col)
            B[j] = [x / B[j][col] for x in B[j]]
            for k in range(len(B)):
                if k != j:
                    f = B[k][col]
                    B[k] = [x - f * y for x, y in zip(B[k], B[j])]
        tol = mpmath.mpf(2) ** (-prec // 4)
        out = []
        for row in B:
            v = [_rationalise(x, tol) for x in row]
            if any(x is None for x in v):
                return []
            out.append(v)
        return out


# ------------------------------------------------------------------------------- the check
def _scope(gram: NtkGram, dim: int) -> dict:
    qs = gram.queries[0]
    m = len(qs)
    shared = gram.reading == "shared"
    q_rank = rank_q([list(q) for q in qs]) if shared else None
    key_dim = gram.head_law.get("key_dim")
    inside = bool(shared and m <= dim and q_rank == m and (key_dim is None or key_dim >= dim))
    reasons = []
    if not shared:
        reasons.append("per-token reading (queries differ between laws)")
    else:
        if m > dim:
            reasons.append(f"m = {m} queries > d = {dim}")
        if q_rank != m:
            reasons.append(f"queries have rank {q_rank} < m = {m}")
    if key_dim is not None and key_dim < dim:
        reasons.append(f"key_dim = {key_dim} < d = {dim}")
    if gram.head_law.get("law") == "explicit head set":
        reasons.append("explicit head set: the statement is about a head law whose support contains these "
                       "matrices")
    return {"inside_lse_9_3_setting": inside, "why_outside": "; ".join(reasons) or "-", "note": SCOPE_NOTE,
            "m": m, "d": dim, "query_rank": q_rank}


def _laws_dicts(dists):
    return [d.to_dict() if hasattr(d, "to_dict") else {"family": getattr(d, "family", "?")} for d in dists]


def instance_parameters(dists, queries, heads, reading: str = "shared", label: str = "") -> dict:
    """The JSON-level parameters of an instance (what :mod:`verify.kernel.ntk` reads)."""
    params = {"laws": _laws_dicts(dists), "reading": reading, "heads": [[list(r) for r in A] for A in heads]}
    if reading == "shared":
        params["queries"] = [list(q) for q in queries]
    if label:
        params["label"] = label
    return jsonable(params)


def _str(x) -> str:
    return fraction_str(Fraction(x))


def residual_certificate(params: dict, ladder: Sequence[int]) -> Optional[dict]:
    """The ``ntk-residual`` certificate body (precision, diagonal records) from the kernel's own Gram and
    residual bound (:func:`verify.kernel.ntk.gram_residual`), at the first rung of ``ladder`` where it passes, or
    None (also when the kernel's work budget for the Gram runs out)."""
    for prec in ladder:
        try:
            rec = kernel_ntk.gram_residual(params, prec)
        except Rejected:
            return None
        if rec is not None:
            return {"precision_bits": prec, "diagonal": [_str(x) for x in rec["diagonal"]]}
    return None


def pd_certificate(params: dict, ladder: Sequence[int]) -> Optional[dict]:
    """The ``ntk-cholesky`` sub-certificate (precision, pivots) computed by the kernel's own Gram, or None."""
    for prec in ladder:
        rec = kernel_ntk.gram_pivots(params, prec)
        if rec is not None:
            return {"precision_bits": prec, **{k: [_str(x) for x in v] for k, v in rec.items()}}
    return None


def canonical_basis(vs) -> list:
    """The reduced row echelon form (pivot = first non-zero column, scaled to 1) of rational vectors; zero rows
    dropped.

    >>> canonical_basis([[2, -2, -2, 2]]) == [[1, -1, -1, 1]]
    True
    """
    rows = [[Fraction(x) for x in v] for v in vs]
    out = []
    for c in range(len(rows[0]) if rows else 0):
        p = next((r for r in rows if r[c] != 0), None)
        if p is None:
            continue
        rows.remove(p)
        p = [x / p[c] for x in p]
        rows = [[x - r[c] * y for x, y in zip(r, p)] for r in rows]
        out = [[x - r[c] * y for x, y in zip(r, p)] for r in out] + [p]
    return out


def null_certificate(params: dict, candidates: Sequence[Sequence], ladder: Sequence[int], large: bool = False) -> tuple:
    """(sub-certificate, note): the first candidate basis whose vectors the kernel verifies exactly and whose
    complement it certifies PD (``large``: a Gram above the kernel's MAX_ROWS, complement by the residual
    bound, no pivots); (None, reason) otherwise."""
    inst = kernel_ntk.read_instance(params, large=large)
    reason = "no candidate null vector"
    for basis in candidates:
        basis = canonical_basis(basis)
        if not basis:
            continue
        try:
            pivots = kernel_ntk._rref(basis)
            if not all(kernel_ntk.null_identity_holds(inst, v) for v in basis):
                reason = "candidate null vectors do not vanish identically in A (not null for every head)"
                continue
        except Rejected as exc:
            reason = f"candidate rejected by the exact check: {exc}"
            continue
        rest = sorted(set(range(inst["n"])) - set(pivots))
        for prec in ladder:
            try:
                rec = (kernel_ntk.gram_residual(params, prec, rest) if large else
                       kernel_ntk.gram_pivots(params, prec, rest))
            except Rejected as exc:             # the kernel's work budget
                reason = f"complement not checked: {exc}"
                break
            if rec is not None:
                return {"null_space": [[_str(x) for x in v] for v in basis], "precision_bits": prec,
                        **{k: [_str(x) for x in v] for k, v in rec.items()}}, ""
        reason = (f"exact null space of dimension {len(basis)} found, but the complement is not certified PD "
                  f"up to {ladder[-1]} bits (the null space may be larger)")
    return None, reason


def ladder_cholesky(dists, queries, ladder: Sequence[int], **gram_args) -> tuple:
    """Step 1's ladder: for each rung of ``ladder`` in turn, the Gram's gradient rows
    (:func:`~verify.decide.ntk_gram.ntk_gram_features`) and, for n <= ``RESIDUAL_MIN_SIZE`` (64) rows, the
    panel interval Cholesky (:func:`~verify.arith.ball.ball_cholesky_panel`) of the Gram, built one column
    panel at a time as the factorisation reaches it, until every pivot is certainly > 0; above, the
    residual certificate (:func:`~verify.arith.ball.certify_pd_residual`) of the whole Gram.  Returns
    ``(features of the last rung, its CholeskyOutcome or ResidualOutcome, attempts)``.

    Algorithm
    ---------
    Per rung: the rows F at that precision, then panels of k = F F^T / H (F[j0:j1] F[j0:]^T / H, an
    ``arb_mat`` product) handed to the Cholesky, which stops at the first pivot not certainly > 0, so a
    failing rung builds only the panels up to that pivot.  Above 64 rows: the lower triangle of
    k = F F^T / H (:meth:`~verify.decide.ntk_gram.GramFeatures.lower_product`, one product per slab),
    a fixed-point Cholesky factor L of mid(k) - c I in exact integers and a rigorous bound on the rows of
    k - c I - L L^T (attempts record ``"method": "residual"``; ``failed_at_pivot`` is where the factor broke
    down, or n when the bound failed).  After a failure, the rungs q with 2 q below :func:`predicted_bits`
    are skipped (never the last one; recorded as ``skipped_after`` in the failed attempt).

    Soundness
    ---------
    Each panel entry is the ball of :meth:`~verify.decide.ntk_gram.GramFeatures.gram` (the same product,
    for n <= ``CHOLESKY_PANEL`` bit for bit), an enclosure of the exact entry; PD is decided by the ball
    Cholesky lemma (docs/conventions.md section 2), or above 64 rows by the residual lemma of
    :func:`~verify.arith.ball.certify_pd_residual`, and nothing else; skipping a rung only changes where
    the ladder looks next.

    Limits
    ------
    Those of :func:`~verify.decide.ntk_gram.ntk_gram`; the outcome of the top rung when none succeeds.
    """
    attempts, feats, chol = [], None, None
    ladder = tuple(ladder)
    i = 0
    while i < len(ladder):
        prec = ladder[i]
        feats = ntk_gram_features(dists, queries, precision=prec, **gram_args)
        residual = feats.size > RESIDUAL_MIN_SIZE
        with workprec(prec):
            if residual:
                chol = certify_pd_residual(feats.lower_product())
            else:
                chol = ball_cholesky_panel(feats.size, feats.column_block)
        attempts.append({"precision_bits": prec, "positive_definite": bool(chol.positive_definite),
                         **({"method": "residual"} if residual else {}),
                         **({} if chol.positive_definite else {"failed_at_pivot": chol.failed_at})})
        if chol.positive_definite:
            break
        i += 1
        need = predicted_bits(prec, chol.failed_at, feats.size)
        skipped = []
        while need is not None and i < len(ladder) - 1 and 2 * ladder[i] < need:
            skipped.append(ladder[i])
            i += 1
        if skipped:
            attempts[-1]["skipped_after"] = {"rungs": skipped, "predicted_bits": int(need)}
    return feats, chol, attempts


RESIDUAL_MIN_SIZE = CHOLESKY_PANEL   # above this many rows a rung is decided by certify_pd_residual


def residual_ladder(ladder: Sequence[int]) -> tuple:
    """The rungs the residual certificate climbs (above ``RESIDUAL_MIN_SIZE`` rows): ``ladder`` with, between
    consecutive rungs p < q, the rung 3p/2 rounded up to a multiple of 64 bits (one limb) when it lies strictly
    between them.  Its cost grows with the limbs, and its need is about log2(cond) + 2 log2(n) bits, so a rung
    half-way saves a limb or two where the doubling ladder overshoots.  Up to 64 rows the ladder is unchanged.

    >>> residual_ladder((64, 128, 256, 512))
    (64, 128, 192, 256, 384, 512)
    >>> residual_ladder((200, 400, 800))
    (200, 320, 400, 640, 800)
    """
    ladder = tuple(ladder)
    out = []
    for k, p in enumerate(ladder):
        out.append(p)
        if k + 1 < len(ladder):
            mid = -(-3 * p // 128) * 64
            if p < mid < ladder[k + 1]:
                out.append(mid)
    return tuple(out)
SKIP_MIN_PIVOTS = 32      # pivots a failed rung must have passed before its growth predicts the next rungs


def predicted_bits(prec: int, failed_at: Optional[int], n: int) -> Optional[float]:
    """The precision a ball Cholesky of n rows is predicted to need after failing at pivot ``failed_at`` with
    ``prec`` bits: prec * n / failed_at (the pivots' radii grow by about as many bits per row all the way
    down), or None when fewer than ``SKIP_MIN_PIVOTS`` pivots passed (too little to extrapolate from).  A
    choice of which rungs to try only: :func:`ladder_cholesky` skips a rung q only while 2 q is below the
    prediction, never the top rung, and the verdict is still the ball Cholesky's.

    >>> predicted_bits(64, 38, 400) > 2 * 256, predicted_bits(64, 38, 400) < 2 * 512
    (True, True)
    >>> predicted_bits(200, 3, 10) is None
    True
    """
    if failed_at is None or failed_at < SKIP_MIN_PIVOTS or failed_at >= n:
        return None
    return prec * n / failed_at


def _within_kernel(rows: int, heads: int, dim: int, atoms: int) -> None:
    """InputError unless the kernel can re-check a Gram of ``rows`` rows (N m, or the atoms in all in the
    per-token reading), ``heads`` heads, dimension ``dim`` and at most ``atoms`` atoms per law
    (:func:`verify.kernel.ntk.gram_fits`): up to MAX_ROWS rows by ball Cholesky within MAX_EVALS / MAX_EXPS /
    MAX_MUL, above that up to MAX_RESIDUAL_ROWS rows by the residual bound within RESIDUAL_LIMITS."""
    large = rows > kernel_ntk.MAX_ROWS
    why = kernel_ntk.gram_fits(rows, heads, dim, atoms, large)
    if why or heads > kernel_ntk.MAX_HEADS:
        evals, exps, mul = kernel_ntk.RESIDUAL_LIMITS[:3] if large else (kernel_ntk.MAX_EVALS, kernel_ntk.MAX_EXPS,
                                                                         kernel_ntk.MAX_MUL)
        raise InputError("queries", f"the Gram has {rows} rows and {heads} heads (d = {dim}); the kernel re-checks "
                                    f"Grams of at most {kernel_ntk.MAX_RESIDUAL_ROWS} rows and "
                                    f"{kernel_ntk.MAX_HEADS} heads, {'above' if large else 'up to'} "
                                    f"{kernel_ntk.MAX_ROWS} rows with rows x heads <= {evals}, rows x heads x atoms "
                                    f"<= {exps} and rows^2 x heads x d <= {mul}")


def _max_atoms(dists) -> int:
    return max((len(getattr(x, "atoms", ())) for x in dists), default=0) or 1


def ntk_positive_definite(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
                          key_dim: Optional[int] = None, head_set=None, scale=1, reading: str = "shared",
                          ladder: Sequence[int] = NTK_LADDER, claim: str = "N7", spectrum: bool = True,
                          search_relation: bool = True, label: str = "", independence=None) -> Result:
    """Decide whether the V-block NTK Gram is PD (see the module docstring).

    Algorithm
    ---------
    Steps 1-3 of the module docstring.

    Soundness
    ---------
    PROVED (method ``certified``): the interval Cholesky of the kernel's own ball Gram succeeds.  REFUTED
    (method ``exact``): an exact null basis, valid for every head set, with a certified PD complement.

    Limits
    ------
    INCONCLUSIVE otherwise (e.g. a head set too small for the Gram to be PD: N7.n2); sizes as in the
    module docstring.  ``independence``: the Result of
    :func:`~verify.decide.independence.independent_mod_affine` on the same laws and this ``modulo``
    (affine for m >= 2, constants for m = 1), when the caller already has it, used instead of recomputing it
    (a relation found there is still verified exactly by the kernel before it counts).
    """
    if not ladder or any(not isinstance(p, int) or not 16 <= p <= 4096 for p in ladder):
        raise InputError("ladder", "must be a non-empty list of precisions in bits, each in [16, 4096]")
    ladder = tuple(ladder)
    start, f64, rungs = 0, None, ladder
    try:       # the inputs read once here (an error is raised below, in order, by the ladder's own reading)
        qlists, H, _ = ntk_inputs(dists, queries, heads=heads, seed=seed, law=law, key_dim=key_dim,
                                  head_set=head_set, scale=scale, reading=reading)
    except Exception:                               # noqa: BLE001 - the Gram below raises it properly
        qlists = None
    if qlists is not None:
        _within_kernel(sum(len(q) for q in qlists), len(H), len(H[0]), _max_atoms(dists))   # before any balls
        try:   # float64 evidence first: where to start the ladder
            if sum(len(q) for q in qlists) > RESIDUAL_MIN_SIZE:
                rungs = residual_ladder(ladder)     # the residual certificate's finer rungs
            f64 = _float64_evidence(dists, _Inputs(qlists, H))
            start = predicted_start(f64, rungs)
        except Exception:                           # noqa: BLE001 - evidence only; the Gram below is the judge
            f64 = None
    feats, chol, attempts = ladder_cholesky(dists, queries, rungs[start:], heads=heads, seed=seed, law=law,
                                            key_dim=key_dim, head_set=head_set, scale=scale, reading=reading)
    gram = feats.gram()
    dim = len(gram.heads[0])
    m = len(gram.queries[0])
    params = instance_parameters(dists, gram.queries[0] if reading == "shared" else None, gram.heads, reading, label)
    _within_kernel(gram.size, len(gram.heads), dim, _max_atoms(dists))
    conventions = dict(kernel_ntk.CONVENTIONS)
    statement = kernel_ntk.statement(params, conventions)
    seeds = {"heads": gram.head_law["seed"]} if "seed" in gram.head_law else {}
    if f64 is None:
        f64 = _float64_evidence(dists, gram)
    scope = _scope(gram, dim)
    evidence = {"float64": f64, "ladder": list(ladder), "ladder_attempts": attempts, "scope": scope,
                "head_law": jsonable(gram.head_law), "mean_field_argument": MEAN_FIELD_ARGUMENT}
    if rungs != ladder:
        evidence["residual_rungs"] = list(rungs)
    if start:
        evidence["ladder_start"] = (f"started at {rungs[start]} bits: float64 predicts that lower rungs cannot "
                                    f"separate the pivots from 0 (lambda_min/lambda_max ~ {f64['ratio']:.3g})")

    def result(verdict, method, cert):
        return Result(claim, statement, verdict, method, certificate=cert, parameters=params,
                      conventions=conventions, seeds=seeds, evidence=evidence)

    large = gram.size > kernel_ntk.MAX_ROWS     # above: the kernel's residual bound instead of ball Cholesky
    implies = (("independent modulo affine functions" if m >= 2 else "independent modulo constants")
               if reading == "shared" else "nothing about independence (per-token reading)")
    if chol.positive_definite and large:
        sub = residual_certificate(params, tuple(p for p in rungs if p >= gram.precision) or rungs[-1:])
        if sub is not None:
            cert = {"kind": "ntk-residual", **sub,
                    "summary": f"exact residual of a fixed-point Cholesky factor of the {gram.size}x{gram.size} "
                               f"Gram ({len(gram.heads)} exact heads) certifies it PD at {sub['precision_bits']} bits"}
            evidence["implies"] = implies
            return result(Verdict.PROVED, Method.CERTIFIED, cert)
        evidence["kernel"] = "the kernel's residual bound did not certify the Gram PD on the ladder"
    elif chol.positive_definite:
        sub = pd_certificate(params, ladder[ladder.index(gram.precision):] if gram.precision in ladder else
                             tuple(p for p in ladder if p > gram.precision) or ladder[-1:])
        if sub is not None:
            low = min(Fraction(x) for x in sub["pivots"])
            cert = {"kind": "ntk-cholesky", **sub,
                    "summary": f"interval Cholesky of the {gram.size}x{gram.size} Gram ({len(gram.heads)} exact "
                               f"heads) succeeds at {sub['precision_bits']} bits; smallest pivot >= {float(low):.4g}"}
            evidence["implies"] = implies
            if spectrum:
                spec = certified_spectrum(gram)
                if spec is not None:
                    evidence["spectrum"] = spec
                    cert["summary"] += (f"; lambda_min/lambda_max in [{float(spec['ratio']['lower']):.5g}, "
                                        f"{float(spec['ratio']['upper']):.5g}]")
            return result(Verdict.PROVED, Method.CERTIFIED, cert)
        evidence["kernel"] = "the kernel's Gram did not certify PD on the ladder"

    # not certified PD: candidate null spaces (numerical; from an exact relation), verified exactly (above
    # MAX_ROWS the complement by the residual bound, on the residual rungs)
    evidence["certified"] = (f"not certified PD up to {rungs[-1]} bits (pivot {chol.failed_at})" if large else
                             f"interval Cholesky undecided up to {ladder[-1]} bits (pivot {chol.failed_at})")
    candidates = [numerical_null_basis(gram)]
    if reading == "shared" and search_relation:
        from .independence import independent_mod_affine

        modulo = "affine" if m >= 2 else "constants"
        dep = independence if independence is not None else independent_mod_affine(list(dists), modulo=modulo)
        evidence["independence"] = {"modulo": modulo, "verdict": dep.verdict.value,
                                    "summary": dep.certificate.get("summary", "")}
        rel = _relation_of(dep) if dep.verdict is Verdict.REFUTED else None
        if rel is not None:
            candidates.append(null_basis_from_relation(rel[0], rel[1], m))
    sub, reason = null_certificate(params, candidates, rungs if large else ladder, large=large)
    if sub is not None:
        k = len(sub["null_space"])
        vecs = "; ".join("(" + ", ".join(v) + ")" for v in sub["null_space"][:4])
        cert = {"kind": "ntk-null-vector", **sub,
                "summary": f"exact null space of dimension {k}, null for every head matrix: {vecs}"
                           f"{' ...' if k > 4 else ''}; the complement is PD at {sub['precision_bits']} bits"}
        return result(Verdict.REFUTED, Method.EXACT, cert)
    evidence["null_space"] = reason
    why = ("no exact null vector valid for every head: the head set may be too small, or the precision too low"
           if reading == "shared" else "per-token reading: " + reason)
    cert = {"summary": f"Gram not certified PD up to {(rungs if large else ladder)[-1]} bits and {why}"}
    return result(Verdict.INCONCLUSIVE, Method.CERTIFIED, cert)
