"""Exact cells: splitting, areas, membership, box faces (no epsilons)."""

from fractions import Fraction as F

import pytest
from hypothesis import given

from verify.arith.exact import parse_box
from verify.decide.geometry import Cell, box_cell, box_faces, segment_overlap
from verify.errors import InputError
from verify.strategies import rationals


def test_square_split_areas_and_cut():
    sq = box_cell([(0, 1), (0, 1)])
    pos, neg, cut = sq.split((1, -2), F(1, 3))           # x - 2y + 1/3
    assert pos.measure() + neg.measure() == 1
    assert cut.dim == 1
    for v in cut.vertices:
        assert v[0] - 2 * v[1] + F(1, 3) == 0
    assert pos.signed_area() > 0 and neg.signed_area() > 0       # orientation kept


def test_split_through_a_vertex_and_no_sign_change():
    sq = box_cell([(0, 1), (0, 1)])
    pos, neg, cut = sq.split((1, -1), 0)                 # diagonal through two corners
    assert pos.measure() == neg.measure() == F(1, 2)
    assert sorted(cut.vertices_fraction()) == [(0, 0), (1, 1)]
    assert sq.sign((1, 1), 0) == 1                      # x + y >= 0, > 0 in the interior
    assert sq.sign((0, 0), 0) == 0
    with pytest.raises(ValueError):
        sq.split((1, 1), 0)


def test_interval_and_segment_split():
    iv = box_cell([(F(-1), F(2))])
    pos, neg, cut = iv.split((1,), 0)
    assert (pos.measure(), neg.measure(), cut.vertices_fraction()) == (2, 1, [(0,)])
    seg = Cell([(0, 0), (2, 2)])
    a, b, c = seg.split((1, 0), -1)
    assert c.vertices_fraction() == [(1, 1)]
    assert seg.contains_point((1, 1)) and not seg.contains_point((0, 0))


def test_box_faces_partition_counts():
    assert [c.dim for c in box_faces([(0, 1), (0, 2)])] == [2, 1, 1, 1, 1, 0, 0, 0, 0]
    assert [c.dim for c in box_faces([(0, 1)])] == [1, 0, 0]
    assert [c.dim for c in box_faces([(1, 1), (0, 2)])] == [1, 0, 0]
    assert [c.dim for c in box_faces([(1, 1)])] == [0]


def test_parse_box_errors():
    assert parse_box([["0", "1/2"]], max_dim=2, degenerate=True) == ((0, F(1, 2)),)
    assert parse_box([["1/2", "1/2"]], max_dim=2, degenerate=True) == ((F(1, 2), F(1, 2)),)
    with pytest.raises(InputError, match=r"box\[0\]"):
        parse_box([[1, 0]], max_dim=2, degenerate=True)
    with pytest.raises(InputError, match=r"box\[0\]: lower end 1/2 must be < upper end 1/2"):
        parse_box([["1/2", "1/2"]], max_dim=2)
    with pytest.raises(InputError, match="dimension"):
        parse_box([[0, 1]] * 3, max_dim=2, degenerate=True)
    with pytest.raises(InputError):
        box_cell([(0, 0)])


def test_segment_overlap():
    assert segment_overlap(((0, 0), (2, 0)), ((1, 0), (3, 0)))
    assert not segment_overlap(((0, 0), (1, 0)), ((1, 0), (3, 0)))     # touch at a point
    assert not segment_overlap(((0, 0), (1, 0)), ((0, 1), (1, 1)))


coef = rationals(-3, 3, max_denominator=5)


@given(coef, coef, coef, coef, coef, coef)
def test_two_cuts_tile_the_square(a, b, c, p, q, r):
    """Areas of the open parts always sum to the square's area; interior points are inside."""
    cells = [box_cell([(0, 1), (0, 1)])]
    for lin, const in (((a, b), c), ((p, q), r)):
        new = []
        for cell in cells:
            if cell.sign(lin, const) is None:
                pos, neg, _ = cell.split(lin, const)
                new += [pos, neg]
            else:
                new.append(cell)
        cells = new
    assert sum(cell.measure() for cell in cells) == 1
    for cell in cells:
        assert cell.contains_point(cell.interior_point())
