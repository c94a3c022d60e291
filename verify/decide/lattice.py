"""Exact criteria for discrete laws with rational atoms and weights (docs/paper2.md §6.1).

**MGF polynomials.**  With q the common denominator of all atom coordinates and z_j = e^{theta_j / q},
e^{Lambda_i} = P_i(z) = sum_k w_ik z^{q x_ik}, a Laurent polynomial over Q.  We write
P_i = z^{s_i} Ptilde_i with Ptilde_i an ordinary polynomial (``s_i`` = the componentwise minimal exponent).

**Lattice criterion (complete).**  Factor every Ptilde_i over Q (``sympy.factor_list``), drop constants and
monomials, and let m_{i,pi} be the multiplicity of the non-monomial irreducible pi.  The laws are independent
modulo affine functions iff the multiplicity matrix has rank N; every rational kernel vector c is a relation
        prod_i Ptilde_i^{c_i} = C z^beta,   i.e.   sum_i c_i Lambda_i = <sum_i c_i s_i + beta, theta>/q + log C,
which :func:`verify_polynomial_relation` re-proves by expanding both sides exactly.

**Sufficient conditions S1 and S2** are decided exactly on the atoms (:func:`s2_holds`, :func:`s1_direction`).

Algorithm
---------
:func:`lattice_criterion`: scale the atoms by q, factor each Ptilde_i with ``sympy.factor_list`` over Q,
index the monic non-monomial factors, then exact rank and null space of the multiplicity matrix
(:mod:`verify.arith.exact`).  :func:`verify_polynomial_relation`: expand both sides by repeated squaring
(dictionaries of exact coefficients) and compare them up to C z^beta.  Cost: dominated by the factoring
and by the expansion, whose size grows with the total degree.

Soundness
---------
A relation counts only after :func:`verify_polynomial_relation` has expanded both sides exactly; the rank
of the multiplicity matrix is reported by the decision procedure as evidence (docs/independence.md).
``holds`` False proves that *this* c is not a relation, not that the laws are independent.

Limits
------
The criterion runs for discrete laws in dimension <= 3 with an exponent span <= ``MAX_LATTICE_DEGREE`` = 48
per variable after scaling (:func:`lattice_applicable` gives the reason otherwise;
:func:`lattice_criterion` raises :class:`~verify.errors.SizeLimitError`).  Expanding a relation of total
degree > ``MAX_RELATION_DEGREE`` = 3000 raises ``SizeLimitError``.  :func:`s1_direction` searches integer
directions with entries in [-3, 3] (d <= 3) or [-1, 1], at most ``S1_MAX_DIRECTIONS`` = 2000 of them and
``S1_MAX_WORK`` = 4 * 10^6 multiply-adds (never 3^d vectors): None does not mean S1 fails.
:func:`s2_holds` sorts at most ``S2_ENUMERATE`` = 4 * 10^6 differences and probes one larger law with at most
``S2_MAX_WORK`` = 6 * 10^7 shifted atoms; beyond that (two laws too large to enumerate) it answers None
(undecided), never False.

>>> from verify.laws import Discrete
>>> laws = [Discrete([[0], [1]]), Discrete([[0], [2]]), Discrete([[0], [1], [2], [3]])]
>>> crit = lattice_criterion(laws)
>>> crit.rank, crit.kernel
(2, [(1, 1, -1)])
>>> rel = verify_polynomial_relation(laws, (1, 1, -1))
>>> rel.holds, rel.constant, rel.affine
(True, Fraction(1, 1), (Fraction(0, 1),))
"""

from __future__ import annotations

import dataclasses
import math
import operator
from fractions import Fraction
from itertools import chain, repeat
from typing import Optional, Sequence

import sympy

from ..arith.exact import integer_scale, nullspace_q, rank_q
from ..errors import InputError, SizeLimitError

__all__ = [
    "MAX_LATTICE_DEGREE", "MAX_RELATION_DEGREE", "common_denominator", "mgf_polynomials", "MGFData",
    "LatticeCriterion", "lattice_criterion", "PolynomialRelation", "verify_polynomial_relation",
    "s2_holds", "s1_direction", "top_gap", "lattice_applicable", "integer_atoms", "forget_integer_atoms",
    "S2_ENUMERATE", "S2_MAX_WORK",
    "S1_MAX_DIRECTIONS", "S1_MAX_WORK",
]

