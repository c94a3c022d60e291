"""MaxoutNetwork, CPWL objects: exact values, bounds, serialisation, bad input, traceability."""

from fractions import Fraction as F

import pytest
from hypothesis import given, strategies as st

from verify.errors import InputError, InputTypeError
from verify.objects.cpwl import CPWL1D, DCFunction, PiecewiseAffine1D, network_pieces_1d
from verify.objects.maxout import MaxoutNetwork, parse_box
from verify.arith.context import Context

O2 = [([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]), ([[[1, -2], [-1, 1]]], [[0, "1/2"]])]


def o2():
    return MaxoutNetwork(O2)


def phi(x):
    """O2 closed form."""
    if x <= F(5, 18):
        return -2 * x + F(7, 6)
    if x <= F(9, 26):
        return -5 * x + 2
    if x <= F(3, 4):
        return 8 * x - F(5, 2)
    return F(7, 2)


def test_o2_values_sizes_and_bounds():
    net = o2()
    assert net.widths == (2, 1) and net.rank == 2 and net.depth == 2 and net.input_dim == 1
    assert net.parameter_count() == 2 * 2 * 2 + 2 * 1 * 3
    for q in range(0, 721, 7):
        x = F(q, 720)
        assert net.evaluate([x]) == (phi(x),)
    assert net.evaluate(["9/26"]) == (F(7, 26),)
    b = net.interval_bounds([[0, 1]])
    assert b["S"] == F(11, 2)
    assert b["pieces"][1][0] == ((F(-5, 2), F(11, 2)), (F(-3), F(2)))
    assert net.lipschitz(1) == 3 and net.lipschitz(0) == 3


def test_o2_exact_pieces_1d():
    out = network_pieces_1d(o2(), (0, 1))[-1][0]
    assert out.breakpoints() == [F(5, 18), F(9, 26), F(3, 4)]
    assert out.n_pieces() == 4


def test_serialisation_roundtrip_and_readout():
    net = MaxoutNetwork(O2, readout=([[2]], ["1/3"]))
    d = net.to_dict()
    assert d["layers"][0]["b"][0] == ["-1/2", "1/3"] and d["readout"]["b"] == ["1/3"]
    assert MaxoutNetwork.from_dict(d) == net
    assert net.evaluate([0]) == (2 * F(7, 6) + F(1, 3),)


def test_from_relu():
    net = MaxoutNetwork.from_relu([[[1, -1], [2, 0]]], [[0, -1]], readout=([[1, 1]], [0]))
    assert net.rank == 2 and net.widths == (2,)
    assert net.evaluate([3, 1]) == (F(2) + F(5),)
    assert net.evaluate([-3, 1]) == (F(0),)


def test_printing():
    net = MaxoutNetwork(O2, readout=([[2]], [0]))
    text = net.describe()
    assert "h1_1 = max(2*x_1 - 1/2, -x_1 + 1/3)" in text and "y_1 = 2*h2_1" in text
    assert net._repr_latex_().startswith("$$") and "\\max" in net._repr_latex_()
    assert "```" in net._repr_markdown_()


@pytest.mark.parametrize("layers,field", [
    ([], "layers"),
    ([([[[0.5], [1]]], [[0, 0]])], "layers[0].W[0][0][0]"),
    ([([[["nan"], [1]]], [[0, 0]])], "layers[0].W[0][0][0]"),
    ([([[[1], [1, 2]]], [[0, 0]])], "layers[0].W[0][1]"),
    ([([[[1], [1]]], [[0]])], "layers[0].b[0]"),
    ([([[[1], [1]], [[1]]], [[0, 0], [0]])], "layers[0].W[1]"),
    ([([[[1]] * 100], [[0] * 100])], "layers[0].W[0]"),
])
def test_bad_networks_name_the_field(layers, field):
    with pytest.raises((InputError, InputTypeError)) as info:
        MaxoutNetwork(layers)
    assert str(info.value).startswith(field + ":")


