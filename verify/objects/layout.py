"""Residual layouts: the E coordinates of a Transformer's residual stream as named blocks.

A :class:`Layout` is an ordered tuple of blocks.  A block is either a *vector* block ``(name, width)``, whose
coordinates are labelled ``name_1 .. name_width``, or a *scalar* block given by its bare name (width 1, labelled
by the name itself).  Block b occupies the contiguous coordinate range :meth:`Layout.slice`; coordinate i of
block b (0-based) is :meth:`Layout.index`.  Compilers build every weight row through the layout (:meth:`row`,
:meth:`unit`) and every token matrix through :meth:`stack`, so no coordinate offset is written by hand.

Each sublayer of a Transformer built with a layout declares the blocks it reads and writes (the idea of
tracr's typed residual spaces, ``VectorSpaceWithBasis``: a sublayer maps one named subspace into another).
:func:`check_sublayer` verifies the declaration against the weights:

* feed-forward: every non-zero entry of W1 lies in a column of a declared read block, every non-zero row of
  W2 and every non-zero entry of b2 in a declared write block (b1 acts on the hidden units: not checked);
* attention head: every non-zero column of W_Q, W_K, W_V lies in the blocks declared for the query, key and
  value respectively, every non-zero row of W_O in a declared write block.

A mismatch is refused with an :class:`~verify.errors.InputError` naming the sublayer, the weight entry, the
coordinate and its block.  Declarations are block-level: they say which subspace a sublayer may touch, not
which coordinates inside it.

>>> L = Layout([("h", 2), ("z", 2), ("p", 3), "one"])
>>> L.dim, L.names(), L.slice("z"), L.index("p", 2), L.index("one")
(8, ('h', 'z', 'p', 'one'), slice(2, 4, None), 6, 7)
>>> L.labels()
('h_1', 'h_2', 'z_1', 'z_2', 'p_1', 'p_2', 'p_3', 'one')
>>> L.row({("h", 1): 5, "one": -1})
[0, 5, 0, 0, 0, 0, 0, -1]
>>> L.block_of(5), L
('p', Layout(h:2, z:2, p:3, one))
"""

from __future__ import annotations

from typing import Iterable, Mapping

from ..errors import InputError, InputTypeError

__all__ = ["Layout", "HEAD_ROLES", "parse_blocks", "parse_head_reads", "check_sublayer", "check_transformer",
           "MAX_BLOCKS"]

MAX_BLOCKS = 1024
HEAD_ROLES = ("query", "key", "value")          # the input maps W_Q, W_K, W_V of a head
_HEAD_MATRIX = {"query": "W_Q", "key": "W_K", "value": "W_V"}


def _block_name(name, field: str) -> str:
    if not isinstance(name, str) or not name:
        raise InputTypeError(field, f"a block name must be a non-empty string, got {name!r}")
    return name


