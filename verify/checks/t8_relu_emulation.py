"""T8: ReLU network -> rank-2 maxout -> 2-token hardmax Transformer, exact on the box (spec maxout R6).

A ReLU network (weights W_l, biases b_l, affine read-out) is written as the rank-2 maxout network with pieces
(W_l[i, :], b_l[i]) and (0, 0) (:meth:`MaxoutNetwork.from_relu`) and compiled by R4 (n = 2 tokens, N_l heads of
size 1, E = 2 Nbar + 3, FFN widths 4 N_l + 4 Nbar).  "Equal on the whole box" is decided by
:func:`verify.checks.emulation.prove_emulation` (exact region decomposition) against the **ReLU network itself**
(evaluated with ``ops.relu``), so the whole chain ReLU -> maxout -> Transformer is checked end to end.

Also: the [LIT] identities ReLU(t) = max(t, 0), max(a, b) = a + ReLU(b - a), and a max of k numbers by a
tournament of ceil(log2 k) ReLU levels (exact decision-tree case analysis over every ordering, k <= 8); and
T8.n, one head shared by two units (REFUTED with the exact witness x = 1/2).

>>> check_relu_identities(k_max=4).verdict.value
'proved'
>>> check_shared_head().certificate["summary"]
'x = 1/2: unit 2 reads -1/2 instead of ReLU(-1/2) = 0 (the single score row selects token 1)'
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import sympy

from ..constructions.maxout_compiler import compile_maxout
from ..engines.exact import fraction_str, parse_exact
from ..errors import InputError, InputTypeError
from ..objects.maxout import MaxoutNetwork, coerce_input, parse_box
from ..objects.ops import EXACT, Ops, linear_combination
from ..objects.transformer import Attention, Head, Transformer
from ..results import Method, Result, Verdict
from .t1_hardmax_max import LinearForm, UnsupportedDecision, explore_decisions

__all__ = ["ReLUNetwork", "check_relu_emulation", "check_random_relu_emulation", "check_zigzag_relu_emulation",
           "check_relu_identities", "check_shared_head", "zigzag_relu", "random_relu_network"]

STATEMENT = ("a ReLU network written as rank-2 maxout and compiled by R4 is reproduced exactly on the box by a "
             "hardmax Transformer with n = 2 tokens, N_l heads of size 1, E = 2 Nbar + 3, FFN widths 4 N_l + 4 Nbar")


class ReLUNetwork:
    """h_l = ReLU(W_l h_{l-1} + b_l), then an optional affine read-out; exact, traceable ``evaluate(x, ops)``."""

    def __init__(self, weights, biases, readout=None):
        self.maxout = MaxoutNetwork.from_relu(weights, biases, readout)   # validates everything
        self.weights = tuple(tuple(w[0] for w in unit) for unit, _ in self.maxout.layers)
        self.biases = tuple(tuple(b[0] for b in bias) for _, bias in self.maxout.layers)
        self.readout = self.maxout.readout
        self.input_dim = self.maxout.input_dim
        self.widths = self.maxout.widths

    def evaluate(self, x, ops: Ops = EXACT) -> tuple:
        h = self.maxout._input(x)
        for W, b in zip(self.weights, self.biases):
            h = tuple(ops.relu(_lin(h, w, bi)) for w, bi in zip(W, b))
        if self.readout:
            h = tuple(_lin(h, w, bi) for w, bi in zip(*self.readout))
        return h

    __call__ = evaluate

    def to_dict(self):
        d = {"weights": [[[fraction_str(v) for v in row] for row in W] for W in self.weights],
             "biases": [[fraction_str(v) for v in b] for b in self.biases]}
        if self.readout:
            d["readout"] = {"W": [[fraction_str(v) for v in r] for r in self.readout[0]],
                            "b": [fraction_str(v) for v in self.readout[1]]}
        return d


_lin = linear_combination


def zigzag_relu(q: int, L: int = 1) -> ReLUNetwork:
    """g_q^{oL} on [0, 1] as a ReLU network (R7): units ReLU(y - i/q), i = 0..q-1, read-out
    y' = q h_0 - 2q sum_{i>=1} (-1)^{i+1} h_i, folded into the next layer."""
    if not isinstance(q, int) or not 2 <= q <= 8 or not isinstance(L, int) or not 1 <= L <= 6:
        raise InputError("q", "need integers 2 <= q <= 8 and 1 <= L <= 6")
    r = [Fraction(q)] + [Fraction(-2 * q * (-1) ** (i + 1)) for i in range(1, q)]
    weights, biases = [], []
    for l in range(L):
        if l == 0:
            weights.append([[1] for _ in range(q)])
        else:
            weights.append([list(r) for _ in range(q)])
        biases.append([Fraction(-i, q) for i in range(q)])
    return ReLUNetwork(weights, biases, readout=([r], [0]))


