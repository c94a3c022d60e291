"""Exact polyhedral cells in R^d and their split trees (shared by the ``emulation-polytope`` and
``regions-polytope`` kinds).

Objects
-------
* an **affine form** is a tuple ``(c0, c1, ..., cd)`` of exact rationals (as in :mod:`verify.kernel._cells`);
* a **cell** ``P = {x : e(x) = 0 for e in E, g(x) > 0 for g in G}`` (E, G lists of affine forms);
* a **split tree** over a root cell: an inner node ``{"split": h, "children": [pos, neg, zero]}`` stands for
  the three cells ``P & {h > 0}``, ``P & {h < 0}``, ``P & {h = 0}`` that the kernel builds itself (h must
  have a non-zero linear part); a leaf is ``{"empty": {"y": [[i, q], ...], "l": [[j, q], ...]}}`` or
  ``{"point": [q, ...], "signs": [entry, ...]}``.  Numbers are exact (``"p/q"`` strings or ints); ``i``
  indexes G, ``j`` indexes E, in the order root constraints first, then one per split on the path.
* the **roots** of a closed box are its 3^d relatively open faces (every coordinate fixed at lo, open in
  (lo, hi), or fixed at hi, in this order, the first coordinate varying slowest); the kernel builds them
  from the box, never reads them.

Guarantees (docs/regions.md, "Polyhedral cells in any dimension", proves each lemma)
----------
* :func:`walk` returns only if every ``empty`` leaf is empty (Motzkin: ``sum y g + sum l e`` is a constant
  c with ``c < 0``, or ``c = 0`` and some ``y > 0``; ``y >= 0``) and every ``point`` leaf's point satisfies
  ``e(p) = 0``, ``g(p) > 0`` exactly; it calls ``leaf(cell)`` on every point leaf.  The leaves of the trees
  of all roots partition the closed box (by construction: the three children of a node partition it).
* on a :class:`PolyCell` (a non-empty leaf), ``sign(f)`` returns s in {+1, -1, 0} only if f has the sign s
  at every point of the cell: s = sign f(p) is computed from the point; the next entry of ``signs`` must
  prove it -- for s != 0 either ``{"y": ..., "l": ...}`` with ``s f = sum y g + sum l e + c``, y >= 0,
  c >= 0 a constant (checked coefficient by coefficient) or ``"box"`` (the kernel forms that identity itself
  from the root's box constraints); for s = 0 ``{"l": ...}`` with ``f = sum l e`` exactly.  A form with zero
  linear part is decided from its constant and consumes no entry; a form equal to an earlier one up to a
  positive factor reuses its sign and consumes no entry.  :func:`walk` rejects a leaf whose entries are not
  consumed exactly.
* the cell exposes the interface of :class:`verify.kernel._cells.Cell` that ``eval_maxout`` and
  ``eval_transformer`` use: ``vertices`` are the d + 1 points 0, e_1, ..., e_d of R^d, the same for every
  cell (an affine function is determined by its values there, linear operations act on them point-wise, and a
  function affine on the cell is the restriction of the form they define; the evaluator shares its
  decision-free work between cells because of that); "constant on the cell" is "f - f(p) = 0 on the cell",
  decided by exact elimination against the equations ("not constant" is always the safe answer);
  ``decide(vals)`` turns the values into the form and calls ``sign``.  So every decision those evaluators take
  holds on the whole cell.

Bounds: d <= :data:`MAX_POLY_DIM` (3^d roots), at most :data:`MAX_NODES` tree nodes; loops call ``tick``.
"""

from __future__ import annotations

import itertools

from gmpy2 import mpq

from . import _read
from ._read import Rejected, tick

__all__ = ["PolyCell", "walk", "roots", "interior_root", "solve", "read_q", "norm_key", "MAX_POLY_DIM", "MAX_NODES", "MAX_ENTRIES"]

MAX_POLY_DIM = 6          # 3^6 = 729 roots
MAX_NODES = 400_000       # tree nodes of one certificate
MAX_ENTRIES = 10_000      # sign entries of one leaf
_Z = mpq(0)


def read_q(v, field: str):
    return mpq(_read.num(v, field))


def _at(f, x):
    return f[0] + sum((c * v for c, v in zip(f[1:], x)), _Z)


_FRAMES = {}


