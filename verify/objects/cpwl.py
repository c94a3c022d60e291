"""Continuous piecewise-linear functions with exact rational data (docs/paper1.md §2.5, R8).

* :class:`CPWL1D` -- the 1-D breakpoint form on [x_0, x_m]:
  f(x) = f(x_0) + s_0 (x - x_0) + sum_i Delta_i ReLU(x - x_i),  Delta_i = s_i - s_{i-1};
* :class:`DCFunction` -- difference of convex: f = max_j l_j - max_j l'_j with affine pieces on R^d;
* :class:`PiecewiseAffine1D` -- exact piece lists on an interval (sums, maxima, ranges, breakpoints),
  and :func:`network_pieces_1d` which writes every layer of a 1-D maxout network in that form.

``evaluate(x, ops=EXACT)`` is traceable (only ``+``, ``-``, constant multiples, ``ops`` decisions).

>>> f = CPWL1D(-3, 3, [0, 1], [1, 3, -1], value0=-5)     # O8: |x| - 2|x - 1| on [-3, 3]
>>> f.evaluate([0]), f.evaluate(["1/2"]), f.pieces[1]
((Fraction(-2, 1),), (Fraction(-1, 2),), (Fraction(0, 1), Fraction(1, 1), Fraction(3, 1), Fraction(-2, 1)))
>>> dc = f.dc_form(); [dc.evaluate([x]) == f.evaluate([x]) for x in (-3, 0, "1/3", 2)]
[True, True, True, True]
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.context import EXACT, Context
from ..arith.exact import fraction_str, parse_exact, plain
from ..arith.exact import is_list as _is_list
from ..errors import InputError, InputTypeError, SizeLimitError
from .maxout import MAX_INPUT_DIM, MaxoutNetwork, coerce_input

__all__ = ["CPWL1D", "DCFunction", "PiecewiseAffine1D", "network_pieces_1d", "MAX_BREAKPOINTS", "MAX_PIECES"]

MAX_BREAKPOINTS = 10_000
MAX_PIECES = 4096


def _scalar_input(x, field="x"):
    x = plain(x)
    if _is_list(x):
        if len(x) != 1:
            raise InputError(field, f"expected 1 coordinate, got {len(x)}")
        x = x[0]
    return coerce_input(x, f"{field}[0]")


class CPWL1D:
    """f on [x0, x_end] with interior breakpoints x_1 < ... < x_{m-1}, slopes s_0..s_{m-1}, f(x0) = value0.

    Attributes: ``x0``, ``x_end``, ``breakpoints``, ``slopes``, ``value0``, ``jumps`` (Delta_i),
    ``pieces`` (tuples (lo, hi, slope, intercept)), ``input_dim`` = 1.  At most 10^4 breakpoints.
    Outside [x0, x_end] :meth:`evaluate` returns the formula's affine extension.
    """

    input_dim = 1
    output_dim = 1

    def __init__(self, x0, x_end, breakpoints, slopes, value0=0):
        self.x0 = parse_exact(x0, "x0")
        self.x_end = parse_exact(x_end, "x_end")
        if not self.x0 < self.x_end:
            raise InputError("x_end", f"must be > x0 = {fraction_str(self.x0)}, got {fraction_str(self.x_end)}")
        breakpoints, slopes = plain(breakpoints), plain(slopes)
        if not _is_list(breakpoints):
            raise InputTypeError("breakpoints", "expected a list of numbers")
        if len(breakpoints) > MAX_BREAKPOINTS:
            raise SizeLimitError("breakpoints", f"{len(breakpoints)} exceed the limit {MAX_BREAKPOINTS}")
        bps = tuple(parse_exact(v, f"breakpoints[{i}]") for i, v in enumerate(breakpoints))
        prev = self.x0
        for i, b in enumerate(bps):
            if not prev < b:
                raise InputError(f"breakpoints[{i}]", f"must be increasing and inside ({fraction_str(self.x0)}, "
                                                      f"{fraction_str(self.x_end)}), got {fraction_str(b)}")
            prev = b
        if bps and not bps[-1] < self.x_end:
            raise InputError(f"breakpoints[{len(bps) - 1}]", f"must be < x_end = {fraction_str(self.x_end)}")
        if not _is_list(slopes) or len(slopes) != len(bps) + 1:
            raise InputError("slopes", f"expected {len(bps) + 1} slopes (one per piece), got "
                                       f"{len(slopes) if _is_list(slopes) else type(slopes).__name__}")
        self.breakpoints = bps
        self.slopes = tuple(parse_exact(v, f"slopes[{i}]") for i, v in enumerate(slopes))
        self.value0 = parse_exact(value0, "value0")
        self.jumps = tuple(self.slopes[i + 1] - self.slopes[i] for i in range(len(bps)))
        pieces = []
        ends = (self.x0,) + bps + (self.x_end,)
        v = self.value0
        for i, s in enumerate(self.slopes):
            lo, hi = ends[i], ends[i + 1]
            pieces.append((lo, hi, s, v - s * lo))
            v = v + s * (hi - lo)
        self.pieces = tuple(pieces)

    @property
    def box(self):
        return ((self.x0, self.x_end),)

    def evaluate(self, x, ops: Context = EXACT) -> tuple:
        """(f(x),) by the breakpoint formula, traceable."""
        t = _scalar_input(x)
        acc = (t - self.x0) * self.slopes[0] + self.value0 if self.slopes[0] != 0 else t * 0 + self.value0
        for xi, d in zip(self.breakpoints, self.jumps):
            if d != 0:
                acc = acc + ops.relu(t - xi) * d
        return (acc,)

    __call__ = evaluate

    def value_at(self, x) -> Fraction:
        """Exact f(x) from the piece list (x inside [x0, x_end])."""
        x = parse_exact(x, "x")
        if not self.x0 <= x <= self.x_end:
            raise InputError("x", f"must lie in [{fraction_str(self.x0)}, {fraction_str(self.x_end)}]")
        for lo, hi, a, c in self.pieces:
            if x <= hi:
                return a * x + c
        raise AssertionError("unreachable")

    def dc_form(self) -> "DCFunction":
        """f = g - h with g = affine + sum_{Delta_i > 0} Delta_i ReLU(x - x_i), h = sum_{Delta_i < 0} |Delta_i| ReLU(x - x_i),
        each written as the max of the affine extensions of its pieces (convex)."""
        s0, c0 = self.slopes[0], self.value0 - self.slopes[0] * self.x0
        g = _convex_pieces(s0, c0, [(xi, d) for xi, d in zip(self.breakpoints, self.jumps) if d > 0])
        h = _convex_pieces(Fraction(0), Fraction(0), [(xi, -d) for xi, d in zip(self.breakpoints, self.jumps) if d < 0])
        return DCFunction([((a,), c) for a, c in g], [((a,), c) for a, c in h])

    def to_pwl(self) -> "PiecewiseAffine1D":
        return PiecewiseAffine1D(self.pieces)

    def __repr__(self):
        return (f"CPWL1D([{fraction_str(self.x0)}, {fraction_str(self.x_end)}], breakpoints="
                f"{[fraction_str(b) for b in self.breakpoints]}, slopes={[fraction_str(s) for s in self.slopes]}, "
                f"value0={fraction_str(self.value0)})")


def _convex_pieces(slope, intercept, kinks):
    """Affine pieces (slope, intercept) of slope*x + intercept + sum d ReLU(x - xi) (d > 0), left to right."""
    pieces = [(slope, intercept)]
    for xi, d in sorted(kinks):
        slope, intercept = slope + d, intercept - d * xi
        pieces.append((slope, intercept))
    return pieces


class DCFunction:
    """f(x) = max_j (<w_j, x> + b_j) - max_j (<w'_j, x> + b'_j) on R^d.

    ``g_pieces`` / ``h_pieces``: lists of (w, b) with w a length-d vector.  At most 4096 pieces each.

    >>> f = DCFunction([([1], 0), ([-1], 0)], [([2], -2), ([-2], 2)])       # O8: |x| - 2|x - 1|
    >>> f.evaluate([3]), f.n_g, f.n_h, f.input_dim
    ((Fraction(-1, 1),), 2, 2, 1)
    """

    output_dim = 1

    def __init__(self, g_pieces, h_pieces):
        self.g_pieces = self._parse(g_pieces, "g_pieces", None)
        d = len(self.g_pieces[0][0])
        self.h_pieces = self._parse(h_pieces, "h_pieces", d)
        self.input_dim = d

    @staticmethod
    def _parse(pieces, field, d):
        pieces = plain(pieces)
        if not _is_list(pieces) or not pieces:
            raise InputTypeError(field, "expected a non-empty list of (w, b) pieces")
        if len(pieces) > MAX_PIECES:
            raise SizeLimitError(field, f"{len(pieces)} pieces exceed the limit {MAX_PIECES}")
        out = []
        for j, p in enumerate(pieces):
            if not _is_list(p) or len(p) != 2 or not _is_list(p[0]):
                raise InputTypeError(f"{field}[{j}]", "expected a pair (w, b) with w a list of numbers")
            w, b = p
            if d is None:
                d = len(w)
                if not 1 <= d <= MAX_INPUT_DIM:
                    raise InputError(f"{field}[{j}]", f"input dimension must be in [1, {MAX_INPUT_DIM}], got {d}")
            if len(w) != d:
                raise InputError(f"{field}[{j}]", f"expected a weight vector of length {d}, got {len(w)}")
            out.append((tuple(parse_exact(v, f"{field}[{j}][0][{m}]") for m, v in enumerate(w)),
                        parse_exact(b, f"{field}[{j}][1]")))
        return tuple(out)

    @property
    def n_g(self):
        return len(self.g_pieces)

    @property
    def n_h(self):
        return len(self.h_pieces)

    @property
    def pieces(self):
        return {"g": self.g_pieces, "h": self.h_pieces}

    def _x(self, x):
        x = plain(x)
        if not _is_list(x):
            raise InputTypeError("x", f"expected a sequence of {self.input_dim} numbers")
        if len(x) != self.input_dim:
            raise InputError("x", f"expected {self.input_dim} coordinates, got {len(x)}")
        return tuple(coerce_input(v, f"x[{m}]") for m, v in enumerate(x))

    def evaluate(self, x, ops: Context = EXACT) -> tuple:
        x = self._x(x)
        g = ops.max([ops.linear_combination(x, w, b) for w, b in self.g_pieces])
        h = ops.max([ops.linear_combination(x, w, b) for w, b in self.h_pieces])
        return (g - h,)

    __call__ = evaluate

    def sup_abs_piece(self, box) -> Fraction:
        """max over every piece of g and h of sup_box |piece| (exact: affine maps attain it at a vertex)."""
        S = Fraction(0)
        for w, b in self.g_pieces + self.h_pieces:
            lo = hi = b
            for c, (a, z) in zip(w, box):
                lo += min(c * a, c * z)
                hi += max(c * a, c * z)
            S = max(S, abs(lo), abs(hi))
        return S

    def __repr__(self):
        return f"DCFunction(d={self.input_dim}, n_g={self.n_g}, n_h={self.n_h})"


# ---------------------------------------------------------------------------------------------
# exact piece lists on an interval

def _envelope(lines, lo, hi):
    """Upper envelope of lines (a, c) on [lo, hi] as pieces (lo, hi, a, c)."""
    pts = {lo, hi}
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            a1, c1 = lines[i]
            a2, c2 = lines[j]
            if a1 != a2:
                t = (c2 - c1) / (a1 - a2)
                if lo < t < hi:
                    pts.add(t)
    pts = sorted(pts)
    out = []
    for u, v in zip(pts, pts[1:]):
        mid = (u + v) / 2
        a, c = max(lines, key=lambda ac: (ac[0] * mid + ac[1], ac[0]))
        out.append((u, v, a, c))
    return out


class PiecewiseAffine1D:
    """A continuous function on [lo, hi] given by contiguous pieces (lo_i, hi_i, a_i, c_i): f = a_i x + c_i.

    >>> f = PiecewiseAffine1D.affine(0, 1, 2, -1)
    >>> g = PiecewiseAffine1D.maximum([f, f.scale(-1)])
    >>> g.breakpoints(), g.range(), g(Fraction(1, 4))
    ([Fraction(1, 2)], (Fraction(0, 1), Fraction(1, 1)), Fraction(1, 2))
    """

    def __init__(self, pieces):
        self.pieces = tuple((Fraction(a), Fraction(b), Fraction(s), Fraction(c)) for a, b, s, c in pieces)

    @classmethod
    def affine(cls, lo, hi, a, c):
        return cls([(lo, hi, a, c)])

    @property
    def interval(self):
        return self.pieces[0][0], self.pieces[-1][1]

    def __call__(self, x) -> Fraction:
        for lo, hi, a, c in self.pieces:
            if x <= hi:
                return a * x + c
        return self.pieces[-1][2] * x + self.pieces[-1][3]

    def cuts(self):
        return [p[1] for p in self.pieces[:-1]]

    def simplify(self) -> "PiecewiseAffine1D":
        out = []
        for p in self.pieces:
            if out and out[-1][2] == p[2] and out[-1][3] == p[3]:
                out[-1] = (out[-1][0], p[1], p[2], p[3])
            else:
                out.append(p)
        return PiecewiseAffine1D(out)

    def breakpoints(self) -> list:
        """Interior points where the slope changes (after merging equal neighbours)."""
        return self.simplify().cuts()

    def n_pieces(self) -> int:
        return len(self.simplify().pieces)

    def range(self) -> tuple:
        """Exact (min, max) over the interval (attained at piece ends)."""
        vals = [a * x + c for lo, hi, a, c in self.pieces for x in (lo, hi)]
        return min(vals), max(vals)

    def refine(self, cuts) -> list:
        """Pieces split at the given interior points (linear time in pieces + cuts)."""
        import bisect

        cuts = sorted(set(cuts))
        out = []
        for lo, hi, a, c in self.pieces:
            start = lo
            i = bisect.bisect_right(cuts, lo)
            while i < len(cuts) and cuts[i] < hi:
                out.append((start, cuts[i], a, c))
                start = cuts[i]
                i += 1
            out.append((start, hi, a, c))
        return out

    def scale(self, k) -> "PiecewiseAffine1D":
        k = Fraction(k)
        return PiecewiseAffine1D([(lo, hi, a * k, c * k) for lo, hi, a, c in self.pieces])

    @staticmethod
    def _common(fs):
        cuts = sorted(set(t for f in fs for t in f.cuts()))
        return [f.refine(cuts) for f in fs]

    @classmethod
    def linear_combination(cls, fs, coeffs, const=0) -> "PiecewiseAffine1D":
        parts = cls._common(fs)
        out = []
        for idx in range(len(parts[0])):
            lo, hi = parts[0][idx][0], parts[0][idx][1]
            a = sum((Fraction(k) * p[idx][2] for k, p in zip(coeffs, parts)), Fraction(0))
            c = sum((Fraction(k) * p[idx][3] for k, p in zip(coeffs, parts)), Fraction(const))
            out.append((lo, hi, a, c))
        return cls(out).simplify()

    @classmethod
    def maximum(cls, fs) -> "PiecewiseAffine1D":
        parts = cls._common(fs)
        out = []
        for idx in range(len(parts[0])):
            lo, hi = parts[0][idx][0], parts[0][idx][1]
            out.extend(_envelope([(p[idx][2], p[idx][3]) for p in parts], lo, hi))
        return cls(out).simplify()


def network_pieces_1d(net: MaxoutNetwork, interval, max_pieces: int = 100_000) -> list:
    """Exact piece lists of every layer of a 1-D maxout network on ``interval`` = (lo, hi):
    ``[[x], [h^(1)_i], ..., [h^(L)_i], [outputs]]`` (each a list of :class:`PiecewiseAffine1D`)."""
    if net.input_dim != 1:
        raise InputError("net", f"needs input dimension 1, got {net.input_dim}")
    lo, hi = (Fraction(v) for v in interval)
    states = [[PiecewiseAffine1D.affine(lo, hi, 1, 0)]]
    for W, b in net.layers:
        prev = states[-1]
        units = []
        for Wi, bi in zip(W, b):
            pieces = [PiecewiseAffine1D.linear_combination(prev, w, bij) for w, bij in zip(Wi, bi)]
            u = PiecewiseAffine1D.maximum(pieces)
            if len(u.pieces) > max_pieces:
                raise SizeLimitError("net", f"more than {max_pieces} pieces in one unit")
            units.append(u)
        states.append(units)
    if net.readout:
        W, b = net.readout
        states.append([PiecewiseAffine1D.linear_combination(states[-1], row, bias) for row, bias in zip(W, b)])
    else:
        states.append(list(states[-1]))
    return states
