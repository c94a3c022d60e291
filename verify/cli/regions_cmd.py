"""``verify regions FILE [--kind pieces|activation] [--slice I,J --fix I=V,...] [--box LO:HI,...]
[--units original|normalised] [--time-budget SECONDS] [--max-cells N] [--plot out.png] [--json OUT]``: count the
linear regions of a maxout network exactly on its box (claim T10's counter).

FILE is a SPEC in the format of ``verify maxout`` (docs/paper1-objects.md): ``{"layers": [...], "readout": {...}?,
"box": [[lo, hi], ...]}``, or a trained network, ``.nnet``, ``.onnx`` or ``.npz`` (dispatched on the suffix;
docs/regions.md, Real networks).  ``--slice`` / ``--fix`` keep 1 or 2 inputs free (exact breakpoints in 1-D,
exact convex polygons in 2-D) and fix the others exactly.  ``--kind pieces`` (default) counts maximal connected
open sets on which the network is affine; ``--kind activation`` counts the sets on which every argmax set is
constant.  ``--json OUT`` writes a T10 Result (exact numbers as strings): PROVED "the network has exactly N regions
of this kind on the box", with a ``regions-count`` certificate (1-D: the exact activation breakpoints; 2-D: the
partition of the closed box into open polygons, segments and points) that ``verify check OUT`` re-checks with the
kernel, and prints a ``T10 PROVED`` line (``T10 INCONCLUSIVE`` with the reason when the count is beyond the
kernel's work bound, docs/regions.md, Limits); the regions themselves are evidence.  ``--plot`` draws the pieces (1-D graph, 2-D coloured polygons).
Budgets, not caps: no depth, rank or width is refused beyond the network's own limits; ``--max-cells`` (default
10^6 in 1-D, 10^5 in 2-D, at most 2,100,000) and ``--time-budget`` end a long count with an INCONCLUSIVE line (and
an INCONCLUSIVE T10 Result with ``--json``), never a hang.  Guards on the outputs: at most 20000 regions in a plot
and 200000 in a JSON listing (docs/conventions.md, Budgets and guards).  Exit 0 when the count (or the
INCONCLUSIVE line) is printed, 2 on bad input: the table of :mod:`verify.cli.conventions`.  docs/regions.md
describes the counting and its certificate.
"""

from __future__ import annotations

HELP = "count the linear regions of a maxout network exactly (1-D breakpoints, 2-D polygons)"

EXIT_NOTES = ("exit status: 0 when the exact count is printed (and the files asked for are written), or the "
              "INCONCLUSIVE line of a budget that ran out. SPEC format: "
              "docs/paper1-objects.md, Command line; counting and certificate: docs/regions.md.")

DEFAULT_CELLS_1D = 1_000_000   # --max-cells defaults (budgets: INCONCLUSIVE beyond, never a refusal)
DEFAULT_CELLS_2D = 100_000
MAX_CELLS = 2_100_000          # count_regions' own bound (verify.decide.regions.MAX_REGIONS; a test keeps them equal)
MAX_PLOT_REGIONS = 20_000
MAX_JSON_REGIONS = 200_000


def add_arguments(p):
    from .common import add_network_spec_arguments

    add_network_spec_arguments(p, f"(default {DEFAULT_CELLS_1D} in 1-D, {DEFAULT_CELLS_2D} in 2-D, at most "
                                  f"{MAX_CELLS}): cells of the sweep before an INCONCLUSIVE count")
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