def _frame(d: int) -> list:
    """The points 0, e_1, ..., e_d of R^d (affinely independent: an affine function is determined by its values
    there; one list per d, shared by every cell)."""
    fr = _FRAMES.get(d)
    if fr is None:
        fr = _FRAMES[d] = [tuple([_Z] * d)] + [tuple(mpq(int(k == i)) for k in range(d)) for i in range(d)]
    return fr


def value_key(vals):
    """For vertex values at 0, e_1, .., e_d: the sign of the constant (an int) when they are all equal, else the
    values divided by the absolute value of the first non-zero difference v_i - v_0 (equal keys: the same form
    up to a positive factor)."""
    v0 = vals[0]
    a = next((v - v0 for v in vals[1:] if v != v0), None)
    if a is None:
        return (v0 > 0) - (v0 < 0)
    a = abs(a)
    return tuple(v / a for v in vals)


def norm_key(f) -> tuple:
    """f divided by the absolute value of its first non-zero linear coefficient (f has one)."""
    a = next(abs(c) for c in f[1:] if c)
    return tuple(c / a for c in f)


def solve(A, b):
    """One exact solution u of A u = b (free unknowns 0), or None when there is none (Gauss-Jordan over mpq)."""
    m = len(A)
    n = len(A[0]) if m else 0
    M = [[mpq(v) for v in A[i]] + [mpq(b[i])] for i in range(m)]
    piv, r = [], 0
    for c in range(n):
        tick()
        k = next((i for i in range(r, m) if M[i][c]), None)
        if k is None:
            continue
        M[r], M[k] = M[k], M[r]
        inv = 1 / M[r][c]
        M[r] = [v * inv for v in M[r]]
        for i in range(m):
            if i != r and M[i][c]:
                t = M[i][c]
                M[i] = [a - t * w for a, w in zip(M[i], M[r])]
        piv.append(c)
        r += 1
        if r == m:
            break
    if any(M[i][n] for i in range(r, m)):
        return None
    u = [_Z] * n
    for i, c in enumerate(piv):
        u[c] = M[i][n]
    return u


def _fast_q(v):
    """The exact number v (a JSON int or ``"p"`` / ``"p/q"`` string) as mpq when it is plainly well-formed, else
    None (then :func:`read_q` reads it, with its error messages); accepts exactly what :func:`read_q` accepts."""
    t = type(v)
    if t is int:
        return mpq(v) if v.bit_length() <= 4 * _read.MAX_DIGITS else None
    if t is str and len(v) < 4000 and _read._NUM.match(v):
        p, _, q = v.partition("/")
        den = int(q) if q else 1
        return mpq(int(p), den) if den else None
    return None


def _sparse(v, field: str, n: int, positive: bool) -> list:
    """``[[index, q], ...]`` with strictly increasing indices in [0, n), non-zero values (> 0 if positive)."""
    out, last = [], -1
    for k, pair in enumerate(_read.lst(v, field, 0, max(n, 0))):
        if type(pair) is list and len(pair) == 2 and type(pair[0]) is int and last < pair[0] < n:
            q = _fast_q(pair[1])                  # the common case, read without building field names
            if q is not None and q != 0 and (q > 0 or not positive):
                tick()
                out.append((pair[0], q))
                last = pair[0]
                continue
        pair = _read.lst(pair, f"{field}[{k}]", 2, 2)
        i = _read.integer(pair[0], f"{field}[{k}][0]", last + 1, n - 1)
        q = read_q(pair[1], f"{field}[{k}][1]")
        if q == 0 or (positive and q < 0):
            raise Rejected(f"{field}[{k}]: the multiplier must be {'> 0' if positive else 'non-zero'}, got {q}")
        out.append((i, q))
        last = i
    return out


def _combine(terms, d: int) -> list:
    out = [_Z] * (d + 1)
    for q, f in terms:
        for k, a in enumerate(f):
            if a:
                out[k] += q * a
    return out


