"""T8: ReLU network -> rank-2 maxout -> 2-token hardmax Transformer, exact on the box (docs/paper1.md R6).

A ReLU network (weights W_l, biases b_l, affine read-out) is written as the rank-2 maxout network with pieces
(W_l[i, :], b_l[i]) and (0, 0) (:meth:`MaxoutNetwork.from_relu`) and compiled by R4 (n = 2 tokens, N_l heads of
size 1, E = 2 Nbar + 3, FFN widths 4 N_l + 4 Nbar).  "Equal on the whole box" is decided by
:func:`verify.decide.emulation.prove_emulation` (exact region decomposition) against the **ReLU network itself**
(evaluated with ``ops.relu``), so the whole chain ReLU -> maxout -> Transformer is checked end to end.

Also: the [LIT] identities ReLU(t) = max(t, 0), max(a, b) = a + ReLU(b - a), and a max of k numbers by a
tournament of ceil(log2 k) ReLU levels (exact decision-tree case analysis over every ordering, k <= 8); and
T8.n, one head shared by two units (REFUTED with the exact witness x = 1/2).

>>> check_relu_identities(k_max=4).verdict.value
'proved'
>>> r = check_shared_head()
>>> r.verdict.value, r.certificate["x"], r.certificate["network"], r.certificate["transformer"]
('refuted', ['1/2'], ['1/2', '0'], ['1/2', '-1/2'])
"""

from __future__ import annotations

import math
import random
from fractions import Fraction


from ..constructions.maxout_compiler import compile_maxout
from ..decide.casesplit import LinearForm, UnsupportedDecision, explore_decisions
from ..arith.context import EXACT, Context
from ..arith.exact import fraction_str, parse_exact
from ..errors import InputError, InputTypeError
from ..objects.maxout import MaxoutNetwork, coerce_input, parse_box
from ..objects.transformer import Attention, Head, Transformer
from ..results import Method, Result, Verdict

__all__ = ["ReLUNetwork", "check_relu_emulation", "check_random_relu_emulation", "check_zigzag_relu_emulation",
           "check_relu_identities", "check_shared_head", "zigzag_relu", "random_relu_network"]



class ReLUNetwork:
    """h_l = ReLU(W_l h_{l-1} + b_l), then an optional affine read-out; exact, traceable ``evaluate(x, ops)``."""

    def __init__(self, weights, biases, readout=None):
        self.maxout = MaxoutNetwork.from_relu(weights, biases, readout)   # validates everything
        self.weights = tuple(tuple(w[0] for w in unit) for unit, _ in self.maxout.layers)
        self.biases = tuple(tuple(b[0] for b in bias) for _, bias in self.maxout.layers)
        self.readout = self.maxout.readout
        self.input_dim = self.maxout.input_dim
        self.widths = self.maxout.widths

    def evaluate(self, x, ops: Context = EXACT) -> tuple:
        h = self.maxout._input(x)
        for W, b in zip(self.weights, self.biases):
            h = tuple(ops.relu(ops.linear_combination(h, w, bi)) for w, bi in zip(W, b))
        if self.readout:
            h = tuple(ops.linear_combination(h, w, bi) for w, bi in zip(*self.readout))
        return h

    __call__ = evaluate

    def to_dict(self):
        d = {"weights": [[[fraction_str(v) for v in row] for row in W] for W in self.weights],
             "biases": [[fraction_str(v) for v in b] for b in self.biases]}
        if self.readout:
            d["readout"] = {"W": [[fraction_str(v) for v in r] for r in self.readout[0]],
                            "b": [fraction_str(v) for v in self.readout[1]]}
        return d



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


def _prove(relu: ReLUNetwork, box, tie, S=None, **kw):
    from ..decide.emulation import prove_emulation   # exact region decomposition of the box

    compiled = compile_maxout(relu.maxout, box, S=S)
    res = prove_emulation((relu, compiled), compiled.box, tie=tie, claim="T8", network=relu.maxout, formula="R4",
                          **kw)
    return compiled, res


