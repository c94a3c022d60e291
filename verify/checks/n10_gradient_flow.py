"""N10: local Polyak-Łojasiewicz decay of the loss along the gradient flow (docs/paper2.md §10).

* ``check_pl_decay`` (evidence): inputs β and its dilation by 3/2, shared queries q₁ = (1, ½),
  q₂ = (−3/10, 1) (docs/paper2.md §9.4), the L = 4, H = 16 particle model with V ≡ 0 and A entries i.i.d. N(0, ¼)
  (numpy ``default_rng(seed)``), targets q_a + ε u_{i,a} (u seeded unit vectors).  The gradient flow
  θ̇ = −LH∇ℒ (squared loss ℒ = ½|r|²) is integrated by an adaptive BDF method (rtol 10⁻¹²) to t = 5/λ₀,
  with λ₀ = λ_min(k), k[(i,a),(j,b)] = mean over heads of ⟨∇Λ_i(A q_a), ∇Λ_j(A q_b)⟩ (the V-block NTK at
  V ≡ 0, computed from this formula and checked against 𝒦₀ = LH J₀J₀ᵀ).  Along the trajectory
  λ_min(𝒦_t) is monitored (𝒦_t = LH J_tJ_tᵀ, all parameters), and the two inequalities
      ℒ(t) ≤ ℒ(0) exp(−2∫₀ᵗ λ_min(𝒦_τ) dτ)          (trapezoid rule on the monitoring grid)
      ℒ(t) ≤ e^{−2λt} ℒ(0), λ = λ₀/2, while λ_min(𝒦_t) ≥ λ₀/2
  are tested on the grid (relative slack 10⁻⁹) wherever ℒ(t) ≥ 10⁻²² (below that floor, |r| ≲ 10⁻¹¹,
  the float64 trajectory no longer resolves the loss; the count of such points is recorded).
  INCONCLUSIVE, with ``criterion_met``.  The stiff flow (λ_max/λ₀ ≈ 10⁴) is integrated by scipy's BDF
  with a low-rank Gauss-Newton Jacobian (Woodbury solves), see ``verify.decide.mean_field.gradient_flow``.
* ``check_kernel_residual`` (exact, N10.n): translates β and β + (½, −⅕), m = 2, targets q_a + ε c_{ia} e,
  c = (1, −1, −1, 1).  SymPy proves Σ_{i,a} c_{ia} ∇Λ_i(ϑ_a) ≡ 0 for symbolic ϑ₁, ϑ₂ ∈ ℝ², hence k c = 0
  and r(0) = −ε c ⊗ e ∈ ker 𝒦₀ for every head set; moreover ∇_Vℒ(0) = (1/LH) Σ r_{ia} ∇Λ_i(A q_a)ᵀ = 0
  and ∇_Aℒ(0) = 0 (factor V = 0): θ(0) is a stationary point, so ℒ(t) ≡ ℒ(0) > 0 and
  dℒ/dt(0) = −rᵀ𝒦₀r = 0.  "ℒ(t) ≤ e^{−2λt}ℒ(0) for some λ > 0 from t = 0" is REFUTED (exact).

>>> check_kernel_residual().verdict.value
'refuted'
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from ..decide.mean_field import memoise, ParticleNet, gradient_flow, ntk_from_jacobian, tilted_mean
from ..decide.symbolic import exp_free_zero
from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact
from ..kernel import symbolic as _kernel
from ..errors import InputError
from ..laws.oracle_families import BETA_ATOMS
from ..results import Method, Result, Verdict

__all__ = ["check_pl_decay", "check_kernel_residual", "v_block_gram", "QUERIES"]

F = Fraction
QUERIES = ((F(1), F(1, 2)), (F(-3, 10), F(1)))
TRANSLATE = (F(1, 2), F(-1, 5))
LOSS_FLOOR = 1e-22      # |r| ~ 1e-11: below this the float64 trajectory (rtol 1e-12) no longer resolves the loss


def v_block_gram(contexts, weights, queries, A) -> np.ndarray:
    """k[(i,a),(j,b)] = mean over heads of ⟨∇Λ_i(A q_a), ∇Λ_j(A q_b)⟩ (float64, law-major)."""
    heads = np.asarray(A, float).reshape(-1, A.shape[-2], A.shape[-1])
    g = []
    for ctx, w in zip(contexts, weights):
        for q in queries:
            g.append(tilted_mean(heads @ np.asarray(q, float), np.asarray(ctx, float), np.log(np.asarray(w, float))))
    g = np.array(g)
    return np.einsum("ihc,jhc->ij", g, g) / heads.shape[0]


def _certified_lambda0_bound(A0, lam, q, lam0):
    """Certified PD of k − (λ̂₀/2) I with the exact (dyadic) head matrices, via verify.decide.ntk_gram's arb
    Gram and an interval Cholesky: then λ_min(k) ≥ λ̂₀/2 > 0 rigorously (the N10 premise)."""
    try:
        from flint import arb

        from ..decide.ntk_gram import ntk_gram
        from ..arith.ball import certify_positive_definite
        from ..laws import Discrete

        heads = [[[F(float(x)) for x in row] for row in A] for A in np.asarray(A0).reshape(-1, 2, 2)]
        laws = [Discrete([list(p) for p in BETA_ATOMS]), Discrete([[lam * x for x in p] for p in BETA_ATOMS])]
        shift = F(lam0 / 2)

        def build(prec):
            G = ntk_gram(laws, [list(p) for p in QUERIES], head_set=heads, precision=prec)
            n = G.size
            return [[G.matrix[i, j] - (arb(shift.numerator) / shift.denominator if i == j else 0)
                     for j in range(n)] for i in range(n)]

        out = certify_positive_definite(build, ladder=(128, 256))
        return {"lower_bound": shift, "certified": out.verdict.value == "proved", "precision_bits": out.precision,
                "method": "arb Gram (verify.decide.ntk_gram) of the exact head matrices, interval Cholesky of k - bound*I"}
    except Exception as exc:          # the float evidence stands on its own; record why no certificate
        return {"certified": False, "reason": f"{type(exc).__name__}: {exc}"}


def _grid(t_end, points):
    lin = np.linspace(0.0, t_end, points // 2)
    geo = np.geomspace(t_end * 1e-6, t_end, points - points // 2)
    return np.unique(np.concatenate([lin, geo]))


@memoise

def _final_loss(first: float, last: float) -> str:
    """The final loss for the summary; below 1e-16 of the first (float rounding: the digits change with the
    CPU's BLAS kernels) only as that bound, so the summary is the same on every machine."""
    return f"{last:.3g}" if last >= 1e-16 * first else f"< {1e-16 * first:.0e} (float rounding level)"

def check_pl_decay(eps="1e-2", layers: int = 4, heads: int = 16, dilation="3/2", seed: int = 0,
                   horizon="5", grid_points: int = 80, rtol: float = 1e-12) -> Result:
    """Gradient-flow evidence for both inequalities of N10 (see module docstring). Always INCONCLUSIVE."""
    e = parse_exact(eps, "eps")
    if not 0 < e <= 1:
        raise InputError("eps", f"must be in (0, 1], got {fraction_str(e)}")
    lam = parse_exact(dilation, "dilation")
    if lam <= 0:
        raise InputError("dilation", f"must be > 0, got {fraction_str(lam)}")
    for name, v, hi in (("layers", layers, 16), ("heads", heads, 64)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
            raise InputError(name, f"must be an integer in [1, {hi}], got {v!r}")
    if not isinstance(grid_points, int) or not 10 <= grid_points <= 1000:
        raise InputError("grid_points", f"must be an integer in [10, 1000], got {grid_points!r}")
    hz = float(parse_exact(horizon, "horizon"))
    beta = np.array([[float(v) for v in p] for p in BETA_ATOMS])
    w = np.full(3, 1 / 3)
    q = np.array([[float(v) for v in p] for p in QUERIES])
    contexts = [beta, float(lam) * beta]
    rng = np.random.default_rng(seed)
    A0 = rng.normal(0.0, 0.5, (layers, heads, 2, 2))
    V0 = np.zeros_like(A0)
    u = rng.normal(size=(2, 2, 2))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    targets = q[None] + float(e) * u
    net = ParticleNet([(c, w) for c in contexts], q)
    k = v_block_gram(contexts, [w, w], q, A0)
    lam0 = float(np.linalg.eigvalsh(k)[0])
    K0 = ntk_from_jacobian(net.jacobian(A0, V0), layers, heads)
    consistency = float(np.max(np.abs(K0 - np.kron(k, np.eye(2)))))
    if lam0 <= 0:
        return Result("N10", "PL decay along the gradient flow", Verdict.INCONCLUSIVE, Method.EVIDENCE,
                      certificate={"summary": "lambda_0 <= 0 in float64: no PD NTK at initialisation",
                                   "criterion_met": False}, evidence={"lambda0": lam0})
    cert_lam0 = _certified_lambda0_bound(A0, lam, q, lam0)
    t_end = hz / lam0
    times = _grid(t_end, grid_points)
    rows, info = gradient_flow(net, A0, V0, targets, t_end, times, rtol=rtol)
    ts = np.array([r["t"] for r in rows])
    loss = np.array([r["loss"] for r in rows])
    lmin = np.array([r["lambda_min"] for r in rows])
    integral = np.concatenate([[0.0], np.cumsum(np.diff(ts) * (lmin[1:] + lmin[:-1]) / 2)])
    slack = 1e-9
    resolved = loss >= LOSS_FLOOR                    # below the floor the loss is integration noise
    bound1 = loss[0] * np.exp(-2 * integral)
    ok1 = bool(np.all((loss <= bound1 * (1 + slack)) | ~resolved))
    below = np.nonzero(lmin < lam0 / 2)[0]
    stop = int(below[0]) if below.size else len(ts)
    envelope = loss[0] * np.exp(-lam0 * ts)            # e^{-2 lambda t} with lambda = lambda0 / 2
    ok2 = bool(np.all((loss[:stop] <= envelope[:stop] * (1 + slack)) | ~resolved[:stop]))
    stays = bool(stop == len(ts))
    met = ok1 and ok2 and (stays or e > F(1, 50))
    ev = {"lambda0": lam0, "lambda0_certified": cert_lam0, "lambda0_over_lambda_max": lam0 / float(np.linalg.eigvalsh(k)[-1]),
          "gram_k": k.tolist(), "K0_vs_kron_k_max_diff": consistency, "t_end": t_end,
          "times": ts.tolist(), "loss": loss.tolist(), "lambda_min": lmin.tolist(),
          "bound_integral": bound1.tolist(), "envelope_pl": envelope.tolist(),
          "inequality_integral_holds": ok1, "inequality_pl_holds": ok2,
          "lambda_min_stays_above_half_lambda0": stays, "pl_checked_until": float(ts[stop - 1]) if stop else 0.0,
          "final_loss_ratio": float(loss[-1] / loss[0]), "integrator": info, "loss_floor": LOSS_FLOOR,
          "grid_points_below_floor": int(np.sum(~resolved)),
          "figure": {"type": "gradient_flow", "group": f"eps = {fraction_str(e)}", "series": [  # docs/reports.md
              {"name": "loss L(t) along the computed flow (float64 evidence, above the noise floor)",
               "role": "evidence", "points": [[repr(float(t)), repr(float(v))] for t, v, r in zip(ts, loss, resolved) if r]},
              {"name": "bound L(0) exp(-2 * integral of lambda_min(K_s) ds)", "role": "bound",
               "points": [[repr(float(t)), repr(float(v))] for t, v in zip(ts, bound1)]},
              {"name": "envelope L(0) exp(-lambda0 t)  (Polyak-Lojasiewicz rate)", "role": "bound",
               "points": [[repr(float(t)), repr(float(v))] for t, v in zip(ts, envelope)]}]},
          "criterion": "both inequalities on the grid (slack 1e-9); for eps <= 1/50 also lambda_min(K_t) >= "
                       "lambda0/2 throughout", "criterion_met": met}
    return Result("N10", "L(t) <= L(0) exp(-2 int lambda_min) and L(t) <= exp(-2 lambda t) L(0), lambda = lambda0/2",
                  Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": f"eps = {fraction_str(e) if e.numerator != 1 else '1e-' + str(len(str(e.denominator)) - 1)}: "
                                          f"lambda0 = {lam0:.4g}, loss {loss[0]:.3g} -> {_final_loss(loss[0], loss[-1])} at t = 5/lambda0, "
                                          f"min lambda_min(K_t)/lambda0 = {lmin.min() / lam0:.3f}; criterion "
                                          f"{'met' if met else 'NOT met'} (evidence)", "criterion_met": met},
                  parameters={"eps": e, "layers": layers, "heads": heads, "dilation": lam, "horizon": hz,
                              "grid_points": grid_points, "rtol": rtol, "queries": [list(p) for p in QUERIES]},
                  conventions={"flow": "theta' = -L H grad L (particle model, L layers, H heads)",
                               "loss": "1/2 sum_{i,a} |Y_{i,a}(1) - target|^2", "NTK": "K_t = L H J_t J_t^T",
                               "head law": "A entries iid N(0, 1/4), V = 0"},
                  seeds={"numpy_default_rng": seed}, evidence=ev)


def check_kernel_residual(eps="1e-2", e=(1, 0), layers: int = 4, heads: int = 16, seed: int = 0) -> Result:
    """N10.n: the residual lies in ker 𝒦₀ exactly and θ(0) is stationary: REFUTED (exact)."""
    epsq = parse_exact(eps, "eps")
    if epsq <= 0:
        raise InputError("eps", f"must be > 0, got {fraction_str(epsq)}")
    ev_ = [parse_exact(v, f"e[{i}]") for i, v in enumerate(e)]
    if len(ev_) != 2 or all(v == 0 for v in ev_):
        raise InputError("e", "must be a non-zero vector of length 2")
    c = (1, -1, -1, 1)
    w = sympy.Rational(1, 3)
    atoms1 = [sympy.Matrix([sympy.Rational(v.numerator, v.denominator) for v in p]) for p in BETA_ATOMS]
    a = sympy.Matrix([sympy.Rational(v.numerator, v.denominator) for v in TRANSLATE])
    atoms2 = [x + a for x in atoms1]
    th = [sympy.Matrix(sympy.symbols(f"t{j}_1 t{j}_2", real=True)) for j in (1, 2)]

    def grad(atoms, t):
        return sum((w * sympy.exp((t.T * x)[0, 0]) * x for x in atoms), sympy.zeros(2, 1)) / \
            sum(w * sympy.exp((t.T * x)[0, 0]) for x in atoms)

    # law-major order (i, a): (1,1), (1,2), (2,1), (2,2)
    combo = c[0] * grad(atoms1, th[0]) + c[1] * grad(atoms1, th[1]) + c[2] * grad(atoms2, th[0]) + \
        c[3] * grad(atoms2, th[1])
    zero = exp_free_zero(combo, fine=True)
    # float illustration: the Gram and the gradient at theta(0)
    beta = np.array([[float(v) for v in p] for p in BETA_ATOMS])
    wf = np.full(3, 1 / 3)
    q = np.array([[float(v) for v in p] for p in QUERIES])
    contexts = [beta, beta + np.array([float(v) for v in TRANSLATE])]
    rng = np.random.default_rng(seed)
    A0 = rng.normal(0.0, 0.5, (layers, heads, 2, 2))
    V0 = np.zeros_like(A0)
    k = v_block_gram(contexts, [wf, wf], q, A0)
    cv = np.array(c, float)
    evec = np.array([float(v) for v in ev_])
    targets = q[None] + float(epsq) * np.array(c, float).reshape(2, 2)[..., None] * evec
    net = ParticleNet([(ctx, wf) for ctx in contexts], q)
    loss0, dA, dV = net.loss_and_grad(A0, V0, targets)
    loss0_exact = epsq ** 2 * sum(v * v for v in ev_) * 4 / 2
    ev_cert = {"relation": "Lambda_2(theta) = Lambda_1(theta) + <(1/2, -1/5), theta> (translate)",
            "kernel_vector_c": list(c), "symbolic_sum_c_grad_zero": zero,
            "argument": ["sum_{i,a} c_ia grad Lambda_i(theta_a) = 0 for all theta_1, theta_2 (SymPy, exact)",
                         "hence k c = 0 for every head set and K_0 (c (x) e) = (k c) (x) e = 0",
                         "r(0) = F(0) - Y = q - (q + eps c e) = -eps c (x) e lies in ker K_0, so dL/dt(0) = -r^T K_0 r = 0",
                         "grad_V L(0) = (1/LH) sum r_ia grad Lambda_i(A q_a)^T = -(eps/LH) e (sum c_ia grad Lambda_i)^T = 0; "
                         "grad_A L(0) = 0 (factor V = 0): theta(0) is stationary, L(t) = L(0) > 0 for all t"],
            "loss0_exact": loss0_exact}
    ev = {"float_k_times_c": (k @ cv).tolist(), "float_k_eigenvalues": np.linalg.eigvalsh(k).tolist(),
          "float_grad_norm_at_theta0": float(np.sqrt(np.sum(dA ** 2) + np.sum(dV ** 2))),
          "float_loss0": loss0}
    params = {"eps": epsq, "e": ev_, "layers": layers, "heads": heads, "translate": list(TRANSLATE),
              "atoms": [list(p) for p in BETA_ATOMS], "weights": [F(1, 3)] * 3, "queries": [list(p) for p in QUERIES]}
    statement = _kernel.statement("kernel-residual", jsonable(params), {})
    ev.update(ev_cert)
    if zero and loss0_exact > 0:
        cert = {"kind": "kernel-residual",
                "summary": "r(0) = -eps c(x)e with c = (1,-1,-1,1) lies in ker K_0 exactly (translate relation); "
                           "theta(0) is stationary, L(t) = L(0) > 0 for all t"}
        return Result("N10.n", statement, Verdict.REFUTED, Method.EXACT, certificate=cert, parameters=params,
                      seeds={"numpy_default_rng": seed}, evidence=ev)
    return Result("N10.n", statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params, evidence=ev,
                  certificate={"summary": "symbolic kernel relation not shown"})
