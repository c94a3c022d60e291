"""Kinds for N1, N2, N8, N9 and N10: symbolic identities and arb enclosures, re-derived from the parameters.

No kind reads an expression from its certificate: the kernel builds every object itself from the Result's
exact parameters (laws, atoms, weights, instance data) with the closed forms written out below, so a
certificate carries only what cannot be recomputed for free (a refuting witness, recorded values that are
recomputed and compared).  Symbols are SymPy ``Dummy`` symbols; no string is ever parsed.

Zero test (:func:`zero`).  ``expr`` has sinh, cosh, tanh, coth rewritten in ``exp``; every ``exp(arg)`` whose expanded argument has
rational coefficients c_m on monomials m becomes ``prod_m Z_m ** (c_m D_m)`` with ``Z_m = exp(m / D_m)`` (D_m
the common denominator; the constant term is the monomial 1); the other exponentials share a fresh symbol
per argument up to integer multiples.  The result is a rational function of fresh symbols; ``zero`` is True
only when it is the zero rational function: first read into python-flint ``fmpq_mpoly`` numerators and
denominators (every other sub-expression a generator), and where that does not give 0, the numerator of
``sympy.together`` expanded as before (so a rejection is exactly SymPy's).  Sound: substituting the exponentials back is an evaluation, so
a rational function that is identically 0 gives 0 wherever the expression is defined.  False means "not
shown" and rejects.

PROVED of an identity kind means: the identity holds, symbolically, for the exact data named by the
statement (for all values of the symbolic variables it names).  PROVED of ``cgf-quadrature`` means a
certified enclosure of the difference lies in [-1e-40, 1e-40] at each named theta.  REFUTED means a certified
(arb) or exact non-zero difference at named data.  Trusted: SymPy's ``expand``/``cancel``/``diff``/
``series``, python-flint's ``acb.integral``, arb elementary functions and ``fmpq_mpoly`` arithmetic.  Bounds: every exact input has at
most 128-bit numerator and denominator and magnitude <= 1000; dimensions <= 3 (4 for the mixing form),
<= 8 atoms or laws, <= 32 sample points, Taylor order <= 24.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
from flint import acb, arb, fmpq, fmpq_mpoly_ctx

from . import Kind
from . import _read as R
from ._ball import ball, bounds, workprec
from ._read import Rejected

__all__ = ["KINDS", "statement", "zero"]

F = Fraction
MAX_BITS, MAX_ABS = 64, 1000
TOL = F(1, 10 ** 40)
LADDER = (192, 320)


# -- reading ------------------------------------------------------------------------------------------------
def _q(v, field, lo=None, hi=None, pos=False):
    x = R.num(v, field)
    if max(x.numerator.bit_length(), x.denominator.bit_length()) > MAX_BITS or abs(x) > MAX_ABS:
        raise Rejected(f"{field}: exact inputs are bounded by {MAX_BITS} bits and magnitude {MAX_ABS}")
    if (pos and x <= 0) or (lo is not None and x < lo) or (hi is not None and x > hi):
        raise Rejected(f"{field}: {v!r:.40} out of range")
    return x


def _vec(v, field, n=None, max_len=2):
    xs = R.lst(v, field, 1 if n is None else n, max_len if n is None else n)
    return [_q(x, f"{field}[{i}]") for i, x in enumerate(xs)]


def _mat(v, field, rows=None, cols=None, max_len=2):
    rs = R.lst(v, field, 1 if rows is None else rows, max_len if rows is None else rows)
    first = _vec(rs[0], f"{field}[0]", cols, max_len)
    return [first] + [_vec(r, f"{field}[{i}]", len(first)) for i, r in enumerate(rs[1:], 1)]


def _spd(S, field):
    """Symmetric and positive definite (exact: Gaussian elimination pivots > 0)."""
    n = len(S)
    if any(len(r) != n for r in S) or any(S[i][j] != S[j][i] for i in range(n) for j in range(n)):
        raise Rejected(f"{field}: not a symmetric square matrix")
    M = [list(r) for r in S]
    for k in range(n):
        if M[k][k] <= 0:
            raise Rejected(f"{field}: not positive definite")
        for i in range(k + 1, n):
            f = M[i][k] / M[k][k]
            M[i] = [a - f * b for a, b in zip(M[i], M[k])]
    return S


def _weights(v, field, n):
    ws = [_q(w, f"{field}[{i}]", pos=True) for i, w in enumerate(R.lst(v, field, n, n))]
    if sum(ws) != 1:
        raise Rejected(f"{field}: weights must sum to 1")
    return ws


def _cert(result, *keys) -> dict:
    """The certificate: its kind, the given keys and an optional free-text summary (not read), nothing else."""
    cert = R.obj(result["certificate"], "certificate", required=("kind",) + keys, optional=("summary",))
    R.string(cert.get("summary", ""), "certificate.summary", max_len=2000)
    return cert


def _claim(result, claim):
    if result["claim"] != claim:
        raise Rejected(f"claim: this kind proves {claim}, not {result['claim']!r:.20}")


def _fs(x) -> str:
    x = F(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _show(v) -> str:
    """Exact data as text: lists as (a, b), objects as {k=v, ...} (sorted keys)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_show(v[k])}" for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    return _fs(v) if isinstance(v, (int, F)) else str(v)


def _S(x):
    x = F(x)
    return sympy.Rational(x.numerator, x.denominator)


def _syms(n, real=True):
    return [sympy.Dummy(real=real) for _ in range(n)]


# -- the zero test ------------------------------------------------------------------------------------------
def _substitution(atoms, fine):
    """exp(.) -> fresh symbols: one per expanded argument up to integer multiples; with ``fine``, arguments
    with rational coefficients split into monomials first (exp(sum c_m m) -> prod Z_m^(c_m D_m))."""
    parsed, denom = {}, {}
    for ex in atoms if fine else ():
        terms = sympy.expand(ex.args[0]).as_coefficients_dict()
        if all(c.is_Rational for c in terms.values()):
            parsed[ex] = terms
            for m, c in terms.items():
                denom[m] = sympy.ilcm(denom.get(m, 1), c.q)
    Z = {m: sympy.Dummy(positive=True) for m in sorted(denom, key=sympy.default_sort_key)}
    keys, repl, coeffs = {}, {}, {}
    for ex in atoms:
        R.tick()
        if ex in parsed:
            repl[ex] = sympy.Mul(*[Z[m] ** int(c * denom[m]) for m, c in parsed[ex].items()])
            continue
        arg = sympy.expand(ex.args[0])
        if arg not in keys:
            for key, sym in keys.items():
                ratio = _integer_ratio(arg, key, coeffs)
                if ratio is not None:
                    repl[ex] = sym ** ratio
                    break
            else:
                keys[arg] = sympy.Dummy(positive=True)
        repl.setdefault(ex, keys.get(arg))
    return repl


def _coefficients(arg, memo):
    """{monomial: coefficient} of an expanded polynomial with rational coefficients in its symbols, else None."""
    if arg not in memo:
        ok = arg.free_symbols and all(f.is_Symbol for f in arg.free_symbols) and arg.is_polynomial()
        terms = arg.as_coefficients_dict() if ok else None
        memo[arg] = terms if terms is not None and all(c.is_Rational for c in terms.values()) else None
    return memo[arg]


def _integer_ratio(arg, key, memo):
    """k if ``sympy.cancel(arg / key)`` is the Integer k, else None.  Two expanded polynomials with rational
    coefficients are in canonical form: arg = k key exactly when their coefficients are proportional by k."""
    ca, ck = _coefficients(arg, memo), _coefficients(key, memo)
    if ca is None or ck is None:
        ratio = sympy.cancel(arg / key)
        return int(ratio) if ratio.is_Integer else None
    ratios = {ca[m] / ck[m] for m in ck} if ca.keys() == ck.keys() else ()
    return int(next(iter(ratios))) if len(ratios) == 1 and next(iter(ratios)).is_Integer else None


