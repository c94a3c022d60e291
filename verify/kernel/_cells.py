"""Exact cells, exact piecewise-affine evaluators and partition checks (shared by the emulation and region kinds).

Objects
-------
* an **affine form** over x in R^d is a tuple ``(c0, c1, ..., cd)`` of exact rationals: ``c0 + c1 x1 + ... + cd xd``;
* a :class:`Cell` is a *relatively open* convex cell of R^d (d = 1, 2) given by exact vertices: one vertex (a
  point), two (an open segment / interval) or, in R^2, at least three (an open strictly convex polygon listed
  counter-clockwise).

Guarantees
----------
* ``cell.sign(f)`` returns +1 only if f > 0 at every point of the cell, -1 only if f < 0 everywhere, 0 only if
  f = 0 everywhere, and raises :class:`Rejected` otherwise.  (Every point of a relatively open cell is a convex
  combination of *all* its vertices with positive weights, so the vertex signs decide it.)
* :func:`eval_maxout` / :func:`eval_transformer` evaluate a network / a hardmax Transformer on a whole cell:
  every decision they take (argmax set of a maxout unit, ReLU sign, hardmax argmax set, "this factor is
  constant" for a score product) goes through ``cell.sign``, so it is the same at every point of the cell, and
  the returned affine forms equal the evaluated function at every point of the cell.  Two functions agree on a
  cell iff ``cell.sign(f - g) == 0``.
* :func:`check_partition` returns only if the cells are pairwise disjoint and their union is the closed box
  (1-D: points and open intervals; 2-D: points, open segments, open polygons); it runs in O(n log n).

Everything is read with the bounded readers of :mod:`verify.kernel._read`; loops call ``tick``.  Numbers are
exact rationals (``gmpy2.mpq`` internally, for speed; they compare equal to the ``Fraction`` s they come from).

>>> c = Cell([(Fraction(0),), (Fraction(1),)])
>>> c.sign((Fraction(1), Fraction(-1))), c.sign((Fraction(0), Fraction(0)))
(1, 0)
>>> c.sign((Fraction(-1), Fraction(2)))
Traceback (most recent call last):
...
verify.kernel._read.Rejected: cell: the sign of -1 + 2*x1 is not constant on the cell (0)..(1)
"""

from __future__ import annotations

from fractions import Fraction

from flint import fmpz_mat
from gmpy2 import mpq

from . import _read
from ._read import Rejected, tick

__all__ = ["Cell", "read_cell", "read_cells", "read_maxout", "read_transformer", "transformer_digest",
           "transformer_sizes", "identity", "add", "sub", "at", "form_str", "eval_maxout",
           "eval_transformer", "eval_maxout_at", "maxout_int_layers", "eval_maxout_int", "eval_transformer_at", "check_partition", "TIE_RULES",
           "MAX_CELL_VERTICES"]

TIE_RULES = ("average", "first")
MAX_CELL_VERTICES = 256
_Z = mpq(0)

# limits of the recorded objects (kept well inside a 10 s budget per Result)
MAX_DIM, MAX_LAYERS, MAX_WIDTH, MAX_RANK = 64, 64, 256, 64
MAX_E, MAX_TOKENS, MAX_SUBLAYERS, MAX_HEADS, MAX_HEAD_SIZE, MAX_FFN = 1024, 64, 256, 256, 64, 8192
MAX_WEIGHTS = 2_000_000


# -- affine forms ------------------------------------------------------------------------------------------
def identity(d: int) -> list:
    """The coordinates x1..xd as affine forms."""
    return [tuple(mpq(int(j == i + 1)) for j in range(d + 1)) for i in range(d)]


def const(c, d: int) -> tuple:
    return (mpq(c),) + (_Z,) * d


def _q(xs) -> list:
    """Exact numbers (Fraction, int, mpq) as mpq."""
    return [mpq(x) for x in xs]


def add(f, g) -> tuple:
    return tuple(a + b for a, b in zip(f, g))


def sub(f, g) -> tuple:
    return tuple(a - b for a, b in zip(f, g))


def at(f, x) -> Fraction:
    """The value of the form f at the point x."""
    return f[0] + sum((c * v for c, v in zip(f[1:], x)), _Z)


def _comb(terms, d: int) -> tuple:
    """sum of c * f over (c, f) in terms."""
    out = [_Z] * (d + 1)
    for c, f in terms:
        for i, a in enumerate(f):
            if a:
                out[i] += c * a
    return tuple(out)


def form_str(f) -> str:
    return " + ".join([str(f[0])] + [f"{c}*x{i}" for i, c in enumerate(f[1:], 1) if c])


# -- cells ---------------------------------------------------------------------------------------------------
def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


