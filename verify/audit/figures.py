"""Deterministic figures for audit reports (matplotlib, Agg canvas, PNG bytes), drawn from typed figure data.

A check that has something to draw puts it in ONE place of its Result: ``evidence["figure"]``, a mapping
``{"type": <figure type>, ...}`` whose fields are fixed per type (docs/reports.md, "Figure data"; the JSON
Schema is ``verify/schemas/figure.json``).  Nothing else is read: no key names are guessed.  Evidence is
metadata the kernel ignores, so the figure data never decides anything.

* ``softmax_error`` (T2): ``group`` (``"n = 4"``), ``series`` (x = lambda, y = error or bound);
* ``emulation_error`` (T7): ``series`` (x = lambda, y = the error or the lemma's bound);
* ``region_counts`` (T10): ``group`` (family and q), ``series`` (x = depth D, y = count or bound);
* ``gradient_flow`` (N10): ``group`` (eps), ``series`` (x = time t, y = loss or bound);
* ``pieces_2d`` (T10, T9): ``kind``, ``box``, ``pieces``: per region its exact cells (polygons);
* ``gram_spectrum`` (N7): ``name``, ``size``, ``verdict``, ``certified`` (enclosures or null), ``float64``.

A series is ``{"name": <plain words>, "role": "certified" | "exact" | "bound" | "evidence", "points":
[[x, y], ...]}`` with numbers as strings (``"3/4"``, ``"0.125"``, ``"1e-3"``).  The figures of a claim are
drawn from the Results of that claim only (:func:`claim_figures`); a claim without figure data has no figure
(never a placeholder).  A figure never raises: bad data is skipped with a note.

Determinism: fixed sizes and DPI, no pyplot global state, PNG metadata without the software version or a
timestamp -- the same data gives the same bytes.

>>> fig = render_xy("demo", [("y = x", [1, 2, 3], [1, 2, 3], {})], xlabel="x", ylabel="y")
>>> fig[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> number("3/4"), number({"lower": "1/2", "upper": "1"}), number("x")
(0.75, 1.0, None)
>>> figure_data({"evidence": {"figure": {"type": "region_counts", "series": []}}})["type"]
'region_counts'
>>> figure_data({"evidence": {"figure": {"type": "guess"}}}) is None
True
"""

from __future__ import annotations

import dataclasses
import io
import math
import re
from fractions import Fraction
from typing import Iterable, Optional

__all__ = ["FigureOut", "render_xy", "number", "figure_data", "claim_figures", "all_figures", "FIGURE_TYPES",
           "piece_boundaries", "draw_pieces"]

FIG_SIZE = (6.0, 4.0)
FIG_DPI = 100
FONT = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 9,
        "ytick.labelsize": 9, "legend.fontsize": 9, "figure.titlesize": 12}

# figure type -> (claim it belongs to, figure key, title)
FIGURE_TYPES = {
    "softmax_error": ("T2", "softmax", "Softmax error against the scale lambda, with the sharp bound"),
    "emulation_error": ("T7", "emulation", "Softmax Transformer against the network it emulates"),
    "region_counts": ("T10", "regions", "Exact region counts against depth, with the lower bound"),
    "pieces_2d": ("T10", "pieces2d", "Linear pieces of a network on a 2-D box (exact)"),
    "gram_spectrum": ("N7", "gram", "NTK Gram matrix: certified eigenvalue enclosures beside float64"),
    "gradient_flow": ("N10", "flow", "Gradient flow: the loss and its two bounds"),
}
ROLES = ("certified", "exact", "bound", "evidence")
MAX_GROUPS = 4


@dataclasses.dataclass(frozen=True)
class FigureOut:
    """One report figure of claim ``claim``: ``png`` is None when it could not be drawn (``note`` says why)."""

    key: str
    title: str
    png: Optional[bytes]
    note: str
    source: str = ""
    claim: str = ""

    @property
    def available(self) -> bool:
        return self.png is not None and len(self.png) > 0


