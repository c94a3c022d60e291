"""The audit registry: every audit module is well formed and the claim catalogue is complete."""

import pytest

from verify.audit.discovery import load_audits, select_audits
from verify.audit.spec import Audit, AuditError
from verify.claims import CLAIMS, claim_ids
from verify.results import Verdict


def test_catalogue_has_21_claims():
    assert claim_ids() == [f"T{i}" for i in range(1, 12)] + [f"N{i}" for i in range(1, 11)]


def test_audit_ids_unique_and_claims_known():
    audits = load_audits()
    ids = [a.id for a in audits]
    assert len(ids) == len(set(ids))
    assert all(a.claim in CLAIMS for a in audits)


def test_every_audited_claim_has_a_refuted_side():
    by_claim = {}
    for a in load_audits():
        by_claim.setdefault(a.claim, set()).add(a.expected)
    for claim, verdicts in by_claim.items():
        assert verdicts - {Verdict.PROVED}, f"{claim} has no audit expecting REFUTED/INCONCLUSIVE"


def test_malformed_audits_rejected():
    with pytest.raises(AuditError):
        Audit("T99", "x", Verdict.PROVED, lambda: None)
    with pytest.raises(AuditError):
        Audit("T1", "bad name!", Verdict.PROVED, lambda: None)
    with pytest.raises(AuditError):
        Audit("T1", "x", "maybe", lambda: None)


def test_select():
    audits = load_audits()
    assert all(a.claim == "T3" for a in select_audits(audits, ["t3"]))
    with pytest.raises(ValueError):
        select_audits(audits, ["Q1"])