class PolyCell:
    """A non-empty cell {e = 0, g > 0} with an exact point p, deciding signs from its certificate entries."""

    __slots__ = ("ambient", "dim", "vertices", "E", "G", "p", "bounds", "signs", "pos", "cache", "field", "vcache")

    def __init__(self, E, G, p, bounds, signs, field: str = "leaf"):
        d = len(p)
        self.ambient, self.E, self.G, self.p, self.bounds, self.field = d, E, G, tuple(p), bounds, field
        for j, e in enumerate(E):
            if _at(e, p) != 0:
                raise Rejected(f"{field}.point: equation {j} is not 0 at the point")
        for i, g in enumerate(G):
            tick()
            if _at(g, p) <= 0:
                raise Rejected(f"{field}.point: inequality {i} is not > 0 at the point")
        self.vertices = _frame(d)
        self.dim = d if not E else None          # full-dimensional iff no equation (splits have a linear part)
        self.signs, self.pos, self.cache, self.vcache = signs, 0, {}, {}

    SHARED_VERTICES = True       # the same vertices for every cell of R^d (eval_transformer shares work)
    value_key = staticmethod(value_key)

    # -- the interface of _cells.Cell -------------------------------------------------------------------------
    def values(self, f) -> list:
        return [_at(f, v) for v in self.vertices]

    def form(self, vals) -> tuple:
        """The affine form with these values at 0, e_1, ..., e_d."""
        v0 = vals[0]
        return (v0,) + tuple(v - v0 for v in vals[1:])

    def decide(self, vals, f=None, vkey=None) -> int:
        """``sign(form(vals))``.  Shortcuts with the same answers and entries: values all equal (a zero linear
        part) give the sign of the constant; a repeat of earlier values up to a positive factor (the key of
        :func:`value_key`: the form scaled as :func:`norm_key` scales it) reuses the sign ``sign`` cached for
        it.  ``vkey``: ``value_key(vals)`` computed beforehand by the kernel's evaluator (shared between cells)."""
        k = value_key(vals) if vkey is None else vkey
        if type(k) is int:
            return k
        s = self.vcache.get(k)
        if s is None:
            s = self.vcache[k] = self.sign(self.form(vals))
        return s

    def is_constant(self, vals) -> bool:
        """Whether f - f(p) vanishes on the cell: its linear part is 0, or (with equations) it is an exact
        combination of the equations (decided here by exact elimination; "not constant" is the safe answer)."""
        f = self.form(vals)
        if not any(f[1:]):
            return True
        if not self.E:
            return False
        g = (f[0] - _at(f, self.p),) + f[1:]          # f - f(p)
        return solve([[e[k] for e in self.E] for k in range(self.ambient + 1)], list(g)) is not None

    def point(self) -> tuple:
        return self.p

    def sign(self, f) -> int:
        tick()
        f = tuple(f)
        if not any(f[1:]):
            return (f[0] > 0) - (f[0] < 0)
        key = norm_key(f)
        s = self.cache.get(key)
        if s is None:
            v = _at(f, self.p)
            s = (v > 0) - (v < 0)
            self.certify(f, s)
            self.cache[key] = s
        return s

    # -- certificates -------------------------------------------------------------------------------------------
    def next_entry(self):
        if self.pos >= len(self.signs):
            raise Rejected(f"{self.field}.signs: missing entry {self.pos}")
        entry = self.signs[self.pos]
        self.pos += 1
        return entry

    def certify(self, f, s) -> None:
        where = f"{self.field}.signs[{self.pos}]"
        entry = self.next_entry()
        d = self.ambient
        if s == 0:
            entry = _read.obj(entry, where, required=("l",))
            lam = _sparse(entry["l"], f"{where}.l", len(self.E), False)
            if _combine([(q, self.E[j]) for j, q in lam], d) != list(f):
                raise Rejected(f"{where}: the form is 0 at the point but not the given combination of equations")
            return
        sf = [s * c for c in f]
        if entry == "box":
            c = sf[0]
            for k, (lo, hi, fixed) in enumerate(self.bounds):
                a = sf[k + 1]
                c += a * (fixed if fixed is not None else (lo if a > 0 else hi))
            if c < 0:
                raise Rejected(f"{where}: the box bound of the signed form is {c} < 0")
            return
        entry = _read.obj(entry, where, required=("y", "l"))
        y = _sparse(entry["y"], f"{where}.y", len(self.G), True)
        lam = _sparse(entry["l"], f"{where}.l", len(self.E), False)
        r = _combine([(q, self.G[i]) for i, q in y] + [(q, self.E[j]) for j, q in lam], d)
        rest = [a - b for a, b in zip(sf, r)]
        if any(rest[1:]) or rest[0] < 0:
            raise Rejected(f"{where}: s f - sum y g - sum l e is not a constant >= 0")

    def done(self) -> None:
        if self.pos != len(self.signs):
            raise Rejected(f"{self.field}.signs: {len(self.signs) - self.pos} entries left unused")