# -- numbers --------------------------------------------------------------------------------------

_ARB_TEXT = re.compile(r"^\[([-+0-9.eE]+) \+/- ([0-9.eE+-]+)\]$")


def number(v) -> Optional[float]:
    """A finite float for plotting from a JSON value: int/float, ``"p/q"`` or decimal strings, an arb ball
    printed as ``"[mid +/- rad]"`` or ``{"lower", "upper"}`` (their upper end).  None if not a number."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, str):
        m = _ARB_TEXT.match(v.strip())
        if m:
            return number(m.group(1)) + float(m.group(2))
        try:
            return float(Fraction(v.strip()))
        except (ValueError, ZeroDivisionError, OverflowError):
            try:
                f = float(v)
            except ValueError:
                return None
            return f if math.isfinite(f) else None
    if isinstance(v, dict) and "upper" in v:
        return number(v["upper"])
    return None


def _exact(v) -> Optional[Fraction]:
    try:
        return Fraction(str(v).strip())
    except (ValueError, ZeroDivisionError):
        return None


# -- the typed data ---------------------------------------------------------------------------------

def figure_data(result) -> Optional[dict]:
    """The typed figure data of a Result dict (``evidence["figure"]``), or None if it has none of a known type."""
    if not isinstance(result, dict):
        return None
    ev = result.get("evidence")
    fig = ev.get("figure") if isinstance(ev, dict) else None
    if isinstance(fig, dict) and fig.get("type") in FIGURE_TYPES:
        return fig
    return None


def _base_claim(cid) -> str:
    return str(cid or "").split(".")[0]


def _figure_items(audits, claim: str) -> dict:
    """figure type -> [(audit id, figure data)] for the Results of ``claim`` (T2.n counts as T2)."""
    out = {}
    for a in audits:
        if not isinstance(a, dict) or _base_claim(a.get("claim")) != claim:
            continue
        fig = figure_data(a.get("result"))
        if fig is not None:
            if a.get("actual") != "proved":     # negative controls: drawn only when no PROVED Result has data
                fig = {**fig, "_control": True}
            out.setdefault(fig["type"], []).append((str(a.get("audit", claim)), fig))
    return out


def _series(fig) -> list:
    """``(name, role, [(x, y)])`` of the series of an x-y figure, points with a non-number dropped."""
    out = []
    for s in fig.get("series") or []:
        if not isinstance(s, dict) or not isinstance(s.get("points"), list):
            continue
        pts = []
        for p in s["points"]:
            if isinstance(p, list) and len(p) == 2:
                x, y = number(p[0]), number(p[1])
                if x is not None and y is not None:
                    pts.append((x, y))
        role = s.get("role") if s.get("role") in ROLES else "evidence"
        if pts:
            out.append((str(s.get("name", "")), role, sorted(pts)))
    return out


# -- rendering ----------------------------------------------------------------------------------------

def _new_figure(size=FIG_SIZE):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=FIG_DPI)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"path.simplify": True, "svg.hashsalt": "verify"}):
        fig.savefig(buf, format="png", dpi=FIG_DPI, metadata={"Software": None}, bbox_inches="tight",
                    pad_inches=0.15)
    return buf.getvalue()


def _rc():
    import matplotlib

    return matplotlib.rc_context(FONT)


_STYLE = {"bound": {"linestyle": "--", "linewidth": 1.5},
          "certified": {"marker": "o", "linestyle": "-", "linewidth": 1.0},
          "exact": {"marker": "o", "linestyle": "-", "linewidth": 1.0, "markersize": 3},
          "evidence": {"marker": "x", "linestyle": ":", "markersize": 6}}


def render_xy(title: str, series, xlabel: str = "", ylabel: str = "", logx=False, logy=False,
              size=FIG_SIZE, legend=None) -> bytes:
    """PNG of line/marker series ``(label, xs, ys, style-dict)``; the legend (the series' labels, or
    ``legend``: ``(label, style-dict)`` entries) goes to the right of the axes, outside them."""
    with _rc():
        fig = _new_figure(size)
        ax = fig.add_subplot(1, 1, 1)
        _draw_axes(ax, series, title, xlabel, ylabel, logx, logy, legend)
        pass  # the outer box is fitted by savefig(bbox_inches="tight")
        return _png(fig)


def _draw_axes(ax, series, title, xlabel, ylabel, logx, logy, legend=None) -> None:
    for label, xs, ys, style in series:
        ax.plot(xs, ys, label=None if legend is not None else label, **dict(style))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if logx:
        ax.xaxis.set_minor_locator(_null_locator())
    if logy:
        ax.yaxis.set_minor_locator(_null_locator())
    if legend is not None:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], **dict(style)) for _, style in legend]
        ax.legend(handles, [label for label, _ in legend], loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  frameon=False)
    elif any(label for label, *_ in series):
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)


def _null_locator():
    """No minor ticks on log axes: fewer labels to lay out (the major decades are labelled)."""
    from matplotlib.ticker import NullLocator

    return NullLocator()


def _wrap(text: str, width: int = 38) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


def _xy_figure(key, claim, title, groups, xlabel, ylabel, logx, logy, source, note) -> FigureOut:
    """One x-y figure from ``groups``: ``[(group label, [(name, role, points)])]``; colour per group, line
    style per role; the legend names each group once (its colour) and each series once (its style)."""
    series, legend, named = [], [], []
    for i, (glabel, ss) in enumerate(groups):
        colour = f"C{i % 10}"
        if glabel and len(groups) > 1:
            legend.append((_wrap(glabel), {"color": colour, "linewidth": 4}))
        for name, role, pts in ss:
            if name not in [n for n, _ in named]:
                k = sum(1 for _, st in named if st["role"] == role)
                variant = ({"linestyle": ("--", "-.", ":")[k % 3]} if role == "bound" else
                           {"marker": ("x", "+", "1")[k % 3]} if role == "evidence" else
                           {"marker": ("o", "s", "^", "D")[k % 4]})
                named.append((name, {**_STYLE[role], **variant, "role": role}))
            style = dict(next(st for n, st in named if n == name))
            style.pop("role")
            series.append((name, [x for x, _ in pts], [y for _, y in pts], {**style, "color": colour}))
    legend += [(_wrap(n), {**{k: v for k, v in st.items() if k != "role"},
                           "color": "dimgray" if len(groups) > 1 else "C0"}) for n, st in named]
    if logy and not all(y > 0 for _, _, ys, _ in series for y in ys):
        logy = False
    if len(groups) == 1 and groups[0][0]:
        title = f"{title}\n({groups[0][0]})"
    png = render_xy(_wrap(title, 60), series, xlabel, ylabel, logx=logx, logy=logy, legend=legend)
    return FigureOut(key, title.replace("\n", " "), png, note, source, claim)


def _pick_groups(labels: list) -> list:
    """At most MAX_GROUPS labels, sorted, keeping the first, the last and evenly spaced ones between."""
    if len(labels) <= MAX_GROUPS:
        return labels
    idx = sorted({round(i * (len(labels) - 1) / (MAX_GROUPS - 1)) for i in range(MAX_GROUPS)})
    return [labels[i] for i in idx]


def _group_key(label: str):
    m = re.search(r"(-?\d+(?:\.\d+)?)", label)
    return (re.sub(r"-?\d+(?:\.\d+)?", "", label), float(m.group(1)) if m else 0.0, label)


# -- the figures, one per type ---------------------------------------------------------------------------

def _softmax(items, claim) -> list:
    """T2: one point per Result, merged by (group, series name) across Results."""
    merged = {}
    for _, fig in items:
        for name, role, pts in _series(fig):
            merged.setdefault(str(fig.get("group", "")), {}).setdefault((name, role), set()).update(pts)
    labels = _pick_groups(sorted(merged, key=_group_key))
    groups = [(g, [(n, r, sorted(p)) for (n, r), p in sorted(merged[g].items(), key=lambda kv: ROLES.index(kv[0][1]))])
              for g in labels]
    if not groups:
        return []
    _, _, title = FIGURE_TYPES["softmax_error"]
    note = (f"{len(items)} Result{'s' if len(items) != 1 else ''}; tokens n = " + ", ".join(g.split("=")[-1].strip() for g in labels)
            + ". E = max s - <softmax(lambda s), s>, largest over all scores s in R^n; the bound is attained at "
            "s*, so the certified points sit on the bound.")
    return [_xy_figure("softmax", claim, title, groups, "softmax scale lambda",
                       "largest error max s - <softmax(lambda s), s>", True, True, items[0][0], note)]


def _one_result_per_group(items) -> list:
    """The Result with the most points per group (groups in sorted order, at most MAX_GROUPS)."""
    best = {}
    for audit_id, fig in items:
        ss = _series(fig)
        size = sum(len(p) for _, _, p in ss)
        g = str(fig.get("group", ""))
        if ss and (g not in best or size > best[g][0]):
            best[g] = (size, audit_id, ss)
    return [(g, best[g][1], best[g][2]) for g in _pick_groups(sorted(best, key=_group_key))]


def _emulation(items, claim) -> list:
    best = max(((sum(len(p) for _, _, p in _series(f)), a, f) for a, f in items), default=None)
    if best is None or best[0] == 0:
        return []
    _, audit_id, fig = best
    _, _, title = FIGURE_TYPES["emulation_error"]
    return [_xy_figure("emulation", claim, title, [("", _series(fig))], "softmax scale lambda",
                       "error |Transformer(x) - network(x)|", True, True, audit_id,
                       f"data: the audit {audit_id} (the T7 Result with the most scales)")]


def _regions(items, claim) -> list:
    chosen = _one_result_per_group([it for it in items if not it[1].get("_control")] or items)
    if not chosen:
        return []
    _, _, title = FIGURE_TYPES["region_counts"]
    per_family = {}                      # one group per family (the last in order: the largest q)
    for g, a, ss in chosen:
        per_family[g.split(",")[0]] = (g, a, ss)
    chosen = list(per_family.values())[:3]
    return [_xy_figure("regions", claim, title, [(g, ss) for g, _, ss in chosen], "depth D (number of sublayers)",
                       "number of linear regions", False, True, chosen[0][1],
                       "data: the audits " + ", ".join(a for _, a, _ in chosen))]


def _flow(items, claim) -> list:
    chosen = _one_result_per_group(items)[:2]
    if not chosen:
        return []
    _, _, title = FIGURE_TYPES["gradient_flow"]
    out = []
    for g, audit_id, ss in chosen:
        measured = [p for _, role, pts in ss if role != "bound" for p in pts]
        if measured:    # the bounds over the times where the loss was resolved (above its noise floor)
            t_max = max(t for t, _ in measured)
            ss = [(n, r, [p for p in pts if p[0] <= t_max] if r == "bound" else pts) for n, r, pts in ss]
        out.append(_xy_figure("flow", claim, title, [(g, ss)], "time t", "loss",
                              False, True, audit_id, f"data: the audit {audit_id}; the loss is float64 evidence, drawn (with the bounds) while it is above "
                              "its noise floor"))
    return out


def piece_boundaries(pieces) -> list:
    """The segments ``((x0, y0), (x1, y1))`` (exact Fractions) that separate different pieces, or a piece from
    the outside: cell edges shared by two cells of the same piece are left out, also where the cells of one
    piece meet along a line in edges of different lengths.  ``pieces`` is a list of pieces, each a list of
    cells, each a polygon (a list of 2-D points of exact numbers).

    >>> sq = lambda x0, y0: [[x0, y0], [x0 + 1, y0], [x0 + 1, y0 + 1], [x0, y0 + 1]]
    >>> len(piece_boundaries([[sq(0, 0), sq(1, 0)]]))   # one piece of two cells: its outline of 6 unit edges
    6
    >>> len(piece_boundaries([[sq(0, 0)], [sq(1, 0)]]))  # two pieces: the shared edge is drawn too
    7
    """
    lines = {}
    for pi, piece in enumerate(pieces):
        for cell in piece:
            pts = [(Fraction(str(p[0])), Fraction(str(p[1]))) for p in cell]
            for a, b in zip(pts, pts[1:] + pts[:1]):
                if a == b:
                    continue
                dy, dx = b[1] - a[1], a[0] - b[0]
                n = dy if dy != 0 else dx
                key = (dy / n, dx / n, (dy * a[0] + dx * a[1]) / n)
                k = 0 if dx != 0 else 1            # the coordinate that moves along the line
                lo, hi = sorted((a, b), key=lambda p: p[k])
                lines.setdefault(key, []).append((lo, hi, k, pi))
    out = []
    for key in sorted(lines):
        es = lines[key]
        k = es[0][2]
        stops = sorted({p for lo, hi, _, _ in es for p in (lo, hi)}, key=lambda p: p[k])
        for p, r in zip(stops, stops[1:]):
            mid = (p[k] + r[k]) / 2
            owners = [pi for lo, hi, _, pi in es if lo[k] < mid < hi[k]]
            if owners and not (len(owners) == 2 and owners[0] == owners[1]):
                out.append((p, r))
    return out


def draw_pieces(ax, pieces, box) -> None:
    """Fill each piece in one colour (its cells without edges) and draw only the piece boundaries."""
    import matplotlib
    from matplotlib.collections import LineCollection, PolyCollection

    cmap = matplotlib.colormaps["tab20"]
    polys, colours = [], []
    for i, piece in enumerate(pieces):
        for cell in piece:
            polys.append([(float(Fraction(str(x))), float(Fraction(str(y)))) for x, y in cell])
            colours.append(cmap(i % 20))
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors=colours, linewidths=0.4))
    segs = [[(float(a[0]), float(a[1])), (float(b[0]), float(b[1]))] for a, b in piece_boundaries(pieces)]
    ax.add_collection(LineCollection(segs, colors="black", linewidths=0.8))
    (x0, x1), (y0, y1) = [[float(Fraction(str(v))) for v in iv] for iv in box]
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("input x1")
    ax.set_ylabel("input x2")


def _pieces(items, claim) -> list:
    out = []
    for audit_id, fig in [it for it in items if not it[1].get("_control")] or items:
        pieces, box = fig.get("pieces"), fig.get("box")
        if not (isinstance(pieces, list) and pieces and isinstance(box, list) and len(box) == 2):
            continue
        try:
            words = "activation regions" if fig.get("kind") == "activation" else "pieces"
            title = f"{len(pieces)} {words} of a network on a 2-D box (exact)"
            with _rc():
                f = _new_figure((5.0, 4.6))
                ax = f.add_subplot(1, 1, 1)
                draw_pieces(ax, pieces, box)
                ax.set_title(title)
                pass  # the outer box is fitted by savefig(bbox_inches="tight")
                png = _png(f)
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        out.append(FigureOut("pieces2d", title, png, f"data: the audit {audit_id}; one colour per region, edges "
                             "drawn only between different regions", audit_id, claim))
        if len(out) >= 2:
            break
    return out


def _gram(items, claim) -> list:
    rows = []
    for audit_id, fig in items:
        f64 = fig.get("float64") if isinstance(fig.get("float64"), dict) else {}
        cert = fig.get("certified") if isinstance(fig.get("certified"), dict) else None
        name = str(fig.get("name") or audit_id.split("/", 1)[-1]).replace("docs/paper2.md §9.4 ", "table 9.4: ")
        rows.append((name, cert, f64, str(fig.get("verdict", ""))))
    if not rows:
        return []
    _, _, title = FIGURE_TYPES["gram_spectrum"]
    with _rc():
        height = max(3.2, 0.42 * len(rows) + 1.8)
        f = _new_figure((11.0, height))
        axes = [f.add_subplot(1, 2, i + 1) for i in range(2)]
        ys = list(range(len(rows)))
        labels = set()

        def once(label):
            if label in labels:
                return None
            labels.add(label)
            return label

        for ax, key, word in zip(axes, ("lambda_min", "lambda_max"), ("smallest", "largest")):
            for y, (name, cert, f64, verdict) in zip(ys, rows):
                if cert and isinstance(cert.get(key), list) and len(cert[key]) == 2:
                    lo, hi = number(cert[key][0]), number(cert[key][1])
                    if lo is not None and hi is not None and hi > 0:
                        ax.plot([max(lo, hi * 1e-3), hi], [y, y], color="C0", linewidth=7, solid_capstyle="butt",
                                label=once("certified enclosure (interval arithmetic)"))
                        ax.plot([hi], [y], "|", color="C0", markersize=14)
                elif key == "lambda_min":
                    text = ("certified singular (exact null vector)" if verdict == "refuted" else
                            "not decided (no certificate)")
                    ax.annotate(text, (0.98, y), xycoords=("axes fraction", "data"), ha="right", va="center",
                                fontsize=9, color="C3" if verdict == "refuted" else "dimgray")
                fv = number(f64.get(key))
                if fv is not None and fv != 0:
                    if fv > 0:
                        ax.plot([fv], [y], "o", color="C1", markersize=7, label=once("float64 eigvalsh"))
                    else:
                        ax.plot([-fv], [y], "x", color="C3", markersize=9, mew=2,
                                label=once("float64 eigvalsh below 0 (shown as |value|)"))
            if key == "lambda_min":
                ax.set_xscale("log")
            ax.set_yticks(ys)
            ax.set_ylim(-0.7, len(rows) - 0.3)
            ax.invert_yaxis()
            ax.set_xlabel(f"{word} eigenvalue of the Gram matrix")
            ax.grid(True, which="major", axis="x", alpha=0.3)
        axes[0].set_yticklabels([n for n, *_ in rows])
        axes[1].set_yticklabels([])
        handles, hlabels = [], []
        for ax in axes:
            h, l = ax.get_legend_handles_labels()
            handles += h
            hlabels += l
        f.legend(handles, hlabels, loc="lower center", ncol=3, frameon=False, bbox_to_anchor=(0.5, -0.02))
        f.suptitle(title)
        f.subplots_adjust(bottom=0.2, wspace=0.08)
        png = _png(f)
    return [FigureOut("gram", title, png, f"{len(rows)} N7 Results, one row each; float64 values are evidence",
                      items[0][0], claim)]


_BUILDERS = {"softmax_error": _softmax, "emulation_error": _emulation, "region_counts": _regions,
             "pieces_2d": _pieces, "gram_spectrum": _gram, "gradient_flow": _flow}


def claim_figures(audits: Iterable[dict], claim: str) -> list:
    """The figures of one claim, drawn from the typed figure data of its Results (an empty list if none).
    A figure whose data cannot be drawn comes back with ``png=None`` and the reason in ``note``."""
    items = _figure_items(list(audits), claim)
    out = []
    for ftype in FIGURE_TYPES:
        if ftype not in items:
            continue
        try:
            out += _BUILDERS[ftype](items[ftype], claim)
        except Exception as exc:  # a figure must never break the report
            _, key, title = FIGURE_TYPES[ftype]
            out.append(FigureOut(key, title, None, f"could not be drawn: {type(exc).__name__}: {exc}", "", claim))
    return out


def all_figures(audits) -> list:
    """The figures of every claim that has figure data in ``audits``, claims in order of first appearance."""
    audits = list(audits)
    claims = []
    for a in audits:
        c = _base_claim(a.get("claim")) if isinstance(a, dict) else ""
        if c and c not in claims:
            claims.append(c)
    return [f for c in claims for f in claim_figures(audits, c)]
