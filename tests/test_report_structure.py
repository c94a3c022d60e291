"""The structure of ``verify audit --report`` (docs/reports.md, "Audit reports"): summary first, a table of
contents whose anchors all resolve, one section per claim that ran and no other, no figure announced as
unavailable; figures drawn only from the typed figure data ``evidence["figure"]`` (verify/schemas/figure.json),
which is byte-identical between runs."""

import html.parser
import json
import re

import pytest

from verify.audit.discovery import audits_of_module
from verify.audit.figures import FIGURE_TYPES, all_figures, figure_data, piece_boundaries
from verify.audit.report import build_report, claim_summary
from verify.audit.runner import audit_report_dict, run_audits
from verify.canonical import canonical_dumps
from verify.claims import claim_ids

REAL = ("T2", "T7", "T10")          # their quick audits take well under a second and carry figure data
REAL_MODULES = ("verify.proofs.maxout.t2_softmax_bound", "verify.proofs.maxout.t7_softmax_emulation",
                "verify.proofs.maxout.t10_linear_regions")


class _Doc(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.sections, self.images, self._in_section = [], [], [], {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])
        if tag == "h2" and str(attrs.get("id", "")).startswith("claim-"):
            self._in_section = attrs["id"]
            self.sections.append(attrs["id"])
        if tag == "h2" and attrs.get("id") == "about":
            self._in_section = None
        if tag == "img" and self._in_section:
            self.images[self._in_section] = self.images.get(self._in_section, 0) + 1


def _synthetic(claim, figure=None, verdict="inconclusive"):
    ev = {"figure": figure} if figure else {}
    result = {"claim": claim, "statement": f"a synthetic statement of {claim}", "verdict": verdict,
              "method": "evidence", "certificate": {"summary": "synthetic"}, "parameters": {}, "conventions": {},
              "seeds": {}, "evidence": ev}
    return {"audit": f"{claim}/synthetic", "claim": claim, "expected": verdict, "actual": verdict, "met": True,
            "error": None, "result": result, "timing": {"elapsed_s": 0.25}}


_GRAM = {"type": "gram_spectrum", "name": "two laws", "size": 2, "verdict": "proved",
         "certified": {"lambda_min": ["1/100", "2/100"], "lambda_max": ["1", "2"]},
         "float64": {"lambda_min": "0.015", "lambda_max": "1.5"}}
_FLOW = {"type": "gradient_flow", "group": "eps = 1/10", "series": [
    {"name": "loss", "role": "evidence", "points": [["0", "1"], ["1", "0.5"], ["2", "0.25"]]},
    {"name": "bound", "role": "bound", "points": [["0", "1"], ["1", "0.6"], ["2", "0.4"]]}]}


@pytest.fixture(scope="module")
def real_outcomes():
    return run_audits([a for m in REAL_MODULES for a in audits_of_module(m) if a.quick])


@pytest.fixture(scope="module")
def full(real_outcomes):
    """Every claim: the quick audits of REAL run for real, a synthetic Result for each other claim (N7 and
    N10 with typed figure data)."""
    doc = audit_report_dict(real_outcomes)
    extra = {"N7": _GRAM, "N10": _FLOW}
    doc["audits"] += [_synthetic(c, extra.get(c)) for c in claim_ids() if c not in REAL]
    doc["summary"]["claims_with_audits"] = claim_ids()
    doc["summary"]["claims_without_audits"] = []
    figs = all_figures(doc["audits"])
    return doc, build_report(doc, "html", figs), build_report(doc, "md", figs)


@pytest.fixture(scope="module")
def subset(real_outcomes):
    doc = audit_report_dict([o for o in real_outcomes if o.claim == "T2"], ["T2"])
    figs = all_figures(doc["audits"])
    return doc, build_report(doc, "html", figs), build_report(doc, "md", figs)


def _claims_run(doc):
    return [c["claim"] for c in claim_summary(doc)]


def _check_html(doc, text):
    p = _Doc()
    p.feed(text)
    run = _claims_run(doc)
    # the summary comes first, before the contents and every claim section
    assert text.index('id="summary"') < text.index('id="contents"') < text.index('id="claim-')
    summary_part = text[text.index('id="summary"'):text.index('id="contents"')]
    assert summary_part.count("<tr") == 1 + len(run)            # header + one row per claim run
    assert ">0/0<" not in text
    # every in-page link resolves, ids are unique
    assert len(p.ids) == len(set(p.ids))
    assert p.hrefs and set(p.hrefs) <= set(p.ids), set(p.hrefs) - set(p.ids)
    # one section per claim run and no other; the contents link each of them
    assert p.sections == [f"claim-{c.lower()}" for c in run]
    contents = text[text.index('id="contents"'):text.index("</nav>")]
    assert re.findall(r'href="#(claim-[^"]+)"', contents) == p.sections
    # no figure missing for a claim that ran, and each claim with figure data shows its figures
    assert "unavailable" not in text and "could not be drawn" not in text
    with_data = {a["claim"].split(".")[0] for a in doc["audits"] if figure_data(a.get("result"))}
    assert with_data and {s for s in p.images} == {f"claim-{c.lower()}" for c in with_data}
    # certificates collapsed, one <details> per claim
    assert text.count("<details>") == len(run)


