"""Run the docstring examples of every verify module."""

import doctest
import importlib
import pkgutil

import pytest

import verify

MODULES = sorted(m.name for m in pkgutil.walk_packages(verify.__path__, prefix="verify.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional third-party extra (e.g. dask); a missing module of ours is an error
        if (exc.name or "").split(".")[0] == "verify":
            raise
        pytest.skip(f"optional dependency missing: {exc}")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