def random_relu_network(rng: random.Random, d: int, widths, denominators: int = 4) -> ReLUNetwork:
    """Rational weights and biases in [-2, 2] with denominators <= ``denominators``, linear read-out to 1 output."""
    def num():
        den = rng.randint(1, denominators)
        return Fraction(rng.randint(-2 * den, 2 * den), den)

    weights, biases, prev = [], [], d
    for N in widths:
        weights.append([[num() for _ in range(prev)] for _ in range(N)])
        biases.append([num() for _ in range(N)])
        prev = N
    return ReLUNetwork(weights, biases, readout=([[num() for _ in range(prev)]], [num()]))


def _sizes_ok(compiled) -> dict:
    net = compiled.source
    s = compiled.sizes()
    nbar = compiled.n_bar
    want = {"tokens": 2, "embedding": 2 * nbar + 3, "heads_per_layer": list(net.widths),
            "ffn_widths": [4 * N + 4 * nbar for N in net.widths], "sublayers": 2 * net.depth}
    got = {k: s[k] for k in want}
    return {"expected": want, "measured": got, "ok": got == want, "nonzero_ratio": s["nonzero_ratio"],
            "transformer_nonzeros": s["transformer_nonzeros"], "network_parameters": s["network_parameters"]}


def _prove(relu: ReLUNetwork, box, tie, S=None):
    from .emulation import prove_emulation   # H2's exact region decomposition

    compiled = compile_maxout(relu.maxout, box, S=S)
    sizes = _sizes_ok(compiled)
    res = prove_emulation((relu, compiled), compiled.box, tie=tie, claim="T8", record_regions=True)
    return compiled, sizes, res


def check_relu_emulation(weights, biases, readout=None, box=None, tie: str = "both", S=None) -> Result:
    """One ReLU network on ``box``: PROVED iff the compiled 2-token Transformer equals the ReLU network on the
    whole box (exact) and every size matches R6; REFUTED with prove_emulation's exact witness otherwise."""
    relu = ReLUNetwork(weights, biases, readout)
    if box is None:
        raise InputError("box", "missing (a list of [lo, hi], one per input coordinate)")
    box = parse_box(box, dim=relu.input_dim)
    compiled, sizes, res = _prove(relu, box, tie, S)
    params = {"network": relu.to_dict(), "box": [list(iv) for iv in box], "tie": tie, "S": compiled.S}
    cert = dict(res.certificate)
    if cert.get("kind") == "emulation-regions":
        # the regions' network maps are the ReLU network's; its rank-2 maxout form is the same function
        cert["network"] = relu.maxout.to_dict()
    cert["sizes"] = sizes
    cert["S_bound_certified"] = compiled.S_bound_certified
    verdict = res.verdict
    if verdict is Verdict.PROVED and not sizes["ok"]:
        verdict = Verdict.REFUTED
        cert["summary"] = f"sizes differ from R6: {sizes['measured']} vs {sizes['expected']}"
        cert.pop("kind", None)
    return Result("T8", STATEMENT, verdict, res.method, certificate=cert, parameters=params,
                  conventions={**res.conventions, **compiled.conventions})


