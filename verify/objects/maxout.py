"""Maxout networks with exact rational weights (docs/paper1.md §2.3).

    h^(0) = x,   h^(l)_i = max_j ( <w^(l)_ij, h^(l-1)> + b^(l)_ij ),   i <= N_l,  j <= k,  l = 1..L

followed by an optional affine read-out.  ``layers`` is a list of ``(W, b)``: ``W[i][j]`` is the
weight vector (length N_in) of piece j of unit i and ``b[i][j]`` its bias.  Weights are parsed with
:func:`verify.arith.exact.parse_exact` (int, Fraction, ``"p/q"``, decimal strings; floats refused
unless ``allow_float=True``); numpy arrays are accepted and read exactly
(:func:`verify.arith.exact.plain`).

Evaluation is *traceable*: it applies only ``+``, ``-``, multiplication by constants and the
operations of an arithmetic :class:`~verify.arith.context.Context` to its values, so the region tracer can
pass affine forms in x instead of numbers (default ``ops=EXACT``: exact Fractions).

>>> net = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])          # |x| as one rank-2 unit
>>> net.evaluate(["-3/2"])
(Fraction(3, 2),)
>>> net.widths, net.rank, net.depth, net.parameter_count()
((1,), 2, 1, 4)
>>> relu = MaxoutNetwork.from_relu([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]))
>>> relu.evaluate([Fraction(-2)])            # ReLU(x) + ReLU(-x)
(Fraction(2, 1),)
"""

from __future__ import annotations

import numbers
import time
from fractions import Fraction
from typing import Any, Sequence

from gmpy2 import mpq

from ..arith.context import EXACT, Context
from ..arith.exact import MAX_BOX_DIM, fraction_str, parse_box, parse_exact, plain
from ..arith.exact import is_list as _is_list
from ..errors import BudgetExhausted, InputError, InputTypeError, SizeLimitError, reject_unknown_keys

__all__ = ["MaxoutNetwork", "parse_box", "coerce_input", "MAX_DEPTH", "MAX_WIDTH", "MAX_RANK", "MAX_INPUT_DIM",
           "MAX_OUTPUT_DIM"]



def _as_fraction(q) -> Fraction:
    """An exact gmpy2 mpq as a Fraction (the same rational)."""
    return Fraction(int(q.numerator), int(q.denominator))


# documented size limits (refused up front)
MAX_DEPTH = 64
MAX_WIDTH = 256
MAX_RANK = 64
MAX_INPUT_DIM = MAX_BOX_DIM     # 256, the box parser's default bound
MAX_OUTPUT_DIM = 256

# the keys of a SPEC (MaxoutNetwork.from_dict) and of each of its layers and its read-out
SPEC_KEYS = ("layers", "readout", "box")
AFFINE_KEYS = ("W", "b")


def coerce_input(v, field: str, *, allow_float: bool = False):
    """An input value: exact numbers are parsed (Fraction); value objects (affine forms, balls) pass
    through unchanged.  Containers (numpy arrays too), None and booleans are refused with a message naming
    ``field``; numpy scalars are numbers (an integer exactly, a float refused unless ``allow_float``).

    >>> coerce_input("1/3", "x[0]")
    Fraction(1, 3)
    """
    v = plain(v)
    if v is None or isinstance(v, (bool, list, tuple, dict, set, bytes)):
        raise InputTypeError(field, f"expected a number, got {type(v).__name__}")
    if isinstance(v, (str, int, float, Fraction, numbers.Rational)) or type(v).__name__ in (
            "fmpq", "fmpz", "float64", "float32", "Rational", "Integer", "JsonFloat"):
        return parse_exact(v, field, allow_float=allow_float)
    if not (hasattr(v, "__add__") and hasattr(v, "__mul__")):
        raise InputTypeError(field, f"expected a number, got {type(v).__name__}")
    return v


