"""``verify ntk``: verdict lines, --json output re-checkable, exit codes."""

import contextlib
import io
import json

import pytest

from verify import kernel
from verify.cli import main

SPEC = {"modulo": "affine", "distributions": [
    {"family": "discrete", "atoms": [[0, 0], [1, "3/10"], ["-2/5", "11/10"]]},
    {"family": "discrete", "atoms": [["1/2", "-1/5"], ["3/2", "1/10"], ["1/10", "9/10"]]}]}


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    q1 = tmp_path / "q1.json"
    q1.write_text(json.dumps([[1, "1/2"]]))
    q2 = tmp_path / "q2.json"
    q2.write_text(json.dumps([[1, "1/2"], ["-3/10", 1]]))
    return tmp_path, str(spec), str(q1), str(q2)


def test_translates_one_query_pd_and_json_rechecks(files):
    tmp, spec, q1, _ = files
    out_json = tmp / "r.json"
    code, out, err = _run(["ntk", spec, "--queries", q1, "--heads", "10", "--json", str(out_json)])
    assert code == 0 and err == ""
    assert out.startswith("N7 PROVED (certified)") and "float64 (evidence)" in out
    d = json.loads(out_json.read_text())
    assert d["verdict"] == "proved" and "PD by ball Cholesky" in kernel.check(d)


def test_translates_two_queries_singular(files):
    _, spec, _, q2 = files
    code, out, err = _run(["ntk", spec, "--queries", q2, "--json", str(files[0] / "s.json")])
    assert code == 0 and out.startswith("N7 REFUTED (exact)") and "(1, -1, -1, 1)" in out
    assert kernel.check(json.loads((files[0] / "s.json").read_text())).startswith("ntk-null-vector")


def test_per_token_reading_note(files):
    _, spec, _, _ = files
    code, out, err = _run(["ntk", spec, "--reading", "per-token", "--heads", "12"])
    assert code == 0 and "per-token reading" in out and out.startswith("N7 PROVED")


def test_outside_setting_note(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"distributions": [{"family": "discrete", "atoms": [[0], [1]]},
                                                  {"family": "discrete", "atoms": [[0], [2]]}]}))
    q = tmp_path / "q.json"
    q.write_text(json.dumps([[1], [2]]))
    code, out, err = _run(["ntk", str(spec), "--queries", str(q), "--ladder", "64,128"])
    assert code == 0 and "outside the setting of the NTK theorem" in out and "docs/ntk.md" in out and out.startswith("N7 REFUTED")


def test_zero_heads_inconclusive_exit_0(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"distributions": [{"family": "uniform_cube", "radius": 1, "center": [0, 0]},
                                                  {"family": "uniform_cube", "radius": 2, "center": [0, 0]}]}))
    q = tmp_path / "q.json"
    q.write_text(json.dumps([[1, 0]]))
    code, out, err = _run(["ntk", str(spec), "--queries", str(q), "--scale", "1/10000000000", "--heads", "2",
                           "--ladder", "32"])
    assert code == 0 and out.startswith("N7 ")


def test_help_documents_the_exit_status():
    code, out, err = _run(["ntk", "--help"])
    assert code == 0 and "exit status: 0 whenever a verdict is printed" in " ".join(out.split())


@pytest.mark.parametrize("extra, field", [
    (["--seed", "-1"], "--seed"), (["--scale", "0"], "--scale"), (["--ladder", "64,x"], "--ladder"),
    (["--key-dim", "0"], "--key-dim"), (["--json", "/no/such/folder/x.json"], "--json"),
])
def test_bad_options_exit_2(files, extra, field):
    _, spec, q1, _ = files
    code, out, err = _run(["ntk", spec, "--queries", q1, *extra])
    assert code == 2 and err.startswith(f"error: {field}:") and err.count("\n") == 1


def test_missing_queries_exit_2(files):
    _, spec, _, _ = files
    code, out, err = _run(["ntk", spec])
    assert code == 2 and err.startswith("error: --queries:")
