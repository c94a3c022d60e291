"""Every teaching script in examples/ runs to completion (subprocess, with a timeout).

An example whose ``verify`` imports are not available yet is skipped with the missing module named
(the integrator removes the skip once the API lands)."""

import ast
import importlib.util
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
TIMEOUT_S = 120


def _missing_modules(path):
    missing = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.split(".")[0] != "verify":
                continue
            try:
                found = importlib.util.find_spec(name) is not None
            except ModuleNotFoundError:
                found = False
            if not found:
                missing.append(name)
    return missing


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"hardmax_computes_max.py", "transformer_is_a_relu_network.py", "regions_double_with_depth.py",
            "distinguishable_token_distributions.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path):
    missing = _missing_modules(path)
    if missing:
        pytest.skip(f"{path.name}: API not available yet: {', '.join(missing)}")
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=TIMEOUT_S,
                       cwd=path.parent.parent)
    assert r.returncode == 0, f"{path.name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert r.stdout.strip(), f"{path.name} printed nothing"