def _with_evidence(res: Result, compiled, relu, **extra) -> Result:
    ev = dict(res.evidence)
    ev.update({"S": compiled.S, "S_bound_certified": compiled.S_bound_certified, "relu_network": relu.to_dict(),
               "sizes": compiled.sizes(), "construction": compiled.conventions}, **extra)
    return Result("T8", res.statement, res.verdict, res.method, certificate=res.certificate,
                  parameters=res.parameters, conventions=res.conventions,
                  seeds=res.seeds, evidence=ev)


def check_relu_emulation(weights, biases, readout=None, box=None, tie: str = "both", S=None) -> Result:
    """One ReLU network on ``box``: PROVED iff the compiled 2-token Transformer equals the ReLU network (in its
    rank-2 maxout form, the network the kernel evaluates) on the whole closed box and every size matches R4 with
    k = 2 (R6: n = 2, E = 2 Nbar + 3, FFN widths 4 N_l + 4 Nbar); REFUTED with an exact witness otherwise."""
    relu = ReLUNetwork(weights, biases, readout)
    if box is None:
        raise InputError("box", "missing (a list of [lo, hi], one per input coordinate)")
    box = parse_box(box, dim=relu.input_dim)
    compiled, res = _prove(relu, box, tie, S)
    return _with_evidence(res, compiled, relu)


def random_relu_instance(index: int, seed: int = 20260308, dims=(1, 2), max_width: int = 4, max_depth: int = 3):
    """The ``index``-th network of the seeded random family (d = dims[index % len(dims)], L <= max_depth,
    widths <= max_width) and its box [-1, 1]^d."""
    rng = random.Random(seed)
    for c in range(index + 1):
        d = dims[c % len(dims)]
        L = rng.randint(1, max_depth)
        widths = [rng.randint(1, max_width) for _ in range(L)]
        relu = random_relu_network(rng, d, widths)
    return relu, tuple((Fraction(-1), Fraction(1)) for _ in range(d))


def check_random_relu_emulation(index: int = 0, seed: int = 20260308, dims=(1, 2), max_width: int = 4,
                                max_depth: int = 3, tie: str = "both", max_cells: int = 20000) -> Result:
    """Instance ``index`` of the seeded random ReLU family (:func:`random_relu_instance`) on [-1, 1]^d: its own
    Result, whose statement names this one network by its weights (the audits list the instances one by one;
    no universal claim is made from samples)."""
    for name, v, hi in (("index", index, 199), ("max_width", max_width, 8), ("max_depth", max_depth, 4)):
        if not isinstance(v, int) or isinstance(v, bool) or not (0 if name == "index" else 1) <= v <= hi:
            raise InputError(name, f"must be an integer in [{0 if name == 'index' else 1}, {hi}], got {v!r}")
    relu, box = random_relu_instance(index, seed, dims, max_width, max_depth)
    compiled, res = _prove(relu, box, tie, max_cells=max_cells, record_regions=False)
    out = _with_evidence(res, compiled, relu, family={"index": index, "seed": seed, "dims": list(dims),
                                                      "max_width": max_width, "max_depth": max_depth})
    return Result(out.claim, out.statement, out.verdict, out.method, certificate=out.certificate,
                  parameters=out.parameters, conventions=out.conventions, seeds={"networks": seed},
                  evidence=out.evidence)


