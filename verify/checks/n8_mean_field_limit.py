"""N8: the particle model converges to the mean-field flow (docs/paper2.md §7) — evidence, plus an exact
negative control.

* ``check_depth_convergence``: d = 2, 4 context tokens, 8 heads θ_r(s) = θ_r⁰ + sθ_r¹ (seeded rational
  entries); the L-layer particle model (heads evaluated at s = l/L) is the explicit Euler scheme of the
  mean-field ODE, so error(L) = max_k |X_k^L − X_k(1)| should halve when L doubles.  Reference: the
  mean-field ODE by Gragg-Bulirsch-Stoer extrapolation at 30 digits (gmpy2), cross-checked against
  scipy's DOP853.  Criterion: every ratio error(L)/error(2L), L = 8..64, in [1.8, 2.2].
* ``check_width_convergence``: A, Ṽ entries i.i.d. N(0, ¼), V = (1 + s)Ṽ, H i.i.d. heads per layer.
  Since E[Ṽ] = 0 and Ṽ is independent of A, the mean-field velocity vanishes identically and the limit
  flow is the identity: the reference is exact.  Error = max_k |X_k^{L,H} − x_k| (L = 8), averaged over
  20 seeds; criterion: least-squares slope of log(mean error) against log H in [−0.6, −0.4].
* ``check_frozen_context``: N8.n.  With ``mode="certified"`` (default) a configuration where both limits
  are explicit: one head A = 0 (uniform attention), V = diag(v).  The mean-field flow is
  X_k(s) = x_k + (e^{sV} − I) m̄₀ (verified exactly with SymPy to solve the ODE; linear ODE, unique), the
  frozen-context particle model gives x_k + V m̄₀ exactly for *every* L and H (rational arithmetic), so the
  discrepancy (e^V − I − V) m̄₀ does not depend on L, H and is certified non-zero with arb: REFUTED.
  With ``mode="evidence"`` the general configuration of ``check_depth_convergence`` with frozen context:
  INCONCLUSIVE with ``criterion_met`` (discrepancy bounded away from 0).

>>> check_frozen_context().verdict.value
'refuted'
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import sympy

from ..decide.mean_field import memoise, HPModel, backend, mean_field_flow, particle_forward
from ..arith.ball import LADDER, ball_bounds, decide_with_ladder, sign, to_ball
from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact
from ..kernel import symbolic as _kernel
from ..errors import InputError
from ..results import Method, Result, Verdict

__all__ = ["check_depth_convergence", "check_width_convergence", "check_frozen_context", "deterministic_heads",
           "CONTEXT"]

F = Fraction
CONTEXT = [[F(0), F(0)], [F(1), F(3, 10)], [F(-2, 5), F(11, 10)], [F(1, 2), F(-1, 2)]]
WEIGHTS = [F(1, 4)] * 4
MAX_L = 1024
MAX_H = 4096


def deterministic_heads(seed: int = 0, count: int = 8):
    """θ_r⁰, θ_r¹ (A and V) with entries k/8, |k| <= 6, from random.Random(seed): list of (A0, A1, V0, V1)."""
    rng = random.Random(seed)
    rnd = lambda: F(rng.randint(-6, 6), 8)
    return [tuple([[rnd(), rnd()], [rnd(), rnd()]] for _ in range(4)) for _ in range(count)]


def _float_heads(heads):
    """float64 arrays (A0, A1, V0, V1), each (R, 2, 2), of the heads' exact entries (converted once)."""
    arr = np.array([[[[float(v) for v in row] for row in M] for M in h] for h in heads])
    return tuple(np.ascontiguousarray(arr[:, k]) for k in range(4))


def _arrays_at(heads, s: float, fh=None):
    """(A, V) at depth s: float(M0) + s * float(M1) entrywise (``fh``: the heads' :func:`_float_heads`)."""
    a0, a1, v0, v1 = _float_heads(heads) if fh is None else fh
    return a0 + s * a1, v0 + s * v1


def _particle_det(heads, L, freeze=False):
    A = np.empty((L, len(heads), 2, 2))
    V = np.empty((L, len(heads), 2, 2))
    fh = _float_heads(heads)
    for l in range(L):
        A[l], V[l] = _arrays_at(heads, l / L, fh)
    X, _ = particle_forward(np.array(CONTEXT, float), np.array(WEIGHTS, float), A, V, freeze_context=freeze)
    return X


