"""count_regions: exact counts, activation vs pieces, the 1-D sweep vs the tracer, and an independent
slow method in 2-D (enumerate ReLU activation patterns, exact polygon clipping)."""

import itertools
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from verify.decide.regions import count_regions
from verify.constructions.reference_networks import o2_network, random_maxout
from verify.constructions.token_shift import tent_network
from verify.errors import InputError
from verify.objects.cpwl import CPWL1D, DCFunction
from verify.objects.maxout import MaxoutNetwork


def test_o2_has_four_pieces_with_exact_breakpoints():
    rc = count_regions(o2_network(), [(0, 1)])
    assert rc.count == 4
    assert [r["interval"] for r in rc.regions] == [[0, F(5, 18)], [F(5, 18), F(9, 26)], [F(9, 26), F(3, 4)], [F(3, 4), 1]]
    assert [r["map"] for r in rc.regions] == [[[F(7, 6), -2]], [[2, -5]], [[F(-5, 2), 8]], [[F(7, 2), 0]]]


def test_tent_activation_equals_pieces():
    for L in range(1, 7):
        a = count_regions(tent_network(L), [(0, 1)], kind="activation").count
        p = count_regions(tent_network(L), [(0, 1)], kind="pieces").count
        assert a == p == 2 ** L


def test_activation_and_pieces_differ():
    # relu(x) - relu(-x) = x: two activation patterns, one affine piece (1-D and 2-D)
    net1 = MaxoutNetwork([([[[1], [0]], [[-1], [0]]], [[0, 0], [0, 0]])], readout=([[1, -1]], [0]))
    assert count_regions(net1, [(-1, 1)], kind="activation").count == 2
    assert count_regions(net1, [(-1, 1)], kind="pieces").count == 1
    net2 = MaxoutNetwork([([[[1, 0], [0, 0]], [[-1, 0], [0, 0]]], [[0, 0], [0, 0]])], readout=([[1, -1]], [0]))
    assert count_regions(net2, [(-1, 1), (-1, 1)], kind="activation").count == 2
    rc = count_regions(net2, [(-1, 1), (-1, 1)], kind="pieces")
    assert rc.count == 1 and len(rc.regions[0]["cells"]) == 2
    # max(2x, 2x): ties everywhere, one pattern and one piece
    same = MaxoutNetwork([([[[2], [2]]], [[0, 0]])] * 3)
    assert count_regions(same, [(0, 1)], kind="activation").count == 1


def test_cpwl_objects_and_callables():
    f = DCFunction([((1,), 0), ((-1,), 0)], [((2,), -2), ((-2,), 2)])        # |x| - 2|x - 1| (O8)
    assert count_regions(f, [(-3, 3)]).count == 3
    g = lambda x, ops: (ops.max([x[0], x[1], -x[0] - x[1]]),)
    assert count_regions(g, [(-1, 1), (-1, 1)]).count == 3


def test_sweep_equals_tracer_on_random_networks():
    for s in range(25):
        net = random_maxout(s, 1, 2 + s % 3, 1 + s % 3, 3)
        for kind in ("pieces", "activation"):
            a = count_regions(net, [(-1, 1)], kind=kind)
            b = count_regions(net, [(-1, 1)], kind=kind, method="trace")
            assert a.count == b.count and a.regions == b.regions


def test_bad_input():
    with pytest.raises(InputError, match="^kind"):
        count_regions(o2_network(), [(0, 1)], kind="regions")
    with pytest.raises(InputError, match="^box"):
        count_regions(o2_network(), [(0, 0)])
    with pytest.raises(InputError, match="^box"):
        count_regions(o2_network(), [(0, 1), (0, 1)])
    with pytest.raises(InputError, match="^method"):
        count_regions(random_maxout(0, 2, 2, 1, 2), [(0, 1), (0, 1)], method="sweep")


# -- independent slow method ------------------------------------------------------------------------