def check_zigzag_relu_emulation(q: int = 2, L: int = 1, tie: str = "both") -> Result:
    """The zigzag network g_q^{oL} on [0, 1], compiled with its certified S, equal on the whole interval."""
    relu = zigzag_relu(q, L)
    r = check_relu_emulation([list(map(list, W)) for W in relu.weights], [list(b) for b in relu.biases],
                             readout=relu.readout, box=[[0, 1]], tie=tie)
    return Result("T8", r.statement, r.verdict, r.method, certificate=r.certificate, parameters=r.parameters,
                  conventions=r.conventions, evidence={**r.evidence, "family": f"zigzag g_{q}^{L}"})


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
    """ReLU(t) = max(t, 0), max(a, b) = a + ReLU(b - a) and the tournament max of k numbers (k = 1..k_max) with
    exactly ceil(log2 k) ReLU levels, on all of R^k: kind ``relu-tournament`` (the kernel decides every ReLU of
    the tournament on every open ordering cone; the first two identities are its k = 2 case).  The search side
    runs the same case analysis with the decision-tree explorer of :mod:`verify.decide.casesplit` first
    (evidence)."""
    if not isinstance(k_max, int) or isinstance(k_max, bool) or not 2 <= k_max <= 8:
        raise InputError("k_max", f"must be an integer in [2, 8], got {k_max!r}")
    from ..kernel import emulation as kernel_emulation

    tour = {}
    all_ok = True
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
            if not ops.same(m, ops.top()):
                ok = False
        expected_levels = math.ceil(math.log2(k)) if k > 1 else 0
        ok = ok and levels == expected_levels
        tour[str(k)] = {"proved": ok, "leaves": len(leaves or []), "relu_levels": levels,
                        "ceil_log2_k": expected_levels}
        all_ok = all_ok and ok
    params = {"k_max": k_max}
    if not all_ok:
        return Result("T8", kernel_emulation.tournament_statement(params, {}), Verdict.INCONCLUSIVE, Method.EXACT,
                      parameters=params, certificate={"summary": "the decision-tree explorer did not confirm the "
                                                                 "tournament"}, evidence={"tournament": tour})
    return Result("T8", kernel_emulation.tournament_statement(params, {}), Verdict.PROVED, Method.EXACT,
                  parameters=params, certificate={"kind": "relu-tournament"},
                  evidence={"summary": f"tournament max proved on all of R^k for k = 1..{k_max} with ceil(log2 k) "
                                       f"ReLU levels", "tournament": tour})


# ---------------------------------------------------------------------------------------------
# T8.n: one head shared by two units

def check_shared_head(x="1/2", tie: str = "both") -> Result:
    """u1 = ReLU(x), u2 = ReLU(-x) on [-1, 1] compiled with ONE head (score row of unit 1, values of both
    units) instead of one head per unit.  Claim checked: this Transformer equals the network; REFUTED at the
    exact witness ``x`` (the R6 negative), with prove_emulation's own witness recorded beside it."""
    from ..decide.emulation import AlteredCompiled, prove_emulation

    x = parse_exact(x, "x")
    if not -1 <= x <= 1:
        raise InputError("x", f"must lie in the box [-1, 1], got {fraction_str(x)}")
    relu = ReLUNetwork([[[1], [-1]]], [[0, 0]])
    compiled = compile_maxout(relu.maxout, [[-1, 1]])
    T, L = compiled.transformer, compiled.layout
    # the shared head stays inside the blocks the R4 heads use (it passes the layout check): the error is
    # in which coordinates it combines, not in which blocks it touches
    none = L.row({})
    shared = Head([L.unit("one"), none], [L.unit("z", 0), none], [L.unit("z", 0), L.unit("z", 1)],
                  [list(col) for col in zip(L.unit("h", 0), L.unit("h", 1))],
                  reads={"query": ["one"], "key": ["z"], "value": ["z"]}, writes=["h"])
    altered = AlteredCompiled(compiled, Transformer([T.sublayers[0], Attention([shared])], layout=L),
                              note="one size-2 head shared by both units (score row of unit 1)")
    res = prove_emulation((relu, altered), [(-1, 1)], tie=tie, claim="T8", network=relu.maxout, witness=[x],
                          record_regions=False)
    ev = dict(res.evidence)
    ev["alteration"] = altered.note
    return Result("T8.n", res.statement, res.verdict, res.method, certificate=res.certificate,
                  parameters=res.parameters, conventions=res.conventions, evidence=ev)
