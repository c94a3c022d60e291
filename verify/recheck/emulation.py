"""Re-checker for certificates of kind ``"emulation-regions"`` (T6, T8, T9): regions of the box with the
network's and the Transformer's exact affine maps.

Independent of the search code (it re-implements a tiny exact maxout evaluator from the recorded weights).
From the certificate alone it verifies that

* every region lies in the box; the full-dimensional regions tile it: 1-D, contiguous intervals from lo to
  hi, and every interval end is itself a recorded point region (so the closed box is covered); 2-D,
  convex counter-clockwise polygons with pairwise disjoint interiors (a separating edge line for every pair
  whose bounding boxes overlap) whose areas sum exactly to the box's area, and every polygon edge (relative
  interior and end points) is covered by recorded segments and points, so the closed box is covered;
* on every region (of any dimension) the Transformer's map under every recorded tie rule equals the
  network's map at every vertex (so on the whole region);
* the network's map equals the independently evaluated network at every vertex and at the vertex average.

Kind ``"emulation-witness"`` (REFUTED): the recorded Transformer weights are evaluated independently (exact
hardmax, the recorded tie rule) on the recorded embedded token matrix, read out (h-block of token 0, then the
network's read-out) and compared with the independently evaluated network at the witness x.  The embedding
itself is taken from the certificate.

>>> recheck({"verdict": "proved", "certificate": {"kind": "emulation-regions"}})
Traceback (most recent call last):
...
verify.recheck.RecheckFailure: certificate.box: missing
"""

from __future__ import annotations

from fractions import Fraction

from . import RecheckFailure

__all__ = ["recheck", "recheck_witness", "evaluate_transformer", "num", "read_box", "read_network", "evaluate_network", "map_at", "check_tiling",
           "point_in_box"]

MAX_REGIONS = 2_000_000


def num(v, field: str) -> Fraction:
    """An exact number recorded as "p/q" (or an int)."""
    if isinstance(v, bool):
        raise RecheckFailure(f"{field}: not a number")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, str):
        try:
            return Fraction(v)
        except (ValueError, ZeroDivisionError):
            raise RecheckFailure(f"{field}: {v!r} is not an exact number") from None
    raise RecheckFailure(f"{field}: expected an exact number string, got {type(v).__name__}")


def read_box(cert) -> list:
    box = cert.get("box")
    if not isinstance(box, list) or not box:
        raise RecheckFailure("certificate.box: missing")
    out = []
    for i, iv in enumerate(box):
        if not isinstance(iv, list) or len(iv) != 2:
            raise RecheckFailure(f"certificate.box[{i}]: expected [lo, hi]")
        lo, hi = num(iv[0], f"box[{i}][0]"), num(iv[1], f"box[{i}][1]")
        if lo > hi:
            raise RecheckFailure(f"certificate.box[{i}]: lo > hi")
        out.append((lo, hi))
    return out


def read_network(spec) -> dict:
    """Parse the SPEC-format network: {"layers": [{"W": [[[...]]], "b": [[...]]}], "readout": {...}}."""
    if not isinstance(spec, dict) or not isinstance(spec.get("layers"), list) or not spec["layers"]:
        raise RecheckFailure("certificate.network: missing or malformed")
    layers = []
    for l, layer in enumerate(spec["layers"]):
        try:
            W = [[[num(c, f"layers[{l}].W") for c in w] for w in Wi] for Wi in layer["W"]]
            b = [[num(c, f"layers[{l}].b") for c in bi] for bi in layer["b"]]
        except (KeyError, TypeError):
            raise RecheckFailure(f"certificate.network.layers[{l}]: malformed") from None
        layers.append((W, b))
    readout = None
    if spec.get("readout") is not None:
        r = spec["readout"]
        try:
            readout = ([[num(c, "readout.W") for c in row] for row in r["W"]], [num(c, "readout.b") for c in r["b"]])
        except (KeyError, TypeError):
            raise RecheckFailure("certificate.network.readout: malformed") from None
    return {"layers": layers, "readout": readout}


