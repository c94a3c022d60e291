"""Compile a maxout network into a hardmax Transformer that equals it on a box (docs/paper1.md R4).

Architecture (ours, [DERIVED]; the paper's exact construction is unknown):

* n = k tokens; coordinates ``[h_1..h_Nbar | z_1..z_Nbar | p_1..p_k | one]`` (the layout
  :func:`maxout_layout`: blocks h, z, p, one), E = 2 Nbar + k + 1, where Nbar = max(d, N_1, ..., N_L) (the
  input x must fit the h-block; for d <= max N_l this is max N_l);
* input token j = (x padded with zeros ; 0 ; e_j ; 1);
* sublayers FFN_1, Attn_1, ..., FFN_L, Attn_L (D = 2L, c = 2 sublayers per maxout layer), biases on ``one``;
* FFN_l (width 2 k N_l + 4 Nbar; reads h, z, p, one, writes h, z): the one-hot gates of R3 put piece j of
  unit i into z_i at token j, and the rows (+-e_c) clear h and z;
* Attn_l: N_l heads of size 1, head i with W_Q = e_one^T, W_K = W_V = e_{z_i}^T, W_O = e_{h_i} (query reads
  one, key and value read z, output writes h; R1: value = score, so every tie rule gives h_i = max_j z_{j,i});
* output: the h-block of token 0 (first N_L entries), then the network's read-out if it has one.

Exact on the whole box whenever S >= sup over the box of |piece| (R4); ``S=None`` takes the bound certified
by exact interval propagation (``net.interval_bounds``).

>>> from verify.objects.maxout import MaxoutNetwork
>>> net = MaxoutNetwork([([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]),
...                      ([[[1, -2], [-1, 1]]], [[0, "1/2"]])])          # O2
>>> c = compile_maxout(net, [[0, 1]])
>>> c.S, c.n_tokens, c.transformer.embedding_dim, c([0]), net.evaluate([0])
(Fraction(11, 2), 2, 7, (Fraction(7, 6),), (Fraction(7, 6),))
>>> c.layout
Layout(h:2, z:2, p:2, one)
>>> compile_maxout(net, [[0, 1]], S="3/2")([0], tie="first")     # S too small: the gate leaks
(Fraction(2, 3),)
"""

from __future__ import annotations

import time
from fractions import Fraction

from ..arith.exact import fraction_str, parse_positive, plain
from ..errors import BudgetExhausted, InputTypeError
from ..objects.maxout import MaxoutNetwork, _is_box, coerce_input, parse_box
from ..objects.layout import Layout
from ..arith.context import EXACT, Context
from ..objects.transformer import Attention, FeedForward, Head, Transformer

__all__ = ["CompiledMaxout", "compile_maxout", "compiled_sizes_formula", "maxout_layout"]


def maxout_layout(n_bar: int, k: int) -> Layout:
    """The R4 residual layout: blocks h (n_bar: the state), z (n_bar: the gated pieces), p (k: the token's
    one-hot code) and one (the constant 1)."""
    return Layout([("h", n_bar), ("z", n_bar), ("p", k), "one"])


def compiled_sizes_formula(net: MaxoutNetwork) -> dict:
    """The R4 size formulas for ``net`` (ours): E, D, FFN widths, non-zero bounds per layer."""
    k, L = net.rank, net.depth
    nbar = max((net.input_dim,) + tuple(net.widths))
    prev = (net.input_dim,) + tuple(net.widths[:-1])
    return {
        "tokens": k,
        "n_bar": nbar,
        "embedding": 2 * nbar + k + 1,
        "sublayers": 2 * L,
        "heads_per_layer": list(net.widths),
        "ffn_widths": [2 * k * N + 4 * nbar for N in net.widths],
        "W1_nonzeros_at_most": [2 * k * N * (p + 2) + 4 * nbar for N, p in zip(net.widths, prev)],
        "W2_nonzeros": [2 * k * N + 4 * nbar for N in net.widths],
        "attention_nonzeros": [4 * N for N in net.widths],
    }


