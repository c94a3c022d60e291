"""``verify regions SPEC.json [--kind pieces|activation] [--plot out.png] [--json OUT]``: count the linear
regions of a maxout network exactly on its box (claim T10's counter).

SPEC is the format of ``verify maxout`` (docs/paper1-objects.md): ``{"layers": [...], "readout": {...}?, "box": [[lo, hi], ...]}``
with input dimension 1 (exact breakpoints) or 2 (exact convex polygons).  ``--kind pieces`` (default) counts
maximal connected open sets on which the network is affine; ``--kind activation`` counts the sets on which
every argmax set is constant.  ``--json OUT`` writes a T10 Result (exact numbers as strings): PROVED "the
network has exactly N regions of this kind on the box", with a ``regions-count`` certificate (1-D: the exact
activation breakpoints; 2-D: the partition of the closed box into open polygons, segments and points) that
``verify check OUT`` re-checks with the kernel; the regions themselves are evidence.  ``--plot`` draws the
pieces (1-D graph, 2-D coloured polygons).
Limits: depth <= 32, at most 256 units (1-D) / 96 units (2-D), rank <= 8, at most 10^6 regions (1-D) /
10^5 cells (2-D), at most 20000 regions in a plot and
200000 in a JSON listing.  Exit 0 when the count is printed, 2 on bad input: the table of
:mod:`verify.cli.conventions`.  docs/regions.md describes the counting and its certificate.
"""

from __future__ import annotations

HELP = "count the linear regions of a maxout network exactly (1-D breakpoints, 2-D polygons)"

EXIT_NOTES = ("exit status: 0 when the exact count is printed (and the files asked for are written). SPEC format: "
              "docs/paper1-objects.md, Command line; counting and certificate: docs/regions.md.")

MAX_DEPTH = 32
MAX_UNITS_1D = 256
MAX_UNITS_2D = 96
MAX_RANK = 8
MAX_REGIONS_1D = 1_000_000
MAX_CELLS_2D = 100_000
MAX_PLOT_REGIONS = 20_000
MAX_JSON_REGIONS = 200_000


def add_arguments(p):
    from .common import add_network_spec_arguments

    add_network_spec_arguments(p)
    p.add_argument("--kind", choices=["pieces", "activation"], default="pieces",
                   help="pieces (maximal affine sets, default) or activation (constant argmax sets)")
    p.add_argument("--plot", metavar="OUT.png", help="draw the regions with matplotlib")
    p.add_argument("--json", metavar="OUT", help="write a T10 Result with a kernel-checkable regions-count certificate "
                   "('-': to stdout, the count line to stderr)")


def region_words(count: int, kind: str) -> str:
    """``"1 piece"``, ``"4 pieces"``, ``"7 activation regions"``: a count in words of its kind.

    >>> region_words(1, "pieces"), region_words(4, "pieces"), region_words(7, "activation")
    ('1 piece', '4 pieces', '7 activation regions')
    """
    from .conventions import plural

    return plural(count, "piece") if kind == "pieces" else plural(count, f"{kind} region")


def _limits(net):
    from ..errors import SizeLimitError

    if net.input_dim not in (1, 2):
        raise SizeLimitError("box", f"input dimension {net.input_dim}: regions are counted exactly for 1 or 2 only")
    if net.depth > MAX_DEPTH:
        raise SizeLimitError("layers", f"depth {net.depth} exceeds the limit {MAX_DEPTH} of 'verify regions'")
    if net.rank > MAX_RANK:
        raise SizeLimitError("layers", f"rank {net.rank} exceeds the limit {MAX_RANK} of 'verify regions'")
    cap = MAX_UNITS_1D if net.input_dim == 1 else MAX_UNITS_2D
    if sum(net.widths) > cap:
        raise SizeLimitError("layers", f"{sum(net.widths)} units exceed the limit {cap} of 'verify regions' "
                                       f"in dimension {net.input_dim}")


def plot_regions(rc, path: str) -> None:
    """1-D: the graph of each piece; 2-D: the polygons of each region, one colour per region."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    cmap = plt.get_cmap("tab20")
    if rc.dim == 1:
        segs, colors = [], []
        for i, reg in enumerate(rc.regions):
            lo, hi = reg["interval"]
            c0, c1 = reg["map"][0]
            segs.append([(float(lo), float(c0 + c1 * lo)), (float(hi), float(c0 + c1 * hi))])
            colors.append(cmap(i % 20))
        ax.add_collection(LineCollection(segs, colors=colors, linewidths=1.5))
        ax.autoscale()
        ax.set_xlabel("x")
        ax.set_ylabel("f(x)  (output 1)")
    else:
        polys, colors = [], []
        for i, reg in enumerate(rc.regions):
            for cell in reg["cells"]:
                polys.append([(float(v[0]), float(v[1])) for v in cell])
                colors.append(cmap(i % 20))
        ax.add_collection(PolyCollection(polys, facecolors=colors, edgecolors="k", linewidths=0.2))
        (x0, x1), (y0, y1) = rc.box
        ax.set_xlim(float(x0), float(x1))
        ax.set_ylim(float(y0), float(y1))
        ax.set_aspect("equal")
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
    ax.set_title(f"{region_words(rc.count, rc.kind)} (exact)")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def run(args) -> int:
    import json

    from ..decide.regions import count_regions
    from ..errors import InputError
    from .common import check_output_path, read_network_spec
    from .conventions import check_json_path, human_stream, plural, write_json

    check_json_path(args.json)
    if args.plot:
        check_output_path(args.plot, "--plot")
    net, box = read_network_spec(args.spec, args.allow_float, _limits)
    need_regions = bool(args.json or args.plot)
    rc = count_regions(net, box, kind=args.kind, include_regions=need_regions,
                       max_regions=MAX_REGIONS_1D if net.input_dim == 1 else MAX_CELLS_2D)
    if not rc.complete:                   # count_regions returns a partial result; the CLI keeps refusing
        from ..errors import SizeLimitError

        raise SizeLimitError("max_regions", f"more than {MAX_REGIONS_1D if net.input_dim == 1 else MAX_CELLS_2D} "
                                            f"cells (swept {rc.partial['coverage']} of the box)")
    if args.json and rc.count > MAX_JSON_REGIONS:
        raise InputError("--json", f"{rc.count} regions exceed the limit {MAX_JSON_REGIONS} for the JSON listing")
    if args.plot and rc.count > MAX_PLOT_REGIONS:
        raise InputError("--plot", f"{rc.count} regions exceed the plotting limit {MAX_PLOT_REGIONS}")
    # the files first: a reader that closes stdout early never costs them
    if args.plot:
        plot_regions(rc, args.plot)
    if args.json:
        from ..checks.t10_linear_regions import check_region_count

        result = check_region_count(net, box, kind=args.kind, expected=rc.count)
        write_json(args.json, json.loads(result.to_json()))
    print(f"{plural(rc.count, 'region')} ({args.kind}) on the box, exact ({rc.method}); "
          f"{plural(rc.activation_regions, 'activation region')}, {plural(rc.pieces, 'piece')}",
          file=human_stream(args.json))
    return 0
