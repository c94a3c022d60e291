"""verify maxout as a user runs it (subprocess)."""

import json
import subprocess
import sys

import pytest

O2 = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                 {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}],
      "box": [["0", "1"]]}


def _run(*argv):
    return subprocess.run([sys.executable, "-m", "verify", "maxout", *argv], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_maxout_cli(tmp_path):
    spec = tmp_path / "o2.json"
    spec.write_text(json.dumps(O2))
    out = tmp_path / "r.json"
    r = _run(str(spec), "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "tokens n = 2, embedding E = 7, sublayers D = 4, heads per layer [2, 1]" in r.stdout
    assert "W1 [32, 24], W2 [16, 12], attention [8, 4]" in r.stdout and "T6 PROVED" in r.stdout
    res = json.loads(out.read_text())
    assert res["verdict"] == "proved" and res["evidence"]["sizes"]["embedding"] == 7
    assert res["certificate"]["kind"] == "emulation-regions" and res["parameters"]["sizes"]["embedding"] == 7
    from verify import kernel
    from verify.kernel._cells import transformer_digest

    digest = transformer_digest(res["parameters"]["transformer"])
    assert f"Transformer sha256:{digest}" in r.stdout and f"sha256:{digest}" in res["statement"]
    assert kernel.check(res).startswith("emulation-regions")
    # REFUTED is an answer: exit 0; only --expect proved makes it exit 1 (the one exit-code table of the CLI)
    bad = _run(str(spec), "--S", "3/2", "--tie", "first", "--json", str(out), "--expect", "proved")
    assert bad.returncode == 1 and "T6 REFUTED" in bad.stdout and "2/3" in bad.stdout
    res = json.loads(out.read_text())
    assert res["certificate"]["transformer"] == ["2/3"] and kernel.check(res).startswith("emulation-witness")
    spec.write_text(json.dumps(dict(O2, box=[["0", "1"], ["0", "1"]])))
    err = _run(str(spec))
    assert err.returncode == 2 and err.stderr.startswith("error: box: expected 1") and err.stderr.count("\n") == 1
    err = _run(str(spec).replace("o2", "missing"))
    assert err.returncode == 2 and "Traceback" not in err.stderr


def test_verdict_line_names_the_summary_once(tmp_path):
    """Regression: the PROVED line printed the evidence's summary twice ("...: equal on all of the box ...: equal on
    all of the box ...")."""
    spec = tmp_path / "o2.json"
    spec.write_text(json.dumps(O2))
    r = _run(str(spec), "--tie", "average")
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith("T6 PROVED"))
    assert line.count("equal on all of the box") == 1, line
