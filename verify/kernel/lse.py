"""Kernel kinds of N3-N6: linear (in)dependence of CGFs modulo affine functions (or constants).

The laws are ``parameters.laws`` (SPEC entries read by :func:`verify.kernel._laws.read_laws`) and the
modulus ``parameters.modulo`` (``"affine"`` or ``"constants"``); the statement is rebuilt from them by the
``statement_*`` functions below and the certificate never carries its own copy of the inputs.  U is the
intersection of the open CGF domains (convex; only Laplace laws bound it).

* ``independence-design`` (PROVED): the statement "the CGFs are linearly independent modulo affine
  functions (constants)" holds because a matrix built from the laws has full column rank N.  If
  sum c_i Lambda_i = <a, theta> + b on U, then sum c_i Hess Lambda_i = 0 (sum c_i grad Lambda_i = 0 when
  a = 0) and the design column combination (c, -b, -a) vanishes, so c = 0.  Variants:
  ``hessian-modp`` / ``gradient-modp`` (discrete laws, theta = q log z at positive integers z, entries
  reduced modulo a prime p; rank mod p <= rank over Q), ``hessian-exact`` / ``gradient-exact`` (Gaussian,
  Laplace, mixtures with separation 0: exact rational entries), ``design-ball`` (the square design matrix
  [Lambda_i(theta_k) | 1 | theta_k] in arb).  The check recomputes the N x N minor on the recorded rows and
  compares its determinant with the recorded one (exact; for balls to relative 2^-16), which must be
  non-zero.
* ``dependence-relation`` (REFUTED): an exact relation sum c_i Lambda_i = <a, theta> + log C, integers
  c != 0, C > 0 (a = 0 modulo constants), re-proved as the polynomial identity
  prod_{c_i>0} P_i^{c_i} = C z^{q a} prod_{c_i<0} P_i^{-c_i}, P_i = sum_k w_ik z^{q x_ik} (fmpq_mpoly; the
  exponentials of distinct linear forms are linearly independent, so this is equivalent) when every law
  with c_i != 0 is discrete (and q x < 2^60), else by SymPy ``expand`` reducing the difference to 0 (Dummy symbols).
* ``independence-lattice`` (PROVED): every frequency is rational and the exponent matrix of the laws over an
  irreducible, pairwise distinct base has rank N (:mod:`verify.kernel._lattice`; docs/independence.md,
  "The exponent lattice for rational families").  A ``dependence-relation`` (or ``relation-identity``)
  whose support holds a non-discrete law, with every frequency rational, is re-proved by the same
  lattice identity (first when the support holds a cube, a mixture or a discrete law; for Gaussian /
  Laplace supports when SymPy ``expand`` does not reduce it) (the column combination of the exponent matrix
  vanishes over flint's factorisations; a and C recomputed).
* ``relation-identity`` (PROVED) / ``relation-witness`` (REFUTED): "sum c_i Lambda_i = <a, theta> + log C
  on U" for the given rational c (and a, C; without them "... is affine on U"): the identity as above, or a
  certified non-zero value F(t) - <a, t> - log C, or second difference F(t+h) - 2F(t) + F(t-h), at points
  of U (arb; the recorded approximate value must match to relative 2^-16).
* ``independence-batch`` (PROVED): "for each family k of parameters.families, the CGFs are independent
  exactly when parameters.expected[k] is 'independent'": one design or relation certificate per family.
  ``dependence-batch`` (REFUTED): "at least one of the families is independent": a relation per family.
* ``s1-independence`` (PROVED): S1 (a direction with pairwise distinct top gaps) or S2 (pairwise disjoint
  difference sets) holds exactly, and the laws are independent (design certificate).
  ``s1-not-necessary`` (REFUTED): "S1 is necessary for independence" for laws in d = 1: S1 fails for
  v = +1 and v = -1, yet a design certificate proves independence.
* ``series-vandermonde`` (PROVED, N4): B_2k != 0, the Taylor coefficients of log(sinh u / u) and log cosh u,
  and non-zero Vandermonde determinants in squares, recomputed with exact power series.

Trusted: python-flint (fmpq_mat, fmpz_mat, nmod_mat, fmpq_mpoly, arb_mat determinants, fmpz.is_prime), gmpy2
``powmod`` (z^e mod p), SymPy ``expand`` and ``bernoulli``, and :mod:`verify.kernel._laws` (the CGF formulas).
"""

from __future__ import annotations

import sys
from array import array
from fractions import Fraction
from math import comb, gcd, lcm
from itertools import chain, repeat
from operator import add, attrgetter, floordiv, mod, mul, sub

import sympy
from gmpy2 import invert, powmod
from flint import arb, arb_mat, fmpq, fmpq_mat, fmpq_mpoly_ctx, fmpz, fmpz_mat, nmod_mat

from . import Kind, _read
from ._ball import ball, workprec
from ._lattice import applicable as lattice_applicable, check_independence as lattice_check, lattice_identity
from ._laws import MAX_DIM, cgf_ball, cgf_sympy, in_domain, read_laws
from ._read import Rejected, tick

__all__ = ["KINDS", "CONVENTIONS", "statement_independence", "statement_independence_sized", "statement_relation",
           "statement_batch", "statement_batch_sized", "statement_s1", "statement_s1_necessary", "statement_series"]

CLAIMS = frozenset({"N3", "N4", "N5", "N6"})
CONVENTIONS = {"domain": "U = the intersection of the open CGF domains"}
MODULI = ("affine", "constants")
LADDER = (128, 512, 2048)          # arb precisions tried by the ball checks, in order
MAX_COEF = 64                      # |c_i| of an integer relation
MAX_TERMS = 200_000                # predicted terms of a polynomial identity side
MAX_WORK = 1_000_000               # modular work: points x atoms x d (and points x laws x 20), per Result
MAX_BALL_WORK = 20_000             # ball design: points x laws x (d or atoms)
MAX_BALL_LAWS, MAX_BALL_ATOMS = 512, 4096
MAX_EXACT_LAWS, MAX_DIGITS = 128, 200   # exact design: laws, digits of a point coordinate
MAX_FAMILIES = 10_000
_NUM, _DEN = attrgetter("numerator"), attrgetter("denominator")
_spent: dict = {}                  # cost spent per Result, by resource (reset by each kind's check)
_LIMITS = {"modp": MAX_WORK, "poly": 50 * MAX_TERMS, "sympy": 5_000, "ball": 5 * MAX_BALL_WORK, "exact": 200_000}


