"""Audit reports: self-contained HTML / Markdown with non-empty embedded PNG figures, never crashing
on missing audits, deterministic images."""

import base64
import html.parser
import json
import subprocess
import sys

import pytest

from verify.audit.discovery import load_audits, select_audits
from verify.audit.figures import FigureOut, all_figures, number, render_xy
from verify.audit.report import build_report, report_format_of, result_html
from verify.audit.runner import audit_report_dict, run_audits
from verify.errors import InputError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.figures = [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        elif tag == "table":
            self.tables += 1
        elif tag == "figure":
            self.figures.append(attrs.get("id"))


def _decode(src):
    assert src.startswith("data:image/png;base64,")
    return base64.b64decode(src.split(",", 1)[1], validate=True)


@pytest.fixture(scope="module")
def t3_report():
    from verify.audit.discovery import audits_of_module

    return audit_report_dict(run_audits(audits_of_module("verify.proofs.maxout.t3_onehot_gate")), ["T3"])


def _fake_audit(claim, result_extra, audit="X"):
    base = {"claim": claim, "statement": "s", "verdict": "inconclusive", "method": "evidence",
            "certificate": {"summary": "demo"}, "parameters": {}, "conventions": {}, "seeds": {}, "evidence": {}}
    base.update(result_extra)
    return {"audit": f"{claim}/{audit}", "claim": claim, "expected": "inconclusive", "actual": "inconclusive",
            "met": True, "error": None, "result": base, "timing": {"elapsed_s": 0.5}}


def _xy(ftype, series, group=None):
    fig = {"type": ftype, "series": [{"name": n, "role": r, "points": [[str(x), str(y)] for x, y in pts]}
                                     for n, r, pts in series]}
    return {**fig, "group": group} if group else fig


def _synthetic_report():
    """A report with typed figure data (evidence["figure"], docs/reports.md) for every figure type."""
    lams = (1, 10, 100)
    audits = [
        _fake_audit("T7", {"evidence": {"figure": _xy("emulation_error", [
            ("largest certified error", "certified", [(10, 0.0557), (100, 0.00272), (1000, 3.1e-7)]),
            ("bound of the lemma", "bound", [(10, 0.1), (100, 0.01), (1000, 0.001)])])}}),
        *[_fake_audit("T2", {"evidence": {"figure": _xy("softmax_error", [
            ("bound", "bound", [(lam, 0.3 * n / lam)]), ("error at s*", "certified", [(lam, 0.3 * n / lam)]),
            ("search", "evidence", [(lam, 0.2 * n / lam)])], group=f"n = {n}")}}, f"s{n}-{lam}")
          for n in (2, 4) for lam in lams],
        _fake_audit("T10", {"evidence": {"figure": _xy("region_counts", [
            ("exact count", "exact", [(3 * i, 2 ** i) for i in range(1, 8)]),
            ("bound", "bound", [(3 * i, 2 ** (i - 1)) for i in range(1, 8)])], group="tent, q = 2")}}),
        _fake_audit("T10", {"evidence": {"figure": {"type": "pieces_2d", "kind": "pieces", "box": [["0", "1"], ["0", "1"]],
                                                    "pieces": [[[["0", "0"], ["1", "0"], ["0", "1"]]],
                                                               [[["1", "0"], ["1", "1"], ["0", "1"]]]]}}},
                    audit="pieces"),
        _fake_audit("N7", {"evidence": {"figure": {"type": "gram_spectrum", "name": "two laws", "size": 2,
                                                   "verdict": "proved", "float64": {"lambda_min": "0.011",
                                                                                    "lambda_max": "1.5"},
                                                   "certified": {"lambda_min": ["1/100", "2/100"],
                                                                 "lambda_max": ["1", "2"]}}}}),
        _fake_audit("N7", {"evidence": {"figure": {"type": "gram_spectrum", "name": "singular", "size": 2,
                                                   "verdict": "refuted", "certified": None,
                                                   "float64": {"lambda_min": "-1e-17", "lambda_max": "2"}}}}, "b"),
        _fake_audit("N10", {"evidence": {"figure": _xy("gradient_flow", [
            ("loss", "evidence", [(0, 1.0), (1, 0.5), (2, 0.2), (3, 0.1)]),
            ("bound", "bound", [(0, 1.0), (1, 0.6), (2, 0.4), (3, 0.3)])], group="eps = 1/10")}}),
    ]
    return {"audits": audits, "summary": {"audits": len(audits), "met": len(audits), "missed": [],
            "claims_with_audits": ["T2", "T7", "T10", "N7", "N10"], "claims_without_audits": []},
            "versions": {"python": "x"}}


def test_html_report_has_table_and_nonempty_images(t3_report):
    text = build_report(t3_report, "html")
    p = _Images()
    p.feed(text)
    assert p.tables >= 2
    assert "T3/symbolic-S10" in text and "symbolic case split" in text
    # figures come only from the typed figure data of the claims run: T3 has none, so none is drawn and no
    # figure of another claim is announced as unavailable (docs/reports.md)
    assert not p.images and not p.figures and "unavailable" not in text
    assert "<script" not in text and "http://" not in text and "https://" not in text  # self-contained


@pytest.mark.slow
def test_every_figure_drawn_from_result_data():
    report = _synthetic_report()
    figs = {f.key: f for f in all_figures(report["audits"])}
    assert set(figs) == {"softmax", "emulation", "regions", "pieces2d", "gram", "flow"}
    for key, f in figs.items():
        assert f.available, (key, f.note)
        assert f.png.startswith(PNG_MAGIC)
    text = build_report(report, "html")
    p = _Images()
    p.feed(text)
    assert len(p.images) == 6 and all(len(_decode(i["src"])) > 1000 for i in p.images)


def test_markdown_report(t3_report):
    text = build_report(t3_report, "md")
    assert text.startswith("# verify audit report")
    assert "T3/symbolic-S10 |" in text and "| [T3](#claim-t3) |" in text
    assert "unavailable" not in text  # T10/N7/N10 absent from a T3-only run: no figure slot for them
    assert "](data:image/png;base64," in build_report({"audits": _synthetic_report()["audits"][:1]}, "md")


@pytest.mark.slow
def test_figures_deterministic():
    a = [f.png for f in all_figures(_synthetic_report()["audits"])]
    b = [f.png for f in all_figures(_synthetic_report()["audits"])]
    assert a == b and all(a)


def test_report_never_crashes_on_odd_data():
    odd = {"audits": [_fake_audit("T7", {"evidence": {"error_vs_lambda": [["x", None], [1]]}}),
                      _fake_audit("N7", {"evidence": {"float64": "nope", "spectrum": {"ratio": "x"}}}),
                      _fake_audit("N7", {"evidence": {"figure": {"type": "gram_spectrum", "float64": "x"}}}, "f"),
                      _fake_audit("T10", {"evidence": {"figure": {"type": "pieces_2d", "box": 1, "pieces": "x"}}},
                                  "p"),
                      _fake_audit("T2", {"evidence": {"figure": {"type": "softmax_error", "series": [
                          {"name": "a", "role": "bound", "points": [["x", None], [1]]}, 7]}}}, "s"),
                      {"audit": "T6/crash", "claim": "T6", "expected": "proved", "actual": "error", "met": False,
                       "error": "ValueError: boom", "result": None, "timing": {}}],
           "summary": {"missed": ["T6/crash"]}}
    text = build_report(odd, "html")
    assert "ValueError: boom" in text
    assert 'class="miss"' in text
    with pytest.raises(InputError):
        build_report({"nope": 1}, "html")
    with pytest.raises(InputError):
        build_report(_synthetic_report(), "pdf")


def test_report_format_and_helpers():
    assert report_format_of("a.HTML") == "html" and report_format_of("a.markdown") == "md"
    with pytest.raises(InputError, match="^--report: "):
        report_format_of("a.txt")
    assert number("1/3") == pytest.approx(1 / 3) and number(True) is None and number("inf") is None
    png = render_xy("t", [("a", [1, 2], [3, 4], {})])
    assert png == render_xy("t", [("a", [1, 2], [3, 4], {})])
    assert not FigureOut("k", "t", None, "why").available
    from verify.checks.t3_onehot_gate import check_gate_identity

    frag = result_html(check_gate_identity(S=2))
    assert "T3" in frag and "PROVED" in frag


@pytest.mark.slow
def test_cli_report_html(tmp_path):
    out_html = tmp_path / "r.html"
    r = subprocess.run([sys.executable, "-m", "verify", "audit", "T2", "T10", "--quick", "--report", str(out_html)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    p = _Images()
    p.feed(out_html.read_text())
    assert p.images and all(_decode(i["src"]).startswith(PNG_MAGIC) for i in p.images)
    # (.md output: test_markdown_report; a bad suffix: tests/test_bad_input.py)
