"""T3: the check says REFUTED when the gate it evaluates is broken, and never PROVED."""

from fractions import Fraction

import verify.checks.t3_onehot_gate as t3
from verify.results import Verdict


def test_broken_gate_is_refuted_not_proved():
    def leaky_gate(u, p, S):     # forgets the -S(1-p) shift in the second ReLU
        u, p, S = Fraction(u), Fraction(p), Fraction(S)
        relu = lambda t: t if t > 0 else Fraction(0)
        return relu(u - S * (1 - p)) - relu(-u)
    r = t3.check_gate_identity(S=10, gate_fn=leaky_gate)
    # the claim about the real gate is true: a broken evaluator gives no verdict (the kernel has its own gate)
    assert r.verdict is Verdict.INCONCLUSIVE
    assert "grid fails" in r.certificate["summary"]


def test_points_inside_hypothesis_proved_outside_refuted():
    import json

    from verify import kernel
    ok = t3.check_gate_identity(S=2, points=[(2, 0), (-2, 1), ("1/3", 1)])
    assert ok.verdict is Verdict.PROVED and kernel.check(json.loads(ok.to_json())) == "gate-points: gate = p*u at all 3 points"
    bad = t3.check_gate_identity(S=2, points=[(-3, 0)])
    assert bad.verdict is Verdict.REFUTED and "at (u, p) = (-3, 0), with S = 2 [instance" in bad.statement
    assert kernel.check(json.loads(bad.to_json())) == "gate-witness: gate differs from p*u at (u, p) = (-3, 0)"
    r = t3.check_gate_identity(S=10)
    assert r.certificate["pieces"] == [[0, -10, 10, True, True], [1, 0, 10, False, True], [1, -10, 0, True, False],
                                       [1, 0, 0, True, True]]
    assert kernel.check(json.loads(r.to_json())) == ("gate-case-split: S = 10: 1 + 3 pieces tile [-S, S] for p = 0, 1; "
                                                     "gate = p*u on each")


def test_bad_input_names_field():
    import pytest

    from verify.errors import InputError
    with pytest.raises(InputError, match="^S: must be > 0"):
        t3.check_gate_identity(S=0)
    with pytest.raises(InputError, match="^grid_denominator"):
        t3.check_gate_identity(S=1, grid_denominator=0)


def test_case_split_regions_are_pinned_and_partition_the_domain():
    cases = t3._symbolic_case_split(Fraction(10))
    assert [pc["region"] for pc in cases["p=0"]["pieces"]] == ["[-10, 10]"]
    assert [pc["region"] for pc in cases["p=1"]["pieces"]] == ["(0, 10]", "[-10, 0)", "[0, 0]"]
    assert all(c["covers_domain"] and c["identity"] for c in cases.values())
    S = Fraction(10)
    assert t3._partitions([(-S, 0, False, True), (0, 0, False, False), (0, S, True, False)], S)
    assert not t3._partitions([(-S, 0, False, True), (0, S, True, False)], S)        # the point 0 is missing
    assert not t3._partitions([(-S, 0, False, False), (0, S, False, False)], S)      # 0 counted twice
    assert not t3._partitions([(-S, 5, False, False)], S)                           # stops short of S


def test_half_lines_from_the_expression():
    import sympy
    u = sympy.Symbol("u", real=True)
    assert t3._half_line(u - 3, u, True) == (3, sympy.oo, True, True)
    assert t3._half_line(u - 3, u, False) == (-sympy.oo, 3, True, False)
    assert t3._half_line(-u - 3, u, True) == (-sympy.oo, -3, True, True)
    assert t3._half_line(-u - 3, u, False) == (-3, sympy.oo, False, True)
    assert t3._half_line(0 * u + 1, u, True) == (-sympy.oo, sympy.oo, True, True)
    assert t3._half_line(0 * u + 1, u, False) is None


def test_boundary_cases_of_the_helpers():
    import sympy
    u = sympy.Symbol("u", real=True)
    assert t3._half_line(0 * u, u, False) == (-sympy.oo, sympy.oo, True, True)    # 0 <= 0 everywhere
    assert t3._half_line(0 * u, u, True) is None                                  # 0 > 0 nowhere
    # equal lower ends: the open one wins; equal upper ends: the open one wins
    assert t3._intersect((0, 5, True, False), (0, 5, False, True)) == (0, 5, True, True)
    assert t3._intersect((0, 5, False, True), (0, 5, True, False)) == (0, 5, True, True)
    assert t3._intersect((0, 1, False, True), (1, 2, False, False)) is None
    assert t3.check_gate_identity(S=1, grid_denominator=64).verdict is Verdict.PROVED