def _reference(heads, dps, freeze=False):
    """X(1) of the mean-field flow: GBS at ``dps`` digits (unless frozen) and DOP853 (float64)."""
    ref_f, _ = mean_field_flow(np.array(CONTEXT, float), np.array(WEIGHTS, float),
                               lambda s, fh=_float_heads(heads): _arrays_at(heads, s, fh), freeze_context=freeze)
    if freeze:
        return ref_f, ref_f, 0.0
    be = backend("gmpy2", dps)
    with be.scope():
        hp_heads = [tuple([[be.convert(v) for v in row] for row in M] for M in h) for h in heads]

    def at(s):
        return [([[a0[i][j] + s * a1[i][j] for j in range(2)] for i in range(2)],
                 [[v0[i][j] + s * v1[i][j] for j in range(2)] for i in range(2)]) for a0, a1, v0, v1 in hp_heads]

    model = HPModel(CONTEXT, WEIGHTS, [at], be=be)
    y, err = model.forward(macro_steps=4, levels=10)
    ref = np.array([float(v) for v in y]).reshape(-1, 2)
    return ref, ref_f, err


def _parse_sizes(values, field, limit):
    if not isinstance(values, (list, tuple)) or len(values) < 2:
        raise InputError(field, "expected a list of at least 2 sizes")
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= limit:
            raise InputError(f"{field}[{i}]", f"must be an integer in [1, {limit}], got {v!r}")
        out.append(v)
    return out


@memoise
def check_depth_convergence(layers=(8, 16, 32, 64, 128), seed: int = 0, dps: int = 30,
                            ratio_band=("1.8", "2.2")) -> Result:
    """Euler rate in depth (evidence; always INCONCLUSIVE, ``criterion_met`` in the certificate)."""
    Ls = _parse_sizes(layers, "layers", MAX_L)
    lo, hi = (float(parse_exact(b, "ratio_band")) for b in ratio_band)
    heads = deterministic_heads(seed)
    ref, ref_f, err = _reference(heads, dps)
    errors = [float(np.max(np.linalg.norm(_particle_det(heads, L) - ref, axis=1))) for L in Ls]
    ratios = [errors[i] / errors[i + 1] for i in range(len(Ls) - 1)]
    doubling = all(Ls[i + 1] == 2 * Ls[i] for i in range(len(Ls) - 1))
    met = bool(doubling and all(lo <= r <= hi for r in ratios) and err <= 1e-25)
    ev = {"layers": Ls, "errors": errors, "ratios": ratios, "reference_X1": ref.tolist(),
          "reference_ode_error_estimate": err, "reference_vs_dop853": float(np.max(np.abs(ref - ref_f))),
          "criterion": f"error(L)/error(2L) in [{lo}, {hi}] for every L", "criterion_met": met}
    return Result("N8", "L-layer particle model -> mean-field flow at rate O(1/L) (deterministic heads)",
                  Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": f"error ratios {', '.join(f'{r:.3f}' for r in ratios)} for L = "
                                          f"{Ls[0]}..{Ls[-1]}; criterion {'met' if met else 'NOT met'} (evidence)",
                               "criterion_met": met},
                  parameters={"layers": Ls, "dps": dps, "heads": 8, "tokens": 4, "ratio_band": [lo, hi]},
                  conventions={"particle heads": "theta_r(l/L) on layer l (left endpoint, explicit Euler)",
                               "error": "max_k |X_k^L - X_k(1)|"},
                  seeds={"heads": seed}, evidence=ev)


