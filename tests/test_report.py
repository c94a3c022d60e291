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


def _synthetic_report():
    """A report with data for every figure, in the shapes the claim owners were asked to use."""
    audits = [
        _fake_audit("T7", {"evidence": {"error_vs_lambda": [[10, 0.0557], [100, 0.00272], [1000, 3.1e-7]]},
                           "parameters": {"k": 2}}),
        *[_fake_audit("T2", {"parameters": {"n": n, "lam": lam}, "evidence": {"max_E_found": "0.9" if n == 2 else 1},
                             "certificate": {"summary": "sharp", "sharp_bound": {"lower": "1/4", "upper": "1/3"},
                                             "attainment": {"E_at_s_star": {"lower": "1/4", "upper": "1/3"}}}},
                      f"s{n}-{lam}") for n in (2, 4) for lam in (1, 10)],
        _fake_audit("T10", {"certificate": {"summary": "tent", "table": [
            {"D": 3 * i, "count": 2 ** i, "bound": 2 ** (i - 1)} for i in range(1, 8)]}}),
        _fake_audit("T10", {"certificate": {"summary": "2-D", "regions": [
            {"vertices": [["0", "0"], ["1", "0"], ["0", "1"]]},
            {"vertices": [["1", "0"], ["1", "1"], ["0", "1"]]}]}}, audit="pieces"),
        # N7 Results as the kernel-era checks write them: inputs in parameters, the certified spectrum enclosure
        # (informational) in the evidence beside float64
        _fake_audit("N7", {"evidence": {"float64": {"ratio": 1.5e-3},
                                        "spectrum": {"ratio": {"lower": "1/1000", "upper": "2/1000"},
                                                     "lambda_min": {"lower": "1/100", "upper": "2/100"},
                                                     "lambda_max": {"lower": "1", "upper": "2"}}},
                           "parameters": {"laws": [{"family": "discrete", "atoms": [["0", "0"], ["1", "0"]],
                                                    "weights": ["1/2", "1/2"]},
                                                   {"family": "discrete", "atoms": [["0", "0"], ["0", "2"]],
                                                    "weights": ["1/2", "1/2"]}],
                                          "queries": [["1", "0"]], "heads": [[["1", "0"], ["0", "1"]],
                                                                             [["0", "1"], ["1", "0"]]]},
                           "certificate": {"kind": "ntk-cholesky"}}),
        _fake_audit("N7", {"certificate": {"kind": "ntk-cholesky"}, "evidence": {
            "float64": {"ratio": -1e-17}, "spectrum": {"ratio": {"lower": "1/10", "upper": "1/5"}}}}, "b"),
        _fake_audit("N10", {"evidence": {"times": [0, 1, 2, 3], "loss": [1.0, 0.5, 0.2, 0.1],
                                         "bound_integral": [1.0, 0.6, 0.4, 0.3], "envelope_pl": [1, 0.8, 0.6, 0.5],
                                         "final_loss_ratio": 0.1}}),
    ]
    return {"audits": audits, "summary": {"audits": 5, "met": 5, "missed": [], "claims_with_audits":
            ["T7", "T10", "N7", "N10"], "claims_without_audits": []}, "versions": {"python": "x"}}


def test_html_report_has_table_and_nonempty_images(t3_report):
    text = build_report(t3_report, "html")
    p = _Images()
    p.feed(text)
    assert p.tables >= 2
    assert "T3/symbolic-S10" in text and "symbolic case split" in text
    assert p.images, "at least the softmax figure is always drawn (directly if no T2/T7 data)"
    for img in p.images:
        png = _decode(img["src"])
        assert png.startswith(PNG_MAGIC) and len(png) > 1000
    # every figure slot is present: drawn or explained
    assert set(p.figures) == {"fig-softmax", "fig-regions", "fig-pieces2d", "fig-gram", "fig-flow"}
    assert "<script" not in text and "http://" not in text and "https://" not in text  # self-contained


@pytest.mark.slow
def test_every_figure_drawn_from_result_data():
    report = _synthetic_report()
    figs = {f.key: f for f in all_figures(report["audits"])}
    for key in ("softmax", "regions", "pieces2d", "gram", "flow"):
        assert figs[key].available, (key, figs[key].note)
        assert figs[key].png.startswith(PNG_MAGIC)
        assert figs[key].source != "direct", key
    text = build_report(report, "html")
    p = _Images()
    p.feed(text)
    assert len(p.images) == 5 and all(len(_decode(i["src"])) > 1000 for i in p.images)


def test_markdown_report(t3_report):
    text = build_report(t3_report, "md")
    assert text.startswith("# verify audit report")
    assert "| T3 | T3/symbolic-S10 |" in text
    assert "](data:image/png;base64," in text
    assert "figure unavailable:" in text  # T10/N7/N10 absent from a T3-only run


@pytest.mark.slow
def test_figures_deterministic():
    a = [f.png for f in all_figures(_synthetic_report()["audits"])]
    b = [f.png for f in all_figures(_synthetic_report()["audits"])]
    assert a == b and all(a)


def test_report_never_crashes_on_odd_data():
    odd = {"audits": [_fake_audit("T7", {"evidence": {"error_vs_lambda": [["x", None], [1]]}}),
                      _fake_audit("N7", {"evidence": {"float64": "nope", "spectrum": {"ratio": "x"}}}),
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
    r = subprocess.run([sys.executable, "-m", "verify", "audit", "T3", "--report", str(out_html)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    p = _Images()
    p.feed(out_html.read_text())
    assert p.images and all(_decode(i["src"]).startswith(PNG_MAGIC) for i in p.images)
    # (.md output: test_markdown_report; a bad suffix: tests/test_bad_input.py)
