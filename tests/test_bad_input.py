"""Bad-input corpus: every CLI command and public constructor answers malformed JSON, wrong shapes,
mixed dimensions, non-numbers, floats where exact numbers are required, NaN/inf strings, negative
radii, non-SPD covariances, weights not summing to 1, empty families and huge sizes with ONE line
naming the field (CLI exit 2), quickly, never a traceback, a hang or a silently wrong answer.

CLI cases run in-process through ``verify.cli.main`` (fast, with an alarm as the time bound); a
sample also runs as real subprocesses.  Commands or constructors that do not exist yet are skipped
with the missing module named."""

import contextlib
import importlib
import io
import json
import re
import signal
import subprocess
import sys
import time

import pytest

from verify.cli import main

TIME_LIMIT_S = 20
FIELD_LINE = re.compile(r"^error: [^:\n]{1,120}: \S.*\n$")

NET_OK = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                     {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}],
          "box": [["0", "1"]]}


def _net(**changes):
    spec = json.loads(json.dumps(NET_OK))
    spec.update(changes)
    return spec


def _layer0(W=None, b=None):
    spec = _net()
    if W is not None:
        spec["layers"][0]["W"] = W
    if b is not None:
        spec["layers"][0]["b"] = b
    return spec


NETWORK_SPECS = {
    "malformed-json": '{"layers": [',
    "not-an-object": "[1, 2]",
    "missing-layers": {"box": [["0", "1"]]},
    "missing-box": {"layers": NET_OK["layers"]},
    "empty-layers": _net(layers=[]),
    "non-number-weight": _layer0(W=[[["two"], ["-1"]], [["-3"], ["1"]]]),
    "float-weight": _layer0(W=[[[0.5], ["-1"]], [["-3"], ["1"]]]),
    "nan-string": _layer0(W=[[["NaN"], ["-1"]], [["-3"], ["1"]]]),
    "inf-string": _layer0(b=[["inf", "1/3"], ["1", "-2"]]),
    "mixed-dimensions": _layer0(W=[[["2", "1"], ["-1"]], [["-3"], ["1"]]]),
    "wrong-bias-shape": _layer0(b=[["-1/2"], ["1", "-2"]]),
    "box-lo-above-hi": _net(box=[["1", "0"]]),
    "box-wrong-dimension": _net(box=[["0", "1"], ["0", "1"]]),
    "box-float": _net(box=[[0.0, 1.0]]),
    "huge-width": _layer0(W=[[["1"], ["1"]]] * 5000, b=[["0", "0"]] * 5000),
}

DIST_OK = {"modulo": "affine", "distributions": [
    {"family": "discrete", "atoms": [[0, 0], [1, 0], [0, 2]], "weights": ["1/3", "1/3", "1/3"]},
    {"family": "uniform_cube", "radius": "1/2", "center": [0, 0]}]}


def _dist(*laws, **top):
    spec = {"modulo": "affine", "distributions": list(laws)}
    spec.update(top)
    return spec


DISC = {"family": "discrete", "atoms": [[0, 0], [1, 0], [0, 2]], "weights": ["1/3", "1/3", "1/3"]}
CUBE = {"family": "uniform_cube", "radius": "1/2", "center": [0, 0]}

DISTRIBUTION_SPECS = {
    "malformed-json": '{"distributions": [{"family": ',
    "not-an-object": '"discrete"',
    "empty-family": _dist(),
    "missing-distributions": {"modulo": "affine"},
    "unknown-family": _dist({"family": "cauchy", "scale": 1}, CUBE),
    "bad-modulo": _dist(DISC, CUBE, modulo="quadratic"),
    "weights-not-summing-to-1": _dist(dict(DISC, weights=["1/3", "1/3", "1/2"]), CUBE),
    "negative-weight": _dist(dict(DISC, weights=["-1/3", "2/3", "2/3"]), CUBE),
    "mixed-atom-dimensions": _dist(dict(DISC, atoms=[[0, 0], [1], [0, 2]]), CUBE),
    "float-atom": _dist(dict(DISC, atoms=[[0.5, 0], [1, 0], [0, 2]]), CUBE),
    "nan-atom": _dist(dict(DISC, atoms=[["nan", 0], [1, 0], [0, 2]]), CUBE),
    "inf-radius": _dist(DISC, dict(CUBE, radius="inf")),
    "negative-radius": _dist(DISC, dict(CUBE, radius="-1/2")),
    "non-number-radius": _dist(DISC, dict(CUBE, radius="half")),
    "non-spd-covariance": _dist(DISC, {"family": "laplace", "cov": [[1, 2], [2, 1]]}),
    "non-symmetric-covariance": _dist(DISC, {"family": "gaussian", "cov": [[1, 1], [0, 1]]}),
    "covariance-wrong-shape": _dist(DISC, {"family": "gaussian", "cov": [[1, 0, 0], [0, 1, 0]]}),
    "mixed-law-dimensions": _dist(DISC, {"family": "uniform_cube", "radius": 1, "center": [0, 0, 0]}),
    "huge-dimension": _dist({"family": "uniform_cube", "radius": 1, "center": [0] * 5000}),
    "huge-atoms": _dist({"family": "discrete", "atoms": [[i] for i in range(200_000)]}),
}


