"""The toolkit installs beside other projects: the pytest plugin is harmless by default, the audits are found as
``verify.proofs`` (never as whatever top-level ``proofs`` is on ``sys.path``), ``assert_verdict`` behaves, and the
wheel works outside the repository (docs/reports.md, "The pytest plugin")."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import types
import zipfile
from pathlib import Path

import pytest

import verify
from verify.audit import discovery
from verify.pytest_plugin import AuditMiss, assert_verdict
from verify.results import Method, Result, Verdict

ROOT = Path(verify.__file__).resolve().parent.parent
TIMEOUT = 600


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.pop("PYTHONSTARTUP", None)
    env.update(extra)
    return env


def _run(args, cwd, env=None, timeout=TIMEOUT):
    return subprocess.run(args, cwd=cwd, env=env if env is not None else _env(), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _unrelated_project(base: Path) -> Path:
    """A project with its own ``proofs`` package (files named like audits, no AUDITS) that must never be imported."""
    proj = base / "otherproject"
    (proj / "proofs").mkdir(parents=True)
    (proj / "tests").mkdir()
    (proj / "proofs" / "__init__.py").write_text(
        'raise RuntimeError("the unrelated proofs package was imported")\n')
    (proj / "proofs" / "t1_lemma.py").write_text('"""A lemma of another project."""\nLEMMA = 1\n')
    (proj / "proofs" / "n2_notes.py").write_text('"""Notes, no AUDITS."""\n')
    (proj / "tests" / "test_x.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    return proj


def _proved_t3():
    audit = next(a for a in discovery.audits_of_module("verify.proofs.maxout.t3_onehot_gate")
                 if a.expected is Verdict.PROVED and a.quick)
    return audit.run()


# --- discovery -----------------------------------------------------------------------------------------------


def test_audits_are_found_as_verify_proofs_never_as_top_level_proofs(monkeypatch):
    trap = types.ModuleType("proofs")
    trap.__path__ = []  # an unrelated package called proofs, already imported: it must not be used
    monkeypatch.setitem(sys.modules, "proofs", trap)
    names = discovery.audit_modules()
    assert names and all(n.startswith("verify.proofs.") for n in names)
    assert {n.rsplit(".", 1)[-1].split("_", 1)[0].upper() for n in names} >= {"T1", "N1"}
    assert discovery.audit_package().__name__ == "verify.proofs"
    assert (discovery.audit_package_dir() / "maxout" / "t3_onehot_gate.py").is_file()
    assert sys.modules["proofs"] is trap


def test_project_audits_load_from_file_folder_and_module(tmp_path, monkeypatch):
    folder = tmp_path / "lemmas"
    folder.mkdir()
    (folder / "my_audits.py").write_text(textwrap.dedent("""
        from verify.audit.spec import Audit
        from verify.results import Method, Result, Verdict

        def check(u):
            return Result("T3", f"lemma at u={u}", Verdict.INCONCLUSIVE, Method.EXACT, {"kind": "gate-witness"})

        AUDITS = [Audit("T3", "lemma-u1", Verdict.INCONCLUSIVE, check, {"u": 1})]
    """))
    (folder / "helpers.py").write_text("X = 1\n")
    by_file = discovery.load_audits_from(folder / "my_audits.py")
    by_folder = discovery.load_audits_from(folder)
    assert [a.id for a in by_file] == [a.id for a in by_folder] == ["T3/lemma-u1"]
    assert by_file[0].run().verdict is Verdict.INCONCLUSIVE
    assert [a.id for a in discovery.load_audits_from("verify.proofs.maxout.t3_onehot_gate")] == \
        [a.id for a in discovery.audits_of_module("verify.proofs.maxout.t3_onehot_gate")]
    with pytest.raises(discovery.AuditError, match="defines no AUDITS"):
        discovery.load_audits_from(folder / "helpers.py")
    with pytest.raises(discovery.AuditError, match="no such file, folder or module"):
        discovery.load_audits_from("no_such_module_for_verify_tests")


# --- assert_verdict ------------------------------------------------------------------------------------------


def test_assert_verdict_accepts_any_case_and_the_enum():
    result = _proved_t3()
    for expected in ("PROVED", "proved", "Proved", Verdict.PROVED):
        assert_verdict(result, expected)


def test_assert_verdict_rejects_unknown_names_clearly():
    result = _proved_t3()
    for bad in ("yes", "", 1, None):
        with pytest.raises(ValueError) as info:
            assert_verdict(result, bad)
        message = str(info.value)
        assert "PROVED, REFUTED, INCONCLUSIVE" in message and "is not a valid Verdict" not in message
    with pytest.raises(TypeError, match="expected a verify.Result"):
        assert_verdict({"verdict": "proved"}, "proved")


def test_assert_verdict_failure_message_says_expected_got_claim_statement_summary():
    result = _proved_t3()
    with pytest.raises(AuditMiss) as info:
        assert_verdict(result, "refuted")
    message = str(info.value)
    assert message.startswith("expected REFUTED, got PROVED")
    assert "claim:     T3" in message and f"statement: {result.statement}" in message
    assert f"summary:   {result.certificate['summary']}" in message
    undecided = Result("T3", "an undecided gate", Verdict.INCONCLUSIVE, Method.EXACT, {"kind": "gate-witness"})
    assert_verdict(undecided, "INCONCLUSIVE")
    with pytest.raises(AuditMiss, match="summary:   \\(no summary\\)"):
        assert_verdict(undecided, Verdict.PROVED)


def test_assert_verdict_hides_its_frame():
    assert "__tracebackhide__" in assert_verdict.__code__.co_varnames


# --- an unrelated project ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_unrelated_project_with_proofs_package_collects_only_its_tests(tmp_path):
    proj = _unrelated_project(tmp_path)
    (proj / "tests" / "test_fixture.py").write_text(textwrap.dedent("""
        import pytest
        from verify.results import Method, Result, Verdict

        def test_fixture(assert_verdict):
            assert_verdict(Result("T3", "undecided", Verdict.INCONCLUSIVE, Method.EXACT, {}), "inconclusive")

        @pytest.mark.xfail(strict=True, raises=AssertionError)
        def test_hidden_frame(assert_verdict):
            assert_verdict(Result("T3", "undecided", Verdict.INCONCLUSIVE, Method.EXACT, {}), "PROVED")
    """))
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], cwd=proj)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert "collected 3 items" in text and "2 passed, 1 xfailed" in text
    body = [line for line in text.splitlines() if not line.startswith(("rootdir:", "plugins:", "platform "))]
    for word in ("verify", "audit", "Audit", "proofs", "lemma", "notes"):
        assert not any(word in line for line in body), (word, text)
    assert any(line.startswith("plugins:") and "verify" in line for line in text.splitlines()), text
    # the failing assert_verdict shows the caller's line, not the plugin's source
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--runxfail", "-q",
                "tests/test_fixture.py::test_hidden_frame"], cwd=proj)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "expected PROVED, got INCONCLUSIVE" in text and "claim:     T3" in text
    assert "raise AuditMiss" not in text and "def assert_verdict" not in text


@pytest.mark.slow
def test_audit_list_from_a_folder_with_an_unrelated_proofs_package(tmp_path):
    proj = _unrelated_project(tmp_path)
    out = _run([sys.executable, "-m", "verify", "audit", "--list"], cwd=proj)
    assert out.returncode == 0, out.stdout + out.stderr
    assert all(a.id in out.stdout for a in discovery.load_audits())
    assert "lemma" not in out.stdout + out.stderr


@pytest.mark.slow
def test_verify_audits_option_and_registered_project_audits(tmp_path):
    proj = _unrelated_project(tmp_path)
    (proj / "lemma_audits.py").write_text(textwrap.dedent("""
        from verify.audit.spec import Audit
        from verify.results import Method, Result, Verdict

        def check(u):
            return Result("T3", f"lemma at u={u}", Verdict.INCONCLUSIVE, Method.EXACT, {"kind": "gate-witness"})

        AUDITS = [Audit("T3", "lemma-holds", Verdict.INCONCLUSIVE, check, {"u": 1}),
                  Audit("T3", "lemma-missed", Verdict.PROVED, check, {"u": 2})]
    """))
    (proj / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nverify_audit_modules =\n    lemma_audits.py\n")
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=proj)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "1 failed, 2 passed" in text
    assert "lemma_audits.py::lemma-missed" in text and "expected proved, got inconclusive" in text
    # the toolkit's own audits, on request only
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "--verify-audits",
                "--audit-quick", "tests"], cwd=proj)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    collected = [line for line in out.stdout.splitlines() if "::" in line]
    assert "tests/test_x.py::test_x" in collected
    assert any(line.endswith("t3_onehot_gate.py::symbolic-S10") for line in collected), text
    assert not any("lemma" in line for line in collected)


@pytest.mark.slow
def test_repository_collects_its_audits_with_the_same_ids():
    out = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q",
                "proofs/maxout/t3_onehot_gate.py"], cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    collected = [line for line in out.stdout.splitlines() if "::" in line]
    expected = [f"proofs/maxout/t3_onehot_gate.py::{a.name}"
                for a in discovery.audits_of_module("verify.proofs.maxout.t3_onehot_gate")]
    assert collected == expected


# --- the wheel -----------------------------------------------------------------------------------------------


def _can_build_wheel() -> bool:
    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return importlib.util.find_spec("wheel") is not None or (major, minor) >= (70, 1)


@pytest.mark.slow
def test_wheel_installed_in_a_fresh_venv_outside_the_repository(tmp_path):
    if not _can_build_wheel():
        pytest.skip("building a wheel offline needs the 'wheel' package or setuptools >= 70.1 (the [test] extra)")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "setup.cfg", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("verify", "proofs"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path / "dist"
    # the project's declared build backend (pyproject.toml), called as pip wheel --no-build-isolation calls it,
    # without pip's own start-up (offline, no dependencies fetched)
    out = _run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                "print(build_meta.build_wheel(sys.argv[1]))", str(dist)], cwd=src)
    assert out.returncode == 0, out.stdout + out.stderr
    (wheel,) = dist.glob("transformer_verify-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "verify/py.typed" in names and "verify/proofs/__init__.py" in names
    assert "verify/proofs/maxout/t3_onehot_gate.py" in names and "verify/proofs/lse/n1_cgf_closed_forms.py" in names
    assert not any(n.startswith("proofs/") for n in names)
    assert any(".dist-info/" in n and n.endswith("LICENSE") for n in names)
    schemas = sorted((ROOT / "verify" / "schemas").glob("*.json"))
    assert all(f"verify/schemas/{p.name}" in names for p in schemas)

    # a fresh venv that sees the dependencies already installed here (a .pth file), but not the checkout
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    out = _run([base, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    python = venv / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp_path,
                env={"PATH": os.environ.get("PATH", "")})
    ours = [p for p in dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *sys.path])
            if p and Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
    Path(site.stdout.strip(), "zz_dependencies.pth").write_text("\n".join(ours) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
           and not k.startswith("PYTEST_")}
    out = _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-compile", str(wheel)],
               cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stdout + out.stderr

    elsewhere = _unrelated_project(tmp_path)
    out = _run([str(python), "-c", "import verify, verify.proofs, sys; print(verify.__file__); "
                "print(verify.proofs.__file__); print('proofs' in sys.modules)"], cwd=elsewhere, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    where = out.stdout.split()
    assert all(Path(p).resolve().is_relative_to(venv.resolve()) for p in where[:2]), out.stdout
    assert where[2] == "False"
    script = venv / "bin" / "verify"
    out = _run([str(script), "--help"], cwd=elsewhere, env=env)
    assert out.returncode == 0 and "usage: verify" in out.stdout, out.stdout + out.stderr
    schema = _run([str(script), "schema", "maxout"], cwd=elsewhere, env=env)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    assert json.loads(schema.stdout)["$schema"].endswith("2020-12/schema")
    out = _run([str(python), "-m", "pytest", "-p", "no:cacheprovider"], cwd=elsewhere, env=env)
    assert out.returncode == 0 and "1 passed" in out.stdout, out.stdout + out.stderr
    # the quick audits discover (import) every audit module of the installed verify.proofs, as --list does, and
    # run at least one audit per claim from the wheel's files
    out = _run([str(script), "audit", "--quick"], cwd=elsewhere, env=env, timeout=1800)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "audits met" in out.stdout and "T3/" in out.stdout and "lemma" not in out.stdout + out.stderr
