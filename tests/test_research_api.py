"""The researcher-facing API: numpy inputs read exactly, ``prove_emulation(..., S=, tie=)``, and the shipped
hypothesis strategies (docs/strategies.md).  All fast."""

import importlib.util
import json
import pathlib
import sys
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from verify import kernel
from verify.arith.exact import plain
from verify.constructions.maxout_compiler import compile_maxout
from verify.decide.emulation import prove_emulation
from verify.errors import InputError, InputTypeError
from verify.laws import Discrete
from verify.objects.cpwl import CPWL1D, DCFunction
from verify.objects.maxout import MaxoutNetwork, coerce_input
from verify.objects.transformer import FeedForward
from verify import strategies as vs

ABS = [([[[1], [-1]]], [[0, 0]])]                # |x| as one rank-2 unit


def _kernel(r):
    return kernel.check(json.loads(r.to_json()))


# -- numpy arrays ------------------------------------------------------------------------------------

def test_plain_is_exact_and_leaves_other_values_alone():
    assert plain(np.array([[1, -2]], dtype=np.int64)) == [[1, -2]]
    assert plain(np.array([2**70], dtype=object)) == [2**70]
    assert plain([np.array([F(1, 3), "1/2"], dtype=object), (np.int32(4),)]) == [[F(1, 3), "1/2"], (4,)]
    x = [F(1), "2", (3,)]
    assert plain(x) is x
    assert type(plain(np.float64(0.5))) is float          # still a float: refused downstream


def test_maxout_network_accepts_numpy_integer_and_object_arrays():
    ref = MaxoutNetwork(ABS, readout=([[2]], [1]))
    W, b = np.array([[[1], [-1]]], dtype=np.int64), np.array([[0, 0]], dtype=np.int64)
    assert MaxoutNetwork([(W, b)], readout=(np.array([[2]]), np.array([1]))) == ref
    obj = MaxoutNetwork([(np.array([[[F(1, 2)], ["-1"]]], dtype=object), [[0, "1/3"]])])
    assert obj.layers[0][0] == (((F(1, 2),), (F(-1),)),) and obj.layers[0][1] == ((F(0), F(1, 3)),)
    assert ref.evaluate(np.array([-3])) == ref.evaluate([-3]) == (F(7),)
    assert ref.evaluate(np.array([F(-1, 3)], dtype=object)) == (F(5, 3),)
    relu = MaxoutNetwork.from_relu([np.array([[1], [-1]])], [np.array([0, 0])], readout=(np.array([[1, 1]]), [0]))
    assert relu == MaxoutNetwork.from_relu([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]))


def test_numpy_floats_refused_like_float_lists():
    with pytest.raises(InputTypeError, match=r"^layers\[0\]\.W\[0\]\[0\]\[0\]: .*is a float"):
        MaxoutNetwork([(np.array([[[0.5], [-1.0]]]), np.array([[0, 0]]))])
    with pytest.raises(InputTypeError, match=r"^layers\[0\]\.W\[0\]\[0\]\[0\]: .*is a float"):
        MaxoutNetwork([([[[0.5], [-1.0]]], [[0, 0]])])
    net = MaxoutNetwork([(np.array([[[0.5], [-1.0]]]), np.array([[0, 0]]))], allow_float=True)
    assert net.layers[0][0][0][0] == (F(1, 2),)            # the exact binary value
    with pytest.raises(InputTypeError, match=r"^x\[0\]: .*is a float"):
        MaxoutNetwork(ABS).evaluate(np.array([0.1]))
    assert MaxoutNetwork(ABS).evaluate(np.array([0.5]), allow_float=True) == (F(1, 2),)


def test_numpy_booleans_and_nested_arrays_refused():
    net = MaxoutNetwork(ABS)
    with pytest.raises(InputTypeError, match=r"^x\[0\]"):
        net.evaluate(np.array([True]))
    with pytest.raises(InputTypeError, match=r"^x\[0\]"):
        net.evaluate(np.array([[1]]))
    with pytest.raises(InputTypeError, match=r"^v: expected a number"):
        coerce_input(np.array([1, 2]), "v")
    with pytest.raises(InputTypeError, match="boolean"):
        MaxoutNetwork([([[[np.bool_(True)], [1]]], [[0, 0]])])


def test_numpy_consistent_with_discrete_laws():
    assert Discrete(np.array([[0], [1]])) == Discrete([[0], [1]])
    assert MaxoutNetwork([(np.array([[[1], [-1]]]), [[0, 0]])]) == MaxoutNetwork(ABS)
    for build in (lambda: Discrete(np.array([[0.5], [1.0]])),
                  lambda: MaxoutNetwork([(np.array([[[0.5], [1.0]]]), [[0, 0]])])):
        with pytest.raises(InputTypeError, match="is a float"):
            build()


