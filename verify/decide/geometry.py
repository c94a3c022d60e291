"""Exact convex cells in R^1 and R^2: intervals, segments, points and convex polygons.

A :class:`Cell` is the *relative interior* of the convex hull of its exact rational vertices
(``gmpy2.mpq`` internally, ``Fraction`` at the boundary).  Cells of dimension 0 (a point),
1 (an open segment, or an open interval in R^1) and 2 (an open convex polygon, vertices
counter-clockwise, no three collinear) are supported.  The sign of an affine function
``f(x) = c . x + c0`` on a cell is decided exactly from its values at the vertices:
every relative-interior point is a convex combination of *all* vertices with positive
weights, so ``f > 0`` on the cell iff every vertex value is ``>= 0`` and one is ``> 0``.
If vertex values of both strict signs occur, :meth:`Cell.split` cuts the cell into the
parts ``f > 0``, ``f < 0`` and the cut ``f = 0`` (one dimension lower); the relative
interiors of the three parts partition the relative interior of the cell.  No epsilons.

Algorithm
---------
:meth:`Cell.sign`: the affine function at every vertex (d exact products each).  :meth:`Cell.split`:
one pass over the edges, inserting the exact crossing point p + t (q - p), t = f(p) / (f(p) - f(q)), on
every edge whose end values have strict opposite signs.  Linear in the number of vertices.

Soundness
---------
Exact rational arithmetic (``mpq``) and the vertex lemma above: the sign read from the vertices is the sign
at every point of the relatively open cell.  The kernel has its own copy of this machinery
(docs/regions.md, "Re-checking by the kernel").

Limits
------
Ambient dimension 1 or 2 only (:func:`box_cell` and :func:`box_faces` refuse others); polygons are taken to
be convex and counter-clockwise, as :func:`box_cell` and :meth:`Cell.split` produce them (not checked on
construction).  :meth:`Cell.measure` refuses a segment in R^2 (its length is not rational).

>>> sq = box_cell([(0, 1), (0, 1)])
>>> sq.dim, sq.measure()
(2, Fraction(1, 1))
>>> pos, neg, cut = sq.split((1, 1), -1)          # x + y - 1
>>> pos.measure(), neg.measure(), cut.dim
(Fraction(1, 2), Fraction(1, 2), 1)
>>> [tuple(str(c) for c in v) for v in cut.vertices_fraction()]
[('1', '0'), ('0', '1')]
>>> interval = box_cell([(0, 1)])
>>> [c.measure() for c in interval.split((3,), -1)[:2]]
[Fraction(2, 3), Fraction(1, 3)]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

from gmpy2 import mpq

from ..errors import InputError

__all__ = ["Q", "to_q", "to_fraction", "Cell", "box_cell", "box_faces",
           "affine_value", "segment_overlap"]

Q = mpq
_ZERO = mpq(0)


def to_q(v) -> mpq:
    """An exact number (int, Fraction, mpq) as ``mpq``."""
    if isinstance(v, mpq):
        return v
    if isinstance(v, Fraction):
        return mpq(v.numerator, v.denominator)
    if isinstance(v, int) and not isinstance(v, bool):
        return mpq(v)
    raise TypeError(f"value: expected an exact number, got {type(v).__name__}")


def to_fraction(v) -> Fraction:
    """``mpq`` (or int/Fraction) as ``Fraction``."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int):
        return Fraction(v)
    return Fraction(int(v.numerator), int(v.denominator))


def affine_value(lin: Sequence, const, point: Sequence):
    """``lin . point + const`` exactly."""
    s = const
    for c, p in zip(lin, point):
        if c:
            s = s + c * p
    return s


