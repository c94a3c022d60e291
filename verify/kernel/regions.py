"""Region counts of maxout networks (T10) and token-shift slabs (T4), re-checked exactly.

Counting convention (the paper's notion is [OPEN], docs/paper1.md §2.5; every statement names the notion it counts):

* **pieces**: maximal connected open subsets of the box on which the network is affine.  The kernel counts
  them itself: 1-D, maximal runs of consecutive intervals with equal slopes (the network is continuous, so
  equal slopes on adjacent intervals mean one affine map); 2-D, components of the open cells joined across
  shared edge segments of positive length when their affine maps are equal.
* **activation regions**: maximal open sets on which every unit's argmax set is constant, i.e. the number
  of distinct activation patterns with non-empty interior (each pattern's set is convex).

The 1-D engine (:func:`sweep`).  A certificate lists exact breakpoints ``lo = x_0 < ... < x_n = hi`` (or a
uniform grid ``{"grid": den}``).  The kernel evaluates the network from the weights in ``parameters`` at every
breakpoint and checks, layer by layer and unit by unit, that **one piece is maximal at both ends of every
interval**.  By induction the state entering the layer is affine on the closed interval, so that piece is
maximal on the whole interval (an affine difference that is >= 0 at both ends is >= 0 between them) and the
unit is affine there; the argmax set on the open interval is then exactly the set of pieces maximal at both
ends.  Nothing is sampled: every decision is proved constant on every interval.  A missing breakpoint is
rejected, and so is a superfluous one (two neighbouring intervals with the same activation pattern), so the
certificate is unique: exactly the activation breakpoints.  Pieces are counted by the kernel itself (runs of
equal slopes).  Work is O(points x weights), bounded by :data:`MAX_WORK` before any evaluation.

The 2-D engine (:func:`_count_2d`) uses :mod:`verify.kernel._cells`: the cells partition the closed box, the
network is evaluated on every open polygon with every argmax decided on the whole polygon.

PROVED / REFUTED of each kind (the polarity is fixed by the kind):

* ``regions-count`` / ``regions-miscount``: the network of ``parameters.network`` has / has not exactly
  ``parameters.count`` regions of ``parameters.kind`` on ``parameters.box`` (1-D breakpoints; 2-D cells).
* ``regions-family``: the tent / zigzag family network of L layers (built here from its two-line definition)
  has exactly q^L pieces on [0, 1] for every L = 1..L_max, and every depth-table row D = c L + e meets
  q^(floor(D/3)-1).
* ``regions-depth-bound`` / ``regions-depth-miss``: every / not every depth D = c + e..D_max meets
  count(floor((D - e)/c)) >= q^(floor(D/3)-1) for a family.
* ``regions-universal-miss``: the universal reading "every L-layer network (depth D = c L + e) has >=
  q^(floor(D/3)-1) pieces" fails, at the network of ``parameters.counterexample``.
* ``regions-one-layer``: each listed one-layer network has <= 1 + N(k-1) pieces (each counted exactly).
* ``regions-one-layer-lemma``: "some one-layer width-N rank-2 network has >= target pieces" fails because
  1 + N < target (lemma: a linear combination of N maxima of k affine functions of one variable has at most
  N(k-1) breakpoints).  The only kind here that trusts a lemma instead of a computation.
* ``regions-grid`` / ``regions-grid-miss``: counting slope runs on the grid lo + i(hi - lo)/den finds / misses
  the exact number of pieces.
* ``regions-polytope`` / ``regions-polytope-miscount``: the network of ``parameters.network`` has / has not exactly ``parameters.count`` activation
  regions on the box, in input dimension 1..6.  One split tree over the open box (:mod:`verify.kernel._poly`;
  zero children are ``null``: the cells dropped lie in finitely many hyperplanes, a set of measure zero); the
  kernel evaluates the network on every leaf (every argmax decided on the whole leaf) and counts the distinct
  patterns.  Each pattern's set is convex with non-empty interior and meets some open leaf, and the leaves
  are dense in the box, so the distinct leaf patterns are exactly the activation regions.
* ``regions-polytope-pieces`` / ``regions-polytope-pieces-miscount``: the same for linear pieces, d = 1..6: the
  activation split tree, merge points joining same-map regions across a shared facet, and (when a map's
  regions stay in several components) separations proving that their closures meet in dimension <= d - 2
  (:func:`_check_pieces`; docs/regions.md, "Pieces in d >= 3").  Bounds: the tree's (:mod:`verify.kernel._poly`),
  at most one merge per leaf and :data:`MAX_SEPARATIONS` separations.
* ``token-shift`` / ``token-shift-witness`` (T4): see :func:`_check_token_shift` and :func:`_check_shift_witness`.

Trusted here beyond the kernel core: gmpy2 ``mpq`` (exact rationals of the 1-D sweep).
"""

from __future__ import annotations

from fractions import Fraction
from operator import add, and_, eq, mul, ne, or_, sub

from gmpy2 import mpq

from . import Kind, _cells, _poly
from ._read import Rejected, bound_statement, box, digest, expect_statement, integer, lst, num, obj, string, tick, vec

__all__ = ["KINDS", "statement", "family_network", "sweep", "MAX_POINTS", "MAX_WORK", "MAX_WORK_2D", "MAX_CELLS_2D",
           "work_2d", "region_forms", "box_forms", "MAX_SEPARATIONS"]

MAX_POINTS = 70_000         # breakpoints of one 1-D certificate (tent L = 14 needs 16385)
MAX_WORK = 1_200_000        # points x (weights + pieces) of one 1-D sweep: a few seconds
MAX_WORK_2D = 150_000_000   # open polygons x weights of one 2-D count (integer matrix products): about 15 s
MAX_CELLS_2D = 200_000      # cells (polygons, segments, points) of one 2-D certificate
MAX_LAYERS, MAX_WIDTH, MAX_RANK = 64, 256, 8
FAMILIES = ("tent", "zigzag", "identical-pieces")
_DESC = {"pieces": "linear pieces (maximal connected open sets on which it is affine)",
         "activation": "activation regions (maximal open sets on which every argmax set is constant)"}


def _n(p, key) -> str:
    return _s(num(p[key], f"parameters.{key}"))


