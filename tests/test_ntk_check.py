"""ntk_positive_definite: soundness properties, exact null vectors, float64 flags, determinism; every decided
Result is re-checked by the kernel."""

import json
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import kernel
from verify.decide.ntk import (FLOAT64_UNDECIDED_RATIO, float64_verdicts, null_basis_from_relation,
                               null_vector_from_relation, ntk_positive_definite)
from verify.arith.ball import certainly_contains, to_ball, workprec
from verify.decide.ntk_gram import ntk_gram, oracle_head_set
from verify.laws import Discrete, Gaussian
from verify.laws.oracle_families import beta
from verify.results import Method, Verdict
from verify.strategies import points

Q94 = [[1, F(1, 2)], [F(-3, 10), 1]]
LADDER = (64, 128)

point = points(2, -2, 2, max_denominator=4)


def _law(points):
    pts = list(dict.fromkeys(points))
    return Discrete([list(p) for p in pts])


@settings(max_examples=8, deadline=None)
@given(st.lists(point, min_size=2, max_size=3, unique=True), st.lists(point, min_size=2, max_size=3, unique=True),
       point)
def test_translates_never_pd_with_two_queries(p1, p2, shift):
    """A law and its translate are dependent modulo affine functions: never PROVED (m = 2)."""
    a = _law(p1)
    laws = [a, _law(p2), a.translated(list(shift))]
    r = ntk_positive_definite(laws, Q94, heads=10, seed=1, ladder=LADDER, spectrum=False)
    assert r.verdict is not Verdict.PROVED
    if r.verdict is Verdict.REFUTED:
        assert r.method is Method.EXACT and r.certificate["kind"] == "ntk-null-vector"
        assert kernel.check(json.loads(r.to_json())).startswith("ntk-null-vector")


@settings(max_examples=6, deadline=None)
@given(st.lists(point, min_size=2, max_size=2, unique=True), st.lists(point, min_size=2, max_size=2, unique=True))
def test_convolutions_never_pd_even_with_one_query(p1, p2):
    """mu, nu, mu*nu: a constant relation, so singular for m = 1 as well."""
    a, b = _law(p1), _law(p2)
    conv = Discrete([[x[0] + y[0], x[1] + y[1]] for x in a.atoms for y in b.atoms]) if len(
        {(x[0] + y[0], x[1] + y[1]) for x in a.atoms for y in b.atoms}) == 4 else None
    if conv is None:
        return
    r = ntk_positive_definite([a, b, conv], Q94[:1], heads=10, seed=2, ladder=LADDER, spectrum=False)
    assert r.verdict is not Verdict.PROVED


@settings(max_examples=5, deadline=None)
@given(st.integers(min_value=1, max_value=4))
def test_perturbed_translate_never_refuted(k):
    """A translate perturbed by 1e-30 in one atom is independent: never REFUTED (may be INCONCLUSIVE)."""
    b = beta()
    atoms = [list(a) for a in b.translated([F(1, 2), F(-1, 5)]).atoms]
    atoms[k % 3][0] += F(1, 10**30)
    r = ntk_positive_definite([b, Discrete(atoms)], Q94, heads=8, seed=k, ladder=LADDER, spectrum=False)
    assert r.verdict is not Verdict.REFUTED


def test_exact_null_vector_for_translates():
    b = beta()
    laws = [b, b.translated([F(1, 2), F(-1, 5)])]
    r = ntk_positive_definite(laws, Q94, head_set=oracle_head_set(F(1, 2)), ladder=(200,))
    assert r.verdict is Verdict.REFUTED and r.method is Method.EXACT
    assert r.certificate["null_space"] == [["1", "-1", "-1", "1"]]
    assert "dimension 1" in kernel.check(json.loads(r.to_json()))
    g = ntk_gram(laws, Q94, head_set=oracle_head_set(F(1, 2)), precision=200)
    with workprec(200):
        for i in range(4):
            kv = sum((g.matrix[i, j] * to_ball(v) for j, v in enumerate([1, -1, -1, 1])), to_ball(0))
            assert certainly_contains(kv, 0)


def test_zero_head_set_is_inconclusive_not_refuted():
    laws = [Discrete([[0, 0], [1, 0]]), Discrete([[0, 0], [0, 2]])]
    r = ntk_positive_definite(laws, Q94, head_set=[[[0, 0], [0, 0]]], ladder=LADDER)
    assert r.verdict is Verdict.INCONCLUSIVE
    assert r.evidence["independence"]["verdict"] == "proved"
    assert "not null for every head" in r.evidence["null_space"]


def test_pd_certificate_contents():
    r = ntk_positive_definite([beta(), beta().dilated(2)], Q94, heads=12, seed=5, ladder=(200,))
    assert r.verdict is Verdict.PROVED and r.method is Method.CERTIFIED
    c = r.certificate
    assert c["kind"] == "ntk-cholesky" and len(c["pivots"]) == 4 and sorted(c) == [
        "diagonal", "kind", "pivots", "precision_bits", "summary"]
    assert all(F(p) > 0 for p in c["pivots"])
    ev = r.evidence
    assert "support" in ev["mean_field_argument"] and "non-empty interior" in ev["scope"]["note"]
    assert ev["scope"]["inside_lse_9_3_setting"] is True
    assert r.seeds == {"heads": 5} and sorted(r.parameters) == ["heads", "laws", "queries", "reading"]
    assert len(r.parameters["heads"]) == 12
    assert "PD by ball Cholesky" in kernel.check(json.loads(r.to_json()))
    spec = ev["spectrum"]
    assert F(spec["ratio"]["lower"]) <= F(spec["ratio"]["upper"])


