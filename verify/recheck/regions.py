"""Re-checker for certificates of kind ``"regions-count"`` (T10): an exact region count of a maxout network.

From the certificate alone (network weights, box, regions with exact intervals / polygons and affine maps)
it verifies that the regions tile the box (see :func:`verify.recheck.emulation.check_tiling`), that the
recorded count equals the number of regions, that each region's map equals the independently evaluated
network at every vertex and at the vertex average of each of its cells, and, for ``pieces`` in 1-D, that
neighbouring pieces have different maps (maximality).  Independent of the search code.

>>> recheck({"verdict": "proved", "certificate": {"kind": "regions-count", "box": [["0", "1"]]}})
Traceback (most recent call last):
...
verify.recheck.RecheckFailure: certificate.network: missing or malformed
"""

from __future__ import annotations

from . import RecheckFailure
from .emulation import check_tiling, evaluate_network, map_at, num, point_in_box, read_box, read_maps, \
    read_network, read_vertices

__all__ = ["recheck", "recheck_certificate"]


def recheck_certificate(cert: dict) -> str:
    box = read_box(cert)
    d = len(box)
    net = read_network(cert.get("network"))
    kind = cert.get("count_kind")
    if kind not in ("pieces", "activation"):
        raise RecheckFailure("certificate.count_kind: expected pieces or activation")
    regions = cert.get("regions")
    if not isinstance(regions, list) or not regions:
        raise RecheckFailure("certificate.regions: missing")
    count = cert.get("count")
    if not isinstance(count, int) or count != len(regions):
        raise RecheckFailure(f"certificate.count: {count!r} is not the number of regions ({len(regions)})")
    cells, maps = [], []
    for i, reg in enumerate(regions):
        if not isinstance(reg, dict):
            raise RecheckFailure(f"regions[{i}]: not an object")
        m = read_maps(reg.get("map"), d, f"regions[{i}].map")
        if d == 1:
            iv = reg.get("interval")
            if not isinstance(iv, list) or len(iv) != 2:
                raise RecheckFailure(f"regions[{i}].interval: expected [lo, hi]")
            polys = [[(num(iv[0], f"regions[{i}].interval"),), (num(iv[1], f"regions[{i}].interval"),)]]
        else:
            cs = reg.get("cells")
            if not isinstance(cs, list) or not cs:
                raise RecheckFailure(f"regions[{i}].cells: expected a list of polygons")
            polys = [read_vertices(c, 2, f"regions[{i}].cells") for c in cs]
        for P in polys:
            if not all(point_in_box(v, box) for v in P):
                raise RecheckFailure(f"regions[{i}]: a vertex lies outside the box")
            centre = tuple(sum(v[k] for v in P) / len(P) for k in range(d))
            for p in list(P) + [centre]:
                val = evaluate_network(net, p)
                if len(val) != len(m) or any(map_at(a, p) != y for a, y in zip(m, val)):
                    raise RecheckFailure(f"regions[{i}]: the map disagrees with the network at {p}")
            cells.append(P)
        maps.append((min(v[0] for v in polys[0]), m))
    check_tiling(cells, box)
    if d == 1 and kind == "pieces":
        maps.sort(key=lambda t: t[0])
        for (_, a), (_, b) in zip(maps, maps[1:]):
            if a == b:
                raise RecheckFailure("regions: two neighbouring pieces have the same map (not maximal)")
    return f"{count} {kind} regions tile the box; every map re-evaluated on the network at vertices and centres"


def recheck(result: dict) -> str:
    cert = result.get("certificate") if isinstance(result, dict) else None
    if not isinstance(cert, dict) or cert.get("kind") != "regions-count":
        raise RecheckFailure("certificate.kind: expected 'regions-count'")
    summary = recheck_certificate(cert)
    expected = (result.get("parameters") or {}).get("expected")
    if expected is not None:
        same = int(expected) == cert["count"]
        if (result.get("verdict") == "proved") != same:
            raise RecheckFailure(f"verdict: {result.get('verdict')!r} does not follow from count {cert['count']} "
                                 f"vs expected {expected}")
    return summary