def _s(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


# -- networks -----------------------------------------------------------------------------------------------
def read_network(v, field: str, dim: int = 1):
    """A SPEC maxout network ``{"layers": [{"W", "b"}], "readout"?: null | {"W", "b"}}`` with input dimension
    ``dim``: ``(layers, readout)``, ``layers[l][u]`` the pieces ``(sparse weights, bias)`` of unit u (mpq),
    ``readout`` None or ``(rows of sparse weights, biases)``."""
    obj(v, field, required=("layers",), optional=("readout",))
    layers, width = [], dim
    for l, layer in enumerate(lst(v["layers"], f"{field}.layers", 1, MAX_LAYERS)):
        f = f"{field}.layers[{l}]"
        obj(layer, f, required=("W", "b"))
        W = lst(layer["W"], f"{f}.W", 1, MAX_WIDTH)
        B = lst(layer["b"], f"{f}.b", len(W), len(W))
        units = []
        for u, (Wu, Bu) in enumerate(zip(W, B)):
            ws = lst(Wu, f"{f}.W[{u}]", 1, MAX_RANK)
            bs = vec(Bu, f"{f}.b[{u}]", len(ws))
            units.append([(_sparse(vec(w, f"{f}.W[{u}][{j}]", width)), mpq(b)) for j, (w, b) in enumerate(zip(ws, bs))])
        layers.append(units)
        width = len(units)
    ro = v.get("readout")
    if ro is not None:
        obj(ro, f"{field}.readout", required=("W", "b"))
        rows = lst(ro["W"], f"{field}.readout.W", 1, MAX_WIDTH)
        ro = ([_sparse(vec(r, f"{field}.readout.W[{i}]", width)) for i, r in enumerate(rows)],
              [mpq(b) for b in vec(ro["b"], f"{field}.readout.b", len(rows))])
    return layers, ro


def _sparse(w):
    return tuple((m, mpq(c)) for m, c in enumerate(w) if c)


def family_spec(family: str, q: int, L: int) -> dict:
    """The SPEC of the family networks of T10 / T4 (the kernel's own definition, input dimension 1):

    * tent (q = 2): h_1 = max(-2x, 2x - 2), h_l = max(2h, -2h - 2) (= -T^{oL} on [0, 1]);
    * zigzag g_q: units h_{l,i} = max(y_l - i/q, 0), i = 0..q-1, y_1 = x,
      y_{l+1} = q h_{l,0} - 2q sum_{i>=1} (-1)^(i+1) h_{l,i}; output y_{L+1} (read-out after every layer);
    * identical-pieces: h_1 = max(2x, 2x), h_l = max(2h, 2h)."""
    if family == "tent":
        return {"layers": [{"W": [[["-2"], ["2"]]], "b": [["0", "-2"]]}] +
                          [{"W": [[["2"], ["-2"]]], "b": [["0", "-2"]]}] * (L - 1)}
    if family == "identical-pieces":
        return {"layers": [{"W": [[["2"], ["2"]]], "b": [["0", "0"]]}] * L}
    y = [str(q)] + [str(2 * q * (-1) ** i) for i in range(1, q)]
    return {"layers": [{"W": [[["1"] if l == 0 else y, ["0"] * (1 if l == 0 else q)] for _ in range(q)],
                        "b": [[_s(Fraction(-i, q)), "0"] for i in range(q)]} for l in range(L)],
            "readout": {"W": [y], "b": ["0"]}}


def family_network(family: str, q: int, L: int):
    return read_network(family_spec(family, q, L), family)


def _eval(layers, x):
    """Exact state of the network (no read-out) at one point (mpq)."""
    h = (mpq(x),)
    for units in layers:
        tick()
        h = tuple(max(b + sum(c * h[m] for m, c in w) for w, b in pcs) for pcs in units)
    return h


# -- the 1-D engine -----------------------------------------------------------------------------------------
def read_points(v, field: str, lo, hi, work: int = 1) -> list:
    """Breakpoints: a strictly increasing list from lo to hi, or ``{"grid": den}`` (lo + i (hi - lo)/den)."""
    if isinstance(v, dict):
        den = integer(obj(v, field, required=("grid",))["grid"], f"{field}.grid", 1, MAX_POINTS - 1)
        xs = [mpq(lo) + (mpq(hi) - mpq(lo)) * mpq(i, den) for i in range(den + 1)]
    else:
        xs = [mpq(x) for x in vec(v, field, max_len=MAX_POINTS)]
    if len(xs) < 2 or xs[0] != lo or xs[-1] != hi:
        raise Rejected(f"{field}: must run from {_s(lo)} to {_s(hi)}")
    if any(a >= b for a, b in zip(xs, xs[1:])):
        raise Rejected(f"{field}: not strictly increasing")
    if len(xs) * work > MAX_WORK:
        raise Rejected(f"{field}: {len(xs)} points x {work} weights exceed the work bound {MAX_WORK}")
    return xs


def _work(layers, readout) -> int:
    return sum(len(w) + 1 for units in layers for pcs in units for w, _ in pcs) + \
        (sum(len(w) + 1 for w in readout[0]) if readout else 0)


def _affine(w, b, cols, n) -> list:
    """b + sum_m c_m cols[m] at every point (column-wise, exact)."""
    acc = None
    for m, c in w:
        tick()
        term = list(map(c.__mul__, cols[m]))
        acc = term if acc is None else list(map(add, acc, term))
    return [b] * n if acc is None else list(map(b.__add__, acc))


def _int_units(units):
    """A layer's pieces with integer coefficients over their least common denominator: ``(units, den)``."""
    from math import lcm

    den = lcm(*[int(c.denominator) for pcs in units for w, b in pcs for c in (b, *(c for _, c in w))])
    return [[(tuple((m, int(c * den)) for m, c in w), int(b * den)) for w, b in pcs] for pcs in units], den


def sweep(layers, readout, xs, every: bool) -> list:
    """Check that every unit of every layer is affine on every [x_i, x_(i+1)] (one piece maximal at both
    ends) and return ``[(activation regions, pieces)]`` of the prefix networks of 1..L layers (``every``;
    the read-out is applied after every layer) or of the whole network only.  Values are kept column-wise
    (one list over the points per unit).

    When the points have a common denominator D of at most 1024 bits (a grid, dyadic breakpoints) every value
    is held as a Python integer over one positive scale S (x_i D at the input; a layer whose coefficients have
    the common denominator d maps values over S to values over S d): a common positive scale changes no
    comparison (max, ties) and no equality of slopes (dy_(i+1) dx_i = dy_i dx_(i+1) is homogeneous), so the
    checks and counts are those of the rationals, computed about four times faster."""
    from math import lcm

    n = len(xs)
    D = 1
    for x in xs:
        D = lcm(D, int(x.denominator))
        if D.bit_length() > 1024:
            break
    ints = D.bit_length() <= 1024
    cols = [[int(x * D) for x in xs]] if ints else [list(xs)]
    X = cols[0]
    S = D if ints else 1
    if ints and readout is not None:
        ro_int, ro_den = _int_units([[(w, b)] for w, b in zip(*readout)])
        readout = ([pcs[0][0] for pcs in ro_int], [pcs[0][1] for pcs in ro_int])
    new = None                     # new[i]: interval i has another activation pattern than interval i - 1
    out = []
    for l, units in enumerate(layers):
        if ints:
            units, den = _int_units(units)
        nxt = []
        for u, pcs in enumerate(units):
            vals = [_affine(w, b * S, cols, n) for w, b in pcs]
            top = list(map(max, *vals)) if len(vals) > 1 else vals[0]
            mask = [0] * n
            for j, vj in enumerate(vals):
                tick()
                mask = list(map(or_, mask, map((1 << j).__mul__, map(eq, vj, top))))
            both = list(map(and_, mask, mask[1:]))
            if 0 in both:
                i = both.index(0)
                raise Rejected(f"breakpoints: layer {l + 1}, unit {u + 1} has no piece maximal on all of "
                               f"[{_s(xs[i])}, {_s(xs[i + 1])}] (a breakpoint is missing)")
            chg = [0] + list(map(ne, both[1:], both))
            new = chg if new is None else list(map(or_, new, chg))
            nxt.append(top)
        cols = nxt
        if ints:
            S *= den
        if l == len(layers) - 1 and not all(new[1:]):
            i = new.index(0, 1)
            raise Rejected(f"breakpoints: {_s(xs[i])} separates two intervals with the same activation pattern "
                           "(superfluous: the certificate lists exactly the activation breakpoints)")
        if every or l == len(layers) - 1:
            Y = [_affine(w, b * S, cols, n) for w, b in zip(*readout)] if readout is not None else cols
            out.append((1 + sum(new), _runs(X, Y)))
    return out


def _runs(xs, Y) -> int:
    """Maximal runs of intervals with equal slopes of the continuous piecewise-affine values at xs
    (``Y``: one list over the points per output)."""
    dx = list(map(sub, xs[1:], xs))
    kink = [0] * (len(xs) - 2)
    for y in Y:
        tick()
        dy = list(map(sub, y[1:], y))
        kink = list(map(or_, kink, map(ne, map(mul, dy[1:], dx), map(mul, dy, dx[1:]))))
    return 1 + sum(kink)


def _count_1d(layers, readout, cert_points, lo, hi, every):
    xs = read_points(cert_points, "certificate.breakpoints", lo, hi, _work(layers, readout))
    return sweep(layers, readout, xs, every)


def _family(p):
    fam = string(p["family"], "parameters.family", FAMILIES)
    q = integer(p["q"], "parameters.q", 2, 8)
    if fam != "zigzag" and q != 2:
        raise Rejected(f"parameters.q: the {fam} family has q = 2")
    return fam, q


def _family_text(fam, q):
    return {"tent": "the tent network (h_1 = max(-2x, 2x - 2), h_l = max(2h, -2h - 2), = -T^(oL) on [0, 1])",
            "identical-pieces": "the identical-pieces network (h_1 = max(2x, 2x), h_l = max(2h, 2h))",
            "zigzag": f"the zigzag network g_{q}^(oL) (h_(l,i) = max(y_l - i/{q}, 0), i = 0..{q - 1}, y_1 = x, "
                      f"y_(l+1) = {q} h_(l,0) - {2 * q} sum_(i>=1) (-1)^(i+1) h_(l,i), output y_(L+1))"}[fam]


def _bound(q, D):
    return Fraction(q) ** (D // 3 - 1)


# -- statements ---------------------------------------------------------------------------------------------
def statement(form: str, parameters: dict, conventions: dict) -> str:
    """The statement of a Result of this module, built from its JSON-level parameters (``form``: count,
    family, depth, universal, one-layer, shallow, grid, token-shift)."""
    return bound_statement(_text(form, parameters), parameters, conventions)


def _text(form, p) -> str:
    if not isinstance(p, dict):
        raise Rejected("parameters: not an object")
    if form in ("count", "polytope"):
        b = " x ".join(f"[{_s(lo)}, {_s(hi)}]"
                       for lo, hi in box(p["box"], "parameters.box", 2 if form == "count" else _poly.MAX_POLY_DIM))
        return (f"the maxout network of parameters.network has exactly {_n(p, 'count')} "
                f"{_DESC[string(p['kind'], 'parameters.kind', _DESC)]} on the box {b}")
    if form == "family":
        fam, q = _family(p)
        cs = ", ".join(_s(num(c, "parameters.c_values")) for c in lst(p["c_values"], "parameters.c_values", 1, 6))
        return (f"{_family_text(fam, q)} has exactly {q}^L linear pieces on [0, 1] for every L = 1..{_n(p, 'L_max')}; "
                f"hence with depth D = c L + {_n(p, 'e')} sublayers (c in {{{cs}}}) every such D has >= "
                f"{q}^(floor(D/3)-1) linear pieces")
    if form == "depth":
        fam, q = _family(p)
        return (f"{_family_text(fam, q)} with L = floor((D - {_n(p, 'e')})/{_n(p, 'c')}) layers has >= "
                f"{q}^(floor(D/3)-1) linear pieces on [0, 1] for every depth D = {_n(p, 'c')} + {_n(p, 'e')}.."
                f"{_n(p, 'D_max')} (D = sublayers, c = {_n(p, 'c')} per layer, e = {_n(p, 'e')} extra)")
    if form == "universal":
        return (f"every 1-D maxout network of L layers, of depth D = {_n(p, 'c')} L + {_n(p, 'e')} sublayers, has "
                f">= {_n(p, 'q')}^(floor(D/3)-1) linear pieces on [0, 1] (universal reading), in particular the "
                "network of parameters.counterexample")
    if form == "one-layer":
        b = box(p["box"], "parameters.box", 1)[0]
        return (f"each of the {len(p['networks'])} one-layer maxout networks of parameters.networks (width N, rank k, "
                f"linear read-out) has at most 1 + N(k-1) linear pieces on [{_s(b[0])}, {_s(b[1])}]")
    if form == "shallow":
        return (f"some one-layer rank-2 maxout network of width N = {_n(p, 'N')} with a linear read-out has at least "
                f"{_n(p, 'target')} linear pieces on an interval")
    if form == "grid":
        b = box(p["box"], "parameters.box", 1)[0]
        return (f"counting runs of equal slopes of the network of parameters.network sampled at "
                f"{_s(b[0])} + i ({_s(b[1])} - {_s(b[0])})/{_n(p, 'den')}, i = 0..{_n(p, 'den')}, gives its exact "
                f"number of linear pieces on [{_s(b[0])}, {_s(b[1])}]")
    if form == "token-shift":
        t = p.get("transformer")
        tail = (f"the compiled Transformer (parameters.transformer, sha256:{digest(t)[:16]}) computes -T^(oL) "
                "exactly on [0, 1] under both tie rules") if t is not None else "the compiled network is exact"
        return (f"in the R3s scalar-shift compilation of the tent network with L = {_n(p, 'L')} layers, "
                f"Delta = {_n(p, 'Delta')}, M = {_n(p, 'M')} ({string(p['ranges'], 'parameters.ranges', ('exact', 'interval'))} ranges), the token slabs "
                "[a_l + j Delta, b_l + j Delta], j = 1, 2, of the state entering each layer over [0, 1] are pairwise "
                "disjoint with margin gamma_l = (Delta - (b_l - a_l))/2 > 0, M gamma_l >= sup |P_2 - P_1|, and "
                + tail)
    raise Rejected(f"statement: unknown form {form!r:.40}")


def _cert(result, required=(), optional=()):
    return obj(result["certificate"], "certificate", required=("kind",) + tuple(required), optional=optional)


# -- T10 checks ---------------------------------------------------------------------------------------------
def _check_count(result, proved: bool) -> str:
    p = obj(result["parameters"], "parameters", required=("network", "box", "kind", "count"))
    expect_statement(result, _text("count", p))
    bx = box(p["box"], "parameters.box", 2)
    claimed = integer(p["count"], "parameters.count", 0, 10 ** 9)
    kind = p["kind"]
    if len(bx) == 1:
        layers, ro = read_network(p["network"], "parameters.network", 1)
        act, pieces = _count_1d(layers, ro, _cert(result, ("breakpoints",))["breakpoints"], *bx[0], False)[-1]
    else:
        act, pieces = _count_2d(p["network"], _cert(result, ("cells",))["cells"], bx)
    got = pieces if kind == "pieces" else act
    if (got == claimed) != proved:
        raise Rejected(f"count: the network has {got} {kind} regions, so 'exactly {claimed}' is "
                       f"{'false' if proved else 'true'}")
    return f"{got} {'pieces' if kind == 'pieces' else 'activation regions'} ({act} activation regions, {pieces} pieces)"


def work_2d(spec, polygons: int) -> int:
    """The work of re-checking a 2-D count of the network ``spec`` (SPEC JSON) on ``polygons`` open polygons:
    polygons x weights, compared with :data:`MAX_WORK_2D` (the search code calls this before it records a
    certificate)."""
    net = _cells.read_maxout(spec, "parameters.network")
    return polygons * sum(len(w) * (len(w[0]) + 1) for W, _ in net["layers"] for w in W)


def _finder(parent: list):
    """The root finder of a union-find forest ``parent`` (path halving; union by ``parent[find(i)] = find(j)``)."""
    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    return find


def _count_2d(spec, cells, bx):
    """2-D: ``cells`` partition the closed box (:func:`_cells.check_partition`: points, open segments, open
    polygons); the network is evaluated on every open polygon with every argmax decided on the whole polygon
    (:func:`_cells.eval_maxout`).  Activation regions: distinct patterns; pieces: components of the polygons
    joined across shared edge segments of positive length when their affine maps are equal (sort + sweep)."""
    net = _cells.read_maxout(spec, "parameters.network")
    if net["input_dim"] != 2:
        raise Rejected("parameters.network: input dimension must be 2 for a 2-D box")
    weights = sum(len(w) * (len(w[0]) + 1) for W, _ in net["layers"] for w in W)
    lst(cells, "certificate.cells")
    # only the open polygons are evaluated: the work is polygons x weights (points and segments cost a
    # partition check, O(n log n))
    npoly = sum(1 for c in cells if isinstance(c, list) and len(c) >= 3)
    if npoly * weights > MAX_WORK_2D:
        raise Rejected(f"certificate.cells: {npoly} polygons x {weights} weights exceed the work bound {MAX_WORK_2D}")
    # cheap necessary condition before reading any number: a partition of the closed box (a disk) into open
    # polygons, open segments and points has Euler characteristic V - E + F = 1
    dims = [min(len(c), 3) if isinstance(c, list) else 0 for c in cells]
    if dims.count(1) - dims.count(2) + dims.count(3) != 1:
        raise Rejected("certificate.cells: points - segments + polygons != 1: not a partition of the closed box")
    cs = _cells.read_cells(cells, "certificate.cells", 2, MAX_CELLS_2D)
    _cells.check_partition(cs, bx)
    polys = [c for c in cs if c.dim == 2]
    inet = _cells.maxout_int_layers(net)
    maps, patterns = [], set()
    for c in polys:
        forms, pat = _cells.eval_maxout_int(inet, c)
        maps.append(forms)
        patterns.add(pat)
    parent = list(range(len(polys)))

    find = _finder(parent)

    lines = {}
    for i, c in enumerate(polys):
        vs = c.vertices
        for a, b in zip(vs, vs[1:] + vs[:1]):
            tick()
            key, k = _cells._line(a, b)
            side = 1 if a[k] < b[k] else -1
            lines.setdefault(key, ([], []))[side > 0].append((min(a[k], b[k]), max(a[k], b[k]), i))
    for neg, pos in lines.values():
        # edges on one side of a line belong to disjoint open polygons, so they do not overlap: two pointers
        neg.sort()
        pos.sort()
        u = 0
        for lo, hi, i in neg:
            while u < len(pos) and pos[u][1] <= lo:
                u += 1
            w = u
            while w < len(pos) and pos[w][0] < hi:
                tick()
                j = pos[w][2]
                if maps[i] == maps[j]:
                    parent[find(i)] = find(j)
                w += 1
    pieces = len({find(i) for i in range(len(polys))})
    return len(patterns), pieces


def _polytope_count(result, kind: str, cert_keys) -> tuple:
    """The parts of a ``regions-polytope`` (``kind`` activation) or ``regions-polytope-pieces`` (``kind`` pieces)
    Result, read strictly: ``(box, claimed count, network, certificate)``; the statement checked."""
    p = obj(result["parameters"], "parameters", required=("network", "box", "kind", "count"))
    expect_statement(result, _text("polytope", p))
    bx = box(p["box"], "parameters.box", _poly.MAX_POLY_DIM)
    string(p["kind"], "parameters.kind", (kind,))
    claimed = integer(p["count"], "parameters.count", 0, 10 ** 9)
    net = _cells.read_maxout(p["network"], "parameters.network")
    if net["input_dim"] != len(bx):
        raise Rejected(f"parameters.network: input dimension {net['input_dim']}, the box has {len(bx)}")
    return bx, claimed, net, _cert(result, cert_keys)


def _check_polytope(result, proved: bool) -> str:
    bx, claimed, net, cert = _polytope_count(result, "activation", ("roots",))
    patterns = set()
    st = _poly.walk(cert["roots"], [_poly.interior_root(bx)], lambda c: patterns.add(_cells.eval_maxout(net, c)[1]),
                    lower=False)
    if (len(patterns) == claimed) != proved:
        raise Rejected(f"count: the open cells show {len(patterns)} activation patterns, so 'exactly {claimed}' is "
                       f"{'false' if proved else 'true'}")
    return f"{len(patterns)} activation regions ({st['open']} open cells, {st['empty']} empty, {st['nodes']} nodes)"


def region_forms(net, pattern, d: int):
    """The activation region of ``pattern`` (as :func:`_cells.eval_maxout` returns it) from the network alone:
    ``(strict, out)``.  ``strict``: the forms p_top - p_k (k outside the unit's argmax set, p_top its first
    member), each > 0 on the region; the region is {open box, every strict form > 0} (the pieces of an argmax
    set of two or more members differ by the zero form, checked here: an open region has no other ties).
    ``out``: the output forms (the map of f on the region).  Layer by layer the state is affine under the
    fixed pattern, so these are the region's exact constraints (docs/regions.md, "Pieces in d >= 3")."""
    if len(pattern) != len(net["layers"]):
        raise Rejected("pattern: its length differs from the network's depth")
    h = _cells.identity(d)
    strict = []
    for (W, b), pat in zip(net["layers"], pattern):
        if len(pat) != len(W):
            raise Rejected("pattern: a layer's width differs from the network's")
        new = []
        for Wi, bi, best in zip(W, b, pat):
            pieces = [_cells.add(_cells._comb(zip(w, h), d), _cells.const(bij, d)) for w, bij in zip(Wi, bi)]
            top = pieces[best[0]]
            for j, pc in enumerate(pieces):
                tick()
                diff = _cells.sub(top, pc)
                if j in best:
                    if any(diff):
                        raise Rejected("pattern: a tie between pieces that differ on an open region")
                else:
                    strict.append(diff)
            new.append(top)
        h = new
    if net["readout"] is not None:
        rW, rb = net["readout"]
        h = [_cells.add(_cells._comb(zip(row, h), d), _cells.const(c, d)) for row, c in zip(rW, rb)]
    return strict, tuple(tuple(f) for f in h)


def box_forms(bx) -> list:
    """The closed box as forms >= 0, in the order of the open box's root: x_k - lo_k, hi_k - x_k."""
    d = len(bx)
    out = []
    for k, (lo, hi) in enumerate(bx):
        e = [mpq(0)] * d
        e[k] = mpq(1)
        out.append(tuple([-mpq(lo)] + e))
        out.append(tuple([mpq(hi)] + [-a for a in e]))
    return out


def _rank2(forms) -> bool:
    """Whether the linear parts of ``forms`` span a space of dimension >= 2 (exact)."""
    first = next((f[1:] for f in forms if any(f[1:])), None)
    if first is None:
        return False
    k = next(i for i, a in enumerate(first) if a)
    for f in forms:
        tick()
        v = f[1:]
        if any(first[k] * v[i] != v[k] * first[i] for i in range(len(v))):
            return True
    return False


def _merge_ok(G, i, x, key) -> bool:
    """Every constraint of G other than G[i] is > 0 at x or a positive multiple of G[i] (norm key ``key``)."""
    for k, g in enumerate(G):
        tick()
        if k != i and _poly._at(g, x) <= 0 and _poly.norm_key(g) != key:
            return False
    return True


MAX_SEPARATIONS = 2_000      # same-map pairs of regions in different components that a certificate may separate


def _check_pieces(result, proved: bool) -> str:
    """``regions-polytope-pieces`` / ``-miscount``: the network has / has not exactly ``count`` linear pieces
    on the box (d = 1..6).  The activation split tree (as ``regions-polytope``) gives the regions (distinct leaf
    patterns) and their maps (computed here); ``merges`` ``[a, i, b, j, x]`` join the regions of leaves a and b
    (same map; G_a[i] and -G_b[j] equal up to a positive factor; h = G_a[i] is 0 at x and every other
    constraint of both leaves is > 0 at x or a positive multiple of its h), leaves of one pattern are one
    region.  Then #maps <= pieces <= #components.  ``separations`` ``[a, b, y]``: for regions of the same map
    in different components, y >= 0 over the closed constraints of both regions (recomputed from the network
    and the patterns: :func:`box_forms` then :func:`region_forms`) with sum y c a constant c0 <= 0, and when
    c0 = 0 the support's linear parts of rank >= 2 (the closures meet in dimension <= d - 2).  When every such
    pair is separated, pieces = #components (docs/regions.md, "Pieces in d >= 3", Lemmas 5-7)."""
    bx, claimed, net, cert = _polytope_count(result, "pieces", ("roots", "merges", "separations"))
    d = len(bx)
    leaves = []

    def leaf(c):
        out, pat = _cells.eval_maxout(net, c)
        leaves.append((c.G, pat, tuple(tuple(f) for f in out)))

    st = _poly.walk(cert["roots"], [_poly.interior_root(bx)], leaf, lower=False)
    region, pats = [], {}
    for _, pat, _ in leaves:
        region.append(pats.setdefault(pat, len(pats)))
    rpat = list(pats)
    rmap = [None] * len(rpat)
    for (_, _, m), r in zip(leaves, region):
        rmap[r] = m
    parent = list(range(len(rpat)))

    find = _finder(parent)

    n = len(leaves)
    for t, m in enumerate(lst(cert["merges"], "certificate.merges", 0, max(n - 1, 0))):
        f = f"certificate.merges[{t}]"
        m = lst(m, f, 5, 5)
        a = integer(m[0], f"{f}[0]", 0, n - 1)
        b = integer(m[2], f"{f}[2]", 0, n - 1)
        Ga, Gb = leaves[a][0], leaves[b][0]
        i = integer(m[1], f"{f}[1]", 0, len(Ga) - 1)
        j = integer(m[3], f"{f}[3]", 0, len(Gb) - 1)
        x = [_poly.read_q(c, f"{f}[4][{k}]") for k, c in enumerate(lst(m[4], f"{f}[4]", d, d))]
        if region[a] == region[b] or rmap[region[a]] != rmap[region[b]]:
            raise Rejected(f"{f}: the leaves are not of two regions with the same map")
        ka = _poly.norm_key(Ga[i])
        kb = _poly.norm_key(Gb[j])
        if ka != tuple(-c for c in kb):
            raise Rejected(f"{f}: the two constraints are not opposite")
        if _poly._at(Ga[i], x) != 0:
            raise Rejected(f"{f}[4]: the point is not on the shared hyperplane")
        if not (_merge_ok(Ga, i, x, ka) and _merge_ok(Gb, j, x, kb)):
            raise Rejected(f"{f}[4]: another constraint of the two leaves is not > 0 at the point")
        parent[find(region[a])] = find(region[b])
    groups = {}
    for r, m in enumerate(rmap):
        groups.setdefault(m, []).append(r)
    n_maps, n_comps = len(groups), len({find(r) for r in range(len(rpat))})
    need = 0
    for rs in groups.values():
        sizes = {}
        for r in rs:
            sizes[find(r)] = sizes.get(find(r), 0) + 1
        need += (len(rs) ** 2 - sum(s * s for s in sizes.values())) // 2
    closed = {}

    def cforms(r):
        if r not in closed:
            closed[r] = box_forms(bx) + region_forms(net, rpat[r], d)[0]
        return closed[r]

    seen = set()
    for t, sep in enumerate(lst(cert["separations"], "certificate.separations", 0, MAX_SEPARATIONS)):
        f = f"certificate.separations[{t}]"
        sep = lst(sep, f, 3, 3)
        ra = region[integer(sep[0], f"{f}[0]", 0, n - 1)]
        rb = region[integer(sep[1], f"{f}[1]", 0, n - 1)]
        pair = (min(ra, rb), max(ra, rb))
        if rmap[ra] != rmap[rb] or find(ra) == find(rb) or pair in seen:
            raise Rejected(f"{f}: not a new pair of same-map regions in different components")
        seen.add(pair)
        C = cforms(ra) + cforms(rb)
        y = _poly._sparse(sep[2], f"{f}[2]", len(C), True)
        s = _poly._combine([(q, C[k]) for k, q in y], d)
        if any(s[1:]) or s[0] > 0:
            raise Rejected(f"{f}[2]: sum y c is not a constant <= 0")
        if s[0] == 0 and not _rank2([C[k] for k, _ in y]):
            raise Rejected(f"{f}[2]: sum y c = 0 but the forced equalities have rank < 2")
    exact = n_comps if (n_maps == n_comps or len(seen) == need) else None
    if proved:
        if exact != claimed:
            raise Rejected(f"count: the certificate shows {n_maps}..{n_comps} pieces"
                           + ("" if exact is None else f" (exactly {exact})") + f", not exactly {claimed}")
    elif n_maps <= claimed <= n_comps and (exact is None or exact == claimed):
        raise Rejected(f"count: the certificate shows {n_maps}..{n_comps} pieces, which does not exclude {claimed}")
    return (f"{exact if exact is not None else f'{n_maps}..{n_comps}'} pieces ({len(rpat)} activation regions, "
            f"{n_maps} maps, {len(seen)} separations; {st['open']} open cells, {st['nodes']} nodes)")


def _counts(fam, q, L, points):
    layers, ro = family_network(fam, q, L)
    return {l + 1: pieces for l, (_, pieces) in enumerate(_count_1d(layers, ro, points, mpq(0), mpq(1), True))}


def _table(counts, q, c, e, D_max):
    """Rows (D, L, count, bound) for D = c + e..D_max."""
    return [(D, (D - e) // c, counts[(D - e) // c], _bound(q, D)) for D in range(c + e, D_max + 1)]


def _check_family(result) -> str:
    p = obj(result["parameters"], "parameters", required=("family", "q", "L_max", "c_values", "e"))
    expect_statement(result, _text("family", p))
    fam, q = _family(p)
    if fam == "identical-pieces":
        raise Rejected("parameters.family: the identical-pieces family has 1 piece, not q^L")
    L_max = integer(p["L_max"], "parameters.L_max", 1, MAX_LAYERS)
    e = integer(p["e"], "parameters.e", 0, 3)
    cs = [integer(c, f"parameters.c_values[{i}]", 1, 6) for i, c in enumerate(lst(p["c_values"], "parameters.c_values", 1, 6))]
    counts = _counts(fam, q, L_max, _cert(result, ("breakpoints",))["breakpoints"])
    bad = [L for L, n in counts.items() if n != q ** L]
    if bad:
        raise Rejected(f"count: the number of pieces is not {q}^L for L in {bad}")
    for c in cs:
        for D, L, n, b in _table(counts, q, c, e, c * L_max + e + c - 1):
            if n < b:
                raise Rejected(f"depth table: D = {D} (c = {c}) has {n} < {b}")
    return f"{fam}: exactly {q}^L pieces for L = 1..{L_max} ({counts[L_max]} at L = {L_max}); depth tables c in {cs} hold"


def _check_depth(result, proved: bool) -> str:
    p = obj(result["parameters"], "parameters", required=("family", "q", "D_max", "c", "e"))
    expect_statement(result, _text("depth", p))
    fam, q = _family(p)
    c = integer(p["c"], "parameters.c", 1, 6)
    e = integer(p["e"], "parameters.e", 0, 3)
    D_max = integer(p["D_max"], "parameters.D_max", c + e, c * MAX_LAYERS + e)
    counts = _counts(fam, q, (D_max - e) // c, _cert(result, ("breakpoints",))["breakpoints"])
    bad = [row for row in _table(counts, q, c, e, D_max) if row[2] < row[3]]
    if bool(bad) == proved:
        raise Rejected(f"depth table: {'D = %d has %d < %s' % (bad[0][0], bad[0][2], bad[0][3]) if bad else 'every row holds'}")
    if bad:
        return f"{fam}: D = {bad[0][0]} (L = {bad[0][1]}) has {bad[0][2]} pieces < {q}^(floor(D/3)-1) = {bad[0][3]}"
    return f"{fam}: every D = {c + e}..{D_max} meets {q}^(floor(D/3)-1) (c = {c}, e = {e})"


def _check_universal(result) -> str:
    p = obj(result["parameters"], "parameters", required=("q", "c", "e", "counterexample"))
    expect_statement(result, _text("universal", p))
    q = integer(p["q"], "parameters.q", 1, 64)
    c = integer(p["c"], "parameters.c", 1, 6)
    e = integer(p["e"], "parameters.e", 0, 3)
    layers, ro = read_network(p["counterexample"], "parameters.counterexample", 1)
    pieces = _count_1d(layers, ro, _cert(result, ("breakpoints",))["breakpoints"], mpq(0), mpq(1), False)[-1][1]
    D = c * len(layers) + e
    if not pieces < _bound(q, D):
        raise Rejected(f"parameters.counterexample: {pieces} pieces >= {q}^(floor({D}/3)-1): not a counterexample")
    return f"a {len(layers)}-layer network (D = {D}) has {pieces} piece(s) < {q}^(floor(D/3)-1) = {_bound(q, D)}"


def _check_one_layer(result) -> str:
    p = obj(result["parameters"], "parameters", required=("box", "networks"))
    expect_statement(result, _text("one-layer", p))
    (lo, hi), = box(p["box"], "parameters.box", 1)
    nets = lst(p["networks"], "parameters.networks", 1, 1000)
    pts = lst(_cert(result, ("breakpoints",))["breakpoints"], "certificate.breakpoints", len(nets), len(nets))
    worst = 0
    for i, (v, pv) in enumerate(zip(nets, pts)):
        layers, ro = read_network(v, f"parameters.networks[{i}]", 1)
        if len(layers) != 1 or ro is None or len(ro[1]) != 1:
            raise Rejected(f"parameters.networks[{i}]: expected one layer and a linear read-out to one output")
        ceiling = 1 + sum(len(pcs) - 1 for pcs in layers[0])
        xs = read_points(pv, f"certificate.breakpoints[{i}]", lo, hi, _work(layers, ro))
        pieces = sweep(layers, ro, xs, False)[-1][1]
        if pieces > ceiling:
            raise Rejected(f"parameters.networks[{i}]: {pieces} pieces > 1 + N(k-1) = {ceiling}")
        worst = max(worst, pieces)
    return f"{len(nets)} one-layer networks, at most {worst} pieces each, within 1 + N(k-1)"


def _check_shallow(result) -> str:
    p = obj(result["parameters"], "parameters", required=("N", "target"))
    expect_statement(result, _text("shallow", p))
    _cert(result)
    N = integer(p["N"], "parameters.N", 1, 10 ** 6)
    target = integer(p["target"], "parameters.target", 1, 10 ** 9)
    if not 1 + N < target:
        raise Rejected(f"parameters: the ceiling 1 + N = {1 + N} is not below {target}")
    return f"one layer, width {N}, rank 2: at most 1 + N(k-1) = {1 + N} < {target} pieces (lemma)"


def _check_grid(result, proved: bool) -> str:
    p = obj(result["parameters"], "parameters", required=("network", "box", "den"))
    expect_statement(result, _text("grid", p))
    (lo, hi), = box(p["box"], "parameters.box", 1)
    den = integer(p["den"], "parameters.den", 1, MAX_POINTS - 1)
    layers, ro = read_network(p["network"], "parameters.network", 1)
    exact = _count_1d(layers, ro, _cert(result, ("breakpoints",))["breakpoints"], lo, hi, False)[-1][1]
    if (den + 1) * _work(layers, ro) > MAX_WORK:
        raise Rejected(f"parameters.den: {den + 1} grid points exceed the work bound")
    xs = [mpq(lo) + (mpq(hi) - mpq(lo)) * mpq(i, den) for i in range(den + 1)]
    cols = [xs]
    for units in layers:
        new = []
        for pcs in units:
            vals = [_affine(w, b, cols, len(xs)) for w, b in pcs]
            new.append(list(map(max, *vals)) if len(vals) > 1 else vals[0])
        cols = new
    grid = _runs(xs, [_affine(w, b, cols, len(xs)) for w, b in zip(*ro)] if ro is not None else cols)
    if (grid == exact) != proved:
        raise Rejected(f"grid: the grid count {grid} and the exact count {exact} {'differ' if proved else 'agree'}")
    return f"grid count {grid} {'=' if proved else '!='} exact count {exact}"


# -- T4 ------------------------------------------------------------------------------------------------------
def _shift_params(result):
    p = obj(result["parameters"], "parameters", required=("L", "Delta", "M", "ranges"), optional=("transformer",))
    expect_statement(result, _text("token-shift", p))
    L = integer(p["L"], "parameters.L", 1, 8)
    Delta, M = num(p["Delta"], "parameters.Delta"), num(p["M"], "parameters.M")
    if not (Delta > 0 and M > 0):
        raise Rejected("parameters: Delta and M must be positive")
    return p, L, mpq(Delta), mpq(M), string(p["ranges"], "parameters.ranges", ("exact", "interval"))


def _pieces_diff(layers, l):
    """P_2 - P_1 of layer l (0-based) of the tent, as (slope, intercept) in the entering state h."""
    (w1, b1), (w2, b2) = layers[l][0]
    return w2[0][1] - w1[0][1], b2 - b1


def _check_token_shift(result) -> str:
    """PROVED: for every layer l the kernel encloses the state entering it over [0, 1] -- exactly (min/max
    over the values at verified breakpoints of the prefix network) or by its own interval propagation --
    and checks Delta > b_l - a_l (the slabs of tokens 1 and 2 are disjoint, margin gamma_l > 0) and
    M gamma_l >= |P_2 - P_1| at both ends of [a_l, b_l] (affine in h, so everywhere on it)."""
    p, L, Delta, M, ranges = _shift_params(result)
    layers, _ = family_network("tent", 2, L)
    xs = read_points(_cert(result, ("breakpoints",))["breakpoints"], "certificate.breakpoints", mpq(0), mpq(1),
                     _work(layers, None))
    sweep(layers, None, xs, False)
    if (result["method"] == "exact") != (ranges == "exact"):
        raise Rejected("method: exact ranges are 'exact', interval enclosures 'certified'")
    if ranges == "exact":
        V = [(x,) for x in xs]
        rng = []
        for units in layers:
            rng.append((min(h[0] for h in V), max(h[0] for h in V)))
            V = [tuple(max(b + sum(c * h[m] for m, c in w) for w, b in pcs) for pcs in units) for h in V]
    else:
        rng, a, b = [], mpq(0), mpq(1)
        for units in layers:
            rng.append((a, b))
            (w1, b1), (w2, b2) = units[0]
            ends = [b_ + w[0][1] * t for w, b_ in ((w1, b1), (w2, b2)) for t in (a, b)]
            a, b = max(min(ends[:2]), min(ends[2:])), max(ends)
    for l, (a, b) in enumerate(rng):
        w = b - a
        gamma = (Delta - w) / 2
        if not gamma > 0:
            raise Rejected(f"layer {l + 1}: Delta = {Delta} <= width {w}: the slabs are not disjoint")
        s, t = _pieces_diff(layers, l)
        if M * gamma < max(abs(s * a + t), abs(s * b + t)):
            raise Rejected(f"layer {l + 1}: M gamma = {M * gamma} < sup |P_2 - P_1|")
    if "transformer" not in p:
        raise Rejected("parameters.transformer: missing (a PROVED token-shift Result names its compiled Transformer)")
    T = _cells.read_transformer(p["transformer"], "parameters.transformer")
    size = sum(sum(v for v in z if isinstance(v, int)) if isinstance(z, list) else z
               for k, z in _cells.transformer_sizes(T).items() if k.endswith("nonzeros")) + len(T["sublayers"])
    if 2 * len(xs) * size * T["n"] > MAX_WORK:
        raise Rejected(f"parameters.transformer: {2 * len(xs) - 1} cells x {size} weights exceed the work bound")
    tent = _cells.read_maxout(family_spec("tent", 2, L), "tent")
    fx = [Fraction(int(x.numerator), int(x.denominator)) for x in xs]
    for cell in [_cells.Cell([(x,)]) for x in fx] + [_cells.Cell([(a,), (b,)]) for a, b in zip(fx, fx[1:])]:
        want = _cells.eval_maxout(tent, cell)[0]
        for tie in _cells.TIE_RULES:
            got = _cells.eval_transformer(T, cell, tie)[0]
            if len(got) != 1 or cell.sign(_cells.sub(got[0], want[0])) != 0:
                raise Rejected(f"parameters.transformer: differs from -T^(o{L}) on {cell!r} (tie {tie})")
    return f"L = {L}: slabs disjoint and gates exact at every layer ({ranges} ranges)"


def _check_shift_witness(result) -> str:
    """REFUTED by exact witnesses (the tent prefix evaluated by the kernel): a **collision** (layer l, tokens
    j != j', inputs x, x' in [0, 1] with h_l(x) + j Delta = h_l(x') + j' Delta: the slabs intersect, for any
    enclosure of the range) or a **gate** failure (inputs u, v, x: any enclosure has width >= h_l(u) - h_l(v),
    so gamma_l <= (Delta - h_l(u) + h_l(v))/2, and M times that is < |P_2 - P_1|(h_l(x)))."""
    p, L, Delta, M, _ = _shift_params(result)
    layers, _ = family_network("tent", 2, L)
    cert = _cert(result, ("layer",), ("collision", "gate"))
    l = integer(cert["layer"], "certificate.layer", 1, L)

    def state(x, f):
        x = num(x, f)
        if not 0 <= x <= 1:
            raise Rejected(f"{f}: outside [0, 1]")
        return _eval(layers[:l - 1], x)[0]

    if ("collision" in cert) == ("gate" in cert):
        raise Rejected("certificate: exactly one of collision, gate")
    if "collision" in cert:
        c = obj(cert["collision"], "certificate.collision", required=("tokens", "x"))
        j, j2 = [integer(t, "certificate.collision.tokens", 1, 2) for t in lst(c["tokens"], "certificate.collision.tokens", 2, 2)]
        x, x2 = lst(c["x"], "certificate.collision.x", 2, 2)
        s, s2 = state(x, "certificate.collision.x[0]") + j * Delta, state(x2, "certificate.collision.x[1]") + j2 * Delta
        if j == j2 or s != s2:
            raise Rejected("certificate.collision: not a collision of two tokens")
        return f"layer {l}: tokens {j} and {j2} share the shifted state {s}: the slabs intersect"
    g = obj(cert["gate"], "certificate.gate", required=("u", "v", "x"))
    width = state(g["u"], "certificate.gate.u") - state(g["v"], "certificate.gate.v")
    s, t = _pieces_diff(layers, l - 1)
    d = abs(s * state(g["x"], "certificate.gate.x") + t)
    if not 0 < M * (Delta - width) / 2 < d:         # gamma <= 0 is a collision, not a gate failure
        raise Rejected("certificate.gate: not a gate failure")
    return f"layer {l}: M gamma <= {M * (Delta - width) / 2} < |P_2 - P_1| = {d}"


_T = frozenset({"T10"})
_E = frozenset({"exact"})
KINDS = {
    "regions-count": Kind(_T, "proved", _E, lambda r: _check_count(r, True)),
    "regions-miscount": Kind(_T, "refuted", _E, lambda r: _check_count(r, False)),
    "regions-polytope": Kind(_T, "proved", _E, lambda r: _check_polytope(r, True)),
    "regions-polytope-miscount": Kind(_T, "refuted", _E, lambda r: _check_polytope(r, False)),
    "regions-polytope-pieces": Kind(_T, "proved", _E, lambda r: _check_pieces(r, True)),
    "regions-polytope-pieces-miscount": Kind(_T, "refuted", _E, lambda r: _check_pieces(r, False)),
    "regions-family": Kind(_T, "proved", _E, _check_family),
    "regions-depth-bound": Kind(_T, "proved", _E, lambda r: _check_depth(r, True)),
    "regions-depth-miss": Kind(_T, "refuted", _E, lambda r: _check_depth(r, False)),
    "regions-universal-miss": Kind(_T, "refuted", _E, _check_universal),
    "regions-one-layer": Kind(_T, "proved", _E, _check_one_layer),
    "regions-one-layer-lemma": Kind(_T, "refuted", _E, _check_shallow),
    "regions-grid": Kind(_T, "proved", _E, lambda r: _check_grid(r, True)),
    "regions-grid-miss": Kind(_T, "refuted", _E, lambda r: _check_grid(r, False)),
    "token-shift": Kind(frozenset({"T4"}), "proved", frozenset({"exact", "certified"}), _check_token_shift),
    "token-shift-witness": Kind(frozenset({"T4"}), "refuted", _E, _check_shift_witness),
}