class Cell:
    """A relatively open convex cell: the relative interior of the convex hull of ``vertices``.

    The constructor rejects a segment with equal end points and, in R^2, a polygon that is not strictly convex
    and counter-clockwise (every turn and every fan triangle from the first vertex strictly positive)."""

    __slots__ = ("vertices", "dim", "ambient")

    def __init__(self, vertices):
        vs = [tuple(_q(v)) for v in vertices]
        if not 1 <= len(vs) <= MAX_CELL_VERTICES:
            raise Rejected(f"cell: expected 1..{MAX_CELL_VERTICES} vertices, got {len(vs)}")
        d = len(vs[0])
        if any(len(v) != d for v in vs) or not (d in (1, 2) or len(vs) == 1 and 1 <= d <= MAX_DIM):
            raise Rejected("cell: vertices must all have 1 or all have 2 coordinates (a point: up to 64)")
        if d == 1 and len(vs) > 2:
            raise Rejected("cell: a cell of R^1 has 1 or 2 vertices")
        if len(vs) == 2 and vs[0] == vs[1]:
            raise Rejected(f"cell: a segment needs two distinct end points, got {vs[0]} twice")
        if len(vs) >= 3:
            n = len(vs)
            for k in range(n):
                tick()
                if _cross(vs[k], vs[(k + 1) % n], vs[(k + 2) % n]) <= 0:
                    raise Rejected(f"cell: polygon {_pts(vs)} is not strictly convex counter-clockwise")
                if 0 < k < n - 1 and _cross(vs[0], vs[k], vs[k + 1]) <= 0:
                    raise Rejected(f"cell: polygon {_pts(vs)} winds more than once")
        self.vertices = vs
        self.dim = min(len(vs) - 1, 2)
        self.ambient = d

    def values(self, f) -> list:
        return [at(f, v) for v in self.vertices]

    def sign(self, f) -> int:
        """+1 / -1 / 0 when f is > 0 / < 0 / = 0 on the whole cell; :class:`Rejected` when not decided."""
        return self.decide(self.values(f), f)

    def decide(self, vals, f=None) -> int:
        """:meth:`sign` of the affine function with these values at the vertices."""
        tick()
        if all(v >= 0 for v in vals):
            return 1 if any(v > 0 for v in vals) else 0
        if all(v <= 0 for v in vals):
            return -1
        what = form_str(f) if f is not None else "a value with vertex values " + ", ".join(map(str, vals[:6]))
        raise Rejected(f"cell: the sign of {what} is not constant on the cell {_pts(self.vertices)}")

    def is_constant(self, vals) -> bool:
        """Whether the affine function with these vertex values is constant on the cell (decided by
        :meth:`decide` of its difference with its first value)."""
        return self.decide([v - vals[0] for v in vals]) == 0

    def form(self, vals) -> tuple:
        """An affine form with the given values at the vertices (it equals the function on the cell; off the
        cell's affine hull it is one extension among many)."""
        V, d = self.vertices, self.ambient
        p = V[0]
        if len(V) == 1:
            return const(vals[0], d)
        q = V[1]
        if len(V) == 2:                       # f(x) = f(p) + (f(q) - f(p)) <x - p, q - p> / |q - p|^2
            u = [b - a for a, b in zip(p, q)]
            nn = sum((c * c for c in u), _Z)
            g = [(vals[1] - vals[0]) * c / nn for c in u]
            return (vals[0] - sum((c * a for c, a in zip(g, p)), _Z),) + tuple(g)
        r = V[2]                              # a polygon: solve on the first three (affinely independent) vertices
        det = _cross(p, q, r)
        fq, fr = vals[1] - vals[0], vals[2] - vals[0]
        gx = (fq * (r[1] - p[1]) - fr * (q[1] - p[1])) / det
        gy = (fr * (q[0] - p[0]) - fq * (r[0] - p[0])) / det
        f = (vals[0] - gx * p[0] - gy * p[1], gx, gy)
        if [at(f, v) for v in V] != list(vals):
            raise Rejected(f"cell: the values {', '.join(map(str, vals[:6]))} are not affine on {self!r}")
        return f

    def point(self) -> tuple:
        """A point of the cell (the average of the vertices)."""
        n = len(self.vertices)
        return tuple(sum((v[i] for v in self.vertices), _Z) / n for i in range(self.ambient))

    def __repr__(self):
        return f"Cell({_pts(self.vertices)})"


def _pts(vs) -> str:
    return "..".join("(" + ", ".join(map(str, v)) + ")" for v in vs[:6]) + (".." if len(vs) > 6 else "")


def read_cell(v, field: str, d: int) -> Cell:
    """A cell recorded as a list of vertices, each a list of d exact numbers."""
    vs = _read.lst(v, field, 1, MAX_CELL_VERTICES)
    return Cell([tuple(_read.vec(p, f"{field}[{i}]", d)) for i, p in enumerate(vs)])


def read_cells(v, field: str, d: int, max_cells: int = 200_000) -> list:
    return [read_cell(c, f"{field}[{i}]", d) for i, c in enumerate(_read.lst(v, field, 1, max_cells))]


# -- maxout networks (SPEC format) -----------------------------------------------------------------------------
def read_maxout(v, field: str) -> dict:
    """``{"layers": [{"W": N_l x k x N_{l-1}, "b": N_l x k}, ...], "readout": null | {"W": o x N_L, "b": o}}``
    (readout optional).  Returns ``{"layers": [(W, b)], "readout": (W, b) | None, "input_dim", "widths",
    "rank", "output_dim"}``; the rank k is uniform."""
    net = _read.obj(v, field, required=("layers",), optional=("readout",))
    layers, widths, d, k = [], [], None, None
    total = 0
    for l, layer in enumerate(_read.lst(net["layers"], f"{field}.layers", 1, MAX_LAYERS)):
        f = f"{field}.layers[{l}]"
        layer = _read.obj(layer, f, required=("W", "b"))
        Wl = _read.lst(layer["W"], f"{f}.W", 1, MAX_WIDTH)
        bl = _read.lst(layer["b"], f"{f}.b", len(Wl), len(Wl))
        W, b = [], []
        for i, (Wi, bi) in enumerate(zip(Wl, bl)):
            pieces = _read.lst(Wi, f"{f}.W[{i}]", 1, MAX_RANK)
            if k is None:
                k = len(pieces)
            if len(pieces) != k:
                raise Rejected(f"{f}.W[{i}]: {len(pieces)} pieces, the rank is {k} (it must be uniform)")
            if d is None:
                d = len(_read.lst(pieces[0], f"{f}.W[{i}][0]", 1, MAX_DIM))
            n_in = d if l == 0 else widths[-1]
            total += k * (n_in + 1)
            if total > MAX_WEIGHTS:
                raise Rejected(f"{field}: more than {MAX_WEIGHTS} weights")
            W.append([_q(_read.vec(w, f"{f}.W[{i}][{j}]", n_in)) for j, w in enumerate(pieces)])
            b.append(_q(_read.vec(bi, f"{f}.b[{i}]", k)))
        layers.append((W, b))
        widths.append(len(W))
    readout = None
    if net.get("readout") is not None:
        r = _read.obj(net["readout"], f"{field}.readout", required=("W", "b"))
        rW = [_q(row) for row in _read.mat(r["W"], f"{field}.readout.W", cols=widths[-1])]
        if not 1 <= len(rW) <= MAX_WIDTH:
            raise Rejected(f"{field}.readout.W: expected 1..{MAX_WIDTH} rows")
        readout = (rW, _q(_read.vec(r["b"], f"{field}.readout.b", len(rW))))
    return {"layers": layers, "readout": readout, "input_dim": d, "widths": widths, "rank": k,
            "output_dim": len(readout[1]) if readout else widths[-1]}


MAXOUT_MEMO = True     # eval_maxout shares the forms of a layer between cells (False: computed on every cell)
_MAXOUT_FORMS: dict = {}   # id(network) -> (network, {(layer, earlier argmax sets): [(pieces, differences)]})