MAX_LATTICE_DEGREE = 48        # max exponent span per variable (after scaling by q) for factoring
MAX_LATTICE_DIM = 3
MAX_RELATION_DEGREE = 3000     # max total degree of an expanded side of a relation


def _is_rational_discrete(law) -> bool:
    return getattr(law, "family", None) == "discrete"


def common_denominator(laws) -> int:
    """lcm of the denominators of every atom coordinate."""
    return math.lcm(*{x.denominator for law in laws for a in law.atoms for x in a})


@dataclasses.dataclass(frozen=True)
class MGFData:
    q: int
    shifts: tuple          # s_i (integer vectors)
    polys: tuple           # dict exponent-tuple -> Fraction (Ptilde_i, non-negative exponents)
    degree_span: int       # max exponent in any variable


def mgf_polynomials(laws, q: Optional[int] = None) -> MGFData:
    """Ptilde_i and shifts s_i of the laws (all discrete, same dimension)."""
    if q is None:
        q = common_denominator(laws)
    shifts, polys, span = [], [], 0
    for law in laws:
        ex = [tuple(int(x * q) for x in a) for a in law.atoms]
        s = tuple(min(e[j] for e in ex) for j in range(law.dim))
        P = {}
        for e, w in zip(ex, law.weights):
            k = tuple(x - y for x, y in zip(e, s))
            P[k] = P.get(k, Fraction(0)) + w
            span = max(span, max(k))
        shifts.append(s)
        polys.append(P)
    return MGFData(q, tuple(shifts), tuple(polys), span)


def lattice_applicable(laws) -> Optional[str]:
    """None if the criterion can run on ``laws`` within the size limits, else the reason."""
    if not laws or not all(_is_rational_discrete(l) for l in laws):
        return "not all laws are discrete"
    d = laws[0].dim
    if d > MAX_LATTICE_DIM:
        return f"dimension {d} > {MAX_LATTICE_DIM}"
    q = common_denominator(laws)
    span = 0
    for law in laws:
        for j in range(d):
            vals = [int(a[j] * q) for a in law.atoms]
            span = max(span, max(vals) - min(vals))
    if span > MAX_LATTICE_DEGREE:
        return f"exponent span {span} > {MAX_LATTICE_DEGREE} (atoms too fine for factoring)"
    return None


def _symbols(d):
    return sympy.symbols(f"z1:{d + 1}")


def _to_poly(P: dict, zs):
    terms = {k: sympy.Rational(v.numerator, v.denominator) for k, v in P.items()}
    return sympy.Poly.from_dict(terms, *zs, domain="QQ")


@dataclasses.dataclass(frozen=True)
class LatticeCriterion:
    factors: tuple            # the distinct non-monomial irreducibles (as strings, canonical order)
    multiplicities: tuple     # N rows (laws) x len(factors)
    rank: int
    kernel: list              # integer relation vectors c (coprime, first non-zero > 0)
    q: int

    @property
    def independent(self) -> bool:
        return self.rank == len(self.multiplicities)


def lattice_criterion(laws) -> LatticeCriterion:
    """Factor the MGF polynomials and compute the multiplicity matrix, its rank and kernel (exact).

    Algorithm
    ---------
    ``sympy.factor_list`` of each Ptilde_i over Q; monomial factors dropped, the others made monic and
    indexed by their text; ``rank_q`` / ``nullspace_q`` of the transposed multiplicity matrix.

    Soundness
    ---------
    Exact (SymPy's factorisation over Q, python-flint's rank).  The kernel vectors are candidates:
    callers re-prove each with :func:`verify_polynomial_relation` before it counts.

    Limits
    ------
    ``SizeLimitError`` when :func:`lattice_applicable` refuses the laws (non-discrete, d > 3, exponent
    span > 48).
    """
    why = lattice_applicable(laws)
    if why is not None:
        raise SizeLimitError("laws", f"lattice criterion not applicable: {why}")
    d = laws[0].dim
    data = mgf_polynomials(laws)
    zs = _symbols(d)
    index: dict = {}
    rows = []
    for P in data.polys:
        poly = _to_poly(P, zs)
        _, facs = sympy.factor_list(poly)
        row: dict = {}
        for f, m in facs:
            f = sympy.Poly(f, *zs, domain="QQ")
            if len(f.terms()) <= 1:        # a monomial (or constant): contributes to C z^alpha only
                continue
            f = f.monic()
            key = str(f.as_expr())
            if key not in index:
                index[key] = len(index)
            row[index[key]] = row.get(index[key], 0) + int(m)
        rows.append(row)
    keys = sorted(index, key=lambda k: (len(k), k))
    order = [index[k] for k in keys]
    M = tuple(tuple(row.get(j, 0) for j in order) for row in rows)
    n = len(laws)
    if not keys:
        rank = 0
        kernel = nullspace_q([[0] * n])
    else:
        At = [[M[i][p] for i in range(n)] for p in range(len(keys))]
        rank = rank_q(At)
        kernel = nullspace_q(At) if rank < n else []
    return LatticeCriterion(tuple(keys), M, rank, [tuple(int(x) for x in c) for c in kernel], data.q)


