"""verify.objects.readers: .nnet / ONNX / npz / state dicts -> the exact MaxoutNetwork; slices; bad files."""

import importlib.util
import random
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from verify.errors import InputError
from verify.objects.maxout import MaxoutNetwork
from verify.objects.readers import (from_state_dict, load_network, onnx_to_network, read_nnet_text, read_npz,
                                    slice_network)

_spec = importlib.util.spec_from_file_location("nnet_gen", Path(__file__).parent / "data" / "nnet_gen.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

SIZES = [3, 4, 4, 2]


def _onnx_model(layers, *, transB=True, matmul_last=False):
    """An ONNX graph Gemm -> Relu -> Gemm -> Relu -> Gemm (float32 initializers) of the given (W, b) layers."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    x = "x"
    for l, (W, b) in enumerate(layers):
        Wa = np.array([[float(v) for v in r] for r in W], dtype=np.float32)
        ba = np.array([float(v) for v in b], dtype=np.float32)
        if matmul_last and l == len(layers) - 1:
            inits += [numpy_helper.from_array(Wa.T.copy(), f"W{l}"), numpy_helper.from_array(ba, f"b{l}")]
            nodes += [helper.make_node("MatMul", [x, f"W{l}"], [f"m{l}"]),
                      helper.make_node("Add", [f"m{l}", f"b{l}"], [f"z{l}"])]
        else:
            inits += [numpy_helper.from_array(Wa if transB else Wa.T.copy(), f"W{l}"),
                      numpy_helper.from_array(ba, f"b{l}")]
            nodes.append(helper.make_node("Gemm", [x, f"W{l}", f"b{l}"], [f"z{l}"], transB=int(transB)))
        x = f"z{l}"
        if l < len(layers) - 1:
            nodes.append(helper.make_node("Relu", [x], [f"h{l}"]))
            x = f"h{l}"
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    n_in, n_out = len(layers[0][0][0]), len(layers[-1][0])
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n_in])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n_out])], inits)
    return helper.make_model(graph)


def test_nnet_and_onnx_of_the_same_weights_load_to_the_same_exact_network(tmp_path):
    onnx = pytest.importorskip("onnx")
    layers = gen.dense_weights(SIZES, seed=3, dyadic=True)
    # normalised units: the network as written in the file, whatever its means and ranges
    text = gen.nnet_text(SIZES, layers=layers, means=["0.5", "0", "-1", "2"], ranges=["2", "1", "4", "0.5"])
    (tmp_path / "n.nnet").write_text(text)
    a = load_network(str(tmp_path / "n.nnet"), units="normalised").net
    onnx.save(_onnx_model(layers), str(tmp_path / "n.onnx"))
    b = load_network(str(tmp_path / "n.onnx")).net
    c = onnx_to_network(_onnx_model(layers, transB=False, matmul_last=True))
    assert a == b == c and a.widths == (4, 4) and a.rank == 2 and a.readout is not None
    # and with trivial normalisation, the original units are the same network too
    (tmp_path / "m.nnet").write_text(gen.nnet_text(SIZES, layers=layers))
    assert load_network(str(tmp_path / "m.nnet")).net == b


def test_nnet_normalisation_is_folded_in_exactly():
    layers = gen.dense_weights(SIZES, seed=5)
    means, ranges = ["0.5", "-0.25", "3", "10"], ["2", "0.1", "7", "0.3"]
    text = gen.nnet_text(SIZES, layers=layers, mins=["-2", "-1", "0"], maxs=["2", "1", "5"], means=means,
                         ranges=ranges)
    orig, raw = read_nnet_text(text), read_nnet_text(text, units="normalised")
    m, r = [F(v) for v in means], [F(v) for v in ranges]
    assert orig.box == ((-2, 2), (-1, 1), (0, 5))
    assert raw.box == tuple(((lo - m[i]) / r[i], (hi - m[i]) / r[i]) for i, (lo, hi) in enumerate(orig.box))
    rng = random.Random(0)
    for _ in range(20):
        x = [F(rng.randint(-100, 100), 37) for _ in range(3)]
        y = orig.net.evaluate(x)
        z = raw.net.evaluate([(xi - m[i]) / r[i] for i, xi in enumerate(x)])
        assert y == tuple(zi * r[3] + m[3] for zi in z)
    # decimal strings are exact decimals
    assert raw.net.layers[0][0][0][0][0] == F(layers[0][0][0][0])


def test_state_dicts_and_npz(tmp_path):
    rng = np.random.default_rng(0)
    W0, b0, W1, b1, W2, b2 = (rng.standard_normal(s) for s in [(4, 3), (4,), (4, 4), (4,), (2, 4), (2,)])
    sd = {"2.weight": W1, "4.bias": b2, "0.weight": W0, "0.bias": b0, "2.bias": b1, "4.weight": W2}   # any order
    net = from_state_dict(sd)
    ref = MaxoutNetwork.from_relu([W0.tolist(), W1.tolist()], [b0.tolist(), b1.tolist()],
                                  readout=(W2.tolist(), b2.tolist()), allow_float=True)
    assert net == ref
    assert net.layers[0][0][0][0][0] == F(float(W0[0, 0]))      # the exact binary value of the float
    named = {f"layers.{k.replace('.', '.', 1)}": v for k, v in sd.items()}
    assert from_state_dict(named) == net
    np.savez(tmp_path / "n.npz", **{"fc.0.weight": W0, "fc.0.bias": b0, "fc.1.weight": W1, "fc.1.bias": b1,
                                    "fc.2.weight": W2, "fc.2.bias": b2})
    assert read_npz(str(tmp_path / "n.npz")).net == net
    # float32 weights: their exact binary values; 0.1 is not 1/10
    f32 = from_state_dict({"0.weight": np.float32([[0.1]]), "0.bias": np.float32([0]),
                           "1.weight": np.float32([[1]]), "1.bias": np.float32([0])})
    assert f32.layers[0][0][0][0][0] == F(float(np.float32(0.1))) != F(1, 10)


def test_onnx_max_layers_are_maxout_units():
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    A = np.float32([[1, 2], [-1, 0]])
    B = np.float32([[0, 1], [3, -1]])
    inits = [numpy_helper.from_array(A, "A"), numpy_helper.from_array(B, "B"),
             numpy_helper.from_array(np.float32([0.5, 0]), "c"), numpy_helper.from_array(np.float32([[1], [1]]), "R")]
    nodes = [helper.make_node("MatMul", ["x", "A"], ["p"]), helper.make_node("Add", ["p", "c"], ["p1"]),
             helper.make_node("MatMul", ["x", "B"], ["q"]), helper.make_node("Max", ["p1", "q"], ["h"]),
             helper.make_node("Flatten", ["h"], ["hf"]), helper.make_node("MatMul", ["hf", "R"], ["y"])]
    g = helper.make_graph(nodes, "maxout", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    net = onnx_to_network(helper.make_model(g))
    assert net.rank == 2 and net.widths == (2,)
    x = [F(1, 3), F(-2)]
    p = [x[0] * 1 + x[1] * -1 + F(1, 2), x[0] * 2 + x[1] * 0]
    q = [x[0] * 0 + x[1] * 3, x[0] * 1 - x[1]]
    assert net.evaluate(x) == (max(p[0], q[0]) + max(p[1], q[1]),)


def test_slices_fix_inputs_exactly():
    net = read_nnet_text(gen.nnet_text([5, 6, 6, 2], seed=2)).net
    fixed = {2: F(1, 10), 3: F(0), 4: F(-1, 5)}
    s = slice_network(net, [1, 0], fixed)
    assert s.input_dim == 2
    for x0, x1 in [(F(1, 3), F(-1, 7)), (F(0), F(1, 2))]:
        assert s.evaluate([x1, x0]) == net.evaluate([x0, x1, fixed[2], fixed[3], fixed[4]])
    for free, fx, field in [([0, 1], {2: 0}, "--fix"), ([0, 0], fixed, "--slice"), ([0, 7], fixed, "--slice"),
                            ([0, 1, 2], fixed, "--fix"), ([], fixed, "--slice")]:
        with pytest.raises(InputError, match=f"^{field}"):
            slice_network(net, free, fx)


GOOD = gen.nnet_text([2, 3, 1], seed=1)


def _replace_line(text, n, new):
    lines = text.splitlines()
    lines[n] = new
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, match", [
    (_replace_line(GOOD, 8, "nan,0.5,"), r"^nnet line 9: layer 0 weight row 0: 'nan' is not a finite"),
    (_replace_line(GOOD, 9, "inf,0.5,"), r"^nnet line 10: .*'inf' is not a finite"),
    (_replace_line(GOOD, 9, "0.5,"), r"^nnet line 10: layer 0 weight row 1: expected 2 comma-separated numbers, got 1"),
    (_replace_line(GOOD, 9, "1" * 90 + ",0,"), r"^nnet line 10: .*90 characters exceeds the limit 80"),
    (_replace_line(GOOD, 9, "1e999,0,"), r"^nnet line 10: .*exponent"),
    (_replace_line(GOOD, 1, "2,2,1,3000,"), r"^nnet line 2: maxLayerSize 3000 outside \[1, 256\]"),
    (_replace_line(GOOD, 2, "2,3,2,"), r"^nnet line 3: layer sizes"),
    (_replace_line(GOOD, 7, "1,0,1,"), r"^nnet line 8: range 1 is 0"),
    (GOOD + "1,2,\n", r"^nnet line \d+: unexpected data after the last layer"),
    ("\n".join(GOOD.splitlines()[:12]), r"^nnet <text>: ended before"),
    ("1,2,1,3,\n2,1,\n0,\n-1,-1,\n1,1,\n0,0,0,\n1,1,1,\n1,1,\n0,\n",
     r"^nnet <text>: 1 layer\(s\): a ReLU network needs at least one hidden layer"),
])
def test_bad_nnet_files_name_the_line(text, match):
    with pytest.raises(InputError, match=match):
        read_nnet_text(text)


def test_bad_arrays_and_models(tmp_path, monkeypatch):
    ok = {"0.weight": np.ones((2, 2)), "0.bias": np.zeros(2), "1.weight": np.ones((1, 2)), "1.bias": np.zeros(1)}
    for bad, match in [({**ok, "0.weight": np.array([[1, np.nan], [0, 0]])}, r"^state_dict\['0.weight'\]\[0, 1\]"),
                       ({**ok, "1.weight": np.ones((1, 3))}, r"3 columns, but the previous layer has 2"),
                       ({**ok, "1.bias": np.zeros(2)}, r"2 biases for 1 rows"),
                       ({**ok, "extra": np.zeros(1)}, r"^state_dict\['extra'\]"),
                       ({k: v for k, v in ok.items() if k != "1.bias"}, r"^state_dict\['1.bias'\]: missing"),
                       ({**ok, "0.weight": np.ones((2, 2, 1))}, r"expected a 2-dimensional array")]:
        with pytest.raises(InputError, match=match):
            from_state_dict(bad)
    (tmp_path / "x.npz").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="^npz: .*not a numpy .npz file"):
        read_npz(str(tmp_path / "x.npz"))
    with pytest.raises(InputError, match="^network: .*unknown suffix"):
        load_network(str(tmp_path / "x.h5"))
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["y"])], "s",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])])
    with pytest.raises(InputError, match="operator Sigmoid is not supported"):
        onnx_to_network(helper.make_model(g))
    (tmp_path / "bad.onnx").write_bytes(b"\x00garbage")
    with pytest.raises(InputError, match="^onnx: .*not an ONNX model"):
        load_network(str(tmp_path / "bad.onnx"))
    import builtins

    real = builtins.__import__

    def no_onnx(name, *a, **k):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    with pytest.raises(InputError, match=r"pip install 'transformer-verify\[onnx\]'"):
        load_network(str(tmp_path / "bad.onnx"))
