"""Collect the genuine decided Results that each kernel module's tests offer (``kernel_samples()`` in
``tests/test_kernel_<module>.py``), with that module's ``KERNEL_FREE_PATHS``; and the helpers the mutation
tests share to address the parts of a Result dict by path (``parameters.layers[0].W``)."""

import copy
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


def walk(v, path, sort_keys: bool = True):
    """(path, value) of every node of a JSON value (containers before their contents), depth first;
    dict keys in sorted order, or in insertion order with ``sort_keys=False``."""
    yield path, v
    if isinstance(v, dict):
        for k in (sorted(v) if sort_keys else v):
            yield from walk(v[k], f"{path}.{k}", sort_keys)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from walk(x, f"{path}[{i}]", sort_keys)


def parent_of(root, path):
    """(container, key) for a path produced by :func:`walk` (relative to root's top-level keys)."""
    tokens = re.findall(r"(?:^|\.)([^.\[\]]+)|\[(\d+)\]", path)
    cur = root
    for name, index in tokens[:-1]:
        cur = cur[name] if name else cur[int(index)]
    name, index = tokens[-1]
    return cur, (name if name else int(index))


def set_path(root, path, value):
    """Replace the value at ``path`` (as produced by :func:`walk`) in place."""
    cur, key = parent_of(root, path)
    cur[key] = value


def is_exact_number(v) -> bool:
    """An int (not a bool) or an exact-number string ``"p"`` / ``"p/q"``."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, str) and re.fullmatch(r"-?[0-9]+(/[0-9]+)?", v) is not None


def edited(r, edit):
    """A deep copy of the Result dict ``r`` after ``edit(copy)`` (which changes it in place)."""
    m = copy.deepcopy(r)
    edit(m)
    return m