def evaluate_network(net: dict, x) -> list:
    """Exact maxout evaluation (independent of verify.objects)."""
    h = list(x)
    for W, b in net["layers"]:
        new = []
        for Wi, bi in zip(W, b):
            vals = [sum((c * v for c, v in zip(w, h)), Fraction(0)) + bij for w, bij in zip(Wi, bi)]
            new.append(max(vals))
        h = new
    if net["readout"] is not None:
        W, b = net["readout"]
        h = [sum((c * v for c, v in zip(row, h)), Fraction(0)) + bb for row, bb in zip(W, b)]
    return h


def map_at(m, x) -> Fraction:
    """[c0, c1, ..., cd] at x."""
    return m[0] + sum((c * v for c, v in zip(m[1:], x)), Fraction(0))


def read_maps(maps, d, field) -> list:
    if not isinstance(maps, list):
        raise RecheckFailure(f"{field}: expected a list of affine maps")
    out = []
    for i, m in enumerate(maps):
        if not isinstance(m, list) or len(m) != d + 1:
            raise RecheckFailure(f"{field}[{i}]: expected [c0, c1, ..., c{d}]")
        out.append([num(c, f"{field}[{i}]") for c in m])
    return out


def read_vertices(vs, d, field) -> list:
    if not isinstance(vs, list) or not vs:
        raise RecheckFailure(f"{field}: expected a non-empty list of points")
    out = []
    for v in vs:
        if not isinstance(v, list) or len(v) != d:
            raise RecheckFailure(f"{field}: a point needs {d} coordinates")
        out.append(tuple(num(c, field) for c in v))
    return out


def point_in_box(p, box) -> bool:
    return all(lo <= c <= hi for c, (lo, hi) in zip(p, box))


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _separated(P, Q) -> bool:
    """Some edge line of P or Q has the other polygon on its closed outer side."""
    for A, B in ((P, Q), (Q, P)):
        n = len(A)
        for i in range(n):
            p, q = A[i], A[(i + 1) % n]
            if all(_cross(p, q, v) <= 0 for v in B):
                return True
    return False


def check_tiling(cells: list, box: list) -> None:
    """Full-dimensional cells (vertex lists) tile the box; raises RecheckFailure otherwise."""
    d = len(box)
    if d == 1:
        ivs = sorted((min(v[0][0], v[1][0]), max(v[0][0], v[1][0])) for v in cells)
        if not ivs:
            raise RecheckFailure("regions: no interval")
        pos = box[0][0]
        for lo, hi in ivs:
            if lo != pos or not lo < hi:
                raise RecheckFailure(f"regions: intervals do not tile the box at {pos} (next interval [{lo}, {hi}])")
            pos = hi
        if pos != box[0][1]:
            raise RecheckFailure(f"regions: the intervals end at {pos}, not at {box[0][1]}")
        return
    if d != 2:
        raise RecheckFailure("regions: only dimensions 1 and 2 are re-checked")
    total = Fraction(0)
    bbs = []
    for i, P in enumerate(cells):
        if len(P) < 3:
            raise RecheckFailure(f"regions: polygon {i} has fewer than 3 vertices")
        n = len(P)
        for k in range(n):
            if _cross(P[k], P[(k + 1) % n], P[(k + 2) % n]) <= 0:
                raise RecheckFailure(f"regions: polygon {i} is not strictly convex counter-clockwise")
        area = sum((P[k][0] * P[(k + 1) % n][1] - P[(k + 1) % n][0] * P[k][1] for k in range(n)), Fraction(0)) / 2
        total += area
        bbs.append((min(v[0] for v in P), max(v[0] for v in P), min(v[1] for v in P), max(v[1] for v in P), i))
    (x0, x1), (y0, y1) = box
    if total != (x1 - x0) * (y1 - y0):
        raise RecheckFailure(f"regions: areas sum to {total}, the box has {(x1 - x0) * (y1 - y0)}")
    bbs.sort()
    active = []
    for bb in bbs:
        active = [a for a in active if a[1] > bb[0]]
        for a in active:
            if a[2] < bb[3] and bb[2] < a[3] and not _separated(cells[a[4]], cells[bb[4]]):
                raise RecheckFailure(f"regions: polygons {a[4]} and {bb[4]} overlap")
        active.append(bb)


def _line_key(p, q):
    a = q[1] - p[1]
    b = p[0] - q[0]
    c = a * p[0] + b * p[1]
    n = a if a != 0 else b
    return (a / n, b / n, c / n)