def _check_md(doc, text):
    run = _claims_run(doc)
    ids = re.findall(r'<a id="([^"]+)"></a>', text)
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert len(ids) == len(set(ids)) and links and set(links) <= set(ids), set(links) - set(ids)
    assert text.index("## Summary") < text.index("## Contents") < text.index(f"## {run[0]}:")
    assert re.findall(r"^## ([A-Z][0-9]+):", text, flags=re.M) == run
    assert "unavailable" not in text and "| 0/0 |" not in text
    assert text.count("<details>") == len(run)


def test_full_report_structure(full):
    doc, html_text, md_text = full
    assert _claims_run(doc) == claim_ids()
    _check_html(doc, html_text)
    _check_md(doc, md_text)


def test_subset_report_shows_only_what_ran(subset):
    doc, html_text, md_text = subset
    assert _claims_run(doc) == ["T2"]
    _check_html(doc, html_text)
    _check_md(doc, md_text)
    others = [c for c in claim_ids() if c != "T2"]
    assert not any(f'id="claim-{c.lower()}"' in html_text for c in others)


def test_figure_data_is_typed_and_byte_identical(real_outcomes):
    jsonschema = pytest.importorskip("jsonschema")
    from verify.cli.schema_cmd import load_schema

    validator = jsonschema.Draft202012Validator(load_schema("figure"))
    figs = [o.result.evidence["figure"] for o in real_outcomes if o.result and "figure" in o.result.evidence]
    assert {f["type"] for f in figs} >= {"softmax_error", "emulation_error"}
    for f in figs:
        assert f["type"] in FIGURE_TYPES
        assert not list(validator.iter_errors(json.loads(canonical_dumps(f)))), f
    again = run_audits([a for a in audits_of_module(REAL_MODULES[0]) if a.quick])
    first = [o for o in real_outcomes if o.claim == "T2"]
    assert [canonical_dumps(o.result.evidence["figure"]) for o in again] == \
        [canonical_dumps(o.result.evidence["figure"]) for o in first]
    # a forged figure type or a mistyped field is never drawn, and never announced as unavailable
    assert list(validator.iter_errors({"type": "softmax_error", "series": [], "extra": 1}))
    odd = [_synthetic("T2", {"type": "guessed", "series": []}),
           _synthetic("N7", {"type": "gram_spectrum", "name": "x", "verdict": "proved", "certified": "x",
                             "float64": "x"})]
    assert all(not f.available or f.claim == "N7" for f in all_figures(odd))
    assert "unavailable" not in build_report({"audits": odd[:1]}, "md")


_NET_2D = {"layers": [
    {"W": [[["-2", "1"], ["0", "0"]], [["1", "-2"], ["0", "0"]], [["-1", "1"], ["0", "0"]], [["0", "2"], ["0", "0"]],
           [["1", "-3"], ["0", "0"]], [["1", "-3"], ["0", "0"]]],
     "b": [["1/4", "0"], ["0", "0"], ["1/2", "0"], ["-1/4", "0"], ["-1/4", "0"], ["1/4", "0"]]},
    {"W": [[["1", "3", "1", "0", "0", "2"], ["0"] * 6], [["3", "-2", "-2", "2", "-2", "3"], ["0"] * 6],
           [["1", "0", "2", "-3", "2", "3"], ["0"] * 6], [["-3", "-2", "3", "1", "-3", "-1"], ["0"] * 6]],
     "b": [["-1/2", "0"], ["0", "0"], ["1/4", "0"], ["1/2", "0"]]}],
    "readout": {"W": [["1", "1", "1", "2"]], "b": ["0"]}}


def test_region_plot_edges_only_between_pieces():
    """2-D region pictures (report figures and verify regions --plot) colour pieces, not cells: an edge between
    two cells of the same piece is not drawn (this network has 52 activation regions but 48 pieces)."""
    from verify.decide.regions import count_regions
    from verify.objects.maxout import MaxoutNetwork

    rc = count_regions(MaxoutNetwork.from_dict(_NET_2D), [[-1, 1], [-1, 1]], kind="pieces")
    pieces = [reg["cells"] for reg in rc.regions]
    assert (rc.count, rc.activation_regions) == (48, 52) and any(len(p) > 1 for p in pieces)
    per_piece = piece_boundaries(pieces)
    per_cell = piece_boundaries([[c] for p in pieces for c in p])
    assert set(per_piece) < set(per_cell) and len(per_cell) - len(per_piece) == 4
    # one piece of every cell: only the outline of the box is left
    one = piece_boundaries([[c for p in pieces for c in p]])
    assert one and all(a[0] == b[0] in (-1, 1) or a[1] == b[1] in (-1, 1) for a, b in one)