class CompiledMaxout:
    """A maxout network compiled to a hardmax Transformer, with its input embedding and read-out.

    Attributes: ``transformer``, ``source`` (the network), ``box``, ``S``, ``S_bound_certified`` (the exact
    interval-propagation bound on sup |piece| over the box), ``S_sufficient`` (S >= that bound),
    ``n_tokens`` (= k), ``n_bar``, ``layout`` (:func:`maxout_layout`), ``coordinate_names``, ``conventions``.
    """

    def __init__(self, net: MaxoutNetwork, box, S, S_bound, transformer: Transformer, n_bar: int):
        self.source = net
        self.box = box
        self.S = S
        self.S_bound_certified = S_bound
        self.S_sufficient = S >= S_bound
        self.transformer = transformer
        self.n_tokens = net.rank
        self.n_bar = n_bar
        self.layout = maxout_layout(n_bar, net.rank)
        self.coordinate_names = transformer.coordinate_names
        self.input_dim = net.input_dim
        self.output_dim = net.output_dim
        self.conventions = {
            "construction": "R4 (ours): one-hot code per token, R3 gates in the FFN, one size-1 head per unit",
            "depth": "D = 2L sublayers (FFN, Attn per maxout layer; c = 2, e = 0)",
            "embedding": "token j = (x padded to Nbar ; 0 ; e_j ; 1)",
            "readout": "h-block of token 0, then the network's affine read-out (outside the Transformer)",
            "hardmax_ties": "exact under both rules (value = score)",
        }

    # -- embedding and read-out (arithmetic only: work on affine forms too) -----------------------
    def embed(self, x) -> tuple:
        """The input token matrix for x (E rows, k columns), built only from x by arithmetic."""
        net = self.source
        x = plain(x)
        if not isinstance(x, (list, tuple)):
            raise InputTypeError("x", f"expected a sequence of {net.input_dim} numbers, got {type(x).__name__}")
        x = net._input(x)
        zero = x[0] * 0
        one = zero + 1
        k, nb = self.n_tokens, self.n_bar
        return self.layout.stack({
            "h": [tuple(x[c] if c < len(x) else zero for _ in range(k)) for c in range(nb)],
            "z": [tuple(zero for _ in range(k)) for _ in range(nb)],
            "p": [tuple(one if j == c else zero for j in range(k)) for c in range(k)],
            "one": [tuple(one for _ in range(k))]})

    def read(self, X, ops: Context = EXACT) -> tuple:
        """h-block of token 0 (the last layer's N_L units), then the network's read-out in the context
        ``ops`` (e.g. a BallContext for softmax balls)."""
        h = tuple(X[self.layout.index("h", i)][0] for i in range(self.source.widths[-1]))
        return self.source.apply_readout(h, ops)

    def __call__(self, x, tie: str = "average", ops: Context = EXACT) -> tuple:
        return self.read(self.transformer.evaluate(self.embed(x), attention="hardmax", tie=tie, ops=ops))

    evaluate = __call__

    # -- sizes -----------------------------------------------------------------------------------
    def sizes(self) -> dict:
        """Measured sizes of the compiled Transformer next to the network's and the R4 formulas."""
        T, net = self.transformer, self.source
        ffn = [s.nonzero_counts() for s in T.sublayers if isinstance(s, FeedForward)]
        att = [s.nonzero_counts() for s in T.sublayers if isinstance(s, Attention)]
        return {
            "tokens": self.n_tokens,
            "embedding": T.embedding_dim,
            "sublayers": T.n_sublayers,
            "heads_per_layer": T.heads_per_attention,
            "head_size": 1,
            "ffn_widths": T.ffn_widths,
            "W1_nonzeros": [f["W1"] for f in ffn],
            "W2_nonzeros": [f["W2"] for f in ffn],
            "bias_nonzeros": sum(f["b1"] + f["b2"] for f in ffn),
            "attention_nonzeros": [a["attention"] for a in att],
            "transformer_parameters": T.parameter_count(),
            "transformer_nonzeros": T.parameter_count(nonzero=True),
            "network_parameters": net.parameter_count(),
            "nonzero_ratio": Fraction(T.parameter_count(nonzero=True), net.parameter_count()),
            "formula": compiled_sizes_formula(net),
        }

    def __repr__(self):
        return (f"CompiledMaxout(tokens={self.n_tokens}, E={self.transformer.embedding_dim}, "
                f"D={self.transformer.n_sublayers}, S={fraction_str(self.S)})")

    def describe(self) -> str:
        return (f"{self!r}\nsource: {self.source!r}\nS certified bound: {fraction_str(self.S_bound_certified)}\n"
                + self.transformer.describe())

    __str__ = describe

    def _headline(self) -> str:
        box = " x ".join(f"[{fraction_str(lo)}, {fraction_str(hi)}]" for lo, hi in self.box)
        T = self.transformer
        return (f"{self.source!r} compiled (R4) on {box}: {self.n_tokens} tokens, E = {T.embedding_dim}, "
                f"D = {T.n_sublayers} sublayers, S = {fraction_str(self.S)} (certified bound on |piece| "
                f"{fraction_str(self.S_bound_certified)}{'' if self.S_sufficient else ', NOT sufficient'})")

    def _repr_markdown_(self):
        return "**CompiledMaxout**: " + self._headline() + "\n\n```\n" + self.transformer.describe() + "\n```"

    def _repr_html_(self):
        from html import escape

        return f"<p><b>CompiledMaxout</b>: {escape(self._headline())}</p>\n" + self.transformer._repr_html_()

    def _repr_latex_(self):
        return self.transformer._repr_latex_()