def eval_maxout(net: dict, cell: Cell, inputs=None):
    """The network on the cell: ``(output forms, pattern)``, pattern = the argmax set of every unit (a tuple per
    layer of tuples of piece indices).  Each argmax set is decided on the whole cell through ``cell.sign``."""
    d = cell.ambient
    if net["input_dim"] != d:
        raise Rejected(f"network: input dimension {net['input_dim']}, the cell is in R^{d}")
    h = identity(d) if inputs is None else list(inputs)
    pattern = []
    # the forms of a layer are a function of the network and the earlier layers' argmax sets only (never of
    # the cell): with the identity input on polyhedral cells (as eval_transformer's memo) they are computed once
    # per such prefix and shared (MAXOUT_MEMO; the same tuples as computed here, never changed), the decisions
    # still taken on every cell
    memo = None
    if inputs is None and MAXOUT_MEMO and getattr(cell, "SHARED_VERTICES", False):
        hit = _MAXOUT_FORMS.get(id(net))
        if hit is None or hit[0] is not net or len(hit[1]) > MEMO_MAX:
            if len(_MAXOUT_FORMS) > 64:
                _MAXOUT_FORMS.clear()
            hit = _MAXOUT_FORMS[id(net)] = (net, {})         # the network is held: its id is not reused
        memo = hit[1]
    for li, (W, b) in enumerate(net["layers"]):
        new, pat = [], []
        units = None
        if memo is not None:
            units = memo.get((li, tuple(pattern)))
            if units is None:
                units = memo[(li, tuple(pattern))] = [
                    ([add(_comb(zip(w, h), d), const(bij, d)) for w, bij in zip(Wi, bi)], {}) for Wi, bi in zip(W, b)]
        for ui, (Wi, bi) in enumerate(zip(W, b)):
            if units is None:
                pieces, diffs = [add(_comb(zip(w, h), d), const(bij, d)) for w, bij in zip(Wi, bi)], None
            else:
                pieces, diffs = units[ui]
            best = [0]
            for j in range(1, len(pieces)):
                if diffs is None:
                    s = cell.sign(sub(pieces[j], pieces[best[0]]))
                else:
                    f = diffs.get((j, best[0]))
                    if f is None:
                        f = diffs[(j, best[0])] = sub(pieces[j], pieces[best[0]])
                    s = cell.sign(f)
                if s > 0:
                    best = [j]
                elif s == 0:
                    best.append(j)
            new.append(pieces[best[0]])
            pat.append(tuple(best))
        h = new
        pattern.append(tuple(pat))
    if net["readout"] is not None:
        rW, rb = net["readout"]
        h = [add(_comb(zip(row, h), d), const(c, d)) for row, c in zip(rW, rb)]
    return h, tuple(pattern)


def eval_maxout_at(net: dict, x) -> list:
    """The exact value of the network at the point x (a 0-dimensional cell)."""
    maps, _ = eval_maxout(net, Cell([tuple(x)]))
    return [m[0] + sum((c * v for c, v in zip(m[1:], x)), _Z) for m in maps]


