"""Every public object's displays are readable: no ``Fraction(`` anywhere, bounded sizes, LaTeX blocks within
MathJax's limit.

Displays checked: ``repr``, ``str`` and the notebook hooks ``_repr_html_``, ``_repr_markdown_`` and
``_repr_latex_`` of one or more instances of every class that ``verify`` exports (and of the objects its
functions return: RegionCount, CompiledMaxout, NtkGram, SublayerView).  The executed notebooks' outputs are
checked for ``Fraction(`` in tests/test_notebooks.py.  (Results of real checks are shown in the notebooks;
here they are built by hand, with exact numbers in every field a display shows, to keep the test fast.)
"""

from fractions import Fraction

import pytest

import verify
from verify.constructions.reference_networks import random_maxout
from verify.results import readable

HOOKS = ("__repr__", "__str__", "_repr_html_", "_repr_markdown_", "_repr_latex_")
LIMITS = {"__repr__": 1_000, "__str__": 100_000, "_repr_html_": 200_000, "_repr_markdown_": 100_000,
          "_repr_latex_": 100_000}
LATEX_BLOCK = 2_000           # characters per $$ block (MathJax's buffer)
NOT_DISPLAYED = {"InputError", "DomainError"}          # exceptions: their message is their display

HAT = verify.MaxoutNetwork.from_relu([[[1], [1], [1]]], [[0, "-1/2", -1]], readout=([[1, -2, 1]], [0]))
NET2 = verify.MaxoutNetwork([([[[1, 2], [-2, 1]], [[2, -1], [1, 1]]], [[0, "1/2"], ["1/3", 0]])],
                            readout=([["3/4", -1]], ["-1/7"]))


def _wide_network():
    """A network whose compiled Transformer is large (FFN widths in the hundreds)."""
    rows = [[[Fraction(i + 1, 3)], [Fraction(-i, 5)]] for i in range(12)]
    return verify.MaxoutNetwork([(rows, [[Fraction(i, 7), Fraction(-1, 2)] for i in range(12)]),
                                 ([[[Fraction(j - i, 4) for j in range(12)]] * 2 for i in range(12)],
                                  [[0, Fraction(1, 3)]] * 12)])


@pytest.fixture(scope="module")
def samples():
    head = verify.Head(W_Q=[[0, 1, 0]], W_K=[[1, 0, 0]], W_V=[[1, 0, 0]], W_O=[[0], [0], ["1/2"]])
    ffn = verify.FeedForward([["1/3", 0, 1]], ["-2/5"], [[1], [0], ["3/4"]], None)
    plain = verify.Transformer([verify.Attention([head]), ffn], coordinate_names=["z", "one", "out"])
    compiled = verify.compile_maxout(HAT, [[-1, 2]])
    compiled2 = verify.compile_maxout(NET2, [[-1, 1], [-1, 1]])
    wide = verify.compile_maxout(_wide_network(), [[-1, 1]])
    o2 = verify.compile_maxout(verify.o2_network(), [[0, 1]])     # its one-block LaTeX (8,923 chars) broke MathJax
    beta = verify.Discrete([[0, 0], ["1/2", 0], [0, 1]], ["1/4", "1/4", "1/2"])
    laws = [beta, beta.dilated(2)]
    result = verify.Result("T6", "a statement with 3/4", "proved", "exact",
                           certificate={"kind": "emulation-regions", "summary": "ok", "S": Fraction(3, 4)},
                           parameters={"box": [[Fraction(-1), Fraction(1, 2)]]},
                           conventions={"S": Fraction(3, 4), "nested": {"q": [Fraction(1, 3)]}, "tie": "both"})
    out = {
        "Verdict": [verify.Verdict.PROVED], "Method": [verify.Method.CERTIFIED],
        "Result": [result, verify.Result("N3", "the CGFs are independent", "refuted", "exact",
                                         certificate={"kind": "dependence-relation", "c": [Fraction(1), Fraction(-1, 2)],
                                                      "summary": "exact relation L1 - L2 = -1/2 theta_1"},
                                         conventions={"modulo": "affine", "point": (Fraction(1, 3),)}),
                   verify.Result("N3", "s" * 5000, "inconclusive", "certified", evidence={"summary": "e" * 5000})],
        "MaxoutNetwork": [HAT, NET2, verify.o2_network(), random_maxout(seed=1, d=2, k=6, L=3, max_width=6)],
        "Transformer": [plain, compiled.transformer, compiled2.transformer, wide.transformer, o2.transformer],
        "SublayerView": [compiled.transformer.sublayer_view(0), compiled.transformer.sublayer_view(1),
                         wide.transformer.sublayer_view(0)],
        "Attention": [plain.sublayers[0]], "Head": [head], "FeedForward": [ffn],
        "CPWL1D": [verify.CPWL1D(0, 1, ["1/3"], [1, "-1/2"], "1/5")],
        "DCFunction": [verify.DCFunction([([1], 0), (["-1/2"], 0)], [([2], "-2/3")])],
        "CompiledMaxout": [compiled, compiled2, wide, o2],
        "RegionCount": [verify.count_regions(HAT, [[-1, 2]]), verify.count_regions(NET2, [[-1, 1], [-1, 1]])],
        "Discrete": [beta], "UniformCube": [verify.UniformCube("3/2")],
        "SymmetricLaplace": [verify.SymmetricLaplace([["1/2"]])], "Gaussian": [verify.Gaussian([[2, 1], [1, "3/2"]])],
        "GaussianMixture": [verify.GaussianMixture("1/2", [1], [[1]])],
        "NtkGram": [verify.ntk_gram(laws, [[1, 0], [0, 1]], heads=8, seed=1)],
        "Audit": [verify.Audit("T2", "n3-lam10", "proved", lambda n, lam: None, {"n": 3, "lam": "10"},
                               description="the sharp bound for n = 3, lambda = 10")],
        "Layout": [compiled.layout],
    }
    return out


