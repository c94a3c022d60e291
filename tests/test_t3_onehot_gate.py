"""T3: the check says REFUTED when the gate it evaluates is broken, and never PROVED."""

from fractions import Fraction

import verify.checks.t3_onehot_gate as t3
from verify.results import Verdict


def test_broken_gate_is_refuted_not_proved(monkeypatch):
    def leaky_gate(u, p, S):     # forgets the -S(1-p) shift in the second ReLU
        u, p, S = Fraction(u), Fraction(p), Fraction(S)
        relu = lambda t: t if t > 0 else Fraction(0)
        return relu(u - S * (1 - p)) - relu(-u)
    monkeypatch.setattr(t3, "gate", leaky_gate)
    r = t3.check_gate_identity(S=10)
    assert r.verdict is Verdict.REFUTED
    assert "grid fails" in r.certificate["summary"]


def test_points_inside_hypothesis_proved_outside_refuted():
    assert t3.check_gate_identity(S=2, points=[(2, 0), (-2, 1), ("1/3", 1)]).verdict is Verdict.PROVED
    assert t3.check_gate_identity(S=2, points=[(-3, 0)]).verdict is Verdict.REFUTED


def test_bad_input_names_field():
    import pytest

    from verify.errors import InputError
    with pytest.raises(InputError, match="^S: must be > 0"):
        t3.check_gate_identity(S=0)
    with pytest.raises(InputError, match="^grid_denominator"):
        t3.check_gate_identity(S=1, grid_denominator=0)
