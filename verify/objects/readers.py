"""Readers of trained networks: ``.nnet`` text, ONNX, numpy ``.npz`` / state dicts -> exact ``MaxoutNetwork``.

Every reader returns a :class:`LoadedNetwork`: the package's exact :class:`~verify.objects.maxout.MaxoutNetwork`
(a ReLU unit is the rank-2 maxout unit ``max(z, 0)``, :meth:`MaxoutNetwork.from_relu`), the input box the file
declares (``.nnet`` only) and where it came from.  Numbers are read exactly: a decimal string of a ``.nnet``
file is the exact decimal (``Fraction("0.1") = 1/10``), a float of an ONNX / numpy array is its exact binary
rational (``Fraction(float)``; float32 values are exact in float64).  NaN and infinities are refused.

Formats (docs/regions.md, "Real networks"):

* ``.nnet`` (the Reluplex / Marabou benchmark format): comment lines ``//``; then ``numLayers, inputSize,
  outputSize, maxLayerSize``; the ``numLayers + 1`` layer sizes; one unused flag line; the input minima; the
  input maxima; the means (inputs, then one for the outputs); the ranges (same); then per layer the weight rows
  (one row of ``inputs`` numbers per unit) and the bias rows (one number per unit).  ReLU on the hidden
  layers, the last layer linear.  ``units="original"`` folds the normalisation exactly into the network:
  ``x -> (x - mean) / range`` into the first layer and ``y -> y * range_out + mean_out`` into the read-out, so
  the network maps original inputs to original outputs, on the box [minima, maxima] (the file's network clips
  its inputs to that box; inside it the clipping is the identity).  ``units="normalised"`` is the network as
  written (normalised inputs and outputs), on the normalised box.
* ONNX (``onnx`` imported lazily: the optional extra ``pip install 'transformer-verify[onnx]'``): a graph of
  ``Gemm``, ``MatMul``, ``Add``, ``Relu``, ``Max``, ``Flatten``, ``Identity`` (and ``Constant``) nodes from one
  input vector to one output vector.  ``Relu`` ends a layer of ReLU units; ``Max`` of k affine images of the same
  layer (or of an affine image and a constant) ends a layer of rank-k maxout units; the final affine map is the
  read-out.  Any other operator is refused, naming it.
* state dicts (a ``.npz`` file, or a mapping of numpy arrays given to :func:`from_state_dict`): arrays named
  ``<prefix>.weight`` (shape out x in, the PyTorch ``nn.Linear`` convention) and ``<prefix>.bias`` (shape out).
  When every prefix ends in an integer (``0.weight``, ``2.weight`` of an ``nn.Sequential``; ``layers.3.weight``,
  ``net.fc.1.weight``) the layers are in the order of that integer, otherwise in the mapping's order (a ``.npz``
  keeps the order of ``numpy.savez``).  ReLU between the layers, the last layer linear (the read-out).

Slices (:func:`slice_network`): fix some inputs to exact values and keep k free coordinates; the first layer is
restricted exactly (``b' = b + W[:, fixed] v``, ``W' = W[:, free]``), giving a network in k inputs.

Limits (guards against absurd files, refused with :class:`~verify.errors.InputError` naming the field or the
line): a file of at most ``MAX_FILE_BYTES`` (64 MiB), a ``.nnet`` number of at most ``MAX_NUMBER_CHARS`` (80)
characters, the sizes of :class:`~verify.objects.maxout.MaxoutNetwork` (depth <= 64, widths <= 256, inputs
<= 256), at most ``MAX_ONNX_NODES`` (4096) ONNX nodes.

>>> text = "// |x| as two ReLUs\\n2,1,1,2,\\n1,2,1,\\n0,\\n-1,\\n1,\\n0,0,\\n1,1,\\n1,\\n-1,\\n0,\\n0,\\n1,1,\\n0,\\n"
>>> loaded = read_nnet_text(text)
>>> loaded.net.evaluate(["-1/3"]), loaded.box
((Fraction(1, 3),), ((Fraction(-1, 1), Fraction(1, 1)),))
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError, SizeLimitError
from .maxout import MAX_DEPTH, MAX_INPUT_DIM, MAX_WIDTH, MaxoutNetwork

__all__ = ["LoadedNetwork", "load_network", "read_nnet", "read_nnet_text", "read_onnx", "onnx_to_network",
           "read_npz", "from_state_dict", "slice_network", "NETWORK_SUFFIXES", "MAX_FILE_BYTES",
           "MAX_NUMBER_CHARS", "MAX_ONNX_NODES", "ONNX_OPS"]

NETWORK_SUFFIXES = (".nnet", ".onnx", ".npz")
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_NUMBER_CHARS = 80
MAX_ONNX_NODES = 4096
ONNX_OPS = ("Gemm", "MatMul", "Add", "Relu", "Max", "Flatten", "Identity", "Constant")
ONNX_EXTRA = "pip install 'transformer-verify[onnx]'"
UNITS = ("original", "normalised")

_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@dataclass(frozen=True)
class LoadedNetwork:
    """A network read from a file: the exact ``net``, the ``box`` the file declares (or None), the ``units`` of
    both, the ``source`` (format and path) and, for ``.nnet``, the normalisation (``means``, ``ranges``, input
    ``minima`` / ``maxima``; exact) used to convert between units."""

    net: MaxoutNetwork
    box: tuple | None
    units: str
    source: str
    minima: tuple | None = None
    maxima: tuple | None = None
    means: tuple | None = None
    ranges: tuple | None = None


# -- numbers ------------------------------------------------------------------------------------

def _exact_float(v, field: str) -> Fraction:
    f = float(v)
    if not math.isfinite(f):
        raise InputError(field, f"{f} is not a finite number")
    return Fraction(f)


def _array(a, field: str, ndim: int):
    """A numpy array of ``ndim`` dimensions as nested lists of exact Fractions (floats: their binary value)."""
    import numpy as np

    a = np.asarray(a)
    if a.ndim != ndim:
        raise InputError(field, f"expected a {ndim}-dimensional array, got shape {tuple(a.shape)}")
    if a.dtype.kind not in "fiub":
        raise InputError(field, f"expected numbers, got dtype {a.dtype}")
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise InputError(f"{field}{list(bad)}", f"{a[bad]} is not a finite number")
    if a.dtype.kind == "f":
        a = a.astype(np.float64)
        conv = Fraction
    else:
        conv = lambda v: Fraction(int(v))   # noqa: E731
    if ndim == 1:
        return [conv(v) for v in a.tolist()]
    return [[conv(v) for v in row] for row in a.tolist()]


# -- a sequential network under construction ----------------------------------------------------

class _Builder:
    """Layers of maxout units built from affine maps of the current hidden vector (exact Fractions)."""

    def __init__(self, input_dim: int, where: str):
        if not 1 <= input_dim <= MAX_INPUT_DIM:
            raise SizeLimitError(where, f"input dimension {input_dim} must be in [1, {MAX_INPUT_DIM}]")
        self.width = input_dim
        self.layers = []
        self.where = where

    def add_layer(self, pieces: list) -> None:
        """``pieces``: k affine maps (W rows, b) of the current hidden vector; unit i = max_j pieces[j] row i."""
        n = len(pieces[0][1])
        if len(self.layers) >= MAX_DEPTH:
            raise SizeLimitError(self.where, f"more than {MAX_DEPTH} layers")
        if n > MAX_WIDTH:
            raise SizeLimitError(self.where, f"layer {len(self.layers)} has {n} units, more than {MAX_WIDTH}")
        W = [[list(W_j[i]) for W_j, _ in pieces] for i in range(n)]
        b = [[b_j[i] for _, b_j in pieces] for i in range(n)]
        self.layers.append((W, b))
        self.width = n

    def finish(self, readout) -> MaxoutNetwork:
        if not self.layers:
            raise InputError(self.where, "the network has no hidden layer (no ReLU / Max): it is affine; "
                                         "at least one layer of units is needed")
        if readout is not None:
            W, b = readout
            identity = (len(W) == self.width
                        and all(v == (i == j) for i, row in enumerate(W) for j, v in enumerate(row))
                        and all(v == 0 for v in b))
            if identity:
                readout = None
        return MaxoutNetwork(self.layers, readout)


def _relu_pieces(W, b) -> list:
    return [(W, b), ([[Fraction(0)] * len(W[0]) for _ in W], [Fraction(0)] * len(b))]


def _from_dense(weights: list, biases: list, where: str) -> MaxoutNetwork:
    """ReLU layers ``weights[l]`` (out x in) with ``biases[l]``; the last one is the linear read-out."""
    if len(weights) < 2:
        raise InputError(where, f"{len(weights)} layer(s): a ReLU network needs at least one hidden layer and an "
                                "output layer")
    bld = _Builder(len(weights[0][0]), where)
    for W, b in zip(weights[:-1], biases[:-1]):
        bld.add_layer(_relu_pieces(W, b))
    return bld.finish((weights[-1], biases[-1]))


# -- .nnet ---------------------------------------------------------------------------------------

def _read_text(path: str, field: str, binary: bool = False):
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputError(field, f"{path}: {exc.strerror or exc}") from None
    if size > MAX_FILE_BYTES:
        raise SizeLimitError(field, f"{path}: file of {size} bytes exceeds the limit {MAX_FILE_BYTES}")
    try:
        with open(path, "rb" if binary else "r", **({} if binary else {"encoding": "utf-8"})) as fh:
            return fh.read()
    except UnicodeDecodeError:
        raise InputError(field, f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(field, f"{path}: {exc.strerror or exc}") from None


def read_nnet(path: str, *, units: str = "original") -> LoadedNetwork:
    """The network of a ``.nnet`` file (module docstring), in ``units`` ``"original"`` (default) or
    ``"normalised"``."""
    return read_nnet_text(_read_text(path, "nnet"), units=units, source=path)


def read_nnet_text(text: str, *, units: str = "original", source: str = "<text>") -> LoadedNetwork:
    """:func:`read_nnet` of the text of a ``.nnet`` file; errors name ``nnet line N``."""
    if units not in UNITS:
        raise InputError("units", f"must be original or normalised, got {units!r}")
    if len(text) > MAX_FILE_BYTES:
        raise SizeLimitError("nnet", f"{len(text)} characters exceed the limit {MAX_FILE_BYTES}")
    lines = []   # (line number, list of fields)
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        fields = [f.strip() for f in s.split(",")]
        if fields and fields[-1] == "":
            fields.pop()
        lines.append((no, fields))
    pos = [0]

    def row(what: str, n: int | None = None):
        if pos[0] >= len(lines):
            raise InputError(f"nnet {source}", f"ended before {what}")
        no, fields = lines[pos[0]]
        pos[0] += 1
        if n is not None and len(fields) != n:
            raise InputError(f"nnet line {no}", f"{what}: expected {n} comma-separated numbers, got {len(fields)}")
        return no, fields

    def number(text_: str, no: int, what: str) -> Fraction:
        if len(text_) > MAX_NUMBER_CHARS:
            raise SizeLimitError(f"nnet line {no}", f"{what}: number of {len(text_)} characters exceeds the limit "
                                                    f"{MAX_NUMBER_CHARS}")
        if not _DECIMAL.fullmatch(text_):
            raise InputError(f"nnet line {no}", f"{what}: {text_[:40]!r} is not a finite decimal number")
        mant, _, exp = text_.lower().partition("e")
        if exp and abs(int(exp)) > 400:
            raise SizeLimitError(f"nnet line {no}", f"{what}: exponent {exp} outside [-400, 400]")
        return Fraction(text_)

    def numbers(what: str, n: int) -> list:
        no, fields = row(what, n)
        return [number(f, no, what) for f in fields]

    def integer(text_: str, no: int, what: str, lo: int, hi: int) -> int:
        if not re.fullmatch(r"\d{1,6}", text_):
            raise InputError(f"nnet line {no}", f"{what}: expected an integer, got {text_[:40]!r}")
        v = int(text_)
        if not lo <= v <= hi:
            raise SizeLimitError(f"nnet line {no}", f"{what} {v} outside [{lo}, {hi}]")
        return v

    no, head = row("the header numLayers, inputSize, outputSize, maxLayerSize", 4)
    n_layers = integer(head[0], no, "numLayers", 1, MAX_DEPTH + 1)
    n_in = integer(head[1], no, "inputSize", 1, MAX_INPUT_DIM)
    n_out = integer(head[2], no, "outputSize", 1, MAX_WIDTH)
    integer(head[3], no, "maxLayerSize", 1, MAX_WIDTH)
    no, sz = row("the layer sizes", n_layers + 1)
    sizes = [integer(s, no, f"layer size {i}", 1, MAX_WIDTH) for i, s in enumerate(sz)]
    if sizes[0] != n_in or sizes[-1] != n_out:
        raise InputError(f"nnet line {no}", f"layer sizes {sizes[0]} ... {sizes[-1]} differ from inputSize {n_in} "
                                            f"/ outputSize {n_out} of the header")
    row("the (unused) flag line")
    mins = numbers("input minima", n_in)
    maxs = numbers("input maxima", n_in)
    means = numbers("means (inputs, then the output)", n_in + 1)
    no_r = lines[pos[0]][0] if pos[0] < len(lines) else None
    ranges = numbers("ranges (inputs, then the output)", n_in + 1)
    for i, r in enumerate(ranges):
        if r <= 0:
            raise InputError(f"nnet line {no_r}", f"range {i} is {r}; ranges must be > 0")
    for i, (lo, hi) in enumerate(zip(mins, maxs)):
        if lo > hi:
            raise InputError(f"nnet input {i}", f"minimum {lo} > maximum {hi}")
    weights, biases = [], []
    for l in range(n_layers):
        W = [numbers(f"layer {l} weight row {i}", sizes[l]) for i in range(sizes[l + 1])]
        b = [numbers(f"layer {l} bias {i}", 1)[0] for i in range(sizes[l + 1])]
        weights.append(W)
        biases.append(b)
    if pos[0] != len(lines):
        raise InputError(f"nnet line {lines[pos[0]][0]}", "unexpected data after the last layer")
    where = f"nnet {source}"
    if units == "original":
        # x_norm = (x - mean) / range  folded into layer 0; y = y_norm * range_out + mean_out into the output layer
        W0, b0 = weights[0], biases[0]
        weights[0] = [[w / ranges[j] for j, w in enumerate(r)] for r in W0]
        biases[0] = [bi - sum(w * means[j] / ranges[j] for j, w in enumerate(r)) for r, bi in zip(W0, b0)]
        ro, mo = ranges[-1], means[-1]
        weights[-1] = [[w * ro for w in r] for r in weights[-1]]
        biases[-1] = [bi * ro + mo for bi in biases[-1]]
        box = tuple(zip(mins, maxs))
    else:
        box = tuple(((lo - m) / r, (hi - m) / r) for lo, hi, m, r in zip(mins, maxs, means, ranges))
    net = _from_dense(weights, biases, where)
    return LoadedNetwork(net, box, units, f"nnet {source}", tuple(mins), tuple(maxs), tuple(means), tuple(ranges))


# -- ONNX ----------------------------------------------------------------------------------------

def _import_onnx():
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise InputError("onnx", f"reading ONNX files needs the optional package onnx: {ONNX_EXTRA}") from None
    return onnx, numpy_helper


def read_onnx(path: str) -> LoadedNetwork:
    """The network of an ONNX file (module docstring; no box: give one)."""
    onnx, _ = _import_onnx()
    data = _read_text(path, "onnx", binary=True)
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:   # a malformed protobuf: onnx raises various types
        raise InputError("onnx", f"{path}: not an ONNX model ({type(exc).__name__}: {str(exc)[:100]})") from None
    return LoadedNetwork(onnx_to_network(model, source=path), None, "original", f"onnx {path}")


class _Aff:
    """An affine image W h + b of the current hidden vector h (W: out x width rows), or a constant (W None)."""

    __slots__ = ("W", "b")

    def __init__(self, W, b):
        self.W, self.b = W, b


def onnx_to_network(model, *, source: str = "<model>") -> MaxoutNetwork:
    """The exact network of an ``onnx.ModelProto`` (module docstring)."""
    onnx, numpy_helper = _import_onnx()
    import numpy as np

    g = model.graph
    where = f"onnx {source}"
    if len(g.node) > MAX_ONNX_NODES:
        raise SizeLimitError(where, f"{len(g.node)} nodes exceed the limit {MAX_ONNX_NODES}")
    consts = {}
    for init in g.initializer:
        consts[init.name] = numpy_helper.to_array(init)
    inputs = [i for i in g.input if i.name not in consts]
    if len(inputs) != 1 or len(g.output) != 1:
        raise InputError(where, f"expected one input and one output, got {len(inputs)} inputs and "
                                f"{len(g.output)} outputs")
    dims = [d.dim_value if d.HasField("dim_value") else None for d in inputs[0].type.tensor_type.shape.dim]
    sized = [d for d in dims if d not in (None, 1)]
    if len(sized) != 1 and not (dims and dims[-1] == 1 and not sized):
        raise InputError(f"{where} input {inputs[0].name}", f"expected a vector input ([n] or [1, n]), shape {dims}")
    n = sized[0] if sized else 1
    bld = _Builder(n, where)
    ident = lambda m: [[Fraction(int(i == j)) for j in range(m)] for i in range(m)]   # noqa: E731
    vals = {inputs[0].name: _Aff(ident(n), [Fraction(0)] * n)}

    def const(name, node):
        if name in consts:
            return consts[name]
        raise InputError(f"{where} node {node.name or node.op_type}", f"input {name!r} must be a constant "
                                                                       "(an initializer)")

    def value(name, node):
        if name in vals:
            return vals[name]
        if name in consts:
            a = np.asarray(consts[name])
            return _Aff(None, _array(a.reshape(-1), f"{where} {name}", 1))
        raise InputError(f"{where} node {node.name or node.op_type}", f"unknown input {name!r}")

    def matmul(a: _Aff, M, field):   # (W h + b)^T M  ->  M^T W h + M^T b
        M = _array(M, field, 2)
        if len(M) != len(a.b):
            raise InputError(field, f"shape mismatch: {len(a.b)} values times a {len(M)} x {len(M[0])} matrix")
        cols = range(len(M[0]))
        b = [sum((M[k][c] * a.b[k] for k in range(len(M)) if M[k][c]), Fraction(0)) for c in cols]
        if a.W is None:
            return _Aff(None, b)
        width = len(a.W[0])
        W = [[sum((M[k][c] * a.W[k][j] for k in range(len(M)) if M[k][c] and a.W[k][j]), Fraction(0))
              for j in range(width)] for c in cols]
        return _Aff(W, b)

    def add(a: _Aff, c: _Aff, field):
        if len(a.b) != len(c.b):
            if len(c.b) == 1:
                c = _Aff(None if c.W is None else c.W * len(a.b), c.b * len(a.b))
            elif len(a.b) == 1:
                return add(c, a, field)
            else:
                raise InputError(field, f"shape mismatch: {len(a.b)} + {len(c.b)} values")
        b = [x + y for x, y in zip(a.b, c.b)]
        if a.W is None and c.W is None:
            return _Aff(None, b)
        if a.W is None or c.W is None:
            W = a.W if c.W is None else c.W
        else:
            W = [[x + y for x, y in zip(r, s)] for r, s in zip(a.W, c.W)]
        return _Aff(W, b)

    def scaled(a: _Aff, s: Fraction):
        return _Aff(None if a.W is None else [[s * v for v in r] for r in a.W], [s * v for v in a.b])

    def attrs(node):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    for node in g.node:
        op = node.op_type
        field = f"{where} node {node.name or op}"
        if op not in ONNX_OPS:
            raise InputError(field, f"operator {op} is not supported (supported: {', '.join(ONNX_OPS)})")
        at = attrs(node)
        if op == "Constant":
            if "value" not in at:
                raise InputError(field, "only Constant nodes with a tensor 'value' are supported")
            consts[node.output[0]] = numpy_helper.to_array(at["value"])
            continue
        if op in ("Flatten", "Identity"):
            if node.input[0] in consts:
                consts[node.output[0]] = consts[node.input[0]]
            else:
                vals[node.output[0]] = value(node.input[0], node)
            continue
        if op == "MatMul":
            out = matmul(value(node.input[0], node), const(node.input[1], node), field)
        elif op == "Gemm":
            if at.get("transA", 0):
                raise InputError(field, "Gemm with transA = 1 is not supported")
            B = np.asarray(const(node.input[1], node))
            if at.get("transB", 0):
                B = B.T
            out = scaled(matmul(value(node.input[0], node), B, field), _exact_float(at.get("alpha", 1.0), field))
            if len(node.input) > 2 and node.input[2]:
                C = np.asarray(const(node.input[2], node)).reshape(-1)
                out = add(out, scaled(_Aff(None, _array(C, field, 1)), _exact_float(at.get("beta", 1.0), field)),
                          field)
        elif op == "Add":
            out = add(value(node.input[0], node), value(node.input[1], node), field)
        elif op == "Relu":
            a = value(node.input[0], node)
            if a.W is None:
                raise InputError(field, "Relu of a constant")
            bld.add_layer(_relu_pieces(a.W, a.b))
            m = len(a.b)
            out = _Aff(ident(m), [Fraction(0)] * m)
            vals = {}   # values of the previous layer cannot be used after it
        else:   # Max
            parts = [value(x, node) for x in node.input]
            m = max(len(p.b) for p in parts)
            if all(p.W is None for p in parts):
                raise InputError(field, "Max of constants")
            width = next(len(p.W[0]) for p in parts if p.W is not None)
            pieces = []
            for p in parts:
                if len(p.b) not in (1, m):
                    raise InputError(field, f"shape mismatch: Max of {m} and {len(p.b)} values")
                b = p.b if len(p.b) == m else p.b * m
                W = p.W if p.W is not None else [[Fraction(0)] * width for _ in range(m)]
                if len(W) != m:
                    W = W * m
                pieces.append((W, b))
            if len(pieces) == 1:
                pieces.append(pieces[0])
            bld.add_layer(pieces)
            out = _Aff(ident(m), [Fraction(0)] * m)
            vals = {}
        vals[node.output[0]] = out
    res = vals.get(g.output[0].name)
    if res is None or res.W is None:
        raise InputError(f"{where} output {g.output[0].name}", "is not computed from the input by the supported "
                                                               "operators")
    return bld.finish((res.W, res.b))


# -- state dicts ---------------------------------------------------------------------------------

def read_npz(path: str) -> LoadedNetwork:
    """The ReLU network of a ``.npz`` state dict (module docstring; no box: give one)."""
    import zipfile

    import numpy as np

    size = _check_size(path, "npz")
    del size
    try:
        with np.load(path, allow_pickle=False) as z:
            mapping = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError("npz", f"{path}: not a numpy .npz file ({str(exc)[:100]})") from None
    return LoadedNetwork(from_state_dict(mapping, source=path), None, "original", f"npz {path}")


def _check_size(path, field):
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputError(field, f"{path}: {exc.strerror or exc}") from None
    if size > MAX_FILE_BYTES:
        raise SizeLimitError(field, f"{path}: file of {size} bytes exceeds the limit {MAX_FILE_BYTES}")
    return size


def from_state_dict(mapping, *, source: str = "<state dict>") -> MaxoutNetwork:
    """The ReLU network of a mapping ``{"<prefix>.weight": array (out x in), "<prefix>.bias": array (out)}``
    (module docstring for the naming and the order); any other key is an error naming it."""
    if not hasattr(mapping, "items"):
        raise InputError("state_dict", f"expected a mapping of arrays, got {type(mapping).__name__}")
    prefixes = []
    arrays = {}
    for key, arr in mapping.items():
        if not isinstance(key, str) or not (key.endswith(".weight") or key.endswith(".bias")):
            raise InputError(f"state_dict[{key!r}]", "expected names '<prefix>.weight' and '<prefix>.bias' "
                                                     "(e.g. '0.weight', 'layers.2.bias')")
        prefix, _, kind = key.rpartition(".")
        if prefix not in prefixes:
            prefixes.append(prefix)
        arrays[(prefix, kind)] = arr
    if not prefixes:
        raise InputError("state_dict", "no layers")
    if len(prefixes) > MAX_DEPTH + 1:
        raise SizeLimitError("state_dict", f"{len(prefixes)} layers exceed the limit {MAX_DEPTH + 1}")
    tails = [p.rpartition(".")[2] for p in prefixes]
    if all(t.isdigit() for t in tails):
        order = sorted(range(len(prefixes)), key=lambda i: int(tails[i]))
        if len({int(t) for t in tails}) != len(tails):
            raise InputError("state_dict", f"two layers share the index in {prefixes}")
        prefixes = [prefixes[i] for i in order]
    weights, biases = [], []
    n_prev = None
    for p in prefixes:
        if (p, "weight") not in arrays or (p, "bias") not in arrays:
            missing = "weight" if (p, "weight") not in arrays else "bias"
            raise InputError(f"state_dict[{p + '.' + missing!r}]", "missing")
        W = _array(arrays[(p, "weight")], f"state_dict[{p + '.weight'!r}]", 2)
        b = _array(arrays[(p, "bias")], f"state_dict[{p + '.bias'!r}]", 1)
        if not W or not W[0]:
            raise InputError(f"state_dict[{p + '.weight'!r}]", "empty matrix")
        if len(b) != len(W):
            raise InputError(f"state_dict[{p + '.bias'!r}]", f"{len(b)} biases for {len(W)} rows of the weight")
        if n_prev is not None and len(W[0]) != n_prev:
            raise InputError(f"state_dict[{p + '.weight'!r}]", f"{len(W[0])} columns, but the previous layer has "
                                                               f"{n_prev} units")
        n_prev = len(W)
        weights.append(W)
        biases.append(b)
    return _from_dense(weights, biases, f"state_dict {source}")


# -- dispatch and slices -------------------------------------------------------------------------

def load_network(path: str, *, units: str = "original") -> LoadedNetwork:
    """Dispatch on the suffix: ``.nnet`` (:func:`read_nnet`), ``.onnx`` (:func:`read_onnx`), ``.npz``
    (:func:`read_npz`).  ``units`` applies to ``.nnet`` (the other formats have no normalisation)."""
    low = path.lower()
    if low.endswith(".nnet"):
        return read_nnet(path, units=units)
    if units not in UNITS:
        raise InputError("units", f"must be original or normalised, got {units!r}")
    if low.endswith(".onnx"):
        return read_onnx(path)
    if low.endswith(".npz"):
        return read_npz(path)
    raise InputError("network", f"{path}: unknown suffix (expected one of {', '.join(NETWORK_SUFFIXES)})")


def slice_network(net: MaxoutNetwork, free, fixed: dict) -> MaxoutNetwork:
    """The network in the free inputs ``free`` (a list of input indices, in that order) with the other inputs
    fixed to the exact values ``fixed`` (index -> number); every input must be free or fixed, exactly once.

    >>> net = MaxoutNetwork([([[[1, 2], [0, 0]]], [[0, 0]])])         # ReLU(x0 + 2 x1)
    >>> slice_network(net, [1], {0: Fraction(-1)}).evaluate([1])      # ReLU(-1 + 2)
    (Fraction(1, 1),)
    """
    d = net.input_dim
    free = list(free)
    if not free:
        raise InputError("--slice", "at least one free input is needed")
    for i in list(free) + list(fixed):
        if not isinstance(i, int) or not 0 <= i < d:
            raise InputError("--slice" if i in free else "--fix", f"input index {i!r} outside [0, {d - 1}]")
    if len(set(free)) != len(free):
        raise InputError("--slice", f"an input is given twice in {free}")
    both = set(free) & set(fixed)
    if both:
        raise InputError("--fix", f"input {min(both)} is both free (--slice) and fixed")
    rest = [i for i in range(d) if i not in free and i not in fixed]
    if rest:
        raise InputError("--fix", f"input {rest[0]} is neither free (--slice) nor fixed; fix every other input")
    vals = {i: Fraction(v) for i, v in fixed.items()}
    W, b = net.layers[0]
    W2 = [[[w[i] for i in free] for w in unit] for unit in W]
    b2 = [[bj + sum((w[i] * v for i, v in vals.items()), Fraction(0)) for w, bj in zip(unit, bu)]
          for unit, bu in zip(W, b)]
    layers = [(W2, b2)] + [(list(map(list, Wl)), list(map(list, bl))) for Wl, bl in net.layers[1:]]
    return MaxoutNetwork(layers, net.readout)