def _displays(obj):
    for hook in HOOKS:
        fn = getattr(obj, hook, None)
        if fn is None:
            continue
        text = fn()
        if text is None:
            continue
        yield hook, text


def test_every_exported_class_has_a_sample(samples):
    exported = {name for name in verify.__all__ if isinstance(getattr(verify, name), type)} - NOT_DISPLAYED
    assert exported <= set(samples), f"no display sample for {sorted(exported - set(samples))}"


def test_displays_show_fractions_as_p_over_q_and_stay_bounded(samples):
    for kind, objs in samples.items():
        for obj in objs:
            for hook, text in _displays(obj):
                assert isinstance(text, str), (kind, hook)
                assert "Fraction(" not in text, f"{kind}.{hook} shows Fraction(...): {text[:300]}"
                limit = 10_000 if (kind, hook) == ("SublayerView", "__repr__") else LIMITS[hook]   # text lines
                assert len(text) <= limit, f"{kind}.{hook}: {len(text)} characters"
                if hook == "_repr_latex_":
                    blocks = [b for b in text.split("$$") if b.strip()]
                    assert blocks and max(len(b) for b in blocks) < LATEX_BLOCK, \
                        f"{kind}: a LaTeX block of {max(len(b) for b in blocks)} characters"


def test_result_display_is_short_and_names_verdict_claim_method_and_certificate_kind(samples):
    r = samples["Result"][0]
    for text in (r._repr_html_(), r._repr_markdown_()):
        assert "T6" in text and "PROVED" in text and "exact" in text and "emulation-regions" in text
        assert "S=3/4" in text and "nested={q: [1/3]}" in text
    long = samples["Result"][2]
    assert len(long._repr_markdown_()) < 1_500 and len(long._repr_html_()) < 1_500


def test_transformer_html_is_one_table_section_per_sublayer_with_named_blocks(samples):
    T = samples["Transformer"][1]
    html = T._repr_html_()
    assert html.count("<h4") == T.n_sublayers
    for block in ("h", "z", "p", "one"):
        assert f">{block}</th>" in html
    assert ">1/4<" not in html and "h_1" in html
    assert "Sublayer 0: FFN, width 24 (reads h, z, p, one; writes h, z)" in html
    wide = samples["Transformer"][3]
    assert "more rows" in wide._repr_html_()          # long matrices are cut, with a line saying so


def test_latex_splits_long_matrices_by_rows(samples):
    wide = samples["Transformer"][3]
    tex = wide.sublayer_view(0)._repr_latex_()
    assert "\\text{(rows 1.." in tex
    assert all(len(b) < LATEX_BLOCK for b in tex.split("\n"))


def test_region_count_display_lists_intervals_and_maps(samples):
    rc = samples["RegionCount"][0]
    assert repr(rc).startswith("RegionCount(4 pieces on [-1, 2] (d = 1)")
    md = rc._repr_markdown_()
    assert "| 2 | [0, 1/2] | x |" in md and "| 3 | [1/2, 1] | -x + 1 |" in md


def test_readable():
    import gmpy2

    assert readable(Fraction(-3, 4)) == "-3/4" and readable(gmpy2.mpq(6, 4)) == "3/2"
    assert readable([Fraction(2)] * 30).endswith(", …]")
    assert len(readable("x" * 500, 50)) == 50
