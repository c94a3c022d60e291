"""Constructions of paper 1: the R4 compiler, the R8 CPWL compiler, the R3s token shift, the R4' group head."""

import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from verify.constructions.cpwl_compiler import compile_cpwl
from verify.constructions.group_shift import GroupShiftHead
from verify.constructions.maxout_compiler import compile_maxout
from verify.constructions.token_shift import scalar_shift_tent, tent_network
from verify.errors import InputError
from verify.objects.cpwl import CPWL1D, DCFunction
from verify.objects.maxout import MaxoutNetwork

O2 = [([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]), ([[[1, -2], [-1, 1]]], [[0, "1/2"]])]


def test_o2_compiled_sizes_and_values():
    net = MaxoutNetwork(O2)
    c = compile_maxout(net, [[0, 1]], S=40)
    s = c.sizes()
    assert (s["tokens"], s["embedding"], s["sublayers"], s["heads_per_layer"], s["ffn_widths"]) == (2, 7, 4, [2, 1], [16, 12])
    assert (s["W1_nonzeros"], s["W2_nonzeros"], s["attention_nonzeros"]) == ([32, 24], [16, 12], [8, 4])
    assert s["formula"]["W1_nonzeros_at_most"] == [32, 24]
    assert c.coordinate_names == ("h_1", "h_2", "z_1", "z_2", "p_1", "p_2", "one")
    pts = [F(q, 720) for q in range(721)] + [F(9, 26)]
    for tie in ("average", "first"):
        assert all(c([x], tie=tie) == net.evaluate([x]) for x in pts)
    assert compile_maxout(net, [[0, 1]]).S == F(11, 2)
    bad = compile_maxout(net, [[0, 1]], S="3/2")
    assert not bad.S_sufficient
    assert bad([0]) == bad([0], tie="first") == (F(2, 3),)


def _random_net(seed, d, k, widths, readout):
    rng = random.Random(seed)
    num = lambda: F(rng.randint(-8, 8), rng.randint(1, 4))
    layers, prev = [], d
    for N in widths:
        layers.append(([[[num() for _ in range(prev)] for _ in range(k)] for _ in range(N)],
                       [[num() for _ in range(k)] for _ in range(N)]))
        prev = N
    ro = ([[num() for _ in range(prev)]], [num()]) if readout else None
    return MaxoutNetwork(layers, ro)


@given(seed=st.integers(0, 10 ** 6), d=st.integers(1, 3), k=st.integers(1, 3),
       widths=st.lists(st.integers(1, 3), min_size=1, max_size=3), readout=st.booleans(),
       xs=st.lists(st.lists(st.integers(-12, 12), min_size=3, max_size=3), min_size=1, max_size=4))
def test_compiled_equals_network_at_random_points(seed, d, k, widths, readout, xs):
    net = _random_net(seed, d, k, widths, readout)
    c = compile_maxout(net, [[-1, 1]] * d)
    for raw in xs:
        x = [F(v, 12) for v in raw[:d]]
        want = net.evaluate(x)
        assert c(x, tie="average") == want and c(x, tie="first") == want


@settings(max_examples=12)
@given(seed=st.integers(0, 10 ** 6), delta=st.sampled_from([F(1), F(-1, 2), F(1, 4)]))
def test_altered_weight_never_proved(seed, delta):
    """A compiled Transformer with its last head's output weight changed: wherever the output moves, the exact
    region proof must not say PROVED."""
    from verify.decide.emulation import alter_weight, prove_emulation

    net = _random_net(seed, 1, 2, [2, 1], False)
    c = compile_maxout(net, [[-1, 1]])
    altered = alter_weight(c, len(c.transformer.sublayers) - 1, "W_O", (0, 0), delta)
    moved = any(altered([F(q, 8)]) != net.evaluate([F(q, 8)]) for q in range(-8, 9))
    r = prove_emulation((net, altered), [(-1, 1)], record_regions=False)
    if moved:
        assert r.verdict.value == "refuted"
        w = r.certificate
        x = [F(v) for v in w["x"]]
        assert altered(x, tie=w["tie"]) != net.evaluate(x)


