"""CLI exit codes and one-line errors (run as a subprocess, as a user would)."""

import json
import subprocess
import sys

import pytest


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.mark.slow
def test_version_and_claims():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("verify ")
    r = run("claims")
    assert r.returncode == 0
    for cid in [f"T{i}" for i in range(1, 12)] + [f"N{i}" for i in range(1, 11)]:
        assert f"\n{cid} " in "\n" + r.stdout


@pytest.mark.parametrize("args", [
    ("bogus",), ("audit", "Z9"), ("audit", "--workers", "0"), ("audit", "--workers", "x"),
    ("audit", "T3/no-such-audit"), ("claims", "--nope"), (),
])
def test_usage_errors_are_one_line_exit_2(args):
    r = run(*args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


@pytest.mark.slow
def test_audit_json_written_and_deterministic(tmp_path):
    from verify.audit.runner import strip_timing
    out1, out2 = tmp_path / "a.json", tmp_path / "b.json"
    r1 = run("audit", "T3", "--json", str(out1))
    r2 = run("audit", "T3", "--json", str(out2))
    assert r1.returncode == 0 and r2.returncode == 0, r1.stdout + r1.stderr
    d1, d2 = json.loads(out1.read_text()), json.loads(out2.read_text())
    assert len(d1["audits"]) == 3 and d1["summary"]["met"] == 3
    assert json.dumps(strip_timing(d1), sort_keys=True) == json.dumps(strip_timing(d2), sort_keys=True)


def test_audit_json_unwritable_path_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("audit", "T3", "--json", str(blocker / "out.json"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_strict_fails_for_claims_without_audits(monkeypatch, capsys):
    """A registry in which a selected claim (N10) has no audit: --strict exits 1 and says why; without
    --strict the run passes and names the claim; when every selected claim has an audit --strict passes."""
    from verify.audit import discovery
    from verify.cli import main

    t3 = [a for a in discovery.load_audits() if a.claim == "T3" and a.quick][:1]
    assert t3
    monkeypatch.setattr(discovery, "load_audits", lambda: list(t3))
    assert not any(a.claim == "N10" for a in discovery.load_audits())

    assert main(["audit", "T3", "N10", "--strict"]) == 1
    out, err = capsys.readouterr()
    assert "1/1 audits met" in out and "claims without audits: N10" in out
    assert "strict: failing because some claims have no audit" in err

    assert main(["audit", "T3", "N10"]) == 0
    out, err = capsys.readouterr()
    assert "claims without audits: N10" in out and "strict" not in err

    assert main(["audit", "T3", "--strict"]) == 0
    out, err = capsys.readouterr()
    assert "claims without audits" not in out and "strict" not in err
