"""Re-checker for certificates of kind ``"independence-design"`` (N3-N6): a matrix of full column rank built
from the recorded laws at recorded points proves linear independence modulo affine functions (constants).

Independent of the search code; every variant is recomputed from the laws and points alone:

* ``hessian-modp`` / ``gradient-modp`` (discrete laws): tilted weights at theta = q log z for the recorded
  positive integers z, reduced modulo the recorded prime p (p must be prime, no denominator may vanish mod p,
  q x must be integral); Hessian entries Cov(X) (affine) or gradients E[X] (constants) of X = q x; the rank
  modulo p must be N.  Rank mod p <= rank over Q, so this proves rank N.
* ``hessian-exact`` / ``gradient-exact`` (Gaussian, Laplace, mixtures with separation 0): exact rational
  Hessians / gradients at the recorded rational points; rank over Q must be N.
* ``design-ball``: the design matrix [Lambda_i(theta_k) | 1 | theta_k] (constants: no theta) is rebuilt in arb at
  the recorded precision (then twice and four times it); Y = Phi X with X an mpmath QR preconditioner, and
  interval Cholesky of Y^T Y must succeed.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq, fmpq_mat, fmpz, nmod_mat

from ..engines.ball import ball_bounds, ball_cholesky, ball_midpoint, to_ball, workprec
from . import RecheckFailure
from ._laws import cgf_ball, in_domain, q, read_laws, vec

__all__ = ["recheck", "recheck_certificate"]

MAX_POINTS = 4096


def _modp(laws, modulo, cert, variant) -> str:
    if any(l["family"] != "discrete" for l in laws):
        raise RecheckFailure("variant: the modular certificate applies to discrete laws only")
    p = cert.get("prime")
    qq = cert.get("q")
    if not isinstance(p, int) or not isinstance(qq, int) or qq < 1 or p < 3:
        raise RecheckFailure("certificate: prime and q must be integers")
    if not fmpz(p).is_prime():
        raise RecheckFailure(f"prime: {p} is not prime")
    for i, l in enumerate(laws):
        for a in l["atoms"]:
            if any((x * qq).denominator != 1 for x in a):
                raise RecheckFailure(f"q: q * atoms of law {i} are not integers")
    zs = cert.get("z_points")
    d = laws[0]["dim"]
    if not isinstance(zs, list) or not zs or len(zs) > MAX_POINTS:
        raise RecheckFailure("z_points: missing")
    Z = []
    for k, z in enumerate(zs):
        if not isinstance(z, list) or len(z) != d or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in z):
            raise RecheckFailure(f"z_points[{k}]: must be {d} positive integers")
        if any(x % p == 0 for x in z):
            raise RecheckFailure(f"z_points[{k}]: divisible by p")
        Z.append(z)
    N = len(laws)
    rows = []
    for z in Z:
        G, H = [], []
        for l in laws:
            ws, Xs = [], []
            for a, w in zip(l["atoms"], l["weights"]):
                if w.denominator % p == 0:
                    raise RecheckFailure("weights: a denominator is divisible by p")
                X = [int(x * qq) for x in a]
                mono = 1
                for zj, e in zip(z, X):
                    mono = mono * pow(zj, e % (p - 1), p) % p
                ws.append(w.numerator % p * pow(w.denominator, -1, p) % p * mono % p)
                Xs.append([x % p for x in X])
            S = sum(ws) % p
            if S == 0:
                raise RecheckFailure("z_points: a normaliser vanishes modulo p")
            Sinv = pow(S, -1, p)
            P = [w * Sinv % p for w in ws]
            g = [sum(pk * X[j] for pk, X in zip(P, Xs)) % p for j in range(d)]
            G.append(g)
            H.append([[(sum(pk * X[i] * X[j] for pk, X in zip(P, Xs)) - g[i] * g[j]) % p for j in range(d)]
                      for i in range(d)])
        if variant.startswith("hessian"):
            for i in range(d):
                for j in range(i, d):
                    rows.append([H[n][i][j] for n in range(N)])
        else:
            for j in range(d):
                rows.append([G[n][j] for n in range(N)])
    rank = int(nmod_mat(len(rows), N, [v for r in rows for v in r], p).rank())
    if rank != N:
        raise RecheckFailure(f"rank: {rank} < {N} modulo {p}")
    return f"rank {N} modulo p = {p} of the {len(rows)}x{N} {variant.split('-')[0]} matrix"


def _exact(laws, modulo, cert, variant) -> str:
    pts = cert.get("points")
    d = laws[0]["dim"]
    if not isinstance(pts, list) or not pts or len(pts) > MAX_POINTS:
        raise RecheckFailure("points: missing")
    T = [vec(t, f"points[{k}]", d) for k, t in enumerate(pts)]
    for l in laws:
        if l["family"] not in ("gaussian", "laplace") and not (l["family"] == "gaussian_mixture" and l["separation"] == 0):
            raise RecheckFailure("variant: exact certificates need Gaussian / Laplace laws")
    rows = []
    for t in T:
        per = []
        for l in laws:
            S, m = l["cov"], l["mean"]
            St = [sum((S[i][j] * t[j] for j in range(d)), Fraction(0)) for i in range(d)]
            if l["family"] == "laplace":
                one_q = 1 - sum((St[i] * t[i] for i in range(d)), Fraction(0)) / 2
                if one_q <= 0:
                    raise RecheckFailure("points: outside the Laplace domain")
                g = [m[i] + St[i] / one_q for i in range(d)]
                H = [[S[i][j] / one_q + St[i] * St[j] / one_q ** 2 for j in range(d)] for i in range(d)]
            else:
                g = [m[i] + St[i] for i in range(d)]
                H = S
            per.append((g, H))
        if variant.startswith("hessian"):
            for i in range(d):
                for j in range(i, d):
                    rows.append([H[i][j] for _, H in per])
        else:
            for j in range(d):
                rows.append([g[j] for g, _ in per])
    N = len(laws)
    rank = int(fmpq_mat(len(rows), N, [fmpq(v.numerator, v.denominator) for r in rows for v in r]).rank())
    if rank != N:
        raise RecheckFailure(f"rank: {rank} < {N} over Q")
    return f"rank {N} over Q of the exact {len(rows)}x{N} matrix"


def _check_entries(entries, Phi) -> None:
    """Recorded enclosures (optional) must overlap the recomputed ones: a tampered matrix is rejected."""
    if not isinstance(entries, list) or len(entries) != len(Phi):
        raise RecheckFailure("entries: shape differs from the design matrix")
    for i, (rec_row, row) in enumerate(zip(entries, Phi)):
        if not isinstance(rec_row, list) or len(rec_row) != len(row):
            raise RecheckFailure(f"entries[{i}]: length differs from the design matrix")
        for j, (rec, ball) in enumerate(zip(rec_row, row)):
            if not isinstance(rec, dict):
                raise RecheckFailure(f"entries[{i}][{j}]: not an enclosure")
            lo, hi = q(rec.get("lower"), f"entries[{i}][{j}].lower"), q(rec.get("upper"), f"entries[{i}][{j}].upper")
            blo, bhi = ball_bounds(ball)
            if hi < blo or bhi < lo:
                raise RecheckFailure(f"entries[{i}][{j}]: recorded enclosure does not contain the recomputed value")


def _design(laws, modulo, cert) -> str:
    import mpmath

    pts = cert.get("points")
    d = laws[0]["dim"]
    if not isinstance(pts, list) or not pts or len(pts) > MAX_POINTS:
        raise RecheckFailure("points: missing")
    T = [vec(t, f"points[{k}]", d) for k, t in enumerate(pts)]
    for k, t in enumerate(T):
        if not all(in_domain(l, t) for l in laws):
            raise RecheckFailure(f"points[{k}]: outside the common domain")
    prec = cert.get("precision_bits")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 16 <= prec <= 4096:
        raise RecheckFailure("precision_bits: missing or out of range")
    N = len(laws)
    nc = N + 1 + (d if modulo == "affine" else 0)
    if len(T) < nc:
        raise RecheckFailure("points: fewer rows than columns")
    entries = cert.get("entries")
    for bits in (prec, 2 * prec, 4 * prec):
        with workprec(bits):
            Phi = []
            for t in T:
                row = [cgf_ball(l, t) for l in laws] + [arb(1)]
                if modulo == "affine":
                    row += [to_ball(x) for x in t]
                Phi.append(row)
            if entries is not None and bits == prec:
                _check_entries(entries, Phi)
            with mpmath.workprec(bits + 32):
                A = mpmath.matrix([[mpmath.mpf(ball_midpoint(v).numerator) / ball_midpoint(v).denominator for v in r] for r in Phi])
                try:
                    _, R = mpmath.qr(A)
                    Rn = mpmath.matrix(nc, nc)
                    for i in range(nc):
                        for j in range(nc):
                            Rn[i, j] = R[i, j]
                    X = mpmath.inverse(Rn)
                except Exception:      # singular midpoints: not certifiable at this precision
                    continue
                Xb = [[to_ball(Fraction(mpmath.nstr(X[i, j], bits // 3 + 5))) for j in range(nc)] for i in range(nc)]
            Y = [[sum((r[k] * Xb[k][j] for k in range(nc)), arb(0)) for j in range(nc)] for r in Phi]
            G = [[sum((Y[r][a] * Y[r][b] for r in range(len(Y))), arb(0)) for b in range(nc)] for a in range(nc)]
            if ball_cholesky(G).positive_definite:
                return f"design matrix {len(T)}x{nc} certified full column rank at {bits} bits (preconditioned interval Cholesky)"
    raise RecheckFailure("design: full column rank not certified at the recorded precision (x1, x2, x4)")


def recheck_certificate(cert: dict) -> str:
    if not isinstance(cert, dict):
        raise RecheckFailure("certificate: not an object")
    laws = read_laws(cert.get("laws"))
    modulo = cert.get("modulo")
    if modulo not in ("affine", "constants"):
        raise RecheckFailure("modulo: must be 'affine' or 'constants'")
    variant = cert.get("variant")
    if variant in ("hessian-modp", "gradient-modp"):
        if variant == "gradient-modp" and modulo != "constants":
            raise RecheckFailure("variant: a gradient certificate proves independence modulo constants only")
        how = _modp(laws, modulo, cert, variant)
    elif variant in ("hessian-exact", "gradient-exact"):
        if variant == "gradient-exact" and modulo != "constants":
            raise RecheckFailure("variant: a gradient certificate proves independence modulo constants only")
        how = _exact(laws, modulo, cert, variant)
    elif variant == "design-ball":
        how = _design(laws, modulo, cert)
    else:
        raise RecheckFailure(f"variant: unknown {variant!r}")
    return f"independence-design ({variant}, modulo {modulo}): {how}"


def recheck(result: dict) -> str:
    """Re-verify a PROVED N3-N6 Result dict; returns a one-line summary or raises RecheckFailure."""
    if result.get("verdict") != "proved":
        raise RecheckFailure("verdict: an independence certificate certifies a 'proved' Result")
    return recheck_certificate(result.get("certificate"))