def _clock(deadline, where: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExhausted("time_budget", f"the time budget ran out while compiling ({where})")


def compile_maxout(net: MaxoutNetwork, box, S=None, *, deadline=None) -> CompiledMaxout:
    """Compile ``net`` for the box (``[[lo, hi], ...]``); ``S=None`` uses the certified bound.

    ``deadline``: a ``time.monotonic()`` value; the clock is checked after each layer of the bound S and of the construction, and
    past the deadline :class:`verify.errors.BudgetExhausted` is raised (so a compile overruns a budget by at
    most one sublayer's construction or 16 heads)."""
    if not isinstance(net, MaxoutNetwork):
        raise InputTypeError("net", f"expected a MaxoutNetwork, got {type(net).__name__}")
    box = box if _is_box(box) else parse_box(box, dim=net.input_dim)
    if len(box) != net.input_dim:
        parse_box([list(iv) for iv in box], dim=net.input_dim)
    bound = net.interval_bounds(box, deadline=deadline)["S"]
    if S is None:
        S = bound if bound > 0 else Fraction(1)
    else:
        S = parse_positive(S, "S")
    nb = max((net.input_dim,) + tuple(net.widths))
    L = maxout_layout(nb, net.rank)
    sublayers = []
    for l, (W, b) in enumerate(net.layers):
        W1, W2cols = [], []         # W2 built column-wise: (target coordinate, coefficient)
        for i, (Wi, bi) in enumerate(zip(W, b)):
            for j, (w, bij) in enumerate(zip(Wi, bi)):
                for sgn in (1, -1):
                    entries = {("h", m): sgn * c for m, c in enumerate(w)}
                    entries[("p", j)] = S
                    entries["one"] = sgn * bij - S
                    W1.append(L.row(entries, Fraction(0)))
                    W2cols.append((L.index("z", i), sgn))
        for block in ("h", "z"):
            for c in range(nb):
                for sgn in (1, -1):
                    W1.append(L.unit(block, c, sgn))
                    W2cols.append((L.index(block, c), -sgn))
        W2 = [[0] * len(W1) for _ in range(L.dim)]
        for col, (target, coef) in enumerate(W2cols):
            W2[target][col] = coef
        sublayers.append(FeedForward(W1, None, W2, None, reads=("h", "z", "p", "one"), writes=("h", "z")))
        _clock(deadline, f"layer {l + 1} of {len(net.layers)}, its feed-forward sublayer")
        heads = []
        for i in range(len(W)):
            heads.append(Head([L.unit("one")], [L.unit("z", i)], [L.unit("z", i)], [[v] for v in L.unit("h", i)],
                              reads={"query": ["one"], "key": ["z"], "value": ["z"]}, writes=["h"]))
            if i % 16 == 15:
                _clock(deadline, f"layer {l + 1} of {len(net.layers)}, head {i + 1} of {len(W)}")
        sublayers.append(Attention(heads))
        _clock(deadline, f"layer {l + 1} of {len(net.layers)}")
    T = Transformer(sublayers, layout=L)
    T.conventions["depth_convention"] = {"c": 2, "e": 0}
    return CompiledMaxout(net, box, S, bound, T, nb)
