"""The residual Layout (verify/objects/layout.py): blocks, slicing, rows, the read/write check of sublayers,
the compilers' layouts and the block-labelled displays."""

from fractions import Fraction as F

import pytest

from verify.constructions.cpwl_compiler import compile_cpwl, cpwl_layout
from verify.constructions.group_shift import GroupShiftHead, group_layout
from verify.constructions.maxout_compiler import compile_maxout, maxout_layout
from verify.constructions.token_shift import LAYOUT as SHIFT_LAYOUT, scalar_shift_tent
from verify.errors import InputError, InputTypeError
from verify.objects.cpwl import CPWL1D, DCFunction
from verify.objects.layout import Layout, check_sublayer, check_transformer
from verify.objects.maxout import MaxoutNetwork
from verify.objects.transformer import Attention, FeedForward, Head, Transformer

O2 = [([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]), ([[[1, -2], [-1, 1]]], [[0, "1/2"]])]
L4 = Layout([("h", 2), ("z", 2), ("p", 2), "one"])


# -- the layout itself ------------------------------------------------------------------------------

def test_blocks_slices_and_indices():
    assert L4.dim == 7 and L4.names() == ("h", "z", "p", "one") and L4.widths() == (2, 2, 2, 1)
    assert L4.slice("h") == slice(0, 2) and L4.slice("z") == slice(2, 4) and L4.slice("p") == slice(4, 6)
    assert L4.slice("one") == slice(6, 7) and list(L4.coords("p")) == [4, 5]
    assert [L4.index("z", i) for i in range(2)] == [2, 3] and L4.index("one") == 6 == L4.index("one", 0)
    assert [L4.block_of(e) for e in range(7)] == ["h", "h", "z", "z", "p", "p", "one"]
    rows = tuple(range(7))
    assert rows[L4.slice("z")] == (2, 3)
    assert "z" in L4 and "x" not in L4


def test_labels_vector_and_scalar_blocks():
    assert L4.labels() == ("h_1", "h_2", "z_1", "z_2", "p_1", "p_2", "one")
    assert Layout([("h", 1), "z"]).labels() == ("h_1", "z")          # a width-1 vector block keeps its index
    assert L4.label(3) == "z_2" and L4.describe() == "h_1..h_2 | z_1..z_2 | p_1..p_2 | one"
    assert repr(L4) == "Layout(h:2, z:2, p:2, one)"


def test_equality_and_hash():
    same = Layout([["h", 2], ["z", 2], ("p", 2), "one"])
    assert same == L4 and hash(same) == hash(L4)
    assert Layout([("h", 2), ("z", 2), ("p", 3), "one"]) != L4
    assert Layout([("z", 2), ("h", 2), ("p", 2), "one"]) != L4           # order matters
    assert Layout(["one"]) != Layout([("one", 1)])                       # scalar vs vector block (labels differ)
    assert L4 != L4.labels()


def test_rows_units_and_stack():
    assert L4.row({("h", 1): 5, ("p", 0): F(1, 2), "one": -1}) == [0, 5, 0, 0, F(1, 2), 0, -1]
    assert L4.unit("z", 1) == [0, 0, 0, 1, 0, 0, 0] and L4.unit("one", value=-2) == [0] * 6 + [-2]
    X = L4.stack({"one": [(1, 1)], "p": [(1, 0), (0, 1)], "z": [(0, 0)] * 2, "h": [(3, 3), (0, 0)]})
    assert X == ((3, 3), (0, 0), (0, 0), (0, 0), (1, 0), (0, 1), (1, 1))
    with pytest.raises(InputError, match="missing one"):
        L4.stack({"h": [(0,)] * 2, "z": [(0,)] * 2, "p": [(0,)] * 2})
    with pytest.raises(InputError, match=r"parts\['p'\]: expected 2 rows"):
        L4.stack({"h": [(0,)] * 2, "z": [(0,)] * 2, "p": [(0,)], "one": [(1,)]})


@pytest.mark.parametrize("call,match", [
    (lambda: L4.index("q", 0), "unknown block 'q'"),
    (lambda: L4.index("h", 2), r"coordinates 0\.\.1"),
    (lambda: L4.index("h"), "width 2: give the coordinate index"),
    (lambda: L4.block_of(7), r"\[0, 6\]"),
    (lambda: L4.slice("x"), "unknown block"),
    (lambda: Layout([("h", 0)]), "width of block 'h'"),
    (lambda: Layout([("h", 2), "h"]), "appears twice"),
    (lambda: Layout([("h", 2), "h_1"]), "same label"),
    (lambda: Layout([]), "non-empty"),
    (lambda: Layout([("h", 2, 3)]), "name or"),
])
def test_bad_layouts_and_lookups(call, match):
    with pytest.raises((InputError, InputTypeError), match=match):
        call()


# -- the read/write check ---------------------------------------------------------------------------

def _o1(layout, W_O=None, **access):
    W_O = W_O if W_O is not None else [[v] for v in layout.unit("out")]
    return Head([layout.unit("one")], [layout.unit("z")], [layout.unit("z")], W_O, **access)


