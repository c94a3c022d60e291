"""Transformers with exact weights: residual attention and feed-forward sublayers (docs/paper1.md §2.2).

Tokens are the **columns** of X (a tuple of E rows, each with n entries).  No LayerNorm, no 1/sqrt(m)::

    Attn(X) = X + sum_h W_O^h W_V^h X sigma[(W_K^h X)^T (W_Q^h X)]     score[l][j] = <W_K x_l, W_Q x_j>
    FF(X)   = X + W_2 ReLU(W_1 X + b_1 1^T) + b_2 1^T

sigma acts column-wise (query j gets a probability vector over the keys l):

* ``attention="hardmax"`` -- all weight on the argmax set, tie rule ``average`` (1/|A| each) or ``first``
  (smallest key index).  Exact (Fractions); the evaluation is *traceable* (only ``+``, ``-``, constant
  multiples, ``ops.mul`` for score products, decisions through ``ops``, an arithmetic
  :class:`~verify.arith.context.Context`), so a region tracer can pass affine forms as values.
* ``attention="softmax"`` -- softmax(scale * score) (lambda multiplies the score; no other scaling), in the
  context named by ``backend``: ``"arb"`` (rigorous balls, default), ``"mpmath"`` (evidence only) or
  ``"sympy"`` (symbolic).

The conventions are recorded in :data:`CONVENTIONS` and on every Transformer (``.conventions``).

>>> head = Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])     # O1: value = score = z
>>> T = Transformer([Attention([head])], coordinate_names=["z", "one", "out"])
>>> T.evaluate([[1, "5/2"], [1, 1], [0, 0]])[2]
(Fraction(5, 2), Fraction(5, 2))
>>> T.embedding_dim, T.n_sublayers, T.heads_per_attention, T.parameter_count(nonzero=True)
(3, 1, [1], 4)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ..arith.context import EXACT, SYMPY, BallContext, Context, MpmathContext
from ..arith.exact import fraction_str, parse_exact, parse_positive, plain
from ..arith.exact import is_list as _is_list
from ..errors import InputError, InputTypeError, SizeLimitError
from .layout import Layout, check_transformer, parse_blocks, parse_head_reads
from .maxout import coerce_input

__all__ = ["Head", "SublayerView", "Attention", "FeedForward", "Transformer", "CONVENTIONS", "ATTENTION_KINDS", "BACKENDS",
           "TIE_RULES", "hardmax_weights", "MAX_EMBEDDING", "MAX_TOKENS", "MAX_SUBLAYERS", "MAX_HEADS",
           "MAX_HEAD_SIZE", "MAX_FFN_WIDTH", "format_matrix"]

MAX_EMBEDDING = 1024
MAX_TOKENS = 512
MAX_SUBLAYERS = 1024
MAX_HEADS = 256
MAX_HEAD_SIZE = 1024
MAX_FFN_WIDTH = 8192

ATTENTION_KINDS = ("hardmax", "softmax")
BACKENDS = ("arb", "mpmath", "sympy")
TIE_RULES = ("average", "first")

CONVENTIONS = {
    "tokens": "columns of X (E x n)",
    "attention": "residual X + sum_h W_O W_V X sigma[(W_K X)^T (W_Q X)], sigma column-wise over keys; "
                 "no LayerNorm, no 1/sqrt(m)",
    "softmax": "softmax(scale * score): lambda multiplies the raw score",
    "hardmax_ties": "average (1/|argmax| on each maximiser) or first (smallest key index)",
    "ffn": "residual X + W_2 ReLU(W_1 X + b_1 1^T) + b_2 1^T",
    "block_order": "sublayers applied in the given order (no implied Attn-then-FFN pairing)",
    "depth": "D = number of sublayers (attention and FFN each count 1)",
}


# ----------------------------------------------------------------------------------------------
# helpers

def _matrix(rows, field: str, *, n_rows=None, n_cols=None, allow_float=False, max_rows=None, max_cols=None) -> tuple:
    rows = plain(rows)
    if not _is_list(rows) or not rows:
        raise InputTypeError(field, "expected a non-empty list of rows")
    if max_rows is not None and len(rows) > max_rows:
        raise SizeLimitError(field, f"{len(rows)} rows exceed the limit {max_rows}")
    if n_rows is not None and len(rows) != n_rows:
        raise InputError(field, f"expected {n_rows} rows, got {len(rows)}")
    out = []
    for i, row in enumerate(rows):
        if not _is_list(row) or not row:
            raise InputTypeError(f"{field}[{i}]", "expected a non-empty row of numbers")
        if max_cols is not None and len(row) > max_cols:
            raise SizeLimitError(f"{field}[{i}]", f"{len(row)} columns exceed the limit {max_cols}")
        want = n_cols if n_cols is not None else len(out[0]) if out else None
        if want is not None and len(row) != want:
            raise InputError(f"{field}[{i}]", f"expected {want} columns, got {len(row)}")
        out.append(_row(row, field, i, allow_float))
    return tuple(out)


_SMALL = 16
_SMALL_FRACTIONS = tuple(Fraction(v) for v in range(-_SMALL, _SMALL + 1))   # shared: Fractions are immutable


def _row(row, field: str, i: int, allow_float: bool) -> tuple:
    """``tuple(parse_exact(v) for v in row)``, with the two commonest entries of compiled weights (a Fraction,
    returned as it is; a small int, as a shared Fraction) taken without the parser: the same values."""
    out = []
    for j, v in enumerate(row):
        t = type(v)
        if t is Fraction:
            out.append(v)
        elif t is int and -_SMALL <= v <= _SMALL:
            out.append(_SMALL_FRACTIONS[v + _SMALL])
        else:
            out.append(parse_exact(v, f"{field}[{i}][{j}]", allow_float=allow_float))
    return tuple(out)


def _vector(vals, field: str, n: int, allow_float=False) -> tuple:
    if vals is None:
        return tuple(Fraction(0) for _ in range(n))
    vals = plain(vals)
    if not _is_list(vals) or len(vals) != n:
        raise InputError(field, f"expected a vector of length {n}")
    return tuple(parse_exact(v, f"{field}[{i}]", allow_float=allow_float) for i, v in enumerate(vals))


def _sparse(row) -> tuple:
    return tuple((i, c) for i, c in enumerate(row) if c)       # parsed rows: Fractions (c != 0 iff bool(c))


def _nnz(mat) -> int:
    return sum(1 for row in mat for v in row if v != 0)


def _boundaries(groups) -> set:
    """The indices at which a new group starts (not 0), for group widths ``groups`` (None: no groups)."""
    out, at = set(), 0
    for w in groups or ():
        at += w
        out.add(at)
    return out


def format_matrix(rows, row_names: Sequence[str], col_names: Sequence[str], *, col_groups=None,
                  row_groups=None) -> str:
    """A labelled text matrix (exact entries, blank for 0); ``col_groups`` / ``row_groups`` (widths of
    consecutive blocks, e.g. a layout's) separate the blocks by ``|`` columns and ``-`` lines.

    >>> print(format_matrix([[1, 0], [0, Fraction(-1, 2)]], ["q1", "q2"], ["h", "one"]))
          h  one
    q1    1
    q2      -1/2
    >>> print(format_matrix([[1, 0, 2]], ["r1"], ["h_1", "h_2", "one"], col_groups=[2, 1]))
       h_1 h_2 | one
    r1   1     |   2
    """
    cells = [[fraction_str(v) if v != 0 else "" for v in row] for row in rows]
    width = max([len(c) for c in col_names] + [len(c) for row in cells for c in row] + [1])
    rw = max(len(r) for r in row_names)
    cuts, row_cuts = _boundaries(col_groups), _boundaries(row_groups)

    def line(cs):
        return "".join((" | " if j in cuts else " ") + c.rjust(width) for j, c in enumerate(cs))

    lines = [" " * rw + line(col_names)]
    for i, (name, row) in enumerate(zip(row_names, cells)):
        if i in row_cuts:
            lines.append("-" * len(lines[0]))
        lines.append((name.ljust(rw) + line(row)).rstrip())
    return "\n".join(lines)


def _latex_matrix(rows, row_names, col_names, col_groups=None, row_groups=None) -> str:
    tex = _tex_entry
    head = " & ".join(["~"] + [f"\\scriptstyle {c}" for c in col_names])
    row_cuts = _boundaries(row_groups)
    body = "".join((" \\\\ \\hline " if i in row_cuts else " \\\\ " if i else "") +
                   " & ".join([f"\\scriptstyle {r}"] + [tex(v) for v in row])
                   for i, (r, row) in enumerate(zip(row_names, rows)))
    spec = "|".join("c" * w for w in col_groups) if col_groups else "c" * len(col_names)
    return f"\\begin{{array}}{{r|{spec}}}{head} \\\\ \\hline {body}\\end{{array}}"


# ----------------------------------------------------------------------------------------------
# hardmax weights and the softmax contexts

def hardmax_weights(scores, tie: str, ops: Context = EXACT) -> list:
    """Hardmax probability vector (Fractions) over keys for one query column.

    ``average``: 1/|A| on each maximiser; ``first``: 1 on the smallest maximiser index.

    >>> hardmax_weights([1, 3, 3], "average"), hardmax_weights([1, 3, 3], "first")
    ([Fraction(0, 1), Fraction(1, 2), Fraction(1, 2)], [Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)])
    """
    if tie not in TIE_RULES:
        raise ValueError(f"tie: must be one of {', '.join(TIE_RULES)}, got {tie!r}")
    winners = _winners(scores, tie, ops)
    out = [_W_ZERO] * len(scores)
    w = _unit_weight(len(winners))
    for i in winners:
        out[i] = w
    return out


_W_ZERO = Fraction(0)
_W_UNIT = {}            # k -> Fraction(1, k): the hardmax weights, built once (Fractions are immutable)


def _unit_weight(k: int) -> Fraction:
    w = _W_UNIT.get(k)
    if w is None:
        w = _W_UNIT[k] = Fraction(1, k)
    return w


def _winners(scores, tie: str, ops: Context) -> tuple:
    """The keys that get weight under the hardmax tie rule (increasing indices): the argmax set (``average``)
    or its first member (``first``); each of them gets 1 / (their number)."""
    winners = ops.argmax_set(scores)
    return tuple(winners[:1]) if tie == "first" else tuple(winners)


_BALL_CONTEXTS: dict = {}


def _softmax_context(name, precision, dps) -> Context:
    """The context of a softmax evaluation: ``"arb"`` balls at ``precision`` bits, ``"mpmath"`` at ``dps``
    digits (evidence), ``"sympy"`` (symbolic)."""
    if name == "arb":
        if not isinstance(precision, int) or isinstance(precision, bool) or not 16 <= precision <= 100000:
            raise InputError("precision", f"must be an integer number of bits in [16, 100000], got {precision!r}")
        if precision not in _BALL_CONTEXTS or len(_BALL_CONTEXTS[precision]._balls) > 100_000:
            _BALL_CONTEXTS[precision] = BallContext(precision)   # one per precision: weights converted once
        return _BALL_CONTEXTS[precision]
    if name == "mpmath":
        if not isinstance(dps, int) or isinstance(dps, bool) or not 5 <= dps <= 10000:
            raise InputError("dps", f"must be an integer number of digits in [5, 10000], got {dps!r}")
        return MpmathContext(dps=dps)
    return SYMPY


def _check_mode(attention, tie):
    if attention not in ATTENTION_KINDS:
        raise InputError("attention", f"must be one of {', '.join(ATTENTION_KINDS)}, got {attention!r}")
    if tie not in TIE_RULES:
        raise InputError("tie", f"must be one of {', '.join(TIE_RULES)}, got {tie!r}")


# ----------------------------------------------------------------------------------------------
# sublayers

def _reads(rows) -> tuple:
    """The coordinates whose values the sparse rows' combinations depend on (coordinate 0 too when a row
    is empty: its combination is ``values[0] * 0``)."""
    used = {i for r in rows for i, _ in r}
    if any(not r for r in rows):
        used.add(0)
    return tuple(sorted(used))


def _project(cols, rows, reads, dot) -> list:
    """[[dot(c, r) for r in rows] for c in cols], computed once for tokens whose coordinates ``reads`` are
    the same objects (the combination is a pure function of them; ``cols`` keeps them alive)."""
    out, seen = [], {}
    for c in cols:
        key = tuple([id(c[i]) for i in reads])
        vec = seen.get(key)
        if vec is None:
            vec = seen[key] = [dot(c, r) for r in rows]
        out.append(vec)
    return out


class Head:
    """One attention head: W_Q, W_K, W_V are m x E, W_O is E x m (tuples of row tuples of Fraction).

    ``reads`` / ``writes`` (optional): the layout blocks the head reads -- block names for all of W_Q, W_K,
    W_V, or ``{"query": [...], "key": [...], "value": [...]}`` -- and writes (W_O); checked against the weights
    by a Transformer built with a :class:`~verify.objects.layout.Layout`.  ``None``: undeclared."""

    def __init__(self, W_Q, W_K, W_V, W_O, *, allow_float: bool = False, reads=None, writes=None):
        self.W_Q = _matrix(W_Q, "W_Q", allow_float=allow_float, max_rows=MAX_HEAD_SIZE, max_cols=MAX_EMBEDDING)
        m, E = len(self.W_Q), len(self.W_Q[0])
        self.W_K = _matrix(W_K, "W_K", n_rows=m, n_cols=E, allow_float=allow_float)
        self.W_V = _matrix(W_V, "W_V", n_rows=m, n_cols=E, allow_float=allow_float)
        self.W_O = _matrix(W_O, "W_O", n_rows=E, n_cols=m, allow_float=allow_float)
        self.size = m
        self.embedding_dim = E
        self.reads = parse_head_reads(reads, "reads")
        self.writes = parse_blocks(writes, "writes")
        self._q = tuple(_sparse(r) for r in self.W_Q)
        self._k = tuple(_sparse(r) for r in self.W_K)
        self._v = tuple(_sparse(r) for r in self.W_V)
        self._o = tuple(_sparse(r) for r in self.W_O)
        self._q_reads, self._k_reads, self._v_reads = (_reads(rows) for rows in (self._q, self._k, self._v))

    def __repr__(self):
        return f"Head(size={self.size}, E={self.embedding_dim})"

    def parameter_count(self, nonzero: bool = False) -> int:
        if nonzero:
            return _nnz(self.W_Q) + _nnz(self.W_K) + _nnz(self.W_V) + _nnz(self.W_O)
        return 4 * self.size * self.embedding_dim

    def contributions(self, cols, *, attention="hardmax", tie="average", scale=None,
                      ops: Context = EXACT) -> list:
        """Per query token j the m-vector sum_l sigma_lj W_V x_l (before W_O).

        Work is shared between queries without changing a value: tokens whose read coordinates are the
        same objects get the same projections, a query whose vector W_Q x_j consists of the same objects as
        an earlier query's gets the same score objects (``ops.mul`` and ``sparse_combination`` are pure
        functions of their operands in every context), and under hardmax a query whose winners equal an
        earlier query's gets the same weighted sum (exact constant weights, no decision).  Each query still
        asks its own ``argmax_set`` (a tracer records every one), in the order j = 1..n."""
        qs, ks, vs = self._project_all(cols, ops)
        by_query, by_winners = {}, {}
        out = []
        for j in range(len(cols)):
            scores = self._scores(qs, ks, j, by_query, ops)
            if attention == "hardmax":
                if tie not in TIE_RULES:
                    raise ValueError(f"tie: must be one of {', '.join(TIE_RULES)}, got {tie!r}")
                out.append(self._weighted(vs, _winners(scores, tie, ops), by_winners))
            else:
                w = ops.softmax(scores, scale)
                acc = None
                for l in range(len(cols)):
                    term = [w[l] * v for v in vs[l]]
                    acc = term if acc is None else [a + b for a, b in zip(acc, term)]
                out.append(acc)
        return out

    def _project_all(self, cols, ops):
        """(W_Q x_j, W_K x_j, W_V x_j) for every token j (lists of m values)."""
        dot = ops.sparse_combination
        return (_project(cols, self._q, self._q_reads, dot), _project(cols, self._k, self._k_reads, dot),
                _project(cols, self._v, self._v_reads, dot))

    @staticmethod
    def _scores(qs, ks, j, by_query, ops) -> list:
        """[<W_K x_l, W_Q x_j> for every key l], shared by the queries with the same W_Q x_j objects."""
        qkey = tuple(map(id, qs[j]))            # qs stays alive for the whole call: ids are not reused
        scores = by_query.get(qkey)
        if scores is None:
            scores = []
            for l in range(len(ks)):
                s = None
                for a, b in zip(ks[l], qs[j]):
                    p = ops.mul(a, b)
                    s = p if s is None else s + p
                scores.append(s)
            by_query[qkey] = scores
        return scores

    @staticmethod
    def _weighted(vs, winners, by_winners) -> list:
        """sum over the winners l of W_V x_l / |winners| (zero weights skipped), once per winner tuple."""
        acc = by_winners.get(winners)
        if acc is None:
            w = _unit_weight(len(winners))
            for l in winners:
                term = [v * w for v in vs[l]]
                acc = term if acc is None else [a + b for a, b in zip(acc, term)]
            by_winners[winners] = acc
        return acc


class Attention:
    """Multi-head residual attention sublayer."""

    kind = "attention"

    def __init__(self, heads):
        if not _is_list(heads) or not heads:
            raise InputError("heads", "an attention sublayer needs at least one head")
        if len(heads) > MAX_HEADS:
            raise SizeLimitError("heads", f"{len(heads)} heads exceed the limit {MAX_HEADS}")
        for h, head in enumerate(heads):
            if not isinstance(head, Head):
                raise InputTypeError(f"heads[{h}]", f"expected a Head, got {type(head).__name__}")
        E = heads[0].embedding_dim
        for h, head in enumerate(heads):
            if head.embedding_dim != E:
                raise InputError(f"heads[{h}]", f"embedding dimension {head.embedding_dim} differs from head 0's {E}")
        self.heads = tuple(heads)
        self.embedding_dim = E

    @property
    def n_heads(self) -> int:
        return len(self.heads)

    @property
    def reads(self):
        """The blocks read by some head (a frozenset), or None if a head is undeclared."""
        if any(h.reads is None for h in self.heads):
            return None
        return frozenset().union(*(b for h in self.heads for b in h.reads.values()))

    @property
    def writes(self):
        """The blocks written by some head (a frozenset), or None if a head is undeclared."""
        if any(h.writes is None for h in self.heads):
            return None
        return frozenset().union(*(h.writes for h in self.heads))

    def __repr__(self):
        return f"Attention({self.n_heads} head(s), E={self.embedding_dim}, sizes {[h.size for h in self.heads]})"

    def parameter_count(self, nonzero: bool = False) -> int:
        return sum(h.parameter_count(nonzero) for h in self.heads)

    def nonzero_counts(self) -> dict:
        return {"kind": "attention", "heads": self.n_heads, "head_sizes": [h.size for h in self.heads],
                "attention": self.parameter_count(nonzero=True)}

    def apply(self, X, *, attention="hardmax", tie="average", scale=None, ops: Context = EXACT):
        """X' = X + sum_h W_O^h (W_V^h X sigma_h); X is a tuple of E rows of n values.

        A context with a ``shared_cache`` (a dict, e.g. the case-split engine's memo shared by every node of
        one exploration, :func:`verify.decide.casesplit.shared_memo`) shares the work between evaluations on
        the same input objects: the projections and scores (no decision) are computed once per input, and
        the output once per input and winner pattern; each evaluation still asks every ``argmax_set``
        itself, in the same order."""
        _check_mode(attention, tie)
        cache = getattr(ops, "shared_cache", None) if attention == "hardmax" else None
        if cache is not None:
            out = self._apply_shared(X, tie, ops, cache)
            if out is not None:
                return out
        cols = list(zip(*X))
        contribs = [head.contributions(cols, attention=attention, tie=tie, scale=scale, ops=ops)
                    for head in self.heads]
        return self._write(X, cols, contribs, ops)

    def _write(self, X, cols, contribs, ops):
        """X + sum_h W_O^h contrib_h (queries sharing one contribution share its W_O image)."""
        new = [list(c) for c in cols]
        for head, contrib in zip(self.heads, contribs):
            written = {}                    # id(vec) -> W_O vec (contrib keeps the vecs alive)
            for j, vec in enumerate(contrib):
                col = new[j]
                o = written.get(id(vec))
                if o is None:
                    o = written[id(vec)] = [ops.sparse_combination(vec, row) if row else None for row in head._o]
                for e, add in enumerate(o):
                    if add is not None:
                        col[e] = col[e] + add
        return tuple(tuple(new[j][e] for j in range(len(new))) for e in range(len(X)))

    def _apply_shared(self, X, tie, ops, cache):
        """Hardmax :meth:`apply` with the decision-free work looked up in ``cache`` (keyed by the identity
        of this sublayer and of the input values; each entry keeps them alive).  None when computing the
        scores raised: the plain path then repeats the work and raises in its own order."""
        key = ("attention", id(self), tuple([id(v) for row in X for v in row]))
        hit = cache.get(key)
        if hit is None:
            cols = list(zip(*X))
            try:
                prepared = []
                for head in self.heads:
                    qs, ks, vs = head._project_all(cols, ops)
                    by_query = {}
                    prepared.append((vs, [head._scores(qs, ks, j, by_query, ops) for j in range(len(cols))]))
            except Exception:
                return None
            hit = cache[key] = (self, X, cols, prepared, {})
        _, _, cols, prepared, outputs = hit
        winners = tuple(tuple(_winners(scores, tie, ops) for scores in per_query) for _, per_query in prepared)
        out = outputs.get(winners)
        if out is None:
            contribs = []
            for head, (vs, _), won in zip(self.heads, prepared, winners):
                by_winners = {}
                contribs.append([head._weighted(vs, w, by_winners) for w in won])
            out = outputs[winners] = self._write(X, cols, contribs, ops)
        return out


class FeedForward:
    """Token-wise residual ReLU feed-forward sublayer: X + W2 ReLU(W1 X + b1 1^T) + b2 1^T.

    ``reads`` / ``writes`` (optional): the layout blocks W1 reads and W2, b2 write (block names; ``None``:
    undeclared), checked by a Transformer built with a :class:`~verify.objects.layout.Layout`."""

    kind = "ffn"

    def __init__(self, W1, b1=None, W2=None, b2=None, *, allow_float: bool = False, reads=None, writes=None):
        self.W1 = _matrix(W1, "W1", allow_float=allow_float, max_rows=MAX_FFN_WIDTH, max_cols=MAX_EMBEDDING)
        r, E = len(self.W1), len(self.W1[0])
        self.b1 = _vector(b1, "b1", r, allow_float)
        if W2 is None:
            raise InputError("W2", "missing (expected an E x r matrix)")
        self.W2 = _matrix(W2, "W2", n_rows=E, n_cols=r, allow_float=allow_float)
        self.b2 = _vector(b2, "b2", E, allow_float)
        self.width = r
        self.embedding_dim = E
        self.reads = parse_blocks(reads, "reads")
        self.writes = parse_blocks(writes, "writes")
        self._w1 = tuple(_sparse(row) for row in self.W1)
        self._w2 = tuple(_sparse(row) for row in self.W2)

    def __repr__(self):
        return (f"FeedForward(width={self.width}, E={self.embedding_dim}, "
                f"non-zero W1/W2 entries {_nnz(self.W1)}/{_nnz(self.W2)})")

    def parameter_count(self, nonzero: bool = False) -> int:
        if nonzero:
            return _nnz(self.W1) + _nnz([self.b1]) + _nnz(self.W2) + _nnz([self.b2])
        return 2 * self.width * self.embedding_dim + self.width + self.embedding_dim

    def nonzero_counts(self) -> dict:
        return {"kind": "ffn", "width": self.width, "W1": _nnz(self.W1), "b1": _nnz([self.b1]),
                "W2": _nnz(self.W2), "b2": _nnz([self.b2])}

    def output_column(self, col, act, ops: Context = EXACT) -> list:
        """x + W2 a + b2 for one column x (``col``) and its hidden activations a (``act``), in ``ops``."""
        dot = ops.sparse_combination
        new = []
        for e, (row, b) in enumerate(zip(self._w2, self.b2)):
            v = col[e]
            if row:
                v = v + dot(act, row, b)
            elif b != 0:
                v = v + (ops.convert(b) if ops.lifts_constants else b)
            new.append(v)
        return new

    def apply(self, X, *, attention="hardmax", tie="average", scale=None, ops: Context = EXACT):
        """Token-wise: x + W2 ReLU(W1 x + b1) + b2 for every column x."""
        cols = list(zip(*X))
        out_cols = []
        dot = ops.sparse_combination
        for col in cols:
            act = [ops.relu(dot(col, row, b)) for row, b in zip(self._w1, self.b1)]
            out_cols.append(self.output_column(col, act, ops))
        return tuple(tuple(out_cols[j][e] for j in range(len(cols))) for e in range(len(X)))


# ----------------------------------------------------------------------------------------------

class Transformer:
    """A sequence of :class:`Attention` and :class:`FeedForward` sublayers acting on E x n token matrices.

    ``coordinate_names`` label the E coordinates (printing only).  ``layout``: a
    :class:`~verify.objects.layout.Layout` of the residual stream (named blocks); then the coordinate names
    are its labels, every sublayer must declare the blocks it reads and writes, and the weights are checked
    against the declarations (:meth:`check_layout`, run here: an InputError names the sublayer and block).
    Depth D = number of sublayers; :meth:`maxout_layers` converts with ``c`` sublayers per maxout layer and
    ``e`` extra sublayers.
    Limits: E <= 1024, n <= 512 tokens, <= 1024 sublayers, <= 256 heads per sublayer, FFN width <= 8192.
    """

    def __init__(self, sublayers, coordinate_names=None, *, layout: Layout | None = None):
        if not _is_list(sublayers) or not sublayers:
            raise InputError("sublayers", "a Transformer needs at least one sublayer")
        if len(sublayers) > MAX_SUBLAYERS:
            raise SizeLimitError("sublayers", f"{len(sublayers)} sublayers exceed the limit {MAX_SUBLAYERS}")
        E = None
        for s, sub in enumerate(sublayers):
            if not isinstance(sub, (Attention, FeedForward)):
                raise InputTypeError(f"sublayers[{s}]", f"expected Attention or FeedForward, got {type(sub).__name__}")
            if E is None:
                E = sub.embedding_dim
            elif sub.embedding_dim != E:
                raise InputError(f"sublayers[{s}]", f"embedding dimension {sub.embedding_dim} differs from {E}")
        if E > MAX_EMBEDDING:
            raise SizeLimitError("sublayers", f"embedding dimension {E} exceeds the limit {MAX_EMBEDDING}")
        self.sublayers = tuple(sublayers)
        self.embedding_dim = E
        if layout is not None:
            if not isinstance(layout, Layout):
                raise InputTypeError("layout", f"expected a Layout, got {type(layout).__name__}")
            if layout.dim != E:
                raise InputError("layout", f"has {layout.dim} coordinates, the sublayers {E}")
            if coordinate_names is not None and tuple(coordinate_names) != layout.labels():
                raise InputError("coordinate_names", "differ from the layout's labels (omit them: the layout "
                                                     "names the coordinates)")
            coordinate_names = layout.labels()
        self.layout = layout
        if coordinate_names is None:
            coordinate_names = [f"e_{i + 1}" for i in range(E)]
        if not _is_list(coordinate_names) or len(coordinate_names) != E or not all(
                isinstance(c, str) and c for c in coordinate_names):
            raise InputError("coordinate_names", f"expected {E} non-empty strings")
        self.coordinate_names = tuple(coordinate_names)
        self.conventions = dict(CONVENTIONS)
        if layout is not None:
            self.check_layout()

    def check_layout(self) -> None:
        """Refuse (InputError naming the sublayer, the weight entry and the block) any sublayer whose non-zero
        weights read or write outside its declared blocks (:func:`verify.objects.layout.check_transformer`)."""
        check_transformer(self)

    # -- sizes -----------------------------------------------------------------------------------
    @property
    def n_sublayers(self) -> int:
        return len(self.sublayers)

    depth = n_sublayers

    @property
    def heads_per_attention(self) -> list:
        return [s.n_heads for s in self.sublayers if isinstance(s, Attention)]

    @property
    def ffn_widths(self) -> list:
        return [s.width for s in self.sublayers if isinstance(s, FeedForward)]

    def parameter_count(self, nonzero: bool = False) -> int:
        return sum(s.parameter_count(nonzero) for s in self.sublayers)

    def nonzero_counts(self) -> list:
        """Per sublayer: kind and non-zero counts (W1, b1, W2, b2 for FFNs; heads, attention for attention)."""
        return [dict(index=i, **s.nonzero_counts()) for i, s in enumerate(self.sublayers)]

    def maxout_layers(self, c: int = 2, e: int = 0) -> int:
        """L = floor((D - e) / c): maxout layers in a depth-D network with c sublayers per layer."""
        if not isinstance(c, int) or c < 1 or not isinstance(e, int) or e < 0:
            raise InputError("c", "need integers c >= 1 and e >= 0")
        return max(0, (self.n_sublayers - e) // c)

    # -- evaluation ------------------------------------------------------------------------------
    def _parse_X(self, X, ops: Context = EXACT, allow_float=False):
        native = getattr(ops, "native_inputs", False) and not ops.lifts_constants
        if not (native and type(X) is tuple and all(type(r) is tuple for r in X)):
            X = plain(X)                    # (a tuple of tuples has no array to turn into lists)
        if not _is_list(X):
            raise InputTypeError("X", f"expected a tuple of {self.embedding_dim} rows (tokens are columns)")
        if len(X) != self.embedding_dim:
            raise InputError("X", f"expected {self.embedding_dim} rows (the embedding dimension), got {len(X)}")
        n = None
        rows = []
        for e, row in enumerate(X):
            if not _is_list(row) or not row:
                raise InputTypeError(f"X[{e}]", "expected a non-empty row (one entry per token)")
            if n is None:
                n = len(row)
                if n > MAX_TOKENS:
                    raise SizeLimitError("X", f"{n} tokens exceed the limit {MAX_TOKENS}")
            elif len(row) != n:
                raise InputError(f"X[{e}]", f"expected {n} tokens, got {len(row)}")
            if native:                      # the context's own values are taken as they are (no parsing)
                rows.append(tuple(v if ops.is_native(v) else coerce_input(v, f"X[{e}][{j}]", allow_float=allow_float)
                                  for j, v in enumerate(row)))
            elif not ops.lifts_constants:
                rows.append(tuple(coerce_input(v, f"X[{e}][{j}]", allow_float=allow_float) for j, v in enumerate(row)))
            else:
                rows.append(tuple(v if ops.is_native(v) else ops.convert(coerce_input(v, f"X[{e}][{j}]"))
                                  for j, v in enumerate(row)))
        return tuple(rows)

    def _parse_hardmax(self, X, ops, allow_float):
        """The parsed hardmax input; an immutable input (a tuple of tuples) parsed for a context with a
        ``shared_cache`` is parsed once and looked up by identity afterwards."""
        if not getattr(ops, "native_inputs", False):
            return self._parse_X(X, EXACT, allow_float=allow_float)
        cache = getattr(ops, "shared_cache", None)
        if cache is None or type(X) is not tuple or not all(type(r) is tuple for r in X):
            return self._parse_X(X, ops, allow_float=allow_float)
        key = ("tokens", id(self), id(X), allow_float)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = (X, self._parse_X(X, ops, allow_float=allow_float))   # keeps X alive
        return hit[1]

    def evaluate(self, X, attention: str = "hardmax", tie: str = "average", *, scale=None, precision: int = 128,
                 backend: str | None = None, dps: int = 50, ops: Context = EXACT, allow_float: bool = False,
                 trace: bool = False):
        """Apply every sublayer.  Hardmax: exact (values as given, decisions by ``ops``).  Softmax:
        ``scale`` = lambda > 0 (exact), ``backend`` ``"arb"`` (balls at ``precision`` bits, rigorous),
        ``"mpmath"`` (``dps`` digits, evidence only) or ``"sympy"`` (symbolic; ``scale`` may be a symbol).
        ``trace=True`` returns the list of all intermediate matrices [X_0, X_1, ..., X_D].  Hardmax inputs are
        parsed to Fractions, except that a context with ``native_inputs = True`` (the case-split engine's
        :class:`~verify.decide.casesplit.DecisionTree`, its exact point context) takes its own values
        (``ops.is_native``) unchanged."""
        _check_mode(attention, tie)
        if attention == "hardmax":
            if backend is not None:
                raise InputError("backend", "only used with attention='softmax'")
            Xc = self._parse_hardmax(X, ops, allow_float)
            states = [Xc]
            for sub in self.sublayers:
                Xc = sub.apply(Xc, attention="hardmax", tie=tie, ops=ops)
                states.append(Xc)
            return states if trace else Xc
        name = backend or "arb"
        if name not in BACKENDS:
            raise InputError("backend", f"must be one of {', '.join(BACKENDS)}, got {name!r}")
        if scale is None:
            raise InputError("scale", "softmax attention needs scale = lambda > 0")
        if name == "sympy" and not isinstance(scale, (int, str, Fraction)):
            lam = scale                     # a SymPy symbol
        else:
            lam = parse_positive(scale, "scale")
        ctx = _softmax_context(name, precision, dps)
        with ctx.scope():
            if name != "sympy" or isinstance(scale, (int, str, Fraction)):
                lam = ctx.convert(lam)
            Xc = self._parse_X(X, ctx)
            states = [Xc]
            for sub in self.sublayers:
                Xc = sub.apply(Xc, attention="softmax", scale=lam, ops=ctx)
                states.append(Xc)
        return states if trace else Xc

    __call__ = evaluate

    # -- display ---------------------------------------------------------------------------------
    def describe(self, dense: bool = False) -> str:
        """Readable weights with named coordinates.  Sparse form by default: every FFN row as
        ``ReLU(a*coord + ...) -> coord (coefficient)``, every head as its query/key/value/output maps;
        ``dense=True`` prints the full labelled matrices.  With a layout: the coordinates block by block,
        each sublayer's declared read and write blocks, and the dense matrices separated at the blocks."""
        lines = [f"Transformer E={self.embedding_dim} D={self.n_sublayers} sublayers "
                 f"heads={self.heads_per_attention} ffn_widths={self.ffn_widths} "
                 f"parameters={self.parameter_count()} (non-zero {self.parameter_count(nonzero=True)})"]
        if self.layout is not None:
            lines.append(f"layout {self.layout!r}: {self.layout.describe()}")
        for s in range(self.n_sublayers):
            lines.extend(self._describe_sublayer(s, dense))
        return "\n".join(lines)

    def _describe_sublayer(self, s: int, dense: bool = False) -> list:
        """The lines of :meth:`describe` for sublayer ``s``."""
        names = list(self.coordinate_names)
        groups = self.layout.widths() if self.layout is not None else None
        sub = self.sublayers[s]
        lines = []

        def lin(row, const=Fraction(0)):
            terms = []
            for c, nm in zip(row, names):
                if c != 0:
                    terms.append((f"{fraction_str(c)}*" if c not in (1, -1) else ("-" if c == -1 else "")) + nm)
            if const != 0 or not terms:
                terms.append(fraction_str(const))
            return " + ".join(terms).replace("+ -", "- ")

        if isinstance(sub, FeedForward):
            lines.append(f"[{s}] FFN width {sub.width}" + self._access(sub))
            if dense:
                lines.append(format_matrix([list(r) + [b] for r, b in zip(sub.W1, sub.b1)],
                                           [f"r{i + 1}" for i in range(sub.width)], names + ["b1"],
                                           col_groups=groups and groups + (1,)))
                lines.append(format_matrix([list(r) + [b] for r, b in zip(sub.W2, sub.b2)], names,
                                           [f"r{i + 1}" for i in range(sub.width)] + ["b2"], row_groups=groups))
                return lines
            for i, (row, b) in enumerate(zip(sub.W1, sub.b1)):
                outs = ", ".join(f"{names[e]} ({fraction_str(sub.W2[e][i])})" for e in range(self.embedding_dim)
                                 if sub.W2[e][i] != 0)
                lines.append(f"    r{i + 1}: ReLU({lin(row, b)}) -> {outs or 'unused'}")
            if any(v != 0 for v in sub.b2):
                lines.append("    b2: " + ", ".join(f"{names[e]} += {fraction_str(v)}" for e, v in enumerate(sub.b2) if v))
            return lines
        lines.append(f"[{s}] Attention, {sub.n_heads} head(s)" + self._access(sub))
        for h, head in enumerate(sub.heads):
            if dense:
                for label, M in (("W_Q", head.W_Q), ("W_K", head.W_K), ("W_V", head.W_V)):
                    lines.append(f"  head {h + 1} {label}")
                    lines.append(format_matrix(M, [f"{label[-1].lower()}{t + 1}" for t in range(head.size)], names,
                                               col_groups=groups))
                lines.append(f"  head {h + 1} W_O^T")
                lines.append(format_matrix(list(zip(*head.W_O)), [f"o{t + 1}" for t in range(head.size)], names,
                                           col_groups=groups))
                continue
            q = "; ".join(lin(r) for r in head.W_Q)
            k = "; ".join(lin(r) for r in head.W_K)
            v = "; ".join(lin(r) for r in head.W_V)
            o = "; ".join(", ".join(f"{names[e]} ({fraction_str(head.W_O[e][t])})"
                                    for e in range(self.embedding_dim) if head.W_O[e][t] != 0) or "unused"
                          for t in range(head.size))
            lines.append(f"    head {h + 1}: query [{q}]  key [{k}]  value [{v}]  -> {o}")
        return lines

    def sublayer_view(self, s: int) -> "SublayerView":
        """Sublayer ``s`` for display on its own (text, HTML tables and LaTeX with the named coordinates)."""
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < self.n_sublayers:
            raise InputError("s", f"must be a sublayer index in [0, {self.n_sublayers - 1}], got {s!r}")
        return SublayerView(self, s)

    def _access(self, part) -> str:
        """`` (reads h, p, one; writes h, z)``: the blocks a sublayer or head declares, in layout order ("" without
        a layout)."""
        if self.layout is None or part.reads is None or part.writes is None:
            return ""
        reads = part.reads
        if isinstance(reads, dict):           # a head: the union over query, key and value
            reads = frozenset().union(*reads.values())
        order = self.layout.names()
        fmt = lambda blocks: ", ".join(b for b in order if b in blocks) or "nothing"
        return f" (reads {fmt(reads)}; writes {fmt(part.writes)})"

    __str__ = describe

    def __repr__(self):
        return (f"Transformer(E={self.embedding_dim}, D={self.n_sublayers}, heads={self.heads_per_attention}, "
                f"ffn_widths={self.ffn_widths})")

    def _repr_markdown_(self) -> str:
        return "```\n" + self.describe() + "\n```"

    def _repr_html_(self) -> str:
        """A summary line, then one section per sublayer (:class:`SublayerView`): labelled tables of its
        weights, columns grouped by the layout's blocks.  At most ``DISPLAY_SUBLAYERS`` sublayers are shown."""
        from html import escape

        head = (f"<p><b>Transformer</b>: E = {self.embedding_dim}, D = {self.n_sublayers} sublayers, "
                f"heads {self.heads_per_attention}, FFN widths {self.ffn_widths}, {self.parameter_count()} "
                f"parameters ({self.parameter_count(nonzero=True)} non-zero)")
        if self.layout is not None:
            head += f"; residual stream <code>{escape(self.layout.describe())}</code>"
        parts = [_HTML_STYLE, head + "</p>"]
        for s in range(min(self.n_sublayers, DISPLAY_SUBLAYERS)):
            parts.append(SublayerView(self, s)._repr_html_().replace(_HTML_STYLE, "", 1))
        if self.n_sublayers > DISPLAY_SUBLAYERS:
            parts.append(f"<p>&hellip; {self.n_sublayers - DISPLAY_SUBLAYERS} more sublayers "
                         f"(<code>sublayer_view(s)</code> shows any one)</p>")
        return "\n".join(parts)

    def _repr_latex_(self) -> str:
        """The weights as labelled arrays, one ``$$ ... $$`` block per sublayer part (each head, each FFN
        matrix), every block at most ``LATEX_BLOCK_CHARS`` characters (MathJax's buffer); long matrices are
        split by rows.  With a layout the columns (and W_2's rows) are separated at the blocks and every
        title names the declared read and write blocks."""
        blocks, size = [], 0
        for s in range(self.n_sublayers):
            part = SublayerView(self, s)._repr_latex_()
            if s >= DISPLAY_SUBLAYERS or size + len(part) > LATEX_TOTAL_CHARS:
                blocks.append(f"$$\\text{{sublayers {s}..{self.n_sublayers - 1} not shown "
                              f"(sublayer\\_view(s) shows any one)}}$$")
                break
            blocks.append(part)
            size += len(part)
        return "\n".join(blocks)


