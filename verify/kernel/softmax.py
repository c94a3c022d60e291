"""Ball-enclosure and symbolic certificates of T2 (softmax versus hardmax) and T7 (softmax emulation error).

Notation: p = softmax(lambda s), E_lambda(s) = max s - <p, s>, W0 the principal Lambert branch, m = n - 1.
Every ball is recomputed here from the Result's exact inputs with python-flint arb at the precision hint
``certificate.precision_bits`` (32..4096); an undecided comparison rejects.  SymPy runs only on expressions
built here (``Dummy`` symbols), never on strings from the input.

Kinds (statements: :func:`bound_statement`, :func:`scalar_statement`, :func:`two_token_statement`,
:func:`gap_statement`, :func:`emulation_statement`):

* ``softmax-bound`` (T2, proved): E_lambda(s) <= c beta(n)/lambda for all s in R^n, and sup E is approached
  to 1e-30 at the witness.  Proof: the R2 reduction [lemma: lambda E = sum_l a_l ln(1/a_l)/(1 + A) with
  a_l = e^(-lambda(max s - s_l)) over the m non-top indices, A = sum a_l in (0, m], and Jensen for the
  concave a ln(1/a)] gives lambda E <= g(A) = A ln(m/A)/(1 + A); :func:`scalar_lemma` (SymPy) proves
  max_(0,m] g = W0(m/e); the check verifies c beta(n) >= W0(m/e) (exactly for beta = W0 and c >= 1, else by
  balls) and E_lambda(witness) > W0(m/e)/lambda - 1e-30 (balls).
* ``softmax-bound-exceeded`` (T2, refuted): E_lambda(witness) > c beta(n)/lambda (balls).
* ``scalar-maximiser`` (T2, proved, exact): the claimed maximiser is W0(m/e); :func:`scalar_lemma`.
* ``scalar-maximiser-wrong`` (T2, refuted): at the witness m, A = claimed(m) > 0 and h(A) = ln(m/A) - 1 - A
  != 0 (balls), so g'(A) != 0 and g is larger on one side of A (h > 0 forces A < m).
* ``two-token-identity`` (T2, proved, exact): with X = e^(lambda delta), E(b + delta, b) and E(a, a + delta)
  are (b + delta) - ((b + delta) X + b)/(X + 1) and (a + delta) - (a + (a + delta) X)/(1 + X) (divide by
  e^(lambda b), resp. e^(lambda a)); both minus F(delta, X) cancel to 0 as rational functions.
* ``two-token-identity-wrong`` (T2, refuted): E(a, b) - F(|a - b|, e^(lambda |a - b|)) != 0 at a witness.
* ``softmax-gap-lemma`` (T2, proved, exact): rate r <= 1 (exact) and :func:`gap_lemma` (SymPy).
* ``softmax-gap-exceeded`` (T2, refuted): a witness s with gap >= delta at which some p_l (l != l*) exceeds
  e^(-r lambda delta)/(1+e^(-r lambda delta)) (a violation of the second bound implies one of the first).
* ``softmax-emulation-points`` (T7, proved): the recorded weights are the R4 compilation of Phi with S (exact
  equality with :func:`r4_compile`), the lemma R5 hypotheses hold exactly, and at every recorded point the
  ball of |T_lambda(x) - Phi(x)|_inf lies below c B(lambda); the sup over K rests on lemma R5 [DERIVED].
* ``softmax-emulation-exceeded`` (T7, refuted): the same weights check; at the witness x in K the error ball
  lies above c B(lambda).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from flint import arb

from . import Kind
from ._ball import bounds, workprec
from ._ball import ball as _ball
from . import _cells, _read as R
from ._read import Rejected, expect_statement, integer, lst, num, obj, string, tick, vec

__all__ = ["KINDS", "BETAS", "MAXIMISERS", "bound_statement", "scalar_statement",
           "two_token_statement", "gap_statement", "emulation_statement", "scalar_lemma", "gap_lemma",
           "r4_compile", "softmax_E", "render"]

TOL = Fraction(1, 10 ** 30)
MAX_N = 4096
LAM_RANGE = (Fraction(1, 10 ** 12), Fraction(10 ** 12))
MAX_COORD = Fraction(10 ** 15)
MAX_WORK = 1_000_000            # T7: points x tokens x non-zero weights x (precision / 256)
MAX_R4 = 200_000                # T7: entries of the FFN matrices of the R4 compilation
BETAS = {"w0": "W0((n-1)/e)/lambda (sharp)",
         "w0_n_minus_2": "W0((n-2)/e)/lambda (too small: the constant of n-1 tokens)",
         "ln_n": "ln(n)/lambda (entropy bound)",
         "n_minus_1_over_e": "(n-1)/(e lambda) (t e^(-lambda t) <= 1/(e lambda))"}
MAXIMISERS = {"W0(m/e)": lambda m: (m / arb.const_e()).lambertw(), "W0(m)": lambda m: m.lambertw(),
              "m/e": lambda m: m / arb.const_e(), "ln(1+m)": lambda m: (1 + m).log()}


# -- shared readers and balls -------------------------------------------------------------------------------
def ball(x) -> arb:
    """An exact number (Fraction, int or the gmpy2 mpq of ``_cells``) as a ball."""
    return _ball(Fraction(int(x.numerator), int(x.denominator)) if hasattr(x, "numerator") else x)


def _q(x) -> str:
    return str(Fraction(int(x.numerator), int(x.denominator)))


def _lam(v, field="parameters.lam") -> Fraction:
    lam = num(v, field)
    if not LAM_RANGE[0] <= lam <= LAM_RANGE[1]:
        raise Rejected(f"{field}: lambda must lie in [1e-12, 1e12]")
    return lam


def _pos(v, field, hi=Fraction(10 ** 12)) -> Fraction:
    x = num(v, field)
    if not 0 < x <= hi:
        raise Rejected(f"{field}: expected a number in (0, {hi}]")
    return x


def _prec(cert) -> int:
    return integer(cert["precision_bits"], "certificate.precision_bits", 32, 4096)


def _point(v, field, n) -> list:
    s = vec(v, field, n)
    if any(abs(x) > MAX_COORD for x in s):
        raise Rejected(f"{field}: coordinates must lie in [-1e15, 1e15]")
    return s


def _w0(m) -> arb:
    return (ball(m) / arb.const_e()).lambertw()


def softmax_weights(s, lam) -> list:
    """Balls p_l = e^(-lambda (max s - s_l)) / Z for exact s (every exponent <= 0, Z >= 1)."""
    top = max(s)
    a = [(-ball(lam) * ball(top - x)).exp() for x in s]
    Z = sum(a, arb(0))
    return [x / Z for x in a]


def softmax_E(s, lam) -> arb:
    """Ball of E_lambda(s) = sum_l p_l (max s - s_l) for exact s."""
    top = max(s)
    return sum((p * ball(top - x) for p, x in zip(softmax_weights(s, lam), s)), arb(0))


def _beta(name, n) -> arb:
    return {"w0": lambda: _w0(n - 1), "w0_n_minus_2": lambda: _w0(n - 2), "ln_n": lambda: ball(n).log(),
            "n_minus_1_over_e": lambda: ball(n - 1) / arb.const_e()}[name]()


# -- the symbolic lemmas (SymPy, fixed expressions, Dummy symbols) ------------------------------------------
@functools.cache
def scalar_lemma() -> str:
    """max_{0 < A <= m} g(A), g(A) = A ln(m/A)/(1 + A), is attained at A = W0(m/e) with value W0(m/e), for
    every m > 0; plus the concavity used by the R2 reduction.  Checked facts: (a ln(1/a))'' < 0;
    g'(A)(1+A)^2 = h(A) := ln(m/A) - 1 - A; h' < 0; with m = W e^(W+1) (W > 0): h(W) = 0, g(W) = W,
    ln(m/W) > 0 (so W < m) and (W e^W)' > 0 (so W e^W = m/e gives W = W0(m/e)).  Hence g increases on
    (0, W], decreases on [W, m], and max g = g(W) = W."""
    import sympy

    A, W, m, a = (sympy.Dummy(x, positive=True) for x in "AWma")
    g, h = A * sympy.log(m / A) / (1 + A), sympy.log(m / A) - 1 - A
    mW = W * sympy.exp(W + 1)
    facts = [sympy.diff(a * sympy.log(1 / a), a, 2).is_negative,
             sympy.simplify(sympy.diff(g, A) * (1 + A) ** 2 - h) == 0,
             sympy.diff(h, A).is_negative,
             sympy.simplify(h.subs(m, mW).subs(A, W)) == 0,
             sympy.simplify(g.subs(m, mW).subs(A, W) - W) == 0,
             sympy.log(mW / W).is_positive,
             sympy.diff(W * sympy.exp(W), W).is_positive]
    if not all(f is True for f in facts):
        raise Rejected("kernel: the scalar lemma did not check (SymPy)")
    return "max_A A ln(m/A)/(1+A) = W0(m/e)"


@functools.cache
def gap_lemma() -> str:
    """The gap bound for rate 1.  With t_l = e^(lambda (s_l - s_l*)) in (0, q], q = e^(-lambda delta), for
    l != l*, and T = sum t_l <= (n-1) q: p_l = t_l/(1 + T), p_l* = 1/(1 + T).  Checked facts (t, T > 0,
    u >= 0): t/(1+t) - t/(1+t+u) = t u/((1+t)(1+t+u)) >= 0, so p_l <= t_l/(1+t_l); (t/(1+t))' = 1/(1+t)^2 > 0,
    so p_l <= q/(1+q); 1 - 1/(1+T) = T/(1+T) and T - T/(1+T) = T^2/(1+T) >= 0, so 1 - p_l* <= T <= (n-1) q.
    The value bound: sum p_l v_l - v_l* = sum_{l != l*} p_l (v_l - v_l*) (weights sum to 1), and the triangle
    inequality gives <= (1 - p_l*) max |v_l - v_l*|.  For r <= 1, e^(-r lambda delta) >= q and both bounds
    increase with q."""
    import sympy

    t, T = sympy.Dummy("t", positive=True), sympy.Dummy("T", positive=True)
    u = sympy.Dummy("u", nonnegative=True)
    rhs1, rhs2, rhs3 = t * u / ((1 + t) * (1 + t + u)), 1 / (1 + t) ** 2, T ** 2 / (1 + T)
    facts = [sympy.cancel(t / (1 + t) - t / (1 + t + u) - rhs1) == 0, rhs1.is_nonnegative,
             sympy.cancel(sympy.diff(t / (1 + t), t) - rhs2) == 0, rhs2.is_positive,
             sympy.cancel(1 - 1 / (1 + T) - T / (1 + T)) == 0,
             sympy.cancel(T - T / (1 + T) - rhs3) == 0, rhs3.is_nonnegative]
    if not all(f is True for f in facts):
        raise Rejected("kernel: the gap lemma did not check (SymPy)")
    return "gap lemma (rate 1)"


# -- T2: bounds ---------------------------------------------------------------------------------------------
def _read_bound(p):
    obj(p, "parameters", required=("n", "lam", "bound", "factor"))
    return (integer(p["n"], "parameters.n", 2, MAX_N), _lam(p["lam"]), string(p["bound"], "parameters.bound", BETAS),
            _pos(p["factor"], "parameters.factor"))


def _bound_text(parameters: dict) -> str:
    n, lam, beta, c = _read_bound(parameters)
    return (f"E_lambda(s) = max s - <softmax(lambda s), s> <= {_q(c)} * {BETAS[beta]} for all s in R^{n} "
            f"(n = {n}, lambda = {_q(lam)}), and sup_s E_lambda(s) = W0((n-1)/e)/lambda, approached to within "
            "1e-30 at a rational point near s* = ((1 + W0((n-1)/e))/lambda, 0, ..., 0)")


def bound_statement(parameters: dict, conventions: dict) -> str:
    return R.bound_statement(_bound_text(parameters), parameters, conventions)


def _witness_E(r, n, lam):
    cert = obj(r["certificate"], "certificate", required=("kind", "witness", "precision_bits"))
    return _point(cert["witness"], "certificate.witness", n), _prec(cert)


def _check_bound(r):
    n, lam, beta, c = _read_bound(r["parameters"])
    expect_statement(r, _bound_text(r["parameters"]))
    scalar_lemma()
    s, prec = _witness_E(r, n, lam)
    with workprec(prec):
        W = _w0(n - 1)
        if not ((beta == "w0" and c >= 1) or ball(c) * _beta(beta, n) > W):
            raise Rejected(f"the candidate {_q(c)} * {beta} is not certified >= W0((n-1)/e)")
        if not softmax_E(s, lam) > W / ball(lam) - ball(TOL):
            raise Rejected("certificate.witness: E_lambda is not certified within 1e-30 of W0((n-1)/e)/lambda")
    return f"E <= {_q(c)} {beta}/lambda (n = {n}, lambda = {_q(lam)}), sup approached at the witness"


def _check_bound_exceeded(r):
    n, lam, beta, c = _read_bound(r["parameters"])
    expect_statement(r, _bound_text(r["parameters"]))
    s, prec = _witness_E(r, n, lam)
    with workprec(prec):
        if not softmax_E(s, lam) > ball(c) * _beta(beta, n) / ball(lam):
            raise Rejected("certificate.witness: E_lambda(witness) is not certified above the candidate bound")
    return f"E_lambda(witness) > {_q(c)} {beta}/lambda (n = {n}, lambda = {_q(lam)})"


# -- T2: the scalar problem ---------------------------------------------------------------------------------
def _scalar_text(parameters: dict) -> str:
    obj(parameters, "parameters", required=("maximiser",))
    name = string(parameters["maximiser"], "parameters.maximiser", MAXIMISERS)
    return f"max over 0 < A <= m of A ln(m/A)/(1+A) is attained at A = {name} with value A, for every m > 0"


def scalar_statement(parameters: dict, conventions: dict) -> str:
    return R.bound_statement(_scalar_text(parameters), parameters, conventions)


def _check_scalar(r):
    expect_statement(r, _scalar_text(r["parameters"]))
    if r["parameters"]["maximiser"] != "W0(m/e)":
        raise Rejected("parameters.maximiser: only W0(m/e) is the maximiser")
    obj(r["certificate"], "certificate", required=("kind",))
    return scalar_lemma()


def _check_scalar_wrong(r):
    expect_statement(r, _scalar_text(r["parameters"]))
    cert = obj(r["certificate"], "certificate", required=("kind", "m", "precision_bits"))
    m = _pos(cert["m"], "certificate.m")
    with workprec(_prec(cert)):
        A = MAXIMISERS[r["parameters"]["maximiser"]](ball(m))
        h = (ball(m) / A).log() - 1 - A if A > 0 else arb(0)
        if not (A > 0 and (h > 0 or h < 0)):
            raise Rejected("certificate.m: h(A) = ln(m/A) - 1 - A is not certified non-zero at A > 0")
    return f"g'(A) != 0 at A = {r['parameters']['maximiser']}, m = {_q(m)}"


# -- T2: the two-token identity (expression trees in delta and X = e^(lambda delta)) ------------------------
_OPS = {"+": (2, 8), "*": (2, 8), "/": (2, 2), "neg": (1, 1), "pow": (2, 2)}


def _tree(t, field, budget):
    """Validate a tree: "delta" | "X" | exact number | [op, args...]; returns its degree bound."""
    budget[0] -= 1
    if budget[0] < 0 or budget[1] > 12:
        raise Rejected(f"{field}: expression too large (at most 64 nodes, depth 12)")
    if t in ("delta", "X"):
        return 1
    if not isinstance(t, list):
        x = num(t, field)
        if abs(x.numerator) > 10 ** 6 or x.denominator > 10 ** 6:
            raise Rejected(f"{field}: constants are limited to 1e6")
        return 0
    op = string(lst(t, field, 2, 9)[0], f"{field}[0]", _OPS)
    lo, hi = _OPS[op]
    lst(t, field, lo + 1, hi + 1)
    if op == "pow":
        k = integer(t[2], f"{field}[2]", -8, 8)
        budget[1] += 1
        d = abs(k) * _tree(t[1], f"{field}[1]", budget)
        budget[1] -= 1
    else:
        budget[1] += 1
        ds = [_tree(a, f"{field}[{i + 1}]", budget) for i, a in enumerate(t[1:])]
        budget[1] -= 1
        d = sum(ds)              # bounds the degrees of numerator and denominator after ``together``
    if d > 16:
        raise Rejected(f"{field}: degree bound over 16")
    return d


def render(t) -> str:
    if t == "X":
        return "exp(lam*delta)"
    if not isinstance(t, list):
        return str(t)
    op, args = t[0], [render(a) for a in t[1:]]
    if op == "neg":
        return f"-({args[0]})"
    if op == "pow":
        return f"({args[0]})^({t[2]})"
    return "(" + f" {op} ".join(args) + ")"


def _build(t, leaf):
    """Evaluate a validated tree with ``leaf(name_or_number)`` and the field operations."""
    if not isinstance(t, list):
        return leaf(t)
    op, args = t[0], t[1:]
    if op == "pow":
        return _build(args[0], leaf) ** int(num(args[1], "pow"))
    vals = [_build(a, leaf) for a in args]
    if op == "neg":
        return -vals[0]
    if op == "/":
        return vals[0] / vals[1]
    out = vals[0]
    for v in vals[1:]:
        out = out + v if op == "+" else out * v
    return out


def _two_token_text(parameters: dict) -> str:
    obj(parameters, "parameters", required=("formula",))
    _tree(parameters["formula"], "parameters.formula", [64, 0])
    return (f"n = 2: E_lambda(a, b) = {render(parameters['formula'])} with delta = |a - b|, for all real a, b and "
            "lambda > 0")


def two_token_statement(parameters: dict, conventions: dict) -> str:
    return R.bound_statement(_two_token_text(parameters), parameters, conventions)


def _check_two_token(r):
    import sympy

    expect_statement(r, _two_token_text(r["parameters"]))
    obj(r["certificate"], "certificate", required=("kind",))
    d, X, b = sympy.Dummy("delta"), sympy.Dummy("X"), sympy.Dummy("b")      # an identity of rational functions
    F = _build(r["parameters"]["formula"],
               lambda v: {"delta": d, "X": X}[v] if isinstance(v, str) and v in ("delta", "X") else
               sympy.Rational(num(v, "formula").numerator, num(v, "formula").denominator))
    for E in ((b + d) - ((b + d) * X + b) / (X + 1), (b + d) - (b + (b + d) * X) / (1 + X)):
        if sympy.cancel(sympy.together(E - F)) != 0:
            raise Rejected("parameters.formula: E - formula is not 0 as a rational function of delta, X")
    # a = b: E = 0, and the formula as written must be defined and 0 at delta = 0, X = 1
    if _build(r["parameters"]["formula"], lambda v: {"delta": Fraction(0), "X": Fraction(1)}.get(v) if v in (
            "delta", "X") else num(v, "formula")) != 0:
        raise Rejected("parameters.formula: not 0 at a = b")
    return "E(a, b) - formula cancels to 0 in both orderings and is 0 at a = b"


def _check_two_token_wrong(r):
    expect_statement(r, _two_token_text(r["parameters"]))
    cert = obj(r["certificate"], "certificate", required=("kind", "a", "b", "lam", "precision_bits"))
    a, b = (_point([cert[k]], f"certificate.{k}", 1)[0] for k in ("a", "b"))
    lam = _lam(cert["lam"], "certificate.lam")
    with workprec(_prec(cert)):
        delta = abs(a - b)
        X = (ball(lam) * ball(delta)).exp()
        F = _build(r["parameters"]["formula"],
                   lambda v: {"delta": ball(delta), "X": X}[v] if isinstance(v, str) and v in ("delta", "X")
                   else ball(num(v, "formula")))
        diff = softmax_E([a, b], lam) - F
        if not (diff > 0 or diff < 0):
            raise Rejected("certificate: E - formula is not certified non-zero at the witness")
    return f"E(a, b) != formula at a = {_q(a)}, b = {_q(b)}, lambda = {_q(lam)}"


# -- T2: the gap bound --------------------------------------------------------------------------------------
def _read_gap(p):
    obj(p, "parameters", required=("n", "lam", "delta", "rate"))
    return (integer(p["n"], "parameters.n", 2, MAX_N), _lam(p["lam"]), _pos(p["delta"], "parameters.delta"),
            _pos(p["rate"], "parameters.rate", Fraction(10 ** 6)))


def gap_statement(parameters: dict, conventions: dict) -> str:
    return R.bound_statement(_gap_text(parameters), parameters, conventions)


def _gap_text(parameters: dict) -> str:
    n, lam, delta, r = _read_gap(parameters)
    return (f"gap bound (n = {n}, lambda = {_q(lam)}, delta = {_q(delta)}, rate r = {_q(r)}): for every s in "
                  "R^n with a unique maximiser l* and s_l* - s_l >= delta for l != l*, and all v_l in R^d, "
                  "p = softmax(lambda s) satisfies p_l <= e^(-r lambda delta)/(1+e^(-r lambda delta)) (l != l*), "
                  "1 - p_l* <= (n-1) e^(-r lambda delta) and |sum_l p_l v_l - v_l*|_inf <= (n-1) "
                  "e^(-r lambda delta) max_l |v_l - v_l*|_inf")


def _check_gap(r):
    n, lam, delta, rate = _read_gap(r["parameters"])
    expect_statement(r, _gap_text(r["parameters"]))
    obj(r["certificate"], "certificate", required=("kind",))
    if rate > 1:
        raise Rejected("parameters.rate: the gap lemma covers rate r <= 1 only")
    return gap_lemma() + f", applied with r = {_q(rate)} <= 1"


def _check_gap_exceeded(r):
    n, lam, delta, rate = _read_gap(r["parameters"])
    expect_statement(r, _gap_text(r["parameters"]))
    cert = obj(r["certificate"], "certificate", required=("kind", "witness", "precision_bits"))
    s = _point(cert["witness"], "certificate.witness", n)
    top = max(range(n), key=lambda i: s[i])
    if any(i != top and s[top] - s[i] < delta for i in range(n)):
        raise Rejected("certificate.witness: the maximiser is not unique with gap >= delta")
    with workprec(_prec(cert)):
        p = softmax_weights(s, lam)
        q = (-ball(rate) * ball(lam) * ball(delta)).exp()
        # (1 - p_l* = sum of the other p_l, so a violation of 1 - p_l* <= (n-1) q implies one of p_l <= q/(1+q))
        if not any(p[i] > q / (1 + q) for i in range(n) if i != top):
            raise Rejected("certificate.witness: p_l <= e^(-r lambda delta)/(1+e^(-r lambda delta)) is not certified "
                           "violated")
    return f"gap bound with rate {_q(rate)} violated at the witness"


# -- T7: the R4 Transformer, its softmax evaluation in balls, and the lemma R5 hypotheses ---------------------
def r4_compile(net, S):
    """The R4 compilation (docs/paper1.md R4) of a network read by ``_cells.read_maxout``, in the parsed format of
    ``_cells.read_transformer``: coordinates [h | z | p | one], E = 2 Nbar + k + 1, token j embedded as
    (x ; 0 ; e_j ; 1); FFN_l: for unit i, piece j, sign sg the row sg(w.h) + S p_j + (sg b - S) one with
    output coefficient sg into z_i, then rows +-e_c (c in h, z) with coefficient -+1 into c; Attn_l: head i
    with W_Q = e_one, W_K = W_V = e_(z_i), W_O = e_(h_i); output: read-out (identity if none) of the h-block
    of token 0."""
    layers, k, d = net["layers"], net["rank"], net["input_dim"]
    nb = max([d] + net["widths"])
    E, Z, P, ONE = 2 * nb + k + 1, nb, 2 * nb, 2 * nb + k
    if sum((2 * k * N + 4 * nb) * E for N in net["widths"]) > MAX_R4:
        raise Rejected("parameters.net: its R4 compilation exceeds the kernel's size bound")
    e = lambda i: [Fraction(int(c == i)) for c in range(E)]
    zero = lambda r, c: [[Fraction(0)] * c for _ in range(r)]
    subs = []
    for W, b in layers:
        W1, cols = [], []
        for i, (u, bu) in enumerate(zip(W, b)):
            for j, (w, bj) in enumerate(zip(u, bu)):
                for sg in (1, -1):
                    row = [sg * c for c in w] + [Fraction(0)] * (E - len(w))
                    row[P + j], row[ONE] = Fraction(S), sg * bj - S
                    W1.append(row)
                    cols.append((Z + i, sg))
        for c in range(2 * nb):
            for sg in (1, -1):
                W1.append([sg * x for x in e(c)])
                cols.append((c, -sg))
        W2 = zero(E, len(W1))
        for col, (target, coef) in enumerate(cols):
            W2[target][col] = Fraction(coef)
        subs.append(("ffn", {"W1": W1, "b1": [Fraction(0)] * len(W1), "W2": W2, "b2": [Fraction(0)] * E}))
        subs.append(("attention", [{"W_Q": [e(ONE)], "W_K": [e(Z + i)], "W_V": [e(Z + i)],
                                    "W_O": [[Fraction(int(c == i))] for c in range(E)]} for i in range(len(W))]))
    one = zero(E, k)
    for j in range(k):
        one[P + j][j] = one[ONE][j] = Fraction(1)
    xs = [zero(E, k) for _ in range(d)]
    for i in range(d):
        xs[i][i] = [Fraction(1)] * k
    NL = net["widths"][-1]
    rW, rb = net["readout"] or ([e(i)[:NL] for i in range(NL)], [Fraction(0)] * NL)
    read_W = [list(row) + [Fraction(0)] * (E - NL) for row in rW]
    return {"n": k, "E": E, "embed_one": one, "embed_x": xs, "sublayers": subs, "read_token": 0,
            "read_W": read_W, "read_b": list(rb)}


def _is_r4(T, want) -> bool:
    """Exact equality of every weight, the embedding and the read-out with the R4 compilation ``want``."""
    keys = ("n", "E", "embed_one", "embed_x", "read_token", "read_W", "read_b")
    if any(T[k] != want[k] for k in keys) or len(T["sublayers"]) != len(want["sublayers"]):
        return False
    for (kind, got), (wkind, ref) in zip(T["sublayers"], want["sublayers"]):
        tick()
        if kind != wkind:
            return False
        if kind == "ffn" and any(got[m] != ref[m] for m in ref):
            return False
        if kind == "attention" and (len(got) != len(ref) or any(g[m] != h[m] for g, h in zip(got, ref) for m in h)):
            return False
    return True


def _prepare(T):
    """The weights of a parsed Transformer as balls (sparse rows), converted once per precision."""
    rows = lambda M: [[(i, ball(c)) for i, c in r] for r in M]
    vec_ = lambda v: [ball(c) for c in v]
    subs = [(kind, {"W1": rows(sub["sW1"]), "b1": vec_(sub["b1"]), "W2": rows(sub["sW2"]), "b2": vec_(sub["b2"])}
             if kind == "ffn" else [{m: rows(h["s" + m]) for m in ("W_Q", "W_K", "W_V", "W_O")} for h in sub])
            for kind, sub in T["sublayers"]]
    return subs, rows(T["s_read_W"]), vec_(T["read_b"])


def _forward(T, P, x, lam) -> list:
    """The softmax Transformer at x in balls (``P = _prepare(T)``): X = one + sum_i x_i embed_x[i]; residual FFN
    x + W2 ReLU(W1 x + b1) + b2; residual attention x_j + sum_heads W_O sum_l p_jl W_V x_l, p_j =
    softmax(lambda <W_K x_l, W_Q x_j>), each p_jl = 1/sum_m exp(lambda (s_m - s_l)); output W X[:, token] + b."""
    dot = lambda row, v: sum((c * v[i] for i, c in row), arb(0))
    E, n = T["E"], T["n"]
    X = [[ball(T["embed_one"][e][j] + sum(xi * M[e][j] for xi, M in zip(x, T["embed_x"]))) for e in range(E)]
         for j in range(n)]
    lam = ball(lam)
    subs, read_W, read_b = P
    for kind, sub in subs:
        tick()
        if kind == "ffn":
            acts = [[(dot(r, v) + b).max(arb(0)) for r, b in zip(sub["W1"], sub["b1"])] for v in X]
            X = [[v[e] + dot(sub["W2"][e], a) + sub["b2"][e] for e in range(E)] for v, a in zip(X, acts)]
            continue
        new = [list(v) for v in X]
        for h in sub:
            ks = [[dot(r, v) for r in h["W_K"]] for v in X]
            vs = [[dot(r, v) for r in h["W_V"]] for v in X]
            for j, v in enumerate(X):
                q = [dot(r, v) for r in h["W_Q"]]
                sc = [sum(a * b for a, b in zip(kl, q)) for kl in ks]
                w = [1 / sum(((lam * (sm - sl)).exp() for sm in sc), arb(0)) for sl in sc]
                avg = [sum((wl * vl[c] for wl, vl in zip(w, vs)), arb(0)) for c in range(len(h["W_V"]))]
                for e in range(E):
                    new[j][e] += dot(h["W_O"][e], avg)
        X = new
    return [dot(row, X[T["read_token"]]) + b for row, b in zip(read_W, read_b)]


def _phi(net, x) -> list:
    for W, b in net["layers"]:
        x = [max(sum((c * xi for c, xi in zip(w, x)), bj) for w, bj in zip(u, bu)) for u, bu in zip(W, b)]
    if net["readout"] is None:
        return x
    return [sum((c * xi for c, xi in zip(row, x)), bo) for row, bo in zip(*net["readout"])]


def _read_emulation(p):
    obj(p, "parameters", required=("net", "box", "S", "factor", "transformer"), optional=("instances", "lam"))
    if ("instances" in p) == ("lam" in p):
        raise Rejected("parameters: expected exactly one of instances (per-point kind) and lam (refutation)")
    net = _cells.read_maxout(p["net"], "parameters.net")
    d = net["input_dim"]
    box = []
    for i, iv in enumerate(lst(p["box"], "parameters.box", d, d)):
        lo, hi = _point(iv, f"parameters.box[{i}]", 2)
        if not lo <= hi:
            raise Rejected(f"parameters.box[{i}]: expected lo <= hi")
        box.append((lo, hi))
    S, c = _pos(p["S"], "parameters.S"), _pos(p["factor"], "parameters.factor")
    T = _cells.read_transformer(p["transformer"], "parameters.transformer")
    return net, box, S, c, T, _is_r4(T, r4_compile(net, S))


def _lips(net):
    return [max(sum(abs(x) for x in w) for u in W for w in u) for W, _ in net["layers"]]


def _lip_sum(net):
    """R sum_l prod_(m>l) Lip_m, R = |W_out|_inf (1 without a read-out)."""
    lips, total = _lips(net), Fraction(0)
    for l in range(len(lips)):
        prod = Fraction(1)
        for m in lips[l + 1:]:
            prod *= m
        total += prod
    R = Fraction(1) if net["readout"] is None else max(sum(abs(x) for x in row) for row in net["readout"][0])
    return R * total


def _emulation_text(parameters: dict, parsed=None) -> str:
    p = parameters
    net, box, S, c, T, r4 = parsed or _read_emulation(p)
    head = (f"for the softmax(lambda score) Transformer T_lambda with the recorded weights (sha256:"
            f"{_cells.transformer_digest(p['transformer'])[:16]}), which {'are' if r4 else 'are NOT'} the R4 "
            f"compilation with S = {_q(S)} of the maxout network Phi (d = {net['input_dim']}, k = {net['rank']}, "
            f"L = {len(net['layers'])}), on K = {[[_q(a), _q(b)] for a, b in box]}, with B(lambda) = "
            f"{_q(_lip_sum(net))} * W0({net['rank'] - 1}/e)/lambda (= R (W0((k-1)/e)/lambda) sum_l prod_(m>l) Lip_m)")
    if "lam" in p:
        return f"{head}: sup_K |T_lambda - Phi|_inf <= {_q(c)} * B(lambda) for lambda = {_q(_lam(p['lam']))}"
    insts = [obj(i, f"parameters.instances[{n}]", required=("lam", "points"))
             for n, i in enumerate(lst(p["instances"], "parameters.instances", 1, 16))]
    sizes = ", ".join(f"{len(lst(i['points'], 'points', 1, 20000))} points at lambda = {_q(_lam(i['lam'], 'lam'))}"
                      for i in insts)
    return (f"{head}: |T_lambda(x) - Phi(x)|_inf < {_q(c)} * B(lambda) at each recorded point x of K ({sizes}), "
            "certified; the hypotheses of lemma R5 (the R4 weights; S >= sup_K |pieces_l| + Lip_l e_(l-1)) hold "
            "exactly, so by lemma R5 [DERIVED, a paper proof] sup_K |T_lambda - Phi|_inf <= B(lambda) at each of "
            "these lambda")


def emulation_statement(parameters: dict, conventions: dict) -> str:
    """The T7 statement: with ``instances`` the per-point claim (and the lemma's sup), with ``lam`` the sup."""
    return R.bound_statement(_emulation_text(parameters), parameters, conventions)


def _work(T, net, prec, points):
    """Reject inputs whose evaluations exceed MAX_WORK: points x (operations of Phi(x) and T_lambda(x)) x
    max(1, prec/256)."""
    n, cost = T["n"], sum(len(w) + 1 for W, _ in net["layers"] for u in W for w in u)
    for kind, sub in T["sublayers"]:
        if kind == "ffn":
            cost += n * sum(len(r) for r in sub["sW1"] + sub["sW2"])
        else:
            cost += sum(n * sum(len(r) for m in ("sW_Q", "sW_K", "sW_V", "sW_O") for r in h[m])
                        + n * n * (len(h["sW_V"]) + 2) for h in sub)
    if points * cost * max(1, prec // 256) > MAX_WORK:
        raise Rejected("parameters: too many points x weights for the work bound of the kernel")


def _errors(T, P, net, x, lam):
    return [abs(t - ball(f)) for t, f in zip(_forward(T, P, x, lam), _phi(net, x))]


def _in_box(x, box, field):
    if not all(lo <= v <= hi for v, (lo, hi) in zip(x, box)):
        raise Rejected(f"{field}: not a point of K")


def _hypotheses(net, box, S, lams):
    """Lemma R5 at every lambda: S >= sup_K |pieces_l| (exact interval propagation) + Lip_l ebar_(l-1), with
    ebar_0 = 0 and ebar_l = Lip_l ebar_(l-1) + wbar/lambda, wbar a rational upper bound of W0((k-1)/e)."""
    with workprec(128):
        wbar = bounds(_w0(net["rank"] - 1))[1]
    enc, sups = list(box), []
    for W, b in net["layers"]:
        tick()
        pieces = [[(bj + sum(min(w * lo, w * hi) for w, (lo, hi) in zip(wv, enc)),
                    bj + sum(max(w * lo, w * hi) for w, (lo, hi) in zip(wv, enc))) for wv, bj in zip(u, bu)]
                  for u, bu in zip(W, b)]
        sups.append(max(max(-lo, hi) for u in pieces for lo, hi in u))
        enc = [(max(lo for lo, _ in u), max(hi for _, hi in u)) for u in pieces]
    for lam in lams:
        ebar = Fraction(0)
        for sup, lip in zip(sups, _lips(net)):
            if S < sup + lip * ebar:
                raise Rejected(f"parameters.S: the lemma R5 hypothesis S >= sup|pieces| + Lip e fails at "
                               f"lambda = {_q(lam)}")
            ebar = lip * ebar + wbar / lam


def _check_emulation(r):
    p = r["parameters"]
    parsed = net, box, S, c, T, r4 = _read_emulation(p)
    expect_statement(r, _emulation_text(p, parsed))
    if "instances" not in p or not r4 or c < 1:
        raise Rejected("parameters: the per-point kind needs instances, the R4 weights and factor >= 1 (lemma R5)")
    prec = _prec(obj(r["certificate"], "certificate", required=("kind", "precision_bits")))
    insts = p["instances"]
    _work(T, net, prec, sum(len(i["points"]) for i in insts))
    lams = [_lam(inst["lam"], f"parameters.instances[{n}].lam") for n, inst in enumerate(insts)]
    _hypotheses(net, box, S, lams)
    count = 0
    for n, (inst, lam) in enumerate(zip(insts, lams)):
        seen = set()
        with workprec(prec):
            B, P = ball(c * _lip_sum(net)) * _w0(net["rank"] - 1) / ball(lam), _prepare(T)
            for j, x in enumerate(inst["points"]):
                f = f"parameters.instances[{n}].points[{j}]"
                x = tuple(_point(x, f, net["input_dim"]))
                _in_box(x, box, f)
                if x in seen:
                    raise Rejected(f"{f}: duplicate point")
                seen.add(x)
                if not all(e < B for e in _errors(T, P, net, x, lam)):
                    raise Rejected(f"{f}: the error is not certified below {_q(c)} * B(lambda)")
                count += 1
    return f"{count} points certified below {_q(c)} B(lambda); lemma R5 hypotheses hold (S = {_q(S)})"


def _check_emulation_exceeded(r):
    p = r["parameters"]
    parsed = net, box, S, c, T, r4 = _read_emulation(p)
    expect_statement(r, _emulation_text(p, parsed))
    if "lam" not in p:
        raise Rejected("parameters: a refutation names one lambda")
    cert = obj(r["certificate"], "certificate", required=("kind", "witness", "precision_bits"))
    x = _point(cert["witness"], "certificate.witness", net["input_dim"])
    _in_box(x, box, "certificate.witness")
    _work(T, net, _prec(cert), 1)
    lam = _lam(p["lam"])
    with workprec(_prec(cert)):
        B = ball(c * _lip_sum(net)) * _w0(net["rank"] - 1) / ball(lam)
        if not any(e > B for e in _errors(T, _prepare(T), net, x, lam)):
            raise Rejected("certificate.witness: the error is not certified above the candidate bound")
    return f"error above {_q(c)} B(lambda) at x = {[_q(v) for v in x]}, lambda = {_q(lam)}"


_C, _E = frozenset({"certified"}), frozenset({"exact"})
KINDS = {
    "softmax-bound": Kind(frozenset({"T2"}), "proved", _C, _check_bound),
    "softmax-bound-exceeded": Kind(frozenset({"T2"}), "refuted", _C, _check_bound_exceeded),
    "scalar-maximiser": Kind(frozenset({"T2"}), "proved", _E, _check_scalar),
    "scalar-maximiser-wrong": Kind(frozenset({"T2"}), "refuted", _C, _check_scalar_wrong),
    "two-token-identity": Kind(frozenset({"T2"}), "proved", _E, _check_two_token),
    "two-token-identity-wrong": Kind(frozenset({"T2"}), "refuted", _C, _check_two_token_wrong),
    "softmax-gap-lemma": Kind(frozenset({"T2"}), "proved", _E, _check_gap),
    "softmax-gap-exceeded": Kind(frozenset({"T2"}), "refuted", _C, _check_gap_exceeded),
    "softmax-emulation-points": Kind(frozenset({"T7"}), "proved", _C, _check_emulation),
    "softmax-emulation-exceeded": Kind(frozenset({"T7"}), "refuted", _C, _check_emulation_exceeded),
}
