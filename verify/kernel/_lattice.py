"""The exact exponent lattice of rational families (N3-N6): the identity and the ``independence-lattice`` check.

The mathematics is docs/independence.md, section "The exponent lattice for rational families".  When
every frequency of the laws is rational (atoms, cube radii r, mixture separations m = a u / |u|), put
t = e^{theta / D} with D the common denominator of the frequencies.  Each moment generating function is

    M_i(theta) = exp(Q_i(theta) + <lambda_i, theta>) * kappa_i * Etilde_i(t) / (rho_i * R_i(theta))

with Q_i a quadratic form (Gaussians, mixtures: theta^T S theta / 2), lambda_i the linear part (location
plus the Laurent shift / D), Etilde_i a polynomial in t without monomial content and with leading
coefficient 1 after dividing by kappa_i (discrete: sum_k w_k t^{D x_k}; cube: prod_j (t_j^{2 r D} - 1);
mixture: (t^{2 D m^+} + t^{2 D m^-}) / 2 up to the shift), and R_i the denominator (cube: prod_j theta_j
with rho = (2r)^d; Laplace: 1 - theta^T S theta / 2).  Over a base of pairwise coprime non-monomial
polynomials b_k (of t) and pairwise coprime non-constant polynomials f_l (of theta), the real relations
sum c_i Lambda_i = affine are exactly the real kernel of the integer matrix whose column i holds Q_i's
coefficients, the exponents of the b_k in Etilde_i and of the f_l in R_i (and, modulo constants, lambda_i).

* :func:`lattice_identity` proves a given integer relation: it factors every Etilde_i and R_i with
  python-flint (``fmpq_mpoly.factor``: the factors multiply back to the polynomial), checks that the
  column combination vanishes, and returns a = sum c_i lambda_i and C = prod (kappa_i / rho_i)^{c_i}
  (then prod M_i^{c_i} = C e^{<a, theta>} identically, so sum c_i Lambda_i = <a, theta> + log C on U).
  Used by the ``dependence-relation`` and ``relation-identity`` kinds of :mod:`verify.kernel.lse`.
* ``independence-lattice`` (PROVED; the kind is registered in :mod:`verify.kernel.lse`): the certificate
  lists the base (``laurent_base`` in t, ``rational_base`` in theta) and, per law, the exponents.  The check recomputes every law's Etilde_i and
  R_i from the parameters, compares the degrees, multiplies the base powers out and compares exactly (up to
  the leading coefficient), requires every base element to be used, verifies that every base element is
  irreducible over Q (``factor``: one factor, exponent 1) and non-monomial (no variable divides it;
  non-constant), that their monic forms are pairwise distinct (irreducible + distinct implies pairwise
  coprime), and that the matrix has rank N over Q (fmpq_mat).

Trusted: python-flint (fmpq_mpoly arithmetic and factor, fmpq_mat rank) and this module's formulas of the
MGFs (they agree with :mod:`verify.kernel._laws`).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, isqrt

from flint import fmpq, fmpq_mat, fmpq_mpoly_ctx

from . import _read
from ._read import Rejected, tick

__all__ = ["check_independence", "MAX_SPAN", "MAX_TERMS", "applicable", "lattice_data", "lattice_identity",
           "matrix_rows",
           "poly_json", "sqrt_q"]

CLAIMS = frozenset({"N3", "N4", "N5", "N6"})
MAX_SPAN = 1024          # exponent span per variable of one Etilde_i in d = 1
MAX_SPAN_MULTI = 96      # ... in d >= 2
MAX_TERMS = 20_000       # terms of one Etilde_i
MAX_FACTOR_COST = 8_000  # terms x coefficient bits of one Etilde_i (flint's factoring time grows fast with both:
                         # d = 1, 800 terms of 10 bits 0.6 s; 1024 terms of 60 bits 57 s)
MAX_LATTICE_DIM = 16


def sqrt_q(x: Fraction):
    """The rational square root of x >= 0, or None."""
    p, q = isqrt(x.numerator), isqrt(x.denominator)
    return Fraction(p, q) if p * p == x.numerator and q * q == x.denominator else None


def _lcm(a, b):
    return a * b // gcd(a, b)


def _mixture_m(law):
    """m = a u / |u| when it is rational, else None."""
    u = law["direction"]
    n2 = sum((x * x for x in u), Fraction(0))
    s = sqrt_q(law["separation"] ** 2 / n2)
    return None if s is None else tuple(s * x for x in u)


def _frequencies(law):
    fam = law["family"]
    if fam == "discrete":
        return [x for a in law["atoms"] for x in a]
    if fam == "uniform_cube":
        return [law["radius"]]
    if fam == "gaussian_mixture":
        m = _mixture_m(law)
        return None if m is None else list(m)
    return []


def applicable(laws):
    """None if every frequency is rational and the sizes are within the limits, else the reason."""
    d = laws[0]["dim"]
    if d > MAX_LATTICE_DIM:
        return f"dimension {d} > {MAX_LATTICE_DIM}"
    D = 1
    for i, l in enumerate(laws):
        fr = _frequencies(l)
        if fr is None:
            return f"law {i}: the mixture frequency a u / |u| is irrational"
        for x in fr:
            D = _lcm(D, x.denominator)
    span_max = MAX_SPAN if d == 1 else MAX_SPAN_MULTI
    for i, l in enumerate(laws):
        fam = l["family"]
        if fam == "discrete":
            if len(l["atoms"]) > MAX_TERMS:
                return f"law {i}: more than {MAX_TERMS} atoms"
            den = 1
            for w in l["weights"]:
                den = _lcm(den, w.denominator)
            cost = len(l["atoms"]) * max((w * den).numerator.bit_length() for w in l["weights"])
            if cost > MAX_FACTOR_COST:
                return (f"law {i}: atoms x weight bits = {cost} > {MAX_FACTOR_COST} (factoring budget)")
            span = max(max(a[j] for a in l["atoms"]) - min(a[j] for a in l["atoms"]) for j in range(d)) * D
        elif fam == "uniform_cube":
            span = 2 * l["radius"] * D
        elif fam == "gaussian_mixture":
            span = 2 * max(abs(x) for x in _mixture_m(l)) * D
        else:
            span = 0
        if span > span_max:
            return f"law {i}: exponent span {span} > {span_max} (frequencies too fine or too large)"
    return None


def _common_D(laws) -> int:
    D = 1
    for l in laws:
        for x in _frequencies(l):
            D = _lcm(D, x.denominator)
    return D


def _pairs(d):
    return [(a, b) for a in range(d) for b in range(a, d)]


def _parts(law, D):
    """(quadratic coefficients over _pairs, lambda, Etilde as dict, R as dict) of one law, exact."""
    d = law["dim"]
    zero = (0,) * d
    fam = law["family"]
    quad = [Fraction(0)] * len(_pairs(d))
    R = {zero: Fraction(1)}
    if fam == "discrete":
        ex = [tuple(int(x * D) for x in a) for a in law["atoms"]]
        s = tuple(min(e[j] for e in ex) for j in range(d))
        E = {}
        for e, w in zip(ex, law["weights"]):
            k = tuple(x - y for x, y in zip(e, s))
            E[k] = E.get(k, Fraction(0)) + w
        lam = tuple(Fraction(x, D) for x in s)
        return quad, lam, E, R
    if fam == "uniform_cube":
        n = int(2 * law["radius"] * D)
        E = {}
        for mask in range(2 ** d):
            k = tuple(n if mask >> j & 1 else 0 for j in range(d))
            E[k] = Fraction((-1) ** (d - bin(mask).count("1")))
        lam = tuple(x - law["radius"] for x in law["center"])
        R = {(1,) * d: (2 * law["radius"]) ** d}
        return quad, lam, E, R
    loc = law["mean"]
    if fam in ("gaussian", "gaussian_mixture"):
        S = law["cov"]
        quad = [S[a][b] / 2 if a == b else S[a][b] for a, b in _pairs(d)]
    if fam == "laplace":
        S = law["cov"]
        R = {zero: Fraction(1)}
        for a, b in _pairs(d):
            k = tuple((a == j) + (b == j) for j in range(d))
            R[k] = R.get(k, Fraction(0)) - (S[a][b] / 2 if a == b else S[a][b])
        R = {k: v for k, v in R.items() if v}
        return quad, tuple(loc), {zero: Fraction(1)}, R
    if fam == "gaussian_mixture" and law["separation"] != 0:
        m = tuple(int(x * D) for x in _mixture_m(law))
        s = tuple(-abs(x) for x in m)
        E = {}
        for sign in (1, -1):
            k = tuple(sign * x - y for x, y in zip(m, s))
            E[k] = E.get(k, Fraction(0)) + Fraction(1, 2)
        return quad, tuple(x + Fraction(y, D) for x, y in zip(loc, s)), E, R
    return quad, tuple(loc), {zero: Fraction(1)}, R


def _ctx(d, name):
    return fmpq_mpoly_ctx.get(tuple(f"{name}{j + 1}" for j in range(d)), "lex")


def _poly(ctx, P: dict):
    return ctx.from_dict({k: fmpq(v.numerator, v.denominator) for k, v in P.items()})


def _q(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _monic(p):
    return p / p.leading_coefficient()


def poly_json(p) -> list:
    """A polynomial as a sorted list of [exponents, "coefficient"]."""
    return sorted([list(map(int, k)), str(v)] for k, v in p.to_dict().items())


def _key(p):
    return tuple(sorted((tuple(map(int, k)), str(v)) for k, v in p.to_dict().items()))


def lattice_data(laws, modulo: str = "affine"):
    """Factor every law (flint) -> dict with D, the base lists (monic flint polynomials), per law the exponent
    dicts, kappa_i / rho_i and lambda_i, and the matrix rows (one row per coordinate, N columns)."""
    d = laws[0]["dim"]
    D = _common_D(laws)
    ct, cth = _ctx(d, "t"), _ctx(d, "theta")
    bases = ({}, {})          # key -> index, for t and theta
    polys = ([], [])
    per_law = []
    cache = {}                # equal polynomials are factored once
    for i, l in enumerate(laws):
        tick()
        quad, lam, E, R = _parts(l, D)
        exps = []
        consts = []
        for which, (ctx, P) in enumerate(((ct, E), (cth, R))):
            p = _poly(ctx, P)
            ex = {}
            if not p.is_constant():
                ck = (which, tuple(sorted(P.items())))
                if ck not in cache:
                    cache[ck] = p.factor()[1]
                facs = cache[ck]
                for f, e in facs:
                    f = _monic(f)
                    k = _key(f)
                    if k not in bases[which]:
                        bases[which][k] = len(polys[which])
                        polys[which].append(f)
                    j = bases[which][k]
                    ex[j] = ex.get(j, 0) + int(e)
            exps.append(ex)
            consts.append(_q(p.leading_coefficient()))
        per_law.append({"quad": quad, "lam": lam, "laurent": exps[0], "rational": exps[1],
                        "kappa": consts[0], "rho": consts[1]})
    rows = matrix_rows(per_law, len(polys[0]), len(polys[1]), d, modulo)
    return {"D": D, "laurent_base": polys[0], "rational_base": polys[1], "laws": per_law, "rows": rows}


def matrix_rows(per_law, nb, nf, d, modulo):
    """The exponent matrix: quadratic coefficients, Laurent base exponents, rational base exponents and
    (modulo constants) the linear parts; one row per coordinate, one column per law."""
    rows = [[pl["quad"][k] for pl in per_law] for k in range(len(_pairs(d)))]
    rows += [[Fraction(pl["laurent"].get(k, 0)) for pl in per_law] for k in range(nb)]
    rows += [[Fraction(pl["rational"].get(k, 0)) for pl in per_law] for k in range(nf)]
    if modulo == "constants":
        rows += [[pl["lam"][j] for pl in per_law] for j in range(d)]
    return rows


def lattice_identity(laws, c, a, C) -> str:
    """Prove sum c_i Lambda_i = <a, theta> + log C (integers c, rational a, C > 0) from the factorisations,
    or raise :class:`Rejected`."""
    sup = [i for i, x in enumerate(c) if x]
    if not sup:
        raise Rejected("certificate: c = 0 is not a relation")
    sub = [laws[i] for i in sup]
    cs = [int(c[i]) for i in sup]
    why = applicable(sub)
    if why is not None:
        raise Rejected(f"certificate: the exponent lattice does not apply ({why})")
    data = lattice_data(sub, "affine")
    for k, row in enumerate(data["rows"]):
        if sum((x * y for x, y in zip(row, cs)), Fraction(0)) != 0:
            raise Rejected(f"certificate: the exponent combination sum c_i (row {k}) is not 0: not a relation")
    d = laws[0]["dim"]
    a_ = tuple(sum((x * pl["lam"][j] for x, pl in zip(cs, data["laws"])), Fraction(0)) for j in range(d))
    C_ = Fraction(1)
    for x, pl in zip(cs, data["laws"]):
        C_ *= (pl["kappa"] / pl["rho"]) ** x
    if a_ != tuple(Fraction(x) for x in a) or C_ != C or C_ <= 0:
        raise Rejected(f"certificate: the exponent lattice gives a = {[str(x) for x in a_]}, C = {C_}, not the "
                       "recorded a, C")
    return f"exponent-lattice identity (D = {data['D']})"


# -- the kind ------------------------------------------------------------------------------------------------
def _int(v, field, lo, hi) -> int:
    """:func:`verify.kernel._read.integer`, with a JSON int in [lo, hi] taken as it is (the same value)."""
    return v if type(v) is int and lo <= v <= hi else _read.integer(v, field, lo, hi)


def _read_poly(ctx, v, field, d):
    terms = _read.lst(v, field, 1, MAX_TERMS)
    P = {}
    hi = MAX_SPAN if d == 1 else MAX_SPAN_MULTI
    for k, t in enumerate(terms):
        e, x = _read.lst(t, f"{field}[{k}]", 2, 2)
        e = tuple([_int(y, f"{field}[{k}][0]", 0, hi) for y in _read.lst(e, f"{field}[{k}][0]", d, d)])
        if e in P:
            raise Rejected(f"{field}: repeated exponent")
        P[e] = _read.num(x, f"{field}[{k}][1]")
    return _poly(ctx, P)


def _check_base(polys, field, laurent):
    seen = set()
    for k, p in enumerate(polys):
        tick()
        if p.is_constant():
            raise Rejected(f"{field}[{k}]: constant")
        terms = [tuple(map(int, e)) for e in p.to_dict()]
        if laurent and any(min(e[j] for e in terms) > 0 for j in range(len(p.degrees()))):
            raise Rejected(f"{field}[{k}]: divisible by a variable (monomial content)")
        _, facs = p.factor()
        if len(facs) != 1 or int(facs[0][1]) != 1:
            raise Rejected(f"{field}[{k}]: not irreducible over Q")
        key = _key(_monic(p))
        if key in seen:
            raise Rejected(f"{field}[{k}]: repeated (the base must be pairwise coprime)")
        seen.add(key)


def check_independence(laws, modulo, cert, field="certificate") -> str:
    """The ``independence-lattice`` check of certificate ``cert`` for these laws (see the module docstring)."""
    N, d = len(laws), laws[0]["dim"]
    why = applicable(laws)
    if why is not None:
        raise Rejected(f"parameters.laws: the exponent lattice does not apply ({why})")
    cert = _read.obj(cert, field, ("D", "laurent_base", "rational_base", "exponents"), ("kind", "summary"))
    D = _common_D(laws)
    if _read.integer(cert["D"], f"{field}.D", 1, 10 ** 12) != D:
        raise Rejected(f"{field}.D: the common denominator of the frequencies is {D}")
    ct, cth = _ctx(d, "t"), _ctx(d, "theta")
    lb = [_read_poly(ct, v, f"{field}.laurent_base[{k}]", d)
          for k, v in enumerate(_read.lst(cert["laurent_base"], f"{field}.laurent_base", 0, 100_000))]
    rb = [_read_poly(cth, v, f"{field}.rational_base[{k}]", d)
          for k, v in enumerate(_read.lst(cert["rational_base"], f"{field}.rational_base", 0, 100_000))]
    exps = _read.lst(cert["exponents"], f"{field}.exponents", N, N)
    per_law = []
    for i, (l, ex) in enumerate(zip(laws, exps)):
        tick()
        f = f"{field}.exponents[{i}]"
        _read.obj(ex, f, ("laurent", "rational"))
        quad, lam, E, R = _parts(l, D)
        got = []
        for which, (ctx, P, base) in enumerate(((ct, E, lb), (cth, R, rb))):
            name = ("laurent", "rational")[which]
            e = {}
            for k, pair in enumerate(_read.lst(ex[name], f"{f}.{name}", 0, len(base))):
                j, m = _read.lst(pair, f"{f}.{name}[{k}]", 2, 2)
                j = _int(j, f"{f}.{name}[{k}][0]", 0, len(base) - 1)
                if j in e:
                    raise Rejected(f"{f}.{name}: repeated base index")
                e[j] = _int(m, f"{f}.{name}[{k}][1]", 1, MAX_SPAN)
            poly = _poly(ctx, P)
            degs = [sum(m * int(base[j].degrees()[v]) for j, m in e.items()) for v in range(d)]
            if degs != [int(x) for x in poly.degrees()]:      # before multiplying anything out
                raise Rejected(f"{f}.{name}: the degrees of the base powers do not add up to the law's")
            prod = ctx.from_dict({(0,) * d: 1})
            for j, m in e.items():
                tick()
                prod = prod * base[j] ** m
            if poly != prod * poly.leading_coefficient():
                raise Rejected(f"{f}.{name}: the base powers do not multiply out to the law's "
                               f"{'Laurent polynomial' if which == 0 else 'rational factor'} (up to a constant)")
            got.append(e)
        per_law.append({"quad": quad, "lam": lam, "laurent": got[0], "rational": got[1]})
    for name, base in (("laurent", lb), ("rational", rb)):
        used = {j for pl in per_law for j in pl[name]}
        if len(used) != len(base):
            raise Rejected(f"{field}.{name}_base: an element divides no law (every base element must be used)")
    _check_base(lb, f"{field}.laurent_base", True)      # only used elements, each dividing a bounded polynomial
    _check_base(rb, f"{field}.rational_base", False)
    rows = matrix_rows(per_law, len(lb), len(rb), d, modulo)
    rank = fmpq_mat(len(rows), N, [fmpq(x.numerator, x.denominator) for r in rows for x in r]).rank() if rows else 0
    if rank != N:
        raise Rejected(f"{field}: the exponent matrix has rank {rank} < N = {N} (the laws are not proved "
                       "independent)")
    return (f"exponent matrix {len(rows)} x {N} of rank {N} over Q; {len(lb)} + {len(rb)} irreducible, pairwise "
            f"distinct base factors; every law's factorisation multiplied out (D = {D})")

