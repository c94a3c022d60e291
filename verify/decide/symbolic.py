"""Symbolic zero tests for expressions in exponentials: is an expression identically 0 once every
exponential is written in fresh symbols?

Algorithm
---------
:func:`exp_free_zero` replaces every exp(.) by a fresh positive :class:`sympy.Dummy` and tests whether the
resulting rational function is 0: first exactly in python-flint ``fmpq_mpoly`` (numerators and denominators,
every sub-expression that is not a sum, product, integer power or rational a generator), and where that does
not give 0, by ``sympy.cancel`` (so a False is exactly SymPy's).  First pass: one symbol E per distinct
expanded exponent, integer multiples sharing it (exp(-a) = 1/E).  Second pass (``fine=True``): every exponent
c0 + sum_t c_t t (rational c, monomials t) becomes e^{c0} prod_t Z_t^{c_t D_t}, Z_t = exp(t / D_t) fresh, D_t
the common denominator of the coefficients of t.  Cost: flint polynomial products and gcds (``sympy.cancel``
on the substituted expression when the identity fails; the second pass can be slow for large expressions).
:func:`laurent_at_zero`: exact Laurent expansions at 0 over Q (truncated power series; docstring below).

Soundness
---------
An identity of rational functions in free symbols holds after any substitution with non-zero
denominators, in particular after putting the exponentials back; so True proves the identity.  False means
"not shown", never "non-zero".  The fresh symbols are ``Dummy`` objects, so they never coincide with a symbol
of the input, whatever its name.  The proof rests on SymPy's ``cancel`` (exact polynomial arithmetic
over Q) or on flint's exact polynomial arithmetic.

Limits
------
Returns False (not shown) for identities that need more than rational-function algebra in the new
symbols: exp(a) exp(b) = exp(a + b) is not seen by the first pass (three unrelated symbols; the second
pass, ``fine=True``, sees it), and exp(sin a + sin b) = exp(sin a) exp(sin b) by neither (exponents that
are not polynomials with rational coefficients each get a symbol of their own).  No time budget: a large
expression can make ``cancel`` slow.
"""

from __future__ import annotations

import sympy
from flint import fmpq, fmpq_mpoly_ctx

__all__ = ["exp_free_zero"]


def _exponent_terms(arg):
    """expand(arg) as (rational constant, {monomial: rational coefficient}) or None if not of that form."""
    arg = sympy.expand(arg)
    terms = arg.as_coefficients_dict()
    const = sympy.Integer(0)
    out = {}
    for mono, coef in terms.items():
        if not coef.is_Rational:
            return None
        if mono == 1:
            const += coef
        elif mono.free_symbols and all(f.is_Symbol for f in mono.free_symbols) and mono.is_polynomial():
            out[mono] = out.get(mono, 0) + coef
        else:
            return None
    return const, out


def _flint_zero(expr):
    """True if ``expr`` is the zero rational function of its generators (every sub-expression that is not a
    sum, a product, an integer power or a rational number), False if not, None if it cannot be read (a number that is
    not rational, a denominator that is the zero polynomial).  Exact: numerator and denominator are flint
    ``fmpq_mpoly``, sums over the least common multiple of the denominators."""
    gens = {}
    stack = [expr]
    seen = set()
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Rational:
            continue
        if e.is_Atom and e.is_number:       # a float, pi, I, zoo: SymPy decides
            return None
        if e.is_Add or e.is_Mul or (e.is_Pow and e.exp.is_Integer):
            stack.extend(e.args)
        else:
            gens.setdefault(e, len(gens))
    if not gens:
        return expr == 0
    ctx = fmpq_mpoly_ctx.get(tuple(f"g{i}" for i in range(len(gens))), "lex")
    g = ctx.gens()
    one = ctx.constant(1)
    memo = {}

    def conv(e):
        r = memo.get(e)
        if r is not None:
            return r
        if e.is_Rational:
            r = (ctx.constant(fmpq(int(e.p), int(e.q))), one)
        elif e.is_Add:
            n, d = conv(e.args[0])
            for a in e.args[1:]:
                n2, d2 = conv(a)
                if d2 == d:
                    n = n + n2
                elif d2.is_one():
                    n = n + n2 * d
                elif d.is_one():
                    n, d = n * d2 + n2, d2
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
        n, _ = conv(expr)
    except ZeroDivisionError:
        return None
    return n.is_zero()


def _rational_zero(e) -> bool:
    """``e`` (exponentials already replaced) is the zero rational function: flint first; when flint does not
    say 0, ``sympy.cancel`` decides as before, so a False is exactly SymPy's."""
    if _flint_zero(e) is True:
        return True
    return sympy.cancel(sympy.together(e)) == 0


def _polynomial_coefficients(arg):
    """{monomial: coefficient} of an expanded polynomial with rational coefficients in its symbols, else None."""
    if not (arg.free_symbols and all(f.is_Symbol for f in arg.free_symbols) and arg.is_polynomial()):
        return None
    terms = arg.as_coefficients_dict()
    return terms if all(c.is_Rational for c in terms.values()) else None


def _integer_ratio(arg, coeffs, key, polys):
    """The integer k with arg = k key, else None: ``sympy.cancel(arg / key)`` when it is an Integer.  For two
    expanded polynomials with rational coefficients (their canonical form) the coefficient lists decide it;
    otherwise ``cancel`` does."""
    if key not in polys:
        polys[key] = _polynomial_coefficients(key)
    kc = polys[key]
    if coeffs is None or kc is None:
        ratio = sympy.cancel(arg / key)
        return int(ratio) if ratio.is_Integer else None
    if coeffs.keys() != kc.keys():
        return None
    ratios = {coeffs[m] / kc[m] for m in kc}
    if len(ratios) != 1:
        return None
    (ratio,) = ratios
    return int(ratio) if ratio.is_Integer else None


def _coarse_zero(exprs) -> bool:
    """One symbol E per distinct expanded exponent; integer multiples (e.g. exp(-a) = 1/E) share it."""
    keys, syms, polys = [], [], {}
    for e in exprs:
        repl = {}
        for ex in sorted(e.atoms(sympy.exp), key=sympy.default_sort_key):
            arg = sympy.expand(ex.args[0])
            val = None
            coeffs = _polynomial_coefficients(arg)
            for key, sym in zip(keys, syms):
                ratio = _integer_ratio(arg, coeffs, key, polys)
                if ratio is not None:
                    val = sym ** ratio
                    break
            if val is None:
                if arg.is_Rational:
                    val = ex
                else:
                    keys.append(arg)
                    syms.append(sympy.Dummy(f"E{len(syms)}", positive=True))
                    val = syms[-1]
            repl[ex] = val
        if not _rational_zero(e.xreplace(repl)):
            return False
    return True


def exp_free_zero(expr, fine: bool = False) -> bool:
    """True if ``expr`` is identically 0 once every exponential is written in fresh symbols.

    First pass (fast): one symbol per distinct exponent (integer multiples share it).  Second pass (finer,
    only with ``fine=True``; can be slow for large expressions):

    every exponent is expanded into a rational constant plus rational multiples of monomials t; with D_t
    the common denominator of the coefficients of t, exp(c0 + Σ c_t t) -> e^{c0} Π Z_t^{c_t D_t}, where
    Z_t = exp(t / D_t) is a fresh positive symbol (exponents that are not of this form get a symbol of
    their own).  Sound for proving an identity: a rational function of free symbols that cancels to 0
    vanishes under every substitution with non-zero denominators.  False means "not shown", never
    "non-zero".

    Algorithm
    ---------
    The two passes of the module docstring; the second runs only when the first fails and ``fine=True``.
    A matrix is tested entry by entry.

    Soundness
    ---------
    True proves that ``expr`` is identically 0 wherever it is defined (docs/mean-field.md, N2).  False is
    never a proof of non-zero.

    Limits
    ------
    See the module docstring: False whenever the identity is not visible to ``sympy.cancel`` after the
    substitution.

    >>> a, b = sympy.symbols("a b")
    >>> exp_free_zero(sympy.exp(a * (a + b)) - sympy.exp(a**2 + a * b))
    True
    >>> exp_free_zero(sympy.exp(a) * sympy.exp(b / 3) - sympy.exp(a + b / 3), fine=True)
    True
    >>> exp_free_zero(sympy.exp(a) - sympy.exp(b))
    False
    """
    exprs = [sympy.sympify(e) for e in (list(expr) if isinstance(expr, sympy.MatrixBase) else [expr])]
    if _coarse_zero(exprs):
        return True
    if not fine:
        return False
    atoms = set()
    for e in exprs:
        atoms |= e.atoms(sympy.exp)
    atoms = sorted(atoms, key=sympy.default_sort_key)
    parsed = {ex: _exponent_terms(ex.args[0]) for ex in atoms}
    denom = {}
    for p in parsed.values():
        if p is not None:
            for mono, coef in p[1].items():
                denom[mono] = sympy.ilcm(denom.get(mono, 1), sympy.Rational(coef).q)
    zsym = {mono: sympy.Dummy(f"Z{i}", positive=True)
            for i, mono in enumerate(sorted(denom, key=sympy.default_sort_key))}
    other = {}
    repl = {}
    for ex, p in parsed.items():
        if p is None:
            key = sympy.expand(ex.args[0])
            other.setdefault(key, sympy.Dummy(f"W{len(other)}", positive=True))
            repl[ex] = other[key]
            continue
        const, terms = p
        val = sympy.exp(const) if const != 0 else sympy.Integer(1)
        for mono, coef in terms.items():
            val *= zsym[mono] ** int(coef * denom[mono])
        repl[ex] = val
    for e in exprs:
        if not _rational_zero(e.xreplace(repl)):
            return False
    return True


