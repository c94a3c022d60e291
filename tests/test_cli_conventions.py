"""The ``verify`` command behaves like the tools around it: one exit-code table for every subcommand, quiet on a
closed pipe, ``--json -``, files written before the summary, empty selections exit 5, audit IDs in any case,
plurals, the float refusal naming ``--allow-float``, help texts citing only the project's documents, and a
``--quick`` smoke run that covers every claim in seconds."""

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify.cli import COMMANDS, main
from verify.cli import conventions as cv

ROOT = Path(__file__).resolve().parents[1]

O2 = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                 {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}], "box": [["0", "1"]]}
INDEPENDENT = {"distributions": [{"family": "discrete", "atoms": [[0], [1]]},
                                 {"family": "discrete", "atoms": [[0], [2]]}]}
DEPENDENT = {"distributions": [{"family": "discrete", "atoms": [[0], [1]]},
                               {"family": "discrete", "atoms": [[0], [2]]},
                               {"family": "discrete", "atoms": [[0], [1], [2], [3]]}]}
NTK_SPEC = {"distributions": [{"family": "discrete", "atoms": [[0, 0], [1, "3/10"], ["-2/5", "11/10"]]},
                              {"family": "discrete", "atoms": [["1/2", "-1/5"], ["3/2", "1/10"], ["1/10", "9/10"]]}]}


def _write(tmp_path, name, doc):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _subprocess(*argv, **kw):
    return subprocess.run([sys.executable, "-m", "verify", *argv], capture_output=True, text=True, timeout=300,
                          cwd=str(ROOT), **kw)


# -- the table -------------------------------------------------------------------------------------------------
def test_table_codes_and_every_help_epilog(capsys):
    assert [c for c, _ in cv.EXIT_TABLE] == [0, 1, 2, 3, 5, 130, 141]
    for name in [None, *COMMANDS]:
        code, out, err = _cli(capsys, *([name] if name else []), "--help")
        assert code == 0 and err == ""
        table = out[out.index("exit codes of every verify command"):]
        for c in ("0", "1", "2", "3", "5", "141"):
            assert re.search(rf"^  {c} ", table, re.M), (name, c)


def test_audit_exit_codes(capsys, monkeypatch):
    assert _cli(capsys, "audit", "T3", "--quiet")[0] == 0
    assert _cli(capsys, "audit", "T3/no-such-audit")[0] == 2
    code, out, err = _cli(capsys, "audit", "--quick", "T1/symbolic-n8")   # selects nothing: pytest's 5
    assert code == 5 and out == "" and err.count("\n") == 1 and "--quick" in err
    assert _cli(capsys, "audit", "--list", "--quick", "T1/symbolic-n8")[0] == 5

    from verify.audit import discovery
    from verify.audit.spec import Audit
    from verify.results import Result, Verdict, Method

    def check():
        return Result("T3", "s", Verdict.INCONCLUSIVE, Method.EXACT)

    monkeypatch.setattr(discovery, "load_audits", lambda: [Audit("T3", "miss", Verdict.PROVED, check)])
    code, out, err = _cli(capsys, "audit", "--quiet")
    assert code == 1 and "MISS T3/miss" in out


def test_decision_commands_exit_0_whatever_the_verdict_and_1_only_with_expect(capsys, tmp_path):
    o2 = _write(tmp_path, "o2.json", O2)
    assert _cli(capsys, "maxout", o2)[0] == 0
    code, out, _ = _cli(capsys, "maxout", o2, "--S", "3/2", "--tie", "first")
    assert code == 0 and "T6 REFUTED" in out                      # formerly exit 1
    assert _cli(capsys, "maxout", o2, "--S", "3/2", "--tie", "first", "--expect", "proved")[0] == 1
    assert _cli(capsys, "maxout", o2, "--S", "3/2", "--tie", "first", "--expect", "REFUTED")[0] == 0
    assert _cli(capsys, "maxout", o2, "--expect", "maybe")[0] == 2

    ind, dep = _write(tmp_path, "i.json", INDEPENDENT), _write(tmp_path, "d.json", DEPENDENT)
    assert _cli(capsys, "independence", ind)[0] == 0
    assert _cli(capsys, "independence", dep)[0] == 0
    assert _cli(capsys, "independence", dep, "--expect", "refuted")[0] == 0
    assert _cli(capsys, "independence", dep, "--expect", "proved")[0] == 1

    spec, q = _write(tmp_path, "n.json", NTK_SPEC), _write(tmp_path, "q.json", [[1, "1/2"]])
    assert _cli(capsys, "ntk", spec, "--queries", q, "--heads", "10")[0] == 0
    assert _cli(capsys, "ntk", spec, "--queries", q, "--heads", "10", "--expect", "proved")[0] == 0
    assert _cli(capsys, "ntk", spec, "--queries", q, "--heads", "10", "--expect", "inconclusive")[0] == 1

    assert _cli(capsys, "regions", o2)[0] == 0
    assert _cli(capsys, "claims")[0] == 0


