"""Self-contained audit reports: ``verify audit --report report.html`` (or ``report.md``).

One file: the claim table (ID, statement, rigour, expected vs actual verdict, time), every
certificate summary, and the figures of :mod:`verify.audit.figures` as base64-embedded PNGs.  The
report is built from the audit JSON document (:func:`verify.audit.runner.audit_report_dict`), so a
saved ``verify audit --json`` file can be rendered later with :func:`build_report`.  Apart from the
times, the same audit run gives the same report bytes (no dates, deterministic PNGs).

>>> report_format_of("out/report.html"), report_format_of("r.md")
('html', 'md')
>>> report_format_of("r.pdf")
Traceback (most recent call last):
...
verify.errors.InputError: --report: file name must end in .html, .htm or .md, got 'r.pdf'
>>> from verify.results import Result
>>> "<b>PROVED</b>" in result_html(Result("T3", "gate", "proved", "exact", {"kind": "gate-case-split", "summary": "case split"}))
True
"""

from __future__ import annotations

import base64
import html
from typing import Mapping, Optional

from ..canonical import atomic_write_text
from ..claims import CLAIMS, PAPERS, claim_ids
from ..errors import InputError

__all__ = ["report_format_of", "build_report", "write_report", "result_html", "claim_rows"]

_FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}


def report_format_of(path: str) -> str:
    """``"html"`` or ``"md"`` from the file name; anything else is an InputError."""
    lower = str(path).lower()
    for ext, fmt in _FORMATS.items():
        if lower.endswith(ext):
            return fmt
    raise InputError("--report", f"file name must end in .html, .htm or .md, got {path!r}")


def _summary_of(result: Optional[Mapping]) -> str:
    if not isinstance(result, Mapping):
        return ""
    cert = result.get("certificate")
    if isinstance(cert, Mapping) and cert.get("summary"):
        return str(cert["summary"])
    return ""


def _time_of(audit: Mapping) -> float:
    t = audit.get("timing", {})
    try:
        return float(t.get("elapsed_s", 0.0))
    except (TypeError, ValueError, AttributeError):
        return 0.0


def claim_rows(report: Mapping) -> list:
    """One row per audit: claim ID, audit, statement, rigour (catalogue / method), expected, actual,
    met, time, certificate summary, error."""
    rows = []
    for a in report.get("audits", []):
        cid = str(a.get("claim", ""))
        claim = CLAIMS.get(cid.split(".")[0])
        result = a.get("result") if isinstance(a.get("result"), Mapping) else None
        rows.append({
            "claim": cid,
            "audit": str(a.get("audit", "")),
            "title": claim.title if claim else "",
            "statement": (result or {}).get("statement") or (claim.statement if claim else ""),
            "rigour": claim.rigor if claim else "",
            "method": (result or {}).get("method", "-"),
            "expected": str(a.get("expected", "")),
            "actual": str(a.get("actual", "")),
            "met": bool(a.get("met")),
            "time": _time_of(a),
            "summary": _summary_of(result),
            "error": a.get("error") or "",
            "conventions": (result or {}).get("conventions", {}),
        })
    return rows


def _claim_overview(report: Mapping) -> list:
    """Per claim: ID, title, rigour, audits met / total (claims without audits included)."""
    counts = {}
    for a in report.get("audits", []):
        cid = str(a.get("claim", "")).split(".")[0]
        met, total = counts.get(cid, (0, 0))
        counts[cid] = (met + bool(a.get("met")), total + 1)
    out = []
    for cid in claim_ids():
        c = CLAIMS[cid]
        met, total = counts.get(cid, (0, 0))
        out.append((cid, c.title, c.rigor, met, total))
    return out


# -- HTML ------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em;max-width:75em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}
th,td{border:1px solid #ccc;padding:0.3em 0.5em;vertical-align:top;text-align:left}
th{background:#f2f2f2}
tr.miss td{background:#fde2e2}
.proved{color:#0a6d2c;font-weight:bold}.refuted{color:#a11;font-weight:bold}.inconclusive{color:#8a6d00;font-weight:bold}
.error{color:#a11}
figure{margin:1.5em 0}figcaption{font-size:0.9em;color:#555}
.unavailable{color:#8a6d00;font-style:italic}
code{background:#f6f6f6;padding:0 0.2em}
"""


def _verdict_span(v: str) -> str:
    v = str(v)
    cls = v if v in ("proved", "refuted", "inconclusive") else "error"
    return f'<span class="{cls}">{html.escape(v.upper())}</span>'


def result_html(result) -> str:
    """An HTML fragment for one Result (a ``Result`` or its dict): claim, statement, verdict, method,
    conventions and certificate summary.  Suitable as ``Result._repr_html_``."""
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    rows = [f"<p><b>{html.escape(str(d.get('claim', '')))}</b> &mdash; {html.escape(str(d.get('statement', '')))}</p>",
            "<table><tr><th>verdict</th><th>method</th></tr>",
            f"<tr><td><b>{html.escape(str(d.get('verdict', '')).upper())}</b></td>"
            f"<td>{html.escape(str(d.get('method', '')))}</td></tr></table>"]
    conv = d.get("conventions") or {}
    if conv:
        rows.append("<p>Conventions: " + ", ".join(
            f"<code>{html.escape(str(k))}={html.escape(str(v))}</code>" for k, v in sorted(conv.items())) + "</p>")
    summary = _summary_of(d)
    if summary:
        rows.append(f"<p>Certificate: {html.escape(summary)}</p>")
    return "\n".join(rows)


def _figures(report: Mapping, with_figures: bool) -> list:
    if not with_figures:
        return []
    from .figures import all_figures

    return all_figures(report.get("audits", []))


def _html(report: Mapping, figures: list) -> str:
    rows = claim_rows(report)
    summary = report.get("summary", {})
    esc = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>verify audit report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>verify audit report</h1>",
           "<p>" + esc(f"{summary.get('met', 0)}/{summary.get('audits', len(rows))} audits met their expected "
                       f"verdict; {len(summary.get('claims_with_audits', []))} claims audited.") + "</p>"]
    missed = summary.get("missed") or []
    if missed:
        out.append('<p class="error">Missed: ' + esc(", ".join(missed)) + "</p>")
    without = summary.get("claims_without_audits") or []
    if without:
        out.append("<p>Claims without audits in this run: " + esc(", ".join(without)) + "</p>")
    out.append("<h2>Papers</h2><ul>" + "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in PAPERS.items())
               + "</ul>")
    out.append("<h2>Claims</h2><table><tr><th>ID</th><th>claim</th><th>rigour</th><th>audits met</th></tr>")
    for cid, title, rigor, met, total in _claim_overview(report):
        cls = ' class="miss"' if total and met < total else ""
        out.append(f"<tr{cls}><td>{esc(cid)}</td><td>{esc(title)}</td><td>{esc(rigor)}</td>"
                   f"<td>{met}/{total}</td></tr>")
    out.append("</table>")
    out.append("<h2>Audits</h2><table><tr><th>ID</th><th>audit</th><th>statement</th><th>rigour</th>"
               "<th>expected</th><th>actual</th><th>method</th><th>time (s)</th></tr>")
    for r in rows:
        cls = "" if r["met"] else ' class="miss"'
        out.append(f"<tr{cls}><td>{esc(r['claim'])}</td><td>{esc(r['audit'])}</td><td>{esc(r['statement'])}</td>"
                   f"<td>{esc(r['rigour'])}</td><td>{_verdict_span(r['expected'])}</td>"
                   f"<td>{_verdict_span(r['actual'])}</td><td>{esc(str(r['method']))}</td>"
                   f"<td>{r['time']:.3f}</td></tr>")
    out.append("</table>")
    out.append("<h2>Certificates</h2><ul>")
    for r in rows:
        text = r["summary"] or ("check raised: " + r["error"] if r["error"] else "(no summary)")
        conv = r["conventions"]
        conv_txt = ("; conventions: " + ", ".join(f"{k}={v}" for k, v in sorted(conv.items()))) if conv else ""
        out.append(f"<li><b>{esc(r['audit'])}</b> ({_verdict_span(r['actual'])}): {esc(text)}{esc(conv_txt)}</li>")
    out.append("</ul>")
    if figures:
        out.append("<h2>Figures</h2>")
    for f in figures:
        if f.available:
            b64 = base64.b64encode(f.png).decode("ascii")
            out.append(f'<figure id="fig-{esc(f.key)}"><img alt="{esc(f.title)}" '
                       f'src="data:image/png;base64,{b64}"><figcaption>{esc(f.title)} &mdash; {esc(f.note)}'
                       "</figcaption></figure>")
        else:
            out.append(f'<figure id="fig-{esc(f.key)}"><p class="unavailable">{esc(f.title)}: {esc(f.note)}</p>'
                       "</figure>")
    versions = report.get("versions", {})
    if versions:
        out.append("<h2>Versions</h2><p>" + esc(", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
                   + "</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# -- Markdown ----------------------------------------------------------------------------------------

def _md_cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _markdown(report: Mapping, figures: list) -> str:
    rows = claim_rows(report)
    summary = report.get("summary", {})
    out = ["# verify audit report", "",
           f"{summary.get('met', 0)}/{summary.get('audits', len(rows))} audits met their expected verdict; "
           f"{len(summary.get('claims_with_audits', []))} claims audited.", ""]
    if summary.get("missed"):
        out += ["**Missed:** " + ", ".join(summary["missed"]), ""]
    if summary.get("claims_without_audits"):
        out += ["Claims without audits in this run: " + ", ".join(summary["claims_without_audits"]), ""]
    out += ["## Claims", "", "| ID | claim | rigour | audits met |", "|---|---|---|---|"]
    for cid, title, rigor, met, total in _claim_overview(report):
        out.append(f"| {cid} | {_md_cell(title)} | {_md_cell(rigor)} | {met}/{total} |")
    out += ["", "## Audits", "", "| ID | audit | statement | rigour | expected | actual | method | time (s) |",
            "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        actual = r["actual"].upper() + ("" if r["met"] else " (MISS)")
        out.append(f"| {r['claim']} | {_md_cell(r['audit'])} | {_md_cell(r['statement'])} | {_md_cell(r['rigour'])} "
                   f"| {r['expected'].upper()} | {actual} | {r['method']} | {r['time']:.3f} |")
    out += ["", "## Certificates", ""]
    for r in rows:
        text = r["summary"] or ("check raised: " + r["error"] if r["error"] else "(no summary)")
        out.append(f"* **{r['audit']}** ({r['actual'].upper()}): {_md_cell(text)}")
    if figures:
        out += ["", "## Figures", ""]
    for f in figures:
        if f.available:
            b64 = base64.b64encode(f.png).decode("ascii")
            out += [f"### {f.title}", "", f"![{f.title}](data:image/png;base64,{b64})", "", f"*{_md_cell(f.note)}*", ""]
        else:
            out += [f"### {f.title}", "", f"*{_md_cell(f.note)}*", ""]
    versions = report.get("versions", {})
    if versions:
        out += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))]
    return "\n".join(out) + "\n"


def build_report(report: Mapping, fmt: str = "html", figures: bool = True) -> str:
    """The report text for an audit JSON document (``fmt`` ``"html"`` or ``"md"``)."""
    if not isinstance(report, Mapping) or not isinstance(report.get("audits"), list):
        raise InputError("report", "must be an audit document with an 'audits' list (verify audit --json)")
    if fmt not in ("html", "md"):
        raise InputError("fmt", f"must be 'html' or 'md', got {fmt!r}")
    figs = _figures(report, figures)
    return _html(report, figs) if fmt == "html" else _markdown(report, figs)


def write_report(path: str, report: Mapping, fmt: Optional[str] = None, figures: bool = True) -> None:
    """Build and write the report atomically; the format follows the file name unless given."""
    fmt = fmt or report_format_of(path)
    text = build_report(report, fmt, figures)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise InputError("--report", f"cannot write {path}: {exc.strerror or exc}") from None
