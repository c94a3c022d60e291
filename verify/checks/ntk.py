"""N7: is the attention-NTK V-block Gram positive definite? (lse.md §9.2-9.4)

Three-valued, each verdict from a rigorous argument:

* **PROVED** (certified): interval Cholesky of the ``arb`` Gram succeeds (every pivot certainly > 0)
  on the precision ladder.  Certificate kind ``"ntk-cholesky"``.  A PD finite-head Gram implies the
  mean-field kernel is PD (see :data:`MEAN_FIELD_ARGUMENT`) and that the CGFs are independent modulo
  affine functions (m >= 2) / constants (m = 1).
* **REFUTED** (exact): an exact dependence relation Σ c_iΛ_i = ⟨α,θ⟩ + β, found and verified exactly
  by :func:`verify.checks.independence.independent_mod_affine` (modulo affine for m >= 2, modulo
  constants for m = 1), gives the null vector v_(i,1) = c_i, v_(i,2) = -c_i (m >= 2), v_i = c_i (m = 1):
  then Σ_(i,a) v_(i,a) ∇Λ_i(A q_a) = α - α = 0 (resp. = 0) for **every** head, so k v = 0 for every head
  set.  Certificate kind ``"ntk-null-vector"``.
* **INCONCLUSIVE** otherwise: a Gram that does not certify PD without an exact relation (the head set
  may be too small: N7.n2), or the ladder ran out.

Float64 verdicts (naive λ_min > 0, ``numpy.linalg.matrix_rank``, Cholesky) are recorded in ``evidence``
beside the certified one, flagged ``undecided`` when λ_min/λ_max <= 1e-12.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence

from flint import arb

from ..analysis.ntk import NtkGram, ntk_gram, ntk_gram_float64, query_lists
from ..engines.ball import ball_bounds, ball_cholesky, certainly_contains, to_ball, workprec
from ..engines.exact import fraction_str, parse_exact, rank_q
from ..errors import InputError
from ..results import Method, Result, Verdict

__all__ = ["ntk_positive_definite", "float64_verdicts", "certified_spectrum", "null_vector_from_relation",
           "NTK_LADDER", "FLOAT64_UNDECIDED_RATIO", "MEAN_FIELD_ARGUMENT", "SCOPE_NOTE", "STATEMENT"]

NTK_LADDER: tuple = (200, 400, 800)   # 200 bits ~ 60 decimal digits
FLOAT64_UNDECIDED_RATIO = 1e-12
SPECTRUM_MAX_SIZE = 40

STATEMENT = ("The V-block NTK Gram k[(i,a),(j,b)] = mean_h <grad Lambda_i(A_h q_a), grad Lambda_j(A_h q_b)> "
             "(V = 0, shared queries) is positive definite")

MEAN_FIELD_ARGUMENT = (
    "v^T k v = (1/H) sum_h |sum_(i,a) v_(i,a) grad Lambda_i(A_h q_a)|^2. If the finite-head Gram is PD, then for "
    "every v != 0 some head A_h has f_v(A_h) = |sum v_(i,a) grad Lambda_i(A_h q_a)|^2 > 0; f_v is continuous in A, "
    "so f_v > 0 on an open neighbourhood of A_h, which has positive measure under any head law whose support "
    "contains A_h (Gaussian Q, K rounded to dyadics: A_h = K^T Q/k lies in the support; key_dim >= d gives "
    "support = all d x d matrices). Hence the mean-field kernel int f_v d rho > 0: it is PD. Conversely a PD Gram "
    "on any head set rules out an exact relation, so it also proves independence modulo affine functions (m >= 2) "
    "/ constants (m = 1).")

SCOPE_NOTE = (
    "The equivalence 'PD <=> independent' (lse.md 9.3) needs the joint law of (A q_1..A q_m) to have support with "
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
            "note": "float64 evidence only; platform-dependent; 'undecided' when |lambda_min|/lambda_max <= 1e-12"}


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


def _relation_of(dep: Result):
    """(c, alpha, beta) from a REFUTED independence Result (its "dependence-relation" certificate)."""
    cert = dict(dep.certificate)
    rel = cert.get("relation", cert)
    c = rel.get("c", rel.get("coefficients"))
    alpha = rel.get("a", rel.get("alpha", rel.get("linear")))
    beta = rel.get("b", rel.get("beta", rel.get("constant")))
    if c is None:
        raise KeyError("relation: no coefficient vector in the dependence certificate")
    c = [Fraction(x) for x in c]
    alpha = [Fraction(x) for x in alpha] if alpha is not None else None
    beta = Fraction(beta) if beta is not None else None
    return c, alpha, beta


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
    out = []
    for d in dists:
        out.append(d.to_dict() if hasattr(d, "to_dict") else {"family": getattr(d, "family", "?")})
    return out


def _heads_json(heads):
    return [[[x for x in row] for row in A] for A in heads]


def ntk_positive_definite(dists, queries=None, heads: Optional[int] = None, seed: int = 0, law: str = "gaussian",
                          key_dim: Optional[int] = None, head_set=None, scale=1, reading: str = "shared",
                          ladder: Sequence[int] = NTK_LADDER, claim: str = "N7", spectrum: bool = True,
                          search_relation: bool = True, label: str = "") -> Result:
    """Decide whether the V-block NTK Gram is PD (see the module docstring)."""
    if not ladder or any(not isinstance(p, int) or not 16 <= p <= 100_000 for p in ladder):
        raise InputError("ladder", "must be a non-empty list of precisions in bits, each in [16, 100000]")
    ladder = tuple(ladder)
    params = {"laws": _laws_dicts(dists), "reading": reading, "ladder": list(ladder)}
    if label:
        params["label"] = label
    if reading == "shared":
        params["queries"] = queries
    if head_set is not None:
        params["head_set_size"] = len(head_set) if hasattr(head_set, "__len__") else None
    else:
        params.update({"heads": heads, "law": law, "key_dim": key_dim, "seed": seed,
                       "scale": parse_exact(scale, "scale")})

    attempts, chol, gram = [], None, None
    for prec in ladder:
        gram = ntk_gram(dists, queries, heads=heads, seed=seed, law=law, key_dim=key_dim, head_set=head_set,
                        precision=prec, scale=scale, reading=reading)
        with workprec(prec):
            chol = ball_cholesky(gram.entries())
        attempts.append({"precision_bits": prec, "positive_definite": bool(chol.positive_definite),
                         **({} if chol.positive_definite else {"failed_at_pivot": chol.failed_at})})
        if chol.positive_definite:
            break
    dim = len(gram.heads[0])
    m = len(gram.queries[0])
    conventions = {"reading": reading, "order": "law-index-major: row i*m + a for law i, query a",
                   "V": "V = 0 at initialisation; only the V-block is non-zero",
                   "heads": gram.head_law.get("description", gram.head_law.get("law")),
                   "gram_entry": "mean over heads of <grad Lambda_i(A q_a), grad Lambda_j(A q_b)>"}
    seeds = {"heads": gram.head_law["seed"]} if "seed" in gram.head_law else {}
    f64 = float64_verdicts(ntk_gram_float64(dists, gram.queries, gram.heads))
    evidence = {"float64": f64, "ladder_attempts": attempts}
    scope = _scope(gram, dim)
    laws_json = _laws_dicts(dists)
    gram_cert = {"reading": reading, "laws": laws_json,
                 "queries": [list(q) for q in gram.queries[0]] if reading == "shared" else
                 [[list(q) for q in ql] for ql in gram.queries],
                 "heads": _heads_json(gram.heads), "head_law": gram.head_law, "order": conventions["order"],
                 "scope": scope}

    if chol.positive_definite:
        lowers = [ball_bounds(p)[0] for p in chol.pivots]
        with workprec(gram.precision):
            diagonal = [ball_bounds(gram.matrix[r, r])[0] for r in range(gram.size)]
        cert = {"kind": "ntk-cholesky",
                "summary": f"interval Cholesky of the {gram.size}x{gram.size} Gram ({len(gram.heads)} exact heads) "
                           f"succeeds at {gram.precision} bits; smallest pivot >= "
                           f"{float(min(lowers)):.4g}",
                **gram_cert, "precision_bits": gram.precision, "pivot_lower_bounds": lowers,
                "diagonal_lower_bounds": diagonal,
                "mean_field_argument": MEAN_FIELD_ARGUMENT,
                "implies": ("independent modulo affine functions" if m >= 2 else "independent modulo constants")
                if reading == "shared" else "nothing about independence (per-token reading)"}
        if spectrum:
            spec = certified_spectrum(gram)
            if spec is not None:
                cert["spectrum"] = spec
                cert["summary"] += f"; lambda_min/lambda_max in [{float(spec['ratio']['lower']):.5g}, " \
                                   f"{float(spec['ratio']['upper']):.5g}]"
        return Result(claim, STATEMENT, Verdict.PROVED, Method.CERTIFIED, certificate=cert, parameters=params,
                      conventions=conventions, seeds=seeds, evidence=evidence)

    # not certified PD: look for an exact relation (shared reading only)
    evidence["certified"] = f"interval Cholesky undecided up to {ladder[-1]} bits (pivot {chol.failed_at})"
    if reading == "shared" and search_relation:
        modulo = "affine" if m >= 2 else "constants"
        try:
            from .independence import independent_mod_affine
        except ImportError:  # pragma: no cover - the independence procedure is part of the package
            independent_mod_affine = None
        dep = independent_mod_affine(list(dists), modulo=modulo) if independent_mod_affine else None
        if dep is not None:
            evidence["independence"] = {"modulo": modulo, "verdict": dep.verdict.value,
                                        "summary": dep.certificate.get("summary", "")}
        if dep is not None and dep.verdict is Verdict.REFUTED:
            c, alpha, beta = _relation_of(dep)
            first = next((x for x in c if x != 0), Fraction(0))
            if first < 0:  # normalise: first non-zero coefficient positive
                c = [-x for x in c]
                alpha = [-x for x in alpha] if alpha is not None else None
                beta = -beta if beta is not None else None
            v = null_vector_from_relation(c, m)
            if m == 1 and alpha is not None and any(alpha):
                evidence["relation_not_constant"] = "modulo-constants search returned an affine relation: no verdict"
                v = None
            # consistency check in balls (not the proof: the proof is the exact identity)
        if dep is not None and dep.verdict is Verdict.REFUTED and v is not None:
            with workprec(gram.precision):
                entries = gram.entries()
                kv = [sum((entries[r][s] * to_ball(v[s]) for s in range(gram.size)), arb(0))
                      for r in range(gram.size)]
            consistent = all(certainly_contains(x, 0) for x in kv)
            if not consistent:
                evidence["null_vector_inconsistency"] = "k v does not enclose 0: internal error, no verdict"
            else:
                cert = {"kind": "ntk-null-vector",
                        "summary": f"exact relation c = ({', '.join(fraction_str(x) for x in c)}) modulo {modulo} "
                                   f"gives the null vector ({', '.join(fraction_str(x) for x in v)}) for every "
                                   "head set",
                        "laws": laws_json, "scope": scope, "m": m, "modulo": modulo,
                        "relation": {"c": c, "alpha": alpha, "beta": beta},
                        "null_vector": v,
                        "argument": "sum_i c_i Lambda_i = <alpha, theta> + beta exactly => sum_i c_i grad Lambda_i "
                                    "= alpha everywhere => sum_(i,a) v_(i,a) grad Lambda_i(A q_a) = alpha - alpha = 0 "
                                    "(m >= 2) or = 0 (m = 1, alpha = 0) for every head A => k v = 0.",
                        "dependence_certificate": dict(dep.certificate),
                        "ball_check": "k v encloses 0 at every entry (consistency, not the proof)"}
                refuted = Result(claim, STATEMENT, Verdict.REFUTED, Method.EXACT, certificate=cert,
                                 parameters=params, conventions=conventions, seeds=seeds, evidence=evidence)
                # the exact identity once more, by the independent re-checker (engines only)
                import json

                from ..recheck import RecheckFailure
                from ..recheck.ntk import recheck as recheck_ntk

                try:
                    recheck_ntk(json.loads(refuted.to_json()))
                    return refuted
                except RecheckFailure as exc:
                    evidence["recheck_failure"] = f"the null-vector certificate did not re-check: {exc}"
    reason = ("no exact dependence relation: the head set may be too small, or the precision too low"
              if reading == "shared" else "per-token reading: only PD can be certified")
    cert = {"summary": f"Gram not certified PD up to {ladder[-1]} bits and {reason}", **gram_cert}
    return Result(claim, STATEMENT, Verdict.INCONCLUSIVE, Method.CERTIFIED, certificate=cert, parameters=params,
                  conventions=conventions, seeds=seeds, evidence=evidence)