def test_compile_bad_input():
    net = MaxoutNetwork(O2)
    with pytest.raises(InputError, match="^box: expected 1"):
        compile_maxout(net, [[0, 1], [0, 1]])
    with pytest.raises(InputError, match="^S: must be > 0"):
        compile_maxout(net, [[0, 1]], S=0)
    with pytest.raises(InputError, match="^x: expected 1"):
        compile_maxout(net, [[0, 1]])([0, 1])


def test_cpwl_compiler_o8_and_zero_padding():
    f = DCFunction([([1], 0), ([-1], 0)], [([2], -2), ([-2], 2)])
    c = compile_cpwl(f, [[-3, 3]], S=16)
    assert c.transformer.embedding_dim == 7 and c.transformer.ffn_widths == [8] and c.n_tokens == 2
    assert all(c([F(q, 16)], tie=t) == f.evaluate([F(q, 16)]) for q in range(-48, 49) for t in ("average", "first"))
    assert compile_cpwl(f, [[-3, 3]]).S == 8
    g = DCFunction([([1], 0), ([-1], 0), ([2], -3)], [([1], -5)])
    assert compile_cpwl(g, [[-3, 3]])([0]) == (F(5),)
    assert compile_cpwl(g, [[-3, 3]], padding="zero")([0]) == (F(0),)
    h = CPWL1D(-3, 3, [0, 1], [1, 3, -1], -5)
    ch = compile_cpwl(h)
    assert all(ch([F(q, 4)]) == h.evaluate([F(q, 4)]) for q in range(-12, 13))
    with pytest.raises(InputError, match="^padding"):
        compile_cpwl(g, [[-3, 3]], padding="none")
    with pytest.raises(InputError, match="^box"):
        compile_cpwl(g)


def test_token_shift_o5():
    for L in range(1, 6):
        c = scalar_shift_tent(L)
        assert c.hypotheses_hold
        pts = [F(i, 2 ** (L + 1)) for i in range(2 ** (L + 1) + 1)]
        assert all(c([x], tie=t) == tent_network(L).evaluate([x]) for x in pts for t in ("average", "first"))
        assert [d["range"] for d in c.layer_data] == [(F(0), F(1))] + [(F(-1), F(0))] * (L - 1)
        assert all(d["gamma"] == F(1, 2) and d["sup_abs_differences"] == [2] for d in c.layer_data)
    one = scalar_shift_tent(2, Delta=1)
    assert not one.layer_data[1]["disjoint"] and one.layer_data[1]["slabs"] == [(F(0), F(1)), (F(1), F(2))]
    assert one([0]) == (F(-1),)
    assert scalar_shift_tent(2, Delta="1/2")([0]) == (F(-3, 2),)
    assert scalar_shift_tent(1, Delta=1)([0]) == tent_network(1).evaluate([0])   # L = 1 hides the misrouting
    with pytest.raises(InputError, match="^L"):
        scalar_shift_tent(0)
    with pytest.raises(InputError, match="^Delta"):
        scalar_shift_tent(2, Delta=[1])


def test_group_shift():
    gs = GroupShiftHead(M=F(601, 100), C=3, groups=[i // 4 for i in range(12)])
    rng = random.Random(5)
    for _ in range(30):
        z = [F(rng.randint(-12, 12), 4) for _ in range(12)]
        assert gs(z) == gs(z, tie="first") == gs.expected(z)
    bad = GroupShiftHead(M=2, C=1, groups=[0, 0, 1, 1])
    assert bad([-1, -1, 1, 0])[0] == F(-1, 3)
    assert GroupShiftHead(M=2, C=1, groups=[1, 1, 0, 0])([1, 0, -1, -1], tie="first")[2] == F(1)
    with pytest.raises(InputError, match="^groups"):
        GroupShiftHead(M=2, C=1, groups=[0, 2])
