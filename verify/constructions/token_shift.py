"""Scalar token shift with disjoint slabs (docs/paper1.md R3s, O5): one reading of the brief's token-wise shift.

For a 1-D maxout network of width 1 and rank n (state h^(l) scalar, pieces P_j = alpha_j h + beta_j), the
compiled network uses n tokens and the coordinates ``[h, z, pi, one]`` (E = 4, the layout :data:`LAYOUT` of four
scalar blocks); token j starts as (x, 0, j, 1).  Layer l (an FFN and one size-1 attention head):

* the FFN (reads h, z, pi, one; writes h, z) computes z = P_1(h) + 1/2 sum_{j=2..n} gate_j(P_j(h) - P_{j-1}(h), s),
  where s = h + Delta_l pi is the shifted state and gate_j(v, s) = ReLU(v + M_l (s - t_j)) - ReLU(-v + M_l (s -
  t_j)); it clears h;
* the head (query ``one``, key = value = z, output to h) broadcasts max_j z_j to every token.

With [a_l, b_l] the exact range of the state entering layer l over the box (w_l = b_l - a_l), token j's shifted
state lies in the slab I_j = [a_l + j Delta_l, b_l + j Delta_l]; the thresholds t_j = a_l + j Delta_l -
(Delta_l - w_l)/2 leave margin gamma_l = (Delta_l - w_l)/2 on both sides.  If Delta_l > w_l (slabs disjoint) and
M_l gamma_l >= sup |P_j - P_{j-1}|, token j computes exactly P_j and the network is exact.

>>> c = scalar_shift_tent(L=2, Delta=2, M=4)
>>> [c([x]) for x in (0, "1/4", "1/2")], [layer["range"] for layer in c.layer_data]
([(Fraction(0, 1),), (Fraction(-1, 1),), (Fraction(0, 1),)], [(Fraction(0, 1), Fraction(1, 1)), (Fraction(-1, 1), Fraction(0, 1))])
>>> scalar_shift_tent(L=2, Delta=1, M=4)([0])                 # touching slabs: misrouted
(Fraction(-1, 1),)
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.exact import fraction_str, parse_exact, parse_positive, plain
from ..errors import InputError, InputTypeError, SizeLimitError
from ..objects.cpwl import network_pieces_1d
from ..objects.layout import Layout
from ..objects.maxout import MaxoutNetwork, _is_box, coerce_input, parse_box
from ..arith.context import EXACT, Context
from ..objects.transformer import Attention, FeedForward, Head, Transformer

__all__ = ["CompiledTokenShift", "compile_token_shift", "scalar_shift_tent", "tent_network", "MAX_TENT_DEPTH",
           "MAX_SHIFT_DEPTH", "LAYOUT"]

MAX_TENT_DEPTH = 64        # tent_network
MAX_SHIFT_DEPTH = 12       # scalar_shift_tent (exact ranges from 2^L pieces)
LAYOUT = Layout(["h", "z", "pi", "one"])     # state, gated value, scalar position, constant 1
NAMES = LAYOUT.labels()


def tent_network(L: int) -> MaxoutNetwork:
    """Width-1 rank-2 maxout network equal to -T^{oL} on [0, 1] (R7): h_1 = max(-2x, 2x - 2),
    h_l = max(2h, -2h - 2).

    >>> tent_network(2).evaluate(["1/4"]), tent_network(2).evaluate(["1/2"])
    ((Fraction(-1, 1),), (Fraction(0, 1),))
    """
    if not isinstance(L, int) or isinstance(L, bool) or not 1 <= L <= MAX_TENT_DEPTH:
        raise InputError("L", f"must be an integer in [1, {MAX_TENT_DEPTH}], got {L!r}")
    first = ([[[-2], [2]]], [[0, -2]])
    rest = ([[[2], [-2]]], [[0, -2]])
    return MaxoutNetwork([first] + [rest] * (L - 1))


def _per_layer(value, L, field):
    if isinstance(value, (list, tuple)):
        if len(value) != L:
            raise InputError(field, f"expected {L} values (one per layer), got {len(value)}")
        return [parse_positive(v, f"{field}[{i}]") for i, v in enumerate(value)]
    v = parse_positive(value, field)
    return [v] * L


class CompiledTokenShift:
    """The scalar-shift Transformer with its embedding and read-out (same contract as CompiledMaxout).

    ``layer_data[l]``: ``range`` (a_l, b_l) exact, ``width`` w_l, ``Delta``, ``M``, ``gamma`` = (Delta - w)/2,
    ``thresholds`` [t_2..t_n], ``slabs`` [(a + j Delta, b + j Delta) for j = 1..n], ``pieces`` [(alpha_j, beta_j)],
    ``sup_abs_differences`` [sup |P_j - P_{j-1}| over [a, b] for j = 2..n], ``disjoint`` (Delta > w),
    ``gates_exact`` (M gamma >= every sup).
    """

    def __init__(self, net, box, transformer, layer_data):
        self.source = net
        self.box = box
        self.transformer = transformer
        self.layer_data = layer_data
        self.n_tokens = net.rank
        self.layout = LAYOUT
        self.coordinate_names = NAMES
        self.input_dim = 1
        self.output_dim = net.output_dim
        self.conventions = {"construction": "R3s (ours): scalar position pi = j, shift s = h + Delta_l pi, "
                                            "threshold gates, one size-1 head per layer",
                            "depth": "D = 2L sublayers", "ranges": "exact 1-D ranges from exact breakpoints"}

    @property
    def hypotheses_hold(self) -> bool:
        return all(d["disjoint"] and d["gates_exact"] for d in self.layer_data)

    def embed(self, x) -> tuple:
        x = plain(x)
        if not isinstance(x, (list, tuple)) or len(x) != 1:
            raise InputError("x", "expected a sequence of 1 number")
        t = coerce_input(x[0], "x[0]")
        zero = t * 0
        one = zero + 1
        n = self.n_tokens
        return LAYOUT.stack({"h": [tuple(t for _ in range(n))], "z": [tuple(zero for _ in range(n))],
                             "pi": [tuple(zero + (j + 1) for j in range(n))], "one": [tuple(one for _ in range(n))]})

    def read(self, X) -> tuple:
        return self.source.apply_readout((X[LAYOUT.index("h")][0],))

    def __call__(self, x, tie: str = "average", ops: Context = EXACT) -> tuple:
        return self.read(self.transformer.evaluate(self.embed(x), attention="hardmax", tie=tie, ops=ops))

    evaluate = __call__

    def sizes(self) -> dict:
        T = self.transformer
        return {"tokens": self.n_tokens, "embedding": T.embedding_dim, "sublayers": T.n_sublayers,
                "heads_per_layer": T.heads_per_attention, "ffn_widths": T.ffn_widths,
                "transformer_nonzeros": T.parameter_count(nonzero=True)}

    def __repr__(self):
        return f"CompiledTokenShift(tokens={self.n_tokens}, L={len(self.layer_data)}, E=4)"

    def describe(self) -> str:
        lines = [repr(self)]
        for l, d in enumerate(self.layer_data):
            lines.append(f"  layer {l + 1}: range [{fraction_str(d['range'][0])}, {fraction_str(d['range'][1])}] "
                         f"Delta={fraction_str(d['Delta'])} M={fraction_str(d['M'])} gamma={fraction_str(d['gamma'])} "
                         f"disjoint={d['disjoint']} gates_exact={d['gates_exact']}")
        return "\n".join(lines) + "\n" + self.transformer.describe()


def compile_token_shift(net: MaxoutNetwork, box, Delta, M) -> CompiledTokenShift:
    """Compile a 1-D, width-1 maxout network with scalar token shifts ``Delta`` and gate slopes ``M``
    (numbers or one per layer).  The construction is built for any Delta, M > 0; whether its hypotheses hold
    is recorded per layer (``layer_data``), so too-small shifts can be exhibited."""
    if not isinstance(net, MaxoutNetwork):
        raise InputTypeError("net", f"expected a MaxoutNetwork, got {type(net).__name__}")
    if net.input_dim != 1 or any(w != 1 for w in net.widths):
        raise InputError("net", "the scalar-shift construction needs input dimension 1 and width 1 in every layer")
    box = box if _is_box(box) else parse_box(box, dim=1)
    L, n = net.depth, net.rank
    Deltas = _per_layer(Delta, L, "Delta")
    Ms = _per_layer(M, L, "M")
    states = network_pieces_1d(net, box[0])
    sublayers, layer_data = [], []
    for l, ((W, b), Dl, Ml) in enumerate(zip(net.layers, Deltas, Ms)):
        a_l, b_l = states[l][0].range()
        w_l = b_l - a_l
        gamma = (Dl - w_l) / 2
        pieces = [(W[0][j][0], b[0][j]) for j in range(n)]
        thresholds = [a_l + j * Dl - gamma for j in range(2, n + 1)]
        sups = []
        rows, outs = [], []
        z = LAYOUT.index("z")
        a1, b1 = pieces[0]
        rows += [LAYOUT.row({"h": a1, "one": b1}), LAYOUT.row({"h": -a1, "one": -b1})]
        outs += [(z, Fraction(1)), (z, Fraction(-1))]
        for j in range(1, n):
            va = pieces[j][0] - pieces[j - 1][0]
            vb = pieces[j][1] - pieces[j - 1][1]
            sups.append(max(abs(va * a_l + vb), abs(va * b_l + vb)))
            t = thresholds[j - 1]
            rows += [LAYOUT.row({"h": va + Ml, "pi": Ml * Dl, "one": vb - Ml * t}),
                     LAYOUT.row({"h": -va + Ml, "pi": Ml * Dl, "one": -vb - Ml * t})]
            outs += [(z, Fraction(1, 2)), (z, Fraction(-1, 2))]
        for block in ("h", "z"):
            for sgn in (1, -1):
                rows.append(LAYOUT.unit(block, value=sgn))
                outs.append((LAYOUT.index(block), Fraction(-sgn)))
        W2 = [[0] * len(rows) for _ in range(LAYOUT.dim)]
        for col, (target, coef) in enumerate(outs):
            W2[target][col] = coef
        sublayers.append(FeedForward(rows, None, W2, None, reads=("h", "z", "pi", "one"), writes=("h", "z")))
        sublayers.append(Attention([Head([LAYOUT.unit("one")], [LAYOUT.unit("z")], [LAYOUT.unit("z")],
                                         [[v] for v in LAYOUT.unit("h")],
                                         reads={"query": ["one"], "key": ["z"], "value": ["z"]}, writes=["h"])]))
        layer_data.append({
            "layer": l + 1, "range": (a_l, b_l), "width": w_l, "Delta": Dl, "M": Ml, "gamma": gamma,
            "thresholds": thresholds, "slabs": [(a_l + j * Dl, b_l + j * Dl) for j in range(1, n + 1)],
            "pieces": pieces, "sup_abs_differences": sups, "disjoint": Dl > w_l,
            "gates_exact": gamma > 0 and all(Ml * gamma >= s for s in sups),
        })
    T = Transformer(sublayers, layout=LAYOUT)
    T.conventions["depth_convention"] = {"c": 2, "e": 0}
    return CompiledTokenShift(net, box, T, layer_data)


def scalar_shift_tent(L: int, Delta=2, M=4) -> CompiledTokenShift:
    """O5: the tent network -T^{oL} on [0, 1] compiled with scalar shifts (Delta = 2, M = 4 pass); L <= 12."""
    if not isinstance(L, int) or isinstance(L, bool) or not 1 <= L <= MAX_SHIFT_DEPTH:
        raise InputError("L", f"must be an integer in [1, {MAX_SHIFT_DEPTH}], got {L!r}")
    return compile_token_shift(tent_network(L), [[0, 1]], Delta, M)
