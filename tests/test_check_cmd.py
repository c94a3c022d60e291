"""``verify check``: strict by default (a decided Result the kernel does not accept fails the run),
``--allow-unchecked`` for legacy files, exit codes 0 / 1 / 2, hostile files end within 10 s."""

import copy
import json
import subprocess
import sys
import time
import types

import pytest

from verify import kernel
from verify.cli import check_cmd
from verify.cli.check_cmd import collect_results, recheck_one
from verify.errors import InputError
from verify.kernel import Kind, Rejected, _read as R

from kernel_samples import load_samples


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=timeout)


# -- a toy kind, registered in-process ---------------------------------------------------------------------
def _toy_check(result):
    p = R.obj(result["parameters"], "parameters", required=("xs", "total"))
    R.expect_statement(result, "sum")
    if sum(R.vec(p["xs"], "xs", max_len=100)) != R.num(p["total"], "total"):
        raise Rejected("sum differs")
    return "ok"


@pytest.fixture
def toy(monkeypatch):
    table = dict(kernel.kinds())
    table["toy-sum"] = Kind(frozenset({"T3"}), "proved", frozenset({"exact"}), _toy_check)
    monkeypatch.setattr(kernel, "_KINDS", table)


def toy_result(total=3, kind="toy-sum", verdict="proved"):
    params = {"xs": [1, 2], "total": total}
    return {"claim": "T3", "verdict": verdict, "method": "exact", "parameters": params, "conventions": {},
            "certificate": {"kind": kind} if kind else {"summary": "legacy"},
            "statement": R.bound_statement("sum", params, {})}


def run_in_process(tmp_path, capsys, doc, *flags):
    f = tmp_path / "doc.json"
    f.write_text(json.dumps(doc))
    args = types.SimpleNamespace(cert=str(f), allow_unchecked="--allow-unchecked" in flags, budget=None,
                                 quiet="--quiet" in flags)
    code = check_cmd.run(args)
    return code, capsys.readouterr()


def test_recheck_one_statuses(toy):
    assert recheck_one("a", toy_result()).status == "accepted"
    assert recheck_one("a", toy_result(total=4)).status == "rejected"
    assert recheck_one("a", toy_result(kind=None)).status == "rejected"
    assert recheck_one("a", toy_result(kind=None), allow_unchecked=True).status == "unchecked"
    assert recheck_one("a", toy_result(total=4), allow_unchecked=True).status == "rejected"
    assert recheck_one("a", toy_result(verdict="inconclusive")).status == "undecided"
    assert recheck_one("a", toy_result(kind="nope")).status == "rejected"
    assert recheck_one("a", [1]).status == "rejected"


def test_strict_by_default(tmp_path, capsys, toy):
    doc = {"audits": [{"audit": "T3/a", "result": toy_result()}, {"audit": "T3/b", "result": toy_result(kind=None)}]}
    code, out = run_in_process(tmp_path, capsys, doc)
    assert code == 1
    assert "FAIL T3/b" in out.out and "1 of 2 decided Results re-checked and accepted by the kernel, 1 rejected" in out.out
    code, out = run_in_process(tmp_path, capsys, doc, "--allow-unchecked")
    assert code == 0 and "SKIP T3/b" in out.out and "1 unchecked" in out.out


def test_accepted_and_quiet(tmp_path, capsys, toy):
    doc = {"audits": [{"audit": "T3/a", "result": toy_result()},
                      {"audit": "T3/c", "result": toy_result(verdict="inconclusive")}]}
    code, out = run_in_process(tmp_path, capsys, doc)
    assert code == 0 and "OK   T3/a" in out.out and "1 inconclusive" in out.out
    code, out = run_in_process(tmp_path, capsys, doc, "--quiet")
    assert code == 0 and "T3/a" not in out.out


def test_single_result_document(tmp_path, capsys, toy):
    code, out = run_in_process(tmp_path, capsys, toy_result(total=5))
    assert code == 1 and "FAIL" in out.out


@pytest.mark.parametrize("content", ["", "{", "[1, 2]", '{"a": 1}', '{"audits": [1]}', '{"x": NaN}',
                                     '{"audits": [{"result": 5}]}', "\x00\x01"])
def test_cli_bad_input_exit_2(tmp_path, content):
    f = tmp_path / "bad.json"
    f.write_text(content)
    r = run_cli("check", str(f))
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_missing_file_and_budget_exit_2(tmp_path):
    r = run_cli("check", str(tmp_path / "none.json"))
    assert r.returncode == 2 and "CERT" in r.stderr
    f = tmp_path / "a.json"
    f.write_text(json.dumps(toy_result()))
    r = run_cli("check", str(f), "--budget", "0")
    assert r.returncode == 2 and "--budget" in r.stderr


