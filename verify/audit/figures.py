"""Deterministic figures for audit reports (matplotlib, Agg canvas, PNG bytes).

Each figure is drawn from the Results of an audit run (their ``evidence`` / ``certificate`` data,
as written by ``verify audit --json``) when the data is there, otherwise from a small direct
computation, otherwise it is skipped with a note ``figure unavailable: <why>``.  A figure never
raises: the report must be written whatever audits exist.

Determinism: fixed sizes and DPI, no pyplot global state, PNG metadata without the software
version or a timestamp -- the same data gives the same bytes.

>>> fig = render_xy("demo", [("y = x", [1, 2, 3], [1, 2, 3], {})], xlabel="x", ylabel="y")
>>> fig[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> number("3/4"), number({"lower": "1/2", "upper": "1"}), number("x")
(0.75, 1.0, None)
"""

from __future__ import annotations

import dataclasses
import io
import math
import re
from fractions import Fraction
from typing import Any, Iterable, Optional

__all__ = ["FigureOut", "render_xy", "number", "all_figures", "FIGURES",
           "softmax_error_figure", "region_counts_figure", "pieces_2d_figure", "gram_spectrum_figure",
           "gradient_flow_figure"]

FIG_SIZE = (6.4, 4.0)
FIG_DPI = 90


@dataclasses.dataclass(frozen=True)
class FigureOut:
    """One report figure: ``png`` is None when unavailable, and ``note`` says why."""

    key: str
    title: str
    png: Optional[bytes]
    note: str
    source: str = ""

    @property
    def available(self) -> bool:
        return self.png is not None and len(self.png) > 0


class FigureUnavailable(Exception):
    """Raised inside a figure builder to skip it with a reason."""


# -- numbers in Result JSON --------------------------------------------------------------------

_ARB_TEXT = re.compile(r"^\[([-+0-9.eE]+) \+/- ([0-9.eE+-]+)\]$")


def number(v) -> Optional[float]:
    """A float for plotting from a JSON value: int/float, ``"p/q"`` or decimal strings, or a ball
    ``{"lower", "upper"}`` (its upper end: figures show certified upper bounds).  None if not a number."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, str):
        m = _ARB_TEXT.match(v.strip())
        if m:   # an arb ball printed as "[mid +/- rad]": its upper end
            return number(m.group(1)) + float(m.group(2))
        try:
            return float(Fraction(v.strip()))
        except (ValueError, ZeroDivisionError):
            try:
                f = float(v)
            except ValueError:
                return None
            return f if math.isfinite(f) else None
    if isinstance(v, dict):
        for key in ("upper", "hi", "high", "mid", "value", "approx"):
            if key in v:
                return number(v[key])
    return None


def _lower(v) -> Optional[float]:
    if isinstance(v, dict):
        for key in ("lower", "lo", "low"):
            if key in v:
                return number(v[key])
    return number(v)


def _walk(obj, path=()):
    """Yield ``(path, key, value)`` for every mapping entry, depth first, keys in sorted order."""
    if isinstance(obj, dict):
        for k in sorted(obj, key=str):
            v = obj[k]
            yield path, str(k), v
            yield from _walk(v, path + (str(k),))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, path + (str(i),))


def _results(audits: Iterable[dict], claim: str) -> list:
    """``(audit_id, result_dict)`` of every audit of ``claim`` that produced a Result."""
    out = []
    for a in audits:
        r = a.get("result") if isinstance(a, dict) else None
        if isinstance(r, dict) and str(a.get("claim", "")).split(".")[0] == claim:
            out.append((a.get("audit", claim), r))
    return out


def _numeric_list(v, min_len=2) -> Optional[list]:
    if not isinstance(v, list) or len(v) < min_len:
        return None
    xs = [number(x) for x in v]
    return xs if all(x is not None for x in xs) else None


def _rows(v) -> Optional[list]:
    """A list of rows: either lists of numbers or dicts; returned as list of dicts or lists."""
    if not isinstance(v, list) or len(v) < 2:
        return None
    if all(isinstance(r, dict) for r in v):
        return v
    if all(isinstance(r, list) and len(r) >= 2 and all(number(x) is not None for x in r[:2]) for r in v):
        return v
    return None


def _key_like(key: str, words) -> bool:
    k = key.lower()
    return any(w in k for w in words)


def _pick(row: dict, words, exclude=()) -> Optional[Any]:
    for k in sorted(row, key=str):
        if _key_like(k, words) and not _key_like(k, exclude):
            return row[k]
    return None


# -- rendering ---------------------------------------------------------------------------------

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
        fig.savefig(buf, format="png", dpi=FIG_DPI, metadata={"Software": None})
    return buf.getvalue()


def render_xy(title: str, series, xlabel: str = "", ylabel: str = "", logx=False, logy=False,
              size=FIG_SIZE) -> bytes:
    """PNG of line/marker series ``(label, xs, ys, style-dict)``."""
    fig = _new_figure(size)
    _draw_axes(fig.add_subplot(1, 1, 1), series, title, xlabel, ylabel, logx, logy, title_size=10, legend_size=8)
    fig.tight_layout()
    return _png(fig)


def _draw_axes(ax, series, title, xlabel, ylabel, logx, logy, title_size, legend_size) -> None:
    """Line/marker series on one axes, with scales, labels, grid and legend."""
    for label, xs, ys, style in series:
        ax.plot(xs, ys, label=label, **dict(style))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title, fontsize=title_size)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    if series:
        ax.legend(fontsize=legend_size)


def render_panels(title: str, panels, xlabel: str = "", logx=False, logy=False) -> bytes:
    """PNG with one subplot per ``(subtitle, series, ylabel)`` side by side."""
    k = len(panels)
    fig = _new_figure((FIG_SIZE[0] * (1 if k == 1 else 0.85 * k), FIG_SIZE[1]))
    for i, (subtitle, series, ylabel) in enumerate(panels):
        _draw_axes(fig.add_subplot(1, k, i + 1), series, subtitle, xlabel, ylabel, logx, logy,
                   title_size=9, legend_size=6)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return _png(fig)


def _lambert_w0(x: float) -> float:
    import mpmath

    return float(mpmath.lambertw(x).real)


# -- T2 / T7: softmax error vs lambda ------------------------------------------------------------

def _lambda_error_rows(result: dict):
    """Rows ``(lambda, error, bound-or-None)`` from a T2/T7 Result, looking for lists under keys that
    mention lambda/error in its evidence and certificate."""
    for part in ("evidence", "certificate"):
        for _, key, v in _walk(result.get(part, {})):
            rows = _rows(v)
            if rows is None or not _key_like(key, ("lambda", "error", "err")) or _key_like(key, ("bound",)):
                continue
            bounds = {}
            for _, bkey, bv in _walk(result.get(part, {})):
                brows = _rows(bv)
                if brows and _key_like(bkey, ("bound",)) and _key_like(bkey, ("lambda",)):
                    bounds = {number(b[0]): number(b[1]) for b in brows if isinstance(b, list) and len(b) >= 2}
                    break
            out = []
            for r in rows:
                if isinstance(r, dict):
                    lam = number(_pick(r, ("lambda", "lam", "scale")))
                    err = number(_pick(r, ("error", "err", "max"), exclude=("bound",)))
                    bnd = number(_pick(r, ("bound",)))
                else:
                    lam, err = number(r[0]), number(r[1])
                    bnd = number(r[2]) if len(r) > 2 else bounds.get(lam)
                if lam is None or err is None or lam <= 0 or err <= 0:
                    out = []
                    break
                out.append((lam, err, bnd))
            if len(out) >= 2:
                return key, out
    return None


def _t2_panel(audits):
    """Series per n from the T2 sharp-bound Results: evidence max E found, the certified E(s*) and the
    certified bound W0((n-1)/e)/lambda, against lambda."""
    per_n = {}
    for audit_id, r in _results(audits, "T2"):
        params, cert, ev = r.get("parameters", {}), r.get("certificate", {}), r.get("evidence", {})
        n, lam = number(params.get("n")), number(params.get("lam"))
        if n is None or lam is None or not isinstance(cert, dict) or cert.get("kind") != "softmax-bound":
            continue
        if params.get("bound", "w0") != "w0" or number(params.get("factor", "1")) != 1.0:
            continue
        balls = ev.get("balls", {}) if isinstance(ev, dict) else {}
        search = ev.get("search", {}) if isinstance(ev, dict) else {}
        bound = number(balls.get("sharp_bound")) if isinstance(balls, dict) else None
        att = balls.get("E_at_witness") if isinstance(balls, dict) else None
        found = number(search.get("max_E_found")) if isinstance(search, dict) else None
        if bound is None:
            continue
        per_n.setdefault(int(n), []).append((lam, bound, number(att) if att is not None else None, found))
    series = []
    ns = sorted(k for k, v in per_n.items() if len({x[0] for x in v}) >= 2)
    if len(ns) > 4:  # keep the picture readable: smallest, largest and two in between
        ns = sorted({ns[0], ns[len(ns) // 3], ns[(2 * len(ns)) // 3], ns[-1]})
    for i, n in enumerate(ns):
        rows = sorted(per_n[n])
        lams = [x[0] for x in rows]
        c = f"C{i % 10}"
        series.append((f"n={n}: W0((n-1)/e)/lambda (certified)", lams, [x[1] for x in rows],
                       {"linestyle": "--", "color": c}))
        att = [(x[0], x[2]) for x in rows if x[2] is not None]
        if att:
            series.append(("certified E(s*)" if i == 0 else None, [a for a, _ in att], [b for _, b in att],
                           {"marker": "o", "linestyle": "", "color": c}))
        found = [(x[0], x[3]) for x in rows if x[3] is not None]
        if found:
            series.append(("max E found by search (evidence)" if i == 0 else None, [a for a, _ in found],
                           [b for _, b in found], {"marker": "x", "markersize": 9, "linestyle": "", "color": c}))
    return series


def _tables(audits, claim: str, rows_of):
    """``(audit_id, result, (key, rows))`` for each Result of ``claim`` from which ``rows_of`` reads a table."""
    for audit_id, r in _results(audits, claim):
        found = rows_of(r)
        if found:
            yield audit_id, r, found


def _measured_with_bound(label: str, rows, bound_label: str, fallback) -> list:
    """Two series from rows ``(x, measured, bound or None)``: the measured curve, and the bound column when
    every row has one, else ``fallback(xs) -> (label, ys)`` (the bound recomputed from the parameters)."""
    rows = sorted(rows)
    xs = [x[0] for x in rows]
    series = [(label, xs, [x[1] for x in rows], {"marker": "o", "linestyle": "-"})]
    if all(x[2] is not None for x in rows):
        series.append((bound_label, xs, [x[2] for x in rows], {"linestyle": "--"}))
    else:
        fallback_label, ys = fallback(xs)
        series.append((fallback_label, xs, ys, {"linestyle": "--"}))
    return series


def softmax_error_figure(audits) -> FigureOut:
    title = "Softmax error vs lambda (log-log) with the bound W0((n-1)/e)/lambda"
    panels, sources = [], []
    t2 = _t2_panel(audits)
    if t2:
        panels.append(("T2: max s - <softmax(lambda s), s>", t2, "E"))
        sources.append("T2 sharp-bound audits")
    for audit_id, r, (key, rows) in _tables(audits, "T7", _lambda_error_rows):

        def w0_bound(lams, r=r):
            n = number(r.get("parameters", {}).get("n")) or number(r.get("parameters", {}).get("k")) or 2
            c = _lambert_w0((n - 1) / math.e)
            return f"W0(({int(n)}-1)/e)/lambda", [c / x for x in lams]

        series = _measured_with_bound(f"{audit_id}: {key}", rows, "bound (from the Result)", w0_bound)
        panels.append((f"T7: sup |T_lambda - Phi| ({audit_id})", series, "sup error"))
        sources.append(audit_id)
        break
    if panels:
        png = render_panels(title, panels, "lambda", logx=True, logy=True)
        return FigureOut("softmax", title, png, "data: " + ", ".join(sources), sources[0])
    # direct computation (evidence only): E_lambda at s* and a seeded random search, n in {2, 4, 8}
    import numpy as np

    rng = np.random.default_rng(20260)
    lams = [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0]
    series = []
    for i, n in enumerate((2, 4, 8)):
        w = _lambert_w0((n - 1) / math.e)
        s = rng.uniform(-1.0, 1.0, size=(2000, n))
        best = []
        for lam in lams:
            z = lam * s
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            e_rand = float((s.max(axis=1) - (p * s).sum(axis=1)).max())
            # the maximiser s* = (u*/lambda, 0, ..., 0), u* = 1 + W0((n-1)/e)
            u = (1 + w) / lam
            q = np.exp(np.array([lam * u] + [0.0] * (n - 1)) - lam * u)
            q /= q.sum()
            e_star = u - float(q[0] * u)
            best.append(max(e_rand, e_star))
        series.append((f"n={n}: max E (s* and 2000 random s)", lams, best,
                       {"marker": "o", "linestyle": "", "color": f"C{i}"}))
        series.append((f"n={n}: W0((n-1)/e)/lambda", lams, [w / x for x in lams],
                       {"linestyle": "--", "color": f"C{i}"}))
    png = render_xy(title, series, "lambda", "max s - <softmax(lambda s), s>", logx=True, logy=True)
    return FigureOut("softmax", title, png, "computed directly (float64 evidence; no T2/T7 error data in "
                     "this run)", "direct")


# -- T10: region counts vs depth -------------------------------------------------------------------

def _count_rows(result: dict):
    """The richest count-vs-depth table of a Result: tables with a bound column first, then the longest."""
    best = None
    for part in ("certificate", "evidence"):
        for _, key, v in _walk(result.get(part, {})):
            rows = _rows(v)
            if rows is None or not all(isinstance(r, dict) for r in rows):
                continue
            out = []
            for r in rows:
                d = number(_pick(r, ("depth", "sublayers"))) if _pick(r, ("depth", "sublayers")) is not None \
                    else number(r.get("D"))
                cnt = number(_pick(r, ("count", "regions", "pieces"), exclude=("bound", "expected")))
                bnd = number(_pick(r, ("bound",)))
                if d is None or cnt is None:
                    out = []
                    break
                out.append((d, cnt, bnd))
            if len(out) >= 2:
                rank = (all(x[2] is not None for x in out), len(out))
                if best is None or rank > best[0]:
                    best = (rank, key, out)
    return None if best is None else (best[1], best[2])


def region_counts_figure(audits) -> FigureOut:
    title = "Exact region counts vs depth D with the bound q^(floor(D/3)-1)"
    series = []
    sources = []
    for audit_id, r, (key, rows) in _tables(audits, "T10", _count_rows):

        def depth_bound(ds, r=r):
            q = number(r.get("conventions", {}).get("q")) or number(r.get("parameters", {}).get("q")) or 2
            return f"q^(floor(D/3)-1), q={int(q)}", [float(q) ** (math.floor(d / 3) - 1) for d in ds]

        series += _measured_with_bound(f"{audit_id}", rows, f"{audit_id}: bound", depth_bound)
        sources.append(audit_id)
        if len(sources) >= 3:
            break
    if not series:
        raise FigureUnavailable("no T10 Result in this run carries a count-vs-depth table")
    png = render_xy(title, series, "depth D (sublayers)", "linear regions", logy=True)
    return FigureOut("regions", title, png, "data: " + ", ".join(sources), sources[0])


# -- T10 / T6: a 2-D picture of pieces ----------------------------------------------------------------

def _polygon(v) -> Optional[list]:
    if not isinstance(v, list) or len(v) < 3:
        return None
    pts = []
    for p in v:
        if not (isinstance(p, list) and len(p) == 2):
            return None
        x, y = number(p[0]), number(p[1])
        if x is None or y is None:
            return None
        pts.append((x, y))
    return pts


def _polygons(result: dict) -> list:
    polys = []
    for _, key, v in _walk(result.get("certificate", {})):
        if _key_like(key, ("vertices", "polygon")):
            p = _polygon(v)
            if p:
                polys.append(p)
    return polys


def pieces_2d_figure(audits) -> FigureOut:
    title = "Linear pieces of a 2-D network (exact polygons)"
    for claim in ("T10", "T6", "T9", "T8"):
        for audit_id, r in _results(audits, claim):
            polys = _polygons(r)
            if len(polys) >= 2:
                return FigureOut("pieces2d", title, _draw_polygons(title, polys), f"data: {audit_id}, "
                                 f"{len(polys)} regions", audit_id)
    polys = _direct_polygons()
    if polys:
        return FigureOut("pieces2d", title, _draw_polygons(title, polys), "computed directly with "
                         "verify.decide.regions.count_regions", "direct")
    raise FigureUnavailable("no Result with 2-D region polygons in this run, and count_regions is not available")


def _draw_polygons(title, polys) -> bytes:
    from matplotlib.patches import Polygon

    fig = _new_figure((5.2, 5.0))
    ax = fig.add_subplot(1, 1, 1)
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    xs = [x for p in polys for x, _ in p]
    ys = [y for p in polys for _, y in p]
    for i, p in enumerate(polys):
        ax.add_patch(Polygon(p, closed=True, facecolor=cmap(i % 20), edgecolor="black", linewidth=0.5))
    ax.set_xlim(min(xs), max(xs))
    ax.set_ylim(min(ys), max(ys))
    ax.set_aspect("equal")
    ax.set_title(f"{title}: {len(polys)} regions", fontsize=10)
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    fig.tight_layout()
    return _png(fig)


def _direct_polygons() -> list:
    """Regions of a small fixed 2-D ReLU/maxout network (exact polygons from the region counter)."""
    from ..decide.regions import count_regions
    from ..objects.maxout import MaxoutNetwork

    net = MaxoutNetwork.from_relu([[[1, 0], [0, 1], [1, 1], [1, -1]], [[1, -1, 1, 0], [0, 1, -1, 1]]],
                                  [[0, 0, "-1/2", "1/4"], ["1/4", "-1/2"]])
    rc = count_regions(net, [[-1, 1], [-1, 1]], kind="pieces")
    polys = []
    for region in getattr(rc, "regions", []):
        data = region.to_dict() if hasattr(region, "to_dict") else region
        for _, key, v in _walk(data if isinstance(data, dict) else {"r": data}):
            if _key_like(key, ("vertices", "polygon")):
                p = _polygon(_jsonish(v))
                if p:
                    polys.append(p)
                    break
    return polys


def _jsonish(v):
    from ..canonical import jsonable

    try:
        return jsonable(v)
    except TypeError:
        return v


# -- N7: Gram spectrum, float64 vs certified ------------------------------------------------------------

def _float_gram_from_certificate(cert: dict):
    """The float64 V-block Gram rebuilt from the parameters of an ``ntk-cholesky`` Result (laws, queries,
    heads) whose laws are discrete (law-index-major order), or None."""
    import numpy as np

    laws, queries, heads = cert.get("laws"), cert.get("queries"), cert.get("heads")
    if not (isinstance(laws, list) and isinstance(queries, list) and isinstance(heads, list) and heads):
        return None
    atoms, weights = [], []
    for law in laws:
        if not isinstance(law, dict) or law.get("family") != "discrete":
            return None
        x = np.array([[number(v) for v in p] for p in law["atoms"]], dtype=float)
        w = law.get("weights")
        w = np.full(len(x), 1.0 / len(x)) if w is None else np.array([number(v) for v in w], dtype=float)
        atoms.append(x)
        weights.append(w)
    q = np.array([[number(v) for v in row] for row in queries], dtype=float)
    A = np.array([[[number(v) for v in row] for row in h] for h in heads], dtype=float)
    n, m = len(laws), len(q)
    K = np.zeros((n * m, n * m))
    for Ah in A:
        g = np.zeros((n * m, q.shape[1]))
        for i in range(n):
            for a in range(m):
                theta = Ah @ q[a]
                z = atoms[i] @ theta
                p = weights[i] * np.exp(z - z.max())
                g[i * m + a] = (p / p.sum()) @ atoms[i]
        K += g @ g.T
    return K / len(A)


def gram_spectrum_figure(audits) -> FigureOut:
    title = "NTK Gram spectrum: float64 eigvalsh vs certified enclosures (N7)"
    import numpy as np

    best = None
    rows = []
    for audit_id, r in _results(audits, "N7"):
        cert, ev = r.get("certificate", {}), r.get("evidence", {})
        # the certified spectrum enclosure is informational: it sits in the evidence beside float64
        spec = ev.get("spectrum") if isinstance(ev, dict) else None
        f64 = ev.get("float64") if isinstance(ev, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("ratio"), dict):
            lo, hi = _lower(spec["ratio"]), number(spec["ratio"])
            fr = number(f64.get("ratio")) if isinstance(f64, dict) else None
            if lo is not None and hi is not None:
                rows.append((audit_id.split("/", 1)[-1], lo, hi, fr))
                if cert.get("kind") == "ntk-cholesky" and (best is None or lo < best[1]):
                    best = (audit_id, lo, r)
    if not rows:
        raise FigureUnavailable("no N7 Result in this run carries a certified spectrum enclosure")
    panels = []
    fig = _new_figure((FIG_SIZE[0] * 1.7, FIG_SIZE[1] * 1.1))
    ax1 = fig.add_subplot(1, 2, 1)
    note = ""
    if best is not None:
        audit_id, _, r = best
        K = _float_gram_from_certificate(r["parameters"])
        spec = r["evidence"]["spectrum"]
        if K is not None:
            ev = np.sort(np.linalg.eigvalsh(K))
            idx = np.arange(1, len(ev) + 1)
            pos = ev > 0
            ax1.plot(idx[pos], ev[pos], "o", label="float64 eigvalsh (> 0)")
            if (~pos).any():
                ax1.plot(idx[~pos], np.abs(ev[~pos]), "x", color="red", label="float64 eigvalsh (<= 0, |value|)")
            for key, colour in (("lambda_min", "C2"), ("lambda_max", "C3")):
                if isinstance(spec.get(key), dict):
                    lo, hi = _lower(spec[key]), number(spec[key])
                    if lo and hi and lo > 0:
                        ax1.axhspan(lo, hi, color=colour, alpha=0.35)
                        ax1.axhline(lo, color=colour, linewidth=1, label=f"certified {key} enclosure")
            ax1.set_yscale("log")
            ax1.set_title(f"spectrum of the Gram of {audit_id}", fontsize=8)
            ax1.set_xlabel("index")
            ax1.set_ylabel("eigenvalue")
            ax1.legend(fontsize=6)
            ax1.grid(True, which="both", alpha=0.3)
            note = f"spectrum: {audit_id} (float64 Gram rebuilt from the certificate's exact heads); "
    ax2 = fig.add_subplot(1, 2, 2)
    ys = list(range(len(rows)))
    for y, (name, lo, hi, fr) in zip(ys, rows):
        ax2.plot([max(lo, 1e-300), hi], [y, y], color="C0", linewidth=6, solid_capstyle="butt")
        ax2.plot([hi], [y], "D", markersize=9, markerfacecolor="none", markeredgecolor="C0",
                 label="certified enclosure" if y == 0 else None)
        if fr is not None:
            ax2.plot([abs(fr) if fr != 0 else 1e-300], [y], "x" if fr <= 0 else "o", color="red" if fr <= 0 else "C1",
                     label="float64 lambda_min/lambda_max" if y == 0 else None)
    ax2.set_xscale("log")
    ax2.set_yticks(ys)
    ax2.set_yticklabels([n[:28] for n, *_ in rows], fontsize=6)
    ax2.set_xlabel("lambda_min / lambda_max")
    ax2.set_title("per audit: certified vs float64", fontsize=8)
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return FigureOut("gram", title, _png(fig), note + f"ratios: {len(rows)} N7 Results",
                     best[0] if best else rows[0][0])


# -- N10: gradient-flow loss vs envelope -----------------------------------------------------------------

def gradient_flow_figure(audits) -> FigureOut:
    title = "Gradient flow: loss L(t) vs its envelopes (N10)"
    for audit_id, r in _results(audits, "N10"):
        times, loss, bounds = None, None, []
        for _, key, v in _walk(r.get("evidence", {})):
            xs = _numeric_list(v, 3)
            if xs is None:
                continue
            k = key.lower()
            if times is None and (k in ("t", "times", "time", "ts") or k.endswith("_t") or k.startswith("t_")):
                times = xs
            elif "envelope" in k or "bound" in k:
                bounds.append((key, xs))
            elif loss is None and "loss" in k:
                loss = (key, xs)
        if loss is None:
            continue
        lk, ys = loss
        ts = times if times and len(times) == len(ys) else list(range(len(ys)))
        series = [(f"{lk} (evidence)", ts, ys, {"linestyle": "-", "linewidth": 2})]
        for bk, bv in bounds[:3]:
            if len(bv) == len(ys):
                series.append((bk, ts, bv, {"linestyle": "--"}))
        positive = all(y > 0 for _, _, yy, _ in series for y in yy)
        png = render_xy(title + f" ({audit_id})", series, "t", "loss", logy=positive)
        return FigureOut("flow", title, png, f"data: {audit_id}", audit_id)
    raise FigureUnavailable("no N10 Result in this run carries a loss curve in its evidence")


FIGURES = [softmax_error_figure, region_counts_figure, pieces_2d_figure, gram_spectrum_figure,
           gradient_flow_figure]
_TITLES = {
    "softmax_error_figure": ("softmax", "Softmax error vs lambda (T2/T7)"),
    "region_counts_figure": ("regions", "Region counts vs depth (T10)"),
    "pieces_2d_figure": ("pieces2d", "2-D picture of pieces (T10)"),
    "gram_spectrum_figure": ("gram", "NTK Gram spectrum (N7)"),
    "gradient_flow_figure": ("flow", "Gradient-flow loss vs envelope (N10)"),
}


def all_figures(audits) -> list:
    """Every report figure; one that cannot be drawn comes back with ``png=None`` and a note."""
    audits = list(audits)
    out = []
    for builder in FIGURES:
        key, title = _TITLES[builder.__name__]
        try:
            out.append(builder(audits))
        except FigureUnavailable as exc:
            out.append(FigureOut(key, title, None, f"figure unavailable: {exc}"))
        except Exception as exc:  # a figure must never break the report
            out.append(FigureOut(key, title, None, f"figure unavailable: {type(exc).__name__}: {exc}"))
    return out
