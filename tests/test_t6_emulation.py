"""T6 / prove_emulation: whole-box proofs, exact witnesses, broken inputs never PROVED, bad input errors."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from verify.decide.emulation import alter_weight, prove_emulation
from verify.checks.t6_maxout_emulation import check_maxout_emulation
from verify.constructions.reference_networks import o2_network, random_maxout
from verify.constructions.maxout_compiler import compile_maxout
from verify.errors import InputError
from verify.arith.context import EXACT


def test_o2_refutation_witness_is_the_catalogue_one():
    r = check_maxout_emulation("O2", S="3/2")
    w = r.certificate
    assert r.refuted and w == {"kind": "emulation-witness", "x": ["0"], "tie": "average", "network": ["7/6"],
                               "transformer": ["2/3"]}


def test_o2_proof_records_sizes_lemma_and_regions():
    r = check_maxout_emulation("O2", S=40)
    c, ev = r.certificate, r.evidence
    assert r.proved and c["kind"] == "emulation-regions" and set(c) == {"kind", "cells"}
    assert r.parameters["formula"] == "R4" and r.parameters["sizes"]["W1_nonzeros"] == [32, 24]
    assert "non-zeros W1 32/24, W2 16/12, attention 8/4" in r.statement and "sizes are those of R4" in r.statement
    assert ev["lemma"]["S_bound_interval_propagation"] == F(11, 2) and ev["lemma"]["hypothesis_S_ge_bound"]
    # the open cells cover [0, 1] and the closed cover contains the breakpoints of Phi
    pts = {reg["vertices"][0][0] for reg in ev["regions"] if reg["dim"] == 0}
    assert {F(5, 18), F(9, 26), F(3, 4), 0, 1} <= pts


def test_json_is_reproducible():
    a = check_maxout_emulation("O2", S=40).to_json()
    b = check_maxout_emulation("O2", S=40).to_json()
    strip = lambda s: s.split('"timing"')[0]
    assert strip(a) == strip(b)


def test_tie_rules_separately_and_bad_tie():
    net = o2_network()
    assert prove_emulation(net, [[0, 1]], tie="first").proved
    with pytest.raises(InputError, match="^tie"):
        prove_emulation(net, [[0, 1]], tie="random")
    with pytest.raises(InputError, match="^box"):
        prove_emulation(net)
    with pytest.raises(InputError, match="^box"):
        prove_emulation(net, [[0, 1], [0, 1]])
    with pytest.raises(InputError, match="^net_or_compiled"):
        prove_emulation((net,), [[0, 1]])


def test_non_piecewise_linear_target_is_inconclusive():
    net = o2_network()
    square = lambda x, ops: (ops.mul(x[0], x[0]),)
    assert prove_emulation((net, square), [[0, 1]]).inconclusive


@settings(max_examples=12)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 2), which=st.integers(0, 10**6),
       delta=st.fractions(min_value=-2, max_value=2, max_denominator=4).filter(lambda q: q != 0))
@pytest.mark.slow
def test_altered_weight_never_proved_when_the_function_changes(seed, d, which, delta):
    net = random_maxout(seed, d, 2, 2, 2)
    box = [[-1, 1]] * d
    comp = compile_maxout(net, box)
    subs = comp.transformer.sublayers
    s = which % len(subs)
    if subs[s].kind == "ffn":
        name = ("W1", "W2")[which // 7 % 2]
        mat = getattr(subs[s], name)
        idx = (which // 3 % len(mat), which // 5 % len(mat[0]))
    else:
        name, idx = "W_O", (which // 3 % subs[s].heads[0].embedding_dim, 0)
    alt = alter_weight(comp, s, name, idx, delta)
    r = prove_emulation((net, alt), box)
    grid = [[F(i, 4)] if d == 1 else [F(i, 4), F(j, 4)] for i in range(-4, 5) for j in (range(-4, 5) if d == 2 else [0])]
    differs = any(net.evaluate(x) != alt(x, tie=t) for x in grid for t in ("average", "first"))
    if differs:     # (a change that makes a score product quadratic is found by the exact point search)
        assert r.refuted
    if r.refuted:
        w = r.certificate
        x = [F(v) for v in w["x"]]
        assert net.evaluate(x) != alt(x, tie=w["tie"], ops=EXACT)
    else:
        assert r.proved and not differs


def test_issue11_target_testing_equality_is_not_proved():
    """issue 11: a target answering y + 1 exactly when x[0] == 1/2 was PROVED equal to |x|."""
    from verify.objects.maxout import MaxoutNetwork

    net = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])

    def sneaky(x, ops):
        y = ops.max([x[0], -x[0]])
        return (y + 1 if x[0] == F(1, 2) else y,)

    r = prove_emulation((net, sneaky), [(-1, 1)])
    assert r.inconclusive and "UndecidedComparison" not in r.certificate["summary"]
    assert r.certificate["summary"].startswith("not traceable as a piecewise-affine function: a comparison")

    def uses_abs(x, ops):
        return (abs(x[0]),)

    r = prove_emulation((net, uses_abs), [(-1, 1)])
    assert r.inconclusive and "not traceable" in r.certificate["summary"]

    def crashes(x, ops):
        return (x[0] / 0,)

    r = prove_emulation((net, crashes), [(-1, 1)])
    assert r.inconclusive and "ZeroDivisionError" in r.certificate["summary"]


def test_issue11_size_mismatch_is_a_certified_refutation():
    """issue 11: t6 _combine turned PROVED into REFUTED without a witness on a size mismatch; a formula mismatch is
    now a REFUTED emulation-sizes Result that the kernel re-checks (it recomputes the sizes from the weights)."""
    import json

    from verify import kernel
    from verify.decide.emulation import alter_weight

    comp = compile_maxout(o2_network(), [[0, 1]])
    extra = alter_weight(comp, 0, "W1", (0, 2), delta=1)     # a zero weight on z made non-zero: W1 has 33 > 32
    r = prove_emulation((comp.source, extra), [[0, 1]], formula="R4")
    assert r.refuted and r.certificate == {"kind": "emulation-sizes"}
    assert kernel.check(json.loads(r.to_json())) == "emulation-sizes: W1_nonzeros differ from the R4 formula"
