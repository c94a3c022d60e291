"""Scale-out: --workers N (local processes) and a dask LocalCluster give byte-identical audit JSON to
a serial run, the "timing" fields aside; bad scheduler addresses are clear errors."""

import json
import subprocess
import sys

import pytest

from verify.audit.discovery import load_audits, select_audits
from verify.audit.runner import audit_report_dict, item_seed, run_audit, run_audits, strip_timing
from verify.audit.spec import Audit
from verify.canonical import canonical_dumps
from verify.errors import InputError
from verify.results import Method, Result, Verdict


from test_determinism import SAMPLE, sample_audits  # noqa: E402  (one sample for both files)


def _canon(outcomes):
    return canonical_dumps(strip_timing(audit_report_dict(outcomes)))


@pytest.fixture(scope="module")
def sample_and_serial():
    sample = sample_audits()
    return sample, _canon(run_audits(sample))


def test_order_independent_and_seeded_globals():
    import random

    import numpy as np

    def noisy():
        # a careless check that uses the global generators
        return Result("T3", f"{random.random()} {np.random.rand()}", Verdict.INCONCLUSIVE, Method.EVIDENCE)

    a = Audit("T3", "noisy", Verdict.INCONCLUSIVE, noisy)
    random.seed(1)
    first = run_audit(a).result.statement
    random.random()
    np.random.rand(7)
    second = run_audit(a).result.statement
    assert first == second
    state = random.getstate()
    run_audit(a)
    assert random.getstate() == state  # global state restored
    assert item_seed("T3/noisy") != item_seed("T3/other")


@pytest.mark.slow
def test_workers_byte_identical(sample_and_serial):
    sample, serial = sample_and_serial
    # reversed submission order, two processes: each audit still gives the same outcome, in input order
    rev = run_audits(list(reversed(sample)), workers=2)
    assert [o.audit_id for o in rev] == [a.id for a in reversed(sample)]
    assert _canon(list(reversed(rev))) == serial


@pytest.mark.slow
def test_dask_local_cluster_byte_identical(sample_and_serial):
    pytest.importorskip("distributed", reason="dask.distributed is an optional extra [dask]")
    from verify.audit.parallel import local_cluster

    sample, serial = sample_and_serial
    with local_cluster(n_workers=2, processes=False) as address:
        assert address.startswith("tcp://127.0.0.1:")
        assert _canon(run_audits(sample, scheduler=address)) == serial


@pytest.mark.slow
def test_cli_scheduler_json_identical(tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is an optional extra [dask]")
    from verify.audit.parallel import local_cluster

    # (the CLI with --workers 2 is compared with a serial run in tests/test_determinism.py)
    outs = {"serial": audit_report_dict(run_audits(select_audits(load_audits(), ["T3"])), ["T3"])}
    with local_cluster(n_workers=1, processes=False) as address:
        path = tmp_path / "dask.json"
        r = subprocess.run([sys.executable, "-m", "verify", "audit", "T3", "--json", str(path),
                            "--scheduler", address], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs["dask"] = json.loads(path.read_text())
    canon = {k: canonical_dumps(strip_timing(json.loads(canonical_dumps(v)))) for k, v in outs.items()}
    assert canon["serial"] == canon["dask"]


@pytest.mark.parametrize("address", ["localhost", "tcp://", "tcp://host:0", "tcp://host:99999",
                                     "http://h:1", "tcp://h:1/x", "tcp://h:x", "a b:1", 5])
def test_bad_scheduler_address(address):
    from verify.audit.parallel import parse_scheduler_address

    with pytest.raises(InputError, match="^--scheduler: "):
        parse_scheduler_address(address)


@pytest.mark.parametrize("address, normal", [
    ("localhost:8786", "tcp://localhost:8786"),   # no scheme: dask takes tcp
    ("tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("tls://h.example:8786", "tls://h.example:8786"),
    ("[::1]:8786", "tcp://[::1]:8786"), ("inproc://10.0.0.1/123/1", "inproc://10.0.0.1/123/1"),
])
def test_scheduler_addresses_dask_accepts(address, normal):
    from verify.audit.parallel import parse_scheduler_address

    assert parse_scheduler_address(address) == normal


def test_cli_bad_scheduler_exit_2():
    for extra in (["--scheduler", "nonsense"], ["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"]):
        r = subprocess.run([sys.executable, "-m", "verify", "audit", "T3", *extra], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr


def test_missing_dask_is_a_clear_error(monkeypatch):
    import builtins

    from verify.audit import parallel

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("no distributed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(InputError, match=r"^--scheduler: dask.distributed is not installed.*verify\[dask\]"):
        parallel.require_distributed()
