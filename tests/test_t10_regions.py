"""T10 checks: families, depth tables, the negative cases and bad input."""

from fractions import Fraction as F

import pytest

from verify.decide.regions import count_regions, prefix_counts_1d
from verify.checks.t10_linear_regions import (check_depth_bound_table, check_zigzag_counts, check_grid_method, check_region_count,
                                              check_shallow_family, check_universal_reading, grid_piece_count,
                                              zigzag_network)
from verify.constructions.reference_networks import o2_network
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
    assert r.refuted and r.evidence["exact_count"] == 4 and r.certificate["kind"] == "regions-grid-miss"
    assert F(9, 26) in r.evidence["breakpoints"]


def test_negative_cases_are_refuted_with_numbers():
    r = check_universal_reading(L=4)
    assert r.refuted and r.certificate == {"kind": "regions-universal-miss", "breakpoints": {"grid": 1}}
    assert r.evidence["compiled_transformer"]["D"] == 8 and r.evidence["compiled_transformer"]["pieces"] == 1
    r = check_shallow_family(L=3)
    assert r.refuted and r.parameters == {"N": 6, "target": 8} and r.evidence["best_instance_pieces"] == 7
    assert check_shallow_family(L=2).verdict.value == "inconclusive"        # 1 + 4 >= 2^2: no refutation


def test_depth_table_rows():
    r = check_depth_bound_table("tent", 2, D_max=12, c=3)
    assert r.proved
    assert [(row["D"], row["L"], row["count"], row["bound"]) for row in r.evidence["table"]][:4] == \
           [(3, 1, 2, 1), (4, 1, 2, 1), (5, 1, 2, 1), (6, 2, 4, 2)]


def test_region_count_expected_mismatch_is_refuted():
    spec = o2_network().to_dict()
    assert check_region_count(spec, [["0", "1"]], "pieces", 4).proved
    r = check_region_count(spec, [["0", "1"]], "pieces", 5)
    assert r.refuted and r.certificate == {"kind": "regions-miscount",
                                           "breakpoints": ["0", "5/18", "9/26", "3/4", "1"]}
    assert check_region_count(spec, [["0", "1"]], "activation").parameters["count"] == 4


def test_every_decided_result_is_rechecked_by_the_kernel():
    import json

    from verify import kernel

    for r in (check_grid_method("O2", 720), check_universal_reading(L=3), check_shallow_family(L=4),
              check_depth_bound_table("identical-pieces", 2, D_max=9, c=3)):
        assert kernel.check(json.loads(r.to_json()))


def test_bad_input():
    with pytest.raises(InputError, match="^D_max"):
        check_depth_bound_table("tent", 2, D_max=100, c=2)
    with pytest.raises(InputError, match="^family"):
        check_depth_bound_table("sawtooth")
    with pytest.raises(InputError, match="^q"):
        zigzag_network(1, 2)


def test_large_tables_are_narrowed_to_the_certified_rows():
    r = check_zigzag_counts(q=4, L_max=8, compiled_L_max=0)
    assert r.proved and r.parameters["L_max"] == 6 and "L = 1..6" in r.statement
    assert r.evidence["uncertified_rows"].startswith("L = 7..8")
    assert r.evidence["counts_L_1_to_L_max"]["8"] == 4 ** 8


@pytest.mark.slow
def test_too_large_counts_are_inconclusive_not_uncertified():
    from verify.constructions.token_shift import tent_network

    r = check_region_count(tent_network(16), [["0", "1"]], "pieces")
    assert r.verdict.value == "inconclusive" and "not certified" in r.evidence["summary"]
    assert r.evidence["pieces"] == 2 ** 16
