"""The exact exponent lattice: independence modulo affine functions (or constants) for every family of
laws with rational frequencies, any mix of the five families (docs/independence.md, "The exponent lattice
for rational families").

With t = e^{theta / D} (D the common denominator of the atoms, cube radii and mixture frequencies
m = a u / |u|), every MGF is M_i = exp(Q_i + <lambda_i, theta>) * kappa_i * Etilde_i(t) / (rho_i R_i(theta)):
a quadratic form, a polynomial in t without monomial content, a polynomial in theta.  The lemma of
docs/independence.md shows that sum c_i Lambda_i is affine on U iff the column combination c of one
exponent matrix vanishes (quadratic coefficients; exponents of the irreducible factors of the Etilde_i;
exponents of the irreducible factors of the R_i; modulo constants also lambda_i).

Algorithm
---------
:func:`exponent_lattice`: read the laws in the kernel's own format, factor every Etilde_i and R_i over Q
with python-flint (``fmpq_mpoly.factor``), index the monic irreducible factors (the base), build the
integer exponent matrix (:func:`verify.kernel._lattice.lattice_data`), exact rank and null space
(:mod:`verify.arith.exact`).  Rank N -> the ``independence-lattice`` certificate (base and exponents);
otherwise the first null-space vector c with a = sum c_i lambda_i and C = prod (kappa_i / rho_i)^{c_i}.

Soundness
---------
PROVED only by the kernel's re-check of the certificate (every law's factorisation multiplied out, every
base element irreducible and non-monomial, pairwise distinct, rank N over Q).  A relation counts only
after the exact identity has been re-proved (:func:`relation_holds`: the column combination vanishes over
the kernel's own factorisation, a and C recomputed).  Nothing numerical is involved.

Limits
------
Applies when every frequency is rational, d <= 16, at most 20,000 terms per law, atoms x weight bits
<= 8,000 per law (the factoring budget: flint's time grows quickly with degree and coefficient size) and
an exponent span D * (frequency range) <= 1024 per variable in d = 1 and <= 96 in d >= 2
(:func:`verify.kernel._lattice.applicable` gives the reason otherwise); the caller then keeps its other
paths.  The cost is dominated by factoring (flint; 200 laws of 8 atoms in d = 3: about 0.02 s).

>>> from verify.laws import UniformCube, Discrete
>>> r = exponent_lattice([UniformCube(2), UniformCube(1), Discrete([[-1], [1]])], "affine")
>>> r["independent"], r["relation"]["c"]
(False, (1, -1, -1))
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ..arith.exact import nullspace_q, rank_q
from ..canonical import jsonable
from ..kernel._lattice import applicable, lattice_data, lattice_identity, poly_json
from ..kernel._laws import read_laws
from ..kernel._read import Rejected

__all__ = ["exponent_lattice", "relation_holds", "lattice_affine_part", "kernel_laws", "lattice_applies"]


def kernel_laws(laws) -> Optional[list]:
    """The laws in the kernel's format (read from their SPEC entries, exactly as the kernel reads them);
    None when the kernel's reader refuses them (e.g. more than its 20,000 atoms in all)."""
    try:
        return read_laws(jsonable([l.to_dict() for l in laws]))
    except Rejected:
        return None


def lattice_applies(laws) -> bool:
    """True when the exponent lattice applies to these laws (every frequency rational, within the limits)."""
    kl = kernel_laws(laws)
    return kl is not None and applicable(kl) is None


def exponent_lattice(laws, modulo: str = "affine") -> Optional[dict]:
    """Decide the laws exactly when every frequency is rational; ``{"applicable": False, "reason"}`` otherwise.

    Returns ``{"applicable": True, "independent": bool, "certificate": body (independent),
    "relation": {"c", "a", "C"} (dependent), "kernel": basis, "rank", "rows", "base_sizes"}``.
    """
    kl = kernel_laws(laws)
    why = "the kernel's reader refuses the laws (more than 20,000 atoms in all)" if kl is None else applicable(kl)
    if why is not None:
        return {"applicable": False, "reason": why}
    data = lattice_data(kl, modulo)
    rows = data["rows"]
    N = len(laws)
    rank = rank_q(rows) if rows else 0
    out = {"applicable": True, "rank": rank, "rows": len(rows),
           "base_sizes": [len(data["laurent_base"]), len(data["rational_base"])], "D": data["D"]}
    if rank == N:
        out["independent"] = True
        out["certificate"] = {
            "D": data["D"],
            "laurent_base": [poly_json(p) for p in data["laurent_base"]],
            "rational_base": [poly_json(p) for p in data["rational_base"]],
            "exponents": [{"laurent": sorted([k, v] for k, v in pl["laurent"].items()),
                           "rational": sorted([k, v] for k, v in pl["rational"].items())} for pl in data["laws"]]}
        return out
    basis = nullspace_q(rows) if rows else nullspace_q([[0] * N])
    basis = [tuple(int(x) for x in v) for v in basis]
    basis.sort(key=lambda v: (sum(1 for x in v if x), sum(abs(x) for x in v)))
    c = basis[0]
    d = laws[0].dim
    a = tuple(sum((x * pl["lam"][j] for x, pl in zip(c, data["laws"])), Fraction(0)) for j in range(d))
    C = Fraction(1)
    for x, pl in zip(c, data["laws"]):
        C *= (pl["kappa"] / pl["rho"]) ** x
    out.update(independent=False, relation={"c": c, "a": a, "C": C}, kernel=[list(v) for v in basis])
    return out


def lattice_affine_part(laws, c) -> Optional[tuple]:
    """For integer ``c``: (a, C) with sum c_i Lambda_i = <a, theta> + log C when c is a relation, False when
    it is not one, None when the lattice does not apply to the laws with c_i != 0."""
    sup = [i for i, x in enumerate(c) if x]
    kl = kernel_laws([laws[i] for i in sup])
    if not sup or kl is None or applicable(kl) is not None:
        return None
    data = lattice_data(kl, "affine")
    cs = [int(c[i]) for i in sup]
    if any(sum((x * y for x, y in zip(row, cs)), Fraction(0)) for row in data["rows"]):
        return False
    d = laws[0].dim
    a = tuple(sum((x * pl["lam"][j] for x, pl in zip(cs, data["laws"])), Fraction(0)) for j in range(d))
    C = Fraction(1)
    for x, pl in zip(cs, data["laws"]):
        C *= (pl["kappa"] / pl["rho"]) ** x
    return a, C


def relation_holds(laws, c, a, C) -> tuple:
    """(verified, details) for sum c_i Lambda_i = <a, theta> + log C by the exponent-lattice identity (the
    kernel's own :func:`verify.kernel._lattice.lattice_identity`)."""
    if kernel_laws(laws) is None:
        return False, {"method": "exponent-lattice", "reason": "the kernel's reader refuses the laws"}
    try:
        how = lattice_identity(kernel_laws(laws), [int(x) for x in c], [Fraction(x) for x in a], Fraction(C))
        return True, {"method": "exponent-lattice", "identity": how}
    except Rejected as exc:
        return False, {"method": "exponent-lattice", "reason": str(exc)[:300]}