@memoise
def check_width_convergence(heads=(16, 32, 64, 128, 256, 512, 1024), layers: int = 8, seeds: int = 20,
                            seed: int = 0, slope_band=("-0.6", "-0.4")) -> Result:
    """Monte Carlo rate in width (evidence; always INCONCLUSIVE, ``criterion_met`` in the certificate)."""
    Hs = _parse_sizes(heads, "heads", MAX_H)
    if not isinstance(layers, int) or not 1 <= layers <= 64:
        raise InputError("layers", f"must be an integer in [1, 64], got {layers!r}")
    if not isinstance(seeds, int) or not 2 <= seeds <= 100:
        raise InputError("seeds", f"must be an integer in [2, 100], got {seeds!r}")
    lo, hi = (float(parse_exact(b, "slope_band")) for b in slope_band)
    ctx = np.array(CONTEXT, float)
    w = np.array(WEIGHTS, float)
    errs = np.zeros((seeds, len(Hs)))
    Hmax = max(Hs)
    for k in range(seeds):
        rng = np.random.default_rng([seed, k])
        A_all = rng.normal(0.0, 0.5, (layers, Hmax, 2, 2))
        Vt_all = rng.normal(0.0, 0.5, (layers, Hmax, 2, 2))
        scale = (1.0 + np.arange(layers) / layers)[:, None, None, None]
        for j, H in enumerate(Hs):          # nested samples: the first H heads of each layer
            X, _ = particle_forward(ctx, w, A_all[:, :H], scale * Vt_all[:, :H])
            errs[k, j] = np.max(np.linalg.norm(X - ctx, axis=1))
    mean = errs.mean(axis=0)
    x = np.log(np.array(Hs, float))
    y = np.log(mean)
    slope = float(np.polyfit(x, y, 1)[0])
    met = bool(lo <= slope <= hi)
    ev = {"heads": Hs, "mean_errors": mean.tolist(), "errors_per_seed": errs.tolist(), "slope": slope,
          "criterion": f"log-log slope in [{lo}, {hi}]", "criterion_met": met,
          "reference": "exact: E[V~] = 0 and V~ independent of A, so the mean-field velocity is 0 and X(s) = x"}
    return Result("N8", "i.i.d. heads: particle model -> mean-field flow at rate O(H^(-1/2)) in mean",
                  Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": f"log-log slope {slope:.3f} over H = {Hs[0]}..{Hs[-1]} ({seeds} seeds, "
                                          f"L = {layers}); criterion {'met' if met else 'NOT met'} (evidence)",
                               "criterion_met": met},
                  parameters={"heads": Hs, "layers": layers, "seeds": seeds, "slope_band": [lo, hi]},
                  conventions={"head law": "A, V~ entries iid N(0, 1/4), V = (1 + l/L) V~ on layer l",
                               "samples": "numpy default_rng([seed, k]); the first H of H_max heads (nested)"},
                  seeds={"seed": seed, "seeds": list(range(seeds))}, evidence=ev)


def _frozen_certified(v, layers, heads_count, ladder):
    m0 = [sum((w * x[i] for w, x in zip(WEIGHTS, CONTEXT)), F(0)) for i in range(2)]
    # (a) the closed-form mean-field flow solves the ODE (SymPy, exact)
    s = sympy.Symbol("s", real=True)
    vs = [sympy.Rational(q.numerator, q.denominator) for q in v]
    ms = [sympy.Rational(q.numerator, q.denominator) for q in m0]
    Xs = [[sympy.Rational(x[i].numerator, x[i].denominator) + (sympy.exp(s * vs[i]) - 1) * ms[i] for i in range(2)]
          for x in CONTEXT]
    mean_s = [sum(sympy.Rational(w.numerator, w.denominator) * X[i] for w, X in zip(WEIGHTS, Xs)) for i in range(2)]
    ode_ok = all(sympy.simplify(sympy.diff(X[i], s) - vs[i] * mean_s[i]) == 0 for X in Xs for i in range(2))
    init_ok = all(sympy.simplify(X[i].subs(s, 0) - sympy.Rational(x[i].numerator, x[i].denominator)) == 0
                  for X, x in zip(Xs, CONTEXT) for i in range(2))
    # (b) frozen and coupled particle models, exactly (A = 0: uniform attention, every head equal)
    frozen, coupled = {}, {}
    for L in layers:
        for H in heads_count:
            X = [row[:] for row in CONTEXT]
            for _ in range(L):
                step = [v[i] * m0[i] / L for i in range(2)]          # (1/(LH)) * H * V m0
                X = [[x[i] + step[i] for i in range(2)] for x in X]
            frozen[(L, H)] = all(X[k][i] == CONTEXT[k][i] + v[i] * m0[i] for k in range(4) for i in range(2))
        Xc = [row[:] for row in CONTEXT]
        for _ in range(L):
            mc = [sum((w * x[i] for w, x in zip(WEIGHTS, Xc)), F(0)) for i in range(2)]
            Xc = [[x[i] + v[i] * mc[i] / L for i in range(2)] for x in Xc]
        coupled[L] = [Xc[0][i] - CONTEXT[0][i] for i in range(2)]   # displacement (1 + v/L)^L m0 - m0

    # (c) discrepancy (e^v - 1 - v) m0, certified non-zero
    def attempt(prec):
        comps = [(to_ball(v[i]).exp() - 1 - to_ball(v[i])) * to_ball(m0[i]) for i in range(2)]
        for i, c in enumerate(comps):
            if sign(c) in (1, -1):
                return Verdict.REFUTED, {"component": i, "enclosure": ball_bounds(c),
                                         "all": [ball_bounds(b) for b in comps]}
        return None, {"all": [ball_bounds(b) for b in comps]}

    out = decide_with_ladder(attempt, ladder)
    return m0, ode_ok and init_ok, frozen, coupled, out


