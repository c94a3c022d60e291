"""Determinism: the same audits give byte-identical JSON (the "timing" fields aside) across runs,
across processes with different hash seeds (no set-order dependence), and across --workers."""

import json
import os
import subprocess
import sys

import pytest

from verify.audit.discovery import load_audits, select_audits
from verify.audit.runner import audit_report_dict, run_audits, strip_timing
from verify.canonical import canonical_dumps


def _sample_ids(limit_per_claim=1):
    """T3's audits plus the first quick audit of every other claim (broad and cheap)."""
    ids, per = [], {}
    for a in select_audits(load_audits(), quick=True):
        if a.claim == "T3" or per.get(a.claim, 0) < limit_per_claim:
            ids.append(a.id)
            per[a.claim] = per.get(a.claim, 0) + 1
    return ids


def _run_cli(ids, out, hashseed, extra=()):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed))
    r = subprocess.run([sys.executable, "-m", "verify", "audit", *ids, "--json", str(out), *extra],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(out.read_text())


def test_in_process_repeat_identical():
    audits = select_audits(load_audits(), ["T3"])
    a = canonical_dumps(strip_timing(audit_report_dict(run_audits(audits))))
    b = canonical_dumps(strip_timing(audit_report_dict(run_audits(audits))))
    assert a == b
    for o in run_audits(audits):
        assert o.result.to_json() != "" and "timing" in json.loads(o.result.to_json())


def test_across_processes_hash_seeds_and_workers(tmp_path):
    ids = _sample_ids()
    d1 = _run_cli(ids, tmp_path / "a.json", 1)
    d2 = _run_cli(ids, tmp_path / "b.json", 12345, extra=("--workers", "2"))
    s1, s2 = canonical_dumps(strip_timing(d1)), canonical_dumps(strip_timing(d2))
    if s1 != s2:
        for x, y in zip(d1["audits"], d2["audits"]):
            assert canonical_dumps(strip_timing(x)) == canonical_dumps(strip_timing(y)), \
                f"{x['audit']} differs between runs (hash seed / worker process)"
    assert s1 == s2
    assert [a["audit"] for a in d1["audits"]] == ids       # order of the input, whatever finished first


def test_only_timing_differs(tmp_path):
    d = _run_cli(["T3"], tmp_path / "t.json", 7)
    keys = set()

    def walk(o, path=""):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "timing":
                    keys.add(path + "/timing")
                else:
                    walk(v, path + "/" + k)
        elif isinstance(o, list):
            for v in o:
                walk(v, path + "/*")

    walk(d)
    assert keys == {"/timing", "/audits/*/timing", "/audits/*/result/timing"}