def check_closed_cover_2d(polys: list, segments: list, points: set) -> None:
    """Every point of the closed box lies in a recorded region: the open polygons tile it (checked
    separately), so it remains that every polygon edge -- its relative interior and its end points -- is
    covered by relative interiors of recorded segments and by recorded points."""
    by_line = {}
    for p, q in segments:
        key = _line_key(p, q)
        k = 0 if key[1] != 0 else 1
        lo, hi = sorted((p[k], q[k]))
        by_line.setdefault(key, []).append((lo, hi))
    for i, P in enumerate(polys):
        n = len(P)
        for e in range(n):
            p, q = P[e], P[(e + 1) % n]
            key = _line_key(p, q)
            k = 0 if key[1] != 0 else 1
            tp, tq = sorted((p[k], q[k]))
            ivs = [(a, b) for a, b in by_line.get(key, ()) if a < tq and b > tp]
            marks = sorted({tp, tq} | {t for a, b in ivs for t in (a, b) if tp < t < tq})

            def at(t):
                # the point of the edge with coordinate k equal to t
                if p[k] == q[k]:
                    return p
                u = (t - p[k]) / (q[k] - p[k])
                return (p[0] + u * (q[0] - p[0]), p[1] + u * (q[1] - p[1]))

            for t in marks:
                if at(t) not in points and not any(a < t < b for a, b in ivs):
                    raise RecheckFailure(f"regions: the point {at(t)} on an edge of polygon {i} is in no recorded region")
            for t0, t1 in zip(marks, marks[1:]):
                m = (t0 + t1) / 2
                if not any(a < m < b for a, b in ivs):
                    raise RecheckFailure(f"regions: part of an edge of polygon {i} near {at(m)} is in no recorded region")


def recheck_certificate(cert: dict) -> str:
    box = read_box(cert)
    d = len(box)
    net = read_network(cert.get("network"))
    regions = cert.get("regions")
    if not isinstance(regions, list) or not regions:
        raise RecheckFailure("certificate.regions: missing")
    if len(regions) > MAX_REGIONS:
        raise RecheckFailure("certificate.regions: too many to re-check")
    rules = cert.get("tie_rules")
    if not isinstance(rules, list) or not rules or any(r not in ("average", "first") for r in rules):
        raise RecheckFailure("certificate.tie_rules: expected a non-empty list of average / first")
    full, points, ends, segments = [], set(), set(), []
    for i, reg in enumerate(regions):
        if not isinstance(reg, dict):
            raise RecheckFailure(f"regions[{i}]: not an object")
        vs = read_vertices(reg.get("vertices"), d, f"regions[{i}].vertices")
        dim = reg.get("dim")
        expect = 0 if len(vs) == 1 else (1 if len(vs) == 2 else 2)
        if dim != expect:
            raise RecheckFailure(f"regions[{i}].dim: {dim!r} does not match its {len(vs)} vertices")
        if not all(point_in_box(v, box) for v in vs):
            raise RecheckFailure(f"regions[{i}]: a vertex lies outside the box")
        nmaps = read_maps(reg.get("network"), d, f"regions[{i}].network")
        tmaps = reg.get("transformer")
        if not isinstance(tmaps, dict) or sorted(tmaps) != sorted(rules):
            raise RecheckFailure(f"regions[{i}].transformer: expected maps for {rules}")
        centre = tuple(sum(v[k] for v in vs) / len(vs) for k in range(d))
        for rule in rules:
            tm = read_maps(tmaps[rule], d, f"regions[{i}].transformer.{rule}")
            if len(tm) != len(nmaps):
                raise RecheckFailure(f"regions[{i}]: output lengths differ")
            for v in vs:
                for a, b in zip(nmaps, tm):
                    if map_at(a, v) != map_at(b, v):
                        raise RecheckFailure(f"regions[{i}]: Transformer ({rule}) and network maps differ at {v}")
        for p in vs + [centre]:
            val = evaluate_network(net, p)
            if len(val) != len(nmaps) or any(map_at(m, p) != y for m, y in zip(nmaps, val)):
                raise RecheckFailure(f"regions[{i}]: the network map disagrees with the network at {p}")
        if dim == d:
            full.append(vs)
            if d == 1:
                ends.update(v[0] for v in vs)
        elif dim == 0:
            points.add(vs[0])
        elif d == 2:
            if vs[0] == vs[1]:
                raise RecheckFailure(f"regions[{i}]: a degenerate segment")
            segments.append((vs[0], vs[1]))
    check_tiling(full, box)
    if d == 2:
        check_closed_cover_2d(full, segments, points)
    if d == 1:
        missing = [e for e in ends if (e,) not in points]
        if missing:
            raise RecheckFailure(f"regions: interval end {min(missing)} is not covered by a point region")
    return (f"{len(full)} full-dimensional regions tile the box"
            f"{' (ends covered)' if d == 1 else ' (edges and corners covered)'}; "
            f"{len(regions)} regions with equal maps under {', '.join(rules)}; network re-evaluated at "
            f"every vertex and centre")


