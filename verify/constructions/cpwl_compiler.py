"""Compile a CPWL function into one FFN and one 2-head hardmax attention layer (docs/paper1.md R8).

f = g - h, g = max_j l_j (n_g pieces), h = max_j l'_j (n_h pieces); n = max(n_g, n_h) tokens:

* coordinates ``[x_1..x_d | z_1 z_2 | p_1..p_n | one | out]`` (the layout :func:`cpwl_layout`: blocks x, z,
  p, one, out), E = d + n + 4; token j = (x ; 0 0 ; e_j ; 1 ; 0);
* FFN (width 4n; reads x, p, one, writes z): R3 gates put l_j into z_1 and l'_j into z_2 at token j;
* attention, 2 heads of size 1 with query ``one``: head 1 key = value = z_1, W_O = +e_out; head 2 key = value
  = z_2, W_O = -e_out (each reads one, z and writes out); so out = max_j l_j - max_j l'_j at every token
  (R1 twice);
* output: ``out`` of token 0.

The shorter piece list is padded by **repeating** its last piece (``padding="repeat"``, correct);
``padding="zero"`` pads with the zero function instead, which computes max(h, 0) and is wrong wherever h < 0
(kept to exhibit T9.n).  A :class:`~verify.objects.cpwl.CPWL1D` is first split into its DC form (R8b).

>>> from verify.objects.cpwl import DCFunction
>>> f = DCFunction([([1], 0), ([-1], 0)], [([2], -2), ([-2], 2)])      # O8
>>> c = compile_cpwl(f, [[-3, 3]], S=16)
>>> c.transformer.embedding_dim, c.transformer.ffn_widths, c([0]), f.evaluate([0])
(7, [8], (Fraction(-2, 1),), (Fraction(-2, 1),))
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.exact import fraction_str, parse_positive, plain
from ..errors import InputError, InputTypeError
from ..objects.cpwl import CPWL1D, DCFunction
from ..objects.layout import Layout
from ..objects.maxout import _is_box, coerce_input, parse_box
from ..arith.context import EXACT, Context
from ..objects.transformer import Attention, FeedForward, Head, Transformer

__all__ = ["CompiledCPWL", "compile_cpwl", "cpwl_layout", "PADDINGS"]

PADDINGS = ("repeat", "zero")


def cpwl_layout(d: int, n: int) -> Layout:
    """The R8 residual layout: blocks x (d: the input), z (2: the gated pieces of g and h), p (n: the token's
    one-hot code), one (the constant 1) and out (the result)."""
    return Layout([("x", d), ("z", 2), ("p", n), "one", "out"])


class CompiledCPWL:
    """A CPWL function compiled to a hardmax Transformer (``transformer``, ``embed``, ``read``, ``__call__``).

    Attributes: ``source`` (the CPWL1D or DCFunction given), ``dc`` (the DC form compiled), ``box``, ``S``,
    ``S_bound_certified`` (exact max_box |piece| over the padded pieces), ``padding``, ``n_tokens``,
    ``layout`` (:func:`cpwl_layout`).
    """

    def __init__(self, source, dc, box, S, S_bound, padding, transformer, g_used, h_used):
        self.source = source
        self.dc = dc
        self.box = box
        self.S = S
        self.S_bound_certified = S_bound
        self.S_sufficient = S >= S_bound
        self.padding = padding
        self.transformer = transformer
        self.n_tokens = len(g_used)
        self.g_used = g_used
        self.h_used = h_used
        self.input_dim = dc.input_dim
        self.output_dim = 1
        self.layout = cpwl_layout(self.input_dim, self.n_tokens)
        self.coordinate_names = transformer.coordinate_names
        self.conventions = {"construction": "R8 (ours): DC form, one FFN of R3 gates, one 2-head attention",
                            "padding": padding, "depth": "D = 2 sublayers (FFN, Attn)",
                            "readout": "out coordinate of token 0"}

    def embed(self, x) -> tuple:
        d, n = self.input_dim, self.n_tokens
        x = plain(x)
        if not isinstance(x, (list, tuple)):
            raise InputTypeError("x", f"expected a sequence of {d} numbers, got {type(x).__name__}")
        if len(x) != d:
            raise InputError("x", f"expected {d} coordinates, got {len(x)}")
        x = tuple(coerce_input(v, f"x[{m}]") for m, v in enumerate(x))
        zero = x[0] * 0
        one = zero + 1
        return self.layout.stack({
            "x": [tuple(x[m] for _ in range(n)) for m in range(d)],
            "z": [tuple(zero for _ in range(n)) for _ in range(2)],
            "p": [tuple(one if j == c else zero for j in range(n)) for c in range(n)],
            "one": [tuple(one for _ in range(n))],
            "out": [tuple(zero for _ in range(n))]})

    def read(self, X) -> tuple:
        return (X[self.layout.index("out")][0],)

    def __call__(self, x, tie: str = "average", ops: Context = EXACT) -> tuple:
        return self.read(self.transformer.evaluate(self.embed(x), attention="hardmax", tie=tie, ops=ops))

    evaluate = __call__

    def sizes(self) -> dict:
        T = self.transformer
        ffn = T.sublayers[0].nonzero_counts()
        return {"tokens": self.n_tokens, "embedding": T.embedding_dim, "sublayers": T.n_sublayers,
                "heads": T.heads_per_attention, "ffn_widths": T.ffn_widths, "W1_nonzeros": ffn["W1"],
                "W2_nonzeros": ffn["W2"], "attention_nonzeros": T.sublayers[1].parameter_count(nonzero=True),
                "transformer_parameters": T.parameter_count(),
                "transformer_nonzeros": T.parameter_count(nonzero=True),
                "pieces": {"g": self.dc.n_g, "h": self.dc.n_h}}

    def __repr__(self):
        return (f"CompiledCPWL(tokens={self.n_tokens}, E={self.transformer.embedding_dim}, S={fraction_str(self.S)}, "
                f"padding={self.padding})")

    def describe(self) -> str:
        return repr(self) + "\n" + self.transformer.describe()

    def _repr_latex_(self):
        return self.transformer._repr_latex_()


def _pad(pieces, n, padding, d):
    pieces = list(pieces)
    while len(pieces) < n:
        pieces.append(pieces[-1] if padding == "repeat" else (tuple(Fraction(0) for _ in range(d)), Fraction(0)))
    return tuple(pieces)


def compile_cpwl(f, box=None, S=None, padding: str = "repeat") -> CompiledCPWL:
    """Compile a :class:`DCFunction` (``box`` required) or a :class:`CPWL1D` (box = [x0, x_end] by default).
    ``S=None`` takes the exact bound max over the box of |piece| (over the pieces actually used)."""
    if padding not in PADDINGS:
        raise InputError("padding", f"must be one of {', '.join(PADDINGS)}, got {padding!r}")
    source = f
    if isinstance(f, CPWL1D):
        dc = f.dc_form()
        if box is None:
            box = f.box
    elif isinstance(f, DCFunction):
        dc = f
        if box is None:
            raise InputError("box", "required for a DCFunction ([[lo, hi], ...], one interval per coordinate)")
    else:
        raise InputTypeError("f", f"expected a CPWL1D or DCFunction, got {type(f).__name__}")
    d = dc.input_dim
    box = box if _is_box(box) and len(box) == d else parse_box(box, dim=d)
    n = max(dc.n_g, dc.n_h)
    g = _pad(dc.g_pieces, n, padding, d)
    h = _pad(dc.h_pieces, n, padding, d)
    bound = DCFunction(g, h).sup_abs_piece(box)
    if S is None:
        S = bound if bound > 0 else Fraction(1)
    else:
        S = parse_positive(S, "S")
    L = cpwl_layout(d, n)
    W1, targets = [], []
    for j in range(n):
        for target, (w, b) in ((L.index("z", 0), g[j]), (L.index("z", 1), h[j])):
            for sgn in (1, -1):
                entries = {("x", m): sgn * c for m, c in enumerate(w)}
                entries[("p", j)] = S
                entries["one"] = sgn * b - S
                W1.append(L.row(entries, Fraction(0)))
                targets.append((target, sgn))
    W2 = [[0] * len(W1) for _ in range(L.dim)]
    for col, (target, sgn) in enumerate(targets):
        W2[target][col] = sgn
    access = {"reads": {"query": ["one"], "key": ["z"], "value": ["z"]}, "writes": ["out"]}
    heads = [Head([L.unit("one")], [L.unit("z", i)], [L.unit("z", i)], [[v] for v in L.unit("out", value=sgn)],
                  **access) for i, sgn in ((0, 1), (1, -1))]
    T = Transformer([FeedForward(W1, None, W2, None, reads=("x", "p", "one"), writes=("z",)), Attention(heads)],
                    layout=L)
    return CompiledCPWL(source, dc, box, S, bound, padding, T, g, h)