class Layout:
    """An immutable ordered tuple of named blocks: ``Layout([("h", 2), ("z", 2), ("p", 3), "one"])``.

    ``names()`` the block names in order, ``width(name)``, ``slice(name)`` its coordinate range,
    ``index(name, i)`` coordinate i (0-based) of a block (``i`` may be omitted for a block of width 1),
    ``labels()`` the E coordinate labels (``h_1``, ..., ``one``), ``block_of(e)`` the block of coordinate e,
    ``blocks()`` the ``(name, width, scalar)`` triples.  Equal layouts have the same blocks in the same order.
    """

    __slots__ = ("_blocks", "_start", "_labels", "_owner", "dim")

    def __init__(self, blocks: Iterable):
        if isinstance(blocks, (str, bytes)) or not isinstance(blocks, (list, tuple)) or not blocks:
            raise InputTypeError("blocks", "expected a non-empty list of blocks: a name or (name, width)")
        if len(blocks) > MAX_BLOCKS:
            raise InputError("blocks", f"{len(blocks)} blocks exceed the limit {MAX_BLOCKS}")
        parsed, start, labels, at = [], {}, [], 0
        for b, block in enumerate(blocks):
            field = f"blocks[{b}]"
            if isinstance(block, str):
                name, width, scalar = _block_name(block, field), 1, True
            elif isinstance(block, (list, tuple)) and len(block) == 2:
                name, width, scalar = _block_name(block[0], field), block[1], False
                if not isinstance(width, int) or isinstance(width, bool) or width < 1:
                    raise InputError(field, f"the width of block {name!r} must be an integer >= 1, got {width!r}")
            else:
                raise InputTypeError(field, f"expected a name or (name, width), got {block!r}")
            if name in start:
                raise InputError(field, f"block {name!r} appears twice")
            start[name] = at
            parsed.append((name, width, scalar))
            labels += [name] if scalar else [f"{name}_{i + 1}" for i in range(width)]
            at += width
        if len(set(labels)) != len(labels):
            raise InputError("blocks", "two coordinates would get the same label")
        init = lambda attr, value: object.__setattr__(self, attr, value)
        init("_blocks", tuple(parsed))
        init("_start", start)
        init("_labels", tuple(labels))
        init("_owner", tuple(name for name, width, _ in parsed for _ in range(width)))
        init("dim", at)

    def __setattr__(self, attr, value):
        raise AttributeError("a Layout is immutable")

    def __reduce__(self):
        return Layout, ([name if scalar else (name, width) for name, width, scalar in self._blocks],)

    # -- blocks and coordinates ---------------------------------------------------------------------
    def names(self) -> tuple:
        return tuple(name for name, _, _ in self._blocks)

    def blocks(self) -> tuple:
        """``(name, width, scalar)`` per block, in order."""
        return self._blocks

    def widths(self) -> tuple:
        return tuple(width for _, width, _ in self._blocks)

    def __contains__(self, name) -> bool:
        return name in self._start

    def _check_name(self, name, field: str = "name") -> None:
        if name not in self._start:
            raise InputError(field, f"unknown block {name!r}; the layout has {', '.join(self.names())}")

    def width(self, name: str) -> int:
        self._check_name(name)
        return self._blocks[self.names().index(name)][1]

    def slice(self, name: str) -> slice:
        """The coordinate range of block ``name`` (``X[L.slice("z")]`` are its rows)."""
        self._check_name(name)
        return slice(self._start[name], self._start[name] + self.width(name))

    def coords(self, name: str) -> range:
        s = self.slice(name)
        return range(s.start, s.stop)

    def index(self, name: str, i: int | None = None) -> int:
        """Coordinate i (0-based) of block ``name``; ``i`` may be omitted when the block has width 1."""
        w = self.width(name)
        if i is None:
            if w != 1:
                raise InputError("i", f"block {name!r} has width {w}: give the coordinate index")
            i = 0
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < w:
            raise InputError("i", f"block {name!r} has coordinates 0..{w - 1}, got {i!r}")
        return self._start[name] + i

    def block_of(self, e: int) -> str:
        """The name of the block holding coordinate ``e``."""
        if not isinstance(e, int) or isinstance(e, bool) or not 0 <= e < self.dim:
            raise InputError("e", f"must be a coordinate in [0, {self.dim - 1}], got {e!r}")
        return self._owner[e]

    def labels(self) -> tuple:
        """The coordinate labels, in order: ``name_1 .. name_w`` for a vector block, ``name`` for a scalar one."""
        return self._labels

    def label(self, e: int) -> str:
        self.block_of(e)
        return self._labels[e]

    # -- building rows and token matrices -------------------------------------------------------------
    def _key(self, key) -> int:
        if isinstance(key, str):
            return self.index(key)
        if isinstance(key, tuple) and len(key) == 2:
            return self.index(*key)
        raise InputTypeError("entries", f"a key is a block name or (name, i), got {key!r}")

    def row(self, entries: Mapping, zero=0) -> list:
        """A length-E row: ``zero`` everywhere except ``entries`` (``{(name, i): value, name: value, ...}``)."""
        out = [zero] * self.dim
        for key, value in entries.items():
            out[self._key(key)] = value
        return out

    def unit(self, name: str, i: int | None = None, value=1, zero=0) -> list:
        """The row ``value * e_{(name, i)}^T``."""
        return self.row({(name, i): value}, zero)

    def stack(self, parts: Mapping) -> tuple:
        """The E rows of a token matrix from the rows of every block (``{name: [row, ...]}``, ``width(name)``
        rows each), concatenated in layout order."""
        missing = [name for name in self.names() if name not in parts]
        extra = [name for name in parts if name not in self._start]
        if missing or extra:
            raise InputError("parts", f"expected rows for exactly the blocks {', '.join(self.names())}"
                                      + (f"; missing {', '.join(missing)}" if missing else "")
                                      + (f"; unknown {', '.join(map(repr, extra))}" if extra else ""))
        rows = []
        for name, width, _ in self._blocks:
            block = tuple(parts[name])
            if len(block) != width:
                raise InputError(f"parts[{name!r}]", f"expected {width} rows, got {len(block)}")
            rows += block
        return tuple(rows)

    # -- identity and display -------------------------------------------------------------------------
    def __eq__(self, other):
        return isinstance(other, Layout) and self._blocks == other._blocks

    def __hash__(self):
        return hash(self._blocks)

    def __repr__(self):
        return "Layout(" + ", ".join(name if scalar else f"{name}:{width}" for name, width, scalar in self._blocks) + ")"

    def describe(self) -> str:
        """``h_1..h_2 | z_1..z_2 | p_1..p_3 | one`` (the coordinates block by block)."""
        parts = []
        for name, width, scalar in self._blocks:
            labels = self._labels[self._start[name]:self._start[name] + width]
            parts.append(labels[0] if width == 1 else f"{labels[0]}..{labels[-1]}")
        return " | ".join(parts)