def test_outside_setting_is_reported():
    mu = Discrete([[0], [1]])
    r = ntk_positive_definite([mu, mu.dilated(2)], [[1], [2]], heads=8, seed=0, ladder=LADDER)
    # singular for collinear queries (Lambda_2(t) = Lambda_1(2t)), though there is no exact relation
    assert r.verdict is Verdict.REFUTED and r.certificate["null_space"] == [["0", "1", "-1/2", "0"]]
    assert r.evidence["scope"]["inside_lse_9_3_setting"] is False
    assert "m = 2 queries > d = 1" in r.evidence["scope"]["why_outside"]
    assert kernel.check(json.loads(r.to_json())).startswith("ntk-null-vector")


def test_null_vector_construction():
    assert null_vector_from_relation([1, 1, -1], 1) == [1, 1, -1]
    assert null_vector_from_relation([2, -1], 3) == [2, -2, 0, -1, 1, 0]
    assert null_basis_from_relation([2, -1], [1], 3) == [[2, -2, 0, -1, 1, 0], [2, 0, -2, -1, 0, 1]]
    assert null_basis_from_relation([2, -1], [0], 2) == [[2, 0, -1, 0], [0, 2, 0, -1]]
    assert null_basis_from_relation([1, 1], [1], 1) == []


def test_gaussian_relation_with_zero_alpha_gives_a_two_dimensional_null_space():
    laws = [Gaussian([[1, 0], [0, 1]]), Gaussian([[2, 0], [0, 2]]), Gaussian([[3, 0], [0, 3]])]
    r = ntk_positive_definite(laws, Q94, heads=8, seed=3, ladder=LADDER, spectrum=False)
    assert r.verdict is Verdict.REFUTED and len(r.certificate["null_space"]) == 4   # 2 relations x 2 queries
    assert "dimension 4" in kernel.check(json.loads(r.to_json()))


def test_float64_flags_are_consistent():
    import numpy as np

    for M in (np.eye(3), np.array([[1.0, 1.0], [1.0, 1.0 + 1e-15]]), np.array([[2.0, 0.0], [0.0, 1e-3]])):
        v = float64_verdicts(M)
        assert v["undecided"] == (abs(v["ratio"]) <= FLOAT64_UNDECIDED_RATIO)


def test_deterministic_json():
    args = ([Gaussian([[1, 0], [0, 1]]), Gaussian([[2, 0], [0, 1]])], Q94)
    a = ntk_positive_definite(*args, heads=6, seed=9, ladder=LADDER)
    b = ntk_positive_definite(*args, heads=6, seed=9, ladder=LADDER)
    da, db = json.loads(a.to_json()), json.loads(b.to_json())
    da.pop("timing"), db.pop("timing")
    assert da == db


def test_bad_ladder():
    with pytest.raises(ValueError, match="^ladder"):
        ntk_positive_definite([beta()], Q94, heads=4, ladder=())


def test_gram_beyond_the_kernel_is_refused_before_the_ladder(monkeypatch):
    """Regression: a Gram beyond what the kernel re-checks was refused only after the whole precision ladder had
    run (~1 s for 140 rows, minutes for larger ones); now the InputError comes first and names the size."""
    import verify.decide.ntk as ntk_mod
    from verify.errors import InputError

    def no_ladder(*a, **k):
        raise AssertionError("the ladder ran before the size check")

    monkeypatch.setattr(ntk_mod, "ladder_cholesky", no_ladder)
    laws = [Discrete([[F(k), F(0)], [F(0), F(k + 1)]]) for k in range(130)]
    with pytest.raises(InputError, match="^queries: the Gram has 260 rows and 4 heads \\(d = 2\\); the kernel "
                                         "re-checks Grams of at most 256 rows"):
        ntk_positive_definite(laws, Q94, heads=4)
    per_token = [Discrete([[F(k), F(j)] for j in range(5)]) for k in range(52)]      # 52 x 5 = 260 rows
    with pytest.raises(InputError, match="the Gram has 260 rows"):
        ntk_positive_definite(per_token, heads=4, reading="per-token")
    # above 128 rows the residual certificate's bounds count: 140 rows x 1100 heads = 154,000 evaluations > 80,000
    with pytest.raises(InputError, match="the Gram has 140 rows and 1100 heads"):
        ntk_positive_definite(laws[:70], Q94, heads=1100)
    # regression: up to 128 rows the ball-Cholesky bounds count too (50 rows x 900 heads = 45,000 evaluations
    # > 40,000); the kernel's Rejected escaped from the decision after the ladder had run
    with pytest.raises(InputError, match="the Gram has 50 rows and 900 heads .* up to 128 rows with rows x heads "
                                         "<= 40000"):
        ntk_positive_definite(laws[:25], Q94, heads=900)
