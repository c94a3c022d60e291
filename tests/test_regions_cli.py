"""``verify regions`` via subprocess: counts, JSON with exact strings, plots, bad input (exit 2, one line)."""

import copy
import json
import subprocess
import sys

import pytest

O2 = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                 {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}], "box": [["0", "1"]]}
D2 = {"layers": [{"W": [[["1", "0"], ["0", "0"]], [["0", "1"], ["0", "0"]], [["1", "1"], ["0", "0"]]],
                  "b": [["0", "0"], ["0", "0"], ["-1/2", "0"]]}],
      "readout": {"W": [["1", "-1", "2"]], "b": ["0"]}, "box": [["-1", "1"], ["-1", "1"]]}


def run(*args):
    return subprocess.run([sys.executable, "-m", "verify", "regions", *args], capture_output=True, text=True,
                          timeout=120)


def run_on(tmp_path, doc, *args, name="spec.json"):
    """Write ``doc`` as the SPEC file and run ``verify regions`` on it."""
    spec = tmp_path / name
    spec.write_text(json.dumps(doc))
    return run(str(spec), *args)


@pytest.mark.slow
def test_o2_json_and_plot(tmp_path):
    out, png = tmp_path / "out.json", tmp_path / "o2.png"
    p = run_on(tmp_path, O2, "--json", str(out), "--plot", str(png))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("4 regions (pieces)")
    data = json.loads(out.read_text())
    assert data["parameters"]["kind"] == "pieces" and data["parameters"]["count"] == 4
    assert data["verdict"] == "proved" and data["certificate"]["kind"] == "regions-count"
    assert data["evidence"]["regions"][1]["interval"] == ["5/18", "9/26"]
    assert png.stat().st_size > 1000
    from verify.cli import main              # `verify check` in this process (the count above ran as a subprocess)

    assert main(["check", str(out)]) == 0


@pytest.mark.slow
def test_2d_json_is_rechecked(tmp_path):
    out = tmp_path / "out.json"
    p = run_on(tmp_path, D2, "--kind", "activation", "--json", str(out))
    assert p.returncode == 0, p.stderr
    from verify import kernel

    assert kernel.check(json.loads(out.read_text())).startswith("regions-count: 7 activation regions")


def test_2d_activation_and_plot(tmp_path):
    png = tmp_path / "d2.png"
    p = run_on(tmp_path, D2, "--kind", "activation", "--plot", str(png))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == "7"           # 3 lines in general position cut the square into 7 cells
    assert png.stat().st_size > 1000


@pytest.mark.parametrize("doc, field", [
    ({"layers": O2["layers"]}, "--box"),            # no box in the file and no --box option
    ({"layers": O2["layers"], "box": [["1", "0"]]}, "box[0]"),
    ({"layers": O2["layers"], "box": [[0.5, 1]]}, "box[0][0]"),
    # pieces in 7-D (polyhedral cells stop at d = 6; 3-D pieces are counted, tests/test_polytope_pieces.py)
    ({"layers": [{"W": [[["1"] * 7]], "b": [["0"]]}], "box": [["0", "1"]] * 7}, "--slice"),
])
def test_bad_input_exit_2_one_line(tmp_path, doc, field):
    p = run_on(tmp_path, doc)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}")


def test_deep_network_is_counted_not_refused(tmp_path):
    """Budgets, not caps (docs/conventions.md section 9): depth 40 was refused by a depth cap of 32."""
    p = run_on(tmp_path, {"layers": [{"W": [[["1"], ["1"]]], "b": [["0", "0"]]}] * 40, "box": [["0", "1"]]})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == "1"


def test_3d_activation_regions_are_counted(tmp_path):
    p = run_on(tmp_path, {"layers": [{"W": [[["1", "1", "1"], ["0", "0", "0"]]], "b": [["-1", "0"]]}],
                          "box": [["0", "1"]] * 3}, "--kind", "activation")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == "2"             # the plane x + y + z = 1 cuts the cube in two


def test_missing_output_folder(tmp_path):
    p = run_on(tmp_path, O2, "--json", str(tmp_path / "no" / "out.json"))
    assert p.returncode == 2 and "--json" in p.stderr


def test_a_2d_slice_of_a_300_relu_nnet_network_is_proved_with_a_certificate(capsys, tmp_path):
    """A 2-D slice of a 6 x 50 ReLU .nnet network: the count is PROVED with a regions-count certificate that the
    kernel accepts (before the kernel's integer evaluator its work bound, counted over all cells, made a slice
    of more than ~15 polygons INCONCLUSIVE); the big figure (2,354 regions) is a bench figure (docs/regions.md)."""
    import importlib.util
    from pathlib import Path

    from verify import kernel
    from verify.cli import main
    from verify.kernel import regions as KR

    spec = importlib.util.spec_from_file_location("nnet_gen", Path(__file__).parent / "data" / "nnet_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    path, out = tmp_path / "relu300.nnet", tmp_path / "r.json"
    path.write_text(gen.nnet_text([5, 50, 50, 50, 50, 50, 50, 5], seed=1))
    code = main(["regions", str(path), "--slice", "0,1", "--fix", "2=0.1,3=0,4=-0.2", "--box=-0.01:0.01,-0.01:0.01",
                 "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "24 regions (pieces) on the box" in text
    assert "T10 PROVED: exactly 24 regions (pieces), regions-count certificate in" in text
    doc = json.loads(out.read_text())
    assert kernel.check(doc) == "regions-count: 24 pieces (24 activation regions, 24 pieces)"
    cells = doc["certificate"]["cells"]
    weights = 50 * 2 * 3 + 5 * 50 * 2 * 51
    assert len(cells) * weights > 1_200_000 and 24 * weights <= KR.MAX_WORK_2D   # the old and the new measure
    forged = copy.deepcopy(doc)
    forged["certificate"]["cells"] = cells[1:]
    with pytest.raises(kernel.Rejected, match="certificate.cells"):
        kernel.check(forged)
