"""Wall time of tests/test_plugin_isolation.py::test_wheel_installed_in_a_fresh_venv_outside_the_repository on a
base commit's version of the test and on the current one, side by side in one run (the same checkout is built
and installed by both; alternating rounds, medians and their ratio printed; RUSAGE_CHILDREN CPU seconds too).

    python3 bench/wheel_test.py [--base REV] [--rounds N]
"""

from __future__ import annotations

import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "test_wheel_installed_in_a_fresh_venv_outside_the_repository"


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    base = argv[argv.index("--base") + 1] if "--base" in argv else "b62b873"
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 2
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp, "old_test_plugin_isolation.py")
        old.write_bytes(subprocess.run(["git", "-C", str(ROOT), "show", f"{base}:tests/test_plugin_isolation.py"],
                                       capture_output=True, check=True).stdout)
        sides = {"base": _module(old, "old_plugin_isolation"),
                 "current": _module(ROOT / "tests" / "test_plugin_isolation.py", "new_plugin_isolation")}
        times = {k: ([], []) for k in sides}
        for r in range(rounds):
            for k, mod in sides.items():
                work = Path(tmp, f"{k}{r}")
                work.mkdir()
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                getattr(mod, NAME)(work)
                times[k][0].append(time.perf_counter() - t)
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                times[k][1].append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
    (bw, bc), (aw, ac) = times["base"], times["current"]
    mbw, maw, mbc, mac = map(statistics.median, (bw, aw, bc, ac))
    print(f"wheel test, {base} -> current ({rounds} alternating rounds, medians): wall {mbw:.1f} s -> {maw:.1f} s "
          f"({mbw / maw:.2f}x); child CPU {mbc:.1f} s -> {mac:.1f} s ({mbc / mac:.2f}x)")


if __name__ == "__main__":
    main(sys.argv[1:])
