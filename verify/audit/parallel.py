"""Run audits on a dask.distributed cluster (``verify audit --scheduler tcp://HOST:PORT``).

dask is an optional extra (``pip install 'transformer-verify[dask]'``): it is imported only when a scheduler is
used, and a missing installation is a clear :class:`~verify.errors.InputError`, never a traceback.

Only audit IDs travel to the workers; each worker runs the audit from its own registry
(:func:`verify.audit.runner._run_by_id`), with the global random state seeded from the audit ID.
The outcomes come back in the order of the input, so the JSON is byte-identical to a serial run
(the ``"timing"`` fields aside) whatever the number of workers or the order in which they finish.

Addresses are those dask accepts: ``[SCHEME://]HOST:PORT`` with a scheme among tcp (the default), tls, ws, wss,
and ``inproc://...`` / ``ucx://...``.  Before the run the scheduler is reached within a timeout (an unknown
host, a refused port and a silent one are told apart) and at least one worker must be connected; workers that
leave or restart during the run are reported.

>>> parse_scheduler_address("tcp://127.0.0.1:8786")
'tcp://127.0.0.1:8786'
>>> parse_scheduler_address("localhost:8786")
'tcp://localhost:8786'
>>> parse_scheduler_address("localhost")
Traceback (most recent call last):
...
verify.errors.InputError: --scheduler: 'localhost' has no port: give HOST:PORT (the dask default port is 8786)
"""

from __future__ import annotations

import contextlib
import re
from typing import Callable, Optional, Sequence

from ..errors import InputError

__all__ = ["parse_scheduler_address", "require_distributed", "run_on_dask", "local_cluster",
           "DEFAULT_CONNECT_TIMEOUT_S"]

DEFAULT_CONNECT_TIMEOUT_S = 10   # seconds to reach the scheduler, and again for its first worker

_HOST_PORT_SCHEMES = ("tcp", "tls", "ws", "wss")
_OTHER_SCHEMES = ("inproc", "ucx")
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://(?P<rest>.*)$")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+)(?::(?P<port>[^:]*))?$")


def parse_scheduler_address(address) -> str:
    """Validate a dask scheduler address and return it with its scheme (``HOST:PORT`` -> ``tcp://HOST:PORT``)."""
    if not isinstance(address, str):
        raise InputError("--scheduler", f"must be a string such as tcp://HOST:PORT, got {type(address).__name__}")
    text = address.strip()
    if not text or any(c.isspace() for c in text):
        raise InputError("--scheduler", f"must be an address such as tcp://HOST:PORT or HOST:PORT, got {address!r}")
    m = _SCHEME.match(text)
    scheme, rest = (m.group("scheme").lower(), m.group("rest")) if m else ("tcp", text)
    if scheme in _OTHER_SCHEMES:
        if not rest:
            raise InputError("--scheduler", f"{address!r} names no scheduler after {scheme}://")
        return f"{scheme}://{rest}"
    if scheme not in _HOST_PORT_SCHEMES:
        raise InputError("--scheduler", f"unknown address scheme {scheme!r} in {address!r}; dask knows "
                                        f"{', '.join(_HOST_PORT_SCHEMES + _OTHER_SCHEMES)}")
    hp = _HOST_PORT.match(rest)
    if not hp:
        raise InputError("--scheduler", f"must look like {scheme}://HOST:PORT, got {address!r}")
    port = hp.group("port")
    if port is None:
        raise InputError("--scheduler", f"{address!r} has no port: give HOST:PORT (the dask default port is 8786)")
    if not re.fullmatch(r"\d{1,5}", port) or not 1 <= int(port) <= 65535:
        raise InputError("--scheduler", f"port must be an integer in [1, 65535], got {port!r} in {address!r}")
    return f"{scheme}://{hp.group('host')}:{int(port)}"


def _probe(address: str, timeout_s: float) -> None:
    """For host:port schemes, tell an unknown host, a refused port and a silent one apart before dask tries."""
    import socket

    scheme, _, rest = address.partition("://")
    if scheme not in _HOST_PORT_SCHEMES:
        return
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError("--scheduler", f"cannot resolve host {host!r} of {address}: {exc.strerror or exc}") from None
    last = None
    for family, kind, proto, _, sockaddr in infos:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.settimeout(timeout_s)
                sock.connect(sockaddr)
            return
        except ConnectionRefusedError:
            last = f"connection refused: nothing listens on port {port} of {host}"
        except socket.timeout:
            last = f"no answer from {host}:{port} within {timeout_s:g} s (a firewall, or a wrong host?)"
        except OSError as exc:
            last = f"{exc.strerror or exc}"
    raise InputError("--scheduler", f"cannot reach the scheduler at {address}: {last}")


def require_distributed():
    """Import ``distributed`` or raise an InputError that says how to install it."""
    try:
        import distributed
    except ImportError:
        raise InputError("--scheduler", "dask.distributed is not installed; install the optional extra "
                                        "with: pip install 'transformer-verify[dask]'") from None
    return distributed


@contextlib.contextmanager
def _client_for(scheduler, timeout_s: float, worker_timeout_s: float):
    distributed = require_distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    address = parse_scheduler_address(scheduler)
    _probe(address, timeout_s)
    try:
        client = distributed.Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise InputError("--scheduler", f"cannot connect to the dask scheduler at {address} within {timeout_s:g} s "
                                        f"(is it a dask scheduler?): {type(exc).__name__}: {exc}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=worker_timeout_s)
        except (TimeoutError, OSError) as exc:
            raise InputError("--scheduler", f"the scheduler at {address} has no worker after {worker_timeout_s:g} s "
                                            f"(start one with: dask worker {address}); {type(exc).__name__}") from None
        yield client
    finally:
        client.close()


def _workers(client) -> set:
    try:
        return set(client.scheduler_info().get("workers", {}))
    except Exception:  # pragma: no cover - informational only
        return set()


def run_on_dask(audits: Sequence, scheduler, task: Callable, progress: Optional[Callable] = None,
                timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S, worker_timeout_s: Optional[float] = None,
                notice: Optional[Callable[[str], None]] = None) -> list:
    """Run ``task(audit.id)`` for each of ``audits`` on the cluster at ``scheduler`` (address or
    ``distributed.Client``); outcomes in input order.  ``task`` is a module-level function (workers
    import it by name), :func:`verify.audit.runner.run_audits` passes the one that runs an audit by ID.
    The scheduler must answer within ``timeout_s`` and have a worker within ``worker_timeout_s`` (default
    ``timeout_s``), else an InputError says which.  A worker-side crash of an audit is recorded in its outcome
    like in a serial run; a lost worker or a cluster failure raises.  ``notice(text)`` is told about workers that
    left or restarted during the run (dask re-runs their audits elsewhere)."""
    audits = list(audits)
    if not audits:
        return []
    if worker_timeout_s is None:
        worker_timeout_s = timeout_s
    ids = [a.id for a in audits]
    with _client_for(scheduler, timeout_s, worker_timeout_s) as client:
        distributed = require_distributed()
        before = _workers(client)
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
        after = _workers(client)
    gone = sorted(before - after)
    if gone and notice:
        joined = len(after - before)
        notice(f"dask: {len(gone)} worker{'s' if len(gone) != 1 else ''} left or restarted during the run "
               f"({', '.join(gone[:4])}{' ...' if len(gone) > 4 else ''}); {joined} joined; their audits were "
               "re-run on other workers")
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
