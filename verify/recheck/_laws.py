"""Minimal, independent readers and CGF formulas for the re-checkers of N3-N6 (engines only).

Laws are read from their SPEC dicts (issue 4 format) into plain tuples of Fractions; the CGF of each family
is re-implemented here (SymPy and arb), separately from :mod:`verify.objects.distributions`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from flint import arb, ctx

from ..engines.ball import to_ball, workprec
from . import RecheckFailure

MAX_LAWS = 512
MAX_DIM = 16


def q(x, field) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, str)):
        raise RecheckFailure(f"{field}: not an exact number ({x!r})")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise RecheckFailure(f"{field}: not an exact number ({x!r})") from None


def vec(v, field, dim=None) -> tuple:
    if not isinstance(v, (list, tuple)) or (dim is not None and len(v) != dim) or len(v) > 4096:
        raise RecheckFailure(f"{field}: expected a list" + (f" of length {dim}" if dim is not None else ""))
    return tuple(q(x, f"{field}[{k}]") for k, x in enumerate(v))


def mat(M, field, dim) -> tuple:
    if not isinstance(M, (list, tuple)) or len(M) != dim:
        raise RecheckFailure(f"{field}: expected a {dim} x {dim} matrix")
    return tuple(vec(r, f"{field}[{k}]", dim) for k, r in enumerate(M))


def spd(S, field) -> None:
    n = len(S)
    if any(S[i][j] != S[j][i] for i in range(n) for j in range(n)):
        raise RecheckFailure(f"{field}: not symmetric")
    A = [list(r) for r in S]
    for k in range(n):
        if A[k][k] <= 0:
            raise RecheckFailure(f"{field}: not positive definite")
        for i in range(k + 1, n):
            f = A[i][k] / A[k][k]
            for j in range(k + 1, n):
                A[i][j] -= f * A[k][j]


def read_laws(laws) -> list:
    """SPEC dicts -> list of dicts with exact fields (family, dim, ...); rejects malformed or invalid laws."""
    if not isinstance(laws, list) or not laws or len(laws) > MAX_LAWS:
        raise RecheckFailure("certificate.laws: missing, empty or too many")
    out = []
    dim = None
    for i, d in enumerate(laws):
        f = f"laws[{i}]"
        if not isinstance(d, dict):
            raise RecheckFailure(f"{f}: not an object")
        fam = d.get("family")
        if fam == "discrete":
            atoms = d.get("atoms")
            if not isinstance(atoms, list) or not atoms:
                raise RecheckFailure(f"{f}.atoms: missing")
            A = [vec(a if isinstance(a, list) else [a], f"{f}.atoms[{k}]") for k, a in enumerate(atoms)]
            n = len(A[0])
            if any(len(a) != n for a in A):
                raise RecheckFailure(f"{f}.atoms: mixed dimensions")
            W = vec(d["weights"], f"{f}.weights", len(A)) if d.get("weights") is not None else \
                tuple(Fraction(1, len(A)) for _ in A)
            if any(w <= 0 for w in W) or sum(W) != 1:
                raise RecheckFailure(f"{f}.weights: not positive or not summing to 1")
            law = {"family": fam, "dim": n, "atoms": A, "weights": W}
        elif fam == "uniform_cube":
            r = q(d.get("radius"), f"{f}.radius")
            if r <= 0:
                raise RecheckFailure(f"{f}.radius: must be > 0")
            c = vec(d.get("center", [0] * int(d.get("dim", 1))), f"{f}.center")
            law = {"family": fam, "dim": len(c), "radius": r, "center": c}
        elif fam in ("laplace", "gaussian"):
            cov = d.get("cov")
            n = len(cov) if isinstance(cov, list) else 0
            S = mat(cov, f"{f}.cov", n)
            spd(S, f"{f}.cov")
            m = vec(d.get("mean", [0] * n), f"{f}.mean", n)
            law = {"family": fam, "dim": n, "cov": S, "mean": m}
        elif fam == "gaussian_mixture":
            cov = d.get("cov")
            n = len(cov) if isinstance(cov, list) else 0
            S = mat(cov, f"{f}.cov", n)
            spd(S, f"{f}.cov")
            a = q(d.get("separation"), f"{f}.separation")
            u = vec(d.get("direction"), f"{f}.direction", n)
            if a < 0 or not any(u):
                raise RecheckFailure(f"{f}: separation < 0 or zero direction")
            law = {"family": fam, "dim": n, "cov": S, "mean": vec(d.get("center", [0] * n), f"{f}.center", n),
                   "separation": a, "direction": u}
        else:
            raise RecheckFailure(f"{f}.family: unknown {fam!r}")
        if not 1 <= law["dim"] <= MAX_DIM:
            raise RecheckFailure(f"{f}: dimension out of range")
        if dim is not None and law["dim"] != dim:
            raise RecheckFailure(f"{f}: dimension differs from laws[0]")
        dim = law["dim"]
        out.append(law)
    return out


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _quad(S, t):
    n = len(t)
    return sum((S[i][j] * t[i] * t[j] for i in range(n) for j in range(n)), Fraction(0))


def in_domain(law, t) -> bool:
    return law["family"] != "laplace" or _quad(law["cov"], t) < 2


def cgf_sympy(law, th):
    """Lambda as a SymPy expression in the symbols ``th``."""
    R = lambda x: sympy.Rational(x.numerator, x.denominator)
    fam = law["family"]
    if fam == "discrete":
        return sympy.log(sympy.Add(*[R(w) * sympy.exp(sympy.Add(*[R(x) * t for x, t in zip(a, th)]))
                                     for a, w in zip(law["atoms"], law["weights"])]))
    if fam == "uniform_cube":
        r = R(law["radius"])
        return sympy.Add(*[R(c) * t for c, t in zip(law["center"], th)]) + sympy.Add(
            *[sympy.log(sympy.sinh(r * t) / (r * t)) for t in th])
    n = law["dim"]
    lin = sympy.Add(*[R(m) * t for m, t in zip(law["mean"], th)])
    quad = sympy.Add(*[R(law["cov"][i][j]) * th[i] * th[j] for i in range(n) for j in range(n)]) / 2
    if fam == "gaussian":
        return lin + quad
    if fam == "laplace":
        return lin - sympy.log(1 - quad)
    u = law["direction"]
    nrm = sympy.sqrt(R(_dot(u, u)))
    s = sympy.Add(*[R(law["separation"]) * R(x) / nrm * t for x, t in zip(u, th)])
    return lin + quad + sympy.log(sympy.cosh(s))


def cgf_ball(law, t) -> arb:
    """Lambda(t) as an arb ball at the current precision (t exact rationals inside the domain)."""
    fam = law["family"]
    if fam == "discrete":
        s = [_dot(a, t) for a in law["atoms"]]
        m = max(s)
        Z = sum((to_ball(w) * to_ball(x - m).exp() for x, w in zip(s, law["weights"])), arb(0))
        return to_ball(m) + Z.log()
    if fam == "uniform_cube":
        out = to_ball(_dot(law["center"], t))
        prec = int(ctx.prec)
        for x in t:
            u = law["radius"] * x
            if u == 0:
                continue
            au = abs(u)
            extra = 0 if au >= 1 else 2 * (au.denominator.bit_length() - au.numerator.bit_length() + 1) + 16
            with workprec(prec + extra):
                ub = to_ball(au)
                out += (ub.sinh() / ub).log()
        return out
    base = _dot(law["mean"], t) + _quad(law["cov"], t) / 2
    if fam == "gaussian":
        return to_ball(base)
    if fam == "laplace":
        one_q = 1 - _quad(law["cov"], t) / 2
        if one_q <= 0:
            raise RecheckFailure("points: outside the Laplace domain")
        return to_ball(_dot(law["mean"], t)) - to_ball(one_q).log()
    u = law["direction"]
    k = (to_ball(law["separation"] ** 2) / to_ball(_dot(u, u))).sqrt()
    return to_ball(base) + (k * to_ball(_dot(u, t))).cosh().log()
