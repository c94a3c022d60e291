"""T7: softmax emulation error of the compiled maxout Transformer -- soundness, tampering, inputs."""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import kernel
from verify.decide.softmax_error import softmax_forward_ball
from verify.checks import t7_softmax_emulation as t7
from verify.constructions.reference_networks import o2_network
from verify.constructions.maxout_compiler import compile_maxout
from verify.arith.ball import workprec
from verify.errors import InputError, InputTypeError
from verify.objects.transformer import FeedForward
from verify.strategies import maxout_networks, rationals

def _kernel(r):
    """Every decided Result is re-checked by the kernel (JSON round trip)."""
    return kernel.check(json.loads(r.to_json()))


def small_nets():
    """d = 1, k in {2, 3}, L in {1, 2}, widths <= 2: rational weights in [-2, 2], denominators <= 4."""
    return maxout_networks(input_dim=1, rank=(2, 3), depth=(1, 2), width=(1, 2),
                           weights=rationals(-2, 2, max_denominator=4))


def test_o2_lemma_hypotheses_exact():
    net = o2_network()
    hyp = t7.lemma_hypotheses(net, [[0, 1]], 40, 10)
    assert [r["Lip"] for r in hyp["layers"]] == [3, 3]
    assert [r["sup_abs_pieces_bound"] for r in hyp["layers"]] == [2, Fraction(11, 2)]
    assert hyp["holds"]
    assert not t7.lemma_hypotheses(net, [[0, 1]], Fraction(11, 2), 10)["holds"]
    # B = 4 W0(1/e)/lambda: the exact upper bound is just above 4 * 0.27846454276/10
    assert Fraction(111385817104, 10**12) < hyp["error_bound_upper"] < Fraction(111385817105, 10**12)


@pytest.mark.slow
def test_o2_proved_with_evidence_and_figure_data():
    r = t7.check_softmax_emulation(lams=(10, 100), tie_offsets=4)
    assert r.verdict.value == "proved" and r.method.value == "certified"
    assert r.certificate["kind"] == "softmax-emulation-points" and _kernel(r)
    assert r.evidence["decision_points"] == ["5/18", "9/26", "3/4"]
    ev = r.evidence
    assert all(v["agrees_to_3_digits"] for v in ev["o3_reference"].values())
    errs = [e for _, e in ev["figure_error_vs_lambda"]]
    bounds = [b for _, b in ev["figure_bound_vs_lambda"]]
    assert all(e < b for e, b in zip(errs, bounds)) and errs == sorted(errs, reverse=True)
    assert all(0.4 < le < 1.2 for _, le in ev["lambda_times_max_error"])      # lambda * error stays bounded
    assert not r.evidence["independent_cross_check"]["disagreements"]


def test_sharpness_refuted_and_tight():
    r = t7.check_softmax_sharpness(lam=1000)
    assert r.verdict.value == "refuted" and r.claim == "T7.n"
    assert r.evidence["error_within_1e-30_of_B"] and _kernel(r)
    assert r.certificate["witness"] == [r.evidence["x_q"]]


def test_small_S_refuted_mid_S_inconclusive():
    r = t7.check_softmax_emulation(lams=(10,), S="3/2", search=False)
    assert r.verdict.value == "refuted" and _kernel(r)
    r = t7.check_softmax_emulation(lams=(10,), S="11/2", search=False, grid=8)
    assert r.verdict.value == "inconclusive" and r.certificate == {}
    assert not r.evidence["hypotheses"]["S_sufficient_every_lambda"]


@settings(max_examples=8)
@given(net=small_nets(), lam=st.sampled_from([10, 50]))
@pytest.mark.slow
def test_random_networks_proved(net, lam):
    r = t7.check_softmax_emulation(net, [[-1, 1]], lams=(lam,), S="auto", grid=8, tie_offsets=2, search=False)
    assert r.verdict.value == "proved", r.evidence["summary"]
    assert _kernel(r)


def _tampered(net, box, S, delta):
    c = compile_maxout(net, box, S=S)
    ff = c.transformer.sublayers[0]
    W1 = [list(row) for row in ff.W1]
    W1[0][0] += delta
    c.transformer.sublayers = (FeedForward(W1, ff.b1, ff.W2, ff.b2),) + c.transformer.sublayers[1:]
    return c


@settings(max_examples=8)
@given(delta=st.fractions(min_value=Fraction(-1), max_value=Fraction(1), max_denominator=1000).filter(lambda d: d != 0))
@pytest.mark.slow
def test_altered_weight_never_proved(delta):
    net = o2_network()
    c = _tampered(net, [[0, 1]], 40, delta)
    r = t7.check_softmax_emulation(net, [[0, 1]], lams=(100,), compiled=c, grid=8, tie_offsets=2, search=False)
    assert r.verdict.value != "proved"
    assert not r.evidence["hypotheses"]["weights_equal_R4_compilation_of_net"]
    if r.verdict.value == "refuted":
        assert "are NOT the R4 compilation" in r.statement and _kernel(r)


def test_large_alteration_refuted():
    net = o2_network()
    r = t7.check_softmax_emulation(net, [[0, 1]], lams=(10,), compiled=_tampered(net, [[0, 1]], 40, Fraction(1)),
                                   search=False)
    assert r.verdict.value == "refuted" and "witness" in r.certificate and _kernel(r)


@settings(max_examples=10)
@given(x=st.fractions(min_value=0, max_value=1, max_denominator=97), lam=st.sampled_from([1, 10, 1000]))
def test_independent_forward_pass_agrees(x, lam):
    c = compile_maxout(o2_network(), [[0, 1]], S=40)
    X0 = c.embed([x])
    a = c.transformer.evaluate(X0, attention="softmax", scale=lam, precision=128)
    with workprec(128):
        b = softmax_forward_ball(c.transformer, X0, lam)
        assert all(u.overlaps(v) for ra, rb in zip(a, b) for u, v in zip(ra, rb))


@pytest.mark.slow
def test_deterministic_json():
    kw = dict(lams=(10,), grid=8, tie_offsets=2)
    assert t7.check_softmax_emulation(**kw).to_json() == t7.check_softmax_emulation(**kw).to_json()


@pytest.mark.parametrize("kwargs,field", [
    ({"lams": ()}, "lams"), ({"lams": (0,)}, "lams[0]"), ({"lams": (0.5,)}, "lams[0]"),
    ({"lams": ("1e10",)}, "lams[0]"), ({"lams": tuple(range(1, 20))}, "lams"), ({"S": -1}, "S"),
    ({"S": "x"}, "S"), ({"factor": 0}, "factor"), ({"grid": 0}, "grid"), ({"grid": 10**4}, "grid"),
    ({"net": "O2"}, "net"), ({"extra_points": [(2,)]}, "extra_points[0]"), ({"compiled": object()}, "compiled"),
    ({"box": [[1, 0]]}, "box"),
])
def test_bad_input_names_the_field(kwargs, field):
    with pytest.raises((InputError, InputTypeError)) as exc:
        t7.check_softmax_emulation(search=False, **kwargs)
    assert str(exc.value).startswith(field)


def test_sharpness_bad_input():
    with pytest.raises(InputError, match="^lam"):
        t7.check_softmax_sharpness(lam=0)
    with pytest.raises(InputError, match="^factor"):
        t7.check_softmax_sharpness(factor=-1)