def test_check_exit_codes(capsys, tmp_path):
    o2 = _write(tmp_path, "o2.json", O2)
    good = tmp_path / "r.json"
    assert _cli(capsys, "maxout", o2, "--json", str(good))[0] == 0
    assert _cli(capsys, "check", str(good))[0] == 0
    bad = json.loads(good.read_text())
    bad["statement"] += " (edited)"
    assert _cli(capsys, "check", _write(tmp_path, "bad.json", bad))[0] == 1
    code, out, err = _cli(capsys, "check", _write(tmp_path, "empty.json", {"audits": []}))
    assert code == 5 and "no Result" in err
    assert _cli(capsys, "check", str(tmp_path / "missing.json"))[0] == 2


def test_internal_error_is_exit_3_one_line(capsys, monkeypatch):
    from verify.cli import claims_cmd

    def boom(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(claims_cmd, "run", boom)
    monkeypatch.delenv("VERIFY_DEBUG", raising=False)
    code, out, err = _cli(capsys, "claims")
    assert code == 3 and err.count("\n") == 1 and "RuntimeError: boom" in err


# -- pipes -----------------------------------------------------------------------------------------------------
class _ClosedPipe(io.TextIOBase):
    """stdout whose reader went away."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("argv", [("audit", "--list"), ("claims", "--long")])
def test_closed_pipe_in_process_is_quiet_141(monkeypatch, capsys, argv):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    code = main(list(argv))
    assert code == 141
    assert capsys.readouterr().err == ""


def test_json_file_written_before_the_summary(monkeypatch, capsys, tmp_path):
    """A reader that closes stdout at once still gets the --json file, complete."""
    out = tmp_path / "r.json"
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["independence", _write(tmp_path, "d.json", DEPENDENT), "--json", str(out)]) == 141
    assert json.loads(out.read_text())["verdict"] == "refuted"
    assert capsys.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.parametrize("argv", [("audit", "--list"), ("claims", "--long")])
def test_closed_pipe_subprocess(argv):
    """``verify audit --list | head -1``: read one line, close; then a reader that closed before any output."""
    p = subprocess.Popen([sys.executable, "-m", "verify", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=str(ROOT))
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=300)
    assert first.strip() and err == b"" and p.returncode in (0, 141), (p.returncode, err)

    r, w = os.pipe()
    os.close(r)   # no reader at all: the first write breaks the pipe
    p = subprocess.Popen([sys.executable, "-m", "verify", *argv], stdout=w, stderr=subprocess.PIPE, cwd=str(ROOT))
    os.close(w)
    err = p.stderr.read()
    p.wait(timeout=300)
    assert err == b"" and p.returncode == 141, (p.returncode, err)


def test_json_dash_writes_json_to_stdout(capsys, tmp_path):
    code, out, err = _cli(capsys, "independence", _write(tmp_path, "d.json", DEPENDENT), "--json", "-")
    assert code == 0 and json.loads(out)["verdict"] == "refuted" and "DEPENDENT" in err
    assert not (Path.cwd() / "-").exists()
    code, out, err = _cli(capsys, "audit", "T3", "--json", "-", "--quiet")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["audits"] == 3 and "3/3 audits met" in err
    code, out, err = _cli(capsys, "maxout", _write(tmp_path, "o2.json", O2), "--json", "-")
    assert code == 0 and json.loads(out)["verdict"] == "proved" and "T6 PROVED" in err
    code, out, err = _cli(capsys, "regions", _write(tmp_path, "o2.json", O2), "--json", "-")
    assert code == 0 and json.loads(out)["verdict"] == "proved" and err.startswith("4 regions (pieces)")


# -- names, plurals, messages ----------------------------------------------------------------------------------
def test_audit_ids_are_case_insensitive(capsys):
    code, out, err = _cli(capsys, "audit", "--list", "T6/o2-s40")   # the help's own example
    assert code == 0 and out.split()[0] == "T6/O2-S40"
    code, out, err = _cli(capsys, "audit", "--list", "n7/f11-M1-D1")
    assert code == 0 and out.split()[0] == "N7/F11-m1-d1"
    from verify.audit.discovery import load_audits

    ids = [a.id for a in load_audits()]
    assert len({i.casefold() for i in ids}) == len(ids)   # so a name in any case names one audit


def test_plurals(capsys, tmp_path):
    assert cv.plural(1, "law") == "1 law" and cv.plural(0, "law") == "0 laws"
    one = {"distributions": [{"family": "discrete", "atoms": [[0], [1]]}]}
    code, out, _ = _cli(capsys, "independence", _write(tmp_path, "one.json", one))
    assert code == 0 and ", 1 law in dimension 1" in out
    code, out, _ = _cli(capsys, "audit", "T3", "--quiet")
    assert "; 1 claim audited" in out
    code, out, _ = _cli(capsys, "regions", _write(tmp_path, "o2.json", O2))
    assert "4 activation regions, 4 pieces" in out
    from verify.cli.regions_cmd import region_words

    assert region_words(4, "pieces") == "4 pieces" and region_words(1, "activation") == "1 activation region"
    sources = "\n".join(p.read_text() for p in (ROOT / "verify" / "cli").glob("*.py"))
    sources += (ROOT / "verify" / "audit" / "runner.py").read_text()
    assert not re.search(r"\}\s+(laws|claims|regions|audits|pieces)\b(?!:| (exceed|met their))", sources)


def test_float_refusal_names_the_switch(capsys, tmp_path):
    spec = _write(tmp_path, "f.json", {"distributions": [{"family": "discrete", "atoms": [[0], [0.5]]}]})
    code, out, err = _cli(capsys, "independence", spec)
    assert code == 2 and "--allow-float" in err and "allow_float=True" not in err
    assert _cli(capsys, "independence", spec, "--allow-float")[0] == 0
    from verify.arith.exact import parse_exact
    from verify.errors import InputTypeError

    with pytest.raises(InputTypeError, match=r"allow_float=True"):
        parse_exact(0.5, "w")


# the forms of a citation of a document outside the repository (a spec file, an issue)
OUTSIDE_DOCUMENT_PATTERNS = (r"issue[- ]?\d", r"\bl" r"se\b", r"l" r"se\.md", r"spec" " maxout", r"shared" "/spec",
                             r"\bspec: ")


def test_help_cites_only_the_projects_documents(capsys):
    """No help text or message source of verify/cli/ cites an outside document; every docs/*.md it names exists."""
    texts = []
    for name in [None, *COMMANDS]:
        texts.append(_cli(capsys, *([name] if name else []), "--help")[1])
    texts += [p.read_text() for p in (ROOT / "verify" / "cli").glob("*.py")]
    blob = "\n".join(texts)
    for bad in OUTSIDE_DOCUMENT_PATTERNS:
        assert not re.search(bad, blob), bad
    for doc in set(re.findall(r"docs/([a-z0-9\-]+\.md)", blob)):
        assert (ROOT / "docs" / doc).exists(), doc


# -- inputs that crashed ---------------------------------------------------------------------------------------
def test_query_1e400_is_bad_input_naming_the_field(capsys, tmp_path):
    spec = _write(tmp_path, "s.json", {"distributions": [{"family": "gaussian", "cov": [[1]], "mean": [0]},
                                                         {"family": "discrete", "atoms": [[0], [1]]}]})
    code, out, err = _cli(capsys, "ntk", spec, "--queries", _write(tmp_path, "q.json", [["1e400"]]))
    assert code == 2 and err.startswith("error: queries[0][0]:") and err.count("\n") == 1


def test_float64_overflow_is_unavailable_evidence_and_the_certified_verdict_stands(capsys, tmp_path):
    spec = _write(tmp_path, "s.json", {"distributions": [{"family": "gaussian", "cov": [["1000000000"]],
                                                          "mean": [0]},
                                                         {"family": "discrete", "atoms": [[0], [1]]}]})
    out_json = tmp_path / "r.json"
    code, out, err = _cli(capsys, "ntk", spec, "--queries", _write(tmp_path, "q.json", [["1e153"]]),
                          "--json", str(out_json))
    assert code == 0 and out.startswith("N7 PROVED") and "float64 (evidence): unavailable" in out
    assert err == ""
    doc = json.loads(out_json.read_text())
    assert "unavailable" in doc["evidence"]["float64"]
    from verify import kernel

    assert kernel.check(doc).startswith("ntk-cholesky")


@pytest.mark.parametrize("command", ["independence", "ntk"])
def test_family_of_the_wrong_type_names_the_field(capsys, tmp_path, command):
    spec = _write(tmp_path, "s.json", {"distributions": [{"family": ["discrete"], "atoms": [[0], [1]]}]})
    extra = ["--queries", _write(tmp_path, "q.json", [[1]])] if command == "ntk" else []
    code, out, err = _cli(capsys, command, spec, *extra)
    assert code == 2 and err.startswith("error: distributions[0].family:") and err.count("\n") == 1


# -- long runs -------------------------------------------------------------------------------------------------
def test_workers_auto():
    from verify.cli.audit_cmd import parse_workers
    from verify.errors import InputError

    assert parse_workers("auto") == min(256, os.cpu_count() or 1) and parse_workers("3") == 3
    for bad in ("0", "257", "x", ""):
        with pytest.raises(InputError, match="^--workers: "):
            parse_workers(bad)


def test_progress_shows_current_audit_elapsed_and_eta():
    class A:
        id = "T6/O2-S40"

    class O:
        audit_id, actual, met = "T6/O2-S40", "proved", True

    s = io.StringIO()
    p = cv.Progress(s, tty=True, clock=iter([0.0, 0.0, 10.0, 10.0]).__next__)
    p.start(3)
    p.started(0, 3, A())
    p(1, 3, O())
    p.started(1, 3, A())
    text = s.getvalue()
    assert "running T6/O2-S40" in text and "elapsed 00:10" in text and "eta 00:20" in text
    quiet = io.StringIO()
    q = cv.Progress(quiet, quiet=True, tty=True)
    q.start(1)
    q.started(0, 1, A())
    q(1, 1, O())
    assert quiet.getvalue() == ""


def test_quiet_audit_prints_no_progress(capsys):
    code, out, err = _cli(capsys, "audit", "T3", "--quiet")
    assert code == 0 and err == ""
    code, out, err = _cli(capsys, "audit", "T3")
    assert code == 0 and err.count("\n") == 3   # not a terminal: one line per audit


def test_quick_covers_every_claim():
    from verify.audit.discovery import load_audits
    from verify.claims import claim_ids

    quick = [a for a in load_audits() if a.quick]
    assert {a.claim for a in quick} == set(claim_ids())
    assert len(quick) <= 3 * len(claim_ids())   # a smoke run, not the full audit


@pytest.mark.slow
def test_quick_run_is_a_smoke_run_under_20_seconds(tmp_path):
    from verify.claims import claim_ids

    out = tmp_path / "quick.json"
    start = time.monotonic()
    r = _subprocess("audit", "--quick", "--quiet", "--json", str(out))
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    doc = json.loads(out.read_text())
    assert set(doc["summary"]["claims_with_audits"]) == set(claim_ids())
    assert elapsed <= 20, f"verify audit --quick took {elapsed:.1f} s"


@pytest.mark.slow
def test_dask_scheduler_without_workers_is_a_clear_error():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional extra [dask]")
    from verify.audit.discovery import load_audits, select_audits
    from verify.audit.runner import run_audits
    from verify.errors import InputError

    cluster = distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp://",
                                       dashboard_address=None, scheduler_port=0, silence_logs=50)
    try:
        address = cluster.scheduler_address.replace("tcp://", "")   # HOST:PORT, as dask accepts it
        with pytest.raises(InputError, match="has no worker after 1 s"):
            run_audits(select_audits(load_audits(), ["T3"]), scheduler=address, scheduler_timeout=1)
    finally:
        cluster.close()


@pytest.mark.slow   # resolving a .invalid host may wait for the resolver
def test_unreachable_scheduler_says_why():
    pytest.importorskip("distributed", reason="dask.distributed is an optional extra [dask]")
    import socket

    from verify.audit.parallel import _probe
    from verify.errors import InputError

    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match="connection refused"):
        _probe(f"tcp://127.0.0.1:{port}", 2)
    with pytest.raises(InputError, match="cannot resolve host"):
        _probe("tcp://no-such-host.invalid:8786", 2)
