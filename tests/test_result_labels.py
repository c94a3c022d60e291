"""User labels on Results: metadata only (the kernel's re-check is unaffected), catalogue IDs reserved."""

import json

import pytest

from verify import kernel
from verify.decide.emulation import prove_emulation
from verify.errors import InputError, InputTypeError
from verify.objects.maxout import MaxoutNetwork
from verify.results import Method, Result, Verdict, kernel_checked

ABS = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])


def test_label_is_metadata_and_the_kernel_accepts_it():
    plain = prove_emulation(ABS, [[-1, 1]])
    r = prove_emulation(ABS, [[-1, 1]], label="Lemma-4.2")
    assert r.proved and r.label == "Lemma-4.2"
    assert (r.statement, r.parameters, r.certificate) == (plain.statement, plain.parameters, plain.certificate)
    d = json.loads(r.to_json())
    assert d["label"] == "Lemma-4.2" and list(d) == sorted(d)
    assert kernel.check(d) == kernel.check(json.loads(plain.to_json()))
    assert kernel_checked(r) is r
    assert Result.from_dict(d).to_json() == r.to_json() and Result.from_dict(d).label == "Lemma-4.2"
    assert r.summary().startswith("T6 [Lemma-4.2] PROVED (exact)")
    assert "T6 [Lemma-4.2]" in r._repr_markdown_() and "T6 [Lemma-4.2]" in r._repr_html_()


def test_unlabelled_json_is_unchanged():
    r = Result("T3", "s", Verdict.INCONCLUSIVE, Method.EXACT)
    assert "label" not in r.to_dict() and Result.from_dict(r.to_dict()).label is None
    assert r.with_label("mine").with_label(None) == r


def test_catalogue_ids_stay_reserved_for_claim():
    with pytest.raises(ValueError, match="^claim"):
        Result("Lemma-4.2", "s", Verdict.INCONCLUSIVE, Method.EXACT)
    for bad in ("T6", "N3.n", "t6", "n10", "T11.o2_s40"):
        with pytest.raises(InputError, match="^label: .*looks like a catalogue ID"):
            Result("T6", "s", Verdict.INCONCLUSIVE, Method.EXACT, label=bad)
    assert Result("T6", "s", Verdict.INCONCLUSIVE, Method.EXACT, label="T12").label == "T12"


@pytest.mark.parametrize("bad, error, match", [
    ("", InputError, "1 to 80"), ("x" * 81, InputError, "1 to 80"), ("a\nb", InputError, "printable"),
    (" a", InputError, "printable"), (3, InputTypeError, "string"), (["a"], InputTypeError, "string"),
])
def test_bad_labels(bad, error, match):
    with pytest.raises(error, match="^label: .*" + match):
        Result("T6", "s", Verdict.INCONCLUSIVE, Method.EXACT, label=bad)
    with pytest.raises(error, match="^label"):
        prove_emulation(ABS, [[-1, 1]], label=bad)