def _spend(what: str, amount: int, field: str) -> None:
    """Charge ``amount`` units of ``what`` to this Result; reject once the per-Result limit is exceeded
    (a batch of many families shares one limit, so no input of 1 MB makes the check run long)."""
    _spent[what] = _spent.get(what, 0) + amount
    if _spent[what] > _LIMITS[what]:
        raise Rejected(f"{field}: {what} work exceeds the kernel's limit {_LIMITS[what]} for one Result")


# -- reading ------------------------------------------------------------------------------------------------
def _small(v, field) -> Fraction:
    """An exact number with at most :data:`MAX_DIGITS` digits in numerator and denominator (a Fraction
    from a law is accepted as is)."""
    x = v if isinstance(v, Fraction) else _read.num(v, field)
    if max(abs(x.numerator), x.denominator).bit_length() > 3.33 * MAX_DIGITS:
        raise Rejected(f"{field}: more than {MAX_DIGITS} digits")
    return x


def _point(v, field, d) -> tuple:
    return tuple(_small(x, f"{field}[{j}]") for j, x in enumerate(_read.lst(v, field, d, d)))


def _label(p) -> str:
    return f"{_read.string(p['label'], 'parameters.label', max_len=200)}: " if "label" in p else ""


def _what(modulo) -> str:
    return "affine functions" if modulo == "affine" else "constants"


def _laws_text(laws, where="parameters.laws") -> str:
    n, d = len(laws), laws[0]["dim"]
    return f"the CGFs Lambda_1..Lambda_{n} of the {n} laws in {where} (dimension {d})"


def _conventions(result) -> None:
    if result.get("conventions") != CONVENTIONS:
        raise Rejected(f"conventions: expected {CONVENTIONS}")


# -- statements ---------------------------------------------------------------------------------------------
def _indep(p):
    """(statement text, laws read) of the independence kinds: the laws are read once per check."""
    _read.obj(p, "parameters", ("laws", "modulo"), ("label",))
    laws = read_laws(p["laws"])
    return _indep_words(p, len(laws), laws[0]["dim"]), laws


def _indep_words(p, n, d) -> str:
    modulo = _read.string(p["modulo"], "parameters.modulo", MODULI)
    return (f"{_label(p)}the CGFs Lambda_1..Lambda_{n} of the {n} laws in parameters.laws (dimension {d}) are "
            f"linearly independent modulo {_what(modulo)} on U")


def _indep_text(p) -> str:
    return _indep(p)[0]


def statement_independence(parameters: dict, conventions: dict) -> str:
    """Statement of ``independence-design`` (PROVED) and ``dependence-relation`` (REFUTED)."""
    return _read.bound_statement(_indep_text(parameters), parameters, conventions)


def statement_independence_sized(parameters: dict, conventions: dict, n: int, d: int) -> str:
    """:func:`statement_independence` for a caller that holds the ``n`` laws of dimension ``d`` of
    ``parameters.laws`` already read (the decision procedure, for its own laws), without reading them again.
    Nothing is trusted: the check of a Result reads the laws (:func:`_indep`) and rejects a statement that
    does not match them."""
    _read.obj(parameters, "parameters", ("laws", "modulo"), ("label",))
    return _read.bound_statement(_indep_words(parameters, n, d), parameters, conventions)


def _relation_text(p) -> str:
    _read.obj(p, "parameters", ("laws", "c"), ("a", "C", "label"))
    laws = read_laws(p["laws"])
    _read.vec(p["c"], "parameters.c", len(laws))
    if "a" in p:
        _read.obj(p, "parameters", ("laws", "c", "a", "C"), ("label",))
        return (f"{_label(p)}sum_i c_i Lambda_i = <a, theta> + log C on U for {_laws_text(laws)} and c, a, C "
                "in parameters")
    if "C" in p:
        raise Rejected("parameters.C: given without parameters.a")
    return f"{_label(p)}sum_i c_i Lambda_i is an affine function on U for {_laws_text(laws)} and c in parameters"


def statement_relation(parameters: dict, conventions: dict) -> str:
    """Statement of ``relation-identity`` (PROVED) and ``relation-witness`` (REFUTED)."""
    return _read.bound_statement(_relation_text(parameters), parameters, conventions)


def _batch(p, expected_ok=True):
    _read.obj(p, "parameters", ("families", "modulo"), ("expected", "label") if expected_ok else ("label",))
    fams = [read_laws(f, f"parameters.families[{k}]")
            for k, f in enumerate(_read.lst(p["families"], "parameters.families", 1, MAX_FAMILIES))]
    modulo = _read.string(p["modulo"], "parameters.modulo", MODULI)
    exp = [_read.string(e, f"parameters.expected[{k}]", ("independent", "dependent"))
           for k, e in enumerate(_read.lst(p.get("expected", ["independent"] * len(fams)), "parameters.expected",
                                          len(fams), len(fams)))]
    return fams, modulo, exp


def _batch_parts(p, proved):
    """(statement text, (families, modulo, expected)) of the batch kinds: the families are read once per check."""
    fams, modulo, exp = _batch(p, proved)
    return _batch_words(p, len(fams), modulo, exp, proved), (fams, modulo, exp)


def _batch_words(p, K, modulo, exp, proved) -> str:
    what = _what(modulo)
    if not proved:
        text = (f"{_label(p)}for at least one of the {K} families in parameters.families, the CGFs of its laws are "
                f"linearly independent modulo {what} on U")
    elif "expected" not in p:
        text = (f"{_label(p)}for each of the {K} families in parameters.families, the CGFs of its laws are linearly "
                f"independent modulo {what} on U")
    else:
        text = (f"{_label(p)}for each of the {K} families in parameters.families, the CGFs of its laws are linearly "
                f"independent modulo {what} on U exactly when parameters.expected says 'independent' "
                f"({exp.count('independent')} independent, {exp.count('dependent')} dependent)")
    return text


def _batch_text(p, proved) -> str:
    return _batch_parts(p, proved)[0]


def statement_batch(parameters: dict, conventions: dict, proved: bool = True) -> str:
    """Statement of ``independence-batch`` (``proved=True``) and ``dependence-batch`` (``proved=False``)."""
    return _read.bound_statement(_batch_text(parameters, proved), parameters, conventions)