@dataclasses.dataclass(frozen=True)
class PolynomialRelation:
    holds: bool
    coefficients: tuple       # c (integers)
    q: int
    constant: Optional[Fraction] = None     # C > 0, b = log C
    affine: Optional[tuple] = None          # a = (sum c_i s_i + beta) / q
    reason: str = ""
    lhs_terms: int = 0
    rhs_terms: int = 0


def _mul(A: dict, B: dict) -> dict:
    out: dict = {}
    for ka, va in A.items():
        for kb, vb in B.items():
            k = tuple(x + y for x, y in zip(ka, kb))
            out[k] = out.get(k, Fraction(0)) + va * vb
    return {k: v for k, v in out.items() if v != 0}


def _pow(A: dict, e: int, d: int) -> dict:
    out = {tuple([0] * d): Fraction(1)}
    base = A
    while e:
        if e & 1:
            out = _mul(out, base)
        e >>= 1
        if e:
            base = _mul(base, base)
    return out


def verify_polynomial_relation(laws, c: Sequence) -> PolynomialRelation:
    """Check exactly that prod_{c_i>0} Ptilde_i^{c_i} = C z^beta prod_{c_i<0} Ptilde_i^{-c_i} (expanded).

    ``c`` may be rational: it is scaled to integers first.  ``holds`` False means the identity is false
    (a proof that *this* c is not a relation), never that the laws are independent.

    Algorithm
    ---------
    L = prod_{c_i>0} Ptilde_i^{c_i}, R = prod_{c_i<0} Ptilde_i^{-c_i} expanded exactly; beta and C from the
    lexicographically largest exponents; holds iff L = C z^beta R term by term and C > 0.

    Soundness
    ---------
    Exact rational arithmetic: ``holds`` True proves sum c_i Lambda_i = <a, theta> + log C with the
    returned ``affine`` a and ``constant`` C.

    Limits
    ------
    :class:`~verify.errors.InputError` unless every law is discrete; ``SizeLimitError`` when a side has
    total degree > 3000.
    """
    if not laws or not all(_is_rational_discrete(l) for l in laws):
        raise InputError("laws", "the polynomial identity applies to discrete laws with rational atoms only")
    if len(c) != len(laws):
        raise InputError("c", f"expected {len(laws)} coefficients, got {len(c)}")
    ci = list(integer_scale(c))
    if not any(ci):
        return PolynomialRelation(False, tuple(ci), 1, reason="c = 0 is not a relation")
    d = laws[0].dim
    data = mgf_polynomials(laws)
    deg = [max(sum(k) for k in P) for P in data.polys]
    lhs_deg = sum(x * dg for x, dg in zip(ci, deg) if x > 0)
    rhs_deg = sum(-x * dg for x, dg in zip(ci, deg) if x < 0)
    if max(lhs_deg, rhs_deg) > MAX_RELATION_DEGREE:
        raise SizeLimitError("c", f"expanding the relation needs degree {max(lhs_deg, rhs_deg)} > "
                                  f"{MAX_RELATION_DEGREE}; use the multiplicity argument instead")
    L = {tuple([0] * d): Fraction(1)}
    R = {tuple([0] * d): Fraction(1)}
    for x, P in zip(ci, data.polys):
        if x > 0:
            L = _mul(L, _pow(P, x, d))
        elif x < 0:
            R = _mul(R, _pow(P, -x, d))
    # L = C z^beta R  <=>  same support shifted by beta and coefficients in ratio C
    kl, kr = max(L), max(R)
    beta = tuple(a - b for a, b in zip(kl, kr))
    C = L[kl] / R[kr]
    shifted = {tuple(a + b for a, b in zip(k, beta)): C * v for k, v in R.items()}
    holds = shifted == L and C > 0
    affine = None
    if holds:
        tot = [sum(x * s[j] for x, s in zip(ci, data.shifts)) + beta[j] for j in range(d)]
        affine = tuple(Fraction(t, data.q) for t in tot)
    return PolynomialRelation(holds, tuple(ci), data.q, C if holds else None, affine,
                              "" if holds else "the expanded sides differ by more than C z^beta",
                              len(L), len(R))