O1_LAYOUT = Layout(["z", "one", "out"])
O1_ACCESS = {"reads": {"query": ["one"], "key": ["z"], "value": ["z"]}, "writes": ["out"]}


def test_declared_head_passes_and_labels_come_from_the_layout():
    T = Transformer([Attention([_o1(O1_LAYOUT, **O1_ACCESS)])], layout=O1_LAYOUT)
    assert T.layout == O1_LAYOUT and T.coordinate_names == ("z", "one", "out")
    assert T.evaluate([[1, "5/2"], [1, 1], [0, 0]])[2] == (F(5, 2), F(5, 2))
    check_transformer(T)
    T.check_layout()
    sub = T.sublayers[0]
    assert sub.reads == {"z", "one"} and sub.writes == {"out"}


def test_head_writing_outside_its_block_is_refused():
    bad = _o1(O1_LAYOUT, W_O=[[1], [0], [0]], **O1_ACCESS)            # writes z, declares out
    with pytest.raises(InputError, match=r"sublayers\[0\]\.heads\[0\]\.W_O\[0\]\[0\]: writes coordinate z of "
                                         r"block 'z', outside its declared write blocks \{out\}"):
        Transformer([Attention([bad])], layout=O1_LAYOUT)
    Transformer([Attention([bad])], coordinate_names=["z", "one", "out"])    # no layout: nothing is checked


def test_head_reading_outside_its_role_is_refused():
    head = _o1(O1_LAYOUT, reads={"query": ["one"], "key": ["one"], "value": ["z"]}, writes=["out"])
    with pytest.raises(InputError, match=r"heads\[0\]\.W_K\[0\]\[0\]: reads coordinate z of block 'z', outside "
                                         r"its declared key blocks \{one\}"):
        check_sublayer(O1_LAYOUT, Attention([head]), "sublayers[0]")
    head = _o1(O1_LAYOUT, reads={"query": ["one"], "value": ["z"]}, writes=["out"])   # key reads nothing
    with pytest.raises(InputError, match="outside its declared key blocks no block"):
        check_sublayer(O1_LAYOUT, Attention([head]))


def test_ffn_reads_writes_and_b2_are_checked():
    L = Layout([("x", 2), "one", "out"])
    ok = FeedForward([L.row({("x", 0): 1, "one": -1})], None, [[0], [0], [0], [1]], None,
                     reads=["x", "one"], writes=["out"])
    Transformer([ok], layout=L)
    reads_out = FeedForward([L.row({"out": 1})], None, [[0], [0], [0], [1]], None, reads=["x"], writes=["out"])
    with pytest.raises(InputError, match=r"sublayers\[0\]\.W1\[0\]\[3\]: reads coordinate out of block 'out', "
                                         r"outside its declared read blocks \{x\}"):
        Transformer([reads_out], layout=L)
    writes_x = FeedForward([L.unit("one")], None, [[0], [2], [0], [0]], None, reads=["one"], writes=["out"])
    with pytest.raises(InputError, match=r"W2\[1\]\[0\]: writes coordinate x_2 of block 'x'"):
        Transformer([writes_x], layout=L)
    b2_x = FeedForward([L.unit("one")], None, [[0], [0], [0], [1]], [1, 0, 0, 0], reads=["one"], writes=["out"])
    with pytest.raises(InputError, match=r"sublayers\[0\]\.b2\[0\]: writes coordinate x_1 of block 'x'"):
        Transformer([b2_x], layout=L)
    biased = FeedForward([L.unit("one")], [5], [[0], [0], [0], [1]], [0, 0, 0, 1], reads=["one"], writes=["out"])
    Transformer([biased], layout=L)                                  # b1 is on the hidden units: not checked


def test_undeclared_or_unknown_blocks_are_refused():
    L = Layout(["a", "b"])
    undeclared = FeedForward([[1, 0]], None, [[0], [1]], None)
    with pytest.raises(InputError, match=r"sublayers\[0\]: declares no read/write blocks"):
        Transformer([undeclared], layout=L)
    unknown = FeedForward([[1, 0]], None, [[0], [1]], None, reads=["a", "c"], writes=["b"])
    with pytest.raises(InputError, match=r"sublayers\[0\]\.reads: declares unknown block 'c'"):
        Transformer([unknown], layout=L)
    with pytest.raises(InputError, match="layout: has 3 coordinates, the sublayers 2"):
        Transformer([FeedForward([[1, 0]], None, [[0], [1]], None, reads=["a"], writes=["b"])],
                    layout=Layout(["a", "b", "c"]))
    with pytest.raises(InputError, match="coordinate_names: differ from the layout's labels"):
        Transformer([FeedForward([[1, 0]], None, [[0], [1]], None, reads=["a"], writes=["b"])],
                    coordinate_names=["b", "a"], layout=L)
    with pytest.raises(InputError, match="roles are query, key, value"):
        Head([[1, 0]], [[1, 0]], [[1, 0]], [[0], [1]], reads={"keys": ["a"]})
    with pytest.raises(InputError, match="no layout"):
        check_transformer(Transformer([undeclared]))


