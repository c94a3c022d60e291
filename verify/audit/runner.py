"""Run audits and compare verdicts with their expectations.

An audit *meets* its expectation when its check returns a Result whose verdict equals the
expected verdict.  A check that raises is a miss (the error is recorded, never hidden).
Results do not depend on the order or the process they run in: every audit seeds its own
randomness from its parameters.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from typing import Callable, Optional, Sequence

from ..claims import claim_ids
from ..results import Result, Verdict
from .spec import Audit

__all__ = ["AuditOutcome", "run_audit", "run_audits", "audit_report_dict", "strip_timing", "item_seed"]


@dataclasses.dataclass(frozen=True)
class AuditOutcome:
    audit_id: str
    claim: str
    expected: Verdict
    result: Optional[Result]
    error: Optional[str]
    elapsed: float = dataclasses.field(default=0.0, compare=False)

    @property
    def met(self) -> bool:
        return self.error is None and self.result is not None and self.result.verdict is self.expected

    @property
    def actual(self) -> str:
        if self.error is not None:
            return "error"
        return self.result.verdict.value

    def message(self) -> str:
        """A failure message naming the claim, the expected and actual verdict, and the certificate."""
        if self.met:
            return f"{self.audit_id}: {self.expected.value} as expected"
        if self.error is not None:
            return f"{self.audit_id} (claim {self.claim}): expected {self.expected.value}, check raised: {self.error}"
        return (f"{self.audit_id} (claim {self.claim}): expected {self.expected.value}, got "
                f"{self.result.verdict.value} ({self.result.method.value}); certificate: "
                f"{self.result.certificate.get('summary', '(no summary)')}")

    def to_dict(self) -> dict:
        return {
            "audit": self.audit_id,
            "claim": self.claim,
            "expected": self.expected.value,
            "actual": self.actual,
            "met": self.met,
            "error": self.error,
            "result": self.result.to_dict() if self.result is not None else None,
            "item_seed": item_seed(self.audit_id),
            "timing": {"elapsed_s": round(self.elapsed, 6)},
        }


def item_seed(audit_id: str) -> int:
    """The per-item seed of an audit: a 32-bit number derived from its ID alone (SHA-256), so an audit
    sees the same global random state whichever process, worker or order it runs in.

    >>> item_seed("T3/symbolic-S10") == item_seed("T3/symbolic-S10")
    True
    >>> 0 <= item_seed("T3/n1-u-exceeds-S") < 2**32
    True
    """
    import hashlib

    return int.from_bytes(hashlib.sha256(audit_id.encode("utf-8")).digest()[:4], "big")


_GLOBAL_STATE_LOCK = threading.RLock()


class _SeededGlobals:
    """Seed Python's and NumPy's *global* generators from the audit ID for the duration of one audit
    and restore them afterwards.  Checks should seed their own generators (and record the seeds);
    this only guarantees that a check which forgot still behaves identically in every process.
    Audits running in threads of one process (a dask worker with ``processes=False``) take turns,
    because the global generators are shared."""

    def __init__(self, audit_id: str):
        self.seed = item_seed(audit_id)

    def __enter__(self):
        import random

        _GLOBAL_STATE_LOCK.acquire()

        self._py_state = random.getstate()
        random.seed(self.seed)
        try:
            import numpy as np
        except ImportError:  # pragma: no cover - numpy is a dependency
            self._np_state = None
        else:
            self._np_state = np.random.get_state()
            np.random.seed(self.seed)
        return self

    def __exit__(self, *exc):
        import random

        random.setstate(self._py_state)
        if self._np_state is not None:
            import numpy as np

            np.random.set_state(self._np_state)
        _GLOBAL_STATE_LOCK.release()
        return False


def run_audit(audit: Audit) -> AuditOutcome:
    """Run one audit (global random state seeded from its ID); a crash is recorded, not raised."""
    start = time.perf_counter()
    try:
        with _SeededGlobals(audit.id):
            result = audit.run()
        error = None
    except Exception as exc:  # a crash is a miss, recorded with its type and message
        result = None
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        error = f"{type(exc).__name__}: {exc}{where}"
    elapsed = time.perf_counter() - start
    if result is not None:
        result = result.with_timing(elapsed_s=round(elapsed, 6))
    return AuditOutcome(audit.id, audit.claim, audit.expected, result, error, elapsed)


_REGISTRY: dict = {}


def _run_by_id(audit_id: str) -> AuditOutcome:
    """Run the audit named ``audit_id`` from this process's own registry (used by worker processes
    and dask workers: only the ID travels, never the check function)."""
    if not _REGISTRY:
        from .discovery import load_audits

        _REGISTRY.update((a.id, a) for a in load_audits())
    audit = _REGISTRY.get(audit_id)
    if audit is None:
        raise KeyError(f"audit {audit_id!r} is not in the registry of this worker")
    return run_audit(audit)


def _portable(outcome: AuditOutcome) -> AuditOutcome:
    """The outcome with its Result reduced to plain JSON data (what ``to_dict`` writes), so it can be
    pickled back from a worker process even when a check put arb balls or other extension objects
    in its certificate; the serialised JSON is unchanged."""
    if outcome.result is None:
        return outcome
    data = outcome.result.to_dict()
    data.pop("versions", None)
    return dataclasses.replace(outcome, result=Result.from_dict(data))


def _run_by_id_portable(audit_id: str) -> AuditOutcome:
    return _portable(_run_by_id(audit_id))


def run_audits(audits: Sequence[Audit], workers: int = 1,
               progress: Optional[Callable[[int, int, AuditOutcome], None]] = None,
               scheduler=None, started: Optional[Callable[[int, int, Audit], None]] = None,
               scheduler_timeout: Optional[float] = None, notice: Optional[Callable[[str], None]] = None) -> list:
    """Run ``audits``; outcomes come back in the given order whatever ``workers`` is.

    ``progress(done, total, outcome)`` is called as each audit finishes; ``started(index, total, audit)``
    as a serial run starts an audit (a progress display shows it as the current audit).  With a
    ``scheduler``, ``scheduler_timeout`` bounds the wait for the scheduler and for its first worker and
    ``notice(text)`` hears of workers that left or restarted (:func:`verify.audit.parallel.run_on_dask`).

    ``workers > 1`` uses a local process pool (each worker re-imports the audit registry and runs
    audits by ID, so the results are identical to a serial run; the Results come back as their JSON
    data, see :func:`_portable`).  ``scheduler`` (a scheduler address such as ``"tcp://HOST:PORT"``
    or ``"HOST:PORT"``, or a ``distributed.Client``) sends the audits to a dask.distributed cluster instead
    (:mod:`verify.audit.parallel`); the workers there must have the same ``verify`` installed."""
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1 or workers > 256:
        raise ValueError(f"workers: must be an integer in [1, 256], got {workers!r}")
    total = len(audits)
    outcomes: list = [None] * total
    if scheduler is not None:
        from .parallel import run_on_dask

        from .parallel import DEFAULT_CONNECT_TIMEOUT_S

        timeout = DEFAULT_CONNECT_TIMEOUT_S if scheduler_timeout is None else scheduler_timeout
        return run_on_dask(audits, scheduler, _run_by_id_portable, progress=progress, timeout_s=timeout,
                           notice=notice)
    if workers == 1 or total <= 1:
        for i, a in enumerate(audits):
            if started:
                started(i, total, a)
            outcomes[i] = run_audit(a)
            if progress:
                progress(i + 1, total, outcomes[i])
        return outcomes
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(_run_by_id_portable, a.id): i for i, a in enumerate(audits)}
        done = 0
        for fut in cf.as_completed(futures):
            i = futures[fut]
            outcomes[i] = fut.result()
            done += 1
            if progress:
                progress(done, total, outcomes[i])
    return outcomes


def audit_report_dict(outcomes: Sequence[AuditOutcome], selected_claims: Optional[Sequence[str]] = None) -> dict:
    """The JSON document written by ``verify audit --json``."""
    from ..canonical import library_versions

    claims_with = sorted({o.claim for o in outcomes}, key=claim_ids().index)
    universe = list(selected_claims) if selected_claims else claim_ids()
    without = [c for c in universe if c not in claims_with]
    return {
        "audits": [o.to_dict() for o in outcomes],
        "summary": {
            "audits": len(outcomes),
            "met": sum(o.met for o in outcomes),
            "missed": [o.audit_id for o in outcomes if not o.met],
            "claims_with_audits": claims_with,
            "claims_without_audits": without,
        },
        "versions": library_versions(),
        "timing": {"elapsed_s": round(sum(o.elapsed for o in outcomes), 6)},
    }


def strip_timing(obj):
    """Remove every ``"timing"`` entry (recursively): what remains must be byte-identical between runs."""
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k != "timing"}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj
