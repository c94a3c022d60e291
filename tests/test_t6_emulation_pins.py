"""Pins for verify/decide/emulation.py (mutation testing): limits at their boundaries, error fields,
the sampled path for input dimension > 2, witness search and the re-check record."""

from fractions import Fraction as F

import pytest

from verify.decide.emulation import MAX_EXACT_DIM, alter_weight, prove_emulation
from verify.constructions.reference_networks import o2_network
from verify.constructions.maxout_compiler import compile_maxout
from verify.errors import InputError
from verify.objects.maxout import MaxoutNetwork

ABS = MaxoutNetwork([([[[1], [-1]]], [[0, 0]])])            # |x|
SAME = lambda x, ops: (ops.max([x[0], -x[0]]),)
RELU = lambda x, ops: (ops.relu(x[0]),)


def test_exact_dimension_limit_is_two():
    assert MAX_EXACT_DIM == 2
    zero = lambda x, ops: (0,)
    r2 = prove_emulation((zero, zero), [(0, 1), (0, 1)])
    assert r2.inconclusive and "no kernel certificate" in r2.certificate["summary"]    # traced, not re-checkable
    r3 = prove_emulation((zero, zero), [(0, 1)] * 3, samples=3)
    assert r3.inconclusive and r3.certificate["summary"].startswith("input dimension 3 > 2")
    assert r3.evidence["points"] == 3 + 2 ** 3


def test_sampled_point_count_beyond_eight_dimensions_has_no_corners():
    zero = lambda x, ops: (0,)
    r = prove_emulation((zero, zero), [(0, 1)] * 9, samples=5)
    assert r.inconclusive and r.evidence["points"] == 5


def test_sampled_points_stay_in_the_box():
    box = [(1, 2), (-3, -1), (0, 5)]
    inside = lambda x: all(lo <= c <= hi for c, (lo, hi) in zip(x, box))
    ref = lambda x, ops: (0,)
    tgt = lambda x, ops: (0 if inside(x) else 1,)
    r = prove_emulation((ref, tgt), box, samples=50)
    assert r.inconclusive and r.evidence["all_equal"]


def test_sampled_difference_is_refuted_with_witness():
    ref = lambda x, ops: (0,)
    tgt = lambda x, ops: (1 if x[0] == 1 and x[1] == 1 and x[2] == 1 else 0,)
    r = prove_emulation((ref, tgt), [(0, 1)] * 3, samples=1)
    assert r.inconclusive and r.evidence["witness"]["x"] == [1, 1, 1]       # a callable: evidence only


def test_refutation_witness_is_the_first_cell_point():
    # the point cell {-1} comes first; the difference there is 1 (|x| = 1, relu = 0)
    r = prove_emulation((ABS, RELU), [(-1, 1)])
    assert r.inconclusive and r.evidence["witness"]["x"] == [-1]
    assert r.certificate["summary"].startswith("at x = (-1) output 0: Transformer 0 != network 1 (tie rule average); "
                                               "but the target is a Python callable")
    assert _equal(prove_emulation((ABS, SAME), [(-1, 1)]))


def _equal(r):
    return r.inconclusive and r.certificate["summary"].startswith("equal on all of the box")


def test_callable_targets_with_and_without_tie_keyword():
    def plain(x, ops):                      # no tie parameter: must not receive one
        return (ops.max([x[0], -x[0]]),)

    def kw(x, ops, **extra):                # **kwargs: receives tie=
        assert extra["tie"] in ("average", "first")
        return (ops.max([x[0], -x[0]]) if extra["tie"] == "average" else ops.relu(x[0]),)

    assert _equal(prove_emulation((ABS, plain), [(-1, 1)]))
    assert _equal(prove_emulation((ABS, kw), [(-1, 1)], tie="average"))
    r = prove_emulation((ABS, kw), [(-1, 1)], tie="first")
    assert r.inconclusive and r.evidence["witness"]["tie"] == "first"