def split_polygon(vs: Sequence, vals: Sequence) -> tuple:
    """Split a convex polygon (vertices ``vs`` in order) by the line where an affine function with
    vertex values ``vals`` vanishes: the vertex tuples of the parts f >= 0, f <= 0 and f = 0.

    Works for any ordered field (exact rationals, or floats in a benchmark's float twin).

    >>> split_polygon([(0, 0), (2, 0), (2, 2), (0, 2)], [-1, 1, 1, -1])
    (((1.0, 0.0), (2, 0), (2, 2), (1.0, 2.0)), ((0, 0), (1.0, 0.0), (1.0, 2.0), (0, 2)), ((1.0, 0.0), (1.0, 2.0)))
    """
    pos, neg, cut = [], [], []
    n = len(vs)
    for i in range(n):
        p, fp = vs[i], vals[i]
        q, fq = vs[(i + 1) % n], vals[(i + 1) % n]
        if fp >= 0:
            pos.append(p)
        if fp <= 0:
            neg.append(p)
        if fp == 0:
            cut.append(p)
        if (fp > 0 and fq < 0) or (fp < 0 and fq > 0):
            t = fp / (fp - fq)
            r = (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
            pos.append(r)
            neg.append(r)
            cut.append(r)
    return tuple(pos), tuple(neg), tuple(cut)


class Cell:
    """Relative interior of the convex hull of ``vertices`` (tuples of ``mpq``), in R^1 or R^2."""

    __slots__ = ("vertices", "dim", "ambient")

    def __init__(self, vertices: Sequence[Sequence]):
        verts = tuple(tuple(to_q(c) for c in v) for v in vertices)
        if not verts:
            raise ValueError("vertices: a cell needs at least one vertex")
        self.vertices = verts
        self.ambient = len(verts[0])
        n = len(verts)
        self.dim = 0 if n == 1 else (1 if n == 2 else 2)

    @classmethod
    def _raw(cls, verts: tuple) -> "Cell":
        c = cls.__new__(cls)
        c.vertices = verts
        c.ambient = len(verts[0])
        n = len(verts)
        c.dim = 0 if n == 1 else (1 if n == 2 else 2)
        return c

    def __repr__(self) -> str:
        pts = ", ".join("(" + ", ".join(str(c) for c in v) + ")" for v in self.vertices)
        return f"Cell(dim={self.dim}: {pts})"

    def vertices_fraction(self) -> list:
        return [tuple(to_fraction(c) for c in v) for v in self.vertices]

    def values(self, lin: Sequence, const) -> list:
        """Values of the affine function at the vertices."""
        return [affine_value(lin, const, v) for v in self.vertices]

    def sign(self, lin: Sequence, const):
        """+1 / -1 / 0 if the sign is constant on the cell, ``None`` if it changes.

        Algorithm
        ---------
        Evaluate ``lin . v + const`` exactly at every vertex v.

        Soundness
        ---------
        Every relative-interior point is a convex combination of all vertices with positive weights, so
        the answer holds at every point of the cell (the module's vertex lemma).

        Limits
        ------
        ``None`` means the sign really changes on the cell (both strict signs occur at vertices): split it.
        """
        pos = neg = False
        for v in self.vertices:
            s = affine_value(lin, const, v)
            if s > 0:
                pos = True
            elif s < 0:
                neg = True
        if pos and neg:
            return None
        return 1 if pos else (-1 if neg else 0)

    def interior_point(self) -> tuple:
        """The vertex average, a relative-interior point (exact)."""
        n = len(self.vertices)
        return tuple(sum((v[i] for v in self.vertices), _ZERO) / n for i in range(self.ambient))

    def measure(self) -> Fraction:
        """Length (dim 1 in R^1, Euclidean length is not rational in R^2: for a segment in R^2 the
        length of its projection is *not* returned -- use only for full-dimensional cells) or area."""
        if self.dim == 0:
            return Fraction(0)
        if self.ambient == 1:
            return to_fraction(abs(self.vertices[1][0] - self.vertices[0][0]))
        if self.dim == 1:
            raise ValueError("measure: a segment in R^2 has no rational length")
        return to_fraction(self.signed_area())

    def signed_area(self):
        """Shoelace area (positive for counter-clockwise polygons)."""
        vs = self.vertices
        s = _ZERO
        n = len(vs)
        for i in range(n):
            x1, y1 = vs[i]
            x2, y2 = vs[(i + 1) % n]
            s += x1 * y2 - x2 * y1
        return s / 2

    def bbox(self) -> tuple:
        return tuple((min(v[i] for v in self.vertices), max(v[i] for v in self.vertices))
                     for i in range(self.ambient))

    def split(self, lin: Sequence, const) -> tuple:
        """(part f > 0, part f < 0, cut f = 0) of a cell on which f takes both strict signs."""
        vals = [affine_value(lin, const, v) for v in self.vertices]
        if not (any(s > 0 for s in vals) and any(s < 0 for s in vals)):
            raise ValueError("split: the affine function does not change sign on the cell")
        vs = self.vertices
        if self.dim == 1:
            (p, q), (fp, fq) = vs, vals
            t = fp / (fp - fq)
            r = tuple(a + t * (b - a) for a, b in zip(p, q))
            if fp > 0:
                return Cell._raw((p, r)), Cell._raw((r, q)), Cell._raw((r,))
            return Cell._raw((r, q)), Cell._raw((p, r)), Cell._raw((r,))
        pos, neg, cut = split_polygon(vs, vals)
        return Cell._raw(pos), Cell._raw(neg), Cell._raw(cut)

    def edges(self) -> list:
        """Closed edges of a polygon as vertex pairs (counter-clockwise)."""
        vs = self.vertices
        if self.dim < 2:
            return []
        return [(vs[i], vs[(i + 1) % len(vs)]) for i in range(len(vs))]

    def contains_point(self, point: Sequence) -> bool:
        """Exact membership of ``point`` in the relative interior."""
        pt = tuple(to_q(c) for c in point)
        if self.dim == 0:
            return pt == self.vertices[0]
        if self.ambient == 1:
            lo, hi = sorted((self.vertices[0][0], self.vertices[1][0]))
            return lo < pt[0] < hi
        if self.dim == 1:
            (p, q) = self.vertices
            cross = (q[0] - p[0]) * (pt[1] - p[1]) - (q[1] - p[1]) * (pt[0] - p[0])
            if cross != 0:
                return False
            dot = (pt[0] - p[0]) * (q[0] - p[0]) + (pt[1] - p[1]) * (q[1] - p[1])
            return 0 < dot < (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2
        for p, q in self.edges():
            if (q[0] - p[0]) * (pt[1] - p[1]) - (q[1] - p[1]) * (pt[0] - p[0]) <= 0:
                return False
        return True


def box_cell(box: Iterable) -> Cell:
    """The open box as a cell (full-dimensional boxes only)."""
    box = [(to_q(Fraction(lo)), to_q(Fraction(hi))) for lo, hi in box]
    if any(lo >= hi for lo, hi in box):
        raise InputError("box", "every side must have lo < hi for a full-dimensional cell")
    if len(box) == 1:
        return Cell._raw(((box[0][0],), (box[0][1],)))
    if len(box) == 2:
        (x0, x1), (y0, y1) = box
        return Cell._raw(((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
    raise InputError("box", f"dimension {len(box)} not supported (1 or 2)")


def box_faces(box: Iterable) -> list:
    """Cells whose relative interiors partition the *closed* box (degenerate sides allowed)."""
    box = [(to_q(Fraction(lo)), to_q(Fraction(hi))) for lo, hi in box]
    if len(box) == 1:
        (lo, hi), = box
        if lo == hi:
            return [Cell._raw(((lo,),))]
        return [Cell._raw(((lo,), (hi,))), Cell._raw(((lo,),)), Cell._raw(((hi,),))]
    if len(box) != 2:
        raise InputError("box", f"dimension {len(box)} not supported (1 or 2)")
    (x0, x1), (y0, y1) = box
    if x0 == x1 and y0 == y1:
        return [Cell._raw(((x0, y0),))]
    if x0 == x1 or y0 == y1:
        p, q = (x0, y0), (x1, y1)
        return [Cell._raw((p, q)), Cell._raw((p,)), Cell._raw((q,))]
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    faces = [Cell._raw(corners)]
    faces += [Cell._raw((corners[i], corners[(i + 1) % 4])) for i in range(4)]
    faces += [Cell._raw((c,)) for c in corners]
    return faces


def segment_overlap(a: tuple, b: tuple) -> bool:
    """Whether two closed collinear-or-not segments in R^2 overlap in a piece of positive length."""
    (p, q), (r, s) = a, b
    d = (q[0] - p[0], q[1] - p[1])
    for pt in (r, s):
        if d[0] * (pt[1] - p[1]) - d[1] * (pt[0] - p[0]) != 0:
            return False
    k = 0 if d[0] != 0 else 1
    lo1, hi1 = sorted((p[k], q[k]))
    lo2, hi2 = sorted((r[k], s[k]))
    return max(lo1, lo2) < min(hi1, hi2)
