"""T7: the softmax version of the compiled maxout Transformer is within B(lambda) of the network (docs/paper1.md R5, O3).

Replace hardmax by softmax(lambda * score) in the R4 Transformer T compiled from a rank-k, depth-L maxout
network Phi on a box K.  The derived lemma (R5, [DERIVED]):

    if S >= sup_K |pieces of layer l| + Lip_l e_{l-1} for every l, then e_l <= Lip_l e_{l-1} + W0((k-1)/e)/lambda,
    e_0 = 0, so sup_K |T_lambda - Phi|_inf <= B(lambda) := R * (W0((k-1)/e)/lambda) * sum_l prod_{m>l} Lip_m

(R = |W_out|_inf for a read-out, else 1).  Why: the query is the constant coordinate, so every token gets the
same softmax average and the state stays token-independent; the FFN clears h and z exactly
(h - ReLU(h) + ReLU(-h) = 0) and its R3 gates are exact while every perturbed piece is <= S in size; unit i
then reads the softmax average of its k pieces at the perturbed input, which is within W0((k-1)/e)/lambda of
their max (T2), and max is 1-Lipschitz, so the previous error enters multiplied by Lip_l.

What ``check_softmax_emulation`` establishes (every decided Result is re-checked by the kernel,
``verify.kernel.softmax``; the statement is built there from the parameters):

* **parameters**: the network, K, S, the factor, the compiled Transformer's exact weights in the kernel's
  recorded format (:func:`transformer_json`; its digest is in the statement) and, per lambda, the exact
  points (the grid {q/32} and the windows +-2/lambda around the exact decision points of Phi);
* **PROVED** (kind ``softmax-emulation-points``): the weights are the R4 compilation of the network with S,
  the lemma's hypotheses S >= (exact interval bound of sup_K |pieces_l|) + Lip_l * ebar_{l-1} hold, factor
  >= 1, and at every recorded point the ball for |T_lambda(x) - Phi(x)|_inf lies below factor * B(lambda).
  The statement says exactly that, and that the sup over K rests on the lemma above;
* **REFUTED** (``softmax-emulation-exceeded``): at an exact witness x in K the certified error lies above
  factor * B (this also covers a tampered ``compiled``: the statement names its weights as not R4);
* **INCONCLUSIVE** otherwise (hypotheses fail, factor < 1, undecided balls, cross-check disagreement);
* **evidence**: a near-tie search (dense windows + ternary refinement), lambda * max error, the O3
  reference maxima, figure data [lambda, certified upper bound of the max error] and [lambda, B], and the
  independent arb forward pass (the balls must overlap).

``check_softmax_sharpness`` (T7.n): L = 1, k = 2, Phi = max(x, -x) on [-1, 1]; at the rational x_q next to
x* = (1 + W0(1/e))/(2 lambda) the certified error lies within 1e-30 of W0(1/e)/lambda = B, so
(1 - 1e-3) B is REFUTED.

>>> r = check_softmax_emulation(lams=(10,), grid=4, near_ties=False, search=False)
>>> r.verdict.value, r.certificate["kind"], r.evidence["hypotheses"]["S_sufficient_every_lambda"]
('proved', 'softmax-emulation-points', True)
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb

from ..decide.softmax_error import (
    decision_points_1d, rational_inside, sharp_constant, softmax_forward_ball,
)
from ..constructions.maxout_compiler import CompiledMaxout, compile_maxout
from ..constructions.reference_networks import abs_network, o2_network
from ..arith.ball import ball_bounds, to_ball, workprec
from ..arith.context import BallContext
from ..arith.exact import fraction_str, parse_exact, parse_positive
from ..errors import InputError, InputTypeError, SizeLimitError
from ..objects.maxout import MaxoutNetwork, parse_box
from ..canonical import jsonable
from ..kernel import softmax as kernel_softmax
from ..results import Method, Result, Verdict

__all__ = ["check_softmax_emulation", "check_softmax_sharpness",
           "error_bound", "lemma_hypotheses", "sharpness_point", "MAX_POINTS", "MAX_LAMBDAS", "O3_REFERENCE"]

CONVENTIONS = {"softmax": "softmax(lambda * score), lambda multiplies the raw score, no 1/sqrt(m)",
               "construction": "R4 (ours), D = 2L sublayers, read-out on token 0", "norm": "l_inf over the outputs"}
STATEMENT = ("sup_K |T_lambda - Phi|_inf <= B(lambda) = R (W0((k-1)/e)/lambda) sum_l prod_{m>l} Lip_m for the "
             "R4 Transformer with softmax(lambda score) and S >= sup|pieces_l| + Lip_l e_{l-1}")

MAX_POINTS = 4000          # evaluation points per lambda
MAX_LAMBDAS = 16
MAX_LAMBDA = Fraction(10) ** 9
LADDER = (128, 256, 512)
O3_REFERENCE = {10: "0.0557", 100: "0.00272", 1000: "3.1e-7"}     # max error over {q/32} (docs/paper1.md O3)


def _readout_norm(net: MaxoutNetwork) -> Fraction:
    if net.readout is None:
        return Fraction(1)
    W, _ = net.readout
    return max(sum(abs(v) for v in row) for row in W)


def _lip_sum(net: MaxoutNetwork) -> Fraction:
    """sum_l prod_{m>l} Lip_m (exact)."""
    lips = [net.lipschitz(l) for l in range(net.depth)]
    total = Fraction(0)
    for l in range(len(lips)):
        prod = Fraction(1)
        for m in range(l + 1, len(lips)):
            prod *= lips[m]
        total += prod
    return total


def error_bound(net: MaxoutNetwork, lam) -> arb:
    """B(lambda) as a ball (call inside ``workprec``)."""
    return to_ball(_readout_norm(net) * _lip_sum(net)) * sharp_constant(net.rank) / to_ball(lam)


def _w0_upper(k: int) -> Fraction:
    with workprec(128):
        return ball_bounds(sharp_constant(k))[1]


def lemma_hypotheses(net: MaxoutNetwork, box, S, lam) -> dict:
    """The R5 hypotheses, exactly: per layer l, need_l = sup_K|pieces_l| (exact interval bound) + Lip_l *
    ebar_{l-1}, with ebar_0 = 0 and ebar_l = Lip_l ebar_{l-1} + cbar/lambda (cbar >= W0((k-1)/e), rational).
    Returns the table, ``holds`` (S >= need_l for every l) and ``error_bound_upper`` = R * ebar_L."""
    lam = Fraction(lam)
    S = Fraction(S)
    cbar = _w0_upper(net.rank)
    bounds = net.interval_bounds(box)
    e_prev = Fraction(0)
    rows = []
    for l in range(net.depth):
        sup_l = max(max(abs(lo), abs(hi)) for unit in bounds["pieces"][l] for lo, hi in unit)
        lip = net.lipschitz(l)
        need = sup_l + lip * e_prev
        rows.append({"layer": l + 1, "sup_abs_pieces_bound": sup_l, "Lip": lip, "e_prev_upper": e_prev,
                     "S_needed": need, "S_ok": S >= need})
        e_prev = lip * e_prev + cbar / lam
    return {"layers": rows, "holds": all(r["S_ok"] for r in rows), "W0_upper": cbar,
            "readout_norm": _readout_norm(net), "error_bound_upper": _readout_norm(net) * e_prev,
            "S_needed": max(r["S_needed"] for r in rows)}


def _heads_are_r4(compiled) -> bool:
    """Every head: W_Q = e_one, W_K = W_V = e_{z_i}, W_O = e_{h_i} (so the query is constant and value = score)."""
    T, L = compiled.transformer, compiled.layout
    one = L.index("one")
    for sub in T.sublayers:
        if hasattr(sub, "heads"):
            for head in sub.heads:
                if head.size != 1:
                    return False
                q, k, v = head.W_Q[0], head.W_K[0], head.W_V[0]
                if [i for i, c in enumerate(q) if c] != [one] or q[one] != 1 or k != v:
                    return False
                kz = [i for i, c in enumerate(k) if c]
                if len(kz) != 1 or k[kz[0]] != 1 or L.block_of(kz[0]) != "z":
                    return False
                out = [e for e in range(L.dim) if head.W_O[e][0]]
                if len(out) != 1 or head.W_O[out[0]][0] != 1 or L.block_of(out[0]) != "h":
                    return False
    return True


def _same_weights(T1, T2) -> bool:
    """Exact equality of every weight of two Transformers (same sublayer kinds and matrices)."""
    if len(T1.sublayers) != len(T2.sublayers) or T1.embedding_dim != T2.embedding_dim:
        return False
    for a, b in zip(T1.sublayers, T2.sublayers):
        if hasattr(a, "W1") != hasattr(b, "W1"):
            return False
        if hasattr(a, "W1"):
            if (a.W1, a.b1, a.W2, a.b2) != (b.W1, b.b1, b.W2, b.b2):
                return False
        else:
            if len(a.heads) != len(b.heads):
                return False
            for h, g in zip(a.heads, b.heads):
                if (h.W_Q, h.W_K, h.W_V, h.W_O) != (g.W_Q, g.W_K, g.W_V, g.W_O):
                    return False
    return True


def _parse_net(net):
    if net is None:
        return o2_network()
    if isinstance(net, MaxoutNetwork):
        return net
    if isinstance(net, dict):
        return MaxoutNetwork.from_dict(net)
    raise InputTypeError("net", f"expected a MaxoutNetwork or its SPEC dict, got {type(net).__name__}")


def _parse_lams(lams):
    if not isinstance(lams, (list, tuple)) or not lams:
        raise InputTypeError("lams", "expected a non-empty list of positive numbers")
    if len(lams) > MAX_LAMBDAS:
        raise SizeLimitError("lams", f"{len(lams)} values exceed the limit {MAX_LAMBDAS}")
    out = []
    for i, v in enumerate(lams):
        q = parse_positive(v, f"lams[{i}]")
        if q > MAX_LAMBDA:
            raise InputError(f"lams[{i}]", f"must be <= 1e9, got {fraction_str(q)}")
        out.append(q)
    return out


def _points(net, box, lam, grid, near_ties, offsets, extra, ties):
    d = net.input_dim
    pts = []
    if d == 1:
        lo, hi = box[0]
        pts += [(lo + (hi - lo) * Fraction(q, grid),) for q in range(grid + 1)]
        if near_ties:
            for t in ties:
                for j in range(-offsets, offsets + 1):
                    x = t + Fraction(2 * j, offsets * lam)
                    if lo <= x <= hi:
                        pts.append((x,))
    else:
        import itertools

        axes = [[lo + (hi - lo) * Fraction(q, grid) for q in range(grid + 1)] for lo, hi in box]
        pts += list(itertools.product(*axes))
    pts += [tuple(p) for p in extra]
    seen, out = set(), []
    for p in pts:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def _read_balls(compiled, X) -> list:
    """``compiled.read`` for ball values (the read-out's exact constants converted to balls at the current
    precision)."""
    return list(compiled.read(X, BallContext()))


def _error_ball(compiled, x, lam, prec, cross_check=True, memo=None):
    """(ball of |T_lambda(x) - Phi(x)|_inf, outputs agree with the independent pass) at ``prec`` bits.
    ``memo`` (a dict, one per check of one ``compiled``): the outputs and error ball of a point already
    evaluated at this lambda and precision are looked up, the same balls (the O3 grid maximum and the
    near-tie scan revisit points of the certified loop)."""
    net = compiled.source
    X0 = compiled.embed(list(x))
    key = (tuple(x), lam, prec)
    hit = memo.get(key) if memo is not None else None
    if hit is None:
        Xl = compiled.transformer.evaluate(X0, attention="softmax", scale=lam, precision=prec)
    with workprec(prec):
        if hit is None:
            out = _read_balls(compiled, Xl)
            phi = net.evaluate(list(x))
            errs = [abs(o - to_ball(p)) for o, p in zip(out, phi)]
            err = errs[0]
            for e in errs[1:]:
                err = err.max(e)
            if memo is not None:
                memo[key] = (out, err)
        else:
            out, err = hit
        agree = True
        if cross_check:
            alt = _read_balls(compiled, softmax_forward_ball(compiled.transformer, X0, lam))
            agree = all(a.overlaps(o) for a, o in zip(alt, out))
    return err, agree


def _endpoints(b: arb) -> dict:
    lo, hi = ball_bounds(b)
    return {"lower": lo, "upper": hi, "approx": b.str(15, radius=True)}


def check_softmax_emulation(net=None, box=None, *, lams=(10, 100, 1000, 10000), S="40", factor="1",
                            grid: int = 32, near_ties: bool = True, tie_offsets: int = 8, extra_points=(),
                            search: bool = True, cross_check: bool = True, compiled=None) -> Result:
    """Check sup_K |T_lambda - Phi| <= factor * B(lambda) for the R4 Transformer of ``net`` on ``box`` (default:
    docs/paper1.md O2 on [0, 1], S = 40), at every lambda in ``lams``; see the module docstring.  ``S="auto"`` takes the
    smallest multiple of 1/8 meeting the lemma's hypothesis for the smallest lambda.

    ``compiled``: evaluate this CompiledMaxout (e.g. user-supplied or tampered weights) instead of compiling
    ``net``; its S is used, and the lemma is applied only if its weights equal the R4 compilation of ``net``."""
    net = _parse_net(net)
    box = parse_box([[0, 1]] if box is None else box, dim=net.input_dim)
    lams = _parse_lams(lams)
    factor = parse_positive(factor, "factor")
    for name, v, lo, hi in (("grid", grid, 1, 256), ("tie_offsets", tie_offsets, 1, 64)):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    if net.input_dim > 2:
        raise InputError("net", f"input dimension {net.input_dim} > 2: the point grid is limited to d <= 2")
    extra = [tuple(parse_exact(v, f"extra_points[{i}][{m}]") for m, v in enumerate(p))
             for i, p in enumerate(extra_points)]
    for i, p in enumerate(extra):
        if len(p) != net.input_dim or not all(lo <= v <= hi for v, (lo, hi) in zip(p, box)):
            raise InputError(f"extra_points[{i}]", "must be a point of the box")
    if S == "auto":
        need = lemma_hypotheses(net, box, Fraction(1), min(lams))["S_needed"]
        S = Fraction(-((-need * 8) // 1), 8)
        S = max(S, Fraction(1, 8))
    else:
        S = parse_positive(S, "S")
    if compiled is not None:
        if not isinstance(compiled, CompiledMaxout):
            raise InputTypeError("compiled", f"expected a CompiledMaxout, got {type(compiled).__name__}")
        if compiled.source.input_dim != net.input_dim or compiled.n_tokens != net.rank:
            raise InputError("compiled", "input dimension / tokens differ from the network's")
        S = compiled.S
    reference = compile_maxout(net, box, S=S)
    if compiled is None:
        compiled = reference
    weights_match = _same_weights(compiled.transformer, reference.transformer)
    ties = decision_points_1d(net, box[0][0], box[0][1]) if net.input_dim == 1 and near_ties else []
    structure_ok = _heads_are_r4(compiled) and weights_match

    per_lambda, point_sets, max_prec = [], [], LADDER[0]
    memo = {}          # (x, lambda, precision) -> (outputs, error ball) of this check's compiled network
    witness = None
    undecided = []
    disagreements = []
    all_hyp = True
    for lam in lams:
        hyp = lemma_hypotheses(net, box, S, lam)
        all_hyp = all_hyp and hyp["holds"]
        pts = _points(net, box, lam, grid, near_ties, tie_offsets, extra, ties)
        if len(pts) > MAX_POINTS:
            raise SizeLimitError("grid", f"{len(pts)} evaluation points exceed the limit {MAX_POINTS}")
        point_sets.append(pts)
        worst = None
        n_ok = 0
        for x in pts:
            decided = None
            for prec in LADDER:
                err, agree = _error_ball(compiled, x, lam, prec, cross_check, memo)
                with workprec(prec):
                    B = error_bound(net, lam)
                    C = to_ball(factor) * B
                    if err > C:
                        decided = "above"
                    elif err < C:
                        decided = "below"
                if not agree:
                    disagreements.append({"lambda": lam, "x": list(x), "precision_bits": prec})
                if decided:
                    break
            if worst is None or err.mid() > worst[1].mid():
                worst = (x, err, prec)
            if decided == "below":
                n_ok += 1
                max_prec = max(max_prec, prec)
            elif decided == "above":
                if witness is None:
                    witness = {"lambda": lam, "x": list(x), "error": _endpoints(err), "bound": _endpoints(C),
                               "precision_bits": prec}
            else:
                undecided.append({"lambda": lam, "x": list(x)})
        with workprec(128):
            B = error_bound(net, lam)
            wx, werr, wprec = worst
            per_lambda.append({
                "lambda": lam, "points": len(pts), "certified_below_bound": n_ok,
                "bound_B": _endpoints(B), "bound_B_upper_exact": hyp["error_bound_upper"],
                "max_error_point": list(wx), "max_error": _endpoints(werr),
                "lambda_times_max_error_upper": lam * ball_bounds(werr)[1],
                "hypotheses": hyp,
            })
    evidence = _evidence(compiled, per_lambda, ties, box, search, memo)
    evidence.update({
        "hypotheses": jsonable({"S": S, "S_sufficient_every_lambda": all_hyp,
                                "heads_have_R4_form": _heads_are_r4(compiled),
                                "weights_equal_R4_compilation_of_net": weights_match,
                                "Lip": [net.lipschitz(l) for l in range(net.depth)], "lip_sum": _lip_sum(net),
                                "rank_k": net.rank, "readout_norm": _readout_norm(net)}),
        "decision_points": jsonable(ties), "per_lambda": jsonable(per_lambda),
        "independent_cross_check": jsonable({"enabled": cross_check, "disagreements": disagreements}),
        "point_rule": {"grid": grid, "near_ties": near_ties, "tie_offsets": tie_offsets},
    })
    conventions = jsonable(CONVENTIONS)
    base = {"net": net.to_dict(), "box": [list(iv) for iv in box], "S": S, "factor": factor,
            "transformer": transformer_json(compiled)}
    if witness is not None:
        verdict, kind = Verdict.REFUTED, "softmax-emulation-exceeded"
        params = jsonable({**base, "lam": witness["lambda"]})
        cert = {"kind": kind, "witness": jsonable(witness["x"]), "precision_bits": witness["precision_bits"]}
        evidence["summary"] = (f"at x = {[fraction_str(v) for v in witness['x']]}, lambda = "
                               f"{fraction_str(witness['lambda'])} the certified error {witness['error']['approx']} "
                               f"exceeds {fraction_str(factor)} * B = {witness['bound']['approx']}")
    else:
        params = jsonable({**base, "instances": [{"lam": lam, "points": [list(x) for x in pts]}
                                                 for lam, pts in zip(lams, point_sets)]})
        cert = {"kind": "softmax-emulation-points", "precision_bits": max_prec}
        if disagreements or undecided or not structure_ok:
            verdict = Verdict.INCONCLUSIVE
            evidence["summary"] = (f"{len(undecided)} undecided point(s), {len(disagreements)} cross-check "
                                   f"disagreement(s), weights are the R4 compilation of the network: {structure_ok}")
        elif not all_hyp or factor < 1:
            verdict = Verdict.INCONCLUSIVE
            evidence["summary"] = ("every point certified below the bound, but " +
                                   ("the lemma's hypothesis S >= sup|pieces| + Lip e fails" if not all_hyp else
                                    f"the lemma gives only factor 1, not {fraction_str(factor)}") +
                                   ": the sup over K is not established")
        else:
            verdict = Verdict.PROVED
            evidence["summary"] = f"lemma hypotheses hold exactly (S = {fraction_str(S)}); every point certified"
        if verdict is Verdict.INCONCLUSIVE:
            cert = {}
    negative = factor < 1
    return Result("T7.n" if negative else "T7", kernel_softmax.emulation_statement(params, conventions),
                  verdict, Method.CERTIFIED, certificate=cert, parameters=params, conventions=conventions,
                  evidence=evidence)


def transformer_json(compiled) -> dict:
    """The compiled Transformer with its R4 embedding and read-out, in the kernel's recorded format
    (``verify.kernel._cells``: tokens, coordinates, embed {one, x}, sublayers, read {token, W, b})."""
    T, net = compiled.transformer, compiled.source
    d, E, k = net.input_dim, T.embedding_dim, compiled.n_tokens
    base = compiled.embed([Fraction(0)] * d)
    xs = []
    for i in range(d):
        e = [Fraction(int(j == i)) for j in range(d)]
        X = compiled.embed(e)
        xs.append([[X[r][c] - base[r][c] for c in range(k)] for r in range(E)])
    subs = []
    for sub in T.sublayers:
        if hasattr(sub, "W1"):
            subs.append({"ffn": {"W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}})
        else:
            subs.append({"attention": [{"W_Q": h.W_Q, "W_K": h.W_K, "W_V": h.W_V, "W_O": h.W_O} for h in sub.heads]})
    NL = net.widths[-1]
    if net.readout is None:
        rW, rb = [[Fraction(int(c == i)) for c in range(NL)] for i in range(NL)], [Fraction(0)] * NL
    else:
        rW, rb = net.readout
    read_W = [list(row) + [Fraction(0)] * (E - NL) for row in rW]
    return jsonable({"tokens": k, "coordinates": list(T.coordinate_names), "embed": {"one": base, "x": xs},
                     "sublayers": subs, "read": {"token": 0, "W": read_W, "b": list(rb)}})


def _ball_float(b: arb) -> float:
    lo, hi = ball_bounds(b)
    return float((lo + hi) / 2)


def _evidence(compiled, per_lambda, ties, box, search, memo=None) -> dict:
    fig_err = [[float(p["lambda"]), float(p["max_error"]["upper"])] for p in per_lambda]
    fig_bound = [[float(p["lambda"]), float(p["bound_B"]["upper"])] for p in per_lambda]
    lam_err = [[float(p["lambda"]), float(p["lambda_times_max_error_upper"])] for p in per_lambda]
    ev = {
        "label": "evidence: the per-point balls are rigorous, but the maxima below are over finite point sets",
        "figure_error_vs_lambda": fig_err,
        "figure_bound_vs_lambda": fig_bound,
        "lambda_times_max_error": lam_err,
        "lambda_times_bound": float(per_lambda[0]["bound_B"]["upper"] * per_lambda[0]["lambda"]),
        "figure": {"type": "emulation_error", "series": [   # typed figure data (docs/reports.md)
            {"name": "largest certified error over the checked points", "role": "certified",
             "points": [[fraction_str(p["lambda"]), repr(float(p["max_error"]["upper"]))] for p in per_lambda]},
            {"name": "bound of the softmax emulation lemma", "role": "bound",
             "points": [[fraction_str(p["lambda"]), repr(float(p["bound_B"]["upper"]))] for p in per_lambda]}]},
    }
    if compiled.source == o2_network() and [list(iv) for iv in box] == [[0, 1]]:
        ref = {}
        for p in per_lambda:
            key = int(p["lambda"]) if p["lambda"].denominator == 1 else None
            if key in O3_REFERENCE:
                grid_max = _grid_max(compiled, p["lambda"], memo)
                ref[str(key)] = {"reference": O3_REFERENCE[key], "certified_max_on_q_over_32": grid_max,
                                 "agrees_to_3_digits": _agree(grid_max, O3_REFERENCE[key])}
        ev["o3_reference"] = ref
    if search and ties:
        ev["near_tie_search"] = _near_tie_search(compiled, per_lambda, ties, box, memo)
    return ev


def _grid_max(compiled, lam, memo=None) -> str:
    best = None
    for q in range(33):
        err, _ = _error_ball(compiled, (Fraction(q, 32),), lam, 128, cross_check=False, memo=memo)
        if best is None or err.mid() > best.mid():
            best = err
    return best.str(6, radius=False)


def _agree(value: str, ref: str) -> bool:
    v, r = mpmath.mpf(value), mpmath.mpf(ref)
    digits = len(ref.split("e")[0].replace(".", "").lstrip("0"))
    return bool(abs(v - r) <= mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(r))) - digits + 1))


def _near_tie_search(compiled, per_lambda, ties, box, memo=None) -> list:
    """Evidence: maximise the error over [t - 2/lambda, t + 2/lambda] by a 33-point scan and 16 ternary steps."""
    lo_box, hi_box = box[0]
    out = []
    for p in per_lambda:
        lam = p["lambda"]
        B = float(p["bound_B"]["upper"])
        best = (-1.0, None)
        for t in ties:
            lo, hi = max(lo_box, t - 2 / lam), min(hi_box, t + 2 / lam)
            f = lambda x: _ball_float(_error_ball(compiled, (x,), lam, 128, cross_check=False, memo=memo)[0])
            xs = [lo + (hi - lo) * Fraction(i, 32) for i in range(33)]
            vals = [f(x) for x in xs]
            i = max(range(len(xs)), key=lambda j: vals[j])
            a, b = xs[max(i - 1, 0)], xs[min(i + 1, 32)]
            for _ in range(16):
                m1, m2 = a + (b - a) / 3, b - (b - a) / 3
                if f(m1) < f(m2):
                    a = m1
                else:
                    b = m2
            xm = (a + b) / 2
            v = max(vals[i], f(xm))
            xv = xm if f(xm) >= vals[i] else xs[i]
            if v > best[0]:
                best = (v, xv)
        out.append({"lambda": float(lam), "max_error_found": best[0], "at_x": float(best[1]),
                    "ratio_to_bound": best[0] / B, "lambda_times_max_error": best[0] * float(lam)})
    return out


# -- T7.n: sharpness ----------------------------------------------------------------------------------------

def sharpness_point(lam) -> Fraction:
    """A rational point next to x* = (1 + W0(1/e))/(2 lambda) (midpoint of its 256-bit ball)."""
    with workprec(256):
        return rational_inside((1 + sharp_constant(2)) / (2 * to_ball(Fraction(lam))))


def check_softmax_sharpness(lam=100, factor="999/1000") -> Result:
    """T7.n: Phi = max(x, -x) on [-1, 1] (L = 1, k = 2, B = W0(1/e)/lambda).  At x_q next to x* the certified
    error is within 1e-30 of B, so any factor < 1 is REFUTED; factor >= 1 runs the full check (PROVED)."""
    lam = parse_positive(lam, "lam")
    if lam > MAX_LAMBDA:
        raise InputError("lam", f"must be <= 1e9, got {fraction_str(lam)}")
    factor = parse_positive(factor, "factor")
    net = abs_network()
    xq = sharpness_point(lam)
    if factor >= 1:
        # the lemma gives <= B everywhere; x_q itself is not evaluated (its error equals B to ~1e-70, which no
        # finite precision can certify as <= B; attainment is what the factor < 1 case shows)
        return check_softmax_emulation(net, [[-1, 1]], lams=(lam,), S="auto", factor=factor, grid=16,
                                       search=False)
    compiled = compile_maxout(net, [[-1, 1]], S=2)
    verdict, cert, evidence = Verdict.INCONCLUSIVE, {}, {}
    for prec in (256, 512):
        err, agree = _error_ball(compiled, (xq,), lam, prec)
        with workprec(prec):
            B = error_bound(net, lam)
            C = to_ball(factor) * B
            gap = err - B
            evidence = {"x_q": fraction_str(xq), "x_star": "(1 + W0(1/e))/(2 lambda)", "error": err.str(30, radius=True),
                        "bound_B": B.str(30, radius=True), "error_minus_B": gap.str(10, radius=True),
                        "error_within_1e-30_of_B": bool(abs(gap) < to_ball(Fraction(1, 10**30))),
                        "independent_cross_check_agrees": agree}
            if agree and err > C:
                verdict = Verdict.REFUTED
                cert = {"kind": "softmax-emulation-exceeded", "witness": [fraction_str(xq)], "precision_bits": prec}
                break
    params = jsonable({"net": net.to_dict(), "box": [[-1, 1]], "S": 2, "factor": factor,
                       "transformer": transformer_json(compiled), "lam": lam})
    conventions = jsonable(CONVENTIONS)
    return Result("T7.n", kernel_softmax.emulation_statement(params, conventions), verdict, Method.CERTIFIED,
                  certificate=cert, parameters=params, conventions=conventions, evidence=evidence)
