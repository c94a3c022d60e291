"""Every teaching script in examples/ runs to completion (subprocess, with a timeout)."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
TIMEOUT_S = 120


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"hardmax_computes_max.py", "transformer_is_a_relu_network.py", "regions_double_with_depth.py",
            "distinguishable_token_distributions.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
@pytest.mark.slow
def test_example_runs(path):
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=TIMEOUT_S,
                       cwd=path.parent.parent)
    assert r.returncode == 0, f"{path.name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert r.stdout.strip(), f"{path.name} printed nothing"
