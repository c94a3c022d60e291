"""Re-checker for certificates of kind ``"dependence-relation"`` (N3-N6): an exact relation
sum_i c_i Lambda_i = <a, theta> + log C between the CGFs of the recorded laws.

Independent of the search code.  Two verifications, chosen from the data:

* every law with c_i != 0 is discrete: with q a common denominator of all atoms and of a, and z_j = e^{theta_j/q},
  the relation is the identity of Laurent polynomials prod_{c_i>0} P_i^{c_i} = C z^{q a} prod_{c_i<0} P_i^{-c_i},
  P_i = sum_k w_ik z^{q x_ik}, which is expanded exactly (exponentials of distinct linear forms are linearly
  independent, so this is equivalent to the relation);
* otherwise SymPy must reduce sum c_i Lambda_i - <a, theta> - log C to 0 (re-implemented CGF formulas).

The coefficients must be non-zero, and with ``modulo == "constants"`` the linear part a must vanish.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from . import RecheckFailure
from ._laws import cgf_sympy, q, read_laws, vec

__all__ = ["recheck", "recheck_certificate"]

MAX_EXPANDED_TERMS = 200_000


def _lcm(a, b):
    return a * b // math.gcd(a, b)


def _mul(A, B):
    out = {}
    for ka, va in A.items():
        for kb, vb in B.items():
            k = tuple(x + y for x, y in zip(ka, kb))
            out[k] = out.get(k, 0) + va * vb
        if len(out) > MAX_EXPANDED_TERMS:
            raise RecheckFailure("relation: expansion too large to re-check")
    return {k: v for k, v in out.items() if v != 0}


def _polynomial_identity(laws, c, a, C) -> str:
    d = laws[0]["dim"]
    qq = 1
    for i, law in enumerate(laws):
        if c[i]:
            for atom in law["atoms"]:
                for x in atom:
                    qq = _lcm(qq, x.denominator)
    for x in a:
        qq = _lcm(qq, x.denominator)
    one = {tuple([0] * d): Fraction(1)}
    L, R = dict(one), {tuple(int(x * qq) for x in a): C}
    degree = 0
    for ci, law in zip(c, laws):
        if not ci:
            continue
        P = {}
        for atom, w in zip(law["atoms"], law["weights"]):
            k = tuple(int(x * qq) for x in atom)
            P[k] = P.get(k, 0) + w
        degree += abs(ci) * len(P)
        if abs(ci) > 64 or degree > 4096:
            raise RecheckFailure("relation: exponents too large to expand")
        for _ in range(abs(ci)):
            if ci > 0:
                L = _mul(L, P)
            else:
                R = _mul(R, P)
    if L != R:
        raise RecheckFailure("relation: the polynomial identity prod P_i^c_i = C z^(q a) fails")
    return f"polynomial identity expanded exactly ({len(L)} terms, q = {qq})"


def _symbolic(laws, c, a, C) -> str:
    d = laws[0]["dim"]
    th = tuple(sympy.Symbol(f"theta_{k + 1}", real=True) for k in range(d))
    R = lambda x: sympy.Rational(x.numerator, x.denominator)
    E = sympy.Add(*[R(x) * cgf_sympy(law, th) for x, law in zip(c, laws) if x])
    E -= sympy.Add(*[R(x) * t for x, t in zip(a, th)])
    if C != 1:
        E -= sympy.log(R(C))
    if sympy.expand(E) == 0:
        return "SymPy expand reduces the relation to 0"
    if sympy.simplify(E) == 0:
        return "SymPy simplify reduces the relation to 0"
    raise RecheckFailure("relation: SymPy does not reduce sum c_i Lambda_i - <a, theta> - log C to 0")


def recheck_certificate(cert: dict) -> str:
    if not isinstance(cert, dict):
        raise RecheckFailure("certificate: not an object")
    laws = read_laws(cert.get("laws"))
    rel = cert.get("relation")
    if not isinstance(rel, dict):
        raise RecheckFailure("certificate.relation: missing")
    c = vec(rel.get("c"), "relation.c", len(laws))
    if any(x.denominator != 1 for x in c) or not any(c):
        raise RecheckFailure("relation.c: must be non-zero integers")
    c = tuple(int(x) for x in c)
    a = vec(rel.get("a"), "relation.a", laws[0]["dim"])
    C = q(rel.get("C", "1"), "relation.C")
    if C <= 0:
        raise RecheckFailure("relation.C: must be > 0")
    if cert.get("modulo") == "constants" and any(a):
        raise RecheckFailure("relation.a: must be 0 for a relation modulo constants")
    support = [i for i, x in enumerate(c) if x]
    if all(laws[i]["family"] == "discrete" for i in support):
        how = _polynomial_identity(laws, c, a, C)
    else:
        how = _symbolic(laws, c, a, C)
    return f"dependence-relation: c = {[int(x) for x in c]} verified: {how}"


def recheck(result: dict) -> str:
    """Re-verify a REFUTED N3-N6 Result dict; returns a one-line summary or raises RecheckFailure."""
    if result.get("verdict") != "refuted":
        raise RecheckFailure("verdict: a dependence relation certifies a 'refuted' Result")
    return recheck_certificate(result.get("certificate"))