def _clip(poly, a, b, c):
    """Sutherland-Hodgman: keep a x + b y + c >= 0 (exact Fractions)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp = a * p[0] + b * p[1] + c
        fq = a * q[0] + b * q[1] + c
        if fp >= 0:
            out.append(p)
        if (fp > 0 > fq) or (fp < 0 < fq):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _area(poly):
    return abs(sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
                   for i in range(len(poly)))) / 2 if len(poly) >= 3 else 0


def _slow_activation_count(W1, b1, W2, b2):
    """Enumerate every on/off pattern of both ReLU layers; count the patterns with a non-empty interior."""
    n1, n2 = len(W1), len(W2)
    count = 0
    square = [(F(-1), F(-1)), (F(1), F(-1)), (F(1), F(1)), (F(-1), F(1))]
    for pat in itertools.product((0, 1), repeat=n1 + n2):
        poly = square
        # layer 1: pre_i = W1[i] . x + b1[i]; active -> >= 0, inactive -> <= 0
        h = []          # hidden units as affine maps (ax, ay, c)
        for i in range(n1):
            a, b, c = W1[i][0], W1[i][1], b1[i]
            s = 1 if pat[i] else -1
            poly = _clip(poly, s * a, s * b, s * c)
            h.append((a, b, c) if pat[i] else (0, 0, 0))
        for j in range(n2):
            a = sum(W2[j][i] * h[i][0] for i in range(n1))
            b = sum(W2[j][i] * h[i][1] for i in range(n1))
            c = sum(W2[j][i] * h[i][2] for i in range(n1)) + b2[j]
            s = 1 if pat[n1 + j] else -1
            poly = _clip(poly, s * a, s * b, s * c)
        if _area(poly) > 0:
            count += 1
    return count


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_2d_activation_count_matches_pattern_enumeration(seed):
    rng = random.Random(seed)
    q = lambda: F(rng.randint(-8, 8), rng.randint(1, 4))
    n1, n2 = 4, 3
    W1 = [[q(), q()] for _ in range(n1)]
    b1 = [q() for _ in range(n1)]
    W2 = [[q() for _ in range(n1)] for _ in range(n2)]
    b2 = [q() for _ in range(n2)]
    net = MaxoutNetwork.from_relu([W1, W2], [b1, b2])
    rc = count_regions(net, [(-1, 1), (-1, 1)], kind="activation")
    assert rc.count == _slow_activation_count(W1, b1, W2, b2)
    # the cells tile the square exactly
    assert sum(_area(c) for reg in rc.regions for c in reg["cells"]) == 4


@settings(max_examples=15)
@given(st.integers(0, 10**6))
def test_2d_pieces_never_exceed_activation(seed):
    net = random_maxout(seed, 2, 2, 2, 2)
    a = count_regions(net, [(-1, 1), (-1, 1)], kind="activation")
    p = count_regions(net, [(-1, 1), (-1, 1)], kind="pieces")
    assert 1 <= p.count <= a.count
    for reg in p.regions:       # the map of a piece is the network at each cell's vertex average
        for cell in reg["cells"]:
            cx = sum(v[0] for v in cell) / len(cell)
            cy = sum(v[1] for v in cell) / len(cell)
            val = net.evaluate([cx, cy])[0]
            c0, c1, c2 = reg["map"][0]
            assert val == c0 + c1 * cx + c2 * cy


def test_2d_sweep_equals_generic_tracer():
    for s in range(12):
        net = random_maxout(s, 2, 2 + s % 3, 1 + s % 3, 3)
        for kind in ("pieces", "activation"):
            a = count_regions(net, [(-1, 1), (-1, 1)], kind=kind)
            b = count_regions(net, [(-1, 1), (-1, 1)], kind=kind, method="trace")
            assert (a.count, a.pieces, a.activation_regions) == (b.count, b.pieces, b.activation_regions)
            assert sorted(map(str, a.regions)) == sorted(map(str, b.regions))