# -- sufficient conditions S1, S2 (exact) ------------------------------------------------------

S2_ENUMERATE = 4_000_000       # ordered differences enumerated (sorted) in one pass
S2_MAX_WORK = 60_000_000       # membership probes (differences x atoms of a large law) before S2 gives up
S1_MAX_DIRECTIONS = 2_000      # integer directions tried by s1_direction
S1_MAX_WORK = 4_000_000        # directions x atoms x d multiply-adds before s1_direction gives up


_NUM, _DEN = operator.attrgetter("numerator"), operator.attrgetter("denominator")
_INTS: list = [None]           # the last (laws, q, integer atoms) of integer_atoms (laws are immutable)


def forget_integer_atoms() -> None:
    """Drop the memo of :func:`integer_atoms` (each decision starts without it, so repeated runs on the same
    laws measure the same work)."""
    _INTS[0] = None


def integer_atoms(laws, q: Optional[int] = None):
    """``(q, [[q x for x in law.atoms] for law in laws])``, q the common denominator (or the given one), the
    atoms as tuples of Python ints; the last answer is kept for the same law objects (S2 and the modular
    certificate of one call share it).  The lists are shared: callers must not change them."""
    last = _INTS[0]
    if (last is not None and len(last[0]) == len(laws) and all(map(operator.is_, last[0], laws))
            and (q is None or q == last[1])):
        return last[1], last[2]
    flat = list(chain.from_iterable([law.atoms for law in laws]))
    coords = list(chain.from_iterable(flat))
    dens = list(map(_DEN, coords))
    if q is None:
        q = math.lcm(*set(dens))
    d = laws[0].dim if laws else 0
    if set(map(len, flat)) == {d}:     # one flat pass over the coordinates, then the atoms and laws again
        nums = list(map(_NUM, coords))
        vals = (nums if q == 1 and set(dens) == {1} else
                list(map(operator.mul, nums, map(operator.floordiv, repeat(q), dens))))
        atoms, ints, s = list(zip(*[iter(vals)] * d)), [], 0
        for law in laws:
            ints.append(atoms[s:s + len(law.atoms)])
            s += len(law.atoms)
    else:
        ints = [[tuple([x.numerator * (q // x.denominator) for x in a]) for a in law.atoms] for law in laws]
    _INTS[0] = (tuple(laws), q, ints)
    return q, ints


def _packed_atoms(laws):
    """Each law's atoms as distinct Python integers, by one injective affine map Q^d -> Z that also maps
    differences injectively: x -> q x (integers), shifted to [0, S_j], packed in radix R = 2 S + 1 (a
    difference of two packed atoms is the balanced radix-R expansion of the coordinate difference, so
    equal packed differences mean equal difference vectors)."""
    import numpy as np

    _, ints = integer_atoms(laws)
    d = laws[0].dim
    flat = [a for A in ints for a in A]
    lo = [min(c) for c in zip(*flat)]
    hi = [max(c) for c in zip(*flat)]
    R = 2 * max(h - l for h, l in zip(hi, lo)) + 1
    if R ** d < (1 << 62) and max(map(abs, lo + hi)) < (1 << 62):   # int64 all the way: the same integers
        X = np.array(flat, dtype=np.int64) - np.array(lo, dtype=np.int64)
        v = X[:, d - 1].copy()
        for j in reversed(range(d - 1)):
            v = v * R + X[:, j]
        vals, out, start = v.tolist(), [], 0
        for A in ints:
            out.append(vals[start:start + len(A)])
            start += len(A)
        return out
    out = []
    for A in ints:
        vals = []
        for a in A:
            v = 0
            for j in reversed(range(d)):
                v = v * R + (a[j] - lo[j])
            vals.append(v)
        out.append(vals)
    return out


def _as_array(vals):
    import numpy as np

    if vals and max(vals) < (1 << 62):
        return np.array(sorted(vals), dtype=np.int64)
    return None


def s2_holds(laws) -> Optional[bool]:
    """S2: every law has >= 2 atoms and the difference sets {x_k - x_l : k != l} are pairwise disjoint.

    Exact, on integers (:func:`_packed_atoms`).  Laws with at most ``S2_ENUMERATE`` ordered differences in
    total are enumerated, sorted and compared with their neighbours (O(D log D) for D differences); a law too
    large to enumerate is never expanded: each enumerated difference is probed against it by a sorted
    search of its translated atoms (O(n log n) per probe batch).  Returns None (undecided, not False) when
    the probes would exceed ``S2_MAX_WORK`` (two large laws, or one huge law against many differences).

    >>> from verify.laws import Discrete
    >>> s2_holds([Discrete([[0], [1]]), Discrete([[0], [2]])]), s2_holds([Discrete([[0], [1]]), Discrete([[5], [6]])])
    (True, False)
    """
    import numpy as np

    if not laws:
        return True
    if any(len(law.atoms) < 2 for law in laws):
        return False
    if len(laws) == 1:
        return True
    packed = _packed_atoms(laws)
    order = sorted(range(len(laws)), key=lambda i: (len(packed[i]), i))
    small, budget = [], S2_ENUMERATE
    for i in order:
        n = len(packed[i])
        if n * (n - 1) <= budget:
            small.append(i)
            budget -= n * (n - 1)
    small_set = set(small)
    large = [i for i in order if i not in small_set]
    if len(large) > 1:
        return None                     # two laws too large to enumerate: undecided (documented budget)
    if not large and len(set(map(len, packed))) == 1 and max(map(max, packed)) < (1 << 62):
        # every law enumerated, one atom count, int64: all positive differences with their owners at once,
        # sorted by (difference, owner); S2 fails iff two neighbours share a difference but not the owner
        A = np.array(packed, dtype=np.int64)
        D = A[:, None, :] - A[:, :, None]
        mask = D > 0
        vals = D[mask]
        own = np.broadcast_to(np.arange(len(laws))[:, None, None], D.shape)[mask]
        idx = np.lexsort((own, vals))
        sv, so = vals[idx], own[idx]
        return not bool(np.any((sv[1:] == sv[:-1]) & (so[1:] != so[:-1])))
    arrays = [_as_array(packed[i]) for i in range(len(laws))]
    # positive differences only (difference sets are symmetric), unique per law, then sorted with owners
    diffs, owners = [], []
    for i in small:
        A = arrays[i]
        if A is not None:
            D = (A[None, :] - A[:, None])
            D = np.unique(D[D > 0])
            if D.size and int(D.max()) >= (1 << 62):
                A = None
        if A is None:
            D = sorted({a - b for a in packed[i] for b in packed[i] if a > b})
            D = np.array(D, dtype=object)
        diffs.append(D)
        owners.append(np.full(len(D), i, dtype=np.int64))
    if diffs:
        allD = np.concatenate(diffs) if len({x.dtype for x in diffs}) == 1 else np.array(
            [int(v) for x in diffs for v in x], dtype=object)
        own = np.concatenate(owners)
        idx = np.argsort(allD, kind="stable")
        sD, sO = allD[idx], own[idx]
        if len(sD) > 1 and np.any((sD[1:] == sD[:-1]) & (sO[1:] != sO[:-1])):
            return False
    else:
        allD = np.zeros(0, dtype=np.int64)
    if not large:
        return True
    big = large[0]
    B = arrays[big]
    uniq = np.unique(allD) if len(allD) else allD
    n_big = len(packed[big])
    if len(uniq) * n_big > S2_MAX_WORK:
        return None
    if B is None or uniq.dtype == object or (len(uniq) and int(uniq.max()) + int(B.max()) >= (1 << 62)):
        S = set(packed[big])
        return not any(a + int(t) in S for t in uniq for a in packed[big])
    chunk = max(1, (1 << 22) // n_big)
    for s in range(0, len(uniq), chunk):
        T = (B[None, :] + uniq[s:s + chunk, None]).ravel()
        pos = np.searchsorted(B, T)
        pos[pos == len(B)] = 0
        if np.any(B[pos] == T):
            return False
    return True


def top_gap(law, v) -> Optional[Fraction]:
    """Largest minus second-largest distinct value of <v, x_k> (None for fewer than 2 values)."""
    vals = sorted({sum((x * y for x, y in zip(a, v)), Fraction(0)) for a in law.atoms}, reverse=True)
    return vals[0] - vals[1] if len(vals) >= 2 else None


def _directions(d: int, bound: int = 3, limit: int = S1_MAX_DIRECTIONS):
    """Primitive integer vectors with entries in [-bound, bound], by increasing L1 norm (then
    lexicographically decreasing), the first ``limit`` of them; generated level by level of the L1
    norm, so the cost is bounded by ``limit`` and d, never (2 bound + 1)^d."""
    import itertools

    out = []
    for norm in range(1, bound * d + 1):
        level = []
        for k in range(1, min(d, norm) + 1):               # k non-zero entries with |entries| summing to norm
            for pos in itertools.combinations(range(d), k):
                for mags in _compositions(norm, k, bound):
                    for signs in itertools.product((1, -1), repeat=k):
                        v = [0] * d
                        for p, m, s in zip(pos, mags, signs):
                            v[p] = m * s
                        if math.gcd(*v) == 1:
                            level.append(tuple(v))
            if len(level) > 4 * limit:
                break
        level.sort(key=lambda v: tuple(-x for x in v))
        out.extend(level[:limit - len(out)])
        if len(out) >= limit:
            break
    return out


def _compositions(total: int, k: int, bound: int):
    """Tuples of k integers in [1, bound] summing to ``total``."""
    if k == 1:
        if 1 <= total <= bound:
            yield (total,)
        return
    for first in range(1, min(bound, total - k + 1) + 1):
        for rest in _compositions(total - first, k - 1, bound):
            yield (first,) + rest


def s1_direction(laws, bound: int = 3) -> Optional[tuple]:
    """A rational direction v witnessing S1 (every law has >= 2 projected values, the top gaps are
    pairwise distinct), searched over integer vectors with entries in [-bound, bound] (d <= 3; else
    [-1, 1]), at most ``S1_MAX_DIRECTIONS`` of them and ``S1_MAX_WORK`` multiply-adds; None if none found
    (which does not mean S1 fails).

    >>> from verify.laws import Discrete
    >>> s1_direction([Discrete([[0], [1]]), Discrete([[0], [2]])])
    (1,)
    """
    if not laws:
        return None
    d = laws[0].dim
    q = common_denominator(laws)
    ints = [[tuple(int(x * q) for x in a) for a in law.atoms] for law in laws]
    per = sum(len(A) for A in ints) * d
    limit = max(1, min(S1_MAX_DIRECTIONS, S1_MAX_WORK // max(1, per)))
    dirs = _directions(d, bound if d <= 3 else 1, limit)
    top = max((abs(x) for A in ints for a in A for x in a), default=0)
    if dirs and top * d * max(abs(x) for v in dirs for x in v) < (1 << 60):
        return _s1_numpy(ints, dirs)
    for v in dirs:
        gaps = []
        for A in ints:
            vals = sorted({sum(x * y for x, y in zip(a, v)) for a in A}, reverse=True)
            if len(vals) < 2:
                break
            gaps.append(vals[0] - vals[1])
        else:
            if len(set(gaps)) == len(gaps):
                return v
    return None


def _s1_numpy(ints, dirs, chunk: int = 256) -> Optional[tuple]:
    """:func:`s1_direction` on int64 arrays (exact: every projection is below 2^60 in absolute value):
    per law and chunk of directions, the largest and the second-largest distinct projected value."""
    import numpy as np

    arrays = [np.array(A, dtype=np.int64) for A in ints]
    for s in range(0, len(dirs), chunk):
        V = np.array(dirs[s:s + chunk], dtype=np.int64).T            # (d, m)
        gaps = []
        ok = np.ones(V.shape[1], dtype=bool)
        for A in arrays:
            P = A @ V                                                   # (n, m), exact
            m1 = P.max(axis=0)
            rest = np.where(P == m1[None, :], np.iinfo(np.int64).min, P)
            m2 = rest.max(axis=0)
            ok &= m2 != np.iinfo(np.int64).min
            gaps.append(m1 - m2)
        G = np.stack(gaps)                                              # (N, m)
        Gs = np.sort(G, axis=0)
        ok &= ~np.any(Gs[1:] == Gs[:-1], axis=0) if len(G) > 1 else ok
        hits = np.nonzero(ok)[0]
        if len(hits):
            return dirs[s + int(hits[0])]
    return None