def laurent_at_zero(expr, t, terms: int = 12):
    """The Laurent expansion of ``expr`` at ``t = 0`` as ``(v, [c_v, c_(v+1), ...])`` (exact Fractions, every
    listed coefficient known), or None when the expression is not of the form read below.

    Algorithm
    ---------
    Exact truncated power-series arithmetic over Q: ``expr`` is read as sums, products, integer powers,
    rationals, ``t``, ``exp(u)`` with u = O(t) (the exponential series) and ``exp(k log u)`` = u**k (k an
    integer).  Each value carries its valuation and as many coefficients as are known (a product keeps the
    shorter relative length, a sum the lower absolute order; leading zeros are dropped); ``terms``
    coefficients start each leaf.

    Soundness
    ---------
    Every coefficient listed is exact: each operation keeps only the coefficients its inputs determine.  An
    inverse needs a non-zero leading coefficient among the known ones, else None (never a guess).

    Limits
    ------
    None for any other function (``log``, ``sinh`` before ``rewrite(exp)``, ...), for exp(u) with u(0) != 0
    (an irrational constant) and when cancellation leaves no known coefficient.

    >>> t = sympy.Symbol("t")
    >>> laurent_at_zero((sympy.exp(t) + sympy.exp(-t)) / (sympy.exp(t) - sympy.exp(-t)) - 1 / t, t, 6)[0]
    1
    """
    from fractions import Fraction

    def strip(v, c):
        i = 0
        while i < len(c) and c[i] == 0:
            i += 1
        return (v + i, c[i:]) if i < len(c) else None

    def mul(a, b):
        n = min(len(a[1]), len(b[1]))
        return a[0] + b[0], [sum(a[1][i] * b[1][k - i] for i in range(k + 1)) for k in range(n)]

    def inv(a):
        c, n = a[1], len(a[1])
        out = [1 / c[0]]
        for k in range(1, n):
            out.append(-sum(c[i] * out[k - i] for i in range(1, k + 1)) / c[0])
        return -a[0], out

    def add(a, b):
        v, o = min(a[0], b[0]), min(a[0] + len(a[1]), b[0] + len(b[1]))
        c = [Fraction(0)] * (o - v)
        for w, cs in (a, b):
            for i, x in enumerate(cs):
                if w + i < o:
                    c[w + i - v] += x
        return strip(v, c)

    def power(a, k):
        if k < 0:
            return power(inv(a), -k)
        out = (0, [Fraction(1)] + [Fraction(0)] * (terms - 1))
        for _ in range(k):
            out = mul(out, a)
        return out

    memo = {}

    def conv(e):
        if e in memo:
            return memo[e]
        if e == t:
            r = (1, [Fraction(1)] + [Fraction(0)] * (terms - 1))
        elif e.is_Rational:
            r = (0, [Fraction(int(e.p), int(e.q))] + [Fraction(0)] * (terms - 1)) if e != 0 else "zero"
        elif e.is_Add:
            r = "zero"
            for x in e.args:
                y = conv(x)
                if y is None:
                    return None
                if y != "zero":
                    r = y if r == "zero" else add(r, y)
                    if r is None:
                        return None
        elif e.is_Mul or (e.is_Pow and e.exp.is_Integer):
            parts = [(x, 1) for x in e.args] if e.is_Mul else [(e.base, int(e.exp))]
            r = (0, [Fraction(1)] + [Fraction(0)] * (terms - 1))
            for x, k in parts:
                y = conv(x)
                if y is None or (y == "zero" and k < 0):
                    return None
                if y == "zero":
                    memo[e] = "zero"
                    return "zero"
                r = mul(r, power(y, k))
        elif isinstance(e, sympy.exp):
            k, rest = e.args[0].as_coeff_Mul()
            if k.is_Integer and isinstance(rest, sympy.log):
                return conv(rest.args[0] ** k)
            u = conv(e.args[0])
            if u is None or (u != "zero" and u[0] < 1):
                return None
            r = (0, [Fraction(1)] + [Fraction(0)] * (terms - 1))
            if u != "zero":
                term = r
                for j in range(1, terms):
                    term = mul(term, u)
                    term = (term[0], [x / j for x in term[1]])
                    if term[0] >= terms:
                        break
                    r = add(r, term)
        else:
            return None
        memo[e] = r
        return r

    out = conv(sympy.sympify(expr))
    if out == "zero":
        return 0, []
    return out