def _parse_layer(l: int, W, b, n_in: int, allow_float: bool):
    fw, fb = f"layers[{l}].W", f"layers[{l}].b"
    if not _is_list(W) or not W:
        raise InputTypeError(fw, "expected a non-empty list of units, each a list of piece weight vectors")
    if len(W) > MAX_WIDTH:
        raise SizeLimitError(fw, f"width {len(W)} exceeds the limit {MAX_WIDTH}")
    if not _is_list(b) or len(b) != len(W):
        raise InputError(fb, f"expected {len(W)} bias rows (one per unit), got "
                             f"{len(b) if _is_list(b) else type(b).__name__}")
    k = None
    Wout, bout = [], []
    for i, (Wi, bi) in enumerate(zip(W, b)):
        if not _is_list(Wi) or not Wi:
            raise InputTypeError(f"{fw}[{i}]", "expected a non-empty list of piece weight vectors")
        if len(Wi) > MAX_RANK:
            raise SizeLimitError(f"{fw}[{i}]", f"rank {len(Wi)} exceeds the limit {MAX_RANK}")
        if k is None:
            k = len(Wi)
        elif len(Wi) != k:
            raise InputError(f"{fw}[{i}]", f"unit has {len(Wi)} pieces, unit 0 has {k} (the rank must be uniform)")
        if not _is_list(bi) or len(bi) != k:
            raise InputError(f"{fb}[{i}]", f"expected {k} biases, got {len(bi) if _is_list(bi) else type(bi).__name__}")
        rows = []
        for j, w in enumerate(Wi):
            if not _is_list(w):
                raise InputTypeError(f"{fw}[{i}][{j}]", f"expected a weight vector of length {n_in}")
            if len(w) != n_in:
                raise InputError(f"{fw}[{i}][{j}]", f"expected length {n_in} (width of the previous layer), got {len(w)}")
            rows.append(tuple(parse_exact(v, f"{fw}[{i}][{j}][{m}]", allow_float=allow_float) for m, v in enumerate(w)))
        Wout.append(tuple(rows))
        bout.append(tuple(parse_exact(v, f"{fb}[{i}][{j}]", allow_float=allow_float) for j, v in enumerate(bi)))
    return tuple(Wout), tuple(bout), k