def test_other_objects_accept_numpy_arrays():
    f = CPWL1D(0, 1, np.array([F(1, 2)], dtype=object), np.array([1, 2]))
    assert f.pieces == CPWL1D(0, 1, [F(1, 2)], [1, 2]).pieces
    assert f.evaluate(np.array([1])) == f.evaluate([1])
    dc = DCFunction(np.array([[[1], 0]], dtype=object), [([1], 0)])
    assert dc.evaluate(np.array([3])) == (F(0),)
    ff = FeedForward(np.array([[1, 0]]), None, np.array([[1], [0]]), np.array([0, 1]))
    assert (ff.W1, ff.W2, ff.b2) == (((F(1), F(0)),), ((F(1),), (F(0),)), (F(0), F(1)))
    c = compile_maxout(MaxoutNetwork(ABS), np.array([[-1, 1]]))
    assert c.embed(np.array([F(1, 2)], dtype=object)) == c.embed([F(1, 2)])


def test_checks_and_decisions_accept_numpy_arrays():
    from verify.checks.n1_cgf_closed_forms import check_cgf_quadrature
    from verify.checks.t5_group_isolation import check_group_isolation
    from verify.decide.ntk_gram import ntk_gram, oracle_head_set
    from verify.laws.oracle_families import beta

    def same(a, b):
        assert a.to_json() == b.to_json()

    same(check_group_isolation(M=2, C=1, groups=[0, 0, 1, 1], values=np.array([[-1, -1, 1, 0]]), ties=["average"]),
         check_group_isolation(M=2, C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]], ties=["average"]))
    thetas = np.array([[F(1, 3)], [F(-1, 2)]], dtype=object)
    same(check_cgf_quadrature("gaussian", {"variance": 1}, thetas=thetas),
         check_cgf_quadrature("gaussian", {"variance": 1}, thetas=[[F(1, 3)], [F(-1, 2)]]))
    Q = [[1, F(1, 2)], [F(-3, 10), 1]]
    heads = oracle_head_set(F(1, 2))
    g = ntk_gram([beta()], np.array(Q, dtype=object), head_set=np.array(heads, dtype=object))
    h = ntk_gram([beta()], Q, head_set=heads)
    assert g.queries == h.queries and g.heads == h.heads
    with pytest.raises(InputTypeError, match="is a float"):
        ntk_gram([beta()], np.array([[1.0, 0.5]]), head_set=heads)
    from verify.checks.n2_attention_gradient import _parse_atoms

    assert _parse_atoms(np.array([[0, 1], [2, -1]]), None) == _parse_atoms([[0, 1], [2, -1]], None)


# -- prove_emulation(..., S=, tie=) ---------------------------------------------------------------

def test_prove_emulation_compiles_with_S():
    net = MaxoutNetwork(ABS)
    default = prove_emulation(net, [[-1, 1]])
    assert default.proved and default.evidence["lemma"]["S"] == 1
    r = prove_emulation(net, [[-1, 1]], S="5/2", tie="first")
    assert r.proved and r.evidence["lemma"]["S"] == F(5, 2) and r.conventions["tie_rules"] == ["first"]
    assert r.parameters["tie"] == "first"
    assert _kernel(r).startswith("emulation-regions")
    assert r.parameters["transformer"] != default.parameters["transformer"]       # the weights carry S


def test_prove_emulation_small_S_is_refuted_with_a_witness():
    r = prove_emulation(MaxoutNetwork(ABS), [[-1, 1]], S="1/2")
    assert r.refuted and r.certificate["kind"] == "emulation-witness"
    assert r.evidence["lemma"]["hypothesis_S_ge_bound"] is False
    assert _kernel(r).startswith("emulation-witness")


@pytest.mark.parametrize("S, error, match", [
    (0, InputError, "must be > 0"), (-1, InputError, "must be > 0"), ("x", InputError, "not an exact number"),
    (0.5, InputTypeError, "is a float"), (True, InputTypeError, "boolean"), ([1], InputTypeError, "expected"),
])
def test_prove_emulation_bad_S(S, error, match):
    with pytest.raises(error, match=r"^S: .*" + match):
        prove_emulation(MaxoutNetwork(ABS), [[-1, 1]], S=S)


def test_prove_emulation_S_with_a_compiled_target():
    net = MaxoutNetwork(ABS)
    c = compile_maxout(net, [[-1, 1]], S=3)
    assert prove_emulation(c, S=3).proved and prove_emulation(c, S="3").proved
    with pytest.raises(InputError, match=r"^S: the target is already compiled with S = 3"):
        prove_emulation(c, S=2)
    with pytest.raises(InputError, match=r"^S: .*pair is already compiled"):
        prove_emulation((net, c), [[-1, 1]], S=3)


