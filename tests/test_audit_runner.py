"""The local runner of ``verify audit --workers N``: this process shares the audits with N - 1 worker
processes, Results travel as their JSON data, and the report's JSON is written without a second
canonical walk -- all byte-identical to a serial run (tests/test_parallel.py runs the real processes)."""

import concurrent.futures as cf
from concurrent.futures.process import BrokenProcessPool
import types

import pytest

from verify.audit.discovery import load_audits, select_audits
from verify.audit.runner import (_portable, _with_text, audit_report_dict, report_json_text, run_audit, run_audits,
                                 strip_timing)
from verify.canonical import canonical_dumps


@pytest.fixture(scope="module")
def t3():
    return select_audits(load_audits(), ["T3"])


def test_report_json_text_is_canonical(t3):
    outcomes = run_audits(t3)
    report = audit_report_dict(outcomes, ["T3"])
    assert report_json_text(report) == canonical_dumps(report, indent=1)
    # and with the Results as their JSON data (what worker processes send)
    portable = [_portable(o) for o in outcomes]
    assert all(o.data is not None and "versions" not in o.data for o in portable)
    again = audit_report_dict(portable, ["T3"])
    assert report_json_text(again) == canonical_dumps(again, indent=1)
    assert canonical_dumps(strip_timing(again)) == canonical_dumps(strip_timing(report))
    # and with each entry encoded where it ran, spliced into the report's text
    texts = [_with_text(o) for o in portable]
    spliced = audit_report_dict(texts, ["T3"])
    assert report_json_text(spliced, texts) == canonical_dumps(spliced, indent=1)
    # outcomes that do not match the report (one left out): the whole report is encoded, still canonical
    assert report_json_text(spliced, texts[:-1]) == canonical_dumps(spliced, indent=1)


class _Executor:
    """A stand-in for the worker pool: ``mode`` "refuse" (shut down), "die" (a worker died), "run" (in-process)."""

    def __init__(self, mode):
        self.mode = mode
        self.ran = []

    def submit(self, fn, audit_id):
        if self.mode == "refuse":
            raise RuntimeError("cannot schedule new futures after shutdown")
        fut = cf.Future()
        if self.mode == "die":
            fut.set_exception(BrokenProcessPool("a worker died"))
        else:
            self.ran.append(audit_id)
            fut.set_result(fn(audit_id))
        return fut


@pytest.mark.parametrize("mode", ["refuse", "die"])
def test_a_broken_pool_raises_never_hangs(t3, mode):
    pool = types.SimpleNamespace(processes=1, executor=_Executor(mode))
    with pytest.raises((RuntimeError, BrokenProcessPool)):
        run_audits(t3, workers=2, pool=pool)


def test_shared_run_keeps_order_and_bytes(t3):
    pool = types.SimpleNamespace(processes=1, executor=_Executor("run"))
    outcomes = run_audits(t3, workers=2, pool=pool)
    assert pool.executor.ran   # the pool got audits ...
    assert [o.audit_id for o in outcomes] == [a.id for a in t3]
    serial = [run_audit(a) for a in t3]
    assert canonical_dumps(strip_timing(audit_report_dict(outcomes))) == \
        canonical_dumps(strip_timing(audit_report_dict(serial)))
    assert all(o.text is not None for o in outcomes)
    report = audit_report_dict(outcomes, ["T3"])
    assert report_json_text(report, outcomes) == canonical_dumps(report, indent=1)


def test_pool_size_must_match_workers(t3):
    with pytest.raises(ValueError, match="pool: has 1 worker processes, workers=3 needs 2"):
        run_audits(t3, workers=3, pool=types.SimpleNamespace(processes=1, executor=None))


def test_audit_gc_block_restores_the_collector():
    import gc

    from verify.audit.runner import _AuditGC

    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with _AuditGC():
        assert gc.get_threshold() == _AuditGC.THRESHOLD
        assert frozen or gc.get_freeze_count() > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen
