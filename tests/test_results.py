import json
from fractions import Fraction

import pytest

from verify.canonical import canonical_dumps, jsonable
from verify.results import Method, Result, Verdict


def test_evidence_cannot_prove_or_refute():
    for v in (Verdict.PROVED, Verdict.REFUTED):
        with pytest.raises(ValueError, match="evidence"):
            Result("T2", "s", v, Method.EVIDENCE)
    r = Result("T2", "s", Verdict.INCONCLUSIVE, Method.EVIDENCE)
    assert r.inconclusive


def test_bad_claim_and_enum_values():
    with pytest.raises(ValueError, match="claim"):
        Result("T12", "s", Verdict.PROVED, Method.EXACT, K)
    with pytest.raises(ValueError, match="verdict"):
        Result("T1", "s", "true", Method.EXACT)
    with pytest.raises(ValueError, match="method"):
        Result("T1", "s", "proved", "numeric")
    assert Result("T6.n2", "s", "refuted", "exact", {"kind": "emulation-witness"}).refuted


K = {"kind": "gate-case-split"}


def test_decided_results_need_a_kernel_kind():
    for v in ("proved", "refuted"):
        for cert in ({}, {"summary": "trust me"}, {"kind": "no-such-kind"}, {"kind": ["gate-case-split"]}):
            with pytest.raises(ValueError, match="^certificate: a .* needs a certificate of a kind the kernel"):
                Result("T3", "s", v, "exact", cert)
    assert Result("T3", "s", "inconclusive", "exact").inconclusive
    assert Result("T3", "s", "proved", "exact", K).proved


def test_json_is_canonical_and_byte_identical():
    def make():
        return Result("N3", "stmt", Verdict.PROVED, Method.CERTIFIED,
                      certificate={"kind": "independence-design", "z": Fraction(3, 7), "a": [1, 2.5], "m": {"b": 1, "a": 2}},
                      parameters={"seed": 5}, seeds={"rng": 5}, timing={"elapsed_s": 0.1})
    a, b = make().to_json(), make().with_timing(elapsed_s=9.0).to_json()
    da, db = json.loads(a), json.loads(b)
    assert da.pop("timing") != db.pop("timing")
    assert da == db
    assert make().to_json() == make().to_json()
    assert '"z":"3/7"' in a
    assert list(da) == sorted(da)
    assert da["versions"]["python"]


def test_roundtrip():
    r = Result("T1", "s", Verdict.PROVED, Method.EXACT, certificate={"kind": "hardmax-max-tree", "x": "1/2"})
    assert Result.from_dict(json.loads(r.to_json())) == r


def test_jsonable_special_values():
    from flint import arb, fmpq
    assert jsonable(fmpq(2, 4)) == "1/2"
    ball = jsonable(arb(1) / 3)
    assert Fraction(ball["lower"]) < Fraction(1, 3) < Fraction(ball["upper"])
    assert jsonable(float("inf")) == "inf"
    assert canonical_dumps({"b": 1, "a": 2}) == '{"a":2,"b":1}'
    with pytest.raises(TypeError):
        jsonable(object())


def test_repr_and_markdown():
    r = Result("T1", "max identity", Verdict.PROVED, Method.EXACT, certificate={"kind": "hardmax-max-tree", "summary": "ok"})
    assert "T1 PROVED (exact): ok" in repr(r)
    assert "**PROVED**" in r._repr_markdown_()


def test_html_repr_escapes():
    r = Result("T1", "a<b", Verdict.REFUTED, Method.EXACT,
               certificate={"kind": "hardmax-max-witness", "summary": "<x>"})
    html = r._repr_html_()
    assert "a&lt;b" in html and "&lt;x&gt;" in html and "REFUTED" in html


def test_atomic_write_permissions_and_content(tmp_path):
    import os
    import stat

    from verify.canonical import atomic_write_json
    p = tmp_path / "r.json"
    atomic_write_json(p, {"a": Fraction(1, 3)})
    assert p.read_text() == '{\n "a": "1/3"\n}\n'
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask
    assert [f.name for f in tmp_path.iterdir()] == ["r.json"]   # no temp file left behind