def test_pair_must_have_two_entries():
    with pytest.raises(InputError, match="^net_or_compiled"):
        prove_emulation((ABS, SAME, SAME), [(-1, 1)])
    assert _equal(prove_emulation([ABS, SAME], [(-1, 1)]))


def test_box_dimension_must_match_network():
    with pytest.raises(InputError, match="^box"):
        prove_emulation((ABS, SAME), [(-1, 1), (0, 1)])


def test_max_cells_bounds():
    with pytest.raises(InputError, match="^max_cells"):
        prove_emulation((ABS, SAME), [(-1, 1)], max_cells=0)
    with pytest.raises(InputError, match=r"^max_cells.*2000000"):
        prove_emulation((ABS, SAME), [(-1, 1)], max_cells=2_000_001)
    r = prove_emulation((ABS, SAME), [(-1, 1)], max_cells=1)    # accepted; too few cells -> INCONCLUSIVE
    assert r.inconclusive and r.certificate["summary"].startswith("region decomposition stopped")
    assert _equal(prove_emulation((ABS, SAME), [(-1, 1)], max_cells=2_000_000))


def test_samples_bounds():
    with pytest.raises(InputError, match="^samples"):
        prove_emulation((ABS, SAME), [(-1, 1)], samples=0)
    with pytest.raises(InputError, match=r"^samples.*100000"):
        prove_emulation((ABS, SAME), [(-1, 1)], samples=100_001)
    assert _equal(prove_emulation((ABS, SAME), [(-1, 1)], samples=100_000))
    assert _equal(prove_emulation((ABS, SAME), [(-1, 1)], samples=1))


@pytest.fixture(scope="module")
def compiled():
    return compile_maxout(o2_network(), [[0, 1]])


def test_alter_weight_sublayer_range(compiled):
    n = len(compiled.transformer.sublayers)
    with pytest.raises(InputError, match=rf"^sublayer.*\[0, {n - 1}\]"):
        alter_weight(compiled, n, "W1", (0, 0))
    with pytest.raises(InputError, match="^sublayer"):
        alter_weight(compiled, -1, "W1", (0, 0))


def _first(compiled, kind):
    return next(i for i, s in enumerate(compiled.transformer.sublayers) if getattr(s, "kind", "") == kind)


def test_alter_weight_adds_delta(compiled):
    i = _first(compiled, "ffn")
    sub = compiled.transformer.sublayers[i]
    alt = alter_weight(compiled, i, "W1", (0, 0), delta="1/3")
    assert alt.transformer.sublayers[i].W1[0][0] == sub.W1[0][0] + F(1, 3)
    alt = alter_weight(compiled, i, "b1", 0, delta=-2)
    assert alt.transformer.sublayers[i].b1[0] == sub.b1[0] - 2
    assert alt.note == f"sublayer {i} b1[0] += -2"


def test_alter_weight_head_range_message(compiled):
    i = next(k for k, s in enumerate(compiled.transformer.sublayers) if getattr(s, "kind", "") != "ffn")
    heads = len(compiled.transformer.sublayers[i].heads)
    with pytest.raises(InputError, match=rf"^head.*\[0, {heads - 1}\], got {heads}"):
        alter_weight(compiled, i, "W_Q", (0, 0), head=heads)
    h = compiled.transformer.sublayers[i].heads[heads - 1]
    alt = alter_weight(compiled, i, "W_V", (0, 0), head=heads - 1, delta=5)
    assert alt.transformer.sublayers[i].heads[heads - 1].W_V[0][0] == h.W_V[0][0] + 5


def test_witness_record_reads_token_zero(compiled):
    r = prove_emulation(alter_weight(compiled, _first(compiled, "ffn"), "b2", 0, delta=1), reference=compiled.source)
    assert r.refuted
    c = r.certificate
    assert c["kind"] == "emulation-witness"
    assert r.parameters["transformer"]["read"] == {"token": 0, "W": [["1", "0", "0", "0", "0", "0", "0"]], "b": ["0"]}
    assert len(r.evidence["transformer_sha256"]) == 64 and r.evidence["transformer_sha256"][:16] in r.statement