def _matrix(m, field) -> list:
    if not isinstance(m, list) or not m:
        raise RecheckFailure(f"{field}: expected a non-empty matrix")
    if isinstance(m[0], list):
        return [[num(c, field) for c in row] for row in m]
    return [num(c, field) for c in m]


def _matvec(M, v):
    return [sum((a * b for a, b in zip(row, v)), Fraction(0)) for row in M]


def evaluate_transformer(subs: list, X: list, tie: str) -> list:
    """Independent exact hardmax Transformer: X is E rows x n tokens (tokens are columns)."""
    cols = [list(c) for c in zip(*X)]
    for s in subs:
        if s["kind"] == "ffn":
            W1, b1, W2, b2 = s["W1"], s["b1"], s["W2"], s["b2"]
            new = []
            for x in cols:
                act = [max(p + b, Fraction(0)) for p, b in zip(_matvec(W1, x), b1)]
                new.append([xe + u + b for xe, u, b in zip(x, _matvec(W2, act), b2)])
            cols = new
        else:
            new = [list(x) for x in cols]
            for h in s["heads"]:
                qs = [_matvec(h["W_Q"], x) for x in cols]
                ks = [_matvec(h["W_K"], x) for x in cols]
                vs = [_matvec(h["W_V"], x) for x in cols]
                for j in range(len(cols)):
                    sc = [sum((a * b for a, b in zip(ks[l], qs[j])), Fraction(0)) for l in range(len(cols))]
                    top = max(sc)
                    win = [l for l, v in enumerate(sc) if v == top]
                    if tie == "first":
                        win = win[:1]
                    c = [sum((vs[l][m] for l in win), Fraction(0)) / len(win) for m in range(len(vs[0]))]
                    new[j] = [a + b for a, b in zip(new[j], _matvec(h["W_O"], c))]
            cols = new
    return [list(r) for r in zip(*cols)]


def _witness_consistent(x: list, X: list, cell) -> None:
    """The embedded input must carry the witness x (rows 0..d-1 at every token, as in every embedding of
    verify's constructions) and the recorded cell must contain x."""
    d = len(x)
    if d == 0:
        raise RecheckFailure("witness.x: empty")
    if len(X) < d or not X[0] or any(X[r][j] != x[r] for r in range(d) for j in range(len(X[0]))):
        raise RecheckFailure("embedded_X: rows 0..d-1 are not the witness x at every token")
    if cell is None:
        return
    if not isinstance(cell, dict) or not isinstance(cell.get("vertices"), list) or not cell["vertices"]:
        raise RecheckFailure("cell: malformed")
    V = [[num(c, "cell.vertices") for c in v] for v in cell["vertices"]]
    if any(len(v) != d for v in V):
        raise RecheckFailure("cell.vertices: wrong dimension")
    dim = cell.get("dim")
    if dim == 0:
        inside = V == [x]
    elif d == 1:
        inside = min(v[0] for v in V) <= x[0] <= max(v[0] for v in V)
    elif d == 2 and dim == 1:
        (a, b), (c, e) = V[0], V[-1]
        cross = (c - a) * (x[1] - b) - (e - b) * (x[0] - a)
        inside = cross == 0 and min(a, c) <= x[0] <= max(a, c) and min(b, e) <= x[1] <= max(b, e)
    elif d == 2:
        signs = set()
        for i in range(len(V)):
            (a, b), (c, e) = V[i], V[(i + 1) % len(V)]
            cross = (c - a) * (x[1] - b) - (e - b) * (x[0] - a)
            if cross:
                signs.add(cross > 0)
        inside = len(signs) <= 1
    else:
        inside = True  # d >= 3: sampled witnesses carry no cell geometry
    if not inside:
        raise RecheckFailure("cell: the witness x does not lie in the recorded cell")


