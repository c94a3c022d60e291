"""N2: attention is a CGF gradient, Γ_{(Q,K,V)}[μ](x) = V ∇Λ_μ(KᵀQx) (docs/paper2.md §3).

For a discrete law μ = Σ_j w_j δ_{x_j} both sides are explicit in the exponentials
E_j = exp(⟨Qx, Kx_j⟩).  The proof is exact: every exponent is expanded to a polynomial, so
that ⟨Qx, Kx_j⟩ and ⟨KᵀQx, x_j⟩ become the *same* polynomial, every distinct exp(·) is replaced
by a fresh symbol, and the difference of the two sides is a rational function of the symbols
that ``sympy.cancel`` reduces to 0.  An identity of rational functions in free symbols stays an
identity after substituting the (positive) exponentials, so this is a proof for all real Q, K,
V, x.  The same method checks the derivative table of docs/paper2.md §3 against ``sympy.jacobian``.

The negative control N2.n puts QᵀK in place of KᵀQ: at an exact rational witness the two sides
are enclosed in arb balls and a component of the difference is certified non-zero (REFUTED).

>>> check_attention_identity(key_dim=1).verdict.value
'proved'
>>> check_attention_identity(key_dim=2, transpose=True).verdict.value
'refuted'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import sympy
from flint import arb

from ..arith.ball import LADDER, ball_bounds, decide_with_ladder, sign, to_ball
from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact, plain
from ..decide.symbolic import exp_free_zero
from ..kernel import symbolic as _kernel
from ..errors import InputError, InputTypeError
from ..laws.cgf import discrete_cgf_sympy, discrete_tilt_sympy
from ..laws.oracle_families import BETA_ATOMS
from ..results import Method, Result, Verdict

__all__ = [
    "attention_sympy", "cgf_gradient_sympy",
    "check_attention_identity", "check_derivative_table", "check_continuous_attention",
]

STATEMENT = "Gamma_(Q,K,V)[mu](x) = V grad Lambda_mu(K^T Q x) for all real Q, K in R^{k x 2}, V, x"
TABLE_STATEMENT = ("derivative table of docs/paper2.md §3: d_V, d_A, d_Q, d_K of <p, Gamma>, query and context Jacobians, "
                   "Hessian of Lambda = tilted covariance")
MAX_KEY_DIM = 3


def _rat(q) -> sympy.Rational:
    q = Fraction(q)
    return sympy.Rational(q.numerator, q.denominator)


def _matrix_symbols(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i + 1}{j + 1}", real=True))


def _vector_symbols(name: str, n: int) -> sympy.Matrix:
    return sympy.Matrix(n, 1, lambda i, _: sympy.Symbol(f"{name}{i + 1}", real=True))


def attention_sympy(Q, K, V, x, atoms, weights) -> sympy.Matrix:
    """Γ = Σ_j w_j e^{⟨Qx, Kx_j⟩} V x_j / Σ_j w_j e^{⟨Qx, Kx_j⟩} (SymPy column vector)."""
    qx = Q * x
    num = sympy.zeros(V.shape[0], 1)
    den = sympy.Integer(0)
    for xj, wj in zip(atoms, weights):
        e = wj * sympy.exp(sympy.expand((qx.T * (K * xj))[0, 0]))
        num += e * (V * xj)
        den += e
    return num / den


def cgf_gradient_sympy(theta: sympy.Matrix, atoms, weights) -> sympy.Matrix:
    """∇Λ_μ(θ) obtained by differentiating Λ_μ(θ) = log Σ_j w_j e^{⟨θ, x_j⟩} (SymPy)."""
    t = [sympy.Dummy(f"t{i}", real=True) for i in range(theta.shape[0])]
    lam = discrete_cgf_sympy(t, [list(xj) for xj in atoms], weights)
    grad = sympy.Matrix([sympy.diff(lam, ti) for ti in t])
    return grad.subs(dict(zip(t, list(theta))), simultaneous=True)


def _tilted(theta: sympy.Matrix, atoms, weights):
    """Attention weights p_j, tilted mean m̄ and tilted covariance H at θ (the law table's formulas, not
    derivatives), m̄ and H as SymPy matrices."""
    p, m, H = discrete_tilt_sympy(theta, atoms, weights)
    return p, sympy.Matrix(m), sympy.Matrix(H)


def _parse_atoms(atoms, weights):
    atoms = plain(atoms)
    if not isinstance(atoms, (list, tuple)) or len(atoms) < 1:
        raise InputTypeError("atoms", "expected a non-empty list of 2-D points")
    if len(atoms) > 4:
        raise InputError("atoms", f"at most 4 atoms (the kernel's bound on the symbolic cost), got {len(atoms)}")
    pts = []
    for i, a in enumerate(atoms):
        if not isinstance(a, (list, tuple)) or len(a) != 2:
            raise InputError(f"atoms[{i}]", "must be a point of dimension 2")
        pts.append(tuple(parse_exact(v, f"atoms[{i}]") for v in a))
    if weights is None:
        ws = [Fraction(1, len(pts))] * len(pts)
    else:
        if len(weights) != len(pts):
            raise InputError("weights", f"expected {len(pts)} weights, got {len(weights)}")
        ws = [parse_exact(w, f"weights[{i}]") for i, w in enumerate(weights)]
        for i, w in enumerate(ws):
            if w <= 0:
                raise InputError(f"weights[{i}]", f"must be > 0, got {fraction_str(w)}")
        if sum(ws) != 1:
            raise InputError("weights", f"must sum to 1, got {fraction_str(sum(ws))}")
    return pts, ws


def _witness_values(Q, K, V, x, atoms, weights, transpose):
    """Both sides at exact rational data, as arb vectors (current precision)."""
    def mat(M):
        return [[to_ball(v) for v in row] for row in M]

    Qb, Kb, Vb = mat(Q), mat(K), mat(V)
    xb = [to_ball(v) for v in x]
    k, d = len(Q), len(Q[0])
    qx = [sum((Qb[i][j] * xb[j] for j in range(d)), arb(0)) for i in range(k)]
    # left side: scores <Qx, K x_j>
    scores = []
    for xj in atoms:
        kx = [sum((Kb[i][c] * to_ball(xj[c]) for c in range(d)), arb(0)) for i in range(k)]
        scores.append(sum((qx[i] * kx[i] for i in range(k)), arb(0)))
    # right side: theta = A x, A = K^T Q (or the wrong Q^T K)
    if transpose:
        A = [[sum((Qb[i][r] * Kb[i][c] for i in range(k)), arb(0)) for c in range(d)] for r in range(d)]
    else:
        A = [[sum((Kb[i][r] * Qb[i][c] for i in range(k)), arb(0)) for c in range(d)] for r in range(d)]
    theta = [sum((A[r][c] * xb[c] for c in range(d)), arb(0)) for r in range(d)]
    rscores = [sum((theta[c] * to_ball(xj[c]) for c in range(d)), arb(0)) for xj in atoms]

    def mean(sc):
        es = [to_ball(w) * s.exp() for s, w in zip(sc, weights)]
        z = sum(es, arb(0))
        return [sum((e * to_ball(xj[c]) for e, xj in zip(es, atoms)), arb(0)) / z for c in range(d)]

    ml, mr = mean(scores), mean(rscores)
    lhs = [sum((Vb[r][c] * ml[c] for c in range(d)), arb(0)) for r in range(d)]
    rhs = [sum((Vb[r][c] * mr[c] for c in range(d)), arb(0)) for r in range(d)]
    return lhs, rhs


# rational witness configurations for the transposed (wrong) identity, tried in order
_WITNESSES = {
    1: (((1, 2),), ((1, -1),), ((1, 0), (0, 1)), (1, 0)),
    2: (((1, 1), (0, 1)), ((1, 0), (0, 1)), ((1, 0), (0, 1)), (1, 0)),
    3: (((1, 1), (0, 1), (1, 0)), ((1, 0), (0, 1), (0, 0)), ((1, 0), (0, 1)), (1, 0)),
}


def check_attention_identity(key_dim: int = 2, atoms=BETA_ATOMS, weights=None, transpose: bool = False,
                             ladder=LADDER) -> Result:
    """PROVED if Γ = V∇Λ_μ(KᵀQx) is a symbolic identity for symbolic Q, K (key_dim x 2), V, x.

    With ``transpose=True`` the right side uses QᵀK (the N2.n mistake): REFUTED when an exact rational
    witness gives a certified non-zero difference (arb, precision ladder), else INCONCLUSIVE.
    """
    if not isinstance(key_dim, int) or isinstance(key_dim, bool) or not 1 <= key_dim <= MAX_KEY_DIM:
        raise InputError("key_dim", f"must be an integer in [1, {MAX_KEY_DIM}], got {key_dim!r}")
    pts, ws = _parse_atoms(atoms, weights)
    claim = "N2.n" if transpose else "N2"
    params = {"key_dim": key_dim, "atoms": [list(p) for p in pts], "weights": ws, "transpose": transpose}
    conv = {} if transpose else {"parametrisation": "(Q, K, V), A = K^T Q"}
    statement = _kernel.statement("attention-witness" if transpose else "attention-identity", jsonable(params),
                                  jsonable(conv))
    Q = _matrix_symbols("Q", key_dim, 2)
    K = _matrix_symbols("K", key_dim, 2)
    V = _matrix_symbols("V", 2, 2)
    x = _vector_symbols("x", 2)
    satoms = [sympy.Matrix([_rat(a) for a in p]) for p in pts]
    sws = [_rat(w) for w in ws]
    lhs = attention_sympy(Q, K, V, x, satoms, sws)
    A = (Q.T * K) if transpose else (K.T * Q)
    rhs = V * cgf_gradient_sympy(A * x, satoms, sws)
    zero = exp_free_zero(lhs - rhs)
    ev = {"method": "exponents expanded to polynomials, exp(.) -> free symbols, sympy.cancel",
          "symbolic_difference_zero": zero}
    if zero and not transpose:
        cert = {"kind": "attention-identity", "summary": "Gamma - V grad Lambda(K^T Q x) cancels to the zero vector"}
        return Result(claim, statement, Verdict.PROVED, Method.EXACT, certificate=cert, parameters=params,
                      conventions=conv, evidence=ev)
    if zero or not transpose:       # the wrong order proved an identity (symmetric case) or the right one not shown
        cert = {"summary": "symbolic difference " + ("cancelled for the wrong order (no kernel kind proves that)"
                                                     if zero else "did not cancel (not a disproof)")}
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EXACT, certificate=cert, parameters=params,
                      conventions=conv, evidence=ev)
    Qw, Kw, Vw, xw = _WITNESSES[key_dim]
    Qw = [[Fraction(v) for v in r] for r in Qw]
    Kw = [[Fraction(v) for v in r] for r in Kw]
    Vw = [[Fraction(v) for v in r] for r in Vw]
    xw = [Fraction(v) for v in xw]

    def attempt(prec):
        lhs_b, rhs_b = _witness_values(Qw, Kw, Vw, xw, pts, ws, True)
        diffs = [a - b for a, b in zip(lhs_b, rhs_b)]
        for i, dlt in enumerate(diffs):
            if sign(dlt) in (1, -1):
                return Verdict.REFUTED, {"component": i, "difference": ball_bounds(dlt),
                                         "lhs": [ball_bounds(v) for v in lhs_b], "rhs": [ball_bounds(v) for v in rhs_b]}
        return None, {"differences": [ball_bounds(v) for v in diffs]}

    out = decide_with_ladder(attempt, ladder)
    ev.update({"precision_bits": out.precision, "ladder": list(out.attempts), "enclosures": out.info})
    cert = {"kind": "attention-witness", "witness": {"Q": Qw, "K": Kw, "V": Vw, "x": xw}}
    if out.verdict is Verdict.REFUTED:
        cert["summary"] = "with Q^T K in place of K^T Q, Gamma - V grad Lambda is certified non-zero at the witness"
        return Result(claim, statement, Verdict.REFUTED, Method.CERTIFIED, certificate=cert, parameters=params,
                      evidence=ev)
    cert = {"summary": "difference not certified non-zero at the witness", "witness": cert["witness"]}
    return Result(claim, statement, Verdict.INCONCLUSIVE, Method.CERTIFIED, certificate=cert, parameters=params,
                  evidence=ev)


def check_derivative_table(key_dim: int = 1, weights=None) -> Result:
    """PROVED if every entry of the derivative table of docs/paper2.md §3 equals ``sympy.jacobian`` / ``diff``.

    Context: 3 atoms with *symbolic* positions (for the context Jacobian) and fixed rational weights;
    symbolic Q, K (key_dim x 2), V, query z and dual vector p.  Entries checked:
    ∇²Λ = tilted covariance; ∂_V⟨p,Γ⟩ = p m̄ᵀ; ∂_A⟨p,Γ⟩ = H Vᵀ p zᵀ; ∂_Q⟨p,Γ⟩ = K H Vᵀ p zᵀ;
    ∂_K⟨p,Γ⟩ = Q z pᵀ V H; ∂_zΓ = V H A; ∂Γ/∂x_k = V p_k [I + (x_k − m̄)ϑᵀ].
    """
    if not isinstance(key_dim, int) or isinstance(key_dim, bool) or not 1 <= key_dim <= MAX_KEY_DIM:
        raise InputError("key_dim", f"must be an integer in [1, {MAX_KEY_DIM}], got {key_dim!r}")
    if weights is None:
        ws = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    else:
        if not isinstance(weights, (list, tuple)) or not 2 <= len(weights) <= 3:
            raise InputError("weights", "expected 2 or 3 weights (one per symbolic atom)")
        _, ws = _parse_atoms([(0, k) for k in range(len(weights))], weights)
    n = len(ws)
    sws = [_rat(w) for w in ws]
    d = 2
    X = [_vector_symbols(f"y{j + 1}_", d) for j in range(n)]
    Q = _matrix_symbols("Q", key_dim, d)
    K = _matrix_symbols("K", key_dim, d)
    A = _matrix_symbols("A", d, d)
    V = _matrix_symbols("V", d, d)
    z = _vector_symbols("z", d)
    p = _vector_symbols("p", d)
    results = {}

    # Hessian of Lambda = tilted covariance
    t = _vector_symbols("t", d)
    lam = discrete_cgf_sympy(list(t), [list(xj) for xj in X], sws)
    hess = sympy.hessian(lam, list(t))
    _, _, Ht = _tilted(t, X, sws)
    results["hessian_equals_tilted_covariance"] = exp_free_zero(hess - Ht)

    theta = A * z
    pk, m, H = _tilted(theta, X, sws)
    gamma_A = V * m                         # Gamma as a function of (A, V, z, context)
    f_A = (p.T * gamma_A)[0, 0]
    results["d_V"] = exp_free_zero(sympy.Matrix(d, d, lambda i, j: sympy.diff(f_A, V[i, j])) - p * m.T)
    results["d_A"] = exp_free_zero(sympy.Matrix(d, d, lambda i, j: sympy.diff(f_A, A[i, j])) - H * V.T * p * z.T)
    results["query_jacobian"] = exp_free_zero(gamma_A.jacobian(z) - V * H * A)
    ctx = True
    for k in range(n):
        formula = V * pk[k] * (sympy.eye(d) + (X[k] - m) * theta.T)
        ctx = ctx and exp_free_zero(gamma_A.jacobian(X[k]) - formula)
    results["context_jacobian"] = ctx

    # (Q, K, V) parametrisation
    AQK = K.T * Q
    _, mq, Hq = _tilted(AQK * z, X, sws)
    f_Q = (p.T * V * mq)[0, 0]
    results["d_Q"] = exp_free_zero(sympy.Matrix(key_dim, d, lambda i, j: sympy.diff(f_Q, Q[i, j]))
                                   - K * Hq * V.T * p * z.T)
    results["d_K"] = exp_free_zero(sympy.Matrix(key_dim, d, lambda i, j: sympy.diff(f_Q, K[i, j]))
                                   - Q * z * p.T * V * Hq)
    ok = all(results.values())
    failed = [k for k, v in results.items() if not v]
    cert = {"summary": ("every entry of the derivative table cancels exactly against SymPy derivatives" if ok else
                        f"entries not shown equal: {', '.join(failed)}")}
    if ok:
        cert["kind"] = "attention-table"
    params = {"key_dim": key_dim, "weights": ws}
    conv = {"parametrisation": "(Q, K, V), A = K^T Q", "dual vector": "p"}
    return Result("N2", _kernel.statement("attention-table", jsonable(params), jsonable(conv)),
                  Verdict.PROVED if ok else Verdict.INCONCLUSIVE, Method.EXACT,
                  certificate=cert, parameters=params, conventions=conv, evidence={"entries": results})


def check_continuous_attention(dps: int = 40) -> Result:
    """Evidence: Γ by direct quadrature equals V∇Λ_μ(Ax) for a cube, a Laplace law and a mixture (d = 2).

    Quadratures (mpmath): the cube and the mixture (direction e_1, diagonal Σ) factor over coordinates, so
    the tilted mean is a ratio of 1-D integrals; the Laplace law uses Y = m + √W Z with the 1-D integral over
    W ~ Exp(1) of E[Y e^{⟨ϑ,Y⟩} | W].  The closed forms are those of docs/paper2.md §6.  Always INCONCLUSIVE
    (evidence), with ``criterion_met`` = max relative discrepancy <= 10^-(dps-10).
    """
    import mpmath

    if not isinstance(dps, int) or not 20 <= dps <= 80:
        raise InputError("dps", f"must be an integer in [20, 80], got {dps!r}")
    with mpmath.workdps(dps):
        mp = mpmath.mpf
        A = mpmath.matrix([[mp(1) / 2, mp(-1) / 3], [mp(1) / 5, mp(3) / 4]])
        V = mpmath.matrix([[mp(1), mp(2)], [mp(-1), mp(1) / 2]])
        x = mpmath.matrix([mp(2) / 3, mp(-1) / 2])
        th = A * x
        rows = {}

        # cube Unif(c + [-r, r]^2)
        r, c = mp(3) / 4, [mp(1) / 5, mp(-1) / 3]
        quad_mean = []
        for k in range(2):
            num = mpmath.quad(lambda y: y * mpmath.exp(th[k] * y), [c[k] - r, c[k] + r])
            den = mpmath.quad(lambda y: mpmath.exp(th[k] * y), [c[k] - r, c[k] + r])
            quad_mean.append(num / den)
        closed = [c[k] + r * mpmath.coth(r * th[k]) - 1 / th[k] for k in range(2)]
        rows["cube"] = (quad_mean, closed)

        # symmetric Laplace SL(m, S): E[e^{<t,Y>} Y] = int_0^inf e^{-w} e^{<t,m> + w q}(m + w S t) dw
        S = mpmath.matrix([[mp(1), mp(1) / 5], [mp(1) / 5, mp(1) / 2]])
        mvec = mpmath.matrix([mp(1) / 2, mp(-1)])
        St = S * th
        q = (th.T * St)[0] / 2
        den = mpmath.quad(lambda w: mpmath.exp(-w + w * q), [0, mpmath.inf])
        quad_mean = [mvec[k] + mpmath.quad(lambda w: w * mpmath.exp(-w + w * q), [0, mpmath.inf]) * St[k] / den
                     for k in range(2)]
        closed = [mvec[k] + St[k] / (1 - q) for k in range(2)]
        rows["laplace"] = (quad_mean, closed)

        # mixture 1/2 N(b + a e1, diag(s1^2, s2^2)) + 1/2 N(b - a e1, ...): coordinates independent
        a, b, s = mp(2), [mp(1) / 4, mp(-1) / 2], [mp(1), mp(3) / 2]

        def dens(k, y):
            g = lambda mu: mpmath.exp(-(y - mu) ** 2 / (2 * s[k] ** 2)) / (s[k] * mpmath.sqrt(2 * mpmath.pi))
            return (g(b[k] + a) + g(b[k] - a)) / 2 if k == 0 else g(b[k])

        quad_mean = []
        for k in range(2):
            num = mpmath.quad(lambda y: y * mpmath.exp(th[k] * y) * dens(k, y), [-mpmath.inf, 0, mpmath.inf])
            den = mpmath.quad(lambda y: mpmath.exp(th[k] * y) * dens(k, y), [-mpmath.inf, 0, mpmath.inf])
            quad_mean.append(num / den)
        closed = [b[0] + s[0] ** 2 * th[0] + a * mpmath.tanh(a * th[0]), b[1] + s[1] ** 2 * th[1]]
        rows["mixture"] = (quad_mean, closed)

        ev = {}
        worst = mp(0)
        for fam, (qm, cm) in rows.items():
            gq = V * mpmath.matrix(qm)
            gc = V * mpmath.matrix(cm)
            rel = max(abs(gq[i] - gc[i]) for i in range(2)) / max(abs(gc[i]) for i in range(2))
            worst = max(worst, rel)
            ev[fam] = {"gamma_quadrature": [mpmath.nstr(v, 25) for v in gq],
                       "V_grad_Lambda": [mpmath.nstr(v, 25) for v in gc], "relative_discrepancy": float(rel)}
        tol = mpmath.mpf(10) ** (-(dps - 10))
        met = bool(worst <= tol)
    ev.update({"max_relative_discrepancy": float(worst), "tolerance": f"1e-{dps - 10}", "criterion_met": met,
               "dps": dps})
    return Result("N2", "Gamma by quadrature equals V grad Lambda(Ax) for cube, Laplace, mixture laws (d = 2)",
                  Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": f"quadrature agrees to {float(worst):.2e} relative "
                                          f"(criterion {'met' if met else 'NOT met'}; evidence)",
                               "criterion_met": met},
                  parameters={"dps": dps}, evidence=ev)
