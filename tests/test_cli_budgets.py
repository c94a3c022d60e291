"""Budgets, not caps: verify maxout / regions accept any valid network, end a run past a budget in INCONCLUSIVE
with the partial coverage in bounded time, and read .nnet slices (docs/regions.md, Real networks)."""

import importlib.util
import json
import time
from fractions import Fraction as F
from pathlib import Path

import pytest

from verify.cli import main

_spec = importlib.util.spec_from_file_location("nnet_gen", Path(__file__).parent / "data" / "nnet_gen.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

SLICE = ["--slice", "0,1", "--fix", "2=0.1,3=0,4=-0.2"]


def _cli(capsys, *argv):
    t = time.perf_counter()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err, time.perf_counter() - t


@pytest.fixture(scope="module")
def acas_like(tmp_path_factory):
    """A seeded 5-input network of 6 x 50 = 300 ReLUs in the .nnet format."""
    path = tmp_path_factory.mktemp("nnet") / "relu300.nnet"
    path.write_text(gen.nnet_text([5, 50, 50, 50, 50, 50, 50, 5], seed=1))
    return path


def _tent_spec(tmp_path, L):
    from verify.constructions.token_shift import tent_network

    path = tmp_path / f"tent{L}.json"
    path.write_text(json.dumps({**tent_network(L).to_dict(), "box": [["0", "1"]]}))
    return path


def test_depth_12_tent_is_not_refused_and_a_cell_budget_gives_partial_coverage(capsys, tmp_path):
    # formerly "depth 12 exceeds the limit 8 of 'verify maxout'"; now a cell budget ends it with the part proved
    out_json = tmp_path / "r.json"
    code, out, err, _ = _cli(capsys, "maxout", _tent_spec(tmp_path, 12), "--max-cells", 30, "--tie", "first",
                             "--json", out_json)
    assert code == 0, err
    assert "depth L = 12" in out and "T6 INCONCLUSIVE" in out and "of the box's length" in out
    res = json.loads(out_json.read_text())
    part = res["evidence"]["partial"]
    assert res["verdict"] == "inconclusive" and part["budget"] == "max_cells" and part["cells_proved"] == 31
    assert 0 < F(part["covered_fraction"]) < 1


def test_time_budget_ends_in_inconclusive_in_bounded_time(capsys, tmp_path):
    code, out, err, secs = _cli(capsys, "maxout", _tent_spec(tmp_path, 10), "--time-budget", "0.3", "--json", "-")
    res = json.loads(out)
    assert code == 0 and res["verdict"] == "inconclusive" and res["evidence"]["partial"]["budget"] == "time_budget"
    assert F(res["evidence"]["partial"]["covered_fraction"]) < 1
    assert secs < 30   # the full proof takes minutes


def test_budget_never_proves_an_altered_transformer():
    """Negative control: a finished cell that differs is an exact REFUTED witness; otherwise INCONCLUSIVE."""
    from verify import kernel
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.constructions.token_shift import tent_network
    from verify.decide.emulation import alter_weight, prove_emulation

    c = compile_maxout(tent_network(3), [[0, 1]])
    ffn = max(i for i, sub in enumerate(c.transformer.sublayers) if getattr(sub, "kind", "") == "ffn")
    bad = alter_weight(c, ffn, "b1", 0, delta=F(1, 3))
    seen = set()
    for cells in (1, 40):
        r = prove_emulation((tent_network(3), bad), [[0, 1]], tie="first", max_cells=cells, record_regions=False)
        assert r.verdict.value != "proved"
        seen.add(r.verdict.value)
        if r.verdict.value == "refuted":
            assert kernel.check(r.to_dict()).startswith("emulation-witness")
        else:
            assert r.evidence["partial"]["cells_proved"] == cells + 1
    assert "refuted" in seen
    with pytest.raises(Exception, match="^time_budget"):
        prove_emulation(c, [[0, 1]], time_budget=-1)


def test_regions_cell_and_time_budgets(capsys, tmp_path, acas_like):
    spec = _tent_spec(tmp_path, 12)
    code, out, err, _ = _cli(capsys, "regions", spec)          # depth 12 > the former limit... counted
    assert code == 0 and "4096 regions (pieces)" in out
    out_json = tmp_path / "r.json"
    code, out, err, _ = _cli(capsys, "regions", spec, "--max-cells", 100, "--json", out_json)
    assert code == 0 and "T10 INCONCLUSIVE: no exact count" in err + out
    assert json.loads(out_json.read_text())["verdict"] == "inconclusive"
    code, out, err, secs = _cli(capsys, "regions", acas_like, *SLICE, "--box=-0.5:0.5,-0.5:0.5", "--time-budget", "0.2")
    assert code == 0 and "T10 INCONCLUSIVE" in out and "time budget of 0.2 s ran out" in out, err
    assert secs < 20


def test_a_2d_slice_of_a_300_relu_nnet_network_is_counted(capsys, acas_like):
    code, out, err, _ = _cli(capsys, "regions", acas_like, *SLICE, "--box=-0.02:0.02,-0.02:0.02")
    assert code == 0, err
    assert "fixed x2 = 1/10, x3 = 0, x4 = -1/5 (original units)" in out
    # the count of the same slice by the API (count_regions of slice_network(read_nnet(...))): pinned, seeded
    assert "62 regions (pieces) on the box" in out


def test_a_2d_slice_of_an_nnet_network_is_proved(capsys, tmp_path):
    path = tmp_path / "small.nnet"
    path.write_text(gen.nnet_text([5, 3, 3, 1], seed=4, means=["0.5", "0", "0", "0", "0", "1"],
                                  ranges=["2", "1", "1", "1", "1", "3"]))
    code, out, err, _ = _cli(capsys, "maxout", path, *SLICE, "--box=-0.25:0.25,-0.25:0.25", "--tie", "first",
                             "--json", tmp_path / "r.json")
    assert code == 0 and "T6 PROVED" in out, err
    from verify import kernel

    assert kernel.check(json.loads((tmp_path / "r.json").read_text())).startswith("emulation-regions")


@pytest.mark.parametrize("argv, field", [
    (["--box=-0.5:0.5"], "--box"),                                   # one interval for two free inputs
    (["--box=-2:0.5,0:1"], "--box"),                                 # leaves the file's input range [-1, 1]
    (["--fix", "2=0.1,3=0,4=-3"], "--fix 4"),                        # outside the input range
    (["--slice", "0,9", "--fix", "2=0,3=0,4=0"], "--slice"),
    (["--max-cells", "0"], "--max-cells"), (["--max-cells", "x"], "--max-cells"),
    (["--time-budget", "-1"], "--time-budget"), (["--time-budget", "1e9"], "--time-budget"),
])
def test_bad_slices_and_budgets(capsys, tmp_path, argv, field):
    path = tmp_path / "small.nnet"
    path.write_text(gen.nnet_text([5, 3, 1], seed=0))
    base = ["--slice", "0,1", "--fix", "2=0.1,3=0,4=-0.2"]
    if argv[0] in ("--slice", "--fix"):
        base = []
    code, out, err, _ = _cli(capsys, "regions", path, *base, *argv)
    assert code == 2 and err.startswith(f"error: {field}"), err


def test_box_needed_and_units(capsys, tmp_path):
    import numpy as np

    np.savez(tmp_path / "n.npz", **{"0.weight": np.ones((2, 1)), "0.bias": np.zeros(2),
                                    "1.weight": np.ones((1, 2)), "1.bias": np.zeros(1)})
    code, out, err, _ = _cli(capsys, "regions", tmp_path / "n.npz")
    assert code == 2 and err.startswith("error: --box: needed")
    code, out, err, _ = _cli(capsys, "regions", tmp_path / "n.npz", "--box=-1:1")
    assert code == 0 and "2 regions (pieces)" in out
    code, out, err, _ = _cli(capsys, "regions", tmp_path / "n.npz", "--box=-1:1", "--units", "normalised")
    assert code == 2 and err.startswith("error: --units")


def test_cli_defaults_are_the_apis():
    from verify.cli import maxout_cmd, regions_cmd
    from verify.decide import emulation, regions, tracer

    assert maxout_cmd.DEFAULT_CELLS == emulation.DEFAULT_COVER_CELLS
    assert maxout_cmd.MAX_CELLS == tracer.MAX_TRACED_CELLS and regions_cmd.MAX_CELLS == regions.MAX_REGIONS


def test_json_spec_slices_and_the_slice_hint(capsys, tmp_path):
    # |x0 + x1| on [-1, 1]^2, sliced at x1 = 1/2: |x0 + 1/2| on [-1, 1] has 2 pieces
    spec = tmp_path / "abs.json"
    spec.write_text(json.dumps({"layers": [{"W": [[["1", "1"], ["-1", "-1"]]], "b": [["0", "0"]]}],
                                "box": [["-1", "1"], ["-1", "1"]]}))
    code, out, err, _ = _cli(capsys, "regions", spec, "--fix", "1=1/2")
    assert code == 0 and "2 regions (pieces)" in out and "free inputs [0], fixed x1 = 1/2" in out
    code, out, err, _ = _cli(capsys, "maxout", spec, "--fix", "1=1/2", "--box=0:1")
    assert code == 0 and "T6 PROVED" in out
    five = tmp_path / "five.nnet"
    five.write_text(gen.nnet_text([5, 2, 1], seed=0))
    # formerly refused ("--slice: the network has 5 inputs"): pieces are now counted exactly up to d = 6
    code, out, err, _ = _cli(capsys, "regions", five)
    assert code == 0 and "region" in out and "exact polyhedral cells (d >= 3)" in out, err
    seven = tmp_path / "seven.nnet"
    seven.write_text(gen.nnet_text([7, 2, 1], seed=0))
    code, out, err, _ = _cli(capsys, "regions", seven)
    assert code == 2 and err.startswith("error: --slice: the network has 7 inputs"), err
    assert "a slice of at most 6 inputs" in err


def _wide_spec(tmp_path, widths=(40, 40, 40), d=2, seed=7):
    import random

    rng = random.Random(seed)
    layers, n_in = [], d
    for w in widths:
        layers.append({"W": [[[f"{rng.randint(-8, 8)}/{rng.randint(1, 4)}" for _ in range(n_in)], ["0"] * n_in]
                             for _ in range(w)],
                       "b": [[f"{rng.randint(-4, 4)}/{rng.randint(1, 4)}", "0"] for _ in range(w)]})
        n_in = w
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"layers": layers, "box": [["-1", "1"]] * d}))
    return path


