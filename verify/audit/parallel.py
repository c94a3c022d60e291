"""Run audits on a dask.distributed cluster (``verify audit --scheduler tcp://HOST:PORT``).

dask is an optional extra (``pip install 'transformer-verify[dask]'``): it is imported only when a scheduler is
used, and a missing installation is a clear :class:`~verify.errors.InputError`, never a traceback.

Only audit IDs travel to the workers; each worker runs the audit from its own registry
(:func:`verify.audit.runner._run_by_id`), with the global random state seeded from the audit ID.
The outcomes come back in the order of the input, so the JSON is byte-identical to a serial run
(the ``"timing"`` fields aside) whatever the number of workers or the order in which they finish.

>>> parse_scheduler_address("tcp://127.0.0.1:8786")
'tcp://127.0.0.1:8786'
>>> parse_scheduler_address("localhost:8786")
Traceback (most recent call last):
...
verify.errors.InputError: --scheduler: must look like tcp://HOST:PORT, got 'localhost:8786'
"""

from __future__ import annotations

import contextlib
import re
from typing import Callable, Optional, Sequence

from ..errors import InputError

__all__ = ["parse_scheduler_address", "require_distributed", "run_on_dask", "local_cluster",
           "DEFAULT_CONNECT_TIMEOUT_S"]

DEFAULT_CONNECT_TIMEOUT_S = 10

_ADDRESS = re.compile(r"^tcp://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})$")


def parse_scheduler_address(address) -> str:
    """Validate ``tcp://HOST:PORT`` (port 1..65535); return it unchanged."""
    if not isinstance(address, str):
        raise InputError("--scheduler", f"must be a string tcp://HOST:PORT, got {type(address).__name__}")
    m = _ADDRESS.match(address.strip())
    if not m:
        raise InputError("--scheduler", f"must look like tcp://HOST:PORT, got {address!r}")
    port = int(m.group("port"))
    if not 1 <= port <= 65535:
        raise InputError("--scheduler", f"port must be in [1, 65535], got {port}")
    return address.strip()


def require_distributed():
    """Import ``distributed`` or raise an InputError that says how to install it."""
    try:
        import distributed
    except ImportError:
        raise InputError("--scheduler", "dask.distributed is not installed; install the optional extra "
                                        "with: pip install 'transformer-verify[dask]'") from None
    return distributed


@contextlib.contextmanager
def _client_for(scheduler, timeout_s: float):
    distributed = require_distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    address = parse_scheduler_address(scheduler)
    try:
        client = distributed.Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise InputError("--scheduler", f"cannot connect to {address} within {timeout_s} s: "
                                        f"{type(exc).__name__}: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def run_on_dask(audits: Sequence, scheduler, task: Callable, progress: Optional[Callable] = None,
                timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S) -> list:
    """Run ``task(audit.id)`` for each of ``audits`` on the cluster at ``scheduler`` (address or
    ``distributed.Client``); outcomes in input order.  ``task`` is a module-level function (workers
    import it by name), :func:`verify.audit.runner.run_audits` passes the one that runs an audit by ID.
    A worker-side crash of an audit is recorded in its outcome like in a serial run; a lost worker or a
    cluster failure raises."""
    audits = list(audits)
    if not audits:
        return []
    ids = [a.id for a in audits]
    with _client_for(scheduler, timeout_s) as client:
        distributed = require_distributed()
        # pure=False: never let dask deduplicate or cache; keys are made unique per submission
        futures = client.map(task, ids, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        outcomes: list = [None] * len(ids)
        done = 0
        for fut in distributed.as_completed(futures, loop=client.loop):
            i = index[fut.key]
            outcomes[i] = fut.result()
            done += 1
            if progress:
                progress(done, len(ids), outcomes[i])
    return outcomes


@contextlib.contextmanager
def local_cluster(n_workers: int = 2, processes: bool = False, threads_per_worker: int = 1):
    """A dask LocalCluster on loopback with no dashboard; yields its ``tcp://`` address.

    ``processes=False`` runs the workers as threads of this process (fast to start; audits then take
    turns, see :mod:`verify.audit.runner`), ``processes=True`` spawns worker processes."""
    if not isinstance(n_workers, int) or not 1 <= n_workers <= 64:
        raise InputError("n_workers", f"must be an integer in [1, 64], got {n_workers!r}")
    distributed = require_distributed()
    cluster = distributed.LocalCluster(n_workers=n_workers, processes=processes,
                                       threads_per_worker=threads_per_worker, host="127.0.0.1",
                                       protocol="tcp://", dashboard_address=None, scheduler_port=0,
                                       silence_logs=50)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