def _flint_zero(expr):
    """True if ``expr`` is the zero rational function of its generators (the sub-expressions that are not a
    sum, a product, an integer power or a rational), False if not, None if unreadable (a number that is
    not rational, a zero denominator).  Numerators and denominators are flint ``fmpq_mpoly``; sums over the
    lcm of the denominators."""
    gens, stack, seen = {}, [expr], set()
    while stack:
        e = stack.pop()
        if e in seen or e.is_Rational:
            continue
        seen.add(e)
        if e.is_Atom and e.is_number:       # a float, pi, I, zoo: SymPy decides
            return None
        if e.is_Add or e.is_Mul or (e.is_Pow and e.exp.is_Integer):
            stack.extend(e.args)
        else:
            gens.setdefault(e, len(gens))
    if not gens:
        return expr == 0
    ctx = fmpq_mpoly_ctx.get(tuple(f"g{i}" for i in range(len(gens))), "lex")
    g, one, memo = ctx.gens(), ctx.constant(1), {}

    def conv(e):
        if e in memo:
            return memo[e]
        R.tick()
        if e.is_Rational:
            r = (ctx.constant(fmpq(int(e.p), int(e.q))), one)
        elif e.is_Add:
            n, d = conv(e.args[0])
            for a in e.args[1:]:
                n2, d2 = conv(a)
                if d2 == d:
                    n = n + n2
                else:
                    c = d.gcd(d2)
                    n, d = n * (d2 / c) + n2 * (d / c), d * (d2 / c)
            r = (n, d)
        elif e.is_Mul:
            n, d = one, one
            for a in e.args:
                n2, d2 = conv(a)
                n, d = n * n2, d * d2
            r = (n, d)
        elif e.is_Pow and e.exp.is_Integer:
            n, d = conv(e.base)
            k = int(e.exp)
            if k < 0:
                if n.is_zero():
                    raise ZeroDivisionError
                n, d, k = d, n, -k
            r = (n ** k, d ** k)
        else:
            r = (g[gens[e]], one)
        memo[e] = r
        return r

    try:
        return conv(expr)[0].is_zero()
    except ZeroDivisionError:
        return None


_HYPERBOLIC = [sympy.sinh, sympy.cosh, sympy.tanh, sympy.coth]


def zero(expr) -> bool:
    """True only if ``expr`` (a SymPy expression or matrix) is identically 0 (see the module docstring): after
    the substitution, the numerator of ``together`` expands to 0."""
    exprs = [e.rewrite(_HYPERBOLIC, sympy.exp) for e in (list(expr) if isinstance(expr, sympy.MatrixBase) else [expr])]
    atoms = sorted(set().union(*(e.atoms(sympy.exp) for e in exprs)), key=sympy.default_sort_key)
    for fine in (False, True):
        repl = _substitution(atoms, fine)
        for e in exprs:
            R.tick()
            x = e.xreplace(repl)
            if _flint_zero(x) is not True and sympy.expand(sympy.fraction(sympy.together(x))[0]) != 0:
                break
        else:
            return True
    return False


def _require_zero(expr, what):
    if not zero(expr):
        raise Rejected(f"{what}: the difference is not shown to be 0")


# -- laws (docs/paper2.md §6) --------------------------------------------------------------------------
LAW_KEYS = {"uniform_cube": ("radius", "center"), "laplace": ("cov", "mean"), "gaussian": ("cov", "mean"),
            "gaussian_mixture": ("separation", "direction", "cov", "center"), "discrete": ("atoms", "weights")}


def _law(v, field):
    """(family, {name: exact data}) of a law recorded as ``Distribution.to_dict()``."""
    fam = R.string(R.obj(v, field, required=("family",), optional=sum(LAW_KEYS.values(), ())).get("family"),
                   f"{field}.family", LAW_KEYS)
    d = R.obj(v, field, required=("family",) + LAW_KEYS[fam])
    if fam == "uniform_cube":
        return fam, {"radius": _q(d["radius"], f"{field}.radius", pos=True), "center": _vec(d["center"], f"{field}.center")}
    if fam == "discrete":
        atoms = R.lst(d["atoms"], f"{field}.atoms", 1, 4)
        xs = [_vec(a, f"{field}.atoms[{i}]") for i, a in enumerate(atoms)]
        if any(len(x) != len(xs[0]) for x in xs):
            raise Rejected(f"{field}.atoms: atoms of different dimensions")
        return fam, {"atoms": xs, "weights": _weights(d["weights"], f"{field}.weights", len(xs))}
    S = _spd(_mat(d["cov"], f"{field}.cov"), f"{field}.cov")
    out = {"cov": S}
    for k in LAW_KEYS[fam]:
        if k == "separation":
            out[k] = _q(d[k], f"{field}.{k}", pos=True)
        elif k != "cov":
            out[k] = _vec(d[k], f"{field}.{k}", len(S))
    if fam == "gaussian_mixture" and not any(out["direction"]):
        raise Rejected(f"{field}.direction: zero vector")
    return fam, out


def _dim(law):
    fam, p = law
    return len(p["center"] if fam == "uniform_cube" else p["atoms"][0] if fam == "discrete" else p["cov"])


def _mix_dir(p):
    u = [_S(x) for x in p["direction"]]
    return [x / sympy.sqrt(sum(y * y for y in u)) for x in u]


def _lin(a, th):
    return sum((_S(x) * t for x, t in zip(a, th)), sympy.Integer(0))


def _quad(S, th):
    return sum((_S(S[i][j]) * th[i] * th[j] for i in range(len(th)) for j in range(len(th))), sympy.Integer(0))


def mgf(law, th):
    """E e^<theta, Y> in closed form (docs/paper2.md §6), as a SymPy expression in the symbols ``th``."""
    fam, p = law
    if fam == "uniform_cube":
        r = _S(p["radius"])
        return sympy.Mul(*[sympy.exp(_S(c) * t) * sympy.sinh(r * t) / (r * t) for c, t in zip(p["center"], th)])
    if fam == "discrete":
        return sum(_S(w) * sympy.exp(_lin(x, th)) for x, w in zip(p["atoms"], p["weights"]))
    if fam == "laplace":
        return sympy.exp(_lin(p["mean"], th)) / (1 - _quad(p["cov"], th) / 2)
    g = sympy.exp(_lin(p.get("mean", p.get("center")), th) + _quad(p["cov"], th) / 2)
    if fam == "gaussian":
        return g
    return g * sympy.cosh(_S(p["separation"]) * sum(u * t for u, t in zip(_mix_dir(p), th)))


def _grad_hess(law, th):
    """The docs/paper2.md §6 closed-form gradient and Hessian of the CGF (written out, not differentiated)."""
    fam, p = law
    d = len(th)
    if fam == "uniform_cube":
        r = _S(p["radius"])
        g = [_S(c) + r * sympy.coth(r * t) - 1 / t for c, t in zip(p["center"], th)]
        H = sympy.diag(*[1 / t ** 2 - r ** 2 / sympy.sinh(r * t) ** 2 for t in th])
        return sympy.Matrix(g), H
    if fam == "discrete":
        es = [_S(w) * sympy.exp(_lin(x, th)) for x, w in zip(p["atoms"], p["weights"])]
        z = sum(es)
        X = [sympy.Matrix([_S(c) for c in x]) for x in p["atoms"]]
        m = sum((e / z * x for e, x in zip(es, X)), sympy.zeros(d, 1))
        return m, sum((e / z * x * x.T for e, x in zip(es, X)), sympy.zeros(d, d)) - m * m.T
    S = sympy.Matrix([[_S(x) for x in row] for row in p["cov"]])
    t = sympy.Matrix(th)
    if fam == "laplace":
        k = 1 - _quad(p["cov"], th) / 2
        St = S * t
        return sympy.Matrix([_S(x) for x in p["mean"]]) + St / k, S / k + St * St.T / k ** 2
    if fam == "gaussian":
        return sympy.Matrix([_S(x) for x in p["mean"]]) + S * t, S
    u = sympy.Matrix(_mix_dir(p))
    a = _S(p["separation"])
    th_ = sympy.tanh(a * (u.T * t)[0, 0])
    return sympy.Matrix([_S(x) for x in p["center"]]) + S * t + a * th_ * u, S + a ** 2 * (1 - th_ ** 2) * u * u.T


def _translate(law, a):
    fam, p = law
    q = dict(p)
    key = {"uniform_cube": "center", "discrete": None, "laplace": "mean", "gaussian": "mean"}.get(fam, "center")
    if key is None:
        q["atoms"] = [[x + y for x, y in zip(atom, a)] for atom in p["atoms"]]
    else:
        q[key] = [x + y for x, y in zip(p[key], a)]
    return fam, q


# -- N1: quadrature ------------------------------------------------------------------------------------------
QUAD_KEYS = {"cube": (("radius",), ("center",)), "laplace": (("variance",), ("mean",)),
             "laplace-mixing": (("cov",), ("mean",)), "mixture": (("separation", "sigma"), ("center",)),
             "gaussian": (("variance",), ("mean",))}
_CLOSED = {"cube": "c theta + log(sinh(r theta)/(r theta)) (uniform law on [c - r, c + r])",
           "laplace": "m theta - log(1 - s2 theta^2/2) (density e^(-|y - m|/b)/(2b), b^2 = s2/2)",
           "laplace-mixing": "<m, theta> - log(1 - theta^T Sigma theta/2) against log of the mixing integral "
                             "e^<m, theta> int_0^inf e^(-w) e^(w theta^T Sigma theta/2) dw",
           "mixture": "c theta + sigma^2 theta^2/2 + log cosh(a theta) (law N(c + a, sigma^2)/2 + N(c - a, "
                      "sigma^2)/2)",
           "gaussian": "m theta + s2 theta^2/2 (law N(m, s2))"}


def _quad_params(parameters):
    p = R.obj(parameters, "parameters", required=("family", "params", "thetas", "formula"))
    fam = R.string(p["family"], "parameters.family", QUAD_KEYS)
    req, opt = QUAD_KEYS[fam]
    raw = R.obj(p["params"], "parameters.params", required=req, optional=opt)
    if fam == "laplace-mixing":
        S = _spd(_mat(raw["cov"], "parameters.params.cov", max_len=4), "parameters.params.cov")
        vals = {"cov": S, "mean": _vec(raw.get("mean", [0] * len(S)), "parameters.params.mean", len(S), 4)}
    else:
        vals = {k: _q(raw.get(k, 0), f"parameters.params.{k}", pos=k in req) for k in req + opt}
    d = len(vals["cov"]) if fam == "laplace-mixing" else 1
    thetas = [_vec(t, f"parameters.thetas[{i}]", d, 4) for i, t in enumerate(R.lst(p["thetas"], "parameters.thetas", 1, 32))]
    if any(abs(x) > 64 for t in thetas for x in t):
        raise Rejected("parameters.thetas: |theta| <= 64")
    formula = R.string(p["formula"], "parameters.formula", ("library", "laplace-variance-mistake"))
    if formula != "library" and fam != "laplace":
        raise Rejected("parameters.formula: the variance mistake is defined for the family laplace only")
    for k, t in enumerate(thetas):
        q = (sum(t[i] * vals["cov"][i][j] * t[j] for i in range(d) for j in range(d)) if fam == "laplace-mixing"
             else vals.get("variance", 0) * t[0] * t[0]) / 2
        if fam in ("laplace", "laplace-mixing") and not q < 1:
            raise Rejected(f"parameters.thetas[{k}]: outside the domain of the CGF")
        if formula != "library" and not 2 * q < 1:
            raise Rejected(f"parameters.thetas[{k}]: outside the domain of the mistaken form")
    return fam, vals, thetas, formula


def _integral(f, a, b, prec):
    return acb.integral(lambda x, analytic: f(x), a, b, rel_tol=arb(2) ** (-prec), eval_limit=200000).real


def _tail(T):
    """A ball containing [0, T] (T: a ball bounding a non-negative tail)."""
    if not T >= 0:
        raise Rejected("quadrature: tail bound not certified")
    return (1 + arb(0, 1)) * T / 2


def _cutoff(kappa, prec):
    if not kappa > 0:
        raise Rejected("quadrature: decay rate not certified positive")
    lo = float(bounds(kappa)[0])
    R_ = (prec + 20) * math.log(2) / lo + 2 if lo > 0 else math.inf
    if not R_ <= 1e6:
        raise Rejected("quadrature: integration window too long")
    return arb(int(R_))


def _gauss_mgf(th, mu, var, prec):
    """int e^(theta y) N(mu, var)(dy): the window mu' +- R sigma (mu' = mu + theta var) plus a Mills-ratio tail."""
    sig = var.sqrt()
    Rb = arb(int(math.sqrt(2 * (prec + 20) * math.log(2))) + 2)
    shift = mu + th * var
    norm = 1 / (sig * (2 * arb.pi()).sqrt())
    core = _integral(lambda y: (th * y - (y - mu) ** 2 / (2 * var)).exp() * norm, shift - Rb * sig, shift + Rb * sig, prec)
    T = 2 * (th * mu + th * th * var / 2).exp() * (-(Rb * Rb) / 2).exp() / ((2 * arb.pi()).sqrt() * Rb)
    return core + _tail(T)


def _mgf_ball(fam, v, t, prec):
    """An arb enclosure of E e^<theta, Y> by rigorous integration (windows plus explicit tail bounds)."""
    b = lambda x: ball(x)
    if fam == "cube":
        th, c, r = b(t[0]), v["center"], v["radius"]
        return _integral(lambda y: (th * y).exp(), b(c - r), b(c + r), prec) / (2 * b(r))
    if fam == "laplace":
        bb, th, m = (b(v["variance"]) / 2).sqrt(), b(t[0]), b(v["mean"])
        out = arb(0)
        for side in (1, -1):          # y = m + side x, x >= 0
            kappa = 1 / bb - side * th
            Rc = _cutoff(kappa, prec)
            g = lambda x, side=side: (th * (m + side * x) - x / bb).exp() / (2 * bb)
            out += _integral(g, arb(0), Rc, prec) + _tail((th * m - kappa * Rc).exp() / (2 * bb * kappa))
        return out
    if fam == "laplace-mixing":
        d = len(t)
        q = sum(b(t[i]) * b(v["cov"][i][j]) * b(t[j]) for i in range(d) for j in range(d)) / 2
        kappa = 1 - q
        Rc = _cutoff(kappa, prec)
        core = _integral(lambda w: (-kappa * w).exp(), arb(0), Rc, prec) + _tail((-kappa * Rc).exp() / kappa)
        return sum((b(t[i]) * b(v["mean"][i]) for i in range(d)), arb(0)).exp() * core
    th = b(t[0])
    if fam == "gaussian":
        return _gauss_mgf(th, b(v["mean"]), b(v["variance"]), prec)
    c, a, var = v["center"], v["separation"], b(v["sigma"]) ** 2
    return (_gauss_mgf(th, b(c + a), var, prec) + _gauss_mgf(th, b(c - a), var, prec)) / 2


def _closed_ball(fam, v, t, formula):
    b = lambda x: ball(x)
    if formula != "library":
        th = b(t[0])
        return b(v["mean"]) * th - (1 - b(v["variance"]) * th * th).log()
    if fam == "cube":
        if t[0] == 0:
            return arb(0)
        u = b(v["radius"]) * b(t[0])
        return b(v["center"]) * b(t[0]) + (u.sinh() / u).log()
    if fam == "laplace-mixing":
        d = len(t)
        q = sum(b(t[i]) * b(v["cov"][i][j]) * b(t[j]) for i in range(d) for j in range(d)) / 2
        return sum((b(t[i]) * b(v["mean"][i]) for i in range(d)), arb(0)) - (1 - q).log()
    th = b(t[0])
    if fam == "laplace":
        return b(v["mean"]) * th - (1 - b(v["variance"]) * th * th / 2).log()
    if fam == "gaussian":
        return b(v["mean"]) * th + b(v["variance"]) * th * th / 2
    return b(v["center"]) * th + b(v["sigma"]) ** 2 * th * th / 2 + (b(v["separation"]) * th).cosh().log()


def _differences(result, prec):
    fam, v, thetas, formula = _quad_params(result["parameters"])
    out = []
    with workprec(prec):
        for t in thetas:
            R.tick()
            integral = _mgf_ball(fam, v, t, prec)
            if not integral > 0:
                out.append(None)
                continue
            out.append(bounds(integral.log() - _closed_ball(fam, v, t, formula)))
    return out


def _quad_text(p, c):
    fam, v, thetas, formula = _quad_params(p)
    shown = _show({k: p["params"][k] for k in sorted(p["params"])})
    ths = ", ".join(_show(t) for t in p["thetas"])
    if formula != "library":
        return (f"the Laplace law {shown} (density e^(-|y - m|/b)/(2b), b^2 = s2/2) has the CGF m theta - "
                f"log(1 - s2 theta^2) (scale b^2 mistaken for the variance s2) at theta = {ths}")
    return (f"the closed-form CGF {_CLOSED[fam]} of the {fam} law {shown} equals log int e^<theta,y> dmu(y) "
            f"to within 1e-40 (certified) at theta = {ths}")


def _check_quadrature(result):
    _claim(result, "N1")
    if _quad_params(result["parameters"])[3] != "library":
        raise Rejected("parameters.formula: a PROVED quadrature is about the library closed form")
    R.expect_statement(result, _quad_text(result["parameters"], result["conventions"]))
    _cert(result)
    for prec in LADDER:
        rows = _differences(result, prec)
        if all(r is not None and -TOL <= r[0] and r[1] <= TOL for r in rows):
            return f"{len(rows)} points: |closed form - log integral| <= 1e-40 (certified, {prec} bits)"
    raise Rejected("quadrature: a difference is not certified to lie within 1e-40")


def _check_quadrature_witness(result):
    _claim(result, "N1.n1")
    if _quad_params(result["parameters"])[3] == "library":
        raise Rejected("parameters.formula: the refuted form is the variance mistake")
    R.expect_statement(result, _quad_text(result["parameters"], result["conventions"]))
    _cert(result)
    for prec in LADDER:
        for k, r in enumerate(_differences(result, prec)):
            if r is not None and (r[0] > 0 or r[1] < 0):
                return f"at theta #{k} log integral - mistaken form in [{float(r[0]):.4g}, {float(r[1]):.4g}]"
    raise Rejected("quadrature: no difference certified non-zero")


# -- N1: symbolic derivatives, Taylor coefficients, identities, the Laplace domain ---------------------------
def _laws(v, field, max_n=6):
    d = v
    if not isinstance(d, dict) or not 1 <= len(d) <= max_n:
        raise Rejected(f"{field}: expected an object of 1..{max_n} laws")
    return {R.string(k, f"{field} name", max_len=40): _law(x, f"{field}.{k}") for k, x in sorted(d.items())}


def _derivatives_text(p, c):
    laws = _laws(R.obj(p, "parameters", required=("laws",))["laws"], "parameters.laws")
    shown = "; ".join(f"{k} = {_show(p['laws'][k])}" for k in laws)
    return ("the docs/paper2.md §6 closed-form gradient and Hessian of the CGF Lambda = log E e^<theta,Y> equal the symbolic "
            f"derivatives of its closed form, for the laws {shown}")


def _check_derivatives(result):
    _claim(result, "N1")
    R.expect_statement(result, _derivatives_text(result["parameters"], result["conventions"]))
    _cert(result)
    laws = _laws(result["parameters"]["laws"], "parameters.laws")
    for name, law in laws.items():
        th = _syms(_dim(law))
        lam = sympy.log(mgf(law, th))
        g, H = _grad_hess(law, th)
        _require_zero(g - sympy.Matrix([sympy.diff(lam, t) for t in th]), f"{name}: gradient")
        _require_zero(H - sympy.hessian(lam, th), f"{name}: Hessian")
    return f"{len(laws)} laws: closed-form gradient and Hessian = derivatives of the CGF"


def _series_log(h, n):
    """Coefficients g_0..g_n of log h for a power series h (h_0 = 1): n g_n = n h_n - sum_k k g_k h_(n-k)."""
    g = [F(0)] * (n + 1)
    for m in range(1, n + 1):
        g[m] = h[m] - sum((k * g[k] * h[m - k] for k in range(1, m)), F(0)) / m
    return g


def _bernoulli(n):
    B = [F(1)]
    for m in range(1, n + 1):
        B.append(-sum((math.comb(m + 1, k) * B[k] for k in range(m)), F(0)) / (m + 1))
    return B


LISTED = ([F(1, 6), F(-1, 180), F(1, 2835), F(-1, 37800)], [F(1, 2), F(-1, 12), F(1, 45), F(-17, 2520)])


def _order(p):
    n = R.integer(R.obj(p, "parameters", required=("order",))["order"], "parameters.order", 2, 24)
    if n % 2:
        raise Rejected("parameters.order: must be even")
    return n


def _taylor_text(p, c):
    n = _order(p)
    return (f"the Taylor coefficients of log(sinh u/u) and log cosh u at u = 0 through order {n} vanish in odd "
            "degree and equal 2^2k B_2k/(2k (2k)!) and 2^2k (2^2k - 1) B_2k/(2k (2k)!) in degree 2k, the first four "
            "being 1/6, -1/180, 1/2835, -1/37800 and 1/2, -1/12, 1/45, -17/2520")


