"""``verify check``: accepts every certificate the audits write, rejects tampered ones (one number
changed, a point removed, a region dropped), exit codes 0 / 1 / 2."""

import copy
import json
import subprocess
import sys
import time
import types
from fractions import Fraction

import pytest

from verify.cli.check_cmd import collect_results, recheck_one
from verify.errors import InputError
from verify.recheck import KINDS

# which claims write which certificate kinds (verify/recheck/__init__.py)
KIND_CLAIMS = {
    "dependence-relation": ["N3", "N5", "N4", "N6"],
    "independence-design": ["N3", "N5", "N4", "N6"],
    "emulation-regions": ["T6", "T8", "T9"],
    "emulation-witness": ["T6", "T8", "T9"],
    "ntk-cholesky": ["N7"],
    "ntk-null-vector": ["N7"],
    "regions-count": ["T10"],
}
# top-level certificate fields that a re-checker recomputes everything from: changing them may give
# another *valid* certificate (e.g. other design points of full rank), so acceptance is no failure
# there; the semantic tamper (two laws made identical) must still be rejected
FREE_FIELDS = {"independence-design": {"z_points", "points", "laws", "seed", "prime", "q", "attempt"},
               # a refutation rests on the witness, the pinned Transformer and the network; the size table
               # and the lemma record beside it are informational
               "emulation-witness": {"sizes", "size_problems", "lemma"}}
AUDIT_TIME_BUDGET_S = 20.0   # total time spent running audits to collect certificates
SKIP_KEYS = {"summary", "kind", "approx", "statement", "note", "notes", "explanation", "why", "reading"}


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=timeout)


# -- generic tampering ---------------------------------------------------------------------------------

def _is_number_leaf(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, str):
        try:
            Fraction(v)
            return True
        except (ValueError, ZeroDivisionError):
            return False
    return False


def number_paths(obj, path=(), in_list=False):
    """Paths of exact-number leaves that sit inside lists (the data of a certificate: points, vertices,
    coefficients, enclosures), skipping prose and display-only keys."""
    out = []
    if isinstance(obj, dict):
        for k in sorted(obj):
            if k in SKIP_KEYS:
                continue
            out += number_paths(obj[k], path + (k,), in_list)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += number_paths(v, path + (i,), True)
    elif in_list and _is_number_leaf(obj):
        out.append(path)
    return out


def list_paths(obj, path=()):
    out = []
    if isinstance(obj, dict):
        for k in sorted(obj):
            if k not in SKIP_KEYS:
                out += list_paths(obj[k], path + (k,))
    elif isinstance(obj, list):
        if len(obj) >= 2:
            out.append(path)
        for i, v in enumerate(obj):
            out += list_paths(v, path + (i,))
    return out


def _get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


def changed(v):
    if isinstance(v, int):
        return 2 * v + 1 if v != -1 else 3
    q = Fraction(v)
    new = 2 * q + Fraction(1, 7)
    return str(new.numerator) if new.denominator == 1 else f"{new.numerator}/{new.denominator}"


def tamper_number(result, path):
    r = copy.deepcopy(result)
    parent = _get(r["certificate"], path[:-1])
    parent[path[-1]] = changed(parent[path[-1]])
    return r


