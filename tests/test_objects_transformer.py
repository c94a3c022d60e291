"""Transformer objects: exact hardmax, rigorous softmax, sizes, printing, bad input."""

from fractions import Fraction as F

import mpmath
import pytest
from flint import arb

from verify.arith.ball import ball_bounds
from verify.errors import InputError, InputTypeError
from verify.objects.transformer import Attention, FeedForward, Head, Transformer, format_matrix

O1_HEAD = Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])


def o1():
    return Transformer([Attention([O1_HEAD])], coordinate_names=["z", "one", "out"])


@pytest.mark.parametrize("tie", ["average", "first"])
def test_o1_grid_exact(tie):
    T = o1()
    vals = [F(k, 3) for k in range(-6, 7)]
    for a in vals:
        for b in vals:
            Y = T.evaluate([[a, b], [1, 1], [0, 0]], tie=tie)
            assert Y == ((a, b), (F(1), F(1)), (max(a, b), max(a, b)))
            assert all(isinstance(v, F) for row in Y for v in row)


def test_tie_rules_differ_when_value_ne_score():
    T = Transformer([Attention([Head([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[0, 1, 0, 0]], [[0], [0], [0], [1]])])])
    X = [[1, 1], [0, 2], [1, 1], [0, 0]]
    assert T.evaluate(X, tie="average")[3] == (F(1), F(1))
    assert T.evaluate(X, tie="first")[3] == (F(0), F(0))


def test_softmax_arb_encloses_closed_form_and_mpmath():
    T = o1()
    a, b, lam = F(1, 3), F(-1, 2), F(10)
    Y = T.evaluate([[a, b], [1, 1], [0, 0]], "softmax", scale=lam, precision=200)
    lo, hi = ball_bounds(Y[2][0])
    assert hi - lo < F(1, 10 ** 50)
    with mpmath.workdps(60):
        ea, eb = mpmath.exp(lam * mpmath.mpf(1) / 3), mpmath.exp(-lam * mpmath.mpf(1) / 2)
        ref = (mpmath.mpf(1) / 3 * ea - mpmath.mpf(1) / 2 * eb) / (ea + eb)
        assert lo <= F(str(mpmath.nstr(ref, 55))) + F(1, 10 ** 50) and F(str(mpmath.nstr(ref, 55))) - F(1, 10 ** 50) <= hi
    Ym = T.evaluate([[a, b], [1, 1], [0, 0]], "softmax", scale=lam, backend="mpmath", dps=50)
    assert isinstance(Ym[2][0], mpmath.mpf) and abs(Ym[2][0] - ref) < mpmath.mpf(10) ** -45
    # arb inputs pass through
    Ya = T.evaluate([[arb(1) / 3, arb(-1) / 2], [1, 1], [0, 0]], "softmax", scale=10)
    assert Ya[2][0].overlaps(Y[2][0])


def test_ffn_and_sizes():
    ffn = FeedForward([[1, 0], [-1, 0]], [0, 0], [[-1, 1], [1, 1]], ["1/2", 0])
    T = Transformer([ffn, Attention([Head([[0, 1]], [[1, 0]], [[1, 0]], [[0], [1]])])], coordinate_names=["u", "v"])
    Y = T.evaluate([[-2, 3], [0, 0]])
    assert Y[0] == (F(-2) - 0 + 2 + F(1, 2), F(3) - 3 + F(1, 2))
    assert T.embedding_dim == 2 and T.n_sublayers == 2 and T.heads_per_attention == [1] and T.ffn_widths == [2]
    assert T.parameter_count() == (2 * 2 * 2 + 2 + 2) + 4 * 1 * 2
    assert T.parameter_count(nonzero=True) == 2 + 0 + 4 + 1 + 4
    kinds = T.nonzero_counts()
    assert kinds[0]["W1"] == 2 and kinds[0]["W2"] == 4 and kinds[1]["attention"] == 4
    assert T.maxout_layers(c=2) == 1 and T.maxout_layers(c=3) == 0


def test_printing():
    T = o1()
    text = T.describe()
    assert "query [one]  key [z]  value [z]  -> out (1)" in text
    assert "W_Q" in T.describe(dense=True)
    assert T._repr_latex_().startswith("$$")
    assert format_matrix([[1, 0]], ["r"], ["a", "b"]).splitlines()[1].strip() == "r 1"


@pytest.mark.parametrize("build,field", [
    (lambda: Head([[1, 0]], [[1]], [[1, 0]], [[0], [1]]), "W_K[0]"),
    (lambda: Head([[0.5, 0]], [[1, 0]], [[1, 0]], [[0], [1]]), "W_Q[0][0]"),
    (lambda: Transformer([]), "sublayers"),
    (lambda: Attention([]), "heads"),
    (lambda: FeedForward([[1, 0]], None, [[1]], None), "W2"),
    (lambda: Transformer([Attention([O1_HEAD])], coordinate_names=["a"]), "coordinate_names"),
])
def test_bad_construction(build, field):
    with pytest.raises((InputError, InputTypeError)) as info:
        build()
    assert str(info.value).startswith(field + ":")


def test_bad_evaluation_input():
    T = o1()
    with pytest.raises(InputError, match="^X: expected 3 rows"):
        T.evaluate([[1, 2], [1, 1]])
    with pytest.raises(InputError, match=r"^X\[1\]: expected 2 tokens"):
        T.evaluate([[1, 2], [1], [0, 0]])
    with pytest.raises(InputTypeError, match=r"^X\[0\]\[0\]"):
        T.evaluate([[0.1, 2], [1, 1], [0, 0]])
    with pytest.raises(InputError, match="^tie"):
        T.evaluate([[1, 2], [1, 1], [0, 0]], tie="random")
    with pytest.raises(InputError, match="^scale"):
        T.evaluate([[1, 2], [1, 1], [0, 0]], "softmax")
    with pytest.raises(InputError, match="^scale"):
        T.evaluate([[1, 2], [1, 1], [0, 0]], "softmax", scale=-1)
    with pytest.raises(InputError, match="^backend"):
        T.evaluate([[1, 2], [1, 1], [0, 0]], "softmax", scale=1, backend="numpy")
    with pytest.raises(InputError, match="^X"):
        T.evaluate([[0] * 1000, [1] * 1000, [0] * 1000])