class MaxoutNetwork:
    """A rank-k, depth-L maxout network with exact weights and an optional affine read-out.

    Attributes: ``layers`` (tuple of (W, b) Fraction tuples), ``readout`` ((W_out, b_out) or None),
    ``input_dim`` (d = N_0), ``widths`` (N_1..N_L), ``rank`` (k), ``depth`` (L), ``output_dim``.
    Limits: depth <= 64, widths and input dimension <= 256, rank <= 64, read-out rows <= 256.
    """

    def __init__(self, layers, readout=None, *, allow_float: bool = False):
        layers, readout = plain(layers), plain(readout)     # numpy arrays -> lists, exactly
        if not _is_list(layers):
            raise InputTypeError("layers", f"expected a list of (W, b) pairs, got {type(layers).__name__}")
        if not layers:
            raise InputError("layers", "a maxout network needs at least one layer")
        if len(layers) > MAX_DEPTH:
            raise SizeLimitError("layers", f"depth {len(layers)} exceeds the limit {MAX_DEPTH}")
        parsed = []
        k = None
        n_in = None
        for l, layer in enumerate(layers):
            if not _is_list(layer) or len(layer) != 2:
                raise InputTypeError(f"layers[{l}]", "expected a pair (W, b)")
            W, b = layer
            if n_in is None:
                # input dimension from the first weight vector
                try:
                    n_in = len(W[0][0])
                except (TypeError, IndexError, KeyError):
                    raise InputTypeError("layers[0].W", "expected W[i][j] = weight vector of piece j of unit i") from None
                if n_in < 1:
                    raise InputError("layers[0].W[0][0]", "input dimension must be >= 1")
                if n_in > MAX_INPUT_DIM:
                    raise SizeLimitError("layers[0].W[0][0]", f"input dimension {n_in} exceeds the limit {MAX_INPUT_DIM}")
                self._input_dim = n_in
            Wp, bp, kl = _parse_layer(l, W, b, n_in, allow_float)
            if k is None:
                k = kl
            elif kl != k:
                raise InputError(f"layers[{l}].W", f"rank {kl} differs from layer 0 rank {k}")
            parsed.append((Wp, bp))
            n_in = len(Wp)
        self.layers = tuple(parsed)
        self.rank = k
        self.depth = len(parsed)
        self.widths = tuple(len(W) for W, _ in parsed)
        self.input_dim = self._input_dim
        self.readout = None
        if readout is not None:
            self.readout = self._parse_readout(readout, self.widths[-1], allow_float)
        self.output_dim = len(self.readout[0]) if self.readout else self.widths[-1]

    @staticmethod
    def _parse_readout(readout, n_last: int, allow_float: bool):
        if not _is_list(readout) or len(readout) != 2:
            raise InputTypeError("readout", "expected a pair (W_out, b_out)")
        W, b = readout
        if not _is_list(W) or not W:
            raise InputTypeError("readout.W", "expected a non-empty list of rows")
        if len(W) > MAX_OUTPUT_DIM:
            raise SizeLimitError("readout.W", f"{len(W)} rows exceed the limit {MAX_OUTPUT_DIM}")
        rows = []
        for r, row in enumerate(W):
            if not _is_list(row) or len(row) != n_last:
                raise InputError(f"readout.W[{r}]", f"expected a row of length {n_last} (last layer width)")
            rows.append(tuple(parse_exact(v, f"readout.W[{r}][{c}]", allow_float=allow_float) for c, v in enumerate(row)))
        if not _is_list(b) or len(b) != len(rows):
            raise InputError("readout.b", f"expected {len(rows)} biases")
        bias = tuple(parse_exact(v, f"readout.b[{r}]", allow_float=allow_float) for r, v in enumerate(b))
        return tuple(rows), bias

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_relu(cls, weights, biases, readout=None, *, allow_float: bool = False) -> "MaxoutNetwork":
        """The rank-2 maxout form of a ReLU network: unit i of layer l has the pieces
        (W_l[i, :], b_l[i]) and (0, 0), since ReLU(t) = max(t, 0).  ``weights[l]`` is N_l x N_{l-1}."""
        weights, biases = plain(weights), plain(biases)
        if not _is_list(weights) or not _is_list(biases) or len(weights) != len(biases) or not weights:
            raise InputError("weights", "expected equally long non-empty lists of weight matrices and bias vectors")
        layers = []
        for l, (W, b) in enumerate(zip(weights, biases)):
            if not _is_list(W) or not W or not _is_list(b) or len(b) != len(W):
                raise InputError(f"biases[{l}]", f"expected one bias per row of weights[{l}]")
            Wl, bl = [], []
            for i, (row, bias) in enumerate(zip(W, b)):
                if not _is_list(row):
                    raise InputTypeError(f"weights[{l}][{i}]", "expected a row of numbers")
                Wl.append([list(row), [0] * len(row)])
                bl.append([bias, 0])
            layers.append((Wl, bl))
        return cls(layers, readout, allow_float=allow_float)

    # -- sizes --------------------------------------------------------------------------------
    @property
    def max_width(self) -> int:
        """N-bar = max over l of N_l (l = 1..L, the input dimension is not included)."""
        return max(self.widths)

    def layer_input_dim(self, l: int) -> int:
        return self.input_dim if l == 0 else self.widths[l - 1]

    def parameter_count(self) -> int:
        """sum_l k N_l (N_{l-1} + 1), plus m (N_L + 1) for a read-out."""
        total = 0
        for l, N in enumerate(self.widths):
            total += self.rank * N * (self.layer_input_dim(l) + 1)
        if self.readout:
            total += len(self.readout[0]) * (self.widths[-1] + 1)
        return total

    def lipschitz(self, l: int) -> Fraction:
        """Lip_l = max_ij ||w_ij||_1 of layer l (0-based), the l_inf -> l_inf Lipschitz constant."""
        self._check_layer(l)
        W, _ = self.layers[l]
        return max(sum(abs(v) for v in w) for unit in W for w in unit)

    def _check_layer(self, l):
        if not isinstance(l, int) or isinstance(l, bool) or not 0 <= l < self.depth:
            raise InputError("l", f"layer index must be an integer in [0, {self.depth - 1}], got {l!r}")

    # -- evaluation (traceable) ---------------------------------------------------------------
    def _input(self, x, allow_float=False) -> tuple:
        x = plain(x)
        if not _is_list(x):
            raise InputTypeError("x", f"expected a sequence of {self.input_dim} numbers, got {type(x).__name__}")
        x = list(x)
        if len(x) != self.input_dim:
            raise InputError("x", f"expected {self.input_dim} coordinates, got {len(x)}")
        return tuple(coerce_input(v, f"x[{m}]", allow_float=allow_float) for m, v in enumerate(x))

    def layer_pieces(self, l: int, h, ops: Context = EXACT) -> tuple:
        """Values of every piece (unit i, piece j) of layer l (0-based) at the layer input h."""
        self._check_layer(l)
        W, b = self.layers[l]
        h = tuple(h)
        if len(h) != self.layer_input_dim(l):
            raise InputError("h", f"expected {self.layer_input_dim(l)} values, got {len(h)}")
        lin = ops.linear_combination
        return tuple(tuple(lin(h, w, bij) for w, bij in zip(Wi, bi)) for Wi, bi in zip(W, b))

    def layer_apply(self, l: int, h, ops: Context = EXACT) -> tuple:
        """h^(l+1) from h^(l): the max over pieces of every unit of layer l (0-based)."""
        return tuple(ops.max(pieces) for pieces in self.layer_pieces(l, h, ops))

    def apply_readout(self, h, ops: Context = EXACT) -> tuple:
        """The affine read-out (identity if none), its constants converted by ``ops`` (e.g. to balls)."""
        if self.readout is None:
            return tuple(h)
        W, b = self.readout
        return tuple(ops.linear_combination(h, row, bias) for row, bias in zip(W, b))

    def hidden(self, x, ops: Context = EXACT, *, allow_float: bool = False) -> list:
        """[h^(0) = x, h^(1), ..., h^(L)] (before the read-out)."""
        h = self._input(x, allow_float)
        out = [h]
        for l in range(self.depth):
            h = self.layer_apply(l, h, ops)
            out.append(h)
        return out

    def evaluate(self, x, ops: Context = EXACT, *, allow_float: bool = False) -> tuple:
        """Phi(x): the last layer's units, then the read-out if there is one (exact by default)."""
        return self.apply_readout(self.hidden(x, ops, allow_float=allow_float)[-1], ops)

    __call__ = evaluate

    # -- bounds over a box ----------------------------------------------------------------------
    def interval_bounds(self, box, *, deadline=None) -> dict:
        """Exact interval propagation over a box: enclosures of every piece and every unit.

        Returns ``{"pieces": [per layer: [[(lo, hi) per piece] per unit]], "units": [...], "S": sup |piece|}``
        (Fractions).  Each piece is enclosed by interval arithmetic on its input enclosure, and max acts
        endpoint-wise.  The sums run in gmpy2 ``mpq`` (exact rationals, the same values as Fraction arithmetic).
        ``deadline``: a ``time.monotonic()`` value checked after each layer; past it
        :class:`verify.errors.BudgetExhausted` is raised."""
        if not _is_box(box) or len(box) != self.input_dim:
            box = parse_box([list(iv) for iv in box] if _is_box(box) else box, dim=self.input_dim)
        enc = [(mpq(a), mpq(z)) for a, z in box]
        pieces_all, units_all = [], []
        S = mpq(0)
        for l, (W, b) in enumerate(self.layers):
            pl, ul = [], []
            for Wi, bi in zip(W, b):
                pe = []
                for w, bij in zip(Wi, bi):
                    lo = hi = mpq(bij)
                    for c, (a, z) in zip(map(mpq, w), enc):
                        if c >= 0:
                            lo += c * a
                            hi += c * z
                        else:
                            lo += c * z
                            hi += c * a
                    pe.append((lo, hi))
                    S = max(S, abs(lo), abs(hi))
                pl.append(pe)
                ul.append((max(p[0] for p in pe), max(p[1] for p in pe)))
            pieces_all.append(pl)
            units_all.append(ul)
            enc = ul
            if deadline is not None and time.monotonic() > deadline:
                raise BudgetExhausted("time_budget", f"the time budget ran out while bounding the pieces "
                                                     f"(layer {l + 1} of {len(self.layers)})")
        F = _as_fraction
        return {"pieces": tuple(tuple(tuple((F(lo), F(hi)) for lo, hi in pe) for pe in pl) for pl in pieces_all),
                "units": tuple(tuple((F(lo), F(hi)) for lo, hi in ul) for ul in units_all), "S": F(S)}

    # -- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The JSON SPEC of ``verify maxout`` (docs/paper1-objects.md, Command line): exact numbers as strings."""
        d = {"layers": [{"W": [[[fraction_str(v) for v in w] for w in Wi] for Wi in W],
                         "b": [[fraction_str(v) for v in bi] for bi in b]} for W, b in self.layers]}
        if self.readout:
            W, b = self.readout
            d["readout"] = {"W": [[fraction_str(v) for v in row] for row in W], "b": [fraction_str(v) for v in b]}
        return d

    @classmethod
    def from_dict(cls, d, *, allow_float: bool = False) -> "MaxoutNetwork":
        """Inverse of :meth:`to_dict`.  The keys are those of the SPEC of ``verify maxout`` (``"layers"``,
        ``"readout"``, ``"box"``; the box is read by :func:`parse_box`), ``"W"`` and ``"b"`` in a layer or the
        read-out; any other key is an :class:`InputError` naming it and the nearest known key (a typo such as
        ``"read_out"`` must not silently drop the read-out).  The JSON Schema is ``verify/schemas/maxout.json``.

        >>> MaxoutNetwork.from_dict({"layers": [{"W": [[[1]]], "b": [[0]]}], "read_out": {"W": [[1]], "b": [0]}})
        Traceback (most recent call last):
        ...
        verify.errors.InputError: SPEC.read_out: unknown key; did you mean 'readout'? (allowed: box, layers, readout)
        """
        if not isinstance(d, dict):
            raise InputTypeError("spec", f"expected a JSON object, got {type(d).__name__}")
        reject_unknown_keys(d, SPEC_KEYS, "SPEC")
        if "layers" not in d:
            raise InputError("layers", "missing (expected a list of {\"W\": ..., \"b\": ...})")
        layers = d["layers"]
        if not _is_list(layers):
            raise InputTypeError("layers", f"expected a list, got {type(layers).__name__}")
        pairs = []
        for l, layer in enumerate(layers):
            if isinstance(layer, dict):
                reject_unknown_keys(layer, AFFINE_KEYS, f"layers[{l}]")
            if not isinstance(layer, dict) or "W" not in layer or "b" not in layer:
                raise InputError(f"layers[{l}]", "expected an object with keys \"W\" and \"b\"")
            pairs.append((layer["W"], layer["b"]))
        readout = d.get("readout")
        if readout is not None:
            if isinstance(readout, dict):
                reject_unknown_keys(readout, AFFINE_KEYS, "readout")
            if not isinstance(readout, dict) or "W" not in readout or "b" not in readout:
                raise InputError("readout", "expected an object with keys \"W\" and \"b\"")
            readout = (readout["W"], readout["b"])
        return cls(pairs, readout, allow_float=allow_float)

    def __eq__(self, other):
        return isinstance(other, MaxoutNetwork) and (self.layers, self.readout) == (other.layers, other.readout)

    def __hash__(self):
        return hash((self.layers, self.readout))

    # -- display --------------------------------------------------------------------------------
    def _piece_str(self, w, b, names) -> str:
        terms = []
        for c, name in zip(w, names):
            if c == 0:
                continue
            s = "" if abs(c) == 1 else fraction_str(abs(c)) + "*"
            terms.append(("- " if c < 0 else "+ ") + s + name)
        if b != 0 or not terms:
            terms.append(("- " if b < 0 else "+ ") + fraction_str(abs(b)))
        text = " ".join(terms)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]

    def describe(self) -> str:
        """Readable text: every unit as max(piece, ...) of named inputs."""
        lines = [f"MaxoutNetwork d={self.input_dim} widths={list(self.widths)} rank={self.rank} "
                 f"depth={self.depth} parameters={self.parameter_count()}"]
        names = [f"x_{m + 1}" for m in range(self.input_dim)]
        for l, (W, b) in enumerate(self.layers):
            for i, (Wi, bi) in enumerate(zip(W, b)):
                pieces = ", ".join(self._piece_str(w, bij, names) for w, bij in zip(Wi, bi))
                lines.append(f"  h{l + 1}_{i + 1} = max({pieces})")
            names = [f"h{l + 1}_{i + 1}" for i in range(len(W))]
        if self.readout:
            for r, (row, bias) in enumerate(zip(*self.readout)):
                lines.append(f"  y_{r + 1} = {self._piece_str(row, bias, names)}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"MaxoutNetwork(d={self.input_dim}, widths={list(self.widths)}, rank={self.rank}, "
                f"depth={self.depth}{', readout' if self.readout else ''})")

    __str__ = describe

    def _repr_markdown_(self) -> str:
        return "```\n" + self.describe() + "\n```"

    def _repr_latex_(self) -> str:
        def tex(q):
            q = Fraction(q)
            s = f"\\tfrac{{{abs(q.numerator)}}}{{{q.denominator}}}" if q.denominator != 1 else str(abs(q.numerator))
            return ("-" if q < 0 else "") + s

        def piece(w, b, names):
            terms = [f"{tex(c)}\\,{n}" for c, n in zip(w, names) if c != 0]
            if b != 0 or not terms:
                terms.append(tex(b))
            return " + ".join(terms).replace("+ -", "- ")

        rows = []
        names = [f"x_{{{m + 1}}}" for m in range(self.input_dim)]
        for l, (W, b) in enumerate(self.layers):
            for i, (Wi, bi) in enumerate(zip(W, b)):
                rows.append(f"h^{{({l + 1})}}_{{{i + 1}}} &= \\max\\left(" +
                            ", ".join(piece(w, bij, names) for w, bij in zip(Wi, bi)) + "\\right)")
            names = [f"h^{{({l + 1})}}_{{{i + 1}}}" for i in range(len(W))]
        if self.readout:
            for r, (row, bias) in enumerate(zip(*self.readout)):
                rows.append(f"y_{{{r + 1}}} &= {piece(row, bias, names)}")
        # one $$ block per run of rows under 1,900 characters (MathJax's buffer holds about 2,000)
        blocks, cur = [], []
        for row in rows[:DISPLAY_UNITS]:
            if cur and sum(len(r) + 4 for r in cur) + len(row) > 1900 - 40:
                blocks.append(cur)
                cur = []
            cur.append(row)
        blocks.append(cur)
        out = ["$$\\begin{aligned}" + " \\\\ ".join(b) + "\\end{aligned}$$" for b in blocks]
        if len(rows) > DISPLAY_UNITS:
            out.append(f"$$\\text{{... {len(rows) - DISPLAY_UNITS} more units (describe() shows all)}}$$")
        return "\n".join(out)


DISPLAY_UNITS = 200        # units shown by a network's LaTeX display


def _is_box(box) -> bool:
    return (isinstance(box, tuple) and box and all(isinstance(iv, tuple) and len(iv) == 2 and
            isinstance(iv[0], Fraction) and isinstance(iv[1], Fraction) for iv in box))