def check_random_relu_emulation(count: int = 6, seed: int = 20260308, dims=(1, 2), max_width: int = 4,
                                max_depth: int = 3, tie: str = "both", max_cells: int = 20000) -> Result:
    """``count`` seeded random rational ReLU networks (d in ``dims``, widths <= max_width, L <= max_depth) on
    [-1, 1]^d; PROVED iff every one is PROVED equal on the whole box; the first failure otherwise."""
    for name, v, hi in (("count", count, 200), ("max_width", max_width, 8), ("max_depth", max_depth, 4)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
            raise InputError(name, f"must be an integer in [1, {hi}], got {v!r}")
    from .emulation import prove_emulation

    rng = random.Random(seed)
    rows = []
    for c in range(count):
        d = dims[c % len(dims)]
        L = rng.randint(1, max_depth)
        widths = [rng.randint(1, max_width) for _ in range(L)]
        relu = random_relu_network(rng, d, widths)
        box = tuple((Fraction(-1), Fraction(1)) for _ in range(d))
        compiled = compile_maxout(relu.maxout, box)
        sizes = _sizes_ok(compiled)
        res = prove_emulation((relu, compiled), box, tie=tie, claim="T8", record_regions=False, max_cells=max_cells)
        row = {"index": c, "d": d, "widths": widths, "verdict": res.verdict.value, "cells": res.certificate.get("cells"),
               "sizes_ok": sizes["ok"], "S": compiled.S, "network": relu.to_dict()}
        rows.append(row)
        if res.verdict is not Verdict.PROVED or not sizes["ok"]:
            verdict = res.verdict if res.verdict is not Verdict.PROVED else Verdict.REFUTED
            return Result("T8", STATEMENT, verdict, Method.EXACT, seeds={"networks": seed},
                          parameters={"count": count, "dims": list(dims), "max_width": max_width, "max_depth": max_depth},
                          certificate={"summary": f"network {c}: {res.certificate.get('summary')}", "failed": row,
                                       "detail": {k: v for k, v in res.certificate.items() if k != "kind"}})
    return Result("T8", STATEMENT, Verdict.PROVED, Method.EXACT, seeds={"networks": seed},
                  parameters={"count": count, "dims": list(dims), "max_width": max_width, "max_depth": max_depth,
                              "tie": tie},
                  conventions={"box": "[-1, 1]^d", "weights": "rationals in [-2, 2], denominators <= 4"},
                  certificate={"summary": f"{count} random ReLU networks equal to their compiled 2-token Transformers "
                                          f"on the whole box ({sum(r['cells'] or 0 for r in rows)} exact cells)",
                               "networks": rows})


def check_zigzag_relu_emulation(q: int = 2, L: int = 1, tie: str = "both") -> Result:
    """The zigzag network g_q^{oL} on [0, 1], compiled with its certified S, equal on the whole interval."""
    relu = zigzag_relu(q, L)
    r = check_relu_emulation([list(map(list, W)) for W in relu.weights], [list(b) for b in relu.biases],
                             readout=relu.readout, box=[[0, 1]], tie=tie)
    return Result("T8", r.statement, r.verdict, r.method, certificate=r.certificate,
                  parameters={**r.parameters, "family": f"zigzag g_{q}^{L}"}, conventions=r.conventions)


# ---------------------------------------------------------------------------------------------
# [LIT] identities

def _tournament(values, ops):
    """max of the values by levels of pairwise a + ReLU(b - a); returns (max, number of ReLU levels)."""
    levels = 0
    vals = list(values)
    while len(vals) > 1:
        nxt = []
        for i in range(0, len(vals) - 1, 2):
            a, b = vals[i], vals[i + 1]
            nxt.append(a + ops.relu(b - a))
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
        levels += 1
    return vals[0], levels


def check_relu_identities(k_max: int = 8) -> Result:
    """ReLU(t) = max(t, 0) and max(a, b) = a + ReLU(b - a) by a symbolic case split (SymPy), and the
    tournament max of k numbers (k = 1..k_max) with exactly ceil(log2 k) ReLU levels, proved on all of Q^k by
    the exact decision-tree case analysis."""
    if not isinstance(k_max, int) or isinstance(k_max, bool) or not 1 <= k_max <= 8:
        raise InputError("k_max", f"must be an integer in [1, 8], got {k_max!r}")
    t = sympy.Symbol("t", real=True)
    a = sympy.Symbol("a", real=True)
    pos, neg = sympy.Symbol("u", positive=True), sympy.Symbol("u", nonpositive=True)
    relu = lambda e: sympy.Piecewise((e, e > 0), (0, True))
    cases = {}
    # ReLU(t) = max(t, 0): t = u > 0 and t = u <= 0
    cases["relu_is_max_t_0"] = all(sympy.simplify(relu(u) - sympy.Max(u, 0)) == 0 for u in (pos, neg))
    # max(a, b) = a + ReLU(b - a): b = a + u with u > 0 and u <= 0
    cases["max_is_a_plus_relu"] = all(sympy.simplify(sympy.Max(a, a + u) - (a + relu(u))) == 0 for u in (pos, neg))
    tour = {}
    for k in range(1, k_max + 1):
        X = [LinearForm.var(i) for i in range(k)]
        try:
            leaves, nodes = explore_decisions(k, lambda ops: _tournament(X, ops))
        except UnsupportedDecision:
            leaves = None
        ok = leaves is not None
        levels = None
        for ops, (m, lv) in leaves or []:
            levels = lv
            top = ops.classes()[0][0]
            rep = {i: ops.find(i) for i in range(k)}
            if m.substitute(rep).key() != LinearForm.var(top).substitute(rep).key():
                ok = False
        expected_levels = math.ceil(math.log2(k)) if k > 1 else 0
        tour[str(k)] = {"proved": ok, "leaves": len(leaves or []), "relu_levels": levels,
                        "ceil_log2_k": expected_levels}
        ok = ok and levels == expected_levels
        tour[str(k)]["proved"] = ok
    all_ok = all(cases.values()) and all(v["proved"] for v in tour.values())
    return Result("T8", "ReLU(t) = max(t, 0); max(a, b) = a + ReLU(b - a); a max of k numbers takes ceil(log2 k) "
                        "ReLU levels (tournament)", Verdict.PROVED if all_ok else Verdict.REFUTED, Method.EXACT,
                  parameters={"k_max": k_max},
                  certificate={"summary": f"symbolic case splits hold; tournament max proved on all of Q^k for "
                                          f"k = 1..{k_max} with ceil(log2 k) ReLU levels" if all_ok else
                                          "an identity failed", "identities": cases, "tournament": tour})


# ---------------------------------------------------------------------------------------------
# T8.n: one head shared by two units

def check_shared_head(x="1/2", tie: str = "both") -> Result:
    """u1 = ReLU(x), u2 = ReLU(-x) on [-1, 1] compiled with ONE head (score row of unit 1, values of both
    units) instead of one head per unit.  Claim checked: this Transformer equals the network; REFUTED at the
    exact witness ``x`` (the R6 negative), with prove_emulation's own witness recorded beside it."""
    from .emulation import AlteredCompiled, prove_emulation

    x = parse_exact(x, "x")
    if not -1 <= x <= 1:
        raise InputError("x", f"must lie in the box [-1, 1], got {fraction_str(x)}")
    relu = ReLUNetwork([[[1], [-1]]], [[0, 0]])
    compiled = compile_maxout(relu.maxout, [[-1, 1]])
    T = compiled.transformer
    E = T.embedding_dim
    names = list(T.coordinate_names)
    one, z1, z2, h1, h2 = (names.index(c) for c in ("one", "z_1", "z_2", "h_1", "h_2"))
    row = lambda i: [1 if e == i else 0 for e in range(E)]
    shared = Head([row(one), [0] * E], [row(z1), [0] * E], [row(z1), row(z2)],
                  [[1 if e == h1 else 0, 1 if e == h2 else 0] for e in range(E)])
    altered = AlteredCompiled(compiled, Transformer([T.sublayers[0], Attention([shared])], coordinate_names=names),
                              note="one size-2 head shared by both units (score row of unit 1)")
    rules = ["average", "first"] if tie == "both" else [tie]
    want = relu.evaluate([x])
    wit = None
    for rule in rules:
        got = altered([x], tie=rule)
        if got != want:
            wit = (rule, got)
            break
    statement = "one hardmax head shared by the units u1 = ReLU(x), u2 = ReLU(-x) reproduces the network on [-1, 1]"
    full = prove_emulation((relu, altered), [(-1, 1)], tie=tie, claim="T8", record_regions=False)
    params = {"x": x, "tie": tie}
    if wit is None:
        return Result("T8.n", statement, full.verdict if full.verdict is not Verdict.PROVED else Verdict.INCONCLUSIVE,
                      Method.EXACT, parameters=params,
                      certificate={"summary": f"no difference at x = {fraction_str(x)}; region check: "
                                              f"{full.certificate.get('summary')}"})
    rule, got = wit
    return Result("T8.n", statement, Verdict.REFUTED, Method.EXACT, parameters=params,
                  certificate={"summary": f"x = {fraction_str(x)}: unit 2 reads {fraction_str(got[1])} instead of "
                                          f"ReLU({fraction_str(-x)}) = {fraction_str(want[1])} (the single score row "
                                          f"selects token 1)",
                               "witness": {"x": [x], "tie": rule, "network": list(want), "transformer": list(got)},
                               "region_check": {"verdict": full.verdict.value,
                                                "summary": full.certificate.get("summary")}})
