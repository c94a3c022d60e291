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

__all__ = ["AuditOutcome", "LocalWorkers", "run_audit", "run_audits", "audit_report_dict", "strip_timing", "item_seed"]


@dataclasses.dataclass(frozen=True)
class AuditOutcome:
    audit_id: str
    claim: str
    expected: Verdict
    result: Optional[Result]
    error: Optional[str]
    elapsed: float = dataclasses.field(default=0.0, compare=False)
    # the Result's plain JSON data without "versions" (what Result.to_dict gives), computed where the audit
    # ran (a worker process), so the report does not walk the certificate a second time; None: compute it
    data: Optional[dict] = dataclasses.field(default=None, compare=False, repr=False)
    # ``to_dict()`` as canonical JSON text (indent 1), encoded where the audit ran: see report_json_text
    text: Optional[str] = dataclasses.field(default=None, compare=False, repr=False)

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

    def _result_dict(self) -> Optional[dict]:
        if self.result is None:
            return None
        if self.data is None:
            return self.result.to_dict()
        from ..canonical import library_versions

        return dict(self.data, versions=library_versions())

    def to_dict(self) -> dict:
        return {
            "audit": self.audit_id,
            "claim": self.claim,
            "expected": self.expected.value,
            "actual": self.actual,
            "met": self.met,
            "error": self.error,
            "result": self._result_dict(),
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
    _load_registry()
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
    # the Result is built on the same dicts as ``data``: pickle sends them once
    return dataclasses.replace(outcome, result=Result.from_dict(data), data=data)


def _run_by_id_portable(audit_id: str) -> AuditOutcome:
    return _portable(_run_by_id(audit_id))


def _run_by_id_local(audit_id: str) -> AuditOutcome:
    """The task of a :class:`LocalWorkers` process: the portable outcome with its JSON text (the same
    interpreter and libraries as the calling process, so the same ``versions``)."""
    return _with_text(_portable(_run_by_id(audit_id)))


def plain_json_text(obj) -> str:
    """``verify.canonical.canonical_dumps(obj, indent=1)`` for plain JSON data (what ``to_dict`` returns), on
    which the canonical conversion is the identity: the same bytes without a second walk."""
    from ..canonical import plain_dumps

    return plain_dumps(obj, indent=1)


def _with_text(outcome: AuditOutcome) -> AuditOutcome:
    return dataclasses.replace(outcome, text=plain_json_text(outcome.to_dict()))


_SLOT = "verify-audit-entries-slot"


def report_json_text(report: dict, outcomes: Sequence[AuditOutcome] = ()) -> str:
    """The canonical JSON text (indent 1) of ``report`` = :func:`audit_report_dict` of ``outcomes``.  When
    every outcome carries its entry's text (encoded in parallel where the audit ran), the entries are
    spliced in, each line indented by the two levels of the ``"audits"`` list (a JSON string holds no raw
    newline, so the shift is exact); otherwise the whole report is encoded here.  The same bytes either
    way (tests/test_audit_runner.py)."""
    texts = [o.text for o in outcomes]
    if not texts or len(texts) != len(report["audits"]) or any(t is None for t in texts):
        return plain_json_text(report)
    head = plain_json_text(dict(report, audits=[_SLOT]))
    slot = f'"{_SLOT}"'
    if head.count(slot) != 1:
        return plain_json_text(report)
    return head.replace(slot, ",\n  ".join(t.replace("\n", "\n  ") for t in texts))


def run_audits(audits: Sequence[Audit], workers: int = 1,
               progress: Optional[Callable[[int, int, AuditOutcome], None]] = None,
               scheduler=None, started: Optional[Callable[[int, int, Audit], None]] = None,
               scheduler_timeout: Optional[float] = None, notice: Optional[Callable[[str], None]] = None,
               pool: Optional["LocalWorkers"] = None) -> list:
    """Run ``audits``; outcomes come back in the given order whatever ``workers`` is.

    ``progress(done, total, outcome)`` is called as each audit finishes; ``started(index, total, audit)``
    as a serial run starts an audit (a progress display shows it as the current audit).  With a
    ``scheduler``, ``scheduler_timeout`` bounds the wait for the scheduler and for its first worker and
    ``notice(text)`` hears of workers that left or restarted (:func:`verify.audit.parallel.run_on_dask`).

    ``workers > 1`` runs audits in this process and in ``workers - 1`` spawned worker processes
    (``pool``, a :class:`LocalWorkers` started earlier, or started here); whoever is free takes the next
    audit of the list.  Each worker re-imports the audit registry and runs audits by ID, so the results are
    identical to a serial run; every Result then comes back as its JSON data (:func:`_portable`, also for
    the audits this process ran).  ``scheduler`` (a scheduler address such as ``"tcp://HOST:PORT"``
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
        with _AuditGC():
            for i, a in enumerate(audits):
                if started:
                    started(i, total, a)
                outcomes[i] = run_audit(a)
                if progress:
                    progress(i + 1, total, outcomes[i])
        return outcomes
    if pool is not None and pool.processes != workers - 1:
        raise ValueError(f"pool: has {pool.processes} worker processes, workers={workers} needs {workers - 1}")
    if pool is None:
        with LocalWorkers(workers - 1) as own:
            return _run_with(own, audits, outcomes, progress)
    return _run_with(pool, audits, outcomes, progress)


def _load_registry() -> int:
    """Fill this process's audit registry (a worker's warm-up task, run as soon as it starts)."""
    if not _REGISTRY:
        from .discovery import load_audits

        _REGISTRY.update((a.id, a) for a in load_audits())
    return len(_REGISTRY)


def _warm_worker() -> int:
    """A worker's warm-up: the registry, then the garbage collector tuned for the audits (:class:`_AuditGC`)
    for the rest of the worker's life."""
    n = _load_registry()
    _AuditGC().__enter__()
    return n