class _Timeout(Exception):
    pass


def run_inprocess(argv):
    """(exit code, stdout, stderr, seconds) of ``verify ARGV`` in this process, bounded by an alarm."""
    out, err = io.StringIO(), io.StringIO()

    def on_alarm(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TIME_LIMIT_S)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    except _Timeout:
        pytest.fail(f"verify {' '.join(argv)} did not answer within {TIME_LIMIT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue(), time.perf_counter() - start


def _write(tmp_path, name, spec):
    f = tmp_path / f"{name}.json"
    f.write_text(spec if isinstance(spec, str) else json.dumps(spec))
    return str(f)


def assert_one_line_field_error(code, stderr, what):
    assert code == 2, f"{what}: exit {code}, stderr {stderr!r}"
    assert FIELD_LINE.match(stderr), f"{what}: not one line naming a field: {stderr!r}"
    assert "Traceback" not in stderr and "internal error" not in stderr, f"{what}: {stderr!r}"


@pytest.mark.parametrize("command", ["maxout", "regions"])
@pytest.mark.parametrize("case", sorted(NETWORK_SPECS))
def test_network_commands(tmp_path, command, case):
    path = _write(tmp_path, case, NETWORK_SPECS[case])
    code, out, err, _ = run_inprocess([command, path])
    assert_one_line_field_error(code, err, f"verify {command} <{case}>")


@pytest.mark.parametrize("command", ["independence", "ntk"])
@pytest.mark.parametrize("case", sorted(DISTRIBUTION_SPECS))
def test_distribution_commands(tmp_path, command, case):
    path = _write(tmp_path, case, DISTRIBUTION_SPECS[case])
    argv = [command, path]
    if command == "ntk":
        argv += ["--queries", _write(tmp_path, "q", [[1, 0], [0, 1]])]
    code, out, err, _ = run_inprocess(argv)
    assert_one_line_field_error(code, err, f"verify {command} <{case}>")


@pytest.mark.parametrize("queries", ['[[1, 0], [0', "[[0.5, 0]]", '[["nan", 0]]', "[]", "[[1, 0, 0]]", '"q"'])
def test_ntk_bad_queries(tmp_path, queries):
    spec = _write(tmp_path, "spec", _dist(DISC, {"family": "discrete", "atoms": [[0, 0], [2, 0], [0, 4]]}))
    code, out, err, _ = run_inprocess(["ntk", spec, "--queries", _write(tmp_path, "q", queries)])
    assert_one_line_field_error(code, err, f"verify ntk --queries {queries}")


@pytest.mark.parametrize("heads", ["-1", "0", "1000000000", "x"])
def test_ntk_bad_heads(tmp_path, heads):
    spec = _write(tmp_path, "spec", _dist(DISC, {"family": "discrete", "atoms": [[0, 0], [2, 0], [0, 4]]}))
    q = _write(tmp_path, "q", [[1, 0], [0, 1]])
    code, out, err, _ = run_inprocess(["ntk", spec, "--queries", q, "--heads", heads])
    assert_one_line_field_error(code, err, f"verify ntk --heads {heads}")


@pytest.mark.parametrize("argv", [
    ["audit", "Z9"], ["audit", "T3/none"], ["audit", "--workers", "0"], ["audit", "--workers", "300"],
    ["audit", "--report", "r.pdf"], ["audit", "--json", "/nonexistent-folder/x.json"],
    ["audit", "--scheduler", "8786"], ["claims", "--bogus"], ["check"], ["nonsense-command"],
])
def test_misc_usage_errors(argv):
    code, out, err, _ = run_inprocess(argv)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


@pytest.mark.parametrize("command", ["maxout", "regions", "independence", "ntk", "check"])
def test_missing_and_unreadable_files(tmp_path, command):
    argv = [command, str(tmp_path / "absent.json")]
    if command == "ntk":
        argv += ["--queries", _write(tmp_path, "q", [[1, 0], [0, 1]])]
    code, out, err, _ = run_inprocess(argv)
    assert_one_line_field_error(code, err, f"verify {command} <absent file>")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    argv[1] = str(binary)
    code, out, err, _ = run_inprocess(argv)
    assert_one_line_field_error(code, err, f"verify {command} <binary file>")


def test_subprocess_sample(tmp_path):
    """A few cases as a user runs them: a real process, one stderr line, exit 2, bounded time."""
    cases = [["audit", "--workers", "-3"], ["check", _write(tmp_path, "bad", "{nope")],
             ["maxout", _write(tmp_path, "net", NETWORK_SPECS["float-weight"])],
             ["independence", _write(tmp_path, "d", DISTRIBUTION_SPECS["non-spd-covariance"])]]
    for argv in cases:
        start = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "verify", *argv], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (argv, r.stderr)
        assert time.perf_counter() - start < 60