@memoise
def check_frozen_context(mode: str = "certified", v=("1/2", "-1/3"), layers=(8, 16, 32, 64, 128),
                         heads=(1, 16), seed: int = 0, dps: int = 30, ladder=LADDER) -> Result:
    """N8.n: "the frozen-context particle model converges to the mean-field flow" — REFUTED (certified) in
    ``mode="certified"``; INCONCLUSIVE with ``criterion_met`` in ``mode="evidence"``."""
    statement = "the particle model with context frozen at mu(0) converges to the mean-field flow"
    Ls = _parse_sizes(layers, "layers", MAX_L)
    if mode == "certified":
        vv = [parse_exact(x, f"v[{i}]") for i, x in enumerate(v)]
        if len(vv) != 2:
            raise InputError("v", f"expected 2 diagonal entries, got {len(vv)}")
        Hs = _parse_sizes(heads, "heads", MAX_H) if len(heads) >= 2 else list(heads)
        m0, flow_ok, frozen, coupled, out = _frozen_certified(vv, Ls, Hs, ladder)
        frozen_ok = all(frozen.values())
        params = {"mode": mode, "v": vv, "context": CONTEXT, "weights": WEIGHTS}
        statement = _kernel.statement("frozen-context-gap", jsonable(params), {})
        ev = {"layers": Ls, "heads": Hs, "configuration": "one head A = 0 (uniform attention), V = diag(v), 4 context tokens",
                "mean_field_flow": "X_k(s) = x_k + (exp(sV) - I) m0, verified exactly to solve the ODE",
                "mean_field_flow_verified": flow_ok, "m0": m0,
                "frozen_particle_model": "X_k^L = x_k + V m0 exactly for every L, H (checked in exact arithmetic "
                                         "for the listed L, H; each layer adds V m0 / L)",
                "frozen_exact_checks": {f"L={L},H={H}": ok for (L, H), ok in frozen.items()},
                "coupled_particle_displacement": {str(L): d for L, d in coupled.items()},
                "discrepancy": "(exp(V) - I - V) m0, independent of L and H",
                "precision_bits": out.precision, "enclosures": out.info, "ladder": list(out.attempts)}
        if out.verdict is Verdict.REFUTED and flow_ok and frozen_ok:
            cert = {"kind": "frozen-context-gap", "summary": "frozen-context limit x + V m0 differs from the mean-field "
                                                             "flow x + (e^V - I) m0 (certified, for every L, H)"}
            return Result("N8.n", statement, Verdict.REFUTED, Method.CERTIFIED, certificate=cert, parameters=params,
                          evidence=ev)
        return Result("N8.n", statement, Verdict.INCONCLUSIVE, Method.CERTIFIED, parameters=params, evidence=ev,
                      certificate={"summary": "discrepancy not certified"})
    if mode != "evidence":
        raise InputError("mode", f"must be 'certified' or 'evidence', got {mode!r}")
    hd = deterministic_heads(seed)
    ref, _, err = _reference(hd, dps)
    frozen_err = [float(np.max(np.linalg.norm(_particle_det(hd, L, freeze=True) - ref, axis=1))) for L in Ls]
    true_err = [float(np.max(np.linalg.norm(_particle_det(hd, L) - ref, axis=1))) for L in Ls]
    frozen_limit, _, _ = _reference(hd, dps, freeze=True)
    gap = float(np.max(np.linalg.norm(frozen_limit - ref, axis=1)))
    met = bool(min(frozen_err) >= 0.5 * frozen_err[0] and frozen_err[-1] >= 10 * true_err[-1] and gap > 0)
    ev = {"layers": Ls, "frozen_errors": frozen_err, "coupled_errors": true_err, "frozen_flow_gap": gap,
          "criterion": "frozen error stays >= half its L = min value and >= 10x the coupled error at the largest L",
          "criterion_met": met}
    return Result("N8.n", statement, Verdict.INCONCLUSIVE, Method.EVIDENCE,
                  certificate={"summary": f"frozen-context error {frozen_err[0]:.3g} -> {frozen_err[-1]:.3g} "
                                          f"(coupled {true_err[-1]:.3g}); criterion {'met' if met else 'NOT met'} "
                                          "(evidence)", "criterion_met": met},
                  parameters={"mode": mode, "layers": Ls, "dps": dps}, seeds={"heads": seed}, evidence=ev)
