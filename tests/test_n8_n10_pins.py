"""Byte-identity pins of the N8, N9 and N10 audits (the slow audits of the mean-field and NTK area): the sha256
of each Result's JSON without "timing", "versions", the "float64" evidence entries and the evidence's typed
figure data ("figure", docs/reports.md), recorded on the commit before this stop's speed-ups (the helper of
tests/test_casesplit_speed.py, which pins N7).  A speed-up of these audits must keep every hash.  The audits take
seconds each, so they are compared only with VERIFY_HASH_ALL=1 (the audit run of the test suite checks their
verdicts anyway; without it nothing here is loaded or run)."""

import pytest

from _pins import HASH_ALL, result_hash  # noqa: F401  (result_hash: the pins' digest)
from verify.audit.discovery import load_audits
from verify.audit.runner import run_audit

BEFORE = {
    "N10/n-residual-in-kernel": "eaed3b7fd4dab93e8b240755bb709da8f27caefca6d9a13792c128c670786ba2",
    "N10/pl-decay-eps-1e-1": "76ca08df7b9b9606dc3ec3f21e8a4bdf480b7d5d80c999d7114795d116c0812d",
    "N10/pl-decay-eps-1e-2": "e3838e9ce8d09dff41572c04df69a8bac0330c708319621281f98a131a6917e2",
    "N8/depth-euler-rate": "396abc792c70f88a15be91b42c7e6adec68b691a9d68b6a30642fe75a50aef67",
    "N8/n-frozen-context-certified": "934ee9d0a5ced2e742b7702098c42f2fb94bbe5e9c28b963afb0d698facabd59",
    "N8/n-frozen-context-evidence": "1a77f6bc0044cb203b6466a0a7421c433d8d144a76a8b2a2660a9807c6ac26be",
    "N8/width-monte-carlo-rate": "6592ed1681689f16db654c04ddd72c6662971944effa7f74eb261a822abdc39f",
    "N9/constant-heads-50digits": "d267ce11cae1cb6c31cd564b82a37c2894933c9808357c7527a5d4c6a04d469e",
    "N9/exact-instance-A0": "9fe9904dce8c1e07553b61fa09a2b09466dc3df4ad96ae067c1879c3f417cb7f",
    "N9/layers-4-50digits": "80c775a9e43f94b5eb3a814f406ce42024bbb11fc5d143b75f80df9c1454134e",
    "N9/n-drop-context-certified": "3df85eb158d20112ce0dedf5269dcad276669dff1705b3cf3455f38e32a70cfe",
    "N9/n-drop-context-term": "a4b6dc957b4bf294cf8a38660d2f0bb4309b3119c52d9e41db68c297aaab48fa",
    "N9/n-drop-query-certified": "449fe3bd1759a8fc0b19a3d7c5824d19e30d2e87f2b8a29061b751e9b6a1a01e",
    "N9/n-drop-query-term": "5526c9aab417293bd30ca2e1b6f8b8333ee733756a589d8c4a7dc3edf06d4abb",
}
ALL = HASH_ALL


@pytest.fixture(scope="module")
def audits():
    return {a.id: a for a in load_audits()}


@pytest.mark.skipif(not ALL, reason="seconds long: compared with VERIFY_HASH_ALL=1")
@pytest.mark.parametrize("audit_id", sorted(BEFORE))
def test_results_byte_identical_to_before(audit_id, audits):
    if audit_id not in audits:
        pytest.skip(f"{audit_id} renamed by its owner")
    assert result_hash(run_audit(audits[audit_id]).result) == BEFORE[audit_id]
