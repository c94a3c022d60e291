"""``verify regions`` via subprocess: counts, JSON with exact strings, plots, bad input (exit 2, one line)."""

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
    c = subprocess.run([sys.executable, "-m", "verify", "check", str(out)], capture_output=True, text=True, timeout=120)
    assert c.returncode == 0, c.stdout + c.stderr


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
    ({"layers": [{"W": [[["1", "1", "1"]]], "b": [["0"]]}], "box": [["0", "1"]] * 3}, "--slice"),   # pieces in 3-D
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