@pytest.mark.parametrize("tie", ["last", None, ["first"], 1])
def test_prove_emulation_bad_tie(tie):
    with pytest.raises(InputError, match=r"^tie: must be one of average, first, both"):
        prove_emulation(MaxoutNetwork(ABS), [[-1, 1]], tie=tie)


# -- verify.strategies -------------------------------------------------------------------------------

FAST = settings(max_examples=25, database=None, deadline=None)


@FAST
@given(vs.rationals(-1, "1/2", max_denominator=3), vs.points(3), vs.points((1, 2), 0, 1))
def test_rationals_and_points(q, p3, p):
    assert type(q) is F and -1 <= q <= F(1, 2) and q.denominator <= 3
    assert len(p3) == 3 and all(type(v) is F and -2 <= v <= 2 and v.denominator <= 4 for v in p3)
    assert 1 <= len(p) <= 2 and all(0 <= v <= 1 for v in p)


@FAST
@given(vs.boxes((1, 3)), vs.boxes(2, 0, 0, degenerate=True))
def test_boxes(box, point_box):
    from verify.arith.exact import parse_box

    assert 1 <= len(box) <= 3 and all(type(lo) is F and lo < hi for lo, hi in box)
    assert parse_box(box) == tuple(tuple(iv) for iv in box)
    assert point_box == [[0, 0], [0, 0]]


@FAST
@given(vs.maxout_networks(input_dim=(1, 2), rank=2, depth=(1, 3), width=(1, 2), readout=True))
def test_maxout_networks(net):
    assert isinstance(net, MaxoutNetwork)
    assert 1 <= net.input_dim <= 2 and net.rank == 2 and 1 <= net.depth <= 3 and all(1 <= N <= 2 for N in net.widths)
    assert net.output_dim == 1 and net.readout is not None
    assert all(abs(v) <= 2 and v.denominator <= 4 for W, _ in net.layers for unit in W for w in unit for v in w)
    assert MaxoutNetwork.from_dict(net.to_dict()) == net


@FAST
@given(vs.maxout_networks(weights=st.integers(-1, 1)))
def test_maxout_networks_custom_weights(net):
    assert all(v.denominator == 1 and abs(v) <= 1 for W, b in net.layers for row in b for v in row)


@pytest.mark.parametrize("family", ["discrete", "uniform_cube", "laplace", "gaussian_mixture", "gaussian"])
def test_laws_of_each_family(family):
    seen = []

    @settings(max_examples=10, database=None, deadline=None)
    @given(vs.laws(family, dim=(1, 2)))
    def run(law):
        assert law.family == family and 1 <= law.dim <= 2
        assert law.cgf_ball([0] * law.dim).contains(0)
        seen.append(law)

    run()
    assert seen


@FAST
@given(vs.laws())
def test_laws_any_family(law):
    assert law.family in ("discrete", "uniform_cube", "laplace", "gaussian_mixture", "gaussian") and law.dim == 1


@pytest.mark.parametrize("build, error, match", [
    (lambda: vs.rationals(1, 0), InputError, "^max_value: must be >= min_value"),
    (lambda: vs.rationals(0, 1, max_denominator=0), InputError, "^max_denominator"),
    (lambda: vs.rationals(0.5, 1), InputTypeError, "^min_value: .*is a float"),
    (lambda: vs.points(0), InputError, "^dim"),
    (lambda: vs.points("2"), InputTypeError, "^dim"),
    (lambda: vs.boxes(1, 1, 1), InputError, "^max_value: must be > min_value"),
    (lambda: vs.maxout_networks(rank=(3, 2)), InputError, "^rank"),
    (lambda: vs.maxout_networks(weights=[1, 2]), InputTypeError, "^weights"),
    (lambda: vs.laws("poisson"), InputError, "^family"),
    (lambda: vs.laws(max_atoms=0), InputError, "^max_atoms"),
])
def test_strategies_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_strategies_without_hypothesis(monkeypatch):
    """The module imports without hypothesis; building a strategy then says what to install."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    monkeypatch.setitem(sys.modules, "hypothesis.strategies", None)
    path = pathlib.Path(vs.__file__)
    spec = importlib.util.spec_from_file_location("verify._strategies_without_hypothesis", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ImportError, match=r"needs hypothesis.*pip install hypothesis.*'test' extra") as info:
        module.rationals()
    assert info.value.name == "hypothesis"
