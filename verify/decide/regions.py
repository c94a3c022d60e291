"""Exact linear-region counting in input dimension 1 and 2: ``count_regions(f, box, kind)``.

Two notions (the paper's is [OPEN], docs/paper1.md §2.5):

* ``"activation"``: maximal sets on which every decision of the evaluation -- each argmax set of a
  maxout unit, each ReLU state, each hardmax selection -- is constant.  Given the earlier decisions,
  each decision is a system of affine (in)equalities, so these sets are convex: their number is the
  number of distinct activation patterns with non-empty interior.
* ``"pieces"``: maximal connected open sets on which f is affine (linear regions).  Adjacent cells
  (sharing an interval end in 1-D, an edge segment of positive length in 2-D) with the same affine
  map are merged.

Pieces <= activation regions always; they differ e.g. for max(2h, 2h) (one pattern, ties everywhere)
versus ``relu`` of something positive on the whole box (agree), or when two patterns give the same map
(``max(x, 0) + min(x, 0) = x``: two activation regions, one piece).

f may be a :class:`~verify.objects.maxout.MaxoutNetwork` (1-D: a dedicated exact breakpoint sweep;
2-D: staged tracing unit by unit), a compiled hardmax Transformer (``.transformer``, ``.embed``,
``.read``), a CPWL function (``evaluate(x, ops=...)``) or a callable ``f(x, ops)``.

Algorithm
---------
* 1-D maxout (:func:`maxout_values_1d`): the network is carried as its exact values at the breakpoints;
  layer by layer, a breakpoint is inserted wherever a unit's argmax set changes inside an interval (rank
  2: a strict sign change of the piece difference; rank k: the upper envelope resolved between all
  pairwise crossings).  Cost per layer: O(intervals x units x k^2).  Layers of 6 units or more run in
  matrix form (:func:`_matrix_sweep_1d`: one ``fmpz_mat`` product per layer over homogeneous integer
  rows, integer sign tests).  Pieces are maximal runs of equal slopes (:func:`pieces_from_values`).
* 2-D maxout (:func:`maxout_cells_2d`): polygons split unit by unit on exact vertex signs, all pieces of a
  layer from one integer ``fmpz_mat`` product per cell (maps over one positive scale), a rigorous float64
  filter (:class:`_FloatFilter`, explicit rounding bound) deciding the rank-2 units of a layer on a cell at
  once, an exact bounding-box test skipping most vertex evaluations of the rest; pieces by union-find across
  shared edges of positive length with equal maps (:func:`merge_pieces_2d`).  Networks of rank-2 units (ReLU) take
  :func:`_rank2_cells_2d`: the exact maps as residues modulo primes (one float64 product per cell, exact
  integers below 2^52), a float64 copy with its own rigorous error bound carried from layer to layer, exact
  CRT rows and homogeneous integer vertices only where the float filter cannot decide (docs/regions.md).
* Budgets (``max_regions``, ``time_budget``): the sweeps run on parts of the box, left to right, and stop
  with a partial result (docs/regions.md, count_regions).
* Anything else: the tracer (:func:`verify.decide.tracer.trace`, ``closed=False``), then the same merging.

Soundness
---------
Exact rational arithmetic throughout (``mpq``, ``fmpq``, integers over a positive scale) and the vertex
lemma of :mod:`verify.decide.geometry`: the count is exact, not a lower bound or an estimate (floats only
skip an exact test whose answer their rounding bound proves); docs/regions.md
describes both notions and their conventions.  The count is re-checked by the kernel
(:mod:`verify.kernel.regions`) when a claim module wraps it into a Result.  The 1-D activation count is the
number of intervals between breakpoints; the tracer's is the number of distinct patterns (equal, since
every activation region is convex).

Limits
------
Input dimension 1 or 2 (a maxout network: 1 to 6, d >= 3 by exact polyhedral cells, docs/regions.md "Polyhedral
cells in any dimension" and "Pieces in d >= 3") and a full-dimensional box (lo < hi on every side).  At most ``max_regions`` cells
(default and maximum ``MAX_REGIONS`` = 2,100,000, a 1-D tent up to L = 21): beyond it, and past a
``time_budget``, :func:`count_regions` returns a partial result (``complete`` False, no count); the sweep
functions themselves raise :class:`~verify.errors.SizeLimitError`.  There is no undecided answer: a function that is not piecewise
affine or not traceable raises the tracer's errors (:class:`~verify.decide.tracer.NotPiecewiseLinear`,
:class:`~verify.decide.tracer.UntraceableCode`).  ``maxout_cells_2d`` with an inexact context (the
float64 benchmark) returns counts that are not proofs.

>>> from verify.objects.maxout import MaxoutNetwork
>>> tent2 = MaxoutNetwork([([[[-2], [2]]], [[0, -2]]), ([[[2], [-2]]], [[0, -2]])])
>>> count_regions(tent2, [(0, 1)]).count
4
>>> same = MaxoutNetwork([([[[2], [2]]], [[0, 0]])])          # max(2x, 2x)
>>> count_regions(same, [(0, 1)], kind="activation").count
1
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Any

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat
from gmpy2 import mpq

from ..arith.exact import fraction_str, parse_box
from ..arith.context import FMPQ, MPQ, Context
from ..errors import InputError, SizeLimitError
from ..objects.maxout import MaxoutNetwork
from .geometry import Cell, box_cell, split_polygon, to_fraction, to_q
from .tracer import AffineForm, as_form, identity_forms, trace

__all__ = ["RegionCount", "count_regions", "maxout_breakpoints_1d", "breakpoint_certificate", "maxout_stages", "target_stages",
           "merge_pieces_1d", "maxout_cells_2d", "maxout_values_1d", "pieces_from_values", "prefix_counts_1d", "merge_pieces_2d", "KINDS", "MAX_REGIONS"]

KINDS = ("pieces", "activation")
MAX_REGIONS = 2_100_000        # 1-D tent L = 21; a larger request is refused (InputError)
MAX_TIME_BUDGET = 86_400.0     # seconds: the largest time_budget accepted (a day)


@dataclasses.dataclass
class RegionCount:
    """``count`` regions of ``kind`` on ``box``; ``regions``: per region its cells (intervals /
    polygons with exact vertices) and its affine map (per output ``[c0, c1, ..., cd]``, constant
    first).  ``activation_regions`` and ``pieces`` are both filled when they were computed."""

    kind: str
    count: int
    box: tuple
    dim: int
    regions: list
    activation_regions: int | None = None
    pieces: int | None = None
    cells: int | None = None
    method: str = ""
    partial: dict | None = None

    @property
    def complete(self) -> bool:
        """False when a budget (``max_regions``, ``time_budget``) ran out: then ``count``, ``activation_regions``
        and ``pieces`` are None and ``partial`` describes the part of the box that was swept."""
        return self.partial is None

    def to_dict(self, include_regions: bool = True) -> dict:
        out = {"kind": self.kind, "count": self.count, "box": [[lo, hi] for lo, hi in self.box], "dim": self.dim,
               "activation_regions": self.activation_regions, "pieces": self.pieces, "cells": self.cells,
               "method": self.method}
        if self.partial is not None:
            out["complete"] = False
            out["partial"] = self.partial
        if include_regions:
            out["regions"] = self.regions
        return out

    # -- display (exact numbers as p/q) ------------------------------------------------------------
    DISPLAY_REGIONS = 12

    def _box_text(self) -> str:
        from ..results import readable

        return " x ".join(f"[{readable(lo)}, {readable(hi)}]" for lo, hi in self.box)

    def _headline(self) -> str:
        extra = [f"{name} {v}" for name, v in (("activation regions", self.activation_regions),
                                                ("pieces", self.pieces), ("cells", self.cells))
                 if v is not None and name != self.kind]
        return (f"{self.count} {self.kind} on {self._box_text()} (d = {self.dim})"
                + (f"; {', '.join(extra)}" if extra else "") + (f"; {self.method}" if self.method else ""))

    def _region_rows(self) -> list:
        """(where, map) text per shown region: the interval or the number of polygons, and y = affine map."""
        from ..results import readable

        names = ["x"] if self.dim == 1 else [f"x_{i + 1}" for i in range(self.dim)]
        rows = []
        for reg in self.regions[: self.DISPLAY_REGIONS]:
            if "interval" in reg:
                where = f"[{readable(reg['interval'][0])}, {readable(reg['interval'][1])}]"
            else:
                cells = reg.get("cells", [])
                where = f"{len(cells)} polygon(s), {sum(len(c) for c in cells)} vertices"
            maps = []
            for out in reg.get("map") or []:
                terms = [n if c == 1 else f"-{n}" if c == -1 else f"{readable(c)}*{n}"
                         for c, n in zip(out[1:], names) if c != 0]
                if out[0] != 0 or not terms:
                    terms.append(readable(out[0]))
                maps.append(" + ".join(terms).replace("+ -", "- "))
            rows.append((where, "; ".join(maps)))
        return rows

    def __repr__(self) -> str:
        return f"RegionCount({self._headline()})"

    def _repr_markdown_(self) -> str:
        lines = [f"**RegionCount**: {self._headline()}", "", "| region | where | affine map |", "|---|---|---|"]
        lines += [f"| {i + 1} | {w} | {m} |" for i, (w, m) in enumerate(self._region_rows())]
        if len(self.regions) > self.DISPLAY_REGIONS:
            lines.append(f"| … | {len(self.regions) - self.DISPLAY_REGIONS} more | |")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(f"<tr><td>{i + 1}</td><td>{escape(w)}</td><td><code>{escape(m)}</code></td></tr>"
                       for i, (w, m) in enumerate(self._region_rows()))
        if len(self.regions) > self.DISPLAY_REGIONS:
            rows += f"<tr><td>&hellip;</td><td>{len(self.regions) - self.DISPLAY_REGIONS} more</td><td></td></tr>"
        return (f"<p><b>RegionCount</b>: {escape(self._headline())}</p><table><tr><th>region</th><th>where</th>"
                f"<th>affine map</th></tr>{rows}</table>")


# -- 1-D exact breakpoint sweep for maxout networks ------------------------------------------------

def maxout_values_1d(net, lo, hi, *, max_regions: int = MAX_REGIONS, after_layer=None, ctx: Context = MPQ,
                     deadline: float | None = None):
    """Exact breakpoints ``xs`` (lo = xs[0] < ... < xs[-1] = hi) of the activation cells of a 1-D maxout
    network and its output values ``Y[i]`` (a tuple per breakpoint), all ``mpq``.

    The network is continuous, so it is carried as its exact values at the breakpoints; in each layer a
    breakpoint is inserted where some unit's argmax set changes inside an interval (for rank 2: a strict
    sign change of the difference of the two pieces; rank k: the envelope is resolved between all pairwise
    crossings).  Consecutive intervals therefore differ in the activation pattern.
    ``after_layer(l, xs, V)`` (optional) is called after every layer with the hidden values (prefix counts).
    ``ctx`` is the arithmetic context whose ``convert`` gives the working numbers (exact ``mpq`` by default;
    the comparisons are the numbers' own, so only an exact context gives exact breakpoints).  With the exact
    default and a layer of at least ``_MATRIX_MIN_WIDTH`` units, the sweep runs in matrix form
    (:func:`_matrix_sweep_1d`: one exact ``fmpq_mat`` product per layer for all breakpoints, signs from the
    integer numerators); the breakpoints and values are the same exact numbers either way.  More than
    ``max_regions`` cells raise :class:`~verify.errors.SizeLimitError`; ``deadline`` (a ``time.monotonic()``
    value, used by :func:`count_regions`' ``time_budget``) raises the internal ``_TimeUp``."""
    import gc

    if net.input_dim != 1:
        raise InputError("network", f"the 1-D sweep needs input dimension 1, got {net.input_dim}")
    if ctx is MPQ and after_layer is None and _I64_SWEEP and max(net.widths) < _MATRIX_MIN_WIDTH:
        # narrow rank-2 networks (tents, zigzags): the int64 sweep instead of the scalar one (wider layers run
        # the fmpz_mat sweep, as fast there)
        try:
            X, H = _i64_sweep_1d(net, lo, hi, max_regions, deadline)
        except _Overflow:
            pass
        else:
            xs = [mpq(a, b) for a, b in X.tolist()]
            V = [tuple(mpq(v, r[-1]) for v in r[:-1]) for r in H.tolist()]
            if net.readout is not None:
                Wo = [tuple((m, mpq(_as_fraction(c))) for m, c in enumerate(row) if c) for row in net.readout[0]]
                V = _apply_readout(Wo, [mpq(_as_fraction(c)) for c in net.readout[1]], V)
            return xs, V
    if ctx is MPQ and max(net.widths) >= _MATRIX_MIN_WIDTH:
        cb = None
        if after_layer is not None:
            def cb(xs_, H_):
                after_layer(len(xs_), [_to_mpq(x) for x in xs_], _mpq_rows(H_))
        enabled = gc.isenabled()
        gc.disable()
        try:
            xs, H = _matrix_sweep_1d(net, lo, hi, max_regions, deadline, cb)
            if net.readout is not None:
                Wo, bo = net.readout
                m = len(bo)
                Mo, oden = _int_matrix([(Wo[i], bo[i]) for i in range(m)], len(Wo[0]))
                e = (H * Mo).entries()
                w = H.ncols()
                sc = H.entries()[w - 1::w]
                V = []
                for r in range(H.nrows()):
                    s_ = int(sc[r] * oden)
                    V.append(tuple(mpq(int(v), s_) for v in e[r * m:(r + 1) * m]))
            else:
                V = _mpq_rows(H)
            xs = [_to_mpq(x) for x in xs]
        finally:
            if enabled:
                gc.enable()
        return xs, V
    conv = ctx.convert
    xs = [conv(lo), conv(hi)]
    V = [(xs[0],), (xs[1],)]                      # unit values at the breakpoints
    enabled = gc.isenabled()
    gc.disable()
    try:
        for W, b in net.layers:
            if deadline is not None and time.monotonic() > deadline:
                raise _TimeUp()
            k = len(b[0])
            units = [[(tuple((m, conv(c)) for m, c in enumerate(w) if c), conv(bij)) for w, bij in zip(Wi, bi)]
                     for Wi, bi in zip(W, b)]
            if k == 2:
                xs, V = _layer_rank2(units, xs, V, max_regions, deadline)
            else:
                xs, V = _layer_rank_k(units, xs, V, max_regions, deadline)
            if after_layer is not None:
                after_layer(len(xs), xs, V)
    finally:
        if enabled:
            gc.enable()
    if net.readout is not None:
        Wo = [tuple((m, conv(c)) for m, c in enumerate(row) if c) for row in net.readout[0]]
        bo = [conv(c) for c in net.readout[1]]
        V = _apply_readout(Wo, bo, V)
    return xs, V


def _layer_rank2(units, xs, V, max_regions, deadline=None):
    U = []
    for (w0, b0), (w1, b1) in units:
        d0 = dict(w0)
        d1 = dict(w1)
        dw = tuple((m, d1.get(m, 0) - d0.get(m, 0)) for m in sorted(set(d0) | set(d1)) if d1.get(m, 0) != d0.get(m, 0))
        U.append((w0, b0, dw, b1 - b0))

    def apply(h):
        """(the differences piece 1 - piece 0 of every unit, the unit values max(piece 0, piece 1)) at h."""
        ds, hv = [], []
        for w0, b0, dw, db in U:
            p = b0
            for m, c in w0:
                p += c * h[m]
            d = db
            for m, c in dw:
                d += c * h[m]
            ds.append(d)
            hv.append(p + d if d > 0 else p)
        return ds, tuple(hv)

    D, H = [], []
    for h in V:
        ds, hv = apply(h)
        D.append(ds)
        H.append(hv)
    new_xs, new_V = [], []
    n = len(xs)
    nu = len(U)
    for i in range(n - 1):
        new_xs.append(xs[i])
        new_V.append(H[i])
        da_all, db_all = D[i], D[i + 1]
        ts = None
        for u in range(nu):
            da, db = da_all[u], db_all[u]
            if (da > 0 and db < 0) or (da < 0 and db > 0):
                t = da / (da - db)
                if ts is None:
                    ts = [t]
                elif t not in ts:
                    ts.append(t)
        if ts is not None:
            xa, xb = xs[i], xs[i + 1]
            ha, hb = V[i], V[i + 1]
            if len(ts) > 1:
                ts.sort()
            for t in ts:
                h = tuple(a + t * (bb - a) for a, bb in zip(ha, hb))
                new_xs.append(xa + t * (xb - xa))
                new_V.append(apply(h)[1])
        if len(new_xs) > max_regions:
            raise SizeLimitError("max_regions", f"more than {max_regions} cells")
        if deadline is not None and not i & 1023 and time.monotonic() > deadline:
            raise _TimeUp()
    new_xs.append(xs[-1])
    new_V.append(H[-1])
    return new_xs, new_V


def _argmax_changes(grid, ra, rb, half) -> list:
    """The grid points g0 (of consecutive g0 < g1) where the argmax set of the pieces a + t (b - a), read at the
    midpoint t = (g0 + g1) * half, changes from the previous interval's (exact arithmetic of the inputs' type)."""
    out, prev = [], None
    for g0, g1 in zip(grid, grid[1:]):
        tm = (g0 + g1) * half
        vals = [a + tm * (b - a) for a, b in zip(ra, rb)]
        top = max(vals)
        arg = tuple(j for j, v in enumerate(vals) if v == top)
        if prev is not None and arg != prev:
            out.append(g0)
        prev = arg
    return out


def _layer_rank_k(units, xs, V, max_regions, deadline=None):
    def pieces_at(h):
        out = []
        for pcs in units:
            row = []
            for sw, bij in pcs:
                v = bij
                for m, c in sw:
                    v += c * h[m]
                row.append(v)
            out.append(row)
        return out

    k = len(units[0])
    P = [pieces_at(h) for h in V]
    new_xs, new_V = [], []
    n = len(xs)
    for i in range(n):
        Pa = P[i]
        new_xs.append(xs[i])
        new_V.append(tuple(max(r) for r in Pa))
        if i == n - 1:
            break
        Pb = P[i + 1]
        ts = set()
        for ra, rb in zip(Pa, Pb):
            cand = set()
            for j in range(k):
                for j2 in range(j + 1, k):
                    da, db = ra[j2] - ra[j], rb[j2] - rb[j]
                    if (da > 0 and db < 0) or (da < 0 and db > 0):
                        cand.add(da / (da - db))
            if not cand:
                continue
            z = xs[0] * 0
            grid = [z] + sorted(cand) + [z + 1]
            ts.update(_argmax_changes(grid, ra, rb, 1 / (z + 2)))
        if ts:
            xa, xb = xs[i], xs[i + 1]
            ha, hb = V[i], V[i + 1]
            for t in sorted(ts):
                h = tuple(a + t * (bb - a) for a, bb in zip(ha, hb))
                new_xs.append(xa + t * (xb - xa))
                new_V.append(tuple(max(r) for r in pieces_at(h)))
        if len(new_xs) > max_regions + 1:
            raise SizeLimitError("max_regions", f"more than {max_regions} cells")
        if deadline is not None and not i & 1023 and time.monotonic() > deadline:
            raise _TimeUp()
    return new_xs, new_V


# -- 1-D exact sweep of rank-2 networks in machine integers (numpy int64, every bound checked) ---------------

_I64 = 2.0 ** 62               # every integer of the int64 sweep stays below this (checked before it is formed)
_I64_SWEEP = True              # tests switch it off to compare with the fmpz and scalar sweeps


class _Overflow(Exception):
    """Internal: a number of the int64 sweep could exceed 2^62 (the caller falls back to the fmpz sweep)."""


def _i64_matmul(A, B):
    """A @ B exactly in int64, after checking |A| @ |B| < 2^62 (in float64, a relative error below 1e-13)."""
    import numpy as np

    if A.size and B.size and (np.abs(A).astype(float) @ np.abs(B).astype(float)).max() >= _I64:
        raise _Overflow()
    return A @ B


def _i64_layers(net):
    """Per layer ``(M0, Md, den)``: int64 arrays (n_in + 1) x N of piece 0 and of piece 1 - piece 0 (weights,
    then the bias row) over the layer's least common denominator, or None (a rank other than 2, or an integer
    of 2^62 or more)."""
    import numpy as np
    from math import lcm

    out = []
    for W, b in net.layers:
        if len(b[0]) != 2:
            return None
        N, n_in = len(W), len(W[0][0])
        cols = [[_as_fraction(v) for v in (*W[u][j], b[u][j])] for u in range(N) for j in (0, 1)]
        den = lcm(*[v._denominator for c in cols for v in c])
        ints = [[v._numerator * (den // v._denominator) for v in c] for c in cols]
        M0 = [[ints[2 * u][m] for u in range(N)] for m in range(n_in + 1)]
        Md = [[ints[2 * u + 1][m] - ints[2 * u][m] for u in range(N)] for m in range(n_in + 1)]
        if den >= _I64 or max(abs(v) for r in M0 + Md for v in r) >= _I64:
            return None
        out.append((np.array(M0, dtype=np.int64), np.array(Md, dtype=np.int64), den))
    return out


def _i64_reduce(R):
    """Rows of homogeneous integers (last column > 0) divided by their gcd."""
    import numpy as np

    g = np.gcd.reduce(R, axis=1)
    return R // g[:, None]


def _i64_between(R, I, P, Q):
    """The points at t = P/Q (0 < t < 1) between rows I and I + 1 of the homogeneous rows R (last column the
    positive scale s): (Q - P) s_b R_a + P s_a R_b, divided by its gcd (the same rows as the fmpz sweep)."""
    import numpy as np

    sa, sb = R[I, -1], R[I + 1, -1]
    for f, g in ((Q - P, sb), (P, sa)):
        if (np.abs(f).astype(float) * np.abs(g).astype(float)).max(initial=0) >= _I64:
            raise _Overflow()
    ca, cb = (Q - P) * sb, P * sa
    Ra, Rb = R[I], R[I + 1]
    bound = np.abs(ca).astype(float) * np.abs(Ra).max(axis=1) + np.abs(cb).astype(float) * np.abs(Rb).max(axis=1)
    if bound.max(initial=0) >= _I64:
        raise _Overflow()
    return _i64_reduce(ca[:, None] * Ra + cb[:, None] * Rb)


def _i64_sweep_1d(net, lo, hi, max_regions, deadline=None, counts=None, readout=None):
    """:func:`maxout_values_1d` of a rank-2 network in numpy int64: the same exact breakpoints and values as the
    fmpz sweep (:func:`_matrix_sweep_1d`), as homogeneous integer rows, with every integer bounded below 2^62
    before it is formed (else ``_Overflow``: the caller runs the fmpz sweep).  Returns ``(X, H)``: the
    breakpoints as rows [numerator, denominator] and the last layer's rows [s h, s].

    ``counts`` (a list) receives ``(activation regions, pieces)`` of every prefix network (``readout`` = (W, b)
    applied after every layer, or none, as :func:`prefix_counts_1d`): the pieces from the exact slopes of the intervals, carried
    as integers over one common scale (a unit's piece on an open interval is the one that is maximal at both
    ends: no strict sign change is left), so runs of equal slopes are compared as integer rows."""
    import numpy as np

    layers = _i64_layers(net)
    if layers is None:
        raise _Overflow()
    lo, hi = Fraction(lo), Fraction(hi)
    d = lo.denominator * hi.denominator
    X = np.array([[lo.numerator * hi.denominator, d], [hi.numerator * lo.denominator, d]], dtype=np.int64)
    X = _i64_reduce(X)
    H = X.copy()
    G, ro = None, None
    if counts is not None:
        G = np.ones((1, 1), dtype=np.int64)                 # slopes dh/dx per interval, over a common scale
        if readout is not None:
            Wo, _ = readout
            fr = [_as_fraction(v) for row in Wo for v in row]
            from math import lcm

            oden = lcm(*[v._denominator for v in fr])
            ro = np.array([[v._numerator * (oden // v._denominator) for v in fr[i * len(Wo[0]):(i + 1) * len(Wo[0])]]
                           for i in range(len(Wo))], dtype=np.int64).T
            if oden >= _I64 or np.abs(ro).max() >= _I64:
                raise _Overflow()
    for M0, Md, den in layers:
        if deadline is not None and time.monotonic() > deadline:
            raise _TimeUp()
        n = len(H)
        Zd = _i64_matmul(H, Md)
        sg = np.sign(Zd)
        I, U = np.nonzero(sg[:-1] * sg[1:] < 0)
        if len(I):
            s = H[:, -1]
            pa, pb = Zd[I, U], Zd[I + 1, U]
            if (np.abs(np.concatenate((pa, pb))).astype(float) * float(np.abs(s).max())).max() >= _I64 / 2:
                raise _Overflow()
            P = pa * s[I + 1]
            Q = P - pb * s[I]
            neg = Q < 0
            P[neg], Q[neg] = -P[neg], -Q[neg]
            g = np.gcd(P, Q)
            P, Q = P // g, Q // g
            # several units crossing one interval: the distinct t = P/Q in increasing order (exact, in Python)
            many = np.nonzero(np.bincount(I, minlength=n - 1) > 1)[0]
            if len(many):
                multi = np.isin(I, many)
                keep = ~multi
                extra = []
                il, pl, ql = I[multi].tolist(), P[multi].tolist(), Q[multi].tolist()
                groups = {}
                for i_, p_, q_ in zip(il, pl, ql):
                    groups.setdefault(i_, set()).add(Fraction(p_, q_))
                for i_, ts in groups.items():
                    extra.extend((i_, t.numerator, t.denominator) for t in sorted(ts))
                E = np.array(extra, dtype=np.int64).reshape(-1, 3)
                I = np.concatenate((I[keep], E[:, 0]))
                P = np.concatenate((P[keep], E[:, 1]))
                Q = np.concatenate((Q[keep], E[:, 2]))
                order = np.argsort(I, kind="stable")
                I, P, Q = I[order], P[order], Q[order]
            n_new = len(I)
            if n + n_new - 1 > max_regions:
                raise SizeLimitError("max_regions", f"more than {max_regions} cells")
            Hn = _i64_between(H, I, P, Q)
            Xn = _i64_between(X, I, P, Q)
            pos_new = I + 1 + np.arange(n_new)
            pos_old = np.arange(n) + np.searchsorted(I, np.arange(n), side="left")
            m = n + n_new
            H2 = np.empty((m, H.shape[1]), dtype=np.int64)
            H2[pos_old], H2[pos_new] = H, Hn
            X2 = np.empty((m, 2), dtype=np.int64)
            X2[pos_old], X2[pos_new] = X, Xn
            Zd2 = np.empty((m, Zd.shape[1]), dtype=np.int64)
            Zd2[pos_old], Zd2[pos_new] = Zd, _i64_matmul(Hn, Md)
            is_old = np.zeros(m, dtype=bool)
            is_old[pos_old] = True
            H, X, Zd = H2, X2, Zd2
        else:
            is_old = None
        Z0 = _i64_matmul(H, M0)
        if (np.abs(Z0).astype(float) + np.abs(Zd).astype(float)).max() >= _I64 or \
                float(np.abs(H[:, -1]).max()) * den >= _I64:
            raise _Overflow()
        out = np.empty((len(H), Z0.shape[1] + 1), dtype=np.int64)
        out[:, :-1] = Z0 + np.maximum(Zd, 0)
        out[:, -1] = H[:, -1] * den
        H = _i64_reduce(out)
        if counts is not None:
            if is_old is not None:
                G = G[np.cumsum(is_old)[:-1] - 1]            # a new interval lies in an old one: its slopes
            one = (Zd[:-1] > 0) | (Zd[1:] > 0)              # piece 1 on the open interval
            A0 = M0[:-1]
            G = np.where(one, _i64_matmul(G, A0 + Md[:-1]), _i64_matmul(G, A0))
            Y = _i64_matmul(G, ro) if ro is not None else G
            pieces = 1 + int(np.count_nonzero((Y[1:] != Y[:-1]).any(axis=1)))
            counts.append((len(H) - 1, pieces))
    return X, H


# -- 1-D exact sweep, layer-wise matrix form ---------------------------------------------------------

_MATRIX_MIN_WIDTH = 6          # narrower networks (tents, zigzags) stay on the scalar sweep (faster there)


class _TimeUp(Exception):
    """Internal: the ``deadline`` of a budgeted sweep passed (count_regions turns it into a partial result)."""


def _fmpq(v, _F=Fraction):
    if type(v) is not _F:
        v = to_fraction(v)
    return fmpq(v.numerator, v.denominator)


def _to_mpq(v):
    return mpq(int(v.p), int(v.q))


def _int_matrix(cols, n_in, den=None):
    """Columns ``(weights, bias)`` as ONE ``fmpz_mat`` of shape (n_in + 1) x C over a common denominator ``den``
    (default: the least one; a positive scale common to every entry changes no sign and no ratio)."""
    from math import lcm

    F = Fraction
    fr = [v if type(v) is F else to_fraction(v) for w, bb in cols for v in (*w, bb)]
    # the private slots of Fraction: the public properties cost a Python call per entry
    if den is None:
        den = lcm(*[v._denominator for v in fr]) if fr else 1
    ints = [v._numerator * (den // v._denominator) for v in fr]
    C, w = len(cols), n_in + 1
    flat = [0] * (w * C)
    for c in range(C):
        flat[c::C] = ints[c * w:(c + 1) * w]
    return fmpz_mat(w, C, flat), den


def _layer_int_matrices(W, b, n_in):
    """The layer acting on homogeneous rows [s h, s] (s > 0) as integer matrices over one common denominator:
    rank 2, (piece 0, piece 1 - piece 0), N columns each; rank k, one matrix of the N k pieces (unit-major)."""
    from math import lcm

    N, k = len(W), len(b[0])
    if k == 2:
        c0 = [(Wi[0], bi[0]) for Wi, bi in zip(W, b)]
        c1 = [(Wi[1], bi[1]) for Wi, bi in zip(W, b)]
        F = Fraction
        den = lcm(*[(v if type(v) is F else to_fraction(v))._denominator
                    for cols in (c0, c1) for w, bb in cols for v in (*w, bb)])
        M0, _ = _int_matrix(c0, n_in, den)
        M1, _ = _int_matrix(c1, n_in, den)
        return (M0, M1 - M0), N, k, den
    cols = [(Wi[j], bi[j]) for Wi, bi in zip(W, b) for j in range(k)]
    M, den = _int_matrix(cols, n_in)
    return (M,), N, k, den


def _row_gcd_reduce(row):
    g = row[-1]
    for v in row:
        if g == 1:
            return row
        g = g.gcd(v)
    return [v // g for v in row] if g != 1 else row


def _matrix_sweep_1d(net, lo, hi, max_regions, deadline=None, after_layer=None):
    """:func:`maxout_values_1d` for exact numbers, one layer at a time as exact integer matrix products.

    Every breakpoint is a homogeneous integer row ``[s h, s]`` (s > 0) of the layer inputs h; the values of all
    pieces at all breakpoints are ONE ``fmpz_mat`` product per layer (rank 2: the first piece and the
    difference of the two), each row on its own positive scale, so signs are integer comparisons and the
    crossing of a unit between rows a and b is ``t = d_a s_b / (d_a s_b - d_b s_a)`` exactly.  A new
    breakpoint's row is ``(q - p) s_b H_a + p s_a H_b`` for t = p / q, divided by its content (gcd); the
    values at all points, old and new, come from a second product.  Returns ``(xs, H)``: the breakpoints
    (``fmpq``) and the last layer's homogeneous rows (an ``fmpz_mat``)."""
    Z0 = fmpz(0)
    one = fmpq(1)
    xs = [_fmpq(lo), _fmpq(hi)]
    H = fmpz_mat(2, 2, [xs[0].p * xs[1].q, xs[0].q * xs[1].q, xs[1].p * xs[0].q, xs[0].q * xs[1].q])
    n_in = 1
    for W, b in net.layers:
        if deadline is not None and time.monotonic() > deadline:
            raise _TimeUp()
        Ms, N, k, den = _layer_int_matrices(W, b, n_in)
        w = n_in + 1
        npts = len(xs)
        zs = [(H * M).entries() for M in Ms]
        hrow = H.entries()
        sc = hrow[n_in::w]                       # the row scales s_r
        new_pts = []                             # (index of the interval, [t, ...] sorted)
        total = npts
        if k == 2:
            zd = zs[1]
            for i in range(npts - 1):
                ra, rb = i * N, (i + 1) * N
                ts = None
                for u in range(N):
                    da, db = zd[ra + u], zd[rb + u]
                    if (da > Z0 and db < Z0) or (da < Z0 and db > Z0):
                        pa = da * sc[i + 1]
                        t = fmpq(pa, pa - db * sc[i])
                        if ts is None:
                            ts = [t]
                        elif t not in ts:
                            ts.append(t)
                if ts is not None:
                    if len(ts) > 1:
                        ts.sort()
                    new_pts.append((i, ts))
                    total += len(ts)
                    if total - 1 > max_regions:
                        raise SizeLimitError("max_regions", f"more than {max_regions} cells")
                if deadline is not None and not i & 1023 and time.monotonic() > deadline:
                    raise _TimeUp()
        else:
            z = zs[0]
            C = N * k
            half = fmpq(1, 2)
            for i in range(npts - 1):
                ra, rb = i * C, (i + 1) * C
                sa, sb = sc[i], sc[i + 1]
                ts = set()
                for u in range(N):
                    a = [v * sb for v in z[ra + u * k: ra + u * k + k]]      # both ends on the scale sa sb
                    bq = [v * sa for v in z[rb + u * k: rb + u * k + k]]
                    cand = set()
                    for j in range(k):
                        for j2 in range(j + 1, k):
                            da, db = a[j2] - a[j], bq[j2] - bq[j]
                            if (da > Z0 and db < Z0) or (da < Z0 and db > Z0):
                                cand.add(fmpq(da, da - db))
                    if not cand:
                        continue
                    grid = [fmpq(0)] + sorted(cand) + [one]
                    ts.update(_argmax_changes(grid, a, bq, half))
                if ts:
                    new_pts.append((i, sorted(ts)))
                    total += len(ts)
                    if total - 1 > max_regions:
                        raise SizeLimitError("max_regions", f"more than {max_regions} cells")
                if deadline is not None and not i & 1023 and time.monotonic() > deadline:
                    raise _TimeUp()
        if new_pts:
            # the new rows only: one product for all of them, then the rows merged in order
            fnew, snew, nxs = [], [], []
            for i, ts in new_pts:
                Ha, Hb = hrow[i * w:(i + 1) * w], hrow[(i + 1) * w:(i + 2) * w]
                sa, sb = sc[i], sc[i + 1]
                xa, xb = xs[i], xs[i + 1]
                for t in ts:
                    p, q = t.p, t.q
                    ca, cb = (q - p) * sb, p * sa
                    row = _row_gcd_reduce([ca * va + cb * vb for va, vb in zip(Ha, Hb)])
                    fnew.extend(row)
                    snew.append(row[-1])
                    nxs.append(xa + t * (xb - xa))
            n_new = len(snew)
            znew = [(fmpz_mat(n_new, w, fnew) * M).entries() for M in Ms]
            C = len(zs[0]) // npts
            mz = [[] for _ in zs]
            mx, ms = [], []
            prev_i = j = 0
            for i, ts in new_pts:
                mx.extend(xs[prev_i:i + 1])
                mx.extend(nxs[j:j + len(ts)])
                ms.extend(sc[prev_i:i + 1])
                ms.extend(snew[j:j + len(ts)])
                for zl, zo, zn in zip(mz, zs, znew):
                    zl.extend(zo[prev_i * C:(i + 1) * C])
                    zl.extend(zn[j * C:(j + len(ts)) * C])
                j += len(ts)
                prev_i = i + 1
            mx.extend(xs[prev_i:])
            ms.extend(sc[prev_i:])
            for zl, zo in zip(mz, zs):
                zl.extend(zo[prev_i * C:])
            xs, sc, zs = mx, ms, mz
        npts = len(xs)
        out = [None] * (npts * (N + 1))
        if k == 2:
            z0, zd = zs
            for r in range(npts):
                base, o = r * N, r * (N + 1)
                for u in range(N):
                    d = zd[base + u]
                    out[o + u] = z0[base + u] + d if d > Z0 else z0[base + u]
        else:
            z = zs[0]
            C = N * k
            for r in range(npts):
                base, o = r * C, r * (N + 1)
                for u in range(N):
                    out[o + u] = max(z[base + u * k: base + u * k + k])
        # the scale of row r is now s_r times the layer's common denominator
        for r in range(npts):
            out[r * (N + 1) + N] = sc[r] * den
        H = fmpz_mat(npts, N + 1, out)
        n_in = N
        if after_layer is not None:
            after_layer(xs, H)
    return xs, H


def _mpq_rows(H) -> list:
    """Homogeneous integer rows [s h, s] as tuples of ``mpq`` values h."""
    w = H.ncols()
    e = H.entries()
    out = []
    for r in range(H.nrows()):
        s_ = int(e[r * w + w - 1])
        out.append(tuple(mpq(int(v), s_) for v in e[r * w:(r + 1) * w - 1]))
    return out


def pieces_from_values(xs, Y) -> list:
    """Indices of the first interval of every maximal run of equal slopes (continuous f)."""
    starts = [0]
    for i in range(1, len(xs) - 1):
        dl, dr = xs[i] - xs[i - 1], xs[i + 1] - xs[i]
        for ya, yb, yc in zip(Y[i - 1], Y[i], Y[i + 1]):
            if (yc - yb) * dl != (yb - ya) * dr:
                starts.append(i)
                break
    return starts


def prefix_counts_1d(net, lo, hi, readout=None, *, max_regions: int = MAX_REGIONS) -> list:
    """[(activation regions, pieces)] of the networks made of the first l layers, l = 1..L, in ONE sweep.
    Pieces are those of the hidden units, or of ``readout`` = (W, b) applied after every prefix
    (e.g. the zigzag read-out, which has the same width at every layer)."""
    out = []
    if readout is not None:
        Wo = [tuple((m, to_q(Fraction(c))) for m, c in enumerate(row) if c) for row in readout[0]]
        bo = [to_q(Fraction(c)) for c in readout[1]]

    def record(_, xs, V):
        Y = _apply_readout(Wo, bo, V) if readout is not None else V
        out.append((len(xs) - 1, len(pieces_from_values(xs, Y))))

    if net.input_dim == 1:
        try:
            _i64_sweep_1d(net, lo, hi, max_regions, counts=out, readout=readout)
            return out
        except _Overflow:
            out.clear()
    maxout_values_1d(net, lo, hi, max_regions=max_regions, after_layer=record)
    return out


def maxout_breakpoints_1d(net, lo, hi, *, max_regions: int = MAX_REGIONS):
    """``(xs, maps)``: the breakpoints of :func:`maxout_values_1d` and per open interval the output maps
    as tuples of ``(slope, intercept)`` (mpq)."""
    xs, V = maxout_values_1d(net, lo, hi, max_regions=max_regions)
    return xs, _maps_1d(xs, V)


def _maps_1d(xs, V) -> list:
    """Per open interval the output maps ``(slope, intercept)`` of the breakpoint values."""
    maps = []
    for i in range(len(xs) - 1):
        dx = xs[i + 1] - xs[i]
        row = []
        for ya, yb in zip(V[i], V[i + 1]):
            sl = (yb - ya) / dx
            row.append((sl, ya - sl * xs[i]))
        maps.append(tuple(row))
    return maps


def breakpoint_certificate(xs):
    """The breakpoints ``xs`` as a certificate entry: ``{"grid": den}`` when they are the uniform grid of
    [xs[0], xs[-1]] with den steps, else the list of exact strings.

    >>> breakpoint_certificate([0, Fraction(1, 2), 1]), breakpoint_certificate([0, Fraction(1, 3), 1])
    ({'grid': 2}, ['0', '1/3', '1'])
    """
    xs = [Fraction(to_fraction(x)) for x in xs]
    den = len(xs) - 1
    lo, hi = xs[0], xs[-1]
    if den >= 1 and all(x == lo + (hi - lo) * Fraction(i, den) for i, x in enumerate(xs)):
        return {"grid": den}
    return [fraction_str(x) for x in xs]


def breakpoints_certificate_1d(net, lo, hi, *, max_regions: int = MAX_REGIONS):
    """``breakpoint_certificate(maxout_values_1d(net, lo, hi)[0])``, the same entry, without forming the
    values: for a narrow rank-2 network the int64 sweep's breakpoint rows [p, q] are tested against the
    uniform grid in integers, p (b e n) == q (a e n + c b i) for lo = a/b, hi - lo = c/e and n steps (else
    the exact sweep and :func:`breakpoint_certificate`).

    >>> from verify.objects.maxout import MaxoutNetwork
    >>> tent = MaxoutNetwork.from_dict({"layers": [{"W": [[[2], [-2]]], "b": [[0, 2]]}]})
    >>> breakpoints_certificate_1d(tent, 0, 1), breakpoints_certificate_1d(tent, 0, Fraction(3, 2))
    ({'grid': 2}, ['0', '1/2', '3/2'])
    """
    if net.input_dim == 1 and _I64_SWEEP and max(net.widths) < _MATRIX_MIN_WIDTH:
        try:
            X, _ = _i64_sweep_1d(net, lo, hi, max_regions)
        except _Overflow:
            pass
        else:
            rows = X.tolist()
            n = len(rows) - 1
            lo_q, w = Fraction(lo), Fraction(hi) - Fraction(lo)
            a, b, c, e = lo_q.numerator, lo_q.denominator, w.numerator, w.denominator
            scale, base = b * e * n, a * e * n
            if n >= 1 and all(p * scale == q * (base + c * b * i) for i, (p, q) in enumerate(rows)):
                return {"grid": n}
            return [fraction_str(Fraction(p, q)) for p, q in rows]
    return breakpoint_certificate(maxout_values_1d(net, lo, hi, max_regions=max_regions)[0])


def _apply_readout(Wo, bo, V) -> list:
    """Sparse affine read-out (rows of (index, coefficient) pairs, biases) applied to every value vector."""
    Y = []
    for h in V:
        ys = []
        for row, bb in zip(Wo, bo):
            v = bb
            for m, c in row:
                v += c * h[m]
            ys.append(v)
        Y.append(tuple(ys))
    return Y


def merge_pieces_1d(maps) -> list:
    """Indices of the first interval of every maximal run with the same affine map
    (``maps[i]`` is the map on the i-th interval, left to right).

    >>> merge_pieces_1d(["a", "a", "b", "a"])
    [0, 2, 3]
    """
    starts = [0]
    for i in range(1, len(maps)):
        if maps[i] != maps[i - 1]:
            starts.append(i)
    return starts


# -- 2-D layer-wise sweep for maxout networks ---------------------------------------------------------

def _split_poly(vs, a, b, c):
    """Open parts (a x + b y + c > 0, < 0) of a convex CCW polygon on which the form changes sign."""
    pos, neg, _ = split_polygon(vs, [a * x + b * y + c for x, y in vs])
    return pos, neg


def _area2(vs):
    n = len(vs)
    if n < 3:
        return 0
    return sum(vs[i][0] * vs[(i + 1) % n][1] - vs[(i + 1) % n][0] * vs[i][1] for i in range(n))


def _as_fraction(v, _F=Fraction):
    return v if type(v) is _F else to_fraction(v)


_U = 2.0 ** -53                  # unit roundoff of float64


class _FloatFilter:
    """Rigorous float64 sign filter for the rank-2 units of one layer on a cell (:func:`maxout_cells_2d`).

    For the difference of the two pieces of unit i, s_i(v) = dw_i . (H v) + db_i at a vertex v (H: the cell's
    exact affine map of the layer's inputs, v = (x1, x2, 1)), it computes s~ = fl(fl(dw~ H~) v~ + db~) with
    numpy (dw, db, v rounded to nearest: Fraction and int / int true division are correctly rounded; H, kept
    as integers over a scale, with three roundings: the integer, the scale, the quotient) and the bound
    B = 2 gamma_K (|dw~| |H~| |v~| + |db~|) + 1e-290, gamma_K = K u / (1 - K u), K = n_in + 12: every
    term of s is a product of rounded inputs passing through at most n_in + 10 roundings (any summation
    order, with or without FMA), so |s~ - s| <= gamma_K T with T the sum of the absolute terms; the factor 2
    covers T's own rounding and the absolute term underflow.  A unit is decided when s~ > B at every vertex
    (s > 0 on the closed cell: piece 1 wins) or s~ < -B at every vertex (piece 0 wins); anything else
    (near zero, a sign change, an overflow giving inf or nan) is left to the exact tests."""

    __slots__ = ("dw", "db", "adw", "adb", "g")

    def __init__(self, W, b, n_in):
        import numpy as np

        self.dw = np.array([[float(_as_fraction(Wi[1][m]) - _as_fraction(Wi[0][m])) for m in range(n_in)]
                            for Wi in W])
        self.db = np.array([float(_as_fraction(bi[1]) - _as_fraction(bi[0])) for bi in b])
        self.adw, self.adb = np.abs(self.dw), np.abs(self.db)
        K = n_in + 12
        self.g = 2 * K * _U / (1 - K * _U)

    def decide(self, Hm, vs):
        """Per unit +1 / -1 (decided on the closed cell) or 0 (undecided), as a list."""
        import numpy as np

        try:
            Hi, sc_ = Hm                  # integer maps over a positive scale
            Hf = np.array([int(e) for e in Hi.entries()], dtype=float).reshape(-1, 3) / float(int(sc_))
            Vf = np.array([[int(x.p) / int(x.q), int(y.p) / int(y.q), 1.0] for x, y in vs])
        except OverflowError:
            return None
        with np.errstate(all="ignore"):
            A = self.dw @ Hf
            A[:, 2] += self.db
            T = self.adw @ np.abs(Hf)
            T[:, 2] += self.adb
            S = A @ Vf.T
            B = self.g * (T @ np.abs(Vf).T) + 1e-290
            pos = (S > B).all(axis=1)
            neg = (S < -B).all(axis=1)
        return (pos.astype(np.int8) - neg.astype(np.int8)).tolist()



# -- 2-D rank-2 sweep: exact maps as residues, a carried float copy with its own error bound -------------

_RNS_MAX_BITS = 22               # primes below 2^22 at most
_RNS_MIN_BITS = 10               # weights too large for primes of 10 bits: the fmpz_mat sweep
_RNS_MAX_PRIMES = 200            # maps beyond ~2,000 bits: the fmpz_mat sweep
_RNS_PRIMES: dict = {}
_CHUNK = 256                     # cells whose float work is done in one batch


def _rns_primes(r, bits):
    """The ``r`` largest primes below 2^bits, largest first (deterministic)."""
    ps = _RNS_PRIMES.setdefault(bits, [])
    n = ps[-1] if ps else (1 << bits) + 1
    while len(ps) < r and n > 3:
        n -= 2
        if fmpz(n).is_prime():
            ps.append(n)
    return ps[:r]


class _Rns:
    """Residue number system of ``r`` primes: exact integers |x| < P/2 held as residues in [0, p); a matrix
    of them is a float64 array with 3 columns per prime (column 3 i + c: column c modulo prime i)."""

    __slots__ = ("p", "P", "half", "coef", "pi", "r", "coefl")

    def __init__(self, r, bits):
        import numpy as np

        self.p = _rns_primes(r, bits)
        self.r = r
        P = 1
        for q in self.p:
            P *= q
        self.P, self.half = P, P // 2
        self.coefl = [(P // q) * pow(P // q, -1, q) for q in self.p]                               # CRT basis
        self.coef = np.array(self.coefl, dtype=object)
        self.pi = np.repeat(np.array(self.p, dtype=np.int64), 3)

    def row3(self, ints):
        """Residues of three Python ints (one matrix row), length 3 r."""
        return [float(v % q) for q in self.p for v in ints]

    def reduce(self, R):
        """R (integers of absolute value < 2^52 as float64, ... x 3 r) modulo the primes, exactly."""
        return (R.astype("int64") % self.pi).astype(float)

    def values(self, res):
        """The integers |x| < P/2 with residues ``res`` (float64 array ... x 3 r): a flat list, entries in
        row-major order (CRT: sum of residue times basis, modulo P, centred)."""
        import numpy as np

        r = self.r
        flat = res.reshape(-1, r, 3).transpose(0, 2, 1).reshape(-1, r).astype(np.int64).astype(object)
        P, half = self.P, self.half
        return [x - P if x > half else x for x in ((flat @ self.coef) % P).tolist()]

    def row_values(self, res):
        """:meth:`values` of ONE row of three integers (``res``: length 3 r), in Python integers."""
        from operator import mul

        lres = res.astype("int64").tolist()
        coef, P, half = self.coefl, self.P, self.half
        out = []
        for c in (0, 1, 2):
            x = sum(map(mul, lres[c::3], coef)) % P
            out.append(x - P if x > half else x)
        return out


def _rank2_plan(net):
    """Per-layer data of the residue sweep, or None when the network is not for it (a rank other than 2, a
    weight or piece difference that does not round to a normal float64, maps too large for the primes)."""
    import numpy as np
    from math import lcm

    layers, M, s = [], 1, 1                # M bounds |Hint| entrywise; s: the scale of the layer's inputs
    Mmax, wb = 1, 0                        # wb: bits of (inputs + 1) x the largest integer weight or bias, + 1
    lo_ok, hi_ok, big = 2.0 ** -1000, 2.0 ** 1000, 2 ** 52

    def normal(A, fden):
        # A: exact integers (as floats); every non-zero A / den must round to a normal float64 (|x - x~| <= u |x|)
        aa = np.abs(A / fden)
        return bool(np.all((A == 0) | ((aa >= lo_ok) & (aa <= hi_ok))))

    for W, b in net.layers:
        N, n_in = len(W), len(W[0][0])
        if len(b[0]) != 2:
            return None
        fr = [_as_fraction(c) for Wi in W for wj in Wi for c in wj] + [_as_fraction(c) for bi in b for c in bi]
        den = lcm(*[c._denominator for c in fr])
        ints = [c._numerator * (den // c._denominator) for c in fr]
        nw = 2 * N * n_in
        if den >= big or max(map(abs, ints), default=0) >= big:
            return None
        wint = np.array(ints[:nw], dtype=float).reshape(N, 2, n_in)        # exact: integers below 2^52
        bint = np.array(ints[nw:], dtype=float).reshape(N, 2)
        nzp = (wint != 0).any(axis=2) | (bint != 0)                          # non-zero pieces
        rows = [(i, j) for i in range(N) for j in (0, 1) if nzp[i, j]]
        Z = len(rows)
        idx = [[0, 0] for _ in range(N)]
        for q, (i, j) in enumerate(rows):
            idx[i][j] = q
        for i in range(N):
            for j in (0, 1):
                if not nzp[i, j]:
                    idx[i][j] = Z
        ri = [i for i, _ in rows]
        rj = [j for _, j in rows]
        Wi = np.zeros((Z, n_in + 1))
        Wi[:, :n_in] = wint[ri, rj]
        Wi[:, n_in] = bint[ri, rj]
        dWi = np.empty((N, n_in + 1))
        dWi[:, :n_in] = wint[:, 1] - wint[:, 0]                             # exact: integers below 2^53
        dWi[:, n_in] = bint[:, 1] - bint[:, 0]
        fden = float(den)
        if not (normal(Wi, fden) and normal(dWi, fden)):
            return None
        amax = float(np.abs(Wi).max()) if Z else 0.0
        wb = max(wb, (int((n_in + 1) * amax) + 1).bit_length())
        rowsum = int(np.abs(Wi[:, :n_in]).sum(axis=1).max()) if Z else 0         # exact: integers below 2^53
        bmax = int(np.abs(Wi[:, n_in]).max()) if Z else 0
        zero0 = all(idx[i][0] == Z for i in range(N))
        layers.append(dict(N=N, n_in=n_in, den=fden, Z=Z, i0=[r[0] for r in idx], i1=[r[1] for r in idx],
                           Wi=Wi, aWi=np.abs(Wi), zero0=zero0, dWi=dWi, adWi=np.abs(dWi), s=s,
                           W2=np.vstack((Wi, np.abs(Wi)))))
        M = rowsum * M + bmax * s
        Mmax = max(Mmax, M)
        s *= den
    if net.readout is not None:
        Wo, bo = net.readout
        m = len(bo)
        fr = [_as_fraction(c) for row in Wo for c in row] + [_as_fraction(c) for c in bo]
        oden = lcm(*[c._denominator for c in fr])
        ints = [c._numerator * (oden // c._denominator) for c in fr]
        n = len(Wo[0])
        Woint = [ints[i * n:(i + 1) * n] + [ints[m * n + i]] for i in range(m)]
    else:
        m = net.widths[-1]
        oden, Woint = 1, [[int(i == j) for j in range(m)] + [0] for i in range(m)]
    amax = max(abs(c) for row in Woint for c in row)
    if amax >= big:
        return None
    wb = max(wb, (len(Woint[0]) * amax + 1).bit_length())
    Mout = max(sum(abs(c) for c in r[:-1]) for r in Woint) * M + max(abs(r[-1]) for r in Woint) * s
    # the products sum_j Wint_ij res_j (res < p < 2^bits, the bias as one more input of residue s mod p)
    # stay below 2^52 in absolute value: every partial sum of the float64 product is an exact integer
    bits = min(_RNS_MAX_BITS, 52 - wb)
    if bits < _RNS_MIN_BITS:
        return None
    bound = 4 * max(Mmax, Mout) + 2                   # differences of two maps, centred residues
    ps = _rns_primes(_RNS_MAX_PRIMES, bits)
    r, P = 0, 1
    while P <= bound:
        if r == len(ps):
            return None
        P *= ps[r]
        r += 1
    rns = _Rns(r, bits)
    for L, nxt in zip(layers, layers[1:] + [None]):
        s_next = nxt["s"] if nxt is not None else s
        # the constant input row of the next layer: residues (0, 0, s mod p) per prime, then the float (0, 0, 1)
        # (then the error bound (0, 0, 0) and the absolute value (0, 0, 1))
        L["const"] = np.array(rns.row3([0, 0, s_next]) + [0.0, 0.0, 1.0] + [0.0] * 5 + [1.0])
    first = np.array([rns.row3([1, 0, 0]) + [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
                      rns.row3([0, 1, 0]) + [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
                      rns.row3([0, 0, 1]) + [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]])
    out = dict(m=m, den=s * oden, Wo=np.array(Woint, dtype=float))
    return rns, layers, out, first


def _vertex_float(X, Y, Z):
    """(x, y, 1) rounded to nearest (int / int true division is correctly rounded), or None out of the
    normal range (then the float filter decides nothing on the polygon)."""
    try:
        x, y = X / Z, Y / Z
    except OverflowError:
        return None
    if (x and not 1e-300 < abs(x) < 1e300) or (y and not 1e-300 < abs(y) < 1e300):
        return None
    return (x, y, 1.0)


def _rank2_cells_2d(plan, box, max_regions, deadline, vertex=Fraction):
    """:func:`maxout_cells_2d` for networks of rank-2 units (ReLU, rank-2 maxout) in exact arithmetic.

    Algorithm
    ---------
    A cell carries one float64 array G with a row per input of the layer plus a constant row: (a) its exact
    affine maps as integers over the layer's scale, held as residues modulo ``r`` primes (``r`` from an
    a-priori bound on every map entry, so that each integer is the unique one of its residues in
    (-P/2, P/2)); (b) a float64 copy Hf of the maps; beside it an array with an entrywise bound E >= |Hf - H|
    and |Hf|.  The maps of all pieces (residues and float copy) are ONE float64 product [W | b] G, exact in
    the residue columns because every partial sum is an integer below 2^52.  A unit is decided on a polygon
    when its rounded piece difference at every vertex exceeds a rigorous error bound in one sign;
    otherwise its exact row is recovered from the residues (CRT) and tested, and split on, with integer
    arithmetic on homogeneous vertices (X, Y, Z), Z > 0.

    Soundness
    ---------
    Exact cells, patterns and maps (the same as the fmpz_mat sweep, in the same order): floats only skip an
    exact test whose answer their bound proves (docs/regions.md, "2-D sweep of rank-2 networks").

    Limits
    ------
    Rank-2 units, weights that round to normal float64 numbers, integer weights small enough for primes of
    at least 10 bits (:func:`_rank2_plan`; otherwise the fmpz_mat sweep runs)."""
    import numpy as np
    from math import gcd

    from operator import getitem, itemgetter

    first = itemgetter(0)
    rns, layers, outp, G0 = plan
    u_ = _U
    r3 = 3 * rns.r
    (x0, x1), (y0, y1) = [(Fraction(lo), Fraction(hi)) for lo, hi in box]

    def hom(x, y):
        d = x.denominator * y.denominator // gcd(x.denominator, y.denominator)
        return (x.numerator * (d // x.denominator), y.numerator * (d // y.denominator), d)

    verts0 = [hom(x0, y0), hom(x1, y0), hom(x1, y1), hom(x0, y1)]
    # a cell's array G: per input row, the residues (3 r), the float copy (3), its error bound (3), |copy| (3)
    cells = [(tuple(verts0), [_vertex_float(*v) for v in verts0], G0, ())]
    cF, cE, cA = r3, r3 + 3, r3 + 6
    ONE, ZERO, TIE = (1,), (0,), (0, 1)
    TUP = {1: ONE, -1: ZERO}
    c16 = 16 * u_
    for L in layers:
        N, n_in, Z = L["N"], L["n_in"], L["Z"]
        Kg = 4 * (n_in + 5) * u_
        i0, i1, zero0, dWi, adWi = L["i0"], L["i1"], L["zero0"], L["dWi"], L["adWi"]
        W2, fden, pi = L["W2"], L["den"], rns.pi
        k1, k2 = (1 + Kg) / fden, Kg / fden        # their own roundings are inside Kg's slack
        pairs = list(zip(i0, i1))                   # the row of piece 0 / piece 1 of every unit
        new_cells = []
        for ci, (vs, vf, G, pat) in enumerate(cells):
            if deadline is not None and not ci & 63 and time.monotonic() > deadline:
                raise _TimeUp()
            j = ci % _CHUNK
            if j == 0:
                # a chunk of cells at once (the float work of a cell does not depend on the others)
                chunk = cells[ci:ci + _CHUNK]
                k = len(chunk)
                Gs = np.stack([c[2] for c in chunk])
                # ONE product: [W | b] on the residues and the float copy, |[W | b]| on the bound and |copy|
                X = np.matmul(W2, Gs)
                Cs = np.empty((k, Z + 2, r3 + 9))
                Cs[:, Z] = 0.0
                Cs[:, Z + 1] = L["const"]
                Cs[:, :Z, :r3] = X[:, :Z, :r3].astype(np.int64) % pi
                Af = Cs[:, :Z, cF:cE]
                np.divide(X[:, :Z, cF:cE], fden, out=Af)
                # error bound of the float copy (docs/regions.md, "2-D sweep of rank-2 networks")
                Ea = Cs[:, :Z, cE:cA]
                np.multiply(X[:, Z:, cE:cA], k1, out=Ea)
                Ea += X[:, Z:, cA:] * k2
                Ea += 1e-290
                np.abs(Af, out=Cs[:, :Z, cA:])
                if zero0:
                    Dc = Cs[:, i1]
                    Df, ED = Dc[:, :, cF:cE], Dc[:, :, cE:cA]
                else:
                    Df = np.matmul(dWi, Gs[:, :, cF:cE]) / fden
                    Yd = np.matmul(adWi, Gs[:, :, cE:])
                    ED = ((1 + Kg) * Yd[:, :, :3] + Kg * Yd[:, :, 3:]) / fden + 1e-290
                DCs = np.concatenate((Df, (1 + c16) * ED + c16 * np.abs(Df)), axis=1)
                # the filter on every cell of the chunk: vertices padded by repeating the first one
                nvm = max(len(c[1]) for c in chunk)
                bad = [None in c[1] for c in chunk]
                Vl = []
                for c, bd in zip(chunk, bad):
                    v = [(0.0, 0.0, 1.0)] * nvm if bd else c[1] + [c[1][0]] * (nvm - len(c[1]))
                    Vl.append(v + [(abs(x), abs(y), 1.0) for x, y, _ in v])
                Mx = np.matmul(DCs, np.array(Vl).transpose(0, 2, 1))
                S, B = Mx[:, :N, :nvm], Mx[:, N:, nvm:]
                decs = ((S > B).all(axis=2).view(np.int8) - (S < -B).all(axis=2).view(np.int8)).tolist()
                for jj, bd in enumerate(bad):
                    if bd:
                        decs[jj] = [0] * N
            C, DC = Cs[j], DCs[j]

            def filt(vf_):
                if None in vf_:
                    return [0] * N
                nv = len(vf_)
                M = DC @ np.array(vf_ + [(abs(x), abs(y), 1.0) for x, y, _ in vf_]).T
                S, B = M[:N, :nv], M[N:, nv:]
                return ((S > B).all(axis=1).view(np.int8) - (S < -B).all(axis=1).view(np.int8)).tolist()

            dec = decs[j]
            stack = [(vs, vf, (), dec)]
            while stack:
                cv, cvf, chosen, dec = stack.pop()
                u0 = len(chosen)
                try:
                    u = dec.index(0, u0)
                except ValueError:
                    u = N
                if u > u0:
                    chosen = chosen + tuple(map(TUP.__getitem__, dec[u0:u]))
                if u == N:
                    rows = list(map(getitem, pairs, map(first, chosen)))
                    rows.append(Z + 1)
                    new_cells.append((cv, cvf, C[rows], pat + chosen))
                    continue
                # the exact test of unit u: its piece difference (integers on the scale s * den) at the vertices
                a1, a0 = i1[u], i0[u]
                da, db, dc = rns.row_values(C[a1, :r3])
                if a0 != Z:
                    e0 = rns.row_values(C[a0, :r3])
                    da, db, dc = da - e0[0], db - e0[1], dc - e0[2]
                vals = [da * X_ + db * Y_ + dc * W_ for X_, Y_, W_ in cv]
                pos = any(v > 0 for v in vals)
                neg = any(v < 0 for v in vals)
                if pos and neg:
                    p_part, n_part, pf, nf = [], [], [], []
                    n = len(cv)
                    for i in range(n):
                        p, fp = cv[i], vals[i]
                        j = (i + 1) % n
                        q, fq = cv[j], vals[j]
                        if fp >= 0:
                            p_part.append(p)
                            pf.append(cvf[i])
                        if fp <= 0:
                            n_part.append(p)
                            nf.append(cvf[i])
                        if (fp > 0 and fq < 0) or (fp < 0 and fq > 0):
                            lq, lp = (fq if fq > 0 else -fq), (fp if fp > 0 else -fp)
                            X_ = lq * p[0] + lp * q[0]
                            Y_ = lq * p[1] + lp * q[1]
                            W_ = lq * p[2] + lp * q[2]
                            g = gcd(X_, Y_, W_)
                            if g > 1:
                                X_, Y_, W_ = X_ // g, Y_ // g, W_ // g
                            rv = (X_, Y_, W_)
                            rf = _vertex_float(X_, Y_, W_)
                            p_part.append(rv)
                            n_part.append(rv)
                            pf.append(rf)
                            nf.append(rf)
                    # the parts: piece 0 wins on the closed negative part, piece 1 on the positive one;
                    # units after u are filtered again on each part (smaller polygons decide more)
                    rest = 0 in dec[u + 1:]
                    nd = [d or e for d, e in zip(dec, filt(nf))] if rest else dec
                    pd = [d or e for d, e in zip(dec, filt(pf))] if rest else dec
                    stack.append((tuple(n_part), nf, chosen + (ZERO,), nd))
                    stack.append((tuple(p_part), pf, chosen + (ONE,), pd))
                    continue
                stack.append((cv, cvf, chosen + (ONE if pos else (ZERO if neg else TIE),), dec))
            if len(new_cells) > max_regions:
                raise SizeLimitError("max_regions", f"more than {max_regions} cells")
        cells = new_cells
    m, den, Wo = outp["m"], outp["den"], outp["Wo"]
    if not cells:
        return []
    Gs = np.stack([G[:, :r3] for _, _, G, _ in cells])
    vals = rns.values(rns.reduce(np.matmul(Wo, Gs)))          # cells x m x 3 integers on the scale den
    out = []
    for ci, (vs, _, _, pat) in enumerate(cells):
        b0 = 3 * m * ci
        maps = tuple(tuple(Fraction(vals[b0 + 3 * i + c], den) for c in range(3)) for i in range(m))
        verts = tuple((vertex(X_, W_), vertex(Y_, W_)) for X_, Y_, W_ in vs)
        out.append((verts, pat, maps))
    return out


def _int_layer_2d(W, b, n_in, keep_zero=False):
    """A layer's pieces as integer matrices over their common denominator: (Wm (N k) x n_in, Bm (N k) x 3 with
    the biases in the last column, the denominator, the rows kept or None for all, the number of rows).
    Identically zero pieces are left out unless ``keep_zero``."""
    from math import lcm

    F = Fraction
    ws = [v if type(v) is F else to_fraction(v) for Wi in W for w in Wi for v in w]
    bs = [v if type(v) is F else to_fraction(v) for bi in b for v in bi]
    den = lcm(*[v._denominator for v in ws], *[v._denominator for v in bs])
    rows = len(bs)
    wi = [v._numerator * (den // v._denominator) for v in ws]
    bi = [v._numerator * (den // v._denominator) for v in bs]
    # pieces that are identically zero (the 0 of a ReLU) stay out of the product: their maps are 0
    nz = [r for r in range(rows) if bi[r] or any(wi[r * n_in:(r + 1) * n_in])]
    if len(nz) == rows or keep_zero:
        nz = None
    sel = range(rows) if nz is None else nz
    Wm = fmpz_mat(len(sel), n_in, [c for r in sel for c in wi[r * n_in:(r + 1) * n_in]])
    Bm = fmpz_mat(len(sel), 3, [x for r in sel for x in (0, 0, bi[r])])
    return Wm, Bm, den, nz, rows


def _rank2_sweep(net, box, max_regions, deadline, vertex):
    """:func:`_rank2_cells_2d` with vertices of type ``vertex`` (Fraction or mpq), or None if the network is
    not for it."""
    import gc

    plan = _rank2_plan(net)
    if plan is None:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        import numpy as np

        with np.errstate(all="ignore"):        # inf / nan only ever leave a unit undecided
            return _rank2_cells_2d(plan, box, max_regions, deadline, vertex)
    finally:
        if enabled:
            gc.enable()


def maxout_cells_2d(net, box, *, max_regions: int = MAX_REGIONS, ctx: Context = FMPQ,
                    deadline: float | None = None) -> list:
    """Open activation cells of a 2-D maxout network: ``[(vertices, pattern, output maps)]`` where a map
    is ``(a1, a2, c)`` for a1 x1 + a2 x2 + c.  Layer by layer, unit by unit: each cell computes all pieces
    of the layer at once (an exact fmpq_mat product), and a unit's argmax is resolved by exact sign tests
    at the polygon's vertices, splitting only the cells on which a comparison changes sign (the same
    algorithm as the generic tracer with one stage per unit, without the object overhead).
    ``ctx``: the arithmetic context of the numbers and of the matrix products (``convert``, ``matrix``,
    ``affine``, ``to_fraction``; exact ``fmpq`` by default).  An inexact context (``ctx.exact`` False, the
    benchmark's float64 baseline in ``bench/regions.py``) keeps a cell whole when a rounded cut does not
    shrink it; its counts are not proofs.  More than ``max_regions`` cells raise
    :class:`~verify.errors.SizeLimitError`; ``deadline`` (a ``time.monotonic()`` value) the internal ``_TimeUp``."""
    import gc

    if ctx is FMPQ:
        out = _rank2_sweep(net, box, max_regions, deadline, Fraction)
        if out is not None:
            return out
    inexact = not ctx.exact
    conv, zero, one = ctx.convert, ctx.zero, ctx.one
    (x0, x1), (y0, y1) = [(conv(lo), conv(hi)) for lo, hi in box]
    intmode = ctx is FMPQ          # exact: integer maps over one positive scale per cell (fmpz_mat products)
    H0 = (fmpz_mat(2, 3, [1, 0, 0, 0, 1, 0]), fmpz(1)) if intmode else ctx.matrix(2, 3, [one, zero, zero, zero, one, zero])
    cells = [(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), H0, ())]
    enabled = gc.isenabled()
    gc.disable()
    try:
        for W, b in net.layers:
            N, k, n_in = len(W), len(b[0]), len(W[0][0])
            if intmode:
                Wm, Bm, lden, nz, nrows = _int_layer_2d(W, b, n_in)
                Z3 = [fmpz(0)] * (3 * nrows)
            else:
                Wm = ctx.matrix(N * k, n_in, [conv(c) for Wi in W for w in Wi for c in w])
                Bm = ctx.matrix(N * k, 3, [v for bi in b for bij in bi for v in (zero, zero, conv(bij))])
            new_cells = []
            filt = _FloatFilter(W, b, n_in) if (not inexact and k == 2) else None
            for ci, (vs, Hm, pat) in enumerate(cells):
                if deadline is not None and not ci & 63 and time.monotonic() > deadline:
                    raise _TimeUp()
                if intmode:
                    # the maps of all pieces on the scale s * lden: flat = (Wm Hint + Bm s) entries
                    flat = (Wm * Hm[0] + Bm * Hm[1]).entries()
                    if nz is not None:
                        e, flat = flat, Z3[:]
                        for q, r in enumerate(nz):
                            flat[3 * r:3 * r + 3] = e[3 * q:3 * q + 3]
                    nscale = Hm[1] * lden
                else:
                    flat = ctx.affine(Wm, Bm, Hm)
                dec = filt.decide(Hm, vs) if filt is not None else None
                stack = [(vs, (), None)]
                while stack:
                    cv, chosen, box2 = stack.pop()
                    u = len(chosen)
                    if dec is not None:
                        # units the float filter decided on the whole cell stay decided on its sub-cells
                        while u < N and dec[u]:
                            chosen = chosen + (((1,) if dec[u] > 0 else (0,)),)
                            u += 1
                    if u == N:
                        rows = [c for i, arg in enumerate(chosen) for c in flat[3 * (i * k + arg[0]):3 * (i * k + arg[0]) + 3]]
                        Hn = (fmpz_mat(N, 3, rows), nscale) if intmode else ctx.matrix(N, 3, rows)
                        new_cells.append((cv, Hn, pat + chosen))
                        continue
                    if box2 is None:
                        xs_ = [v[0] for v in cv]
                        ys_ = [v[1] for v in cv]
                        lx, hx, ly, hy = min(xs_), max(xs_), min(ys_), max(ys_)
                        box2 = ((lx + hx) / 2, (ly + hy) / 2, (hx - lx) / 2, (hy - ly) / 2)
                    cx, cy, rx, ry = box2
                    row = [tuple(flat[3 * (u * k + j):3 * (u * k + j) + 3]) for j in range(k)]
                    best = [0]
                    split = None
                    for j in range(1, k):
                        r0 = row[best[0]]
                        rj = row[j]
                        da, db, dc = rj[0] - r0[0], rj[1] - r0[1], rj[2] - r0[2]
                        # exact quick decision: |f(p) - f(centre)| <= |da| rx + |db| ry on the bounding box
                        vc = da * cx + db * cy + dc
                        bound = (da if da >= 0 else -da) * rx + (db if db >= 0 else -db) * ry
                        if vc > bound:
                            pos, neg = True, False
                        elif vc < -bound:
                            pos, neg = False, True
                        else:
                            pos = neg = False
                            for x, y in cv:
                                v = da * x + db * y + dc
                                if v > 0:
                                    pos = True
                                elif v < 0:
                                    neg = True
                        if pos and neg:
                            split = (da, db, dc)
                            break
                        if pos:
                            best = [j]
                        elif not neg:
                            best.append(j)
                    if split is not None:
                        p_part, n_part = _split_poly(cv, *split)
                        if inexact and (_area2(p_part) <= 0 or _area2(n_part) <= 0):
                            # inexact contexts only: a rounded cut that does not shrink the cell; keep the
                            # cell whole (such a count is not a proof, see bench/regions.py)
                            stack.append((cv, chosen + ((0,),), box2))
                            continue
                        stack.append((n_part, chosen, None))
                        stack.append((p_part, chosen, None))
                        continue
                    stack.append((cv, chosen + (tuple(best),), box2))
                if len(new_cells) > max_regions:
                    raise SizeLimitError("max_regions", f"more than {max_regions} cells")
            cells = new_cells
    finally:
        if enabled:
            gc.enable()
    out = []
    if intmode:
        if net.readout is not None:
            m = len(net.readout[1])
            Wo, Bo, oden, _, _ = _int_layer_2d([[row] for row in net.readout[0]], [[bb] for bb in net.readout[1]],
                                               len(net.readout[0][0]), keep_zero=True)
        else:
            m = net.widths[-1]
            Wo, Bo, oden = fmpz_mat(m, m, [int(i == j) for i in range(m) for j in range(m)]), fmpz_mat(m, 3), 1
    if intmode:
        for vs, (Hi, sc_), pat in cells:
            flat = (Wo * Hi + Bo * sc_).entries()
            den = int(sc_ * oden)
            maps = tuple((Fraction(int(flat[3 * i]), den), Fraction(int(flat[3 * i + 1]), den),
                          Fraction(int(flat[3 * i + 2]), den)) for i in range(m))
            verts = tuple(tuple(Fraction(int(c.p), int(c.q)) for c in v) for v in vs)
            out.append((verts, pat, maps))
        return out
    if net.readout is not None:
        m = len(net.readout[1])
        Wo = ctx.matrix(m, len(net.readout[0][0]), [conv(c) for row in net.readout[0] for c in row])
        Bo = ctx.matrix(m, 3, [v for bb in net.readout[1] for v in (zero, zero, conv(bb))])
    else:
        m = net.widths[-1]
        Wo = ctx.matrix(m, m, [one if i == j else zero for i in range(m) for j in range(m)])
        Bo = ctx.matrix(m, 3, [zero] * (3 * m))
    for vs, Hm, pat in cells:
        flat = ctx.affine(Wo, Bo, Hm)
        out_ = ctx.to_fraction
        maps = tuple((out_(flat[3 * i]), out_(flat[3 * i + 1]), out_(flat[3 * i + 2])) for i in range(m))
        verts = tuple(tuple(out_(c) for c in v) for v in vs)
        out.append((verts, pat, maps))
    return out


# -- staged tracing -------------------------------------------------------------------------------

def maxout_stages(net) -> list:
    """Tracer stages for a maxout network, one per (layer, unit), so a split re-runs one max only."""
    stages = []
    for l in range(net.depth):
        stages.append(lambda s, ops, l=l: ((), net.layer_pieces(l, s[0], ops)))
        for i in range(net.widths[l]):
            stages.append(lambda s, ops, i=i: (s[0] + (ops.max(s[1][i]),), s[1]))
        stages.append(lambda s, ops: (s[0], None))
    stages.append(lambda s, ops: tuple(net.apply_readout(s[0], ops)))
    return stages


def _wrap_initial_maxout(d):
    return (identity_forms(d), None)


def target_stages(f, tie: str = "average") -> tuple:
    """(stages, initial state) for any supported f."""
    if isinstance(f, MaxoutNetwork):
        return maxout_stages(f), None
    if all(hasattr(f, a) for a in ("transformer", "embed", "read")) and hasattr(f.transformer, "sublayers"):
        stages = [lambda x, ops: f.embed(list(x))]
        for sub in f.transformer.sublayers:
            stages.append(lambda X, ops, sub=sub: sub.apply(X, attention="hardmax", tie=tie, ops=ops))
        stages.append(lambda X, ops: _tup(f.read(X)))
        return stages, None
    if hasattr(f, "evaluate"):
        return [lambda x, ops: _tup(f.evaluate(list(x), ops=ops))], None
    if callable(f):
        return [lambda x, ops: _tup(f(list(x), ops))], None
    raise InputError("f", f"expected a MaxoutNetwork, a compiled Transformer, a CPWL function or a callable, "
                          f"got {type(f).__name__}")


def _tup(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


# -- 2-D merging ----------------------------------------------------------------------------------

def _line_key(p, q):
    a = q[1] - p[1]
    b = p[0] - q[0]
    c = a * p[0] + b * p[1]
    n = a if a != 0 else b
    return (a / n, b / n, c / n)


def _map_key(mp):
    """A hashable key of an output map (rows of exact numbers): equal keys iff equal maps.  Integer pairs, because
    hashing a Fraction computes a modular inverse (about 1 us each)."""
    return tuple((c.numerator, c.denominator) for row in mp for c in row)


class _LazyCells:
    """The open polygons of a sweep as :class:`Cell` s (mpq vertices), each built when it is first read."""

    __slots__ = ("vs", "built")

    def __init__(self, vs):
        self.vs, self.built = vs, {}

    def __len__(self):
        return len(self.vs)

    def __getitem__(self, i):
        c = self.built.get(i)
        if c is None:
            c = self.built[i] = Cell._raw(tuple(tuple(map(mpq, v)) for v in self.vs[i]))
        return c


def merge_pieces_2d(cells, maps) -> list:
    """Union-find over open polygons sharing an edge segment of positive length with equal maps.
    Returns the component label of every cell (labels 0.. in order of first appearance)."""
    n = len(cells)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # only cells whose map some other cell shares can merge: the others keep their own label (on generic
    # networks almost every map is distinct, so the edge keys below are built for few cells)
    bymap = {}
    for ci, mp in enumerate(maps):
        bymap.setdefault(_map_key(mp), []).append(ci)
    groups = {}
    for ci in sorted(ci for g in bymap.values() if len(g) > 1 for ci in g):
        vs = cells[ci].vertices
        m = len(vs)
        for k in range(m):
            p, q = vs[k], vs[(k + 1) % m]
            key = _line_key(p, q)
            coord = 0 if key[1] != 0 else 1          # non-vertical lines: parametrise by x
            lo, hi = (p[coord], q[coord]) if p[coord] < q[coord] else (q[coord], p[coord])
            groups.setdefault(key, []).append((lo, hi, ci))
    for edges in groups.values():
        if len(edges) < 2:
            continue
        edges.sort(key=lambda e: (e[0], e[1]))
        active = []
        for lo, hi, ci in edges:
            active = [e for e in active if e[1] > lo]
            for _, _, cj in active:
                if cj != ci and maps[ci] == maps[cj]:
                    ri, rj = find(ci), find(cj)
                    if ri != rj:
                        parent[max(ri, rj)] = min(ri, rj)
            active.append((lo, hi, ci))
    labels, out = {}, []
    for i in range(n):
        r = find(i)
        out.append(labels.setdefault(r, len(labels)))
    return out


def _map_json(forms, d) -> list:
    return [as_form(v, d).to_fractions() for v in forms]


# -- budgets: sweeps in pieces of the box, left to right ------------------------------------------------

MAX_SPLITS = 24                # bisections of a piece of the box before a budgeted sweep stops


def _pattern_1d(net, x) -> tuple:
    """The activation pattern (argmax set of every unit, layer by layer) of a maxout network at the point x."""
    h = (x,)
    pat = []
    for W, b in net.layers:
        nh = []
        for Wi, bi in zip(W, b):
            vals = [to_q(bij) + sum((to_q(c) * hm for c, hm in zip(w, h)), mpq(0)) for w, bij in zip(Wi, bi)]
            top = max(vals)
            pat.append(tuple(j for j, v in enumerate(vals) if v == top))
            nh.append(top)
        h = tuple(nh)
    return tuple(pat)


def _sweep_1d_budgeted(net, lo, hi, max_regions, deadline):
    """``(xs, Y, covered, stopped)``: the 1-D sweep of [lo, hi] within the budgets.  The whole interval is
    swept first (so a run within budget is the plain sweep); a piece that would exceed the cells left is
    bisected and its left half swept first.  Piece ends where the activation pattern does not change are
    dropped, so the breakpoints of the swept part [lo, covered] are exactly those of the whole sweep.
    ``stopped`` is None, ``"max_regions"`` or ``"time_budget"``."""
    lo, hi = to_q(Fraction(lo)), to_q(Fraction(hi))
    todo = [(lo, hi, 0)]
    if deadline is not None:
        # with a clock: a first piece of 1/64 of the interval, then pieces twice as long while a piece
        # takes less than 1/8 of the time left (so that a budget run out still leaves a swept part)
        todo = [(lo + (hi - lo) / 64, hi, -1), (lo, lo + (hi - lo) / 64, 6)]
    xs, Y = [], []
    stopped = None
    width = (hi - lo) / 64
    while todo:
        a, b, depth = todo.pop()
        if depth == -1:                                 # the rest of the interval, in growing pieces
            if b - a > width:
                todo.append((a + width, b, -1))
                b = a + width
            depth = 6
        left = max_regions - (len(xs) - 1 if xs else 0)
        try:
            if left < 1:
                raise SizeLimitError("max_regions", "no cells left")
            t_start = time.monotonic()
            px, pY = maxout_values_1d(net, a, b, max_regions=left, deadline=deadline)
            if deadline is not None and time.monotonic() - t_start < (deadline - time.monotonic()) / 8:
                width = 2 * width
        except SizeLimitError:
            if depth < MAX_SPLITS and left >= 1:
                m = (a + b) / 2
                todo.append((m, b, depth + 1))
                todo.append((a, m, depth + 1))
                continue
            stopped = "max_regions"
            break
        except _TimeUp:
            stopped = "time_budget"
            break
        if xs:
            if _pattern_1d(net, (xs[-2] + a) / 2) == _pattern_1d(net, (a + px[1]) / 2):
                xs.pop()                        # a is no breakpoint: the two cells at a are one
                Y.pop()
            xs.extend(px[1:])
            Y.extend(pY[1:])
        else:
            xs, Y = list(px), list(pY)
    covered = xs[-1] if xs else lo
    return xs, Y, covered, stopped


def _split_box(bx):
    """Two halves of a 2-D box, across its longer side (the lower / left half first)."""
    (x0, x1), (y0, y1) = bx
    if x1 - x0 >= y1 - y0:
        m = (x0 + x1) / 2
        return [((x0, m), (y0, y1)), ((m, x1), (y0, y1))]
    m = (y0 + y1) / 2
    return [((x0, x1), (y0, m)), ((x0, x1), (m, y1))]


def _cells_2d_budgeted(net, bx, max_regions, deadline):
    """``(raw, swept_boxes, stopped)``: :func:`maxout_cells_2d` on the box within the budgets.  The whole box
    first; a box that would exceed the cells left is halved (depth first, lower / left half first).  Cells of
    different boxes meet along the cuts; ``merge_pieces_2d`` joins them across those edges when their maps
    agree, and the activation count is the number of distinct patterns, so the cuts change neither count."""
    todo = [(tuple((Fraction(lo), Fraction(hi)) for lo, hi in bx), 0)]
    if deadline is not None:
        # with a clock: 16 parts swept one by one (so that a budget run out still leaves a swept part)
        for _ in range(4):
            todo = [(h, dp + 1) for b, dp in todo for h in _split_box(b)]
        todo.reverse()
    raw, swept = [], []
    stopped = None
    while todo:
        b, depth = todo.pop()
        left = max_regions - len(raw)
        try:
            if left < 1:
                raise SizeLimitError("max_regions", "no cells left")
            # count_regions turns the vertices into mpq: the residue sweep gives them so directly
            part = _rank2_sweep(net, b, left, deadline, mpq)
            if part is None:
                part = maxout_cells_2d(net, b, max_regions=left, deadline=deadline)
        except SizeLimitError:
            if depth < MAX_SPLITS and left >= 1:
                for h in reversed(_split_box(b)):
                    todo.append((h, depth + 1))
                continue
            stopped = "max_regions"
            break
        except _TimeUp:
            stopped = "time_budget"
            break
        raw.extend(part)
        swept.append(b)
    return raw, swept, stopped


def _partial_info(stopped, swept, coverage, n_act, n_pieces, cells) -> dict:
    return {"stopped": stopped, "swept": swept, "coverage": fraction_str(coverage),
            "activation_regions_swept": n_act, "pieces_swept": n_pieces, "cells_swept": cells}



# -- the counter ----------------------------------------------------------------------------------

def _count_polytope(f, box, kind, max_regions):
    """d >= 3: exact polyhedral cells; activation regions (:mod:`verify.decide.polytope`) or linear pieces,
    with merges and separations (:mod:`verify.decide.polytope_pieces`)."""
    from .polytope import MAX_DIM, Stuck, activation_search
    from .polytope_pieces import pieces_search

    bx = parse_box(box, f.input_dim, max_dim=MAX_DIM)
    try:
        info = (activation_search if kind == "activation" else pieces_search)(f.to_dict(), bx, max_cells=max_regions)
    except Stuck as exc:        # no exact certificate found: undecided, not bad input
        raise SizeLimitError("exact_certificate", f"polyhedral cells: {exc}") from None
    if not info["complete"]:
        raise SizeLimitError("max_regions", f"polyhedral cells: {info['stopped']}")
    how = "exact polyhedral cells (d >= 3)"
    if kind == "activation":
        n = len(set(info["patterns"]))
        return RegionCount("activation", n, bx, len(bx), [], n, None, info["leaves"], how)
    if info["exact"] is None:   # the bounds did not meet (separation budget or no exact separation): undecided
        raise SizeLimitError("max_pairs", f"pieces in d >= 3: between {info['maps']} and {info['components']} "
                                          f"({info['reason']})")
    return RegionCount("pieces", info["exact"], bx, len(bx), [], info["regions"], info["exact"], info["leaves"], how)


def count_regions(f, box, kind: str = "pieces", *, tie: str = "average", max_regions: int = MAX_REGIONS,
                  include_regions: bool = True, method: str = "auto",
                  time_budget: float | None = None) -> RegionCount:
    """Exact number of ``kind`` regions of f on the box (dimension 1 or 2, full-dimensional box; a maxout network
    also in dimension 3..6, by exact polyhedral cells).

    ``method``: ``"auto"`` (1-D maxout networks use the breakpoint sweep, 2-D maxout networks the polygon
    sweep, everything else the tracer), ``"sweep"`` or ``"trace"`` (to cross-check the two).  ``tie`` is
    used for hardmax Transformers.  ``time_budget``: seconds (default: none).

    Algorithm
    ---------
    Parse the box (at most 2 sides, lo < hi), then the 1-D breakpoint sweep, the 2-D polygon sweep or the
    tracer (see the module docstring), then merging of adjacent cells with equal maps for ``"pieces"``.
    ``include_regions`` adds every region's cells and exact map (from the same sweep).  Budgets: the sweeps
    run on the whole box first; a part of the box that would exceed the cells left is halved and its lower /
    left half swept first (1-D: piece ends where the pattern does not change are dropped, so the swept part's
    breakpoints are those of the whole sweep; 2-D: cells of different parts merge across the cuts).

    Soundness
    ---------
    Exact: ``count`` is the number of regions of ``kind`` (docs/regions.md), computed in exact rationals.
    A run that ends by a budget never returns a count: ``count``, ``activation_regions`` and ``pieces`` are
    None and ``partial`` says which part of the box was swept and what was counted there.

    Limits
    ------
    ``max_regions`` in [1, 2,100,000] and ``time_budget`` in (0, 86,400] s
    (:class:`~verify.errors.InputError` outside).  More cells than ``max_regions`` or a ``time_budget`` run
    out end in a partial result (``complete`` False; ``partial`` with ``stopped``, the ``swept`` interval or
    boxes, their ``coverage`` as a fraction of the box, and the counts on the swept part, of which the 1-D
    counts and the 2-D activation count are lower bounds of the whole); the tracer (objects other than
    maxout networks) sweeps the box at once, so its partial result has coverage 0, and it checks
    ``max_regions`` only.  Boxes of dimension > 2 are refused except for a maxout network (d = 3..6: exact
    polyhedral cells, docs/regions.md, activation regions and, with merges and separations, "Pieces in d >= 3";
    there ``max_regions``, or a pieces count the certificates leave between two bounds, raises
    :class:`~verify.errors.SizeLimitError` and ``time_budget`` is not used); ``method="sweep"`` needs a
    1-D ``MaxoutNetwork``; the tracer's errors propagate for untraceable ``f``.
    """
    if kind not in KINDS:
        raise InputError("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    if method not in ("auto", "sweep", "trace"):
        raise InputError("method", f"must be auto, sweep or trace, got {method!r}")
    if not isinstance(max_regions, int) or isinstance(max_regions, bool) or not 1 <= max_regions <= MAX_REGIONS:
        raise InputError("max_regions", f"must be an integer in [1, {MAX_REGIONS}], got {max_regions!r}")
    if time_budget is not None and (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                                    or not 0 < time_budget <= MAX_TIME_BUDGET):
        raise InputError("time_budget", f"must be a number of seconds in (0, {MAX_TIME_BUDGET}], got {time_budget!r}")
    deadline = None if time_budget is None else time.monotonic() + time_budget
    if kind in ("activation", "pieces") and isinstance(f, MaxoutNetwork) and f.input_dim >= 3:
        return _count_polytope(f, box, kind, max_regions)
    # regions are counted on a full-dimensional box: lo < hi on every side
    bx = parse_box(box, getattr(f, "input_dim", None), max_dim=2)
    d = len(bx)
    is_maxout = isinstance(f, MaxoutNetwork)
    if method == "sweep" and not (is_maxout and d == 1):
        raise InputError("method", "the sweep needs a 1-D MaxoutNetwork")
    if d == 1 and is_maxout and method in ("auto", "sweep"):
        lo, hi = bx[0]
        xs, Y, covered, stopped = _sweep_1d_budgeted(f, lo, hi, max_regions, deadline)
        starts = pieces_from_values(xs, Y) if len(xs) > 1 else []
        n_act, n_pieces = max(len(xs) - 1, 0), len(starts)
        regions = []
        if include_regions:
            maps = _maps_1d(xs, Y)                # the same sweep's breakpoints and values
            if kind == "activation":
                regions = [{"interval": [to_fraction(xs[i]), to_fraction(xs[i + 1])],
                            "map": [[to_fraction(c), to_fraction(s)] for s, c in maps[i]]} for i in range(len(maps))]
            else:
                ends = starts[1:] + [len(maps)]
                regions = [{"interval": [to_fraction(xs[s]), to_fraction(xs[e])],
                            "map": [[to_fraction(c), to_fraction(sl)] for sl, c in maps[s]]}
                           for s, e in zip(starts, ends)]
        method_name = "exact breakpoint sweep (1-D maxout)"
        if stopped is not None:
            info = _partial_info(stopped, [[to_fraction(lo), to_fraction(covered)]],
                                 to_fraction((covered - lo) / (hi - lo)), n_act, n_pieces, n_act)
            return RegionCount(kind, None, bx, 1, regions, None, None, None, method_name, info)
        return RegionCount(kind, n_act if kind == "activation" else n_pieces, bx, 1, regions, n_act, n_pieces,
                           n_act, method_name)
    if d == 2 and is_maxout and method == "auto":
        raw, swept, stopped = _cells_2d_budgeted(f, bx, max_regions, deadline)
        # Fraction vertices as mpq tuples (gmpy2 converts a Fraction exactly)
        maps2 = [m for _, _, m in raw]
        # merge_pieces_2d reads the cells of shared maps only: they are built when read (all with the regions)
        cells2 = _LazyCells([vs for vs, _, _ in raw])
        if include_regions:
            cells2 = [cells2[i] for i in range(len(raw))]
        labels = merge_pieces_2d(cells2, maps2)
        n_pieces = (max(labels) + 1) if labels else 0
        n_act = len({p for _, p, _ in raw})
        regions = []
        if include_regions:
            groups = {}
            keys = labels if kind == "pieces" else [p for _, p, _ in raw]
            for i, key in enumerate(keys):
                groups.setdefault(key, []).append(i)
            regions = [{"cells": [cells2[i].vertices_fraction() for i in idx],
                        "map": [[to_fraction(c), to_fraction(a1), to_fraction(a2)] for a1, a2, c in maps2[idx[0]]]}
                       for idx in sorted(groups.values())]
        method_name = "exact layer-wise polygon sweep (2-D maxout)"
        if stopped is not None:
            (x0, x1), (y0, y1) = bx
            area = sum(((b[0][1] - b[0][0]) * (b[1][1] - b[1][0]) for b in swept), Fraction(0))
            info = _partial_info(stopped, [[list(side) for side in b] for b in swept],
                                 area / ((Fraction(x1) - Fraction(x0)) * (Fraction(y1) - Fraction(y0))),
                                 n_act, n_pieces, len(raw))
            return RegionCount(kind, None, bx, 2, regions, None, None, None, method_name, info)
        return RegionCount(kind, n_act if kind == "activation" else n_pieces, bx, 2, regions, n_act, n_pieces,
                           len(raw), method_name)
    stages, initial = target_stages(f, tie)
    if is_maxout:
        initial = _wrap_initial_maxout(d)
    try:
        cells = trace(stages, [box_cell(bx)], initial=initial, closed=False, max_cells=max_regions)
    except SizeLimitError:
        # the tracer sweeps the whole box at once: nothing of it is known when it runs out
        info = _partial_info("max_regions", [], Fraction(0), 0, 0, 0)
        return RegionCount(kind, None, bx, d, [], None, None, None, f"exact tracer ({d}-D)", info)
    outs = [tuple(as_form(v, d) for v in c.value) for c in cells]
    keys = [tuple(tuple(f.to_fractions()) for f in o) for o in outs]   # forms refuse ==; compare coefficients
    n_act = len({c.pattern for c in cells})
    if d == 1:
        order = sorted(range(len(cells)), key=lambda i: min(cells[i].cell.vertices)[0])
        cells = [cells[i] for i in order]
        outs = [outs[i] for i in order]
        keys = [keys[i] for i in order]
        iv = [sorted((c.cell.vertices[0][0], c.cell.vertices[1][0])) for c in cells]
        starts = merge_pieces_1d(keys)
        n_pieces = len(starts)
        regions = []
        if include_regions:
            if kind == "pieces":
                ends = starts[1:] + [len(cells)]
                regions = [{"interval": [to_fraction(iv[s][0]), to_fraction(iv[e - 1][1])],
                            "map": _map_json(outs[s], 1)} for s, e in zip(starts, ends)]
            else:
                # activation regions are intervals: merge consecutive cells with the same pattern
                runs = []
                for i, c in enumerate(cells):
                    if runs and cells[runs[-1][1]].pattern == c.pattern:
                        runs[-1][1] = i
                    else:
                        runs.append([i, i])
                regions = [{"interval": [to_fraction(iv[s][0]), to_fraction(iv[e][1])],
                            "map": _map_json(outs[s], 1)} for s, e in runs]
        return RegionCount(kind, n_act if kind == "activation" else n_pieces, bx, 1, regions, n_act, n_pieces,
                           len(cells), "exact tracer (1-D)")
    labels = merge_pieces_2d([c.cell for c in cells], keys)
    n_pieces = (max(labels) + 1) if labels else 0
    regions = []
    if include_regions:
        if kind == "pieces":
            groups = {}
            for i, lab in enumerate(labels):
                groups.setdefault(lab, []).append(i)
            regions = [{"cells": [cells[i].cell.vertices_fraction() for i in idx], "map": _map_json(outs[idx[0]], 2)}
                       for _, idx in sorted(groups.items())]
        else:
            groups = {}
            for i, c in enumerate(cells):
                groups.setdefault(c.pattern, []).append(i)
            regions = [{"cells": [cells[i].cell.vertices_fraction() for i in idx], "map": _map_json(outs[idx[0]], 2)}
                       for idx in sorted(groups.values())]
    return RegionCount(kind, n_act if kind == "activation" else n_pieces, bx, 2, regions, n_act, n_pieces,
                       len(cells), "exact tracer (2-D convex polygons)")