class _AuditGC:
    """The cyclic garbage collector while audits run: the objects alive at the start (the imported modules,
    SymPy's tables, the registry) are frozen out of the collections, and the youngest generation is
    collected every 20000 allocations instead of 700.  Measured on every third audit: 3.5 s of 37 s in
    collections before, 0.7 s after, the same peak memory.  Collections free memory and never change a
    value, so the Results are the same; leaving the block restores the thresholds and unfreezes."""

    THRESHOLD = (20000, 10, 10)

    def __enter__(self):
        import gc

        self._threshold = gc.get_threshold()
        self._froze = gc.get_freeze_count() == 0
        if self._froze:
            gc.freeze()
        gc.set_threshold(*self.THRESHOLD)
        return self

    def __exit__(self, *exc):
        import gc

        gc.set_threshold(*self._threshold)
        if self._froze:
            gc.unfreeze()
        return False


class LocalWorkers:
    """``processes`` spawned worker processes for :func:`run_audits` (``workers - 1`` of them: the calling
    process runs audits too).  Each starts loading its audit registry at once, so a caller that creates
    them before loading its own audits (``verify audit --workers N``) overlaps the two start-ups.  A context
    manager: leaving it shuts the processes down (pending audits are cancelled)."""

    #: audits queued per worker process beyond the one it runs.  0: a queued audit could not be taken by
    #: this process once it is free, so two long audits at the end of the list would run one after the
    #: other in one worker; the next ID goes out when the worker's outcome comes back instead (a few
    #: milliseconds, with the thread switch interval lowered while audits run here)
    QUEUED = 0
    SWITCH_INTERVAL_S = 0.0005

    def __init__(self, processes: int):
        import concurrent.futures as cf
        import multiprocessing

        if not isinstance(processes, int) or isinstance(processes, bool) or not 1 <= processes <= 255:
            raise ValueError(f"processes: must be an integer in [1, 255], got {processes!r}")
        self.processes = processes
        self.executor = cf.ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"))
        self._warm = [self.executor.submit(_warm_worker) for _ in range(processes)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.executor.shutdown(wait=True, cancel_futures=True)
        return False


def _run_with(pool: LocalWorkers, audits: Sequence[Audit], outcomes: list, progress) -> list:
    """Share ``audits`` between this process and ``pool``'s: whoever is free takes the next audit in the
    list order (the pool's processes by ID, each with :attr:`LocalWorkers.QUEUED` more queued), which is
    list scheduling as with a shared queue; outcomes go to their index, so the order of the list is kept
    whoever ran which audit."""
    total = len(audits)
    lock = threading.Lock()
    finished = threading.Event()
    state = {"next": 0, "done": 0, "failure": None}

    def take() -> Optional[int]:
        with lock:
            if state["failure"] is not None or state["next"] >= total:
                return None
            i = state["next"]
            state["next"] += 1
            return i

    def finish(i: int, outcome: AuditOutcome) -> None:
        with lock:
            outcomes[i] = outcome
            state["done"] += 1
            if progress:
                progress(state["done"], total, outcome)
            if state["done"] == total:
                finished.set()

    def fail(exc: BaseException) -> None:
        with lock:
            if state["failure"] is None:
                state["failure"] = exc
        finished.set()

    def submit_next() -> None:
        i = take()
        if i is None:
            return
        try:
            fut = pool.executor.submit(_run_by_id_local, audits[i].id)
        except BaseException as exc:   # a broken or shut-down pool
            fail(exc)
            return
        fut.add_done_callback(lambda f, i=i: on_done(i, f))

    def on_done(i: int, fut) -> None:   # in the pool's result thread
        try:
            outcome = fut.result()
        except BaseException as exc:   # a worker died, or the pool was shut down
            fail(exc)
            return
        finish(i, outcome)
        submit_next()

    import sys

    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, LocalWorkers.SWITCH_INTERVAL_S))   # the result thread answers at once
    gc_block = _AuditGC().__enter__()
    try:
        for _ in range(pool.processes * (1 + LocalWorkers.QUEUED)):
            submit_next()
        while True:
            i = take()
            if i is None:
                break
            finish(i, _with_text(_portable(run_audit(audits[i]))))
    finally:
        sys.setswitchinterval(switch)
        gc_block.__exit__(None, None, None)
    while not finished.wait(0.5):
        with lock:
            if state["done"] == total:
                break
    if state["failure"] is not None:
        raise state["failure"]
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
