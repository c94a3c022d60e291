"""Self-contained audit reports: ``verify audit --report report.html`` (or ``report.md``).

One file, navigable: a summary first (per claim that ran: verdict counts, audits met, time, its one-line
title), a table of contents with in-page anchors, then one section per claim holding its figures, its audit
table and, collapsed in ``<details>``, its certificate summaries; papers and library versions last.  Claims
that were not run do not appear (a subset report shows only what was run).  The figures of
:mod:`verify.audit.figures` are drawn from the typed figure data of the claim's Results
(``evidence["figure"]``) and embedded as base64 PNGs.  The report is built from the audit JSON document
(:func:`verify.audit.runner.audit_report_dict`), so a saved ``verify audit --json`` file can be rendered later
with :func:`build_report`.  Apart from the times, the same audit run gives the same report bytes (no dates,
deterministic PNGs).  docs/reports.md describes the layout.

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
import re
from typing import Mapping, Optional

from ..canonical import atomic_write_text
from ..claims import CLAIMS, PAPERS, claim_ids
from ..errors import InputError

__all__ = ["report_format_of", "build_report", "write_report", "result_html", "claim_rows", "claim_summary"]

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
    cert, ev = result.get("certificate"), result.get("evidence")
    if isinstance(cert, Mapping) and cert.get("summary"):
        return str(cert["summary"])
    if isinstance(ev, Mapping) and isinstance(ev.get("summary"), str) and ev["summary"]:
        return ev["summary"]
    if isinstance(cert, Mapping) and cert.get("kind"):
        return f"certificate of kind {cert['kind']} (re-checked by verify check, docs/soundness.md §2)"
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


def claim_summary(report: Mapping) -> list:
    """Per claim that has audits in the run, in catalogue order: ``{"claim", "title", "statement", "rigour",
    "counts" (verdict -> number of audits), "met", "total", "time", "audits" (its rows)}``.  Claims that were
    not run have no entry."""
    rows = claim_rows(report)
    order = {c: i for i, c in enumerate(claim_ids())}
    by_claim = {}
    for r in rows:
        by_claim.setdefault(r["claim"].split(".")[0], []).append(r)
    out = []
    for cid in sorted(by_claim, key=lambda c: (order.get(c, len(order)), c)):
        claim, audits = CLAIMS.get(cid), by_claim[cid]
        counts = {}
        for r in audits:
            v = r["actual"] if r["actual"] in VERDICTS else "error"
            counts[v] = counts.get(v, 0) + 1
        out.append({"claim": cid, "title": claim.title if claim else "", "statement": claim.statement if claim else "",
                    "rigour": claim.rigor if claim else "", "counts": counts, "met": sum(r["met"] for r in audits),
                    "total": len(audits), "time": sum(r["time"] for r in audits), "audits": audits})
    return out


VERDICTS = ("proved", "refuted", "inconclusive")
_COLUMNS = VERDICTS + ("error",)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


def _anchors(summary: list) -> dict:
    """Unique ids: ``claim-<id>`` per claim, ``audit-<id>`` per audit row (keyed by the row's index)."""
    used, ids = set(), {}

    def unique(base):
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        return name

    for fixed in ("summary", "contents", "about"):
        used.add(fixed)
    for c in summary:
        ids[("claim", c["claim"])] = unique("claim-" + _slug(c["claim"]))
        for i, r in enumerate(c["audits"]):
            ids[("audit", c["claim"], i)] = unique("audit-" + _slug(r["audit"]))
    return ids


def _certificate_text(r) -> str:
    text = r["summary"] or ("check raised: " + r["error"] if r["error"] else "(no summary)")
    conv = r["conventions"]
    return text + (("; conventions: " + ", ".join(f"{k}={v}" for k, v in sorted(conv.items()))) if conv else "")


def _figures_by_claim(report: Mapping, with_figures) -> dict:
    if with_figures is False or with_figures is None:
        return {}
    if with_figures is True:
        from .figures import all_figures

        with_figures = all_figures(report.get("audits", []))
    out = {}
    for f in with_figures:
        out.setdefault(f.claim, []).append(f)
    return out


def _headline(report: Mapping, summary: list) -> str:
    s = report.get("summary", {})
    total = s.get("audits", sum(c["total"] for c in summary))
    met = s.get("met", sum(c["met"] for c in summary))
    return (f"{met}/{total} audits met their expected verdict; {len(summary)} "
            f"claim{'s' if len(summary) != 1 else ''} audited.")


# -- HTML ------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em;max-width:75em;color:#222;
line-height:1.4}
table{border-collapse:collapse;margin:1em 0;font-size:0.95em}
th,td{border:1px solid #ccc;padding:0.3em 0.5em;vertical-align:top;text-align:left}
th{background:#f2f2f2}td.num{text-align:right}
tr.miss td{background:#fde2e2}
.proved{color:#0a6d2c;font-weight:bold}.refuted{color:#a11;font-weight:bold}.inconclusive{color:#8a6d00;font-weight:bold}
.error{color:#a11}
section{border-top:2px solid #ddd;margin-top:2em}
figure{margin:1.5em 0}figure img{max-width:100%;height:auto}figcaption{font-size:0.95em;color:#444}
.notdrawn{color:#8a6d00;font-style:italic}
details{margin:1em 0}summary{cursor:pointer;font-weight:bold}
nav ul{columns:2}
code{background:#f6f6f6;padding:0 0.2em}
.top{font-size:0.9em}
"""


def _verdict_span(v: str) -> str:
    v = str(v)
    cls = v if v in VERDICTS else "error"
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


def _html_figure(f) -> str:
    esc = html.escape
    if f.available:
        b64 = base64.b64encode(f.png).decode("ascii")
        return (f'<figure><img alt="{esc(f.title)}" src="data:image/png;base64,{b64}">'
                f"<figcaption>{esc(f.title)}. {esc(f.note)}</figcaption></figure>")
    return f'<figure><p class="notdrawn">{esc(f.title)}: {esc(f.note)}</p></figure>'


def _html(report: Mapping, figures: dict) -> str:
    summary = claim_summary(report)
    ids = _anchors(summary)
    esc = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>verify audit report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>verify audit report</h1>", '<h2 id="summary">Summary</h2>', f"<p>{esc(_headline(report, summary))}</p>"]
    missed = [(c, i, r) for c in summary for i, r in enumerate(c["audits"]) if not r["met"]]
    if missed:
        out.append('<p class="error">Missed: ' + ", ".join(
            f'<a href="#{ids[("audit", c["claim"], i)]}">{esc(r["audit"])}</a>' for c, i, r in missed) + "</p>")
    without = report.get("summary", {}).get("claims_without_audits") or []
    if without:
        out.append("<p>Selected claims without audits: " + esc(", ".join(without)) + "</p>")
    out.append("<table><tr><th>claim</th><th>statement</th><th>proved</th><th>refuted</th><th>inconclusive</th>"
               "<th>errors</th><th>met / audits</th><th>time (s)</th></tr>")
    for c in summary:
        cls = ' class="miss"' if c["met"] < c["total"] else ""
        counts = "".join(f'<td class="num">{c["counts"].get(v, 0)}</td>' for v in _COLUMNS)
        out.append(f'<tr{cls}><td><a href="#{ids[("claim", c["claim"])]}">{esc(c["claim"])}</a></td>'
                   f"<td>{esc(c['title'])}</td>{counts}<td class=\"num\">{c['met']}/{c['total']}</td>"
                   f"<td class=\"num\">{c['time']:.2f}</td></tr>")
    out.append("</table>")
    out.append('<nav><h2 id="contents">Contents</h2><ul><li><a href="#summary">Summary</a></li>')
    for c in summary:
        out.append(f'<li><a href="#{ids[("claim", c["claim"])]}">{esc(c["claim"])}: {esc(c["title"])}</a></li>')
    out.append('<li><a href="#about">Papers and versions</a></li></ul></nav>')
    for c in summary:
        cid = c["claim"]
        out.append(f'<section><h2 id="{ids[("claim", cid)]}">{esc(cid)}: {esc(c["title"])}</h2>')
        out.append(f"<p>{esc(c['statement'])}</p><p>Rigour in the catalogue: {esc(c['rigour'])}. "
                   f"{c['met']}/{c['total']} audits met their expected verdict.</p>")
        for f in figures.get(cid, []):
            out.append(_html_figure(f))
        out.append("<table><tr><th>audit</th><th>statement</th><th>expected</th><th>actual</th><th>method</th>"
                   "<th>time (s)</th></tr>")
        for i, r in enumerate(c["audits"]):
            cls = "" if r["met"] else ' class="miss"'
            out.append(f'<tr id="{ids[("audit", cid, i)]}"{cls}><td>{esc(r["audit"])}</td><td>{esc(r["statement"])}'
                       f"</td><td>{_verdict_span(r['expected'])}</td><td>{_verdict_span(r['actual'])}</td>"
                       f"<td>{esc(str(r['method']))}</td><td class=\"num\">{r['time']:.3f}</td></tr>")
        out.append("</table>")
        out.append(f"<details><summary>Certificates ({len(c['audits'])})</summary><ul>")
        for r in c["audits"]:
            out.append(f"<li><b>{esc(r['audit'])}</b> ({_verdict_span(r['actual'])}): {esc(_certificate_text(r))}</li>")
        out.append('</ul></details><p class="top"><a href="#contents">back to the contents</a></p></section>')
    out.append('<section><h2 id="about">Papers and versions</h2><ul>'
               + "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in PAPERS.items()) + "</ul>")
    versions = report.get("versions", {})
    if versions:
        out.append("<p>Versions: " + esc(", ".join(f"{k} {v}" for k, v in sorted(versions.items()))) + "</p>")
    out.append("</section></body></html>")
    return "\n".join(out) + "\n"


# -- Markdown ----------------------------------------------------------------------------------------

def _md_cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _markdown(report: Mapping, figures: dict) -> str:
    summary = claim_summary(report)
    ids = _anchors(summary)
    out = ["# verify audit report", "", '<a id="summary"></a>', "", "## Summary", "", _headline(report, summary), ""]
    missed = [(c, i, r) for c in summary for i, r in enumerate(c["audits"]) if not r["met"]]
    if missed:
        out += ["**Missed:** " + ", ".join(f"[{r['audit']}](#{ids[('audit', c['claim'], i)]})" for c, i, r in missed),
                ""]
    without = report.get("summary", {}).get("claims_without_audits") or []
    if without:
        out += ["Selected claims without audits: " + ", ".join(without), ""]
    out += ["| claim | statement | proved | refuted | inconclusive | errors | met / audits | time (s) |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for c in summary:
        counts = " | ".join(str(c["counts"].get(v, 0)) for v in _COLUMNS)
        flag = " (MISS)" if c["met"] < c["total"] else ""
        out.append(f"| [{c['claim']}](#{ids[('claim', c['claim'])]}) | {_md_cell(c['title'])} | {counts} | "
                   f"{c['met']}/{c['total']}{flag} | {c['time']:.2f} |")
    out += ["", '<a id="contents"></a>', "", "## Contents", "", "- [Summary](#summary)"]
    out += [f"- [{c['claim']}: {_md_cell(c['title'])}](#{ids[('claim', c['claim'])]})" for c in summary]
    out += ["- [Papers and versions](#about)", ""]
    for c in summary:
        cid = c["claim"]
        out += [f'<a id="{ids[("claim", cid)]}"></a>', "", f"## {cid}: {c['title']}", "", _md_cell(c["statement"]), "",
                f"Rigour in the catalogue: {c['rigour']}. {c['met']}/{c['total']} audits met their expected verdict.",
                ""]
        for f in figures.get(cid, []):
            if f.available:
                b64 = base64.b64encode(f.png).decode("ascii")
                out += [f"![{f.title}](data:image/png;base64,{b64})", "", f"*{_md_cell(f.title)}. {_md_cell(f.note)}*",
                        ""]
            else:
                out += [f"*{_md_cell(f.title)}: {_md_cell(f.note)}*", ""]
        out += ["| audit | statement | expected | actual | method | time (s) |", "|---|---|---|---|---|---:|"]
        for i, r in enumerate(c["audits"]):
            actual = r["actual"].upper() + ("" if r["met"] else " (MISS)")
            out.append(f'| <a id="{ids[("audit", cid, i)]}"></a>{_md_cell(r["audit"])} | {_md_cell(r["statement"])} | '
                       f"{r['expected'].upper()} | {actual} | {r['method']} | {r['time']:.3f} |")
        out += ["", "<details><summary>Certificates (" + str(len(c["audits"])) + ")</summary>", ""]
        out += [f"* **{_md_cell(r['audit'])}** ({r['actual'].upper()}): {_md_cell(_certificate_text(r))}"
                for r in c["audits"]]
        out += ["", "</details>", "", "[back to the contents](#contents)", ""]
    out += ['<a id="about"></a>', "", "## Papers and versions", ""]
    out += [f"* **{k}**: {v}" for k, v in PAPERS.items()]
    versions = report.get("versions", {})
    if versions:
        out += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))]
    return "\n".join(out) + "\n"


def build_report(report: Mapping, fmt: str = "html", figures=True) -> str:
    """The report text for an audit JSON document (``fmt`` ``"html"`` or ``"md"``).  ``figures``: True (draw
    them), False (none), or the list :func:`verify.audit.figures.all_figures` returned for this document (to
    write both formats from one drawing)."""
    if not isinstance(report, Mapping) or not isinstance(report.get("audits"), list):
        raise InputError("report", "must be an audit document with an 'audits' list (verify audit --json)")
    if fmt not in ("html", "md"):
        raise InputError("fmt", f"must be 'html' or 'md', got {fmt!r}")
    figs = _figures_by_claim(report, figures)
    return _html(report, figs) if fmt == "html" else _markdown(report, figs)


def write_report(path: str, report: Mapping, fmt: Optional[str] = None, figures: bool = True) -> None:
    """Build and write the report atomically; the format follows the file name unless given."""
    fmt = fmt or report_format_of(path)
    text = build_report(report, fmt, figures)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise InputError("--report", f"cannot write {path}: {exc.strerror or exc}") from None