def maxout_int_layers(net: dict) -> dict:
    """The layers of a network of :func:`read_maxout` as integer matrices over one positive denominator each
    (python-flint ``fmpz_mat``): layer l is ``(M, den, N, k, pos)``, the row ``pos[i k + j]`` of M is
    ``den * (w_ij | b_ij)`` (piece j of unit i: the weights, then the bias; ``pos`` is -1 for an identically
    zero piece, left out of M), and the read-out ``(M, den)`` likewise (every row), or None.  Used by
    :func:`eval_maxout_int`."""
    from math import lcm

    def ints(rows):
        den = lcm(*[int(v.denominator) for r in rows for v in r]) if rows else 1
        return [int(v.numerator) * (den // int(v.denominator)) for r in rows for v in r], den

    layers = []
    for W, b in net["layers"]:
        N, k, w = len(W), len(b[0]), len(W[0][0]) + 1
        flat, den = ints([list(wj) + [b[i][j]] for i, Wi in enumerate(W) for j, wj in enumerate(Wi)])
        # identically zero pieces (the 0 of a ReLU) stay out of the products: their maps are 0
        nz = [r for r in range(N * k) if any(flat[r * w:(r + 1) * w])]
        pos = [-1] * (N * k)
        for q, r in enumerate(nz):
            pos[r] = q
        M = fmpz_mat(len(nz), w, [c for r in nz for c in flat[r * w:(r + 1) * w]]) if nz else None
        layers.append((M, den, N, k, pos))
    ro = None
    if net["readout"] is not None:
        rW, rb = net["readout"]
        flat, den = ints([list(r) + [c] for r, c in zip(rW, rb)])
        ro = (fmpz_mat(len(rW), len(rW[0]) + 1, flat), den)
    return {"layers": layers, "readout": ro, "input_dim": net["input_dim"], "widths": net["widths"]}


def eval_maxout_int(inet: dict, cell: Cell):
    """:func:`eval_maxout` in integer matrix form, for the region counts: ``(output maps, pattern)`` with the
    same pattern (the argmax set of every unit, decided on the whole cell) and the output maps as tuples
    ``(c0, c1, .., cd)`` of exact ``mpq`` (equal maps compare equal).

    Why it is exact.  Every vertex v_j of the cell is a homogeneous integer column (Z_j v_j, Z_j), Z_j > 0.
    The state entering a layer is an integer matrix G (a row per input plus the constant row (0, .., 0, s))
    over a scale s > 0: input r is the affine map G[r] . (x, 1) / s on the cell.  Then P = M G holds every
    piece's map over the scale s den, and (P V)[row, j] = s den Z_j times that piece's value at v_j: a
    positive multiple, so its sign is the sign of the value, and a difference of two pieces has at v_j the
    sign of the difference of their entries.  An argmax set is decided from these signs exactly as
    :meth:`Cell.decide` decides it (a relatively open convex cell: the signs at all its vertices decide an
    affine function on the whole cell; a mixed sign is a rejection), so by induction the next state is the
    chosen pieces' maps (rows of P) over the scale s den, affine on the whole cell.  Products and signs are
    integer arithmetic of python-flint (``fmpz_mat``); no number is rounded."""
    d = cell.ambient
    if inet["input_dim"] != d:
        raise Rejected(f"network: input dimension {inet['input_dim']}, the cell is in R^{d}")
    from math import lcm

    cols = []
    for v in cell.vertices:
        z = lcm(*[int(c.denominator) for c in v])
        cols.append([int(c.numerator) * (z // int(c.denominator)) for c in v] + [z])
    m = len(cols)
    V = fmpz_mat(d + 1, m, [col[r] for r in range(d + 1) for col in cols])
    w = d + 1
    G = fmpz_mat(w, w, [int(i == j) for i in range(w) for j in range(w)])
    s = 1
    pattern = []
    zv, zr = [0] * m, [0] * w
    for M, den, N, k, pos in inet["layers"]:
        tick()
        if M is not None:
            P = M * G
            pv = (P * V).entries()
            pe = P.entries()
        s = s * den
        rows, pat = [], []
        for i in range(N):
            q0 = pos[i * k]
            best = [0]
            for j in range(1, k):
                qb, qj = pos[i * k + best[0]], pos[i * k + j]
                c = pv[qb * m:qb * m + m] if qb >= 0 else zv
                a = pv[qj * m:qj * m + m] if qj >= 0 else zv
                up = down = False
                for t in range(m):
                    if a[t] > c[t]:
                        up = True
                    elif a[t] < c[t]:
                        down = True
                if up and down:
                    raise Rejected(f"cell: the sign of a piece difference (layer {len(pattern) + 1}, unit {i + 1}) "
                                   f"is not constant on the cell {_pts(cell.vertices)}")
                if up:
                    best = [j]
                elif not down:
                    best.append(j)
            q0 = pos[i * k + best[0]]
            rows.extend(pe[q0 * w:q0 * w + w] if q0 >= 0 else zr)
            pat.append(tuple(best))
        rows.extend([0] * (w - 1) + [s])
        G = fmpz_mat(N + 1, w, rows)
        pattern.append(tuple(pat))
    if inet["readout"] is not None:
        Mo, oden = inet["readout"]
        out, sc = (Mo * G).entries(), s * oden
    else:
        out, sc = G.entries()[:-w], s
    sc = int(sc)
    maps = tuple(tuple(mpq(int(out[o * w + c]), sc) for c in [d] + list(range(d)))
                 for o in range(len(out) // w))
    return maps, tuple(pattern)


# -- compiled hardmax Transformers -------------------------------------------------------------------------------
# {"tokens": n, "coordinates": [E names], "embed": {"one": E x n, "x": [E x n per input coordinate]},
#  "sublayers": [{"ffn": {"W1": r x E, "b1": r, "W2": E x r, "b2": E}} |
#                {"attention": [{"W_Q": m x E, "W_K": m x E, "W_V": m x E, "W_O": E x m}, ...]}],
#  "read": {"token": j, "W": o x E, "b": o}}
# Attn(X) = X + sum_h W_O W_V X sigma[(W_K X)^T (W_Q X)] (sigma: hardmax per query column over the keys),
# FF(X) = X + W2 ReLU(W1 X + b1 1^T) + b2 1^T, output = W X[:, token] + b.

def _sparse(rows):
    return [[(j, c) for j, c in enumerate(r) if c] for r in rows]


def _rmat(v, field, rows=None, cols=None, max_rows=MAX_FFN):
    m = _read.lst(v, field, 1 if rows is None else rows, max_rows if rows is None else rows)
    return [_q(r) for r in (_read.mat(m, field, cols=cols) if cols is not None else _read.mat(m, field))]


def read_transformer(v, field: str) -> dict:
    """A compiled hardmax Transformer with exact weights (format above).  Returns the parsed object
    ``{"n", "E", "d", "coordinates", "embed_one", "embed_x", "sublayers", "read_token", "read_W", "read_b"}``
    with dense matrices and sparse rows for evaluation; every shape is checked."""
    T = _read.obj(v, field, required=("tokens", "coordinates", "embed", "sublayers", "read"))
    n = _read.integer(T["tokens"], f"{field}.tokens", 1, MAX_TOKENS)
    names = [_read.string(c, f"{field}.coordinates[{i}]", max_len=64)
             for i, c in enumerate(_read.lst(T["coordinates"], f"{field}.coordinates", 1, MAX_E))]
    E = len(names)
    if len(set(names)) != E:
        raise Rejected(f"{field}.coordinates: repeated names")
    emb = _read.obj(T["embed"], f"{field}.embed", required=("one", "x"))
    one = _rmat(emb["one"], f"{field}.embed.one", E, n)
    xs = [_rmat(m, f"{field}.embed.x[{i}]", E, n)
          for i, m in enumerate(_read.lst(emb["x"], f"{field}.embed.x", 1, MAX_DIM))]
    budget = [0]

    def count(k, f):
        budget[0] += k
        if budget[0] > MAX_WEIGHTS:
            raise Rejected(f"{f}: more than {MAX_WEIGHTS} weights")

    subs = []
    for s, sub_ in enumerate(_read.lst(T["sublayers"], f"{field}.sublayers", 0, MAX_SUBLAYERS)):
        f = f"{field}.sublayers[{s}]"
        sub_ = _read.obj(sub_, f, optional=("ffn", "attention"))
        if len(sub_) != 1:
            raise Rejected(f"{f}: expected exactly one of ffn, attention")
        if "ffn" in sub_:
            ff = _read.obj(sub_["ffn"], f"{f}.ffn", required=("W1", "b1", "W2", "b2"))
            r = len(_read.lst(ff["W1"], f"{f}.ffn.W1", 1, MAX_FFN))
            count(2 * r * E, f)
            W1 = _rmat(ff["W1"], f"{f}.ffn.W1", r, E)
            W2 = _rmat(ff["W2"], f"{f}.ffn.W2", E, r)
            subs.append(("ffn", {"W1": W1, "b1": _q(_read.vec(ff["b1"], f"{f}.ffn.b1", r)), "W2": W2,
                                 "b2": _q(_read.vec(ff["b2"], f"{f}.ffn.b2", E)), "sW1": _sparse(W1),
                                 "sW2": _sparse(W2)}))
        else:
            heads = []
            for h, hd in enumerate(_read.lst(sub_["attention"], f"{f}.attention", 1, MAX_HEADS)):
                g = f"{f}.attention[{h}]"
                hd = _read.obj(hd, g, required=("W_Q", "W_K", "W_V", "W_O"))
                m = len(_read.lst(hd["W_Q"], f"{g}.W_Q", 1, MAX_HEAD_SIZE))
                count(4 * m * E, g)
                head = {key: _rmat(hd[key], f"{g}.{key}", m, E) for key in ("W_Q", "W_K", "W_V")}
                head["W_O"] = _rmat(hd["W_O"], f"{g}.W_O", E, m)
                head.update({"s" + key: _sparse(head[key]) for key in ("W_Q", "W_K", "W_V", "W_O")})
                heads.append(head)
            subs.append(("attention", heads))
    rd = _read.obj(T["read"], f"{field}.read", required=("token", "W", "b"))
    token = _read.integer(rd["token"], f"{field}.read.token", 0, n - 1)
    rW = _rmat(rd["W"], f"{field}.read.W", cols=E, max_rows=MAX_WIDTH)
    rb = _q(_read.vec(rd["b"], f"{field}.read.b", len(rW)))
    return {"n": n, "E": E, "d": len(xs), "coordinates": names, "embed_one": one, "embed_x": xs,
            "sublayers": subs, "read_token": token, "read_W": rW, "read_b": rb, "s_read_W": _sparse(rW)}


def transformer_digest(T_json) -> str:
    """sha256 of the canonical JSON of the recorded Transformer (what statements and the CLI show)."""
    return _read.digest(T_json)


def _nnz(rows) -> int:
    return sum(1 for r in rows for c in r if c)


def transformer_sizes(T: dict) -> dict:
    """The sizes of a parsed Transformer, recomputed from its weights (JSON-level ints and lists)."""
    ffn = [s for kind, s in T["sublayers"] if kind == "ffn"]
    att = [s for kind, s in T["sublayers"] if kind == "attention"]
    return {"tokens": T["n"], "embedding": T["E"], "sublayers": len(T["sublayers"]),
            "layout": "".join("F" if kind == "ffn" else "A" for kind, _ in T["sublayers"]),
            "heads": [len(a) for a in att], "head_sizes": [[len(h["W_Q"]) for h in a] for a in att],
            "ffn_widths": [len(s["W1"]) for s in ffn],
            "W1_nonzeros": [_nnz(s["W1"]) for s in ffn], "W2_nonzeros": [_nnz(s["W2"]) for s in ffn],
            "bias_nonzeros": [_nnz([s["b1"]]) + _nnz([s["b2"]]) for s in ffn],
            "attention_nonzeros": [sum(_nnz(h[k]) for h in a for k in ("W_Q", "W_K", "W_V", "W_O")) for a in att],
            "embed_nonzeros": _nnz(T["embed_one"]) + sum(_nnz(m) for m in T["embed_x"]),
            "read_nonzeros": _nnz(T["read_W"]) + _nnz([T["read_b"]])}


def _lin(srow, col, m):
    """sum_j c * col[j] over the sparse row, for vertex-value vectors of length m (an entry ``None`` of col is
    an identically zero vector, an inactive FFN unit: its terms are skipped)."""
    out = None
    for j, c in srow:
        v = col[j]
        if v is None:
            continue
        out = [c * x for x in v] if out is None else [a + c * x for a, x in zip(out, v)]
    return [_Z] * m if out is None else out


def _embed_terms(T: dict) -> list:
    """The embedding as sparse terms: ``[[(c0, [(k, c), ...]) for e] for j]`` with X[j][e](x) = c0 + sum c x_k
    over the non-zero coefficients only (cached on the parsed object)."""
    terms = T.get("_embed")
    if terms is None:
        one, xs, d = T["embed_one"], T["embed_x"], T["d"]
        terms = T["_embed"] = [[(one[e][j], [(k, xs[k][e][j]) for k in range(d) if xs[k][e][j]])
                                for e in range(T["E"])] for j in range(T["n"])]
    return terms


MEMO_MAX = 4096        # entries of the evaluation memo of one parsed Transformer (cleared when full)


def _memo(T: dict, cell):
    """The memo of decision-free work shared between cells, or None.  Only for cells whose ``vertices`` are the
    same for every cell of the dimension (``cell.SHARED_VERTICES``, the polyhedral cells of
    :mod:`verify.kernel._poly`): then every vertex-value vector is a function of the Transformer and the
    decisions taken so far only, never of the cell."""
    if not getattr(cell, "SHARED_VERTICES", False):
        return None
    memo = T.get("_memo")
    if memo is None or memo["vertices"] != cell.vertices:
        memo = T["_memo"] = {"vertices": list(cell.vertices), "next": 0, "entries": {}}
    return memo


def _cached(memo, key, fn):
    """``fn()``, or its value stored under ``key`` (``(id, value)``: the id names the value in later keys)."""
    if memo is None:
        return None, fn()
    entries = memo["entries"]
    hit = entries.get(key)
    if hit is None:
        if len(entries) >= MEMO_MAX:
            entries.clear()
        memo["next"] += 1
        hit = entries[key] = (memo["next"], fn())
    return hit


def eval_transformer(T: dict, cell: Cell, tie: str):
    """The Transformer on the cell under the hardmax tie rule ``tie``: ``(output forms, decisions)``.

    The token matrix starts as the affine embedding of x; every ReLU sign, every score product (one factor must
    be constant on the cell) and every hardmax argmax set is decided on the whole cell (:meth:`Cell.decide`).
    ``average`` puts 1/|A| on each maximiser, ``first`` 1 on the smallest key index of A.  Internally every
    value is the vector of its values at the cell's vertices (an affine function on a relatively open convex
    cell is determined by them, and linear operations act on them vertex-wise).

    Shared work: where the cell's vertices are the same for every cell (:func:`_memo`), the embedding, the
    pre-activations and queries / keys / values of a sublayer (functions of its input only) and a sublayer's
    output (a function of its input and its decisions, and of the tie rule for attention) are computed once
    and reused; the decisions themselves are taken on every cell, in the same order, through ``cell.decide``.
    Values are never changed in place, so a shared value is the value the evaluation would compute."""
    if tie not in TIE_RULES:
        raise Rejected(f"tie: {tie!r:.40} is not one of average, first")
    d = cell.ambient
    if T["d"] != d:
        raise Rejected(f"transformer: input dimension {T['d']}, the cell is in R^{d}")
    n, E, V = T["n"], T["E"], cell.vertices
    m = len(V)
    memo = _memo(T, cell)
    sid, X = _cached(memo, ("embed",), lambda: [
        [[c0 + sum((c * v[k] for k, c in tm), _Z) for v in V] if tm else [c0] * m for c0, tm in row]
        for row in _embed_terms(T)])
    decisions = []
    for si, (kind, s) in enumerate(T["sublayers"]):
        tick()
        if kind == "ffn":
            _, pre = _cached(memo, (sid, si, "pre"), lambda: [
                [[x + b for x in _lin(srow, col, m)] for srow, b in zip(s["sW1"], s["b1"])] for col in X])
            dec = []
            if memo is None:
                for us in pre:
                    for u in us:
                        dec.append(cell.decide(u) > 0)
            else:                                   # the cell's value keys of the pre-activations, shared too
                _, keys = _cached(memo, (sid, si, "keys"), lambda: [[cell.value_key(u) for u in us] for us in pre])
                for us, ks in zip(pre, keys):
                    for u, k in zip(us, ks):
                        dec.append(cell.decide(u, None, k) > 0)
            dec = tuple(dec)
            if memo is None:
                sid, X = None, _ffn_out(s, X, pre, dec, E, m)
            else:
                sid, X = _cached(memo, (sid, si, dec), lambda: _ffn_out_near(memo, (sid, si), s, X, pre, dec, E, m))
            decisions.append(dec)
        else:
            _, qkv = _cached(memo, (sid, si, "qkv"), lambda: _qkv_near(memo, si, s, X, m))
            dec = []
            shared = None if memo is None else memo.setdefault("scores", {})
            if shared is not None and len(shared) > 16 * MEMO_MAX:
                shared.clear()
            for h, (Q, K, _) in enumerate(qkv):
                for j in range(n):
                    # a query whose every entry is constant (equal vertex values) gives scores that do not
                    # depend on the cell (_dot takes that value): shared with their differences' value keys,
                    # keyed by the very value objects (query rows, then every key row) they are computed from
                    # (held by the entry, never changed in place; _qkv_near keeps unchanged rows' objects)
                    hit = None
                    if shared is not None:
                        objs = [*Q[j], *[r for Kl in K for r in Kl]]
                        hit = shared.get(tuple(map(id, objs)))
                        if hit is not None and not all(a is b for a, b in zip(hit[0], objs)):
                            hit = None
                        if hit is None and all(all(v == b[0] for v in b) for b in Q[j]):
                            hit = shared[tuple(map(id, objs))] = (
                                objs, [_dot(K[l], Q[j], cell) for l in range(n)], {})
                    if hit is None:
                        scores, diffs = [_dot(K[l], Q[j], cell) for l in range(n)], None
                    else:
                        _, scores, diffs = hit
                    best = [0]
                    for l in range(1, n):
                        if diffs is None:
                            sg = cell.decide([a - b for a, b in zip(scores[l], scores[best[0]])])
                        else:
                            dv = diffs.get((l, best[0]))
                            if dv is None:
                                u = [a - b for a, b in zip(scores[l], scores[best[0]])]
                                dv = diffs[(l, best[0])] = (u, cell.value_key(u))
                            sg = cell.decide(dv[0], None, dv[1])
                        if sg > 0:
                            best = [l]
                        elif sg == 0:
                            best.append(l)
                    dec.append(tuple(best))
            dec = tuple(dec)
            if memo is None:
                sid, X = None, _attention_out(s, X, qkv, dec, tie, n, E, m)
            else:
                sid, X = _cached(memo, (sid, si, dec, tie),
                                 lambda: _attention_out_near(memo, (si, tie), s, X, qkv, dec, tie, n, E, m))
            decisions.append(dec)
    _, out = _cached(memo, (sid, "read"), lambda: [
        [x + b for x in _lin(srow, X[T["read_token"]], m)] for srow, b in zip(T["s_read_W"], T["read_b"])])
    return [cell.form(vals) for vals in out], tuple(decisions)


def _ffn_out(s, X, pre, dec, E, m):
    """The FFN sublayer's output from its input, pre-activations and ReLU decisions (token-major order)."""
    new, r = [], len(s["b1"])
    for j, (col, us) in enumerate(zip(X, pre)):
        hidden = [u if dec[j * r + i] else None for i, u in enumerate(us)]      # None: the unit is 0 on the cell
        new.append([[a + c + b for a, c in zip(col[e], _lin(s["sW2"][e], hidden, m))]
                    for e, b in enumerate(s["b2"])])
    return new


FFN_NEAR = True        # an FFN output from the last one of the same input when few ReLU decisions differ (False:
                       # always from scratch; the same exact values either way)


def _ffn_out_near(memo, key, s, X, pre, dec, E, m):
    """:func:`_ffn_out`, computed from the output of the same input (``key``: its id and the sublayer) under the
    decisions of the last call when at most a quarter of them differ: each differing unit i of token j adds or
    removes its terms W2[e][i] * pre[j][i] in the rows e where W2[e][i] != 0, and the other rows are the last
    output's (values are never changed in place, so sharing them is safe).  Exact rationals: the same values as
    the sum from scratch, in any order."""
    last = memo.setdefault("ffn_last", {})
    hit = last.get(key) if FFN_NEAR else None
    r = len(s["b1"])
    if hit is not None:
        dec0, out0 = hit
        diff = [i for i, (a, b) in enumerate(zip(dec, dec0)) if a != b]
        if len(diff) * 4 <= len(dec):
            cols = s.get("_cols")
            if cols is None:
                cols = s["_cols"] = [[(e, row[i]) for e, row in enumerate(s["W2"]) if row[i]] for i in range(r)]
            new = [list(tok) for tok in out0]
            for k in diff:
                j, i = divmod(k, r)
                u = pre[j][i]
                row = new[j]
                for e, c in cols[i]:
                    c = c if dec[k] else -c
                    row[e] = [a + c * x for a, x in zip(row[e], u)]
            out = new
        else:
            out = _ffn_out(s, X, pre, dec, E, m)
    else:
        out = _ffn_out(s, X, pre, dec, E, m)
    if len(last) > MEMO_MAX:
        last.clear()
    last[key] = (dec, out)
    return out


def _qkv(s, X, m):
    return [tuple([[_lin(r, col, m) for r in hd[key]] for col in X] for key in ("sW_Q", "sW_K", "sW_V")) for hd in s]


def _changed(X, X0):
    """Per token, the set of rows of X that are not the very objects of X0's (rows shared with X0 are equal)."""
    return [{e for e, (a, b) in enumerate(zip(row, row0)) if a is not b} for row, row0 in zip(X, X0)]


def _qkv_near(memo, si, s, X, m):
    """The queries, keys and values of the attention sublayer ``si`` on X (memo: shared work), from those of
    the last input when X shares most of its rows with it (the FFN output of :func:`_ffn_out_near`): a row of
    Q, K or V is recomputed when one of the rows of X it reads differs, else it is the last one's (a linear
    function of the rows it reads: the same exact values)."""
    if memo is None:
        return _qkv(s, X, m)
    last = memo.setdefault("qkv_last", {})
    hit = last.get(si) if FFN_NEAR else None
    out = None
    if hit is not None and hit[0] is not X:
        X0, q0 = hit
        ch = _changed(X, X0)
        if sum(map(len, ch)) * 4 <= sum(map(len, X)):
            out = []
            changed = set().union(*ch)
            for hd, h0 in zip(s, q0):
                sup = hd.get("_support")
                if sup is None:
                    sup = hd["_support"] = {key: [frozenset(e for e, _ in r) for r in hd[key]]
                                            for key in ("sW_Q", "sW_K", "sW_V")}
                    sup["all"] = frozenset().union(*[su for key in ("sW_Q", "sW_K", "sW_V") for su in sup[key]])
                if changed.isdisjoint(sup["all"]):
                    out.append(h0)          # the head reads no changed row: its last queries, keys and values
                    continue
                out.append(tuple([rows0 if not c else
                                  [v0 if c.isdisjoint(su) else _lin(r, col, m)
                                   for r, su, v0 in zip(hd[key], sup[key], rows0)]
                                  for col, c, rows0 in zip(X, ch, k0)]
                                 for key, k0 in zip(("sW_Q", "sW_K", "sW_V"), h0)))
    if out is None:
        out = _qkv(s, X, m)
    if len(last) > MEMO_MAX:
        last.clear()
    last[si] = (X, out)
    return out


def _att_val(hd, Vv, best, tie, m):
    chosen = best[:1] if tie == "first" else best
    w = mpq(1, len(chosen))
    return [[w * sum((Vv[l][a][i] for l in chosen), _Z) for i in range(m)] for a in range(len(hd["W_V"]))]


def _attention_out_near(memo, key, s, X, qkv, dec, tie, n, E, m):
    """:func:`_attention_out` (the same exact values), from the last output of the sublayer under the same tie
    rule: a head's averaged value for a query token is recomputed when its argmax set or one of the chosen
    value rows differs from the last call's, and the output rows change by the differing rows of X and the
    W_O image of the differing averaged values only."""
    last = memo.setdefault("att_last", {})
    hit = last.get(key) if FFN_NEAR else None
    vals = []
    for h, (hd, (_, _, Vv)) in enumerate(zip(s, qkv)):
        vals.append([None] * n)
    out = None
    if hit is not None:
        X0, q0, dec0, vals0, out0 = hit
        ch = _changed(X, X0)
        moved = []                  # (h, j, new value - old value)
        for h, (hd, (_, _, Vv)) in enumerate(zip(s, qkv)):
            V0 = q0[h][2]
            for j in range(n):
                best = dec[h * n + j]
                if best == dec0[h * n + j] and all(a is b for l in best for a, b in zip(Vv[l], V0[l])):
                    vals[h][j] = vals0[h][j]
                else:
                    v = vals[h][j] = _att_val(hd, Vv, best, tie, m)
                    moved.append((h, j, [[a - b for a, b in zip(r1, r0)] for r1, r0 in zip(v, vals0[h][j])]))
        if (len(moved) + sum(map(len, ch))) * 4 <= n * (len(s) + E):
            new = [list(tok) for tok in out0]
            for j, c in enumerate(ch):
                row = new[j]
                for e in c:
                    row[e] = [a + x - y for a, x, y in zip(row[e], X[j][e], X0[j][e])]
            for h, j, dv in moved:
                row, sO = new[j], s[h]["sW_O"]
                for e in range(E):
                    if sO[e]:
                        row[e] = [a + b for a, b in zip(row[e], _lin(sO[e], dv, m))]
            out = new
    if out is None:
        delta = [[[_Z] * m for _ in range(E)] for _ in range(n)]
        for h, (hd, (_, _, Vv)) in enumerate(zip(s, qkv)):
            for j in range(n):
                val = vals[h][j]
                if val is None:
                    val = vals[h][j] = _att_val(hd, Vv, dec[h * n + j], tie, m)
                for e in range(E):
                    if hd["sW_O"][e]:
                        delta[j][e] = [x + y for x, y in zip(delta[j][e], _lin(hd["sW_O"][e], val, m))]
        out = [[[a + b for a, b in zip(X[j][e], delta[j][e])] for e in range(E)] for j in range(n)]
    if len(last) > MEMO_MAX:
        last.clear()
    last[key] = (X, qkv, dec, vals, out)
    return out


def _attention_out(s, X, qkv, dec, tie, n, E, m):
    """The attention sublayer's output from its input, values and argmax sets (head-major, then query token)."""
    delta = [[[_Z] * m for _ in range(E)] for _ in range(n)]
    for h, (hd, (_, _, Vv)) in enumerate(zip(s, qkv)):
        for j in range(n):
            best = dec[h * n + j]
            chosen = best[:1] if tie == "first" else best
            w = mpq(1, len(chosen))
            val = [[w * sum((Vv[l][a][i] for l in chosen), _Z) for i in range(m)] for a in range(len(hd["W_V"]))]
            for e in range(E):
                if hd["sW_O"][e]:
                    delta[j][e] = [x + y for x, y in zip(delta[j][e], _lin(hd["sW_O"][e], val, m))]
    return [[[a + b for a, b in zip(X[j][e], delta[j][e])] for e in range(E)] for j in range(n)]


def _dot(k, q, cell):
    """<k, q> for vectors of vertex values: each product needs a factor that is constant on the cell (its value
    there: :func:`_value_on`)."""
    m = len(cell.vertices)
    out = [_Z] * m
    for a, b in zip(k, q):
        if cell.is_constant(b):
            c, f = _value_on(cell, b), a
        elif cell.is_constant(a):
            c, f = _value_on(cell, a), b
        else:
            raise Rejected(f"cell: a score product of two values that vary on the cell {cell!r} is not affine")
        if c:
            for i in range(m):
                out[i] += c * f[i]
    return out


def _value_on(cell, vals):
    """The value on the cell of a function :meth:`Cell.is_constant` calls constant there.  Equal vertex values:
    that value.  Otherwise the cell is a polyhedral one with equations (verify.kernel._poly: its vertices 0, e_1,
    .., e_d lie off the cell, so the first vertex value is not the value on the cell): the form's value at the
    cell's point."""
    v0 = vals[0]
    if all(v == v0 for v in vals):
        return v0
    f, p = cell.form(vals), cell.point()
    return f[0] + sum((c * x for c, x in zip(f[1:], p)), _Z)


def eval_transformer_at(T: dict, x, tie: str) -> list:
    """The exact output of the Transformer at the point x (a 0-dimensional cell), embedded from x itself."""
    maps, _ = eval_transformer(T, Cell([tuple(x)]), tie)
    return [at(m, x) for m in maps]


# -- partitions of the closed box -------------------------------------------------------------------------------
def check_partition(cells, box) -> None:
    """Return only if ``cells`` (relatively open :class:`Cell` s) are pairwise disjoint and cover the closed
    ``box`` (``[(lo, hi)]`` in R^1 or R^2) exactly.  Sort-and-sweep, O(n log n); rejects duplicates, overlaps,
    gaps and cells outside the box."""
    cells = list(cells)
    d = len(box)
    if not cells:
        raise Rejected("cells: empty")
    if any(c.ambient != d for c in cells):
        raise Rejected(f"cells: every cell must lie in R^{d}")
    if d == 1:
        return _partition_1d(cells, box[0])
    if d == 2:
        return _partition_2d(cells, box)
    raise Rejected("cells: only boxes of dimension 1 and 2 are partitioned")


def _partition_1d(cells, iv):
    lo, hi = iv
    items = []
    for c in cells:
        tick()
        if c.dim == 0:
            items.append((c.vertices[0][0], 0, c.vertices[0][0]))
        else:
            a, b = sorted((c.vertices[0][0], c.vertices[1][0]))
            items.append((a, 1, b))
    items.sort()
    pos, want_point = lo, True
    for a, kind, b in items:
        tick()
        if a != pos or kind != (0 if want_point else 1):
            what = "the point" if want_point else "an open interval starting at"
            raise Rejected(f"cells: expected {what} {pos} next, got {'point' if kind == 0 else 'interval'} at {a}"
                           f" (gap, overlap or duplicate)")
        pos, want_point = b, not want_point
    if want_point or pos != hi:
        raise Rejected(f"cells: the cover ends at {pos}{' (open)' if want_point else ''}, not at the closed end {hi}")


def _line(p, q):
    """Canonical key (a, b, c) of the line a x + b y = c through p != q (first non-zero of a, b is 1) and the
    coordinate that parametrises it (x unless the line is vertical)."""
    a, b = q[1] - p[1], p[0] - q[0]
    c = a * p[0] + b * p[1]
    n = a if a != 0 else b
    return (a / n, b / n, c / n), (0 if b != 0 else 1)


def _partition_2d(cells, box):
    """Why the two sweeps prove a partition of the closed box B (polygons strictly convex CCW, all inside B):

    (1) Let N(p) be the number of open polygons containing p.  Crossing a polygon edge on a line l changes N by
    the signed number of edges of l covering that point (+1 interior on the left of the direction of increasing t,
    -1 on the right).  If that sum is 0 at every t of every line not on the boundary of B, N is constant on B's
    interior minus finitely many points (a connected set); the areas sum to area(B), so N = 1 almost everywhere:
    the open polygons are disjoint and their closures cover B.  Their complement in B is the skeleton K, the union
    of the closed edges.
    (2) Given (1), a point where edges of two different lines meet, or where a polygon vertex lies on another
    polygon's edge, is an end point of an edge on each of these lines (convex polygons with disjoint interiors
    leave no other way to fill a neighbourhood).  So on each line, between consecutive break points (edge and
    segment end points of that line) the line is either in K (then exactly one recorded open segment of the line
    must cover it) or not (then none may), and every other point of K is a break point of each line of K through
    it; its cover count -- the recorded point there plus the recorded segments strictly containing it -- is
    summed over those lines and must be 1.  Recorded points must be break points (else they lie off K or inside
    an open polygon or segment)."""
    (x0, x1), (y0, y1) = [(mpq(lo), mpq(hi)) for lo, hi in box]
    one = mpq(1)
    boundary_lines = {(one, _Z, x0), (one, _Z, x1), (_Z, one, y0), (_Z, one, y1)}
    edges, segs, points = {}, {}, set()       # line -> [(t0, t1, orientation)], line -> [(t0, t1)]
    area = _Z
    for c in cells:
        tick()
        vs = c.vertices
        if not all(x0 <= v[0] <= x1 and y0 <= v[1] <= y1 for v in vs):
            raise Rejected(f"cells: {c!r} is not inside the box")
        if c.dim == 0:
            if vs[0] in points:
                raise Rejected(f"cells: the point {vs[0]} is recorded twice")
            points.add(vs[0])
        elif c.dim == 1:
            key, k = _line(vs[0], vs[1])
            t0, t1 = sorted((vs[0][k], vs[1][k]))
            segs.setdefault(key, []).append((t0, t1))
        else:
            m = len(vs)
            area += sum((vs[i][0] * vs[(i + 1) % m][1] - vs[(i + 1) % m][0] * vs[i][1] for i in range(m)), _Z) / 2
            for i in range(m):
                p, q = vs[i], vs[(i + 1) % m]
                key, k = _line(p, q)
                o = 1 if p[k] < q[k] else -1
                edges.setdefault(key, []).append((min(p[k], q[k]), max(p[k], q[k]), o))
    if area != (x1 - x0) * (y1 - y0):
        raise Rejected(f"cells: the open polygons have total area {area}, the box {(x1 - x0) * (y1 - y0)}")
    # (1) the polygons tile the box: off the box boundary, every line carries as much polygon edge with the
    # interior on one side as on the other, so the cover count is constant, hence 1 (area), inside the box.
    for key, es in edges.items():
        if key in boundary_lines:
            continue
        ev = sorted([(a, o) for a, b, o in es] + [(b, -o) for a, b, o in es])
        run, i = 0, 0
        while i < len(ev):
            tick()
            t = ev[i][0]
            while i < len(ev) and ev[i][0] == t:
                run += ev[i][1]
                i += 1
            if run != 0:
                raise Rejected(f"cells: the open polygons overlap or leave a gap along the line {key} near t = {t}")
    # (2) the segments and points partition the skeleton (the union of the polygon edges): on each line, every
    # elementary interval between break points is in exactly one recorded segment if it is on a polygon edge and
    # in none otherwise; each break point (and recorded point) is covered exactly once.
    cover = {}
    for key in set(edges) | set(segs):
        es, ss = edges.get(key, []), segs.get(key, [])
        pts = sorted({t for a, b, _ in es for t in (a, b)} | {t for s in ss for t in s})
        de, s_start, s_end = {}, {}, {}
        for a, b, _ in es:
            de[a] = de.get(a, 0) + 1
            de[b] = de.get(b, 0) - 1
        for a, b in ss:
            s_start[a] = s_start.get(a, 0) + 1
            s_end[b] = s_end.get(b, 0) + 1
        ue = us = 0                          # polygon edges / recorded segments open just before t
        for t in pts:
            tick()
            p = _on(key, t)
            us -= s_end.get(t, 0)
            cover[p] = cover.get(p, 0) + us  # the segments of this line that contain t
            us += s_start.get(t, 0)
            ue += de.get(t, 0)
            if us != (1 if ue > 0 else 0):
                raise Rejected(f"cells: along the line {key} after t = {t}: {us} recorded segments where the "
                               f"polygon edges {'are' if ue else 'are not'} (gap, overlap or stray segment)")
    for p in points:
        tick()
        if p not in cover:
            raise Rejected(f"cells: the point {p} is not on the skeleton of the polygons")
        cover[p] += 1
    for p, c in cover.items():
        tick()
        if c != 1:
            raise Rejected(f"cells: the point {p} is covered {c} times (expected exactly once)")


def _on(key, t):
    a, b, c = key
    if b != 0:           # parametrised by x: y = (c - a x) / b
        return (t, (c - a * t) / b)
    return (c / a, t)    # vertical line x = c / a, parametrised by y
