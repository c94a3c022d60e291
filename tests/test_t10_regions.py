"""T10 checks: families, depth tables, the negative cases and bad input."""

from fractions import Fraction as F

import pytest

from verify.analysis.regions import count_regions, prefix_counts_1d
from verify.checks.t10_linear_regions import (check_depth_bound_table, check_grid_method, check_region_count,
                                              check_shallow_family, check_universal_reading, grid_piece_count,
                                              zigzag_network)
from verify.checks.t6_maxout_emulation import o2_network
from verify.errors import InputError


def test_zigzag_closed_form_counts_and_ratio():
    for q in (2, 3, 4):
        net = zigzag_network(q, 3)
        counts = [p for _, p in prefix_counts_1d(net, 0, 1, readout=net.readout)]
        assert counts == [q, q ** 2, q ** 3]
        assert count_regions(net, [(0, 1)]).count == q ** 3


def test_grid_method_numbers():
    assert grid_piece_count(o2_network(), 0, 1, 720) == 5
    r = check_grid_method("O2", 720)
    assert r.refuted and r.certificate["exact_count"] == 4
    assert F(9, 26) in r.certificate["breakpoints"]


def test_negative_cases_are_refuted_with_numbers():
    r = check_universal_reading(L=4)
    assert r.refuted and r.certificate["count"] == 1 and r.certificate["D"] == 8 and r.certificate["bound"] == 2
    r = check_shallow_family(L=3)
    assert r.refuted and r.certificate["count"] == 7 < 8


def test_depth_table_rows():
    r = check_depth_bound_table("tent", 2, D_max=12, c=3)
    assert r.proved
    assert [(row["D"], row["L"], row["count"], row["bound"]) for row in r.certificate["table"]][:4] == \
           [(3, 1, 2, 1), (4, 1, 2, 1), (5, 1, 2, 1), (6, 2, 4, 2)]


def test_region_count_expected_mismatch_is_refuted():
    spec = o2_network().to_dict()
    assert check_region_count(spec, [["0", "1"]], "pieces", 4).proved
    assert check_region_count(spec, [["0", "1"]], "pieces", 5).refuted


def test_bad_input():
    with pytest.raises(InputError, match="^D_max"):
        check_depth_bound_table("tent", 2, D_max=100, c=2)
    with pytest.raises(InputError, match="^family"):
        check_depth_bound_table("sawtooth")
    with pytest.raises(InputError, match="^q"):
        zigzag_network(1, 2)
