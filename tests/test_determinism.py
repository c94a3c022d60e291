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


# a cheap, broad sample: every claim that has audits, REFUTED and PROVED cases, arb certificates, seeds
SAMPLE = ["T3/symbolic-S10", "T3/n1-u-exceeds-S", "T3/n2-non-binary-code", "T1/value-eq-score-control",
          "T2/n-w0-n-minus-2-n2", "T4/n-Delta1-L2", "T5/control-M-201-100", "T6/random-d1-k2-L2-seed1",
          "T6/O2-S40", "T7/n-sharpness-lam10", "T8/zigzag-q2-L1", "T9/O8-dc-S8", "T10/n2-shallow-family-L3",
          "T11/n1-first-rule-random", "N3/oracle-F12", "N3/oracle-F4", "N4/d-gaussians-F12", "N5/b-dirac-F4",
          "N6/F25-one-trial", "N7/F11-m1-d1", "N7/F1-m1", "N8/n-frozen-context-certified"]


def sample_audits():
    """The SAMPLE audits that exist (IDs renamed by their owners are dropped; T3 always exists)."""
    registry = {a.id: a for a in load_audits()}
    return [registry[i] for i in SAMPLE if i in registry]


def _run_cli(ids, out, hashseed, extra=()):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed))
    r = subprocess.run([sys.executable, "-m", "verify", "audit", *ids, "--json", str(out), *extra],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(out.read_text())


@pytest.mark.slow
def test_in_process_repeat_identical():
    audits = select_audits(load_audits(), ["T3"])
    a = canonical_dumps(strip_timing(audit_report_dict(run_audits(audits))))
    b = canonical_dumps(strip_timing(audit_report_dict(run_audits(audits))))
    assert a == b
    for o in run_audits(audits):
        assert o.result.to_json() != "" and "timing" in json.loads(o.result.to_json())


@pytest.mark.slow
def test_across_processes_hash_seeds_and_workers(tmp_path):
    ids = [a.id for a in sample_audits()]
    d1 = _run_cli(ids, tmp_path / "a.json", 1)
    d2 = _run_cli(ids, tmp_path / "b.json", 12345, extra=("--workers", "2"))
    s1, s2 = canonical_dumps(strip_timing(d1)), canonical_dumps(strip_timing(d2))
    if s1 != s2:
        for x, y in zip(d1["audits"], d2["audits"]):
            assert canonical_dumps(strip_timing(x)) == canonical_dumps(strip_timing(y)), \
                f"{x['audit']} differs between runs (hash seed / worker process)"
    assert s1 == s2
    # catalogue order of the selection, whatever finished first
    assert [a["audit"] for a in d1["audits"]] == [a.id for a in select_audits(load_audits(), ids)]


@pytest.mark.slow
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