# ---------------------------------------------------------------------------------------------------
# sublayer declarations

def parse_blocks(value, field: str):
    """A declaration of blocks: ``None`` (undeclared) or a collection of block names -> frozenset."""
    if value is None:
        return None
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise InputTypeError(field, f"expected a list of block names, got {type(value).__name__}")
    return frozenset(_block_name(v, f"{field}[{i}]") for i, v in enumerate(value))


def parse_head_reads(value, field: str = "reads"):
    """A head's read declaration: ``None``, block names (read by all of W_Q, W_K, W_V) or a mapping
    ``{"query": ..., "key": ..., "value": ...}`` (an omitted role reads nothing) -> dict role -> frozenset."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        bad = [k for k in value if k not in HEAD_ROLES]
        if bad:
            raise InputError(field, f"roles are {', '.join(HEAD_ROLES)}, got {bad[0]!r}")
        return {role: parse_blocks(value.get(role, ()), f"{field}[{role!r}]") for role in HEAD_ROLES}
    blocks = parse_blocks(value, field)
    return {role: blocks for role in HEAD_ROLES}


def _fmt(blocks) -> str:
    return "{" + ", ".join(sorted(blocks)) + "}" if blocks else "no block"


def _check_known(layout: Layout, blocks, field: str) -> None:
    for name in sorted(blocks):
        if name not in layout:
            raise InputError(field, f"declares unknown block {name!r}; the layout has {', '.join(layout.names())}")


def _refuse(layout: Layout, where: str, entry: str, e: int, declared, what: str) -> None:
    verb = "writes" if what == "write" else "reads"
    raise InputError(f"{where}.{entry}", f"{verb} coordinate {layout.label(e)} of block {layout.block_of(e)!r}, "
                                         f"outside its declared {what} blocks {_fmt(declared)}")


def _cols(layout, where, name, M, allowed, what):
    """Every non-zero entry of M (rows x E) in a column of an allowed block."""
    owner = layout._owner
    for r, row in enumerate(M):
        for c, v in enumerate(row):
            if v != 0 and owner[c] not in allowed:
                _refuse(layout, where, f"{name}[{r}][{c}]", c, allowed, what)


def _rows(layout, where, name, M, allowed):
    """Every non-zero entry of M (E x cols) in a row of an allowed block."""
    owner = layout._owner
    for e, row in enumerate(M):
        if owner[e] in allowed:
            continue
        for c, v in enumerate(row):
            if v != 0:
                _refuse(layout, where, f"{name}[{e}]" if name == "b2" else f"{name}[{e}][{c}]", e, allowed, "write")


def check_sublayer(layout: Layout, sub, where: str = "sublayer") -> None:
    """Refuse (InputError naming ``where``, the entry, the coordinate and its block) a sublayer whose weights
    read or write outside its declared blocks, or that declares nothing or an unknown block."""
    if not isinstance(layout, Layout):
        raise InputTypeError("layout", f"expected a Layout, got {type(layout).__name__}")
    if sub.embedding_dim != layout.dim:
        raise InputError(where, f"embedding dimension {sub.embedding_dim} differs from the layout's {layout.dim}")
    if getattr(sub, "kind", "") == "ffn":
        if sub.reads is None or sub.writes is None:
            raise InputError(where, "declares no read/write blocks (FeedForward(..., reads=..., writes=...))")
        _check_known(layout, sub.reads, f"{where}.reads")
        _check_known(layout, sub.writes, f"{where}.writes")
        _cols(layout, where, "W1", sub.W1, sub.reads, "read")
        _rows(layout, where, "W2", sub.W2, sub.writes)
        _rows(layout, where, "b2", [[v] for v in sub.b2], sub.writes)
        return
    for h, head in enumerate(sub.heads):
        at = f"{where}.heads[{h}]"
        if head.reads is None or head.writes is None:
            raise InputError(at, "declares no read/write blocks (Head(..., reads=..., writes=...))")
        for role in HEAD_ROLES:
            _check_known(layout, head.reads[role], f"{at}.reads[{role!r}]")
        _check_known(layout, head.writes, f"{at}.writes")
        for role in HEAD_ROLES:
            name = _HEAD_MATRIX[role]
            _cols(layout, at, name, getattr(head, name), head.reads[role], role)
        _rows(layout, at, "W_O", head.W_O, head.writes)


def check_transformer(transformer) -> None:
    """:func:`check_sublayer` for every sublayer of a Transformer built with a layout."""
    layout = getattr(transformer, "layout", None)
    if layout is None:
        raise InputError("layout", "the Transformer has no layout to check against")
    for s, sub in enumerate(transformer.sublayers):
        check_sublayer(layout, sub, f"sublayers[{s}]")
