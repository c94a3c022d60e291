"""T4: exact ranges per layer, collision witnesses from the Transformer's own token states, bad input."""

from fractions import Fraction as F

import pytest

from verify.checks.t4_token_shift import check_token_shift, entering_ranges
from verify.constructions.token_shift import tent_network
from verify.errors import InputError


def test_exact_ranges_of_the_tent():
    rng = entering_ranges(tent_network(4), 0, 1)
    assert [r["range"] for r in rng] == [(0, 1), (-1, 0), (-1, 0), (-1, 0)]


@pytest.mark.slow
def test_delta_one_collision_witness():
    r = check_token_shift(L=2, Delta=1, M=4)
    layer2 = r.evidence["layers"][1]
    assert r.refuted and not layer2["disjoint"] and not r.evidence["layers"][0]["disjoint"]
    # the first failing layer is layer 1: token 1 at x = 1 and token 2 at x = 0 share the state 2
    assert r.certificate == {"kind": "token-shift-witness", "layer": 1, "collision": {"tokens": [1, 2], "x": ["1", "0"]}}
    assert r.evidence["output_at_0"]["transformer"] == -1


def test_half_shift_output():
    assert check_token_shift(L=2, Delta="1/2", M=4).evidence["output_at_0"]["transformer"] == F(-3, 2)


def test_gate_failure_witness():
    r = check_token_shift(L=3, Delta=2, M=3)
    assert r.refuted and r.certificate == {"kind": "token-shift-witness", "layer": 1,
                                           "gate": {"u": "1", "v": "0", "x": "0"}}


def test_passing_case_records_margins_and_pieces():
    r = check_token_shift(L=4, Delta=2, M=4)
    assert r.proved and r.evidence["pieces"] == 16 and r.certificate == {"kind": "token-shift",
                                                                         "breakpoints": {"grid": 16}}
    assert "sha256:" in r.statement and r.parameters["transformer"]["tokens"] == 2
    assert all(row["gamma"] == F(1, 2) and row["M_gamma"] == 2 for row in r.evidence["layers"])


def test_every_decided_result_is_rechecked_by_the_kernel():
    import json

    from verify import kernel

    for kw in ({"L": 3}, {"L": 2, "Delta": "1/2"}, {"L": 3, "Delta": 10, "ranges": "interval"}):
        assert kernel.check(json.loads(check_token_shift(**kw).to_json()))
    assert check_token_shift(L=3, ranges="interval").verdict.value == "inconclusive"
    assert check_token_shift(L=2, prove_equal=False).verdict.value == "inconclusive"


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