def plot_regions(rc, path: str) -> None:
    """1-D: the graph of each piece; 2-D: the polygons of each region, one colour per region, with edges drawn
    only between different regions (not between the cells of one region)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

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
    else:   # one colour per region; edges only between different regions (verify.audit.figures.draw_pieces)
        from ..audit.figures import draw_pieces

        draw_pieces(ax, [reg["cells"] for reg in rc.regions], rc.box)
    ax.set_title(f"{region_words(rc.count, rc.kind)} (exact)")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


class _OutOfTime(BaseException):
    """The --time-budget ran out (raised by the interval timer; a BaseException so that no ``except Exception``
    of the code under way turns it into another error)."""


class _Clock:
    """``--time-budget`` and the progress line of a count: an interval timer (SIGALRM, main thread, POSIX) every
    half second shows the progress and raises :class:`_OutOfTime` past the budget.  A timer set by the caller
    (``signal.alarm``) is kept: its handler runs when it was due, and its remaining time is restored.  Without
    a timer (another thread, no POSIX) the budget is left to the counter itself."""

    def __init__(self, budget, progress):
        self.budget, self.progress = budget, progress
        self.old = None

    def __enter__(self):
        import signal
        import threading
        import time

        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return self
        self.t0 = t0 = time.monotonic()

        def tick(signum, frame):
            elapsed = time.monotonic() - t0
            if self.outer[0] > 0 and elapsed >= self.outer[0] and callable(self.old):
                self._restore(elapsed)
                self.old(signum, frame)
                return
            if self.budget is not None and elapsed > self.budget:
                self._restore(elapsed)
                raise _OutOfTime(f"the time budget of {self.budget:g} s ran out")
            self.progress(None, elapsed)

        self.old = signal.signal(signal.SIGALRM, tick)
        first = 0.5 if self.budget is None else max(0.001, min(0.5, self.budget))
        self.outer = signal.setitimer(signal.ITIMER_REAL, first, 0.5)
        return self

    def _restore(self, elapsed):
        import signal

        if self.old is None:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        self.old = None
        delay, interval = self.outer
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - elapsed, 0.001), interval)

    def __exit__(self, *exc):
        import time

        if self.old is not None:
            self._restore(time.monotonic() - self.t0)
        return False


def _inconclusive(args, net, box, reason: str) -> int:
    """The INCONCLUSIVE line (and T10 Result with --json) of a count whose budget ran out."""
    from ..arith.exact import fraction_str
    from ..results import Method, Result, Verdict
    from .conventions import human_stream, write_json

    summary = f"no exact count: {reason}; raise the budget (--time-budget, --max-cells) or shrink the box"
    if args.json:
        box_s = ", ".join(f"[{fraction_str(lo)}, {fraction_str(hi)}]" for lo, hi in box)
        res = Result("T10", f"the network has an exact number of regions (kind {args.kind}) on the box {box_s}",
                     Verdict.INCONCLUSIVE, Method.EXACT, certificate={"summary": summary},
                     parameters={"network": net.to_dict(), "box": [[lo, hi] for lo, hi in box], "kind": args.kind},
                     evidence={"budget": {"time_budget": args.time_budget, "max_cells": args.max_cells,
                                          "stopped": reason}})
        write_json(args.json, res.to_dict())
    print(f"T10 INCONCLUSIVE: {summary}", file=human_stream(args.json))
    return 0


def run(args) -> int:
    import inspect
    import json

    from ..decide.regions import count_regions
    from ..errors import InputError, SizeLimitError
    from .conventions import CellProgress
    from .common import check_output_path, parse_budgets, read_network_input
    from .conventions import check_json_path, human_stream, plural, write_json

    check_json_path(args.json)
    if args.plot:
        check_output_path(args.plot, "--plot")
    budget, max_cells = parse_budgets(args, 0, MAX_CELLS)
    inp = read_network_input(args)
    net, box = inp.net, inp.box
    if not max_cells:
        max_cells = DEFAULT_CELLS_1D if net.input_dim == 1 else DEFAULT_CELLS_2D
    need_regions = bool(args.json or args.plot)
    progress = CellProgress("verify regions", quiet=args.quiet)
    kwargs = {}
    accepted = inspect.signature(count_regions).parameters
    if "time_budget" in accepted and budget is not None:   # a counter with its own budget: the timer is a backstop
        kwargs["time_budget"] = budget
    if "progress" in accepted:
        kwargs["progress"] = progress
    backstop = None if budget is None else (budget if "time_budget" not in kwargs else 1.1 * budget + 1)
    try:
        with _Clock(backstop, progress):
            try:
                rc = count_regions(net, box, kind=args.kind, include_regions=need_regions, max_regions=max_cells,
                                   **kwargs)
                if not getattr(rc, "complete", True):    # a budget ran out: a partial result, no count
                    progress.close()
                    p = rc.partial
                    what = (f"the time budget of {float(budget):g} s ran out" if p["stopped"] == "time_budget"
                            else f"max_regions: more than {max_cells} cells")
                    return _inconclusive(args, net, box, f"{what} (swept {p['coverage']} of the box)")
            except SizeLimitError as exc:
                if exc.field == "box" and net.input_dim > 2:
                    raise SizeLimitError("--slice", f"the network has {net.input_dim} inputs: {exc.problem}; count "
                                                    "a slice of at most 6 inputs (--slice I,J,... --fix K=V,...): "
                                                    "exact counts of both kinds up to d = 6") from None
                if exc.field not in ("max_regions", "time_budget", "max_pairs", "exact_certificate"):
                    raise
                progress.close()
                return _inconclusive(args, net, box, str(exc))
            if args.json and rc.count > MAX_JSON_REGIONS:
                raise InputError("--json", f"{rc.count} regions exceed the limit {MAX_JSON_REGIONS} for the JSON "
                                           "listing")
            if args.plot and rc.count > MAX_PLOT_REGIONS:
                raise InputError("--plot", f"{rc.count} regions exceed the plotting limit {MAX_PLOT_REGIONS}")
            result = None
            if args.json:
                from ..checks.t10_linear_regions import check_region_count

                result = check_region_count(net, box, kind=args.kind, expected=rc.count)
    except _OutOfTime as exc:
        progress.close()
        return _inconclusive(args, net, box, str(exc))
    progress.close()
    # the files first: a reader that closes stdout early never costs them
    if args.plot:
        plot_regions(rc, args.plot)
    if args.json:
        write_json(args.json, json.loads(result.to_json()))
    out = human_stream(args.json)
    if inp.slice_note:
        print(f"{inp.source}; {inp.slice_note}", file=out)
    both = [plural(n, what) for n, what in ((rc.activation_regions, "activation region"), (rc.pieces, "piece"))
            if n is not None]                  # d >= 3: the count of the kind asked for (the other is None)
    print(f"{plural(rc.count, 'region')} ({args.kind}) on the box, exact ({rc.method}); " + ", ".join(both),
          file=out)
    if result is not None:
        if result.certificate and result.certificate.get("kind"):
            print(f"T10 {result.verdict.value.upper()}: exactly {plural(rc.count, 'region')} ({args.kind}), "
                  f"{result.certificate['kind']} certificate in {args.json} (`verify check` re-checks it)", file=out)
        else:
            print(f"T10 {result.verdict.value.upper()}: {result.evidence.get('summary', 'no certificate')}", file=out)
    return 0