def test_the_time_budget_counts_the_compile(capsys, tmp_path):
    # formerly the compile ran before the budget's clock started (an 8 x 200 network: 75 s whatever the budget)
    code, out, err, secs = _cli(capsys, "maxout", _wide_spec(tmp_path), "--time-budget", "0.000001", "--json", "-")
    res = json.loads(out)
    part = res["evidence"]["partial"]
    assert code == 0 and res["verdict"] == "inconclusive", err
    assert part == {"budget": "time_budget", "cells_proved": 0, "covered_fraction": "0", "open_cells_proved": 0,
                    "stopped": part["stopped"], "while": "compiling"}
    assert "while bounding the pieces (layer 1 of 3)" in part["stopped"]
    assert res["certificate"]["summary"].endswith("no cell decided") and secs < 30


def test_compile_maxout_checks_its_deadline():
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.decide.emulation import prove_emulation
    from verify.errors import BudgetExhausted, InputError
    from verify.objects.maxout import MaxoutNetwork

    net = MaxoutNetwork.from_dict({"layers": [{"W": [[[1], [0]], [[-1], [0]]], "b": [[0, 0], [0, 0]]}]})
    with pytest.raises(BudgetExhausted, match="^time_budget: the time budget ran out while bounding"):
        compile_maxout(net, [[-1, 1]], deadline=time.monotonic() - 1)
    assert issubclass(BudgetExhausted, InputError)
    assert compile_maxout(net, [[-1, 1]], deadline=time.monotonic() + 60).S == 1      # in time: as without
    r = prove_emulation(net, [[-1, 1]], time_budget=1e-9)
    assert r.verdict.value == "inconclusive" and r.evidence["partial"]["while"] == "compiling"
    assert prove_emulation(net, [[-1, 1]], time_budget=60).verdict.value == "proved"