def statement_batch_sized(parameters: dict, conventions: dict, proved: bool = True) -> str:
    """:func:`statement_batch` for a caller whose families in ``parameters.families`` are its own laws already
    read (the decision procedure), without reading them again.  Nothing is trusted: the check of a Result
    reads every family (:func:`_batch`) and rejects a statement that does not match them."""
    p = parameters
    _read.obj(p, "parameters", ("families", "modulo"), ("expected", "label") if proved else ("label",))
    K = len(_read.lst(p["families"], "parameters.families", 1, MAX_FAMILIES))
    modulo = _read.string(p["modulo"], "parameters.modulo", MODULI)
    exp = [_read.string(e, f"parameters.expected[{k}]", ("independent", "dependent"))
           for k, e in enumerate(_read.lst(p.get("expected", ["independent"] * K), "parameters.expected", K, K))]
    return _read.bound_statement(_batch_words(p, K, modulo, exp, proved), parameters, conventions)


def _s1_text(p) -> str:
    _read.obj(p, "parameters", ("laws",), ("label",))
    laws = read_laws(p["laws"])
    if any(l["family"] != "discrete" for l in laws):
        raise Rejected("parameters.laws: S1 / S2 concern discrete laws")
    return (f"{_label(p)}condition S1 (a direction v with pairwise distinct top gaps) or S2 (pairwise disjoint "
            f"difference sets) holds for the {len(laws)} discrete laws in parameters.laws, and their CGFs are "
            "linearly independent modulo affine functions on U")


def statement_s1(parameters: dict, conventions: dict) -> str:
    """Statement of ``s1-independence`` (PROVED)."""
    return _read.bound_statement(_s1_text(parameters), parameters, conventions)


def _s1n_text(p) -> str:
    _read.obj(p, "parameters", ("laws",), ("label",))
    laws = read_laws(p["laws"])
    if any(l["family"] != "discrete" for l in laws) or laws[0]["dim"] != 1:
        raise Rejected("parameters.laws: expected discrete laws on the line")
    return (f"{_label(p)}S1 is necessary for independence for the {len(laws)} discrete laws on the line in "
            "parameters.laws: if their CGFs are linearly independent modulo affine functions on U, then v = 1 or "
            "v = -1 gives pairwise distinct top gaps")


def statement_s1_necessary(parameters: dict, conventions: dict) -> str:
    """Statement of ``s1-not-necessary`` (REFUTED)."""
    return _read.bound_statement(_s1n_text(parameters), parameters, conventions)


def _series_text(p) -> str:
    _read.obj(p, "parameters", ("K", "vandermonde"))
    K = _read.integer(p["K"], "parameters.K", 1, 30)
    groups = _read.obj(p["vandermonde"], "parameters.vandermonde", (), tuple(p["vandermonde"])
                       if isinstance(p["vandermonde"], dict) else ())
    if not 1 <= len(groups) <= 16:
        raise Rejected("parameters.vandermonde: expected 1..16 groups")
    return (f"B_2k != 0 for k = 1..{K}; the Taylor coefficients of log(sinh u / u) and log cosh u of order 2k are "
            "2^2k B_2k / (2k (2k)!) and 2^2k (2^2k - 1) B_2k / (2k (2k)!) for k = 1.." + str(K) + "; and for each of "
            f"the {len(groups)} groups of values x_1..x_n in parameters.vandermonde, det[(x_j^2)^k]_(k, j = 1..n) != 0")


def statement_series(parameters: dict, conventions: dict) -> str:
    """Statement of ``series-vandermonde`` (PROVED)."""
    return _read.bound_statement(_series_text(parameters), parameters, conventions)


# -- independence: design matrices ----------------------------------------------------------------------------
def _pairs(d, variant):
    return [(i, j) for i in range(d) for j in range(i, d)] if variant.startswith("hessian") else list(range(d))