# -- public constructors --------------------------------------------------------------------------------

def _ctor(module, name):
    return getattr(importlib.import_module(module), name)


CONSTRUCTOR_CASES = [
    ("verify.objects.maxout", "MaxoutNetwork", ([],), {}),
    ("verify.objects.maxout", "MaxoutNetwork", ([([[[0.5], [1]]], [[0, 0]])],), {}),
    ("verify.objects.maxout", "MaxoutNetwork", ([([[["nan"], [1]]], [[0, 0]])],), {}),
    ("verify.objects.maxout", "MaxoutNetwork", ([([[[1, 2], [1]]], [[0, 0]])],), {}),
    ("verify.objects.maxout", "MaxoutNetwork", ([([[[1], [1]]], [[0]])],), {}),
    ("verify.objects.maxout", "MaxoutNetwork", ([([[[1], [1]]] * 100_000, [[0, 0]] * 100_000)],), {}),
    ("verify.objects.transformer", "Head", ([[1, 0]], [[1]], [[1, 0]], [[0], [1]]), {}),
    ("verify.objects.transformer", "Head", ([[0.5, 0]], [[1, 0]], [[1, 0]], [[0], [1]]), {}),
    ("verify.objects.transformer", "Transformer", ([],), {}),
    ("verify.laws", "Discrete", ([[0, 0], [1]],), {}),
    ("verify.laws", "Discrete", ([[0], [1]], ["1/2", "1/3"]), {}),
    ("verify.laws", "Discrete", ([[0], [1]], ["-1/2", "3/2"]), {}),
    ("verify.laws", "Discrete", ([],), {}),
    ("verify.laws", "Discrete", ([[0.25], [1]],), {}),
    ("verify.laws", "Discrete", ([["inf"], [1]],), {}),
    ("verify.laws", "UniformCube", ("-1",), {"dim": 2}),
    ("verify.laws", "UniformCube", ("0",), {"dim": 2}),
    ("verify.laws", "UniformCube", ("1",), {"dim": 10_000}),
    ("verify.laws", "SymmetricLaplace", ([[1, 2], [2, 1]],), {}),
    ("verify.laws", "SymmetricLaplace", ([[1, 0], [1, 1]],), {}),
    ("verify.laws", "Gaussian", ([[1, 0]],), {}),
    ("verify.laws", "Gaussian", ([[-1]],), {}),
    ("verify.laws", "GaussianMixture", ("1", [0, 0], [[1, 0], [0, 1]]), {}),
    ("verify.laws", "GaussianMixture", ("-1", [1, 0], [[1, 0], [0, 1]]), {}),
    ("verify.checks.t3_onehot_gate", "check_gate_identity", (), {"S": "-1"}),
    ("verify.checks.t3_onehot_gate", "check_gate_identity", (), {"S": 0.5}),
    ("verify.checks.t3_onehot_gate", "check_gate_identity", (), {"S": 10, "grid_denominator": 10 ** 9}),
]


@pytest.mark.parametrize("module,name,args,kwargs", CONSTRUCTOR_CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(CONSTRUCTOR_CASES)])
def test_public_constructors(module, name, args, kwargs):
    ctor = _ctor(module, name)
    start = time.perf_counter()
    with pytest.raises((ValueError, TypeError)) as info:
        ctor(*args, **kwargs)
    assert time.perf_counter() - start < TIME_LIMIT_S
    msg = str(info.value)
    assert "\n" not in msg.strip() and re.match(r"^[^:\s][^:]{0,80}: \S", msg), f"{name}{args}: {msg!r}"


def test_long_integer_string_is_a_field_error(tmp_path):
    spec = _dist({"family": "uniform_cube", "radius": "1" * 4500, "center": [0, 0]}, CUBE)
    code, out, err, _ = run_inprocess(["independence", _write(tmp_path, "long", spec)])
    assert_one_line_field_error(code, err, "verify independence <4500-digit radius>")