def test_bad_inputs():
    net = o2()
    with pytest.raises(InputError, match="^x: expected 1"):
        net.evaluate([0, 1])
    with pytest.raises(InputTypeError, match=r"^x\[0\]"):
        net.evaluate([0.5])
    assert net.evaluate([0.5], allow_float=True) == (phi(F(1, 2)),)
    with pytest.raises(InputError, match=r"^box\[0\]"):
        parse_box([[1, 0]])
    with pytest.raises(InputError, match="^box: expected 1"):
        parse_box({"box": [[0, 1], [0, 1]]}, dim=1)
    with pytest.raises(InputError, match="^l:"):
        net.lipschitz(5)


# -- traceability: values that refuse comparisons and float() -----------------------------------

class Strict:
    """A value that supports only + - and * by constants (the Ops contract); comparisons raise."""

    def __init__(self, v):
        self.v = F(v)

    def _c(self, o):
        if isinstance(o, Strict):
            return o.v
        assert isinstance(o, (int, F)), f"foreign operand {o!r}"
        return F(o)

    def __add__(self, o):
        return Strict(self.v + self._c(o))

    __radd__ = __add__

    def __sub__(self, o):
        return Strict(self.v - self._c(o))

    def __rsub__(self, o):
        return Strict(self._c(o) - self.v)

    def __neg__(self):
        return Strict(-self.v)

    def __mul__(self, o):
        assert not isinstance(o, Strict), "product of two values must go through ops.mul"
        return Strict(self.v * self._c(o))

    __rmul__ = __mul__

    def _no(self, *a):
        raise AssertionError("comparison / conversion of a value outside ops")

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __float__ = __eq__ = _no
    __hash__ = None


class StrictOps(Context):
    def sign(self, a):
        return (a.v > 0) - (a.v < 0)

    def mul(self, a, b):
        return Strict(a.v * b.v)


def test_evaluation_is_traceable():
    net = MaxoutNetwork(O2, readout=([[2]], [1]))
    out = net.evaluate([Strict(F(1, 3))], ops=StrictOps())
    assert out[0].v == net.evaluate([F(1, 3)])[0]
    f = CPWL1D(-3, 3, [0, 1], [1, 3, -1], -5)
    assert f.evaluate([Strict(F(1, 2))], ops=StrictOps())[0].v == F(-1, 2)
    dc = f.dc_form()
    assert dc.evaluate([Strict(2)], ops=StrictOps())[0].v == f.value_at(2)


def test_cpwl_objects():
    f = CPWL1D(-3, 3, [0, 1], [1, 3, -1], -5)      # O8: |x| - 2|x - 1|
    for q in range(-48, 49):
        x = F(q, 16)
        assert f.evaluate([x]) == (abs(x) - 2 * abs(x - 1),) == (f.value_at(x),)
    dc = f.dc_form()
    assert all(dc.evaluate([F(q, 16)]) == f.evaluate([F(q, 16)]) for q in range(-48, 49))
    assert f.to_pwl().breakpoints() == [F(0), F(1)]
    with pytest.raises(InputError, match=r"^breakpoints\[1\]"):
        CPWL1D(0, 1, ["1/2", "1/4"], [1, 2, 3])
    with pytest.raises(InputError, match="^slopes"):
        CPWL1D(0, 1, ["1/2"], [1])
    with pytest.raises(InputError, match=r"^h_pieces\[0\]"):
        DCFunction([([1], 0)], [([1, 2], 0)])


@given(st.lists(st.integers(-20, 20), min_size=2, max_size=6, unique=True),
       st.lists(st.integers(-8, 8), min_size=7, max_size=7), st.integers(-10, 10))
def test_cpwl_dc_split_is_exact(bps, slopes, v0):
    bps = sorted(F(b, 8) for b in bps if -20 < b < 20)
    f = CPWL1D(F(-5, 2), F(5, 2), bps, [F(s, 2) for s in slopes[:len(bps) + 1]], v0)
    dc = f.dc_form()
    pts = set(bps) | {F(-5, 2), F(5, 2)} | {F(k, 7) for k in range(-17, 18)}
    assert all(dc.evaluate([x]) == f.evaluate([x]) == (f.value_at(x),) for x in pts)


def test_piecewise_affine_maximum():
    a = PiecewiseAffine1D.affine(-1, 1, 1, 0)
    m = PiecewiseAffine1D.maximum([a, a.scale(-1), PiecewiseAffine1D.affine(-1, 1, 0, F(1, 2))])
    assert m.breakpoints() == [F(-1, 2), F(1, 2)] and m.range() == (F(1, 2), F(1))