DISPLAY_SUBLAYERS = 24        # sublayers shown by a Transformer's HTML / LaTeX display
DISPLAY_ROWS = 48             # matrix rows shown per table in HTML
LATEX_BLOCK_CHARS = 1900      # one $$ block of LaTeX stays below MathJax's buffer (about 2,000 characters)
LATEX_TOTAL_CHARS = 60_000    # a Transformer's LaTeX display stops after the sublayer that would pass this


def _tex_name(n: str) -> str:
    return n.replace("_", "_{") + ("}" if "_" in n else "")


def _sub_groups(groups, a: int, b: int):
    """The group widths of rows a..b-1 of a matrix whose rows are grouped by ``groups`` (None: none)."""
    if not groups:
        return None
    cuts = sorted({a, b} | {c for c in _boundaries(groups) if a < c < b})
    return tuple(y - x for x, y in zip(cuts, cuts[1:]))


def _tex_entry(q) -> str:
    """One matrix entry as :func:`_latex_matrix` writes it."""
    q = Fraction(q)
    if q == 0:
        return "\\cdot"
    s = f"\\tfrac{{{abs(q.numerator)}}}{{{q.denominator}}}" if q.denominator != 1 else str(abs(q.numerator))
    return ("-" if q < 0 else "") + s


def _latex_pieces(title: str, mats) -> list:
    """``$$ ... $$`` blocks for ``title`` and the labelled matrices ``mats`` (label, rows, row names, column
    names, column groups, row groups): all in one block if it fits in LATEX_BLOCK_CHARS, else one block per
    matrix; a matrix that does not fit is cut into column chunks (each with its header) and row chunks, and
    only its first DISPLAY_ROWS rows are shown."""
    tex = [(label, _latex_matrix(rows, rn, cn, cg, rg)) for label, rows, rn, cn, cg, rg in mats]
    whole = title + ",\\quad ".join(f"{label} = {t}" for label, t in tex)
    if len(whole) + 4 <= LATEX_BLOCK_CHARS:
        return [f"$${whole}$$"]
    blocks = []
    for (label, rows, rn, cn, cg, rg), (_, t) in zip(mats, tex):
        if len(title) + len(label) + len(t) + 8 <= LATEX_BLOCK_CHARS:
            blocks.append(f"$${title}{label} = {t}$$")
            continue
        n, m = len(rows), len(cn)
        shown = min(n, DISPLAY_ROWS)
        budget = LATEX_BLOCK_CHARS - len(title) - len(label) - 80
        widest = [max((rows[i][j] for i in range(shown)), key=lambda q: len(_tex_entry(q))) for j in range(m)]
        name = max(rn[:shown], key=len)
        c0 = 0
        while c0 < m:                       # columns c0..c1-1: the header and the widest row fit
            c1 = c0 + 1
            while c1 < m and len(_latex_matrix([widest[c0:c1 + 1]], [name], cn[c0:c1 + 1],
                                               _sub_groups(cg, c0, c1 + 1))) <= budget:
                c1 += 1
            cols = f", columns {c0 + 1}..{c1} of {m}" if (c0, c1) != (0, m) else ""
            r0 = 0
            while r0 < shown:
                r1 = r0 + 1
                while r1 < shown and len(_latex_matrix([r[c0:c1] for r in rows[r0:r1 + 1]], rn[r0:r1 + 1], cn[c0:c1],
                                                       _sub_groups(cg, c0, c1), _sub_groups(rg, r0, r1 + 1))) <= budget:
                    r1 += 1
                part = _latex_matrix([r[c0:c1] for r in rows[r0:r1]], rn[r0:r1], cn[c0:c1], _sub_groups(cg, c0, c1),
                                     _sub_groups(rg, r0, r1))
                blocks.append(f"$${title}{label}\\ \\text{{(rows {r0 + 1}..{r1} of {n}{cols})}} = {part}$$")
                r0 = r1
            c0 = c1
        if shown < n:
            blocks.append(f"$${title}{label}\\ \\text{{(rows {shown + 1}..{n} not shown)}}$$")
    return blocks