def _check_taylor(result):
    _claim(result, "N1")
    n = _order(result["parameters"])
    R.expect_statement(result, _taylor_text(result["parameters"], result["conventions"]))
    cert = _cert(result, "log_sinhc", "log_cosh")
    fact = [math.factorial(k) for k in range(n + 2)]
    s1 = _series_log([F(1, fact[k + 1]) if k % 2 == 0 else F(0) for k in range(n + 1)], n)
    s2 = _series_log([F(1, fact[k]) if k % 2 == 0 else F(0) for k in range(n + 1)], n)
    B = _bernoulli(n)
    for name, s, f in (("log_sinhc", s1, lambda k: 1), ("log_cosh", s2, lambda k: 2 ** (2 * k) - 1)):
        rec = [R.num(x, f"certificate.{name}[{i}]") for i, x in enumerate(R.lst(cert[name], f"certificate.{name}",
                                                                                  n // 2, n // 2))]
        if any(s[j] != 0 for j in range(1, n + 1, 2)):
            raise Rejected(f"{name}: an odd coefficient is not 0")
        for k in range(1, n // 2 + 1):
            want = F(2 ** (2 * k)) * f(k) * B[2 * k] / (2 * k * fact[2 * k])
            listed = LISTED[name == "log_cosh"][k - 1] if k <= 4 else want
            if not s[2 * k] == want == listed == rec[k - 1]:
                raise Rejected(f"{name}: coefficient of u^{2 * k} does not match")
    return f"{n // 2} even coefficients of each series = Bernoulli formulas; odd ones 0"


ID_KEYS = ("shift", "laws", "discrete_convolution", "gaussian_convolution", "mixture_split", "cube_limits")


def _identities_params(p):
    p = R.obj(p, "parameters", required=ID_KEYS)
    a = _vec(p["shift"], "parameters.shift", 2)
    laws = _laws(p["laws"], "parameters.laws")
    conv = [_law(x, f"parameters.discrete_convolution[{i}]")
            for i, x in enumerate(R.lst(p["discrete_convolution"], "parameters.discrete_convolution", 2, 2))]
    gconv = [_law(x, f"parameters.gaussian_convolution[{i}]")
             for i, x in enumerate(R.lst(p["gaussian_convolution"], "parameters.gaussian_convolution", 2, 2))]
    mix = _law(p["mixture_split"], "parameters.mixture_split")
    if any(law[0] != "discrete" for law in conv) or any(law[0] != "gaussian" for law in gconv) or \
            mix[0] != "gaussian_mixture" or len({_dim(x) for x in conv + gconv}) != 1:
        raise Rejected("parameters: convolution laws of the wrong family or dimension")
    cubes = [_vec(x, f"parameters.cube_limits[{i}]", 2) for i, x in
             enumerate(R.lst(p["cube_limits"], "parameters.cube_limits", 1, 4))]
    if any(r <= 0 for r, _ in cubes):
        raise Rejected("parameters.cube_limits: radius must be > 0")
    return a, laws, conv, gconv, mix, cubes


def _at_zero(N, D):
    """lim_(u -> 0) N(u)/D(u) for power series (coefficient lists): N and D vanish to the same order d0 (the
    first non-zero coefficient of D, every N coefficient below d0 is 0) and the limit is N[d0]/D[d0]."""
    d0 = next(i for i, x in enumerate(D) if x)
    if any(N[:d0]):
        raise Rejected("cube limit: the quotient has a pole at 0")
    return N[d0] / D[d0]


def _cube_limits(r, c, n=6):
    """The limits at theta = 0 of the closed forms d Lambda = c + r coth(r theta) - 1/theta and
    d^2 Lambda = 1/theta^2 - r^2/sinh(r theta)^2 of _grad_hess, from their exact Laurent form in u = r theta:
    with S = sinh u/u and C = cosh u, d Lambda = c + r (C - S)/(u S) and d^2 Lambda = r^2 (S^2 - 1)/(u^2 S^2)."""
    S = [F(1, math.factorial(k + 1)) if k % 2 == 0 else F(0) for k in range(n)]
    C = [F(1, math.factorial(k)) if k % 2 == 0 else F(0) for k in range(n)]
    S2 = [sum((S[i] * S[k - i] for i in range(k + 1)), F(0)) for k in range(n)]
    g = c + r * _at_zero([x - y for x, y in zip(C, S)], [F(0)] + S[:-1])
    return g, r * r * _at_zero([S2[0] - 1] + S2[1:], [F(0), F(0)] + S2[:-2])


def _identities_text(p, c):
    _identities_params(p)
    return (f"translation: E e^<theta, Y + a> = e^<a, theta> E e^<theta, Y> for a = {_show(p['shift'])} (first "
            f"coordinates in dimension 1) and the laws {_show(p['laws'])}; convolution: the CGF of mu * nu is "
            f"Lambda_mu + Lambda_nu for the discrete laws {_show(p['discrete_convolution'])}, the Gaussians "
            f"{_show(p['gaussian_convolution'])} and the mixture {_show(p['mixture_split'])} = its Gaussian * the "
            f"two-point law at +-a u; cube limits d Lambda -> c, d^2 Lambda -> r^2/3 at theta = 0 for (r, c) in "
            f"{_show(p['cube_limits'])}")


def _check_identities(result):
    _claim(result, "N1")
    R.expect_statement(result, _identities_text(result["parameters"], result["conventions"]))
    _cert(result)
    a, laws, conv, gconv, mix, cubes = _identities_params(result["parameters"])
    for name, law in laws.items():
        th = _syms(_dim(law))
        sh = a[:len(th)]
        _require_zero(mgf(_translate(law, sh), th) - sympy.exp(_lin(sh, th)) * mgf(law, th), f"translation {name}")
    (_, mu), (_, nu) = conv
    th = _syms(_dim(conv[0]))
    prod = ("discrete", {"atoms": [[x + y for x, y in zip(s, t)] for s in mu["atoms"] for t in nu["atoms"]],
                         "weights": [w * v for w in mu["weights"] for v in nu["weights"]]})
    _require_zero(mgf(prod, th) - mgf(conv[0], th) * mgf(conv[1], th), "discrete convolution")
    (_, g1), (_, g2) = gconv
    gsum = ("gaussian", {"cov": [[x + y for x, y in zip(r, s)] for r, s in zip(g1["cov"], g2["cov"])],
                         "mean": [x + y for x, y in zip(g1["mean"], g2["mean"])]})
    _require_zero(mgf(gsum, th) - mgf(gconv[0], th) * mgf(gconv[1], th), "gaussian convolution")
    fam, m = mix
    th = _syms(len(m["cov"]))
    u = _mix_dir(m)
    two = sum(sympy.exp(s * _S(m["separation"]) * sum(x * t for x, t in zip(u, th))) for s in (1, -1)) / 2
    gauss = ("gaussian", {"cov": m["cov"], "mean": m["center"]})
    _require_zero(mgf(mix, th) - mgf(gauss, th) * two, "mixture = Gaussian * two-point law")
    t = sympy.Dummy(real=True)
    for r, c in cubes:
        g, H = _grad_hess(("uniform_cube", {"radius": r, "center": [c]}), [t])
        u, rs = _S(r) * t, _S(r)
        Sx, Cx = sympy.sinh(u) / u, sympy.cosh(u)
        _require_zero(sympy.Matrix([g[0] - _S(c) - rs * (Cx - Sx) / (u * Sx),
                                    H[0, 0] - rs ** 2 * (Sx ** 2 - 1) / (u ** 2 * Sx ** 2)]), "cube Laurent form")
        g0, h0 = _cube_limits(r, c)
        if g0 != c or h0 != r * r / 3:
            raise Rejected(f"cube limit (r, c) = ({_fs(r)}, {_fs(c)}): not shown")
    return f"{len(laws)} translations, 3 convolutions, {len(cubes)} cube limits verified exactly"


def _domain_params(p, evaluator):
    p = R.obj(p, "parameters", required=("cov", "thetas", "evaluator"))
    if R.string(p["evaluator"], "parameters.evaluator", ("library", "naive-formula")) != evaluator:
        raise Rejected(f"parameters.evaluator: this kind is about the {evaluator} evaluator")
    S = _spd(_mat(p["cov"], "parameters.cov"), "parameters.cov")
    ts = [_vec(t, f"parameters.thetas[{i}]", len(S)) for i, t in enumerate(R.lst(p["thetas"], "parameters.thetas", 1, 32))]
    return S, ts, [sum(t[i] * S[i][j] * t[j] for i in range(len(S)) for j in range(len(S))) / 2 for t in ts]


def _domain_text(p, c):
    S, ts, qs = _domain_params(p, "library")
    out = ", ".join(_show(p["thetas"][i]) for i, q in enumerate(qs) if q >= 1)
    ins = ", ".join(_show(p["thetas"][i]) for i, q in enumerate(qs) if q < 1) or "none"
    return (f"for the symmetric Laplace law with covariance Sigma = {_show(p['cov'])}, theta = {out} lie outside the "
            "domain of the CGF (q = theta^T Sigma theta/2 >= 1, where E e^<theta,Y> = int_0^inf e^(-w) e^(wq) dw = +inf) "
            f"and theta = {ins} inside (q < 1), so a CGF evaluator must refuse exactly the former")


def _check_domain(result):
    _claim(result, "N1.n2")
    R.expect_statement(result, _domain_text(result["parameters"], result["conventions"]))
    S, ts, qs = _domain_params(result["parameters"], "library")
    cert = _cert(result, "q")
    if [R.num(x, "certificate.q") for x in R.lst(cert["q"], "certificate.q", len(qs), len(qs))] != qs:
        raise Rejected("certificate.q: does not match theta^T Sigma theta/2")
    if not any(q >= 1 for q in qs):
        raise Rejected("parameters.thetas: no point outside the domain")
    return f"{sum(q >= 1 for q in qs)} points outside (q >= 1, exact), {sum(q < 1 for q in qs)} inside"


def _naive_text(p, c):
    _domain_params(p, "naive-formula")
    return (f"the unguarded evaluator -log|1 - theta^T Sigma theta/2| of the symmetric Laplace CGF, Sigma = "
            f"{_show(p['cov'])}, refuses every theta outside {{theta^T Sigma theta < 2}} among theta = "
            f"{_show(p['thetas'])}")


def _check_naive(result):
    _claim(result, "N1.n2")
    R.expect_statement(result, _naive_text(result["parameters"], result["conventions"]))
    _cert(result)
    S, ts, qs = _domain_params(result["parameters"], "naive-formula")
    for t, q in zip(ts, qs):
        if q > 1:      # outside the domain, yet -log|1 - q| = -log(q - 1) is a finite real number
            return f"theta = {_show(t)}: q = {_fs(q)} > 1, the evaluator returns -log({_fs(q - 1)})"
    raise Rejected("parameters.thetas: no point with q > 1 (where the unguarded formula returns a number)")


# -- N2: attention = V grad Lambda(K^T Q x) -----------------------------------------------------------------
def _attention_params(p, transpose):
    p = R.obj(p, "parameters", required=("key_dim", "atoms", "weights", "transpose"))
    if R.flag(p["transpose"], "parameters.transpose") != transpose:
        raise Rejected("parameters.transpose: does not match the kind")
    k = R.integer(p["key_dim"], "parameters.key_dim", 1, 3)
    atoms = [_vec(a, f"parameters.atoms[{i}]", 2) for i, a in enumerate(R.lst(p["atoms"], "parameters.atoms", 1, 4))]
    return k, atoms, _weights(p["weights"], "parameters.weights", len(atoms))


def _attention_text(p, c, transpose):
    k, atoms, ws = _attention_params(p, transpose)
    A = "Q^T K" if transpose else "K^T Q"
    return (f"Gamma_(Q,K,V)[mu](x) = V grad Lambda_mu({A} x) for all real Q, K in R^({k}x2), V in R^(2x2), x in R^2, "
            f"where mu = sum_j w_j delta_(x_j) with atoms x_j = {_show(p['atoms'])} and weights {_show(p['weights'])}"
            + (" (the wrong order)" if transpose else ""))


def _attention_sides(k, atoms, ws):
    Q, K = sympy.Matrix(k, 2, _syms(2 * k)), sympy.Matrix(k, 2, _syms(2 * k))
    V, x = sympy.Matrix(2, 2, _syms(4)), sympy.Matrix(_syms(2))
    X = [sympy.Matrix([_S(c) for c in a]) for a in atoms]
    es = [_S(w) * sympy.exp(sympy.expand(((Q * x).T * (K * xj))[0, 0])) for xj, w in zip(X, ws)]
    lhs = sum((e * (V * xj) for e, xj in zip(es, X)), sympy.zeros(2, 1)) / sum(es)
    t = _syms(2)
    lam = sympy.log(sum(_S(w) * sympy.exp(_lin(a, t)) for a, w in zip(atoms, ws)))
    grad = sympy.Matrix([sympy.diff(lam, ti) for ti in t])
    return lhs, grad, t, (Q, K, V, x)


def _check_attention(result):
    _claim(result, "N2")
    R.expect_statement(result, _attention_text(result["parameters"], result["conventions"], False))
    _cert(result)
    k, atoms, ws = _attention_params(result["parameters"], False)
    lhs, grad, t, (Q, K, V, x) = _attention_sides(k, atoms, ws)
    theta = K.T * Q * x
    _require_zero(lhs - V * grad.xreplace(dict(zip(t, theta))), "Gamma - V grad Lambda(K^T Q x)")
    return f"Gamma - V grad Lambda(K^T Q x) = 0 symbolically (key dim {k}, {len(atoms)} atoms)"


def _check_attention_witness(result):
    _claim(result, "N2.n")
    R.expect_statement(result, _attention_text(result["parameters"], result["conventions"], True))
    k, atoms, ws = _attention_params(result["parameters"], True)
    cert = _cert(result, "witness")
    w = R.obj(cert["witness"], "certificate.witness", required=("Q", "K", "V", "x"))
    Qw, Kw = _mat(w["Q"], "certificate.witness.Q", k, 2), _mat(w["K"], "certificate.witness.K", k, 2)
    Vw, xw = _mat(w["V"], "certificate.witness.V", 2, 2), _vec(w["x"], "certificate.witness.x", 2)
    for prec in (128, 256):
        with workprec(prec):
            b = ball
            qx = [sum((b(Qw[i][j]) * b(xw[j]) for j in range(2)), arb(0)) for i in range(k)]
            A = [[sum((b(Qw[i][r]) * b(Kw[i][c]) for i in range(k)), arb(0)) for c in range(2)] for r in range(2)]
            th = [sum((A[r][c] * b(xw[c]) for c in range(2)), arb(0)) for r in range(2)]
            left = [sum((qx[i] * sum((b(Kw[i][c]) * b(a[c]) for c in range(2)), arb(0)) for i in range(k)), arb(0))
                    for a in atoms]
            right = [sum((th[c] * b(a[c]) for c in range(2)), arb(0)) for a in atoms]

            def gamma(sc):
                es = [b(wj) * s.exp() for s, wj in zip(sc, ws)]
                m = [sum((e * b(a[c]) for e, a in zip(es, atoms)), arb(0)) / sum(es, arb(0)) for c in range(2)]
                return [sum((b(Vw[r][c]) * m[c] for c in range(2)), arb(0)) for r in range(2)]

            for i, (l, r) in enumerate(zip(gamma(left), gamma(right))):
                if (l - r) > 0 or (l - r) < 0:
                    lo, hi = bounds(l - r)
                    return f"component {i} of Gamma - V grad Lambda(Q^T K x) in [{float(lo):.4g}, {float(hi):.4g}]"
    raise Rejected("certificate.witness: no component of the difference certified non-zero")


TABLE = ("the derivative table of docs/paper2.md §3 holds for mu = sum_j w_j delta_(x_j) with {n} symbolic atoms x_j in R^2 and "
         "weights {w}, symbolic Q, K in R^({k}x2), A, V in R^(2x2), query z and dual vector p: Hessian of Lambda = "
         "tilted covariance H; d_V <p, Gamma> = p mbar^T; d_A <p, Gamma> = H V^T p z^T; d_Q <p, Gamma> = K H V^T p z^T; "
         "d_K <p, Gamma> = Q z p^T V H; d_z Gamma = V H A; d Gamma/d x_k = V p_k (I + (x_k - mbar) theta^T)")


def _table_params(p):
    p = R.obj(p, "parameters", required=("key_dim", "weights"))
    n = len(R.lst(p["weights"], "parameters.weights", 2, 3))
    return R.integer(p["key_dim"], "parameters.key_dim", 1, 1), _weights(p["weights"], "parameters.weights", n)


def _table_text(p, c):
    _table_params(p)
    return TABLE.format(w=_show(p["weights"]), k=_show(p["key_dim"]), n=len(p["weights"]))


def _tilted(theta, X, ws):
    es = [_S(w) * sympy.exp(sympy.expand((theta.T * x)[0, 0])) for x, w in zip(X, ws)]
    z = sum(es)
    p = [e / z for e in es]
    m = sum((pj * x for pj, x in zip(p, X)), sympy.zeros(2, 1))
    return p, m, sum((pj * (x * x.T) for pj, x in zip(p, X)), sympy.zeros(2, 2)) - m * m.T


def _check_table(result):
    _claim(result, "N2")
    R.expect_statement(result, _table_text(result["parameters"], result["conventions"]))
    _cert(result)
    k, ws = _table_params(result["parameters"])
    X = [sympy.Matrix(_syms(2)) for _ in ws]
    Q, K = sympy.Matrix(k, 2, _syms(2 * k)), sympy.Matrix(k, 2, _syms(2 * k))
    A, V = sympy.Matrix(2, 2, _syms(4)), sympy.Matrix(2, 2, _syms(4))
    z, p, t = sympy.Matrix(_syms(2)), sympy.Matrix(_syms(2)), sympy.Matrix(_syms(2))
    lam = sympy.log(sum(_S(w) * sympy.exp((t.T * x)[0, 0]) for x, w in zip(X, ws)))
    _require_zero(sympy.hessian(lam, list(t)) - _tilted(t, X, ws)[2], "Hessian = tilted covariance")
    theta = A * z
    pk, m, H = _tilted(theta, X, ws)
    gam = V * m
    f = (p.T * gam)[0, 0]
    D = lambda M: sympy.Matrix(M.shape[0], M.shape[1], lambda i, j: sympy.diff(f, M[i, j]))
    _require_zero(D(V) - p * m.T, "d_V")
    _require_zero(D(A) - H * V.T * p * z.T, "d_A")
    _require_zero(gam.jacobian(z) - V * H * A, "query Jacobian")
    for j in range(len(ws)):
        _require_zero(gam.jacobian(X[j]) - V * pk[j] * (sympy.eye(2) + (X[j] - m) * theta.T), f"context Jacobian {j}")
    _, mq, Hq = _tilted(K.T * Q * z, X, ws)
    f = (p.T * V * mq)[0, 0]
    _require_zero(D(Q) - K * Hq * V.T * p * z.T, "d_Q")
    _require_zero(D(K) - Q * z * p.T * V * Hq, "d_K")
    return f"{6 + len(ws)} table entries = SymPy derivatives (key dim {k}, {len(ws)} atoms)"


# -- N8, N9, N10: the exact negative controls and the explicit instance --------------------------------------
def _frozen_params(p):
    p = R.obj(p, "parameters", required=("mode", "v", "context", "weights"))
    R.string(p["mode"], "parameters.mode", ("certified",))
    ctx = [_vec(x, f"parameters.context[{i}]", 2) for i, x in enumerate(R.lst(p["context"], "parameters.context", 1, 8))]
    return _vec(p["v"], "parameters.v", 2), ctx, _weights(p["weights"], "parameters.weights", len(ctx))


def _frozen_text(p, c):
    _frozen_params(p)
    return (f"with one head A = 0 (uniform attention), V = diag{_show(p['v'])}, context tokens {_show(p['context'])} "
            f"with weights {_show(p['weights'])}, the particle model with the context frozen at mu(0) converges, as "
            "L, H -> infinity, to the mean-field flow at s = 1")


def _check_frozen(result):
    """REFUTED: the mean-field flow is X_k(s) = x_k + (e^(sV) - I) m0 (verified to solve X_k' = V mbar(s), X(0) = x;
    a linear ODE, so unique); with frozen context every layer adds V m0/L, so the frozen model is x_k + V m0 for
    every L, H; the limits differ by (e^V - I - V) m0, certified non-zero."""
    _claim(result, "N8.n")
    R.expect_statement(result, _frozen_text(result["parameters"], result["conventions"]))
    _cert(result)
    v, ctx, ws = _frozen_params(result["parameters"])
    m0 = [sum((w * x[i] for w, x in zip(ws, ctx)), F(0)) for i in range(2)]
    s = sympy.Dummy(real=True)
    X = [[_S(x[i]) + (sympy.exp(s * _S(v[i])) - 1) * _S(m0[i]) for i in range(2)] for x in ctx]
    mean = [sum(_S(w) * Xk[i] for w, Xk in zip(ws, X)) for i in range(2)]
    _require_zero(sympy.Matrix([sympy.diff(Xk[i], s) - _S(v[i]) * mean[i] for Xk in X for i in range(2)]), "flow ODE")
    _require_zero(sympy.Matrix([Xk[i].subs(s, 0) - _S(x[i]) for Xk, x in zip(X, ctx) for i in range(2)]), "flow start")
    with workprec(128):
        for i in range(2):
            gap = (ball(v[i]).exp() - 1 - ball(v[i])) * ball(m0[i])
            if gap > 0 or gap < 0:
                lo, hi = bounds(gap)
                return f"frozen limit - flow, component {i}: (e^v - 1 - v) m0 in [{float(lo):.4g}, {float(hi):.4g}]"
    raise Rejected("discrepancy (e^V - I - V) m0 not certified non-zero")


def _adjoint_params(p, variants):
    p = R.obj(p, "parameters", required=("variant", "v", "context", "weights", "targets", "query", "query_target"))
    var = R.string(p["variant"], "parameters.variant", variants)
    ctx = _vec(p["context"], "parameters.context", max_len=8)
    v = _q(p["v"], "parameters.v", lo=-64, hi=64)
    if v == 0:
        raise Rejected("parameters.v: must be non-zero")
    return (var, v, ctx, _weights(p["weights"], "parameters.weights", len(ctx)),
            _vec(p["targets"], "parameters.targets", len(ctx), 8), _q(p["query"], "parameters.query"),
            _q(p["query_target"], "parameters.query_target"))


def _adjoint_text(p, c, variants):
    _adjoint_params(p, variants)
    head = (f"on the explicit instance d = 1, one head A = 0, V = v = {_show(p['v'])}, context {_show(p['context'])} "
            f"with weights {_show(p['weights'])}, targets {_show(p['targets'])}, query y = {_show(p['query'])}, "
            f"y* = {_show(p['query_target'])} (loss sum_k w_k (X_k(1) - T_k)^2/2 + (Y(1) - y*)^2/2), ")
    if p["variant"] == "full":
        return head + "the adjoint gradient of docs/paper2.md §8 equals d loss/dv exactly"
    return head + f"the adjoint of docs/paper2.md §8 with the {p['variant'][5:]} term dropped gives d loss/dv"


def _adjoint_difference(params):
    """adjoint gradient - d loss/dv as a polynomial in Z = e^v (exact rational coefficients), at the given v.
    At A = 0: X_k(s) = x_k + (e^(vs) - 1) m0, Y(s) = y + (e^(vs) - 1) m0, mbar(s) = m0 e^(vs); the adjoint of
    docs/paper2.md §8 reduces to -P' = v (P + r) (context term v P, query term v r, r = Y(1) - y* constant), P(1) = P1 =
    sum_k w_k (X_k(1) - T_k), and the gradient is int_0^1 (P + r) mbar ds."""
    var, v, xs, ws, T, y, ys = params
    s, vs = sympy.Dummy(real=True), sympy.Dummy(real=True)
    m0 = sum(_S(w) * _S(x) for w, x in zip(ws, xs))
    e = sympy.exp(vs) - 1
    loss = sum(_S(w) * (_S(x) + e * m0 - _S(t)) ** 2 / 2 for w, x, t in zip(ws, xs, T)) + (_S(y) + e * m0 - _S(ys)) ** 2 / 2
    P1 = sum(_S(w) * (_S(x) + e * m0 - _S(t)) for w, x, t in zip(ws, xs, T))
    r = _S(y) + e * m0 - _S(ys)
    P = {"full": (P1 + r) * sympy.exp(vs * (1 - s)) - r, "drop-context": P1 + vs * r * (1 - s),
         "drop-query": P1 * sympy.exp(vs * (1 - s))}[var]
    rhs = {"full": vs * (P + r), "drop-context": vs * r, "drop-query": vs * P}[var]
    _require_zero(sympy.Matrix([-sympy.diff(P, s) - rhs, P.subs(s, 1) - P1]), "closed-form adjoint")
    grad = sympy.integrate(sympy.expand((P + r) * m0 * sympy.exp(vs * s)), (s, 0, 1))
    diff = sympy.expand(grad - sympy.diff(loss, vs))
    Z = sympy.Dummy(positive=True)                          # Z = e^v
    repl = {}
    for ex in diff.atoms(sympy.exp):
        k = sympy.cancel(ex.args[0] / vs)
        if not k.is_Integer:
            raise Rejected("adjoint: the difference is not a polynomial in e^v")
        repl[ex] = Z ** int(k)
    poly = sympy.Poly(sympy.expand(sympy.cancel(diff.xreplace(repl).subs(vs, _S(v)))), Z)
    if not all(c.is_Rational for c in poly.coeffs()):
        raise Rejected("adjoint: the difference is not a polynomial in e^v with rational coefficients")
    return {m[0]: F(int(c.p), int(c.q)) for m, c in zip(poly.monoms(), poly.coeffs()) if c != 0}, v


def _check_adjoint(result):
    _claim(result, "N9")
    R.expect_statement(result, _adjoint_text(result["parameters"], result["conventions"], ("full",)))
    _cert(result)
    poly, v = _adjoint_difference(_adjoint_params(result["parameters"], ("full",)))
    if poly:
        raise Rejected("adjoint: the difference is not 0")
    return f"adjoint gradient - d loss/dv = 0 exactly at v = {_fs(v)}"


def _check_adjoint_gap(result):
    _claim(result, "N9.n")
    R.expect_statement(result, _adjoint_text(result["parameters"], result["conventions"], ("drop-context", "drop-query")))
    _cert(result)
    poly, v = _adjoint_difference(_adjoint_params(result["parameters"], ("drop-context", "drop-query")))
    with workprec(128):
        val = sum((ball(c) * (ball(v) * k).exp() for k, c in poly.items()), arb(0))
        if val > 0 or val < 0:
            lo, hi = bounds(val)
            return f"adjoint - d loss/dv = sum_k c_k e^(kv) in [{float(lo):.4g}, {float(hi):.4g}] (certified non-zero)"
    raise Rejected("adjoint: difference not certified non-zero")


C_RESIDUAL = (1, -1, -1, 1)


def _residual_params(p):
    p = R.obj(p, "parameters", required=("eps", "e", "layers", "heads", "translate", "atoms", "weights", "queries"))
    eps = _q(p["eps"], "parameters.eps", pos=True)
    e = _vec(p["e"], "parameters.e", 2)
    if not any(e):
        raise Rejected("parameters.e: zero vector")
    L, H = R.integer(p["layers"], "parameters.layers", 1, 64), R.integer(p["heads"], "parameters.heads", 1, 4096)
    atoms = [_vec(a, f"parameters.atoms[{i}]", 2) for i, a in enumerate(R.lst(p["atoms"], "parameters.atoms", 1, 4))]
    qs = [_vec(q, f"parameters.queries[{i}]", 2) for i, q in enumerate(R.lst(p["queries"], "parameters.queries", 2, 2))]
    return eps, e, L, H, _vec(p["translate"], "parameters.translate", 2), atoms, \
        _weights(p["weights"], "parameters.weights", len(atoms)), qs


def _residual_text(p, c):
    _residual_params(p)
    return (f"from V = 0 (L = {_show(p['layers'])} layers, H = {_show(p['heads'])} heads, any head matrices A), inputs "
            f"mu_1 = sum_j w_j delta_(x_j) (atoms {_show(p['atoms'])}, weights {_show(p['weights'])}) and mu_2 = mu_1 "
            f"translated by {_show(p['translate'])}, shared queries {_show(p['queries'])} and targets q_a + eps c_ia e "
            f"(eps = {_show(p['eps'])}, e = {_show(p['e'])}, c = (1, -1, -1, 1)), the loss along the gradient flow "
            "decays like exp(-2 lambda t) L(0) for some lambda > 0 from t = 0")


def _check_residual(result):
    """REFUTED: sum_(i,a) c_ia grad Lambda_i(theta_a) = 0 for all theta_1, theta_2 (checked symbolically), hence
    k c = 0 for every head set, r(0) = -eps c (x) e lies in ker K_0, grad_V L(0) = 0 and grad_A L(0) = 0 (factor
    V = 0): theta(0) is stationary and L(t) = L(0) = 2 eps^2 |e|^2 > 0 for all t."""
    _claim(result, "N10.n")
    R.expect_statement(result, _residual_text(result["parameters"], result["conventions"]))
    _cert(result)
    eps, e, L, H, a, atoms, ws, _ = _residual_params(result["parameters"])
    laws = [atoms, [[x + y for x, y in zip(atom, a)] for atom in atoms]]
    th = [sympy.Matrix(_syms(2)) for _ in range(2)]

    def grad(xs, t):
        es = [_S(w) * sympy.exp(_lin(x, t)) for x, w in zip(xs, ws)]
        return sum((ei * sympy.Matrix([_S(c) for c in x]) for ei, x in zip(es, xs)), sympy.zeros(2, 1)) / sum(es)

    combo = sum((c * grad(laws[i // 2], th[i % 2]) for i, c in enumerate(C_RESIDUAL)), sympy.zeros(2, 1))
    _require_zero(combo, "sum c_ia grad Lambda_i(theta_a)")
    return f"r(0) in ker K_0 and theta(0) stationary: L(t) = L(0) = {_fs(2 * eps * eps * (e[0] ** 2 + e[1] ** 2))} > 0"


# -- the registry --------------------------------------------------------------------------------------------
_TEXTS = {
    "cgf-quadrature": _quad_text, "cgf-quadrature-witness": _quad_text, "cgf-derivatives": _derivatives_text,
    "cgf-taylor": _taylor_text, "cgf-identities": _identities_text, "laplace-domain": _domain_text,
    "laplace-naive-witness": _naive_text,
    "attention-identity": lambda p, c: _attention_text(p, c, False),
    "attention-witness": lambda p, c: _attention_text(p, c, True), "attention-table": _table_text,
    "frozen-context-gap": _frozen_text, "adjoint-instance": lambda p, c: _adjoint_text(p, c, ("full",)),
    "adjoint-instance-gap": lambda p, c: _adjoint_text(p, c, ("drop-context", "drop-query")),
    "kernel-residual": _residual_text,
}


def statement(kind: str, parameters: dict, conventions: dict) -> str:
    """The statement of a Result of ``kind`` with these JSON-level parameters and conventions."""
    return R.bound_statement(_TEXTS[kind](parameters, conventions), parameters, conventions)


_E, _C = frozenset({"exact"}), frozenset({"certified"})
KINDS = {
    "cgf-quadrature": Kind(frozenset({"N1"}), "proved", _C, _check_quadrature),
    "cgf-quadrature-witness": Kind(frozenset({"N1"}), "refuted", _C, _check_quadrature_witness),
    "cgf-derivatives": Kind(frozenset({"N1"}), "proved", _E, _check_derivatives),
    "cgf-taylor": Kind(frozenset({"N1"}), "proved", _E, _check_taylor),
    "cgf-identities": Kind(frozenset({"N1"}), "proved", _E, _check_identities),
    "laplace-domain": Kind(frozenset({"N1"}), "proved", _E, _check_domain),
    "laplace-naive-witness": Kind(frozenset({"N1"}), "refuted", _E, _check_naive),
    "attention-identity": Kind(frozenset({"N2"}), "proved", _E, _check_attention),
    "attention-witness": Kind(frozenset({"N2"}), "refuted", _C, _check_attention_witness),
    "attention-table": Kind(frozenset({"N2"}), "proved", _E, _check_table),
    "frozen-context-gap": Kind(frozenset({"N8"}), "refuted", _C, _check_frozen),
    "adjoint-instance": Kind(frozenset({"N9"}), "proved", _E, _check_adjoint),
    "adjoint-instance-gap": Kind(frozenset({"N9"}), "refuted", _C, _check_adjoint_gap),
    "kernel-residual": Kind(frozenset({"N10"}), "refuted", _E, _check_residual),
}