# -- the compilers ----------------------------------------------------------------------------------

def _all_checked(T, layout):
    assert T.layout == layout and T.coordinate_names == layout.labels()
    check_transformer(T)
    for sub in T.sublayers:
        assert sub.reads is not None and sub.writes is not None


def test_maxout_compiler_layout_and_declarations():
    net = MaxoutNetwork(O2)
    c = compile_maxout(net, [[0, 1]], S=40)
    _all_checked(c.transformer, maxout_layout(2, 2))
    assert c.layout == Layout([("h", 2), ("z", 2), ("p", 2), "one"]) == c.transformer.layout
    ffn, att = c.transformer.sublayers[:2]
    assert ffn.reads == {"h", "z", "p", "one"} and ffn.writes == {"h", "z"}
    assert att.heads[0].reads == {"query": {"one"}, "key": {"z"}, "value": {"z"}} and att.writes == {"h"}
    X = c.embed(["1/3"])
    assert X[c.layout.slice("h")] == ((F(1, 3),) * 2, (0, 0)) and X[c.layout.slice("p")] == ((1, 0), (0, 1))


def test_other_compilers_layouts():
    f = DCFunction([([1], 0), ([-1], 0)], [([2], -2), ([-2], 2)])
    c = compile_cpwl(f, [[-3, 3]], S=16)
    _all_checked(c.transformer, cpwl_layout(1, 2))
    assert c.transformer.coordinate_names == ("x_1", "z_1", "z_2", "p_1", "p_2", "one", "out")
    assert c.transformer.sublayers[1].writes == {"out"}
    _all_checked(compile_cpwl(CPWL1D(0, 3, [1, 2], [1, -2, 3], 1)).transformer, cpwl_layout(1, 2))
    s = scalar_shift_tent(3)
    _all_checked(s.transformer, SHIFT_LAYOUT)
    assert s.coordinate_names == ("h", "z", "pi", "one") and s.layout == Layout(["h", "z", "pi", "one"])
    g = GroupShiftHead(M=3, C=1, groups=[0, 1, 2, 0])
    _all_checked(g.transformer, group_layout(3))
    assert g.coordinate_names == ("g_1", "g_2", "g_3", "z", "one", "out")


def test_tampered_compiled_weights_are_refused_by_the_check():
    c = compile_maxout(MaxoutNetwork(O2), [[0, 1]], S=40)
    ffn = c.transformer.sublayers[0]
    W2 = [list(r) for r in ffn.W2]
    W2[c.layout.index("p", 0)][0] = 1                     # the gate also writes the position code
    bad = FeedForward(ffn.W1, ffn.b1, W2, ffn.b2, reads=ffn.reads, writes=ffn.writes)
    with pytest.raises(InputError, match=r"sublayers\[0\]\.W2\[4\]\[0\]: writes coordinate p_1 of block 'p'"):
        Transformer([bad] + list(c.transformer.sublayers[1:]), layout=c.layout)


# -- displays ---------------------------------------------------------------------------------------

def test_displays_label_coordinates_by_block():
    c = compile_maxout(MaxoutNetwork([([[[1], [-1]]], [[0, 0]])]), [[-1, 1]])
    T = c.transformer
    text = T.describe()
    assert "layout Layout(h:1, z:1, p:2, one): h_1 | z_1 | p_1..p_2 | one" in text
    assert "[0] FFN width 8 (reads h, z, p, one; writes h, z)" in text
    assert "[1] Attention, 1 head(s) (reads z, one; writes h)" in text
    assert "query [one]  key [z_1]  value [z_1]  -> h_1 (1)" in text
    dense = T.describe(dense=True)
    assert "   h_1 | z_1 | p_1 p_2 | one |  b1" in dense and "r1   1 |     |   1     |  -1 |" in dense
    tex = T._repr_latex_()
    assert "\\begin{array}{r|c|c|cc|c|c}" in tex and "\\text{[1] head 1 (reads z, one; writes h): }" in tex
    assert "\\text{[0] FFN (reads h, z, p, one; writes h, z): }" in tex
    plain = Transformer(list(T.sublayers), coordinate_names=list(T.coordinate_names))    # no layout: as before
    assert "layout" not in plain.describe() and "reads" not in plain.describe()
    assert "\\begin{array}{r|cccccc}" in plain._repr_latex_()


def test_layout_is_immutable_and_pickles():
    import copy
    import pickle

    with pytest.raises(AttributeError):
        L4.dim = 3
    assert pickle.loads(pickle.dumps(L4)) == L4 and copy.deepcopy(L4) == L4
    c = compile_maxout(MaxoutNetwork(O2), [[0, 1]], S=40)
    T = pickle.loads(pickle.dumps(c.transformer))
    assert T.layout == c.layout and T.sublayers[0].reads == {"h", "z", "p", "one"}
