"""T4: exact ranges per layer, collision witnesses from the Transformer's own token states, bad input."""

from fractions import Fraction as F

import pytest

from verify.checks.t4_token_shift import check_token_shift, entering_ranges
from verify.constructions.token_shift import tent_network
from verify.errors import InputError


def test_exact_ranges_of_the_tent():
    rng = entering_ranges(tent_network(4), 0, 1)
    assert [r["range"] for r in rng] == [(0, 1), (-1, 0), (-1, 0), (-1, 0)]


def test_delta_one_collision_is_the_catalogue_one():
    r = check_token_shift(L=2, Delta=1, M=4)
    layer2 = r.certificate["layers"][1]
    col = layer2["collision"]
    assert r.refuted and not layer2["disjoint"]
    assert col["tokens"] == [1, 2] and col["x"] == [0, F(1, 2)] and col["shifted_state"] == 1
    assert r.certificate["output_at_0"]["transformer"] == -1


def test_half_shift_output():
    assert check_token_shift(L=2, Delta="1/2", M=4).certificate["output_at_0"]["transformer"] == F(-3, 2)


def test_passing_case_records_margins_and_pieces():
    r = check_token_shift(L=4, Delta=2, M=4)
    assert r.proved and r.certificate["pieces"] == 16
    assert all(row["gamma"] == F(1, 2) and row["M_gamma"] == 2 for row in r.certificate["layers"])


def test_never_proved_when_broken():
    for delta in ("1", "3/2", "1/2", "1/10"):
        assert not check_token_shift(L=3, Delta=delta, M=4).proved


def test_bad_input():
    with pytest.raises(InputError, match="^L"):
        check_token_shift(L=0)
    with pytest.raises(InputError, match="^Delta"):
        check_token_shift(L=2, Delta=-1)
    with pytest.raises(InputError, match="^ranges"):
        check_token_shift(L=2, ranges="sampled")
