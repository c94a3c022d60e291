"""Every teaching notebook in examples/ runs headlessly (nbclient) without an error and draws its figures.

The notebooks are stored without outputs; here each is executed in a Jupyter kernel ("python3", the
interpreter running the tests) whose working directory is the repository root and whose PYTHONPATH starts
with it, so the kernel imports this checkout's ``verify`` (in CI the same checkout is installed with
``pip install -e``).  One kernel runs all the notebooks in turn (imports are paid once); before each
notebook the user namespace is emptied, so no notebook can lean on another's variables.  No network is
used.  The outputs must hold no error, at least one PNG image and no ``Fraction(`` (exact numbers are
displayed as p/q; tests/test_reprs.py checks the reprs themselves).
"""

import os
import pathlib

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
jupyter_client = pytest.importorskip("jupyter_client")

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
CELL_TIMEOUT_S = 120
EXPECTED = {"hardmax_computes_max", "transformer_is_a_relu_network", "regions_double_with_depth",
            "distinguishable_token_distributions", "ntk_gram_spectrum"}

# the first cell of every executed copy: empty the namespace, then say which verify the kernel imports
CLEAN = ("_ns = get_ipython().user_ns\n"
         "for _k in [k for k in _ns if not k.startswith('_') and k not in ('In', 'Out', 'get_ipython', 'exit', 'quit')]:\n"
         "    del _ns[_k]\n"
         "import verify as _v\n"
         "print(_v.__file__)")


@pytest.fixture(scope="module")
def kernel():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("MPLBACKEND", None)          # the kernel's inline backend makes the PNG outputs
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(ROOT), env=env)
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def test_the_notebooks_exist_and_are_stored_without_outputs():
    assert EXPECTED <= {p.stem for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.nbformat == 4 and nb.metadata["kernelspec"]["name"] == "python3", path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: stored with outputs"
                assert "from verify." not in cell.source, f"{path.name}: use the public API (import verify)"


def test_the_readme_links_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"examples/{path.name}" in readme, f"README.md does not link {path.name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(kernel, path):
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(CLEAN))
    nbclient.NotebookClient(nb, km=kernel, timeout=CELL_TIMEOUT_S, allow_errors=True).execute()
    outputs = _outputs(nb)
    errors = [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors}"
    where = "".join(nb.cells[0].outputs[0].get("text", ""))
    assert pathlib.Path(where.strip()).resolve().is_relative_to(ROOT), f"the kernel imported verify from {where}"
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name}: no figure"
    for o in outputs:
        texts = [o.get("text", "")] + [v for v in o.get("data", {}).values() if isinstance(v, str)]
        for text in texts:
            text = "".join(text) if isinstance(text, list) else text     # (base64 PNGs hold no parentheses)
            assert "Fraction(" not in text, f"{path.name}: an output shows Fraction(...): {text[:200]}"


def test_readme_figures_script_draws_the_linked_figures(tmp_path):
    import importlib.util

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "scripts" / "readme_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path)]) == 0
    for name in module.FIGURES:
        assert f"(docs/img/{name})" in readme and (ROOT / "docs" / "img" / name).is_file(), name
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
