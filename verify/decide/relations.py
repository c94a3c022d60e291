"""Exact relations sum_i c_i Lambda_i = <a, theta> + b between CGFs (docs/paper2.md §5.2, §5.3 step 1).

A :class:`Relation` holds integer coefficients ``c``, the exact affine part ``a`` and ``b = log C``
(C a positive rational; C = 1 for b = 0).  Relations are *found* by an exact structural screen
(Diracs, translates and duplicates, Gaussian covariance rank, the lattice criterion for rational discrete
laws) or by a numerical kernel search, and only count once :func:`verify_relation` has re-proved them:

* laws with c_i != 0 all discrete: the polynomial identity prod P_i^{c_i} = C z^beta, expanded exactly;
* otherwise, every frequency rational: the exponent-lattice identity (docs/independence.md, "The exponent
  lattice for rational families");
* otherwise: SymPy reduces sum c_i Lambda_i - <a, theta> - log C to 0 (``expand``, then ``simplify``).

Algorithm
---------
:func:`structural_relations`: Diracs (Lambda affine); translates and duplicates by an exact translation
class, compared only within a cheap signature; the exact null space of the Gaussian covariances; and
(``lattice=True``) the lattice-criterion kernel of the discrete sub-family, each vector expanded.
:func:`find_relation` takes the first (modulo constants: a null-space combination with a = 0).
:func:`numeric_relation_search`: the near-null vector of the design matrix at 80 digits on each point set
(mpmath SVD for N <= 16, inverse iteration with compiled arb_mat solves beyond), that of the first set,
rational recognition (denominators <= 1000).

Soundness
---------
Found relations and numerical candidates are only candidates.  :func:`verify_relation` True is a proof:
the exact polynomial identity for discrete support, or SymPy reducing the expression to 0 (SymPy's
``expand`` / ``simplify`` are trusted for that step).  False means "not verified", never "false".

Limits
------
The numerical search gives up (None) unless both point sets have sigma_min/sigma_max <= 10^-40, the
recognised rationals agree with the singular vector to 10^-26, and b = 0; for N > 16 it evaluates no CGF
when a point set would cost more than ``MAX_SEARCH_WORK`` = 8,000 CGF values.  ``simplify`` is tried only for
at most 6 non-zero c_i; an expansion of degree > 3000 is reported as not verified.  A relation
is verified on the laws with c_i != 0 only; non-discrete support with rational frequencies by the exponent
lattice (:mod:`verify.decide.exponent_lattice`).

>>> from verify.laws import Gaussian
>>> laws = [Gaussian([[1]], [0]), Gaussian([[4]], [1])]
>>> rel = find_relation(laws, "affine")
>>> rel.c, rel.a, rel.source
((4, -1), (Fraction(-1, 1),), 'gaussian-covariance-rank')
>>> verify_relation(laws, rel)[0]
True
>>> find_relation(laws, "constants") is None
True
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Optional, Sequence

import sympy

from ..arith.exact import fraction_str, integer_normalise, nullspace_q
from ..errors import InputError, SizeLimitError
from .lattice import lattice_applicable, lattice_criterion, verify_polynomial_relation

__all__ = ["Relation", "structural_relations", "find_relation", "verify_relation", "relation_expression",
           "numeric_relation_search", "search_work", "MAX_SVD_LAWS", "MAX_SEARCH_WORK"]


@dataclasses.dataclass(frozen=True)
class Relation:
    c: tuple                  # integer coefficients
    a: tuple                  # Fractions
    C: Fraction = Fraction(1)  # b = log C
    source: str = ""

    @property
    def b_text(self) -> str:
        return "0" if self.C == 1 else f"log({fraction_str(self.C)})"

    def text(self) -> str:
        """``L1 + L2 - L3 = -10 theta_1`` (L_i = Lambda_i)."""
        def lin(pairs):
            out = ""
            for coef, name in pairs:
                if not coef:
                    continue
                mag = abs(coef)
                term = name if mag == 1 else f"{fraction_str(mag)} {name}"
                out += (" - " if coef < 0 else " + ") + term if out else ("-" if coef < 0 else "") + term
            return out or "0"
        lhs = lin([(x, f"L{i + 1}") for i, x in enumerate(self.c)])
        rhs = lin([(x, f"theta_{j + 1}") for j, x in enumerate(self.a)])
        if self.C != 1:
            rhs = (self.b_text if rhs == "0" else f"{rhs} + {self.b_text}")
        return f"{lhs} = {rhs}"

    def to_dict(self) -> dict:
        return {"c": list(self.c), "a": [fraction_str(x) for x in self.a], "C": fraction_str(self.C),
                "b": self.b_text, "source": self.source}


def _unit(n, i, sign=1):
    return tuple(sign if k == i else 0 for k in range(n))


def _gaussian_relations(laws) -> list:
    idx = [i for i, l in enumerate(laws) if l.is_gaussian()]
    if len(idx) < 1:
        return []
    d = laws[0].dim
    pairs = [(a, b) for a in range(d) for b in range(a, d)]
    A = [[laws[i].cov[a][b] for i in idx] for a, b in pairs]
    out = []
    for v in nullspace_q(A):
        c = [0] * len(laws)
        for k, i in enumerate(idx):
            c[i] = int(v[k])
        a = tuple(sum((c[i] * laws[i].location()[j] for i in idx), Fraction(0)) for j in range(d))
        out.append(Relation(tuple(c), a, Fraction(1), "gaussian-covariance-rank"))
    return out


def structural_relations(laws, lattice: bool = True) -> list:
    """Exact relations found without numerics, in a deterministic order: Diracs, translates / duplicates,
    Gaussian covariance kernel, and (``lattice=True``) the lattice-criterion kernel of the rational discrete
    sub-family (the only costly part: it factors polynomials)."""
    n = len(laws)
    d = laws[0].dim
    out = []
    for i, l in enumerate(laws):
        if l.is_dirac():
            out.append(Relation(_unit(n, i), tuple(l.atoms[0]), Fraction(1), "dirac"))
    # translates share a cheap signature (family, number of atoms, weights): compare exact classes only then
    groups: dict = {}
    for i, l in enumerate(laws):
        if not l.is_dirac():
            sig = ((l.family, len(l.atoms), frozenset([(w.numerator, w.denominator) for w in l.weights]))
                   if l.family == "discrete" else (l.family,))         # weights as exact pairs: cheap hashes
            groups.setdefault(sig, []).append(i)
    candidates = sorted(i for g in groups.values() if len(g) > 1 for i in g)
    first: dict = {}
    for i in candidates:
        l = laws[i]
        key = l.translation_class()
        if key in first:
            j = first[key]
            c = [0] * n
            c[j], c[i] = 1, -1
            a = tuple(x - y for x, y in zip(laws[j].location(), l.location()))
            out.append(Relation(tuple(c), a, Fraction(1), "translate" if any(a) else "duplicate"))
        else:
            first[key] = i
    out.extend(_gaussian_relations(laws))
    disc = [i for i, l in enumerate(laws) if l.family == "discrete"]
    if lattice and len(disc) >= 1 and lattice_applicable([laws[i] for i in disc]) is None:
        sub = [laws[i] for i in disc]
        crit = lattice_criterion(sub)
        for v in crit.kernel:
            try:
                pr = verify_polynomial_relation(sub, v)
            except SizeLimitError:
                continue
            if pr.holds:
                c = [0] * n
                for k, i in enumerate(disc):
                    c[i] = pr.coefficients[k]
                out.append(Relation(tuple(c), pr.affine, pr.constant, "lattice-criterion"))
    return out


def _combine(rels, t) -> Relation:
    n = len(rels[0].c)
    d = len(rels[0].a)
    c = [sum(int(tk) * r.c[i] for tk, r in zip(t, rels)) for i in range(n)]
    a = tuple(sum((int(tk) * r.a[j] for tk, r in zip(t, rels)), Fraction(0)) for j in range(d))
    C = Fraction(1)
    for tk, r in zip(t, rels):
        C *= r.C ** int(tk)
    return Relation(tuple(c), a, C, "+".join(sorted({r.source for r, tk in zip(rels, t) if tk})))


def find_relation(laws, modulo: str = "affine", lattice: bool = True) -> Optional[Relation]:
    """The first structural relation valid for ``modulo`` (for ``constants``: a combination with a = 0),
    normalised so that the first non-zero c_i is positive; None if the screen finds none."""
    rels = structural_relations(laws, lattice)
    if not rels:
        return None
    if modulo == "affine":
        return _normalise(rels[0])
    d = len(rels[0].a)
    A = [[r.a[j] for r in rels] for j in range(d)]
    for t in nullspace_q(A):
        rel = _combine(rels, t)
        if any(rel.c):
            return _normalise(rel)
    return None


def _normalise(rel: Relation) -> Relation:
    g = math.gcd(*rel.c)
    first = next(x for x in rel.c if x)
    s = (1 if first > 0 else -1) * g
    if s == 1:
        return rel
    C = rel.C
    # C^(1/s) must stay rational: only divide when it is (g = 1 always works)
    if g != 1:
        root = _rational_root(C, g)
        if root is None:
            s = 1 if first > 0 else -1
            g = 1
        else:
            C = root
    if s < 0:
        C = 1 / C
    return Relation(tuple(x // s for x in rel.c), tuple(x / s for x in rel.a), C, rel.source)


def _rational_root(C: Fraction, g: int) -> Optional[Fraction]:
    def iroot(n):
        r, exact = sympy.integer_nthroot(n, g)
        return int(r) if exact else None
    p, q = iroot(C.numerator), iroot(C.denominator)
    return Fraction(p, q) if p is not None and q is not None else None


def relation_expression(laws, c, a, C=Fraction(1)):
    """SymPy expression sum c_i Lambda_i - <a, theta> - log C."""
    from ..laws import theta_symbols

    th = theta_symbols(laws[0].dim)
    E = sympy.Add(*[sympy.Rational(Fraction(x).numerator, Fraction(x).denominator) * l.cgf_sympy(th)
                    for x, l in zip(c, laws) if x])
    E -= sympy.Add(*[sympy.Rational(Fraction(x).numerator, Fraction(x).denominator) * t for x, t in zip(a, th)])
    C = Fraction(C)
    if C != 1:
        E -= sympy.log(sympy.Rational(C.numerator, C.denominator))
    return E, th


def verify_relation(laws, rel: Relation) -> tuple:
    """(verified, details): True only when the identity is re-proved exactly (see module docstring).

    Algorithm
    ---------
    Only the laws with c_i != 0 enter.  Support all discrete:
    :func:`~verify.decide.lattice.verify_polynomial_relation` and a comparison of its a and C with the
    relation's (too large to expand: the exponent lattice).  Otherwise, every frequency of the support
    rational: the exponent-lattice identity (:func:`~verify.decide.exponent_lattice.relation_holds`); else
    ``sympy.expand`` of the difference, then ``sympy.simplify`` (at most 6 terms).

    Soundness
    ---------
    True: the identity holds on the common domain (exact expansion, or SymPy's reduction to 0).

    Limits
    ------
    False (not verified) when SymPy does not reduce the difference or the expansion exceeds degree 3000
    and the exponent lattice does not apply.
    """
    from .exponent_lattice import lattice_applies, relation_holds

    support = [i for i, x in enumerate(rel.c) if x]
    if not support:
        return False, {"method": "none", "reason": "c = 0"}
    sub = [laws[i] for i in support]          # only the laws with c_i != 0 enter an identity
    csub = [rel.c[i] for i in support]
    lattice_ok = lattice_applies(sub)
    if all(l.family == "discrete" for l in sub):
        try:
            pr = verify_polynomial_relation(sub, csub)
        except SizeLimitError as exc:
            if lattice_ok:
                return relation_holds(laws, rel.c, rel.a, rel.C)
            return False, {"method": "polynomial-identity", "reason": str(exc)}
        ok = pr.holds and pr.affine == tuple(rel.a) and pr.constant == rel.C
        return ok, {"method": "polynomial-identity", "q": pr.q, "lhs_terms": pr.lhs_terms,
                    "rhs_terms": pr.rhs_terms, "C": pr.constant, "a_from_identity": pr.affine,
                    **({} if ok else {"reason": pr.reason or "affine part or constant differs"})}
    if lattice_ok:                            # every frequency rational: the exponent-lattice identity
        return relation_holds(laws, rel.c, rel.a, rel.C)
    E, th = relation_expression(laws, rel.c, rel.a, rel.C)
    if sympy.expand(E) == 0:
        return True, {"method": "symbolic", "reduction": "expand"}
    if sum(1 for x in rel.c if x) <= 6 and sympy.simplify(E) == 0:
        return True, {"method": "symbolic", "reduction": "simplify"}
    return False, {"method": "symbolic", "reason": "SymPy did not reduce the expression to 0"}


MAX_SVD_LAWS = 16             # numeric_relation_search: mpmath SVD up to this N, compiled arb_mat solves beyond
MAX_SEARCH_WORK = 8_000       # numeric_relation_search: points x sum_i (atoms_i or d) CGF values per point set


def search_work(laws, n_points: int) -> int:
    """The CGF values one point set of :func:`numeric_relation_search` costs: points x sum_i (atoms_i or d)."""
    d = laws[0].dim
    return n_points * sum(len(l.atoms) if l.family == "discrete" else d for l in laws)


def _design_mp(laws, modulo, pts):
    import mpmath

    rows = []
    for t in pts:
        row = [l.cgf_mp(t) for l in laws] + [mpmath.mpf(1)]
        if modulo == "affine":
            row += [mpmath.mpf(x.numerator) / x.denominator for x in t]
        rows.append(row)
    return rows


def _kernel_svd(laws, modulo, pts, dps):
    """(sigma_min/sigma_max, the right singular vector of sigma_min) by an mpmath SVD at ``dps`` digits."""
    import mpmath

    U, S, V = mpmath.svd_r(mpmath.matrix(_design_mp(laws, modulo, pts)))
    s = [abs(S[i]) for i in range(len(S))]
    if max(s) == 0:
        return None, None
    k = min(range(len(s)), key=lambda i: s[i])
    return min(s) / max(s), [V[k, j] for j in range(V.cols)]


def _kernel_inverse_iteration(laws, modulo, pts, dps):
    """(an estimate of sigma_min/sigma_max, the near-null vector) by inverse iteration on the normal
    matrix G = A^T A with python-flint's compiled approximate solves (``arb_mat.solve(algorithm="approx")``,
    midpoints only) at about 2 x ``dps`` digits: O(rows x n^2) in C instead of an mpmath SVD."""
    import mpmath
    from flint import arb, arb_mat, ctx

    from ..arith.ball import to_ball

    bits = int(dps * 3.33) + 32
    with ctx.workprec(bits):
        rows = []
        for t in pts:
            row = [l.cgf_ball(t).mid() for l in laws] + [arb(1)]
            if modulo == "affine":
                row += [to_ball(x).mid() for x in t]
            rows.append(row)
    n = len(rows[0])
    with ctx.workprec(2 * bits + 64):
        A = arb_mat(rows)
        G = (A.transpose() * A).mid()
        fro = sum((G[i, j] ** 2 for i in range(n) for j in range(n)), arb(0)).sqrt().mid()
        if fro == 0:
            return None, None
        x = arb_mat(n, 1, [1 + arb(k) / (3 * n) for k in range(n)])
        for _ in range(4):
            x = G.solve(x, nonstop=True, algorithm="approx")
            nrm = sum((x[i, 0] ** 2 for i in range(n)), arb(0)).sqrt().mid()
            if not nrm.is_finite() or nrm == 0:
                return None, None
            x = arb_mat(n, 1, [(x[i, 0] / nrm).mid() for i in range(n)])
        ray = (x.transpose() * G * x)[0, 0].mid()
        ratio = abs(ray / fro).sqrt() if ray.is_finite() else None
    with mpmath.workdps(dps):
        vec = [mpmath.mpf(x[i, 0].mid().str(dps + 10, radius=False)) for i in range(n)]
        return (mpmath.mpf(ratio.mid().str(20, radius=False)) if ratio is not None else None), vec


def numeric_relation_search(laws, modulo: str, point_sets: Sequence, dps: int = 80,
                            max_den: int = 1000) -> Optional[Relation]:
    """Search for a relation from the kernel of the design matrix at two unrelated point sets
    (mpmath at ``dps`` digits) and rational recognition.  Returns a *candidate* only; the caller
    must :func:`verify_relation` it.

    Algorithm
    ---------
    Per point set, the design matrix [Lambda_i(theta_k) | 1 | theta_k] at ``dps`` digits and its near-null
    vector: an mpmath SVD for N <= ``MAX_SVD_LAWS`` = 16, else inverse iteration on A^T A with python-flint's
    compiled approximate solves (:func:`_kernel_inverse_iteration`); the vector of the first set, normalised
    by its largest law coefficient, rationalised with denominators <= ``max_den``.

    Soundness
    ---------
    None: a candidate only (floating point proposes, docs/conventions.md section 7).

    Limits
    ------
    None unless every set has sigma_min/sigma_max <= 10^-(dps/2), the rationals match to 10^-(dps/3),
    and the constant b is 0; for N > 16, None at once (no CGF evaluated) when a point set would cost more
    than ``MAX_SEARCH_WORK`` = 8,000 CGF values (:func:`search_work`: points x sum_i (atoms_i or d)).
    """
    import mpmath

    if len(laws) > MAX_SVD_LAWS and any(search_work(laws, len(pts)) > MAX_SEARCH_WORK for pts in point_sets):
        return None
    kernel = _kernel_svd if len(laws) <= MAX_SVD_LAWS else _kernel_inverse_iteration
    cands = []
    with mpmath.workdps(dps):
        for pts in point_sets:
            try:
                ratio, vec = kernel(laws, modulo, pts, dps)
            except Exception:  # pragma: no cover - a numerical failure proposes nothing
                return None
            if ratio is None or ratio > mpmath.mpf(10) ** (-(dps // 2)):
                return None
            cands.append(vec)
        v = cands[0]
        n = len(laws)
        big = max(range(n), key=lambda i: abs(v[i]))
        if abs(v[big]) < mpmath.mpf(10) ** (-10):
            return None
        v = [x / v[big] for x in v]
        fr = [Fraction(mpmath.nstr(x, dps // 2, strip_zeros=False)).limit_denominator(max_den) for x in v]
        if any(abs(mpmath.mpf(f.numerator) / f.denominator - x) > mpmath.mpf(10) ** (-(dps // 3))
               for f, x in zip(fr, v)):
            return None
    c = integer_normalise(fr[:n])
    scale = Fraction(c[big]) / fr[big] if fr[big] else Fraction(1)
    a = tuple(-x * scale for x in fr[n + 1:]) if modulo == "affine" else tuple(Fraction(0) for _ in range(laws[0].dim))
    b = -fr[n] * scale
    if b != 0:
        return None           # only relations with b = 0 (or rational exponentials) are recognised here
    return Relation(tuple(int(x) for x in c), a, Fraction(1), "numeric-kernel")