def roots(bx) -> list:
    """The 3^d relatively open faces of the closed box: ``(E, G, bounds)`` each; ``bounds[k] = (lo, hi,
    fixed value or None)``."""
    d = len(bx)
    if not 1 <= d <= MAX_POLY_DIM:
        raise Rejected(f"parameters.box: polyhedral cells need dimension 1..{MAX_POLY_DIM}, got {d}")
    out = []
    for choice in itertools.product((0, 1, 2), repeat=d):
        E, G, bounds = [], [], []
        for k, (c, (lo, hi)) in enumerate(zip(choice, bx)):
            lo, hi = mpq(lo), mpq(hi)
            unit = [_Z] * (d + 1)
            unit[k + 1] = mpq(1)
            if c == 1:
                G.append(tuple([-lo] + unit[1:]))
                G.append(tuple([hi] + [-a for a in unit[1:]]))
                bounds.append((lo, hi, None))
            else:
                t = lo if c == 0 else hi
                E.append(tuple([-t] + unit[1:]))
                bounds.append((lo, hi, t))
        out.append((E, G, bounds))
    return out


def interior_root(bx) -> tuple:
    """The open box only (the root of a region count: the faces have measure zero)."""
    return roots(bx)[(3 ** len(bx) - 1) // 2]


def _check_empty(node, E, G, field: str, d: int) -> None:
    cert = _read.obj(node["empty"], f"{field}.empty", required=("y", "l"))
    y = _sparse(cert["y"], f"{field}.empty.y", len(G), True)
    lam = _sparse(cert["l"], f"{field}.empty.l", len(E), False)
    r = _combine([(q, G[i]) for i, q in y] + [(q, E[j]) for j, q in lam], d)
    if any(r[1:]) or r[0] > 0 or (r[0] == 0 and not y):
        raise Rejected(f"{field}.empty: sum y g + sum l e is not a constant < 0 (or 0 with some y > 0)")


def walk(trees, root_cells, leaf, lower: bool = True) -> dict:
    """Check the split trees over the given roots and call ``leaf(cell)`` on every point leaf (a
    :class:`PolyCell`; its entries must be consumed exactly).  ``lower=False``: every zero child must be
    ``null`` (region counts keep full-dimensional cells only).  Returns counts of nodes and leaves."""
    trees = _read.lst(trees, "certificate.roots", len(root_cells), len(root_cells))
    d = len(root_cells[0][2])
    stats = {"nodes": 0, "points": 0, "empty": 0, "open": 0}
    for r, (tree, (E0, G0, bounds)) in enumerate(zip(trees, root_cells)):
        stack = [(tree, E0, G0, f"certificate.roots[{r}]")]
        while stack:
            tick()
            node, E, G, field = stack.pop()
            stats["nodes"] += 1
            if stats["nodes"] > MAX_NODES:
                raise Rejected(f"certificate.roots: more than {MAX_NODES} nodes")
            if node is None:
                raise Rejected(f"{field}: missing node")
            keys = set(node) if isinstance(node, dict) else set()
            if "split" in keys:
                node = _read.obj(node, field, required=("split", "children"))
                h = tuple(read_q(c, f"{field}.split[{k}]")
                          for k, c in enumerate(_read.lst(node["split"], f"{field}.split", d + 1, d + 1)))
                if not any(h[1:]):
                    raise Rejected(f"{field}.split: the form has no linear part")
                kids = _read.lst(node["children"], f"{field}.children", 3, 3)
                neg = tuple(-c for c in h)
                if lower:
                    stack.append((kids[2], E + [h], G, f"{field}.children[2]"))
                elif kids[2] is not None:
                    raise Rejected(f"{field}.children[2]: a region count keeps open cells only (null expected)")
                stack.append((kids[1], E, G + [neg], f"{field}.children[1]"))
                stack.append((kids[0], E, G + [h], f"{field}.children[0]"))
            elif "empty" in keys:
                _read.obj(node, field, required=("empty",))
                _check_empty(node, E, G, field, d)
                stats["empty"] += 1
            else:
                node = _read.obj(node, field, required=("point", "signs"))
                p = [read_q(c, f"{field}.point[{k}]")
                     for k, c in enumerate(_read.lst(node["point"], f"{field}.point", d, d))]
                cell = PolyCell(E, G, p, bounds, _read.lst(node["signs"], f"{field}.signs", 0, MAX_ENTRIES), field)
                leaf(cell)
                cell.done()
                stats["points"] += 1
                stats["open"] += cell.dim == d
    return stats