def tamper_drop(result, path):
    r = copy.deepcopy(result)
    lst = _get(r["certificate"], path)
    del lst[len(lst) // 2]
    return r


def sample(paths, k):
    if len(paths) <= k:
        return paths
    step = len(paths) / k
    return [paths[int(i * step)] for i in range(k)]


# -- a fake kind exercises the framework whatever re-checkers exist -------------------------------------

@pytest.fixture
def sum_kind(monkeypatch):
    mod = types.ModuleType("verify_test_sum_kind")

    def recheck(result):
        from verify.recheck import RecheckFailure

        cert = result["certificate"]
        terms = [Fraction(t) for t in cert["terms"]]
        if len(terms) != cert["count"] or sum(terms) != Fraction(cert["total"]):
            raise RecheckFailure("terms do not add up to the total")
        return f"{len(terms)} terms add up"

    mod.recheck = recheck
    monkeypatch.setitem(sys.modules, "verify_test_sum_kind", mod)
    monkeypatch.setitem(KINDS, "test-sum", "verify_test_sum_kind")
    return {"claim": "T3", "statement": "s", "verdict": "proved", "method": "exact",
            "certificate": {"kind": "test-sum", "summary": "sum", "terms": ["1/2", "1/3", 1], "count": 3,
                            "total": "11/6"}}


def test_framework_accepts_and_rejects(sum_kind):
    assert recheck_one("x", sum_kind).status == "passed"
    paths = number_paths(sum_kind["certificate"])
    assert paths == [("terms", 0), ("terms", 1), ("terms", 2)]
    for p in paths:
        assert recheck_one("x", tamper_number(sum_kind, p)).status == "rejected"
    assert recheck_one("x", tamper_drop(sum_kind, ("terms",))).status == "rejected"
    broken = copy.deepcopy(sum_kind)
    del broken["certificate"]["terms"]               # the re-checker raises KeyError: still a rejection
    assert recheck_one("x", broken).status == "rejected"
    unknown = copy.deepcopy(sum_kind)
    unknown["certificate"]["kind"] = "no-such-kind"
    assert recheck_one("x", unknown).status == "rejected"
    evidence_proved = dict(sum_kind, method="evidence")
    assert recheck_one("x", evidence_proved).status == "rejected"
    undecided = dict(sum_kind, verdict="inconclusive")
    assert recheck_one("x", undecided).status == "undecided"


def test_cli_exit_codes(tmp_path):
    audit_json = tmp_path / "a.json"
    r = run_cli("audit", "T3", "--json", str(audit_json))
    assert r.returncode == 0, r.stderr
    r = run_cli("check", str(audit_json))
    assert r.returncode == 0 and "0 rejected" in r.stdout, r.stdout + r.stderr
    r = run_cli("check", str(audit_json), "--strict")   # T3 certificates carry no re-checkable kind
    assert r.returncode == 1
    single = tmp_path / "r.json"
    single.write_text(json.dumps(json.loads(audit_json.read_text())["audits"][0]["result"]))
    assert run_cli("check", str(single)).returncode == 0
    bad_kind = json.loads(single.read_text())
    bad_kind["certificate"]["kind"] = "forged-kind"
    single.write_text(json.dumps(bad_kind))
    r = run_cli("check", str(single))
    assert r.returncode == 1 and "FAIL" in r.stdout


@pytest.mark.parametrize("content", ["", "{", "[1, 2]", '{"a": 1}', '{"audits": [1]}', '{"x": NaN}',
                                     '{"audits": [{"result": 5}]}', "\x00\x01"])
def test_cli_bad_input_exit_2(tmp_path, content):
    f = tmp_path / "c.json"
    f.write_text(content)
    r = run_cli("check", str(f))
    assert r.returncode == 2, (content, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: CERT:"), r.stderr


def test_cli_missing_file_exit_2(tmp_path):
    r = run_cli("check", str(tmp_path / "none.json"))
    assert r.returncode == 2 and r.stderr.startswith("error: CERT:")


def test_collect_results_shapes():
    with pytest.raises(InputError, match="^CERT: "):
        collect_results([])
    doc = {"audits": [{"audit": "T3/a", "result": None}, {"audit": "T3/b", "result": {"claim": "T3"}}]}
    assert [label for label, _ in collect_results(doc)] == ["T3/b"]


# -- every certificate the audits write ------------------------------------------------------------------

@pytest.fixture(scope="module")
def audit_certificates():
    """Run quick audits of the claims that write re-checkable certificates (within a time budget) and
    collect their PROVED/REFUTED Results by kind."""
    from verify.audit.discovery import load_audits, select_audits
    from verify.audit.runner import run_audits

    audits = select_audits(load_audits(), quick=True)
    wanted = []
    for claims in KIND_CLAIMS.values():
        for c in claims:
            if c not in wanted:
                wanted.append(c)
    by_kind = {k: [] for k in KINDS}
    start = time.perf_counter()

    def satisfied(claim):
        kinds = [k for k, cs in KIND_CLAIMS.items() if claim in cs and k in by_kind]
        return all(len(by_kind[k]) >= 2 for k in kinds)

    for claim in wanted:
        for a in [a for a in audits if a.claim == claim]:
            if time.perf_counter() - start > AUDIT_TIME_BUDGET_S or satisfied(claim):
                break
            (outcome,) = run_audits([a])
            r = outcome.result
            if r is None or r.verdict.value == "inconclusive":
                continue
            d = json.loads(r.to_json())
            kind = d["certificate"].get("kind")
            if kind in by_kind and len(by_kind[kind]) < 3:
                by_kind[kind].append((a.id, d))
    return by_kind


def _kind_or_skip(audit_certificates, kind):
    import importlib

    try:
        importlib.import_module(KINDS[kind])
    except ModuleNotFoundError:
        pytest.skip(f"re-checker {KINDS[kind]} for kind {kind!r} is not written yet")
    found = audit_certificates.get(kind) or []
    if not found:
        pytest.skip(f"no quick audit of {', '.join(KIND_CLAIMS.get(kind, []))} wrote a {kind!r} certificate yet")
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_audit_certificates_accepted(audit_certificates, kind):
    for audit_id, d in _kind_or_skip(audit_certificates, kind):
        line = recheck_one(audit_id, d)
        if line.status == "not-recheckable":
            pytest.skip(f"{audit_id}: {line.detail}")
        assert line.status == "passed", (audit_id, line.detail)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_tampered_certificates_rejected(audit_certificates, kind):
    free = FREE_FIELDS.get(kind, set())
    for audit_id, d in _kind_or_skip(audit_certificates, kind)[:2]:
        if recheck_one(audit_id, d).status == "not-recheckable":
            pytest.skip(f"{audit_id}: a re-checker it delegates to is not installed")
        nums = sample([p for p in number_paths(d["certificate"]) if p[0] not in free], 6)
        lists = sample([p for p in list_paths(d["certificate"]) if p and p[0] not in free], 4)
        laws = d["certificate"].get("laws")
        semantic = 0
        if isinstance(laws, list) and len(laws) >= 2 and d["verdict"] == "proved":
            twin = copy.deepcopy(d)          # two identical laws: dependent, so no PD / full-rank proof
            twin["certificate"]["laws"][1] = copy.deepcopy(laws[0])
            line = recheck_one(audit_id, twin)
            assert line.status == "rejected", f"{audit_id}: laws 1 and 2 made identical, still {line.status}"
            semantic = 1
        assert nums or lists or semantic, f"{audit_id}: certificate has no data to tamper with"
        for p in nums:
            line = recheck_one(audit_id, tamper_number(d, p))
            assert line.status == "rejected", f"{audit_id}: number at {p} changed, still {line.status}"
        for p in lists:
            line = recheck_one(audit_id, tamper_drop(d, p))
            assert line.status == "rejected", f"{audit_id}: element of list {p} dropped, still {line.status}"


def test_cli_checks_audit_json_of_certificate_claims(tmp_path, audit_certificates):
    """The CLI on a file holding every collected certificate: exit 0 (all accepted), exit 1 after one
    number is changed."""
    import importlib

    results = []
    for kind, items in audit_certificates.items():
        try:
            importlib.import_module(KINDS[kind])
        except ModuleNotFoundError:
            continue
        results += [(a, d) for a, d in items if recheck_one(a, d).status != "not-recheckable"]
    if not results:
        pytest.skip("no re-checkable certificates written by the audits yet")
    doc = {"audits": [{"audit": a, "claim": d["claim"], "result": d} for a, d in results]}
    f = tmp_path / "certs.json"
    f.write_text(json.dumps(doc))
    r = run_cli("check", str(f))
    assert r.returncode == 0, r.stdout + r.stderr
    audit_id, d = results[0]
    paths = number_paths(d["certificate"])
    if paths:
        doc["audits"][0]["result"] = tamper_number(d, paths[0])
        f.write_text(json.dumps(doc))
        r = run_cli("check", str(f))
        assert r.returncode == 1 and "FAIL" in r.stdout


@pytest.mark.skipif(not __import__("os").environ.get("VERIFY_FULL_CHECK"),
                    reason="set VERIFY_FULL_CHECK=1: runs every quick audit (minutes) and re-checks all certificates")
def test_every_quick_audit_certificate_accepted(tmp_path):
    out = tmp_path / "quick.json"
    r = run_cli("audit", "--quick", "--json", str(out), timeout=3600)
    assert out.exists(), r.stderr
    r = run_cli("check", str(out), timeout=3600)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " 0 rejected" in r.stdout
