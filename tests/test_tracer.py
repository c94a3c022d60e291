"""The piecewise-affine tracer on the objects' own evaluation code and on stand-ins."""

from fractions import Fraction as F

import pytest

from verify.decide.geometry import box_cell, box_faces
from verify.decide.tracer import (AffineForm, NotPiecewiseLinear, UndecidedComparison, UntraceableCode,
                                    identity_forms, trace)
from verify.objects.maxout import MaxoutNetwork
from verify.arith.context import EXACT

O2 = MaxoutNetwork([([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]),
                    ([[[1, -2], [-1, 1]]], [[0, "1/2"]])])


def _eval_stage(net):
    return lambda x, ops: net.evaluate(x, ops=ops)


def test_affine_form_arithmetic():
    x, y = identity_forms(2)
    f = 2 * x - y / 3 + F(1, 2)
    assert f.at((1, 3)) == F(3, 2)
    assert (0 + f).same_as(f) and (f - f).is_constant() and (f - f) == 0
    assert repr(-x + 1) == "-x1 + 1"
    with pytest.raises(UntraceableCode):
        f < 0
    with pytest.raises(UntraceableCode):
        bool(f)
    with pytest.raises(NotPiecewiseLinear):
        x * y


def test_o2_closed_trace_matches_exact_everywhere():
    cells = trace([_eval_stage(O2)], box_faces([(0, 1)]), closed=True)
    open_cells = sorted((c for c in cells if c.cell.dim == 1), key=lambda c: c.cell.vertices[0][0])
    # the traced cells refine the 4 pieces; breakpoints 5/18, 9/26, 3/4 all appear as cut points
    points = {c.cell.vertices_fraction()[0][0] for c in cells if c.cell.dim == 0}
    assert {F(0), F(5, 18), F(9, 26), F(3, 4), F(1)} <= points
    for c in cells:
        p = c.cell.interior_point()
        xp = [F(int(p[0].numerator), int(p[0].denominator))]
        assert c.value[0].at(p) == O2.evaluate(xp)[0]
    assert sum(c.cell.measure() for c in open_cells) == 1


def test_2d_max_of_three_has_three_cells():
    def f(x, ops):
        return (ops.max([x[0], x[1], -x[0] - x[1]]),)
    cells = trace([f], [box_cell([(-1, 1), (-1, 1)])], closed=False)
    assert sum(c.cell.measure() for c in cells) == 4
    assert len({c.pattern for c in cells}) == 3 <= len(cells)      # cells refine the 3 patterns
    for c in cells:
        p = c.cell.interior_point()
        assert c.value[0].at(p) == max(p[0], p[1], -p[0] - p[1])


def test_product_of_varying_values_is_refused_but_constant_factor_is_fine():
    def bad(x, ops):
        return (ops.mul(x[0], x[0]),)
    with pytest.raises(NotPiecewiseLinear):
        trace([bad], [box_cell([(0, 1)])])

    def ok(x, ops):
        return (ops.mul(x[0], x[0] * 0 + 3),)
    (c,) = trace([ok], [box_cell([(0, 1)])])
    assert c.value[0].same_as(AffineForm((3,), 0))


@pytest.mark.parametrize("use", [lambda f: f == F(1, 2), lambda f: f != 0, lambda f: hash(f), lambda f: bool(f),
                                 lambda f: f in [F(1, 2)], lambda f: {f: 1}, lambda f: abs(f), lambda f: f < 1,
                                 lambda f: f >= f, lambda f: float(f), lambda f: int(f)])
def test_varying_form_refuses_every_pointwise_question(use):
    """issue 11: == / != / hash / bool / in / abs / ordering on a non-constant form are refused (a dedicated
    error), never answered for the whole cell."""
    x, = identity_forms(1)
    with pytest.raises(UndecidedComparison):
        use(2 * x + 1)


def test_constant_forms_still_compare_as_numbers():
    x, = identity_forms(1)
    c = x - x + F(1, 2)
    assert c == F(1, 2) and c != 0 and hash(c) == hash(F(1, 2)) and bool(c) and c < 1 and not c > 1


def test_user_exception_under_tracing_becomes_untraceable():
    def boom(x, ops):
        raise ZeroDivisionError("user bug")
    with pytest.raises(UntraceableCode, match="ZeroDivisionError: user bug"):
        trace([boom], [box_cell([(0, 1)])])


def test_comparison_outside_ops_is_detected():
    def sneaky(x, ops):
        return (x[0] if x[0] > 0 else -x[0],)
    with pytest.raises(UntraceableCode):
        trace([sneaky], [box_cell([(-1, 1)])])


def test_staged_trace_equals_single_stage():
    stages = [lambda h, ops, l=l: O2.layer_apply(l, h, ops) for l in range(O2.depth)]
    a = trace(stages, [box_cell([(0, 1)])], closed=False)
    b = trace([_eval_stage(O2)], [box_cell([(0, 1)])], closed=False)
    key = lambda c: c.cell.vertices[0][0]
    assert [(c.cell.vertices, [f.to_fractions() for f in c.value]) for c in sorted(a, key=key)] == \
           [(c.cell.vertices, [f.to_fractions() for f in c.value]) for c in sorted(b, key=key)]


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=10)
@given(st.integers(0, 10**6), st.integers(1, 2))
def test_traced_maps_equal_exact_evaluation_on_every_cell(seed, d):
    """Closed cover of a random network: every cell's traced map equals exact evaluation at its
    vertex average and at its vertices (also on edges and corners)."""
    from verify.constructions.reference_networks import random_maxout

    net = random_maxout(seed, d, 2 + seed % 2, 2, 2)
    box = [(-1, 1)] * d
    cells = trace([_eval_stage(net)], box_faces(box), closed=True)
    area = 0
    for c in cells:
        pts = [c.cell.interior_point()] + list(c.cell.vertices)
        for p in pts:
            xp = [F(int(v.numerator), int(v.denominator)) for v in p]
            assert tuple(f.at(p) for f in c.value) == net.evaluate(xp)
        if c.cell.dim == d:
            area += c.cell.measure()
    assert area == 2 ** d
