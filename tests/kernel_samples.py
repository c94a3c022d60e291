"""Collect the genuine decided Results that each kernel module's tests offer (``kernel_samples()`` in
``tests/test_kernel_<module>.py``), with that module's ``KERNEL_FREE_PATHS``."""

import importlib.util
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
_CACHE = []
RESTATE = {}   # label -> the sample module's restate(result) (re-derives the statement text), if it has one


def _load(path):
    spec = importlib.util.spec_from_file_location(f"_kernel_samples_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_samples() -> list:
    """``[(label, result_dict, [compiled free-path regexes]), ...]`` over every sample module."""
    if not _CACHE:
        for path in sorted(HERE.glob("test_kernel_*.py")):
            if path.name in ("test_kernel_mutations.py", "test_kernel_core.py"):
                continue
            module = _load(path)
            if not hasattr(module, "kernel_samples"):
                continue
            free = [re.compile(p) for p in getattr(module, "KERNEL_FREE_PATHS", [])]
            restate = getattr(module, "restate", None) or getattr(module, "restated", None)
            for i, r in enumerate(module.kernel_samples()):
                label = f"{path.stem[len('test_kernel_'):]}[{i}]"
                _CACHE.append((label, r, free))
                if callable(restate):
                    RESTATE[label] = restate
    return list(_CACHE)
