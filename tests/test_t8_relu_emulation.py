"""T8 check: ReLU -> Transformer proved; broken compilations never PROVED."""

import pytest

from verify.checks.t8_relu_emulation import (ReLUNetwork, check_relu_emulation, check_shared_head, zigzag_relu)
from verify.errors import InputError


def test_abs_network_and_sizes():
    r = check_relu_emulation([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]), box=[[-1, 1]])
    assert r.proved
    sizes = r.certificate["sizes"]
    assert sizes["measured"] == {"tokens": 2, "embedding": 7, "heads_per_layer": [2], "ffn_widths": [16],
                                 "sublayers": 2}


def test_gate_too_small_is_refuted():
    # pieces reach |x| = 1 on the box; S = 1/4 lets the gates leak
    r = check_relu_emulation([[[1], [-1]]], [[0, 0]], readout=([[1, 1]], [0]), box=[[-1, 1]], S="1/4")
    assert r.refuted and "witness" in r.certificate


def test_shared_head_refuted_at_half():
    r = check_shared_head("1/2")
    assert r.refuted and r.certificate["witness"]["transformer"][1] == -r.certificate["witness"]["x"][0]
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