_HTML_STYLE = ("<style>.vrf-m{border-collapse:collapse;font-size:85%;margin:2px 0 8px 0}"
               ".vrf-m td,.vrf-m th{padding:1px 5px;text-align:right;font-family:monospace}"
               ".vrf-m .g{border-left:2px solid #888}.vrf-m tr.t>*{border-top:2px solid #888}"
               ".vrf-m th.b{text-align:center}</style>")


def _html_matrix(rows, row_names, col_names, *, col_groups=None, group_names=None, row_groups=None) -> str:
    """A labelled HTML table (blank for 0; exact entries as p/q), columns grouped under the block names;
    at most DISPLAY_ROWS rows (then a line saying how many are left out).  Styled by ``_HTML_STYLE``."""
    from html import escape

    cuts, row_cuts = _boundaries(col_groups), _boundaries(row_groups)
    g = lambda j: " class=g" if j in cuts else ""
    out = ["<table class=vrf-m>"]
    if col_groups and group_names:
        cells, at = ["<th></th>"], 0
        for w, name in zip(col_groups, group_names):
            cells.append(f"<th colspan={w} class='b{' g' if at else ''}'>{escape(name)}</th>")
            at += w
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("<tr><th></th>" + "".join(f"<th{g(j)}>{escape(c)}</th>" for j, c in enumerate(col_names)) + "</tr>")
    for i, (name, row) in enumerate(zip(row_names, rows)):
        if i >= DISPLAY_ROWS:
            out.append(f"<tr><td colspan={len(col_names) + 1}>&hellip; {len(rows) - DISPLAY_ROWS} more rows</td></tr>")
            break
        out.append(f"<tr{' class=t' if i in row_cuts else ''}><th>{escape(name)}</th>" +
                   "".join(f"<td{g(j)}>{fraction_str(v) if v != 0 else ''}</td>" for j, v in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "".join(out)


class SublayerView:
    """One sublayer of a :class:`Transformer` for display: ``repr`` is its :meth:`Transformer.describe` lines,
    ``_repr_html_`` labelled tables (FFN: [W_1 | b_1] and [W_2 | b_2]; a head: W_Q, W_K, W_V and W_O^T),
    ``_repr_latex_`` the same as arrays in blocks within MathJax's limit."""

    def __init__(self, transformer: "Transformer", index: int):
        self.transformer = transformer
        self.index = index
        self.sublayer = transformer.sublayers[index]

    def __repr__(self):
        lines = self.transformer._describe_sublayer(self.index)
        if len(lines) > DISPLAY_ROWS + 1:
            lines = lines[:DISPLAY_ROWS + 1] + [f"    ... {len(lines) - DISPLAY_ROWS - 1} more lines (describe() shows all)"]
        return "\n".join(lines)

    def _matrices(self, tex: bool):
        """(title, [(label, rows, row names, column names, column groups, row groups)]) per part."""
        T, s, sub = self.transformer, self.index, self.sublayer
        names = [_tex_name(n) for n in T.coordinate_names] if tex else list(T.coordinate_names)
        g = T.layout.widths() if T.layout is not None else None
        if isinstance(sub, FeedForward):
            r = [f"r_{{{i + 1}}}" if tex else f"r{i + 1}" for i in range(sub.width)]
            b1, b2 = ("b_1", "b_2") if tex else ("b1", "b2")
            return [(f"[{s}] FFN", sub, [
                ("[W_1\\,|\\,b_1]" if tex else "[W1 | b1]", [list(a) + [b] for a, b in zip(sub.W1, sub.b1)], r,
                 names + [b1], g and g + (1,), None),
                ("[W_2\\,|\\,b_2]" if tex else "[W2 | b2]", [list(a) + [b] for a, b in zip(sub.W2, sub.b2)], names,
                 r + [b2], None, g)])]
        parts = []
        for h, head in enumerate(sub.heads):
            t = [str(i + 1) for i in range(head.size)]
            parts.append((f"[{s}] head {h + 1}", head, [
                ("W_Q", head.W_Q, t, names, g, None), ("W_K", head.W_K, t, names, g, None),
                ("W_V", head.W_V, t, names, g, None), ("W_O^T", list(zip(*head.W_O)), t, names, g, None)]))
        return parts

    def _repr_html_(self) -> str:
        from html import escape

        T, sub = self.transformer, self.sublayer
        groups = T.layout.widths() if T.layout is not None else None
        gnames = T.layout.names() if T.layout is not None else None
        kind = f"FFN, width {sub.width}" if isinstance(sub, FeedForward) else f"Attention, {sub.n_heads} head(s)"
        out = [_HTML_STYLE, f"<h4 style='margin:8px 0 2px 0'>Sublayer {self.index}: {kind}{escape(T._access(sub))}</h4>"]
        for title, part, mats in self._matrices(tex=False):
            if isinstance(part, Head):
                out.append(f"<p style='margin:2px 0'><b>{escape(title)}</b>{escape(T._access(part))}</p>")
            out.append("<div style='display:flex;flex-wrap:wrap;gap:16px'>")
            for label, rows, rn, cn, cg, rg in mats:
                gn = gnames and (tuple(gnames) + ("",) if cg and len(cg) == len(gnames) + 1 else tuple(gnames))
                out.append(f"<div><i>{escape(label)}</i>" +
                           _html_matrix(rows, rn, cn, col_groups=cg, group_names=gn if cg else None,
                                        row_groups=rg) + "</div>")
            out.append("</div>")
        return "\n".join(out)

    def _repr_latex_(self) -> str:
        T = self.transformer
        blocks = []
        for title, part, mats in self._matrices(tex=True):
            acc = T._access(part).replace("_", "\\_")
            blocks += _latex_pieces(f"\\text{{{title}{acc}: }} ", mats)
        return "\n".join(blocks)