def _rows(cert, N, per, field):
    """The recorded rows of the N x N minor: strictly increasing, every recorded point used."""
    raw = _read.lst(cert["rows"], f"{field}.rows", N, N)
    if set(map(type, raw)) == {int} and 0 <= min(raw) and max(raw) <= 10 ** 9:     # plain ints: as read
        rows = list(raw)
    else:
        rows = [_read.integer(r, f"{field}.rows[{k}]", 0, 10 ** 9) for k, r in enumerate(raw)]
    if any(b <= a for a, b in zip(rows, rows[1:])):
        raise Rejected(f"{field}.rows: not strictly increasing")
    used = sorted({r // per for r in rows})
    return rows, used


_HANDED: list = []                 # at most one (p, copy of the rows, det) from det_mod_handed, taken by _modp


def det_mod_handed(rows, p: int) -> int:
    """The determinant modulo the prime ``p`` of the square matrix ``rows`` (lists of ints), computed here
    and handed to the next :func:`_modp` check: the decision procedure computes the determinant of its minor
    with this function; the check then computes every entry of its own minor from the Result and takes this
    determinant only if that minor is the very same matrix (compared entry by entry, with the same p).  One
    value, taken by the next check whatever it holds, so it is used at most once (a determinant is a function
    of the matrix: the check's answers are those of computing it again)."""
    key = [list(r) for r in rows]          # a copy: the caller's lists may change later
    det = int(nmod_mat(fmpz_mat(rows), p).det())
    _HANDED[:] = [(p, key, det)]
    return det


def _det_mod(minor, p: int) -> int:
    """det(minor) modulo p: the handed determinant when ``minor`` is exactly its matrix, else computed."""
    handed = _HANDED.pop() if _HANDED else None
    if handed is not None and handed[0] == p and handed[1] == minor:
        return handed[2]
    return int(nmod_mat(fmpz_mat(minor), p).det())   # fmpz_mat reads lists of ints faster than nmod_mat


def _modp(laws, modulo, cert, field) -> str:
    if any(l["family"] != "discrete" for l in laws):
        raise Rejected(f"{field}.variant: the modular certificate applies to discrete laws only")
    _read.obj(cert, field, ("variant", "prime", "q", "points", "rows", "det"), ("kind", "summary"))
    N, d, variant = len(laws), laws[0]["dim"], cert["variant"]
    p = _read.integer(cert["prime"], f"{field}.prime", 3, 2 ** 62)
    if not fmpz(p).is_prime():
        raise Rejected(f"{field}.prime: {p} is not prime")
    q = _read.integer(cert["q"], f"{field}.q", 1, 10 ** _read.MAX_DIGITS)
    pairs = _pairs(d, variant)
    rows, used = _rows(cert, N, len(pairs), field)
    pts = _read.lst(cert["points"], f"{field}.points", 1, N)
    if used != list(range(len(pts))):
        raise Rejected(f"{field}.rows: do not use exactly the recorded points")
    atoms = sum(len(l["atoms"]) for l in laws)
    _spend("modp", len(pts) * (atoms * d + 20 * N), field)     # points x (atoms x d + 20 laws)
    # All atoms of all laws in one list (law i holds atoms bounds[i] .. bounds[i + 1] - 1): the exponent
    # vectors A = q x (integers) and the integer weights n_t = D_i w_t, D_i the lcm of law i's weight
    # denominators (prime to p): the tilted weights n_t z^A / sum_t n_t z^A equal w_t z^A / sum_t w_t z^A
    # modulo p, and one vanishes exactly when the other does.  The coefficients of the sums
    # S_c = sum_t c_t z^(A_t) of each law: c_t = n_t, n_t b_tj and n_t b_te b_tf, with b = A - lo >= 0 the
    # exponents shifted by their least value lo_j per coordinate (the Hessian, a covariance, is unchanged; the
    # gradient moves by lo).
    hess = variant.startswith("hessian")
    At = [a for l in laws for a in l["atoms"]]
    Wt = [w for l in laws for w in l["weights"]]
    bounds = [0]
    for l in laws:
        bounds.append(bounds[-1] + len(l["atoms"]))
    tick()
    if any(x % p == 0 for x in {w.denominator for w in Wt}):
        i = min(i for i, l in enumerate(laws) if any(w.denominator % p == 0 for w in l["weights"]))
        raise Rejected(f"{field}.prime: divides a weight denominator of law {i}")
    coords = list(chain.from_iterable(At))
    dens = list(map(_DEN, coords))
    if any(q % x for x in set(dens)):
        i = min(i for i, l in enumerate(laws) if any(q % x.denominator for a in l["atoms"] for x in a))
        raise Rejected(f"{field}.q: q times the atoms of law {i} are not integers")
    qx = list(map(_NUM, coords)) if q == 1 else list(map(mul, map(_NUM, coords), map(floordiv, repeat(q), dens)))
    A = list(zip(*[iter(qx)] * d))     # q x per atom (tuples of d integers)
    Dt = chain.from_iterable(repeat(lcm(*{w.denominator for w in l["weights"]}), len(l["weights"])) for l in laws)
    n = list(map(mul, map(_NUM, Wt), map(floordiv, Dt, map(_DEN, Wt))))
    lo = [min(c) for c in zip(*A)]
    b = [list(map(sub, c, repeat(m))) for c, m in zip(zip(*A), lo)]      # b[j][t]
    nb = [list(map(mul, n, c)) for c in b]
    C = [n] + nb + ([list(map(mul, nb[e], b[f])) for e, f in pairs] if hess else [])
    cmax = max(map(max, C))
    if cmax >= p:                      # reduce the coefficients modulo p (then every one is < p)
        C = [[x % p for x in c] for c in C]
        cmax = p - 1
    exps = {}                          # distinct exponent vectors -> index
    idx = [exps.setdefault(a, len(exps)) for a in A]
    Z = [[_read.integer(x, f"{field}.points[{k}][{j}]", 1, p - 1)
          for j, x in enumerate(_read.lst(z, f"{field}.points[{k}]", d, d))] for k, z in enumerate(pts)]
    # The sums for all nP points at once: z_k^A mod p sits in slots of `words` machine words of one integer
    # (one integer per exponent vector A), so a sum over t is one integer sum of products; a slot holds
    # < K max(c) p < 2^(64 words) (K atoms at most): no carry crosses slots.
    nP, K = len(Z), max(len(l["atoms"]) for l in laws)
    wb = 8 * array("Q").itemsize       # bits of a machine word ("Q": 64 on every usual platform)
    words = -(-(K * max(cmax, 1) * (p - 1)).bit_length() // wb)
    L = words * wb // 8 * nP           # bytes of one packed integer
    vals = [sorted({a[j] for a in exps}) for j in range(d)]         # distinct exponents per coordinate
    pw = [{e: [int(powmod(z[j], e % (p - 1), p)) for z in Z] for e in v} for j, v in enumerate(vals)]
    # z_k^a = prod_j z_kj^(a_j) mod p, by prefixes: level j holds [z_k^(a_1..a_j) for the nP points] of each
    # distinct prefix, one product over all prefixes at once (flat lists of nP values per prefix)
    keys = list(exps)
    flat_col = None
    for j in range(d):
        tick()
        level = list(dict.fromkeys([a[:j + 1] for a in keys]))       # distinct prefixes, first seen first
        f = chain.from_iterable(pw[j][a[j]] for a in level)
        if flat_col is None:
            cur = list(f)
        else:
            at = {a: n * nP for n, a in enumerate(prev)}
            base = chain.from_iterable([flat_col[s:s + nP] for s in map(at.__getitem__, [a[:j] for a in level])])
            cur = list(map(mod, map(mul, base, f), repeat(p)))
        prev, flat_col = level, cur    # the last level: the exponent vectors in their index order
    flat = array("Q", bytes(L * len(exps)))
    flat[0::words] = array("Q", flat_col)
    view = memoryview(flat).cast("B")
    packed = [int.from_bytes(view[u * L:(u + 1) * L], sys.byteorder) for u in range(len(exps))]
    ps = [packed[u] for u in idx]      # per atom
    E = len(C)
    sums = []                          # sums[e * N + i]: the packed sum e of law i
    uniform = all(t - s == K for s, t in zip(bounds, bounds[1:]))
    for c in C:
        tick()
        prod = list(map(mul, c, ps))
        sums.extend(map(sum, zip(*[iter(prod)] * K)) if uniform else
                    (sum(prod[s:t]) for s, t in zip(bounds, bounds[1:])))
    words_out = array("Q", b"".join([s.to_bytes(L, sys.byteorder) for s in sums]))
    if words == 1:
        S = words_out
    else:
        S = [sum(x << (wb * w) for w, x in enumerate(t)) for t in zip(*[words_out[w::words] for w in range(words)])]
    T = N * nP                         # S[e * T + i * nP + k]: the sum e of law i at point k (exact)
    S0 = list(map(mod, S[:T], repeat(p)))
    if 0 in S0:
        k, i = min((j % nP, j // nP) for j, v in enumerate(S0) if v == 0)
        raise Rejected(f"{field}.points[{k}]: the normaliser of law {i} vanishes modulo p")
    inv = list(map(int, map(invert, S0, repeat(p))))      # gmpy2: each x^-1 mod p
    g = [list(map(mod, map(mul, S[(1 + j) * T:(2 + j) * T], inv), repeat(p))) for j in range(d)]
    if hess:                           # H_ef = S_ef / S_0 - g_e g_f
        blocks = [list(map(mod, map(sub, map(mul, S[(1 + d + r) * T:(2 + d + r) * T], inv),
                                    map(mul, g[e], g[f])), repeat(p))) for r, (e, f) in enumerate(pairs)]
    else:                              # g of the unshifted exponents: g + lo
        blocks = [list(map(mod, map(add, g[j], repeat(lo[j])), repeat(p))) for j in range(d)]
    per = len(pairs)                   # row k * per + r of the matrix: pair (or coordinate) r at point k
    minor = [blocks[r % per][r // per::nP] for r in rows]
    if any(len(r) != N for r in minor):
        raise Rejected(f"{field}.rows: index beyond the recorded points")
    det = _det_mod(minor, p)
    if det == 0 or det != _read.integer(cert["det"], f"{field}.det", 0, p - 1):
        raise Rejected(f"{field}.det: the minor's determinant modulo p is {det}, recorded {cert['det']!r:.40}")
    return f"{variant}: rank {N} modulo {p}"


def _exact(laws, modulo, cert, field) -> str:
    for l in laws:
        if l["family"] not in ("gaussian", "laplace") and not (l["family"] == "gaussian_mixture"
                                                                and l["separation"] == 0):
            raise Rejected(f"{field}.variant: the exact certificate needs Gaussian / Laplace laws")
    _read.obj(cert, field, ("variant", "points", "rows", "det"), ("kind", "summary"))
    N, d, variant = len(laws), laws[0]["dim"], cert["variant"]
    if N > MAX_EXACT_LAWS:
        raise Rejected(f"{field}: more than {MAX_EXACT_LAWS} laws")
    pairs = _pairs(d, variant)
    rows, used = _rows(cert, N, len(pairs), field)
    pts = [_point(t, f"{field}.points[{k}]", d) for k, t in enumerate(_read.lst(cert["points"], f"{field}.points",
                                                                                  1, N))]
    if used != list(range(len(pts))):
        raise Rejected(f"{field}.rows: do not use exactly the recorded points")
    _spend("exact", len(pts) * N * d * d, field)
    for i, l in enumerate(laws):
        for x in [x for row in l["cov"] for x in row] + list(l["mean"]):
            _small(x, f"parameters.laws[{i}] (exact certificate)")
    M = []
    for k, t in enumerate(pts):
        ents = []
        for l in laws:
            tick()
            S, m = l["cov"], l["mean"]
            St = [sum((S[i][j] * t[j] for j in range(d)), Fraction(0)) for i in range(d)]
            s = 1                       # Laplace: grad = m + S t / s, Hess = S / s + S t t^T S / s^2
            if l["family"] == "laplace":
                s = 1 - sum((St[i] * t[i] for i in range(d)), Fraction(0)) / 2
                if s <= 0:
                    raise Rejected(f"{field}.points[{k}]: outside the Laplace domain")
            lap = l["family"] == "laplace"
            ents.append([m[e] + St[e] / s if isinstance(e, int) else
                         S[e[0]][e[1]] / s + (St[e[0]] * St[e[1]] / s ** 2 if lap else 0) for e in pairs])
        M.extend([ents[i][r] for i in range(N)] for r in range(len(pairs)))
    minor = [M[r] for r in rows if r < len(M)]
    if len(minor) != N:
        raise Rejected(f"{field}.rows: index beyond the recorded points")
    det = _det_q(minor, field)
    if det == 0 or det != _read.num(cert["det"], f"{field}.det"):
        raise Rejected(f"{field}.det: the minor's determinant is {det}, recorded {cert['det']!r:.40}")
    return f"{variant}: rank {N} over Q"


def _det_q(rows, field) -> Fraction:
    """The exact determinant of a square rational matrix: rows scaled to integers (fmpz_mat), with the
    Hadamard bound of the integer matrix and the scale factors bounded to 100,000 bits each."""
    ints, scale, bits = [], 1, 0
    for r in rows:
        tick()
        D = 1
        for v in r:
            D = _lcm(D, v.denominator)
            if D.bit_length() > 100_000:
                raise Rejected(f"{field}: the minor's entries are too large (denominators over 100,000 bits)")
        row = [int(v * D) for v in r]
        ints.extend(row)
        scale *= D
        bits += max(x.bit_length() for x in row) + len(r).bit_length()
        if bits > 100_000 or scale.bit_length() > 100_000:
            raise Rejected(f"{field}: the minor's entries are too large (determinant over 100,000 bits)")
    n = len(rows)
    return Fraction(int(fmpz_mat(n, n, ints).det()), scale)


def _near(x: arb, v, field) -> None:
    """The ball ``x`` is certainly within relative 2^-16 of the recorded non-zero rational ``v``."""
    v = _read.num(v, field)
    if v == 0 or not bool(abs(x - ball(v)) < ball(abs(v)) / 65536):
        raise Rejected(f"{field}: the recomputed value is not certainly within 2^-16 of {v} (or is not certified "
                       "non-zero)")


def _design(laws, modulo, cert, field) -> str:
    _read.obj(cert, field, ("variant", "points", "det"), ("kind", "summary"))
    N, d = len(laws), laws[0]["dim"]
    if N > MAX_BALL_LAWS or sum(len(l.get("atoms", ())) for l in laws) > MAX_BALL_ATOMS:
        raise Rejected(f"{field}: the ball design is bounded to {MAX_BALL_LAWS} laws and {MAX_BALL_ATOMS} atoms")
    nc = N + 1 + (d if modulo == "affine" else 0)
    cost = nc * sum(len(l.get("atoms", ())) or d for l in laws)
    if cost > MAX_BALL_WORK:
        raise Rejected(f"{field}: the ball design is bounded to {MAX_BALL_WORK} points x laws x (d or atoms)")
    _spend("ball", cost, field)
    pts = [_point(t, f"{field}.points[{k}]", d)
           for k, t in enumerate(_read.lst(cert["points"], f"{field}.points", nc, nc))]
    for k, t in enumerate(pts):
        if not all(in_domain(l, t) for l in laws):
            raise Rejected(f"{field}.points[{k}]: outside U")
    for bits in LADDER:
        with workprec(bits):
            rows = []
            for t in pts:
                tick()
                rows.append([cgf_ball(l, t) for l in laws] + [arb(1)] + ([ball(x) for x in t] if nc > N + 1 else []))
            D = arb_mat(rows).det()
            try:
                _near(D, cert["det"], f"{field}.det")
                return f"design-ball: square {nc} x {nc} design matrix, determinant certified at {bits} bits"
            except Rejected:
                if bits == LADDER[-1]:
                    raise
    raise AssertionError("unreachable")


_VARIANTS = {"hessian-modp": _modp, "gradient-modp": _modp, "hessian-exact": _exact, "gradient-exact": _exact,
             "design-ball": _design}


def _independent(laws, modulo, cert, field, method) -> str:
    """Check a design certificate for these laws; returns a summary (method: the Result's method).  The body
    of an ``independence-lattice`` certificate (no ``variant``; inside a batch) is checked as that kind."""
    if isinstance(cert, dict) and "variant" not in cert and "laurent_base" in cert:
        if method != "exact":
            raise Rejected(f"method: an exponent-lattice certificate is exact")
        return lattice_check(laws, modulo, cert, field)
    variant = _read.string(_read.obj(cert, field, ("variant",), tuple(cert) if isinstance(cert, dict) else ())
                           ["variant"], f"{field}.variant", _VARIANTS)
    if variant.startswith("gradient") and modulo != "constants":
        raise Rejected(f"{field}.variant: a gradient certificate proves independence modulo constants only")
    if (variant == "design-ball") != (method == "certified"):
        raise Rejected(f"method: a {variant} certificate is {'certified' if variant == 'design-ball' else 'exact'}")
    return _VARIANTS[variant](laws, modulo, cert, field)


# -- dependence: exact relations ------------------------------------------------------------------------------
def _lcm(a, b):
    return a * b // gcd(a, b)


def _identity_poly(laws, c, a, C) -> str:
    """prod_{c_i>0} P_i^c_i = C z^(q a) prod_{c_i<0} P_i^-c_i as polynomials (exponents shifted to >= 0);
    None when the exponents q x exceed 2^60 (the caller then tries SymPy)."""
    d = laws[0]["dim"]
    q = 1
    for x in [x for ci, l in zip(c, laws) if ci for at in l["atoms"] for x in at] + list(a):
        q = _lcm(q, x.denominator)
    ctx = fmpq_mpoly_ctx.get(tuple(f"z{j}" for j in range(d)), "lex")
    sides = [ctx.from_dict({(0,) * d: 1}), ctx.from_dict({(0,) * d: fmpq(C.numerator, C.denominator)})]
    shift = [[0] * d, [int(x * q) for x in a]]       # the monomial factor of each side
    if any(abs(x) > 2 ** 60 for x in shift[1]):
        return None
    terms, work = [1, 1], 0
    coef = [0, max(C.numerator, C.denominator).bit_length()]     # bits of the coefficients of each side
    for ci, l in zip(c, laws):
        if not ci:
            continue
        s, k = int(ci < 0), abs(ci)
        E = [[int(x * q) for x in at] for at in l["atoms"]]
        lo = [min(e[j] for e in E) for j in range(d)]
        if max(abs(x) for e in E + [lo] for x in e) * (sum(map(abs, c)) + 1) > 2 ** 60:
            return None                         # exponents q x too large for the polynomials: use SymPy
        n = len(E)
        coef[s] += k * max(max(abs(w.numerator), w.denominator).bit_length() for w in l["weights"])
        if coef[s] > 200_000 or coef[s] * terms[s] > 10 ** 8:
            raise Rejected("certificate: the coefficients of the polynomial identity are too large")
        work += terms[s] * n * k
        _spend("poly", terms[s] * n * k, "certificate")
        terms[s] = min(terms[s] * comb(n + k - 1, k), MAX_TERMS + 1)
        if terms[s] > MAX_TERMS or work > 50 * MAX_TERMS:
            raise Rejected("certificate: the polynomial identity is too large to expand")
        P = ctx.from_dict({tuple(x - m for x, m in zip(e, lo)): fmpq(w.numerator, w.denominator)
                           for e, w in zip(E, l["weights"])})
        tick()
        sides[s] = sides[s] * P ** k
        shift[s] = [x + k * m for x, m in zip(shift[s], lo)]
    low = [min(x, y) for x, y in zip(*shift)]
    mono = [ctx.from_dict({tuple(x - m for x, m in zip(sh, low)): 1}) for sh in shift]
    if sides[0] * mono[0] != sides[1] * mono[1]:
        raise Rejected("certificate: the polynomial identity prod P_i^c_i = C z^(q a) fails")
    return f"polynomial identity (q = {q})"


def _identity_sympy(laws, c, a, C) -> str:
    if sum(1 for x in c if x) > 64:
        raise Rejected("certificate: at most 64 non-discrete laws in a symbolic relation")
    _spend("sympy", sum(laws[0]["dim"] ** 2 + 100 * len(l.get("atoms", ())) for x, l in zip(c, laws) if x),
           "certificate")
    th = [sympy.Dummy(f"theta{j}", real=True) for j in range(laws[0]["dim"])]
    E = sympy.Add(*[int(x) * cgf_sympy(l, th) for x, l in zip(c, laws) if x])
    E -= sympy.Add(*[sympy.Rational(x.numerator, x.denominator) * t for x, t in zip(a, th)])
    E -= sympy.log(sympy.Rational(C.numerator, C.denominator))
    if sympy.expand(E) != 0:
        raise Rejected("certificate: SymPy expand does not reduce sum c_i Lambda_i - <a, theta> - log C to 0")
    return "SymPy expand reduces the relation to 0"


def _identity(laws, c, a, C) -> str:
    """Prove sum c_i Lambda_i = <a, theta> + log C exactly (c integers, not all 0; C > 0)."""
    if C <= 0 or not any(c):
        raise Rejected("certificate: need C > 0 and integers c != 0")
    a, c = list(a), list(c)
    for i, l in enumerate(laws):           # a Dirac at x has Lambda = <x, theta> exactly: move it to the right
        if c[i] and l["family"] == "discrete" and len(l["atoms"]) == 1:
            a = [y - c[i] * x for y, x in zip(a, l["atoms"][0])]
            c[i] = 0
    if not any(c):
        if any(a) or C != 1:
            raise Rejected("certificate: the Dirac terms do not add up to <a, theta> + log C")
        return "Dirac CGFs are linear"
    support = [l for x, l in zip(c, laws) if x]
    discrete = all(l["family"] == "discrete" for l in support)
    if discrete:
        if max(map(abs, c)) > MAX_COEF:
            raise Rejected(f"certificate: a polynomial identity needs |c_i| <= {MAX_COEF}")
        how = _identity_poly(laws, c, a, C)
        if how is not None:
            return how
    transcendental = any(l["family"] in ("discrete", "uniform_cube") or
                         (l["family"] == "gaussian_mixture" and l["separation"] != 0) for l in support)
    if transcendental and not discrete and lattice_applicable(support) is None:
        return lattice_identity(laws, c, a, C)      # log sinh / log cosh / log-sum-exp: SymPy cannot expand them
    try:
        return _identity_sympy(laws, c, a, C)
    except Rejected as exc:
        if discrete or lattice_applicable(support) is not None:
            raise
        try:                     # every frequency rational: the exponent-lattice identity decides exactly
            return lattice_identity(laws, c, a, C)
        except Rejected as exc2:
            raise Rejected(f"{exc}; {exc2}") from None


def _dependent(laws, modulo, cert, field) -> str:
    _read.obj(cert, field, ("c", "a", "C"), ("kind", "summary"))
    c = [_read.integer(x, f"{field}.c[{i}]", -10 ** MAX_DIGITS, 10 ** MAX_DIGITS)
         for i, x in enumerate(_read.lst(cert["c"], f"{field}.c", len(laws), len(laws)))]
    a = _read.vec(cert["a"], f"{field}.a", laws[0]["dim"])
    if modulo == "constants" and any(a):
        raise Rejected(f"{field}.a: must be 0 for a relation modulo constants")
    return f"relation c = {c}: " + _identity(laws, c, a, _read.num(cert["C"], f"{field}.C"))


# -- the kinds ------------------------------------------------------------------------------------------------
def _start(result, text_fn):
    """Reset the work counters, check conventions and summary, and compare the statement with the text
    ``text_fn(parameters)`` (plus the instance tag); returns the parameters, or (parameters, laws) when
    ``text_fn`` also returns the laws it read (:func:`_indep`)."""
    _spent.clear()
    _conventions(result)
    _read.string(result["certificate"].get("summary", ""), "certificate.summary", max_len=2000)
    p = result["parameters"]
    text = text_fn(p)
    if isinstance(text, tuple):
        text, laws = text
        _read.expect_statement(result, text)
        return p, laws
    _read.expect_statement(result, text)
    return p


def _check_independence(result) -> str:
    p, laws = _start(result, _indep)
    return _independent(laws, p["modulo"], result["certificate"], "certificate", result["method"])


def _check_lattice(result) -> str:
    p, laws = _start(result, _indep)
    return lattice_check(laws, p["modulo"], result["certificate"], "certificate")


def _check_dependence(result) -> str:
    p, laws = _start(result, _indep)
    return _dependent(laws, p["modulo"], result["certificate"], "certificate")


def _relation_params(p):
    laws = read_laws(p["laws"])
    c = _read.vec(p["c"], "parameters.c", len(laws))
    if not any(c):
        raise Rejected("parameters.c: all zero")
    L = 1
    for x in c:
        L = _lcm(L, x.denominator) if L <= MAX_COEF else L
    return laws, c, L


def _F(laws, c, t) -> arb:
    if not all(in_domain(l, t) for l in laws):
        raise Rejected("certificate: a point outside U")
    return sum((ball(x) * cgf_ball(l, t) for x, l in zip(c, laws) if x), arb(0))


def _check_identity(result) -> str:
    p = _start(result, _relation_text)
    laws, c, L = _relation_params(p)
    if L > MAX_COEF or any(abs(x) > 10 ** MAX_DIGITS for x in c):
        raise Rejected("parameters.c: too large for an exact identity")
    cert = _read.obj(result["certificate"], "certificate", ("kind",), ("a", "C", "summary") if "a" not in p else
                     ("summary",))
    src = p if "a" in p else _read.obj(cert, "certificate", ("kind", "a", "C"), ("summary",))
    a = _read.vec(src["a"], "a", laws[0]["dim"])
    C = _read.num(src["C"], "C")
    if C <= 0:
        raise Rejected("C: must be > 0")
    if max(abs(C.numerator), C.denominator).bit_length() * L > 200_000:
        raise Rejected("C: too large")
    return "identity: " + _identity(laws, [int(x * L) for x in c], [x * L for x in a], C ** L)


def _check_witness(result) -> str:
    p = _start(result, _relation_text)
    laws, c, _ = _relation_params(p)
    d = laws[0]["dim"]
    cert = _read.obj(result["certificate"], "certificate", ("kind", "point", "value"), ("step", "summary"))
    if "step" not in cert and "a" not in p:
        raise Rejected("certificate.step: required when the claim is 'is affine'")
    t = _point(cert["point"], "certificate.point", d)
    h = _point(cert["step"], "certificate.step", d) if "step" in cert else None
    if "a" in p:
        a, C = _read.vec(p["a"], "parameters.a", d), _read.num(p["C"], "parameters.C")
        if C <= 0:
            raise Rejected("parameters.C: must be > 0")
    for bits in LADDER:
        with workprec(bits):
            if h is None:
                v = _F(laws, c, t) - ball(sum((x * y for x, y in zip(a, t)), Fraction(0))) - ball(C).log()
            else:
                v = (_F(laws, c, tuple(x + y for x, y in zip(t, h))) - 2 * _F(laws, c, t)
                     + _F(laws, c, tuple(x - y for x, y in zip(t, h))))
            try:
                _near(v, cert["value"], "certificate.value")
                return f"{'second difference' if h else 'value'} at {[str(x) for x in t]} certified non-zero at {bits} bits"
            except Rejected:
                if bits == LADDER[-1]:
                    raise
    raise AssertionError("unreachable")


def _check_batch(result) -> str:
    _spent.clear()
    _conventions(result)
    _read.string(result["certificate"].get("summary", ""), "certificate.summary", max_len=2000)
    p = result["parameters"]
    text, (fams, modulo, exp) = _batch_parts(p, True)
    _read.expect_statement(result, text)
    certs = _read.lst(result["certificate"].get("certificates"), "certificate.certificates", len(fams), len(fams))
    _read.obj(result["certificate"], "certificate", ("kind", "certificates"), ("summary",))
    exact = True
    for k, (laws, e, cert) in enumerate(zip(fams, exp, certs)):
        f = f"certificate.certificates[{k}]"
        if e == "dependent":
            _dependent(laws, modulo, cert, f)
        else:
            ball_ = _read.obj(cert, f, (), tuple(cert) if isinstance(cert, dict) else ()).get("variant") \
                == "design-ball"
            exact = exact and not ball_
            _independent(laws, modulo, cert, f, "certified" if ball_ else "exact")
    if (result["method"] == "exact") != exact:
        raise Rejected(f"method: expected {'exact' if exact else 'certified'} for these certificates")
    return f"{len(fams)} families, {exp.count('independent')} independent, {exp.count('dependent')} dependent"


def _check_dependence_batch(result) -> str:
    _spent.clear()
    _conventions(result)
    _read.string(result["certificate"].get("summary", ""), "certificate.summary", max_len=2000)
    p = result["parameters"]
    text, (fams, modulo, _) = _batch_parts(p, False)
    _read.expect_statement(result, text)
    _read.obj(result["certificate"], "certificate", ("kind", "certificates"), ("summary",))
    certs = _read.lst(result["certificate"]["certificates"], "certificate.certificates", len(fams), len(fams))
    for k, (laws, cert) in enumerate(zip(fams, certs)):
        _dependent(laws, modulo, cert, f"certificate.certificates[{k}]")
    return f"every one of the {len(fams)} families is dependent (exact relations)"


def _gaps(laws, v) -> list:
    out = []
    for l in laws:
        vals = sorted({sum((x * y for x, y in zip(a, v)), Fraction(0)) for a in l["atoms"]}, reverse=True)
        out.append(vals[0] - vals[1] if len(vals) >= 2 else None)
    return out


def _distinct(gaps) -> bool:
    return None not in gaps and len(set(gaps)) == len(gaps)


def _check_s1(result) -> str:
    p = _start(result, _s1_text)
    laws = read_laws(p["laws"])
    cert = _read.obj(result["certificate"], "certificate", ("kind", "design"), ("direction", "gaps", "summary"))
    if "direction" in cert:
        v = _point(cert["direction"], "certificate.direction", laws[0]["dim"])
        g = _gaps(laws, v)
        if not _distinct(g) or g != _read.vec(cert.get("gaps"), "certificate.gaps", len(laws)):
            raise Rejected("certificate.gaps: the top gaps along the direction are not the recorded, pairwise "
                           "distinct ones")
        how = f"S1 with v = {[str(x) for x in v]}"
    else:
        if "gaps" in cert or sum(len(l["atoms"]) ** 2 for l in laws) > 10 ** 6:
            raise Rejected("certificate: S2 is checked without gaps, for at most 10^6 atom pairs")
        seen = {}
        for i, l in enumerate(laws):
            tick()
            for x in l["atoms"]:
                for y in l["atoms"]:
                    if x != y and seen.setdefault(tuple(a - b for a, b in zip(x, y)), i) != i:
                        raise Rejected("certificate: S2 fails (a difference occurs in two laws)")
        if any(len(l["atoms"]) < 2 for l in laws):
            raise Rejected("certificate: S2 needs two atoms in every law")
        how = "S2"
    return how + "; " + _independent(laws, "affine", cert["design"], "certificate.design", result["method"])


def _check_s1_necessary(result) -> str:
    p = _start(result, _s1n_text)
    laws = read_laws(p["laws"])
    cert = _read.obj(result["certificate"], "certificate", ("kind", "design"), ("summary",))
    if any(_distinct(_gaps(laws, (v,))) for v in (1, -1)):
        raise Rejected("parameters.laws: S1 holds for v = 1 or v = -1")
    return "S1 fails for v = +-1; " + _independent(laws, "affine", cert["design"], "certificate.design",
                                                   result["method"])


def _log_series(a, n):
    """Coefficients b_0..b_n of log(A) for the power series A = a (a_0 = 1)."""
    b = [Fraction(0)] * (n + 1)
    for k in range(1, n + 1):
        b[k] = a[k] - sum((j * b[j] * a[k - j] for j in range(1, k)), Fraction(0)) / k
    return b


def _check_series(result) -> str:
    p = _start(result, _series_text)
    _read.obj(result["certificate"], "certificate", ("kind",), ("summary",))
    K = int(p["K"])
    n = 2 * K
    fact = [1]
    for k in range(1, n + 2):
        fact.append(fact[-1] * k)
    sg = _log_series([Fraction(1, fact[k + 1]) if k % 2 == 0 else Fraction(0) for k in range(n + 1)], n)
    sc = _log_series([Fraction(1, fact[k]) if k % 2 == 0 else Fraction(0) for k in range(n + 1)], n)
    for k in range(1, K + 1):
        B = sympy.bernoulli(2 * k)
        B = Fraction(int(B.p), int(B.q))
        base = 2 ** (2 * k) * B / (2 * k * fact[2 * k])
        if B == 0 or sg[2 * k] != base or sc[2 * k] != (2 ** (2 * k) - 1) * base:
            raise Rejected(f"parameters.K: the series identity fails at k = {k}")
    for name, vals in p["vandermonde"].items():
        x = [_small(v, f"parameters.vandermonde.{name}[{j}]")
             for j, v in enumerate(_read.lst(vals, f"parameters.vandermonde.{name}", 1, 16))]
        M = fmpq_mat(len(x), len(x), [fmpq(((v * v) ** k).numerator, ((v * v) ** k).denominator)
                                      for k in range(1, len(x) + 1) for v in x])
        if M.det() == 0:
            raise Rejected(f"parameters.vandermonde.{name}: the determinant is 0")
    return f"series through order {n} and {len(p['vandermonde'])} Vandermonde determinants"


KINDS = {
    "independence-design": Kind(CLAIMS, "proved", frozenset({"exact", "certified"}), _check_independence),
    "dependence-relation": Kind(CLAIMS, "refuted", frozenset({"exact"}), _check_dependence),
    "independence-lattice": Kind(CLAIMS, "proved", frozenset({"exact"}), _check_lattice),
    "relation-identity": Kind(CLAIMS, "proved", frozenset({"exact"}), _check_identity),
    "relation-witness": Kind(CLAIMS, "refuted", frozenset({"certified"}), _check_witness),
    "independence-batch": Kind(CLAIMS, "proved", frozenset({"exact", "certified"}), _check_batch),
    "dependence-batch": Kind(CLAIMS, "refuted", frozenset({"exact"}), _check_dependence_batch),
    "s1-independence": Kind(frozenset({"N5"}), "proved", frozenset({"exact", "certified"}), _check_s1),
    "s1-not-necessary": Kind(frozenset({"N5"}), "refuted", frozenset({"exact", "certified"}), _check_s1_necessary),
    "series-vandermonde": Kind(frozenset({"N4"}), "proved", frozenset({"exact"}), _check_series),
}
