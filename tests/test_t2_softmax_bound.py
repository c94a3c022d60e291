"""T2: sharp softmax bound, n = 2 identity, scalar problem, gap bound -- inputs, soundness, determinism."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.decide import softmax_error as se
from verify.checks import t2_softmax_bound as t2
from verify.arith.ball import ball_bounds, to_ball, workprec
from verify.errors import InputError, InputTypeError
from verify import kernel
from verify.kernel import softmax as ks
from verify.strategies import rationals
import json

# docs/paper1.md R2 table: W0((n-1)/e)
ORACLE = {2: "0.278464542761", 3: "0.463055513366", 4: "0.603545739536", 8: "0.973138752867",
          16: "1.38346150535"}

fractions = rationals(-5, 5, max_denominator=64)


@pytest.mark.parametrize("n,value", sorted(ORACLE.items()))
def test_sharp_constant_matches_spec_table(n, value):
    with workprec(128):
        lo, hi = ball_bounds(se.sharp_constant(n))
    digits = len(value.split(".")[1])
    assert abs((lo + hi) / 2 - Fraction(value)) <= Fraction(1, 10**digits)


def _kernel(r):
    """Every decided Result is re-checked by the kernel (JSON round trip)."""
    return kernel.check(json.loads(r.to_json()))


@pytest.mark.slow
def test_symbolic_lemmas_hold():
    assert ks.scalar_lemma() and ks.gap_lemma()


@pytest.mark.slow
def test_sharp_bound_proved_and_attained():
    r = t2.check_softmax_bound(3, 10, search_points=200, local_starts=1)
    assert r.verdict.value == "proved" and r.method.value == "certified"
    assert r.certificate["kind"] == "softmax-bound" and _kernel(r)
    pt = [Fraction(v) for v in r.certificate["witness"]]
    with workprec(256):
        assert se.softmax_error_ball(pt, 10) > se.sharp_bound(3, 10) - to_ball(Fraction(1, 10**30))
    assert r.parameters == {"n": 3, "lam": "10", "bound": "w0", "factor": "1"}
    ev = r.evidence["search"]
    assert ev["criterion_met"] is True and ev["random_and_adversarial"] == 200


@pytest.mark.parametrize("kwargs", [{"factor": "999/1000"}, {"bound": "w0_n_minus_2"}, {"factor": "1/2"}])
def test_too_small_bounds_refuted_with_exact_witness(kwargs):
    r = t2.check_softmax_bound(4, 100, search_points=0, **kwargs)
    assert r.verdict.value == "refuted" and r.claim == "T2.n"
    assert r.certificate["kind"] == "softmax-bound-exceeded" and _kernel(r)
    pt = [Fraction(v) for v in r.certificate["witness"]]
    # re-check the witness independently: the ball for E at the exact point lies above the candidate
    with workprec(256):
        e = se.softmax_error_ball(pt, 100)
        c = to_ball(Fraction(kwargs.get("factor", 1))) * (
            se.sharp_constant(3) if kwargs.get("bound") else se.sharp_constant(4)) / 100
        assert e > c


@settings(max_examples=15)
@given(factor=st.fractions(min_value=Fraction(1, 100), max_value=Fraction(999, 1000)), n=st.integers(2, 9))
def test_shrunk_bound_never_proved(factor, n):
    r = t2.check_softmax_bound(n, 10, factor=factor, search_points=0)
    assert r.verdict.value == "refuted"


@settings(max_examples=30)
@given(s=st.lists(fractions, min_size=2, max_size=7), lam=st.sampled_from([1, 10, 100]))
def test_random_points_never_certified_above_the_bound(s, lam):
    with workprec(128):
        e = se.softmax_error_ball(s, lam)
        b = se.sharp_bound(len(s), lam)
        assert not e > b
        assert not e < 0


@settings(max_examples=20)
@given(s=st.lists(fractions, min_size=2, max_size=5), lam=st.fractions(min_value=Fraction(1, 4), max_value=50,
                                                                         max_denominator=8))
def test_scale_law_and_closed_form(s, lam):
    with workprec(128):
        a = se.softmax_error_ball(s, lam)
        b = se.softmax_error_ball([lam * v for v in s], 1) / to_ball(lam)
        assert a.overlaps(b)
        if len(s) == 2:
            d = to_ball(abs(s[0] - s[1]))
            assert a.overlaps(d / (1 + (to_ball(lam) * d).exp()))


def test_weaker_bounds_proved():
    for bound in ("ln_n", "n_minus_1_over_e"):
        r = t2.check_softmax_bound(5, 1, bound=bound, search_points=0)
        assert r.verdict.value == "proved" and _kernel(r)
        assert r.statement.startswith(f"E_lambda(s) = max s - <softmax(lambda s), s> <= 1 * {t2.BOUNDS[bound]}")


def test_search_evidence_never_decides(monkeypatch):
    """A (fake) search reporting a huge excess leaves the verdict alone: it only flips criterion_met."""
    real = se.search_softmax_error

    def fake(*args, **kwargs):
        out = real(*args, **kwargs)
        import mpmath
        out["rescored"] = [(mpmath.mpf(10), [Fraction(0)] * args[0], 0)]
        return out

    monkeypatch.setattr(t2, "search_softmax_error", fake)
    r = t2.check_softmax_bound(3, 10, search_points=30, local_starts=1)
    assert r.verdict.value == "proved"
    assert r.evidence["search"]["criterion_met"] is False


def test_scalar_problem_and_two_token_identity():
    assert t2.check_scalar_problem().verdict.value == "proved"
    for wrong in ("W0(m)", "m/e", "ln(1+m)"):
        r = t2.check_scalar_problem(wrong)
        assert r.verdict.value == "refuted" and _kernel(r)
    assert _kernel(t2.check_two_token_identity())
    for wrong in ("delta/(1+exp(-lam*delta))", "delta*exp(-lam*delta)"):
        r = t2.check_two_token_identity(wrong)
        assert r.verdict.value == "refuted" and _kernel(r)


@settings(max_examples=6)
@given(n=st.integers(2, 8), delta=st.fractions(min_value=Fraction(1, 50), max_value=2, max_denominator=50),
       lam=st.sampled_from([1, 10, 100]))
def test_gap_bound(n, delta, lam):
    r = t2.check_gap_bound(n, lam, delta, trials=10)
    assert r.verdict.value == "proved" and r.certificate == {"kind": "softmax-gap-lemma"} and _kernel(r)


def test_gap_bound_proved_without_any_sample():
    """The verdict rests on the lemma, not on sampled trials."""
    assert t2.check_gap_bound(5, 10, "1/5", trials=0).verdict.value == "proved"


def test_gap_bound_faster_rate_never_proved():
    r = t2.check_gap_bound(3, 10, "1/5", rate=2, trials=10)
    assert r.verdict.value == "refuted" and r.certificate["witness"] == ["1/5", "0", "0"] and _kernel(r)
    assert t2.check_gap_bound(3, 10, "1/5", rate="101/100", trials=10).verdict.value != "proved"


def test_deterministic_json():
    a = t2.check_softmax_bound(4, 10, search_points=300, local_starts=2, seed=3).to_json()
    b = t2.check_softmax_bound(4, 10, search_points=300, local_starts=2, seed=3).to_json()
    assert a == b


@pytest.mark.parametrize("kwargs,field", [
    ({"n": 1, "lam": 1}, "n"), ({"n": 5000, "lam": 1}, "n"), ({"n": 2.0, "lam": 1}, "n"),
    ({"n": 3, "lam": 0}, "lam"), ({"n": 3, "lam": -1}, "lam"), ({"n": 3, "lam": 0.5}, "lam"),
    ({"n": 3, "lam": "1e13"}, "lam"), ({"n": 3, "lam": 1, "bound": "max"}, "bound"),
    ({"n": 3, "lam": 1, "factor": "abc"}, "factor"), ({"n": 3, "lam": 1, "factor": 0}, "factor"),
    ({"n": 3, "lam": 1, "search_points": -1}, "search_points"), ({"n": 3, "lam": 1, "seed": -2}, "seed"),
    ({"n": 300, "lam": 1}, "n"),
])
def test_bad_input_names_the_field(kwargs, field):
    with pytest.raises((InputError, InputTypeError)) as exc:
        t2.check_softmax_bound(**kwargs)
    assert str(exc.value).startswith(field)


def test_bad_input_other_checks():
    with pytest.raises(InputError, match="^maximiser"):
        t2.check_scalar_problem("W1(m)")
    with pytest.raises(InputError, match="^formula"):
        t2.check_two_token_identity("lam")
    with pytest.raises(InputError, match="^delta"):
        t2.check_gap_bound(3, 10, 0)
    with pytest.raises(InputError, match="^trials"):
        t2.check_gap_bound(3, 10, 1, trials=10**6)
