"""T8 check: ReLU -> Transformer proved; broken compilations never PROVED."""

import pytest

import json

from verify import kernel
from verify.checks.t8_relu_emulation import (ReLUNetwork, check_random_relu_emulation, check_relu_emulation,
                                             check_relu_identities, check_shared_head, zigzag_relu)
from verify.errors import InputError


def _k(r):
    return kernel.check(json.loads(r.to_json()))


@pytest.mark.slow
def test_abs_network_and_sizes():
    r = check_relu_emulation([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]), box=[[-1, 1]])
    assert r.proved and r.parameters["formula"] == "R4"
    sizes = r.parameters["sizes"]
    assert (sizes["tokens"], sizes["embedding"], sizes["heads"], sizes["ffn_widths"], sizes["sublayers"]) == \
        (2, 7, [2], [16], 2)
    assert _k(r).startswith("emulation-regions")


def test_random_instances_are_each_their_own_certified_result():
    """issue 11: no universal PROVED from N samples; each seeded network is one Result naming it by weights."""
    a, b = check_random_relu_emulation(0), check_random_relu_emulation(1)
    assert a.proved and b.proved and a.parameters["network"] != b.parameters["network"]
    assert "for all" not in a.statement and "sha256:" in a.statement
    assert _k(a).startswith("emulation-regions") and _k(b).startswith("emulation-regions")
    with pytest.raises(InputError, match="^index"):
        check_random_relu_emulation(-1)


def test_identities_certified_on_ordering_cones():
    r = check_relu_identities(3)
    assert r.proved and r.certificate == {"kind": "relu-tournament"} and "k = 1..3" in r.statement
    assert _k(r).startswith("relu-tournament: the tournament returns the max on each of the 9 ordering cones")
    with pytest.raises(InputError, match="^k_max"):
        check_relu_identities(9)


def test_gate_too_small_is_refuted():
    # pieces reach |x| = 1 on the box; S = 1/4 lets the gates leak
    r = check_relu_emulation([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]), box=[[-1, 1]], S="1/4")
    assert r.refuted and r.certificate["kind"] == "emulation-witness" and _k(r).startswith("emulation-witness")


def test_shared_head_refuted_at_half():
    r = check_shared_head("1/2")
    assert r.refuted and r.certificate["x"] == ["1/2"] and r.certificate["transformer"] == ["1/2", "-1/2"]
    assert _k(r).startswith("emulation-witness")
    assert check_shared_head("-1/2").refuted


def test_zigzag_is_a_zigzag():
    g = zigzag_relu(3)
    from fractions import Fraction as F

    assert [g.evaluate([F(i, 6)])[0] for i in range(7)] == [F(0), F(1, 2), F(1), F(1, 2), F(0), F(1, 2), F(1)]
    with pytest.raises(InputError):
        zigzag_relu(1)
    with pytest.raises(InputError, match="^box"):
        check_relu_emulation([[[1]]], [[0]])
    with pytest.raises(InputError):
        ReLUNetwork([[[1]]], [[0, 1]])
