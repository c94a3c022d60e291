"""N9: the adjoint gradient of docs/paper2.md §8 equals central finite differences of the loss (evidence).

Setting (catalogue N9): d = 2, context β = ⅓(δ_(0,0) + δ_(1,3/10) + δ_(−2/5,11/10)), one query (1, ½),
squared losses Σ_k w_k ½|X_k(1) − T_k|² + ½|Y(1) − y*|²; the mean-field ODE with a finite head law that
is piecewise constant in depth.  Configurations:

* ``"constant-heads"``: 2 heads constant on [0, 1]; head 0 is given as (Q, K, V), A = KᵀQ (key dim 2), so
  ∇_Q = K ∇_A and ∇_K = Q (∇_A)ᵀ (the chain rule of §8) are checked too;
* ``"layers-4"``: L = 4 piecewise-constant layers of 2 heads each (seeded rational entries).

Both the forward ODE and the backward adjoint system are integrated in multiprecision (gmpy2/MPFR or
mpmath, 50 digits by default) by Gragg-Bulirsch-Stoer extrapolation of fixed order (estimated error
recorded, required <= 10^-30), so the discrete map is smooth in the parameters and a central difference
with step 10^-12 has truncation error ~10^-24.  Agreement criterion: max |adjoint − FD| / max|gradient|
<= 10^-20.  Everything is floating point: the verdict is always INCONCLUSIVE (evidence) and
``certificate["criterion_met"]`` says whether the criterion held.

``variant="drop-context"`` / ``"drop-query"`` (N9.n) remove ∫J̄ᵀp dμ / Σ_a J̄ᵀr_a from the adjoint
equation; there the criterion is that the mismatch is far above tolerance (>= 10^-6 relative).

``check_adjoint_exact_instance`` adds an explicit instance (d = 1, one head with A = 0) where the flow, the
adjoint and the loss are in closed form: the full adjoint gradient equals d ℒ/dv exactly (PROVED), and the
dropped-term variants differ by α + βe^v + γe^{2v} with exact rationals, certified non-zero (REFUTED, N9.n).

>>> r = check_adjoint_gradient("layers-4", dps=30, fd_step="1e-8", max_coordinates=1, tolerance="1e-12",
...                            ode_tolerance="1e-20")
>>> r.verdict.value, r.certificate["criterion_met"]
('inconclusive', True)
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..decide.mean_field import memoise, HPModel, backend
from ..arith.exact import fraction_str, parse_exact
from ..errors import InputError
from ..results import Method, Result, Verdict

__all__ = ["check_adjoint_gradient", "check_adjoint_exact_instance", "n9_configuration", "CONFIGURATIONS", "VARIANTS"]

F = Fraction
BETA = [[F(0), F(0)], [F(1), F(3, 10)], [F(-2, 5), F(11, 10)]]
WEIGHTS = [F(1, 3)] * 3
QUERY = [[F(1), F(1, 2)]]
TARGETS = [[F(1, 2), F(0)], [F(1), F(1)], [F(0), F(-1)]]
QUERY_TARGET = [[F(1), F(1, 3)]]
Q0 = [[F(1, 2), F(-1, 4)], [F(1, 3), F(1, 2)]]
K0 = [[F(1), F(1, 5)], [F(-1, 2), F(2, 3)]]
CONFIGURATIONS = ("constant-heads", "layers-4")
VARIANTS = ("full", "drop-context", "drop-query")
STATEMENT = "adjoint-ODE gradient of the loss (docs/paper2.md §8) equals central finite differences"


def _matmul(A, B):
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), F(0)) for j in range(len(B[0]))] for i in range(len(A))]


def _transpose(A):
    return [list(r) for r in zip(*A)]


def n9_configuration(name: str, seed: int = 0):
    """(layers, integrator settings) for a configuration; layers[l] = list of heads (A, V)."""
    if name == "constant-heads":
        A0 = _matmul(_transpose(K0), Q0)
        V0 = [[F(1), F(1, 2)], [F(-1, 2), F(3, 4)]]
        A1 = [[F(-1, 4), F(1, 2)], [F(1, 3), F(-1, 2)]]
        V1 = [[F(-1, 3), F(1)], [F(1, 5), F(1, 2)]]
        return [[(A0, V0), (A1, V1)]], {"macro_steps": 2, "levels": 14}
    if name == "layers-4":
        rng = random.Random(seed)
        rnd = lambda: F(rng.randint(-8, 8), 8)
        layers = [[([[rnd(), rnd()], [rnd(), rnd()]], [[rnd(), rnd()], [rnd(), rnd()]]) for _ in range(2)]
                  for _ in range(4)]
        return layers, {"macro_steps": 1, "levels": 12}
    raise InputError("configuration", f"must be one of {', '.join(CONFIGURATIONS)}, got {name!r}")


_LOSS_MEMO: dict = {}       # process-level: the FD losses of a layer set, shared by the audits that need them
_LOSS_MEMO_MAX = 4096


def _loss_value(layers, be, macro_steps, levels):
    """(loss, ODE error estimate) of the N9 setting with ``layers`` (exact entries), memoised per process by the
    exact layers, the backend and its precision and the integrator settings: the variants of one configuration
    (full, drop-context, drop-query) compare against the same central differences, and the loss does not
    depend on the variant.  The same deterministic computation, so the same numbers."""
    key = (type(be).__name__, getattr(be, "prec", None), getattr(be, "dps", None), macro_steps, levels,
           tuple(tuple((tuple(map(tuple, A)), tuple(map(tuple, V))) for A, V in heads) for heads in layers))
    try:
        hash(key)
    except TypeError:           # not exact entries: no memo
        key = None
    if key is not None and key in _LOSS_MEMO:
        return _LOSS_MEMO[key]
    out = HPModel(BETA, WEIGHTS, layers, QUERY, be).loss_value(TARGETS, QUERY_TARGET, macro_steps, levels)
    if key is not None:
        if len(_LOSS_MEMO) >= _LOSS_MEMO_MAX:
            _LOSS_MEMO.clear()
        _LOSS_MEMO[key] = out
    return out


def _perturbed(layers, l, h, which, i, j, delta):
    new = [[([r[:] for r in A], [r[:] for r in V]) for A, V in heads] for heads in layers]
    new[l][h][which][i][j] += delta
    return new


def _direction_perturbed(layers, direction, delta):
    new = [[([r[:] for r in A], [r[:] for r in V]) for A, V in heads] for heads in layers]
    for (l, h, which, i, j), c in direction.items():
        new[l][h][which][i][j] += c * delta
    return new


@memoise
def check_adjoint_gradient(configuration: str = "constant-heads", variant: str = "full", dps: int = 50,
                           fd_step="1e-12", tolerance="1e-20", ode_tolerance="1e-30", max_coordinates: int = 16,
                           directions: int = 0, seed: int = 0, backend_name: str = "gmpy2") -> Result:
    """Compare the adjoint gradient with central differences (see module docstring). Always INCONCLUSIVE."""
    if variant not in VARIANTS:
        raise InputError("variant", f"must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if not isinstance(dps, int) or not 20 <= dps <= 200:
        raise InputError("dps", f"must be an integer in [20, 200], got {dps!r}")
    h = parse_exact(fd_step, "fd_step")
    if not 0 < h < 1:
        raise InputError("fd_step", f"must be in (0, 1), got {fraction_str(h)}")
    tol = parse_exact(tolerance, "tolerance")
    ode_tol = parse_exact(ode_tolerance, "ode_tolerance")
    if not isinstance(max_coordinates, int) or not 0 <= max_coordinates <= 64:
        raise InputError("max_coordinates", f"must be an integer in [0, 64], got {max_coordinates!r}")
    if not isinstance(directions, int) or not 0 <= directions <= 16:
        raise InputError("directions", f"must be an integer in [0, 16], got {directions!r}")
    layers, settings = n9_configuration(configuration, seed)
    be = backend(backend_name, dps)
    ms, lv = settings["macro_steps"], settings["levels"]
    model = HPModel(BETA, WEIGHTS, layers, QUERY, be)
    grads, loss, err = model.adjoint_gradient(TARGETS, QUERY_TARGET, ms, lv,
                                              drop_context=(variant == "drop-context"),
                                              drop_query=(variant == "drop-query"))

    def loss_of(lay):
        return _loss_value(lay, be, ms, lv)

    comparisons = []
    with be.scope():
        hh = be.convert(h)
        scale = max(abs(g) for per in grads for dA, dV in per for M in (dA, dV) for row in M for g in row)
        coords = [(l, hd, which, i, j) for l in range(len(layers)) for hd in range(len(layers[l]))
                  for which in (0, 1) for i in range(2) for j in range(2)]
        if max_coordinates < len(coords):
            rng = random.Random(seed + 1)
            coords = sorted(rng.sample(coords, max_coordinates))
        for (l, hd, which, i, j) in coords:
            lp, ep = loss_of(_perturbed(layers, l, hd, which, i, j, h))
            lm, em = loss_of(_perturbed(layers, l, hd, which, i, j, -h))
            err = max(err, ep, em)
            fd = (lp - lm) / (2 * hh)
            adj = grads[l][hd][which][i][j]
            comparisons.append({"parameter": f"{'AV'[which]}[layer {l}, head {hd}][{i},{j}]",
                                "adjoint": be.text(adj, 28), "fd": be.text(fd, 28),
                                "abs_diff": float(abs(adj - fd))})
        rng = random.Random(seed + 2)
        for k in range(directions):
            direction = {c: F(rng.randint(-4, 4), 4) for c in
                         [(l, hd, which, i, j) for l in range(len(layers)) for hd in range(len(layers[l]))
                          for which in (0, 1) for i in range(2) for j in range(2)]}
            lp, ep = loss_of(_direction_perturbed(layers, direction, h))
            lm, em = loss_of(_direction_perturbed(layers, direction, -h))
            err = max(err, ep, em)
            fd = (lp - lm) / (2 * hh)
            adj = sum(be.convert(c) * grads[l][hd][which][i][j] for (l, hd, which, i, j), c in direction.items())
            comparisons.append({"parameter": f"direction {k} (seeded rational)", "adjoint": be.text(adj, 28),
                                "fd": be.text(fd, 28), "abs_diff": float(abs(adj - fd))})
        if configuration == "constant-heads":
            # chain rule for head 0 = (Q, K, V): d/dQ = K dA, d/dK = Q dA^T
            dA = grads[0][0][0]
            dQ = [[sum(K0[r][c] * dA[c][j] for c in range(2)) for j in range(2)] for r in range(2)]
            dK = [[sum(Q0[r][c] * dA[j][c] for c in range(2)) for j in range(2)] for r in range(2)]
            for name, M0, G in (("Q", Q0, dQ), ("K", K0, dK)):
                for (i, j) in ((0, 0), (1, 1)):
                    vals = []
                    for sgn in (1, -1):
                        Qp = [r[:] for r in Q0]
                        Kp = [r[:] for r in K0]
                        (Qp if name == "Q" else Kp)[i][j] += sgn * h
                        lay = [[(_matmul(_transpose(Kp), Qp), layers[0][0][1]), layers[0][1]]]
                        v, e = loss_of(lay)
                        err = max(err, e)
                        vals.append(v)
                    fd = (vals[0] - vals[1]) / (2 * hh)
                    comparisons.append({"parameter": f"{name}[head 0][{i},{j}] (chain rule)",
                                        "adjoint": be.text(G[i][j], 28), "fd": be.text(fd, 28),
                                        "abs_diff": float(abs(G[i][j] - fd))})
        rel = max(c["abs_diff"] for c in comparisons) / float(scale) if comparisons else float("inf")
        loss_text = be.text(loss, 30)
    ode_ok = err <= float(ode_tol)
    if variant == "full":
        met = bool(ode_ok and rel <= float(tol))
        crit = f"max relative difference <= {fraction_str(tol)} and ODE error estimate <= {fraction_str(ode_tol)}"
    else:
        met = bool(ode_ok and rel >= 1e-6)
        crit = "max relative difference >= 1e-6 (mismatch far above tolerance) with ODE error estimate small"
    claim = "N9" if variant == "full" else "N9.n"
    statement = STATEMENT if variant == "full" else STATEMENT + f" with the {variant.replace('drop-', '')} term dropped"
    ev = {"comparisons": comparisons, "max_relative_difference": rel, "gradient_scale": float(scale),
          "ode_error_estimate": err, "loss": loss_text, "criterion": crit, "criterion_met": met,
          "dps": dps, "backend": be.name}
    summary = (f"adjoint vs central FD (h = {fraction_str(h) if h.numerator != 1 else '1e-' + str(len(str(h.denominator)) - 1)}"
               f", {len(comparisons)} comparisons, {dps} digits): max relative difference {rel:.2e}, ODE error "
               f"estimate {err:.1e}; criterion {'met' if met else 'NOT met'} (evidence)")
    return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": summary, "criterion_met": met},
                  parameters={"configuration": configuration, "variant": variant, "dps": dps, "fd_step": h,
                              "tolerance": tol, "ode_tolerance": ode_tol, "max_coordinates": max_coordinates,
                              "directions": directions, "integrator": {"method": "Gragg-Bulirsch-Stoer",
                                                                       **settings}},
                  conventions={"loss": "sum_k w_k |X_k(1)-T_k|^2/2 + |Y(1)-y*|^2/2",
                               "head weight": "1/H on its depth interval", "adjoint": "docs/paper2.md §8, p per unit mass"},
                  seeds={"seed": seed}, evidence=ev)


@memoise
def check_adjoint_exact_instance(variant: str = "full", v="1/2", ladder=(64, 128, 256)) -> Result:
    """An explicit instance where everything is in closed form: d = 1, one head A = 0 (uniform attention),
    V = v, context x = (0, 1, −2/5) with weights ⅓, one query y = ½, targets T = (½, 1, 0), y* = ⅓.

    At A = 0: m̄(s) = m̄₀e^{vs}, X_k(s) = x_k + (e^{vs} − 1)m̄₀, Y(s) = y + (e^{vs} − 1)m̄₀; B̄ = V H A = 0 and
    J̄(z, y) = v, so with P = Σ_k w_k p_k the adjoint of docs/paper2.md §8 reads −Ṗ = v(P + r) (context term vP,
    query term vr), ṙ = 0, and ∂ℒ/∂v = ∫₀¹ (P + r) m̄ ds.  The closed forms of P are verified by
    substitution (SymPy), the s-integral is exact, and the result is compared with d/dv of the closed-form
    loss.  ``"full"``: PROVED when the difference is exactly 0.  ``"drop-context"`` / ``"drop-query"``
    (N9.n): REFUTED when the difference, α + β e^v with exact rationals α, β, is certified non-zero (arb).
    """
    if variant not in VARIANTS:
        raise InputError("variant", f"must be one of {', '.join(VARIANTS)}, got {variant!r}")
    import sympy

    from ..arith.ball import LADDER as _L, ball_bounds, decide_with_ladder, sign, to_ball

    vq = parse_exact(v, "v")
    if vq == 0:
        raise InputError("v", "must be non-zero (v = 0 leaves every token fixed)")
    s, vs = sympy.symbols("s v", real=True)
    R = lambda q: sympy.Rational(F(q).numerator, F(q).denominator)
    xs = [R(0), R(1), R(F(-2, 5))]
    ws = [R(F(1, 3))] * 3
    T = [R(F(1, 2)), R(1), R(0)]
    y, ystar = R(F(1, 2)), R(F(1, 3))
    m0 = sum(w * x for w, x in zip(ws, xs))
    X1 = [x + (sympy.exp(vs) - 1) * m0 for x in xs]
    Y1 = y + (sympy.exp(vs) - 1) * m0
    loss = sum(w * (X - t) ** 2 / 2 for w, X, t in zip(ws, X1, T)) + (Y1 - ystar) ** 2 / 2
    true_grad = sympy.diff(loss, vs)
    p1 = [X - t for X, t in zip(X1, T)]
    P1 = sum(w * p for w, p in zip(ws, p1))
    r = Y1 - ystar
    if variant == "full":
        P = (P1 + r) * sympy.exp(vs * (1 - s)) - r
        rhs = vs * (P + r)
    elif variant == "drop-context":
        P = P1 + vs * r * (1 - s)
        rhs = vs * r
    else:
        P = P1 * sympy.exp(vs * (1 - s))
        rhs = vs * P
    # -dP/ds = rhs and P(1) = P1, verified by substitution
    ode_ok = sympy.simplify(-sympy.diff(P, s) - rhs) == 0 and sympy.simplify(P.subs(s, 1) - P1) == 0
    mbar = m0 * sympy.exp(vs * s)
    adj_grad = sympy.integrate(sympy.expand((P + r) * mbar), (s, 0, 1))
    Z = sympy.Symbol("Z", positive=True)                    # Z = e^v
    diff_v = sympy.expand(sympy.simplify(adj_grad - true_grad)).subs(sympy.exp(vs), Z)
    diff = sympy.expand(diff_v.subs(vs, R(vq)))
    poly = sympy.Poly(diff, Z) if diff != 0 else None
    from ..canonical import jsonable
    from ..kernel import symbolic as _kernel

    claim = "N9" if variant == "full" else "N9.n"
    params = {"variant": variant, "v": vq, "context": [F(0), F(1), F(-2, 5)], "weights": [F(1, 3)] * 3,
              "targets": [F(1, 2), F(1), F(0)], "query": F(1, 2), "query_target": F(1, 3)}
    kind = "adjoint-instance" if variant == "full" else "adjoint-instance-gap"
    statement = _kernel.statement(kind, jsonable(params), {})
    ev = {"adjoint_P": str(P), "adjoint_ode_verified": bool(ode_ok), "adjoint_gradient": str(adj_grad.subs(vs, R(vq))),
            "true_gradient": str(sympy.simplify(true_grad.subs(vs, R(vq)))), "difference": str(diff),
            "difference_for_all_v": str(sympy.factor(diff_v)), "zero_for_all_v": bool(sympy.simplify(diff_v) == 0)}
    if not ode_ok:
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params, evidence=ev,
                      certificate={"summary": "closed-form adjoint not verified"})
    if diff == 0:
        verdict = Verdict.PROVED if variant == "full" else Verdict.INCONCLUSIVE
        cert = {"summary": "adjoint gradient = d loss/dv exactly"}
        if verdict is Verdict.PROVED:
            cert["kind"] = kind
        return Result(claim, statement, verdict, Method.EXACT, certificate=cert, parameters=params, evidence=ev)
    coeffs = poly.all_coeffs() if poly is not None and poly.degree() <= 4 and all(
        c.is_Rational for c in poly.all_coeffs()) else None
    if coeffs is None:
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params, evidence=ev,
                      certificate={"summary": "difference not in the expected form"})
    fq = [F(int(c.p), int(c.q)) for c in coeffs]

    def attempt(prec):
        e = to_ball(vq).exp()
        val = to_ball(0)
        for c in fq:
            val = val * e + to_ball(c)
        return (Verdict.REFUTED if sign(val) in (1, -1) else None), {"enclosure": ball_bounds(val)}

    out = decide_with_ladder(attempt, ladder)
    ev.update({"difference_polynomial_in_e^v": fq, "precision_bits": out.precision, "enclosure": out.info})
    if out.verdict is Verdict.REFUTED and variant != "full":
        cert = {"kind": kind, "summary": "adjoint - true gradient certified non-zero on the explicit A = 0 instance"}
        return Result(claim, statement, Verdict.REFUTED, Method.CERTIFIED, certificate=cert, parameters=params,
                      evidence=ev)
    # the full adjoint disagreeing would refute N9 itself: no kernel kind certifies that, so not decided here
    summary = ("the full adjoint differs from the true gradient (certified; no kernel kind)"
               if out.verdict is Verdict.REFUTED else "difference not certified non-zero")
    return Result(claim, statement, Verdict.INCONCLUSIVE, Method.CERTIFIED, certificate={"summary": summary},
                  parameters=params, evidence=ev)