def test_cli_legacy_result_fails_strict(tmp_path):
    f = tmp_path / "legacy.json"
    f.write_text(json.dumps(toy_result(kind=None)))
    r = run_cli("check", str(f))
    assert r.returncode == 1 and "certificate.kind: missing" in r.stdout
    r = run_cli("check", str(f), "--allow-unchecked")
    assert r.returncode == 0 and "SKIP" in r.stdout


def test_collect_results_shapes():
    assert collect_results({"claim": "T3", "verdict": "proved"})[0][0] == "T3"
    doc = {"audits": [{"audit": "T3/a", "result": None}, {"audit": "T3/b", "result": {"claim": "T3"}}]}
    assert [a for a, _ in collect_results(doc)] == ["T3/b"]
    with pytest.raises(InputError):
        collect_results([])


@pytest.mark.parametrize("digits", [4301, 6000])
def test_huge_integer_literal_is_bad_input_naming_its_place(tmp_path, capsys, toy, digits):
    # an integer literal over Python's 4300-digit limit is bad input (exit 2) naming its place, not a crash;
    # Results write such integers as strings (verify/canonical.py)
    r = toy_result()
    text = json.dumps(r).replace('"total": 3', '"total": ' + "9" * digits)
    f = tmp_path / "big.json"
    f.write_text(text)
    args = types.SimpleNamespace(cert=str(f), allow_unchecked=False, budget=None, quiet=False)
    with pytest.raises(InputError, match=r"^CERT\.parameters\.total: integer literal of %d digits" % digits):
        check_cmd.run(args)
    r["parameters"]["total"] = "9" * 4999      # as a string the kernel reads it (and rejects the wrong sum)
    f.write_text(json.dumps(r))
    assert check_cmd.run(args) == 1
    assert "FAIL" in capsys.readouterr().out


# -- every kind: genuine samples accepted through the CLI; hostile 1 MB versions end within 10 s -------------
SAMPLES = load_samples()


def _hostile_versions(r):
    """1 MB-ish variants: each top-level certificate list blown up by repeating its first element, and every
    certificate number replaced by a 5000-digit one."""
    out = []
    cert = r["certificate"]
    for key, v in sorted(cert.items()):
        if isinstance(v, list) and v:
            m = copy.deepcopy(r)
            unit = len(json.dumps(v[0])) + 1
            m["certificate"][key] = [copy.deepcopy(v[0]) for _ in range(max(1, 1_000_000 // unit))]
            out.append((f"certificate.{key}[", m))
    big = "7" * 4999 + "/" + "3" * 4999

    def blow(v):
        if isinstance(v, dict):
            return {k: (v[k] if k == "kind" else blow(v[k])) for k in v}
        if isinstance(v, list):
            return [blow(x) for x in v]
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, str)) and str(v).lstrip("-").replace("/", "").isdigit():
            return big
        return v
    m = copy.deepcopy(r)
    m["certificate"] = blow(cert)
    if len(json.dumps(m)) <= 2_000_000:
        out.append(("5000-digit numbers", m))   # may be genuinely valid (e.g. another witness): only time counts
    return out


@pytest.mark.slow
def test_cli_accepts_every_genuine_sample(tmp_path):
    assert SAMPLES, "no kernel samples found (kernel_samples() in tests/test_kernel_*.py)"
    doc = {"audits": [{"audit": label, "result": r} for label, r, _ in SAMPLES]}
    f = tmp_path / "samples.json"
    f.write_text(json.dumps(doc))
    r = run_cli("check", str(f), "--quiet", timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " 0 rejected" in r.stdout


@pytest.mark.parametrize("label, r, free", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_hostile_certificates_end_within_10_seconds(label, r, free):
    slow = []
    for what, m in _hostile_versions(r):
        t = time.monotonic()
        line = recheck_one(label, m, seconds=30)
        dt = time.monotonic() - t
        if dt > 10:
            slow.append(f"{what}: {dt:.1f} s ({line.status})")
        # a blown-up list repeats one element: never a valid certificate, except where the list is free
        if what.endswith("[") and line.status == "accepted" and not any(p.search(what) for p in free):
            slow.append(f"{what}: repeated element accepted")
    assert not slow, f"{label}: {slow}"