def recheck_witness(cert: dict) -> str:
    net = read_network(cert.get("network"))
    w = cert.get("witness")
    if not isinstance(w, dict):
        raise RecheckFailure("certificate.witness: missing")
    x = [num(c, "witness.x") for c in w.get("x", [])]
    tie = w.get("tie")
    if tie not in ("average", "first"):
        raise RecheckFailure("witness.tie: expected average or first")
    subs = []
    for i, s in enumerate(cert.get("transformer_sublayers") or []):
        if not isinstance(s, dict) or s.get("kind") not in ("ffn", "attention"):
            raise RecheckFailure(f"transformer_sublayers[{i}]: malformed")
        if s["kind"] == "ffn":
            subs.append({"kind": "ffn", **{k: _matrix(s.get(k), f"sublayer {i}.{k}") for k in ("W1", "b1", "W2", "b2")}})
        else:
            subs.append({"kind": "attention", "heads": [{k: _matrix(h.get(k), f"sublayer {i}.{k}")
                                                         for k in ("W_Q", "W_K", "W_V", "W_O")}
                                                        for h in s.get("heads") or []]})
    if not subs:
        raise RecheckFailure("certificate.transformer_sublayers: missing")
    X = _matrix(cert.get("embedded_X"), "embedded_X")
    _witness_consistent(x, X, cert.get("cell"))
    read = cert.get("read") or {}
    try:
        Xf = evaluate_transformer(subs, X, tie)
        h = [Xf[r][read.get("token", 0)] for r in read["rows"]]
    except (KeyError, IndexError, TypeError, ZeroDivisionError):
        raise RecheckFailure("certificate: the Transformer data do not evaluate") from None
    if net["readout"] is not None:
        W, b = net["readout"]
        h = [sum((c * v for c, v in zip(row, h)), Fraction(0)) + bb for row, bb in zip(W, b)]
    y_net = evaluate_network(net, x)
    rec_t = [num(c, "witness.transformer") for c in w.get("transformer", [])]
    rec_n = [num(c, "witness.network") for c in w.get("network", [])]
    if h != rec_t:
        raise RecheckFailure(f"witness: the recorded Transformer output {rec_t} is not the re-evaluated {h}")
    if y_net != rec_n:
        raise RecheckFailure(f"witness: the recorded network output {rec_n} is not the re-evaluated {y_net}")
    if h == y_net:
        raise RecheckFailure("witness: the outputs agree; nothing is refuted")
    return f"at x = {[str(c) for c in x]} ({tie}): Transformer {[str(c) for c in h]} != network {[str(c) for c in y_net]}"


def _check_transformer_digest(cert: dict, params) -> None:
    """The refuted Transformer is the one named in the Result's parameters (sha256 of its canonical weights)."""
    import hashlib

    from ..canonical import canonical_dumps

    want = params.get("transformer_sha256") if isinstance(params, dict) else None
    if not isinstance(want, str):
        raise RecheckFailure("parameters.transformer_sha256: missing (which Transformer is refuted?)")
    got = hashlib.sha256(canonical_dumps(cert.get("transformer_sublayers")).encode("utf-8")).hexdigest()
    if got != want:
        raise RecheckFailure("certificate.transformer_sublayers: weights differ from the refuted Transformer "
                             "named in parameters.transformer_sha256")


def recheck(result: dict) -> str:
    cert = result.get("certificate") if isinstance(result, dict) else None
    if isinstance(cert, dict) and cert.get("kind") == "emulation-witness":
        if result.get("verdict") != "refuted":
            raise RecheckFailure("verdict: an emulation-witness certificate supports 'refuted' only")
        _check_transformer_digest(cert, result.get("parameters"))
        return recheck_witness(cert)
    if not isinstance(cert, dict) or cert.get("kind") != "emulation-regions":
        raise RecheckFailure("certificate.kind: expected 'emulation-regions'")
    if result.get("verdict") != "proved":
        raise RecheckFailure("verdict: an emulation-regions certificate supports 'proved' only")
    return recheck_certificate(cert)
