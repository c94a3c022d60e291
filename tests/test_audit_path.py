"""``verify audit --path``: a project's own audits, run by the CLI without being part of the toolkit."""

import json
import textwrap

from verify.cli import main

AUDITS_FILE = textwrap.dedent('''
    """My project's audits of the one-hot gate."""
    from verify.audit.spec import Audit
    from verify.checks.t3_onehot_gate import check_gate_identity
    from verify.results import Verdict

    AUDITS = [
        Audit("T3", "mine-S4", Verdict.PROVED, check_gate_identity, {"S": 4}, quick=True),
        Audit("T3", "mine-wrong-expectation", Verdict.REFUTED, check_gate_identity, {"S": 4}),
    ]
''')


def _project(tmp_path):
    folder = tmp_path / "myproofs"
    folder.mkdir()
    (folder / "gate_audits.py").write_text(AUDITS_FILE)
    (folder / "notes.py").write_text("X = 1\n")          # no AUDITS: skipped in a folder
    return folder


def test_path_lists_and_runs_only_the_projects_audits(tmp_path, capsys):
    folder = _project(tmp_path)
    assert main(["audit", "--path", str(folder), "--list"]) == 0
    out = capsys.readouterr().out
    assert "T3/mine-S4" in out and "T3/mine-wrong-expectation" in out
    assert "T3/symbolic-S10" not in out                 # none of the toolkit's audits
    out_json = tmp_path / "a.json"
    assert main(["audit", "--path", str(folder), "T3/mine-s4", "--json", str(out_json), "--quiet"]) == 0
    doc = json.loads(out_json.read_text())
    assert [a["audit"] for a in doc["audits"]] == ["T3/mine-S4"] and doc["audits"][0]["met"]
    assert doc["summary"]["claims_without_audits"] == []  # only the claims the project audits
    capsys.readouterr()
    # a wrong expectation is a miss: exit 1
    assert main(["audit", "--path", str(folder / "gate_audits.py"), "--quiet"]) == 1


def test_path_errors_are_bad_input(tmp_path, capsys):
    assert main(["audit", "--path", str(tmp_path / "missing"), "--list"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--path" in err[0]
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "x.py").write_text("Y = 2\n")
    assert main(["audit", "--path", str(empty), "--list"]) == 2
    assert "--path" in capsys.readouterr().err
    folder = _project(tmp_path)
    assert main(["audit", "--path", str(folder), "--workers", "2"]) == 2
    assert "--workers" in capsys.readouterr().err
