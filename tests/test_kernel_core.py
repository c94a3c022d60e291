"""The kernel's dispatcher, readers and ball helpers (verify/kernel/__init__.py, _read.py, _ball.py).

Flat tests with exact expectations; a toy kind registered for the dispatcher tests."""

import time
from fractions import Fraction

import pytest

from verify import kernel
from verify.kernel import Kind, Rejected, _ball as B, _read as R


# -- a toy kind: "the sum of parameters.xs is parameters.total" -------------------------------------------
def _toy_statement(parameters, conventions):
    return R.bound_statement(f"the numbers sum to {parameters.get('total')}", parameters, conventions)


def _toy_check(result):
    p = R.obj(result["parameters"], "parameters", required=("xs", "total"))
    xs, total = R.vec(p["xs"], "parameters.xs", max_len=10), R.num(p["total"], "parameters.total")
    R.expect_statement(result, f"the numbers sum to {p['total']}")
    R.obj(result["certificate"], "certificate", required=("kind",))
    if sum(xs) != total:
        raise Rejected("certificate: the sum differs")
    return f"{len(xs)} numbers"


TOY = Kind(frozenset({"T3"}), "proved", frozenset({"exact"}), _toy_check)


@pytest.fixture
def toy(monkeypatch):
    table = dict(kernel.kinds())
    table["toy-sum"] = TOY
    monkeypatch.setattr(kernel, "_KINDS", table)
    return table


def toy_result(**over):
    params = {"xs": ["1/2", "1/2", 2], "total": 3}
    r = {"claim": "T3", "verdict": "proved", "method": "exact", "certificate": {"kind": "toy-sum"},
         "parameters": params, "conventions": {}, "seeds": {}, "evidence": {}, "versions": {}, "timing": {}}
    r["statement"] = _toy_statement(params, {})
    r.update(over)
    return r


def test_toy_accepted(toy):
    assert kernel.check(toy_result()) == "toy-sum: 3 numbers"


def test_suffix_claim_accepted(toy):
    assert kernel.check(toy_result(claim="T3.n1")) == "toy-sum: 3 numbers"


@pytest.mark.parametrize("over, message", [
    ({"verdict": "refuted"}, "supports the verdict 'proved'"),
    ({"verdict": "inconclusive"}, "only proved/refuted"),
    ({"method": "certified"}, "is exact, not 'certified'"),
    ({"method": "evidence"}, "must be exact or certified"),
    ({"claim": "T4"}, "proves claims T3"),
    ({"claim": "T33"}, "is not a catalogue ID"),
    ({"certificate": {"kind": "nope"}}, "not a known kind"),
    ({"certificate": {"kind": ["toy-sum"]}}, "not a known kind"),
    ({"certificate": {}}, "certificate.kind: missing"),
    ({"certificate": {"summary": "trust me"}}, "certificate.kind: missing"),
    ({"certificate": "toy-sum"}, "certificate: missing or not an object"),
    ({"certificate": {"kind": "toy-sum", "extra": 1}}, "unknown key(s) extra"),
    ({"parameters": {"xs": [1, 2], "total": 3}}, "statement: does not match"),
    ({"statement": "the numbers sum to 3"}, "statement: does not match"),
    ({"parameters": []}, "parameters: not an object"),
    ({"conventions": "x"}, "conventions: not an object"),
    ({"statement": 3}, "statement: missing or not a string"),
    ({"bogus": 1}, "result: unknown key(s) bogus"),
])
def test_dispatcher_rejects(toy, over, message):
    with pytest.raises(Rejected) as e:
        kernel.check(toy_result(**over))
    assert message in str(e.value)


@pytest.mark.parametrize("claim", ["T3.n.x", "T3.", "t3", "T12", "T0", "N11", "T3.n-1", " T3"])
def test_claim_must_be_a_catalogue_id(toy, claim):
    with pytest.raises(Rejected, match="^claim: "):
        kernel.check(toy_result(claim=claim))


def test_kinds_are_frozen():
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        TOY.verdict = "refuted"


def test_missing_kernel_module_is_skipped(monkeypatch):
    monkeypatch.setattr(kernel, "_KINDS", {})
    monkeypatch.setattr(kernel, "MODULES", ("no_such_kernel_module",) + kernel.MODULES)
    assert "gate-case-split" in kernel.kinds()


def test_long_exception_messages_are_cut_at_300(toy):
    def loud(result):
        raise ValueError("x" * 400)
    toy["toy-sum"] = Kind(TOY.claims, TOY.verdict, TOY.methods, loud)
    with pytest.raises(Rejected) as e:
        kernel.check(toy_result())
    assert str(e.value) == "ValueError: " + "x" * 300


def test_smart_forger_restates_but_math_rejects(toy):
    params = {"xs": [1, 1], "total": 3}
    with pytest.raises(Rejected, match="the sum differs"):
        kernel.check(toy_result(parameters=params, statement=_toy_statement(params, {})))


def test_conventions_are_bound(toy):
    with pytest.raises(Rejected, match="statement"):
        kernel.check(toy_result(conventions={"tie": "first"}))


def test_missing_parameters_default_to_empty(toy):
    r = toy_result()
    del r["parameters"]
    with pytest.raises(Rejected, match="parameters: missing key"):
        kernel.check(r)


def test_not_a_dict():
    with pytest.raises(Rejected, match="not a JSON object"):
        kernel.check([1])


def test_other_exceptions_reject(monkeypatch, toy):
    def boom(result):
        raise ZeroDivisionError("x")
    toy["toy-sum"] = Kind(TOY.claims, TOY.verdict, TOY.methods, boom)
    with pytest.raises(Rejected, match="ZeroDivisionError"):
        kernel.check(toy_result())


def test_recursion_rejects(toy):
    def deep(result):
        raise RecursionError
    toy["toy-sum"] = Kind(TOY.claims, TOY.verdict, TOY.methods, deep)
    with pytest.raises(Rejected, match="nested too deeply"):
        kernel.check(toy_result())


def test_summary_must_be_text(toy):
    toy["toy-sum"] = Kind(TOY.claims, TOY.verdict, TOY.methods, lambda r: None)
    with pytest.raises(Rejected, match="returned no summary"):
        kernel.check(toy_result())


def test_budget_rejects(toy):
    def slow(result):
        while True:
            R.tick()
    toy["toy-sum"] = Kind(TOY.claims, TOY.verdict, TOY.methods, slow)
    t = time.monotonic()
    with pytest.raises(Rejected, match="budget"):
        kernel.check(toy_result(), seconds=0.2)
    assert time.monotonic() - t < 5


def test_budget_restored():
    with R.budget(0):
        pass
    R.tick()   # no budget outside: does not raise
    with R.budget(None):
        R.tick()


def test_every_module_kind_is_well_formed():
    for name, spec in kernel.kinds().items():
        assert spec.verdict in ("proved", "refuted"), name
        assert spec.methods <= {"exact", "certified"} and spec.methods, name
        assert spec.claims and all(c[0] in "TN" for c in spec.claims), name
        assert callable(spec.check), name


def repr_short(v):
    return repr(v)[:20] if not isinstance(v, int) or v.bit_length() < 64 else "huge-int"


# -- readers ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("v, q", [(3, Fraction(3)), (-3, Fraction(-3)), ("-3/6", Fraction(-1, 2)), ("0", Fraction(0)),
                                  ("7", Fraction(7))])
def test_num_accepts(v, q):
    assert R.num(v, "x") == q


def test_num_long_strings():
    assert R.num("1" * 5000, "x") == Fraction(int("1" * 4000) * 10 ** 1000 + int("1" * 1000))
    assert R.num("-1/" + "2" * 5000, "x") < 0


@pytest.mark.parametrize("v", ["1e9", "1.5", " 1", "1 ", "+1", "1/0", "1/-2", "inf", "nan", "", "1//2", True, False,
                               1.5, None, [1], "1" * 5001, "1/" + "1" * 5001, 2 ** 20001], ids=repr_short)
def test_num_rejects(v):
    with pytest.raises(Rejected, match="^x"):
        R.num(v, "x")


def test_num_edge_digits():
    assert R.num(10 ** 4999, "x") == 10 ** 4999
    assert R.num(2 ** 20000 - 1, "x") == 2 ** 20000 - 1
    with pytest.raises(Rejected):
        R.num(2 ** 20000, "x")


def test_integer():
    assert R.integer("4", "n", 1, 4) == 4
    assert R.integer(1, "n", 1, 4) == 1
    for bad in ("5", 0, "1/2", "x"):
        with pytest.raises(Rejected, match="^n"):
            R.integer(bad, "n", 1, 4)


def test_integer_message_with_a_huge_bound():
    with pytest.raises(Rejected, match=r"^q: expected an integer in \[1, 2\^16609\.\.\], got 0$"):
        R.integer(0, "q", 1, 10 ** 5000)
    assert R.integer(10 ** 4999, "q", 1, 10 ** 5000) == 10 ** 4999


def test_default_lengths():
    assert R.lst([], "l") == [] and R.vec([], "v") == []
    assert R.string("x" * 100_000, "s") == "x" * 100_000
    with pytest.raises(Rejected):
        R.string("x" * 100_001, "s")


def test_string_and_flag():
    assert R.string("a", "s", {"a", "b"}) == "a"
    with pytest.raises(Rejected, match="not one of 'a', 'b'"):
        R.string("c", "s", {"a", "b"})
    with pytest.raises(Rejected):
        R.string(1, "s")
    with pytest.raises(Rejected):
        R.string("abc", "s", max_len=2)
    assert R.string("ab", "s", max_len=2) == "ab"
    assert R.flag(True, "f") is True and R.flag(False, "f") is False
    with pytest.raises(Rejected):
        R.flag(1, "f")


def test_lst_bounds():
    assert R.lst([1, 2], "l", 2, 2) == [1, 2]
    for bad, lo, hi in (([1], 2, 3), ([1, 2, 3, 4], 2, 3), ((1, 2), 0, 5), ({}, 0, 1)):
        with pytest.raises(Rejected, match="^l"):
            R.lst(bad, "l", lo, hi)


def test_obj_keys():
    assert R.obj({"a": 1, "b": 2}, "o", ("a",), ("b",)) == {"a": 1, "b": 2}
    assert R.obj({"a": 1}, "o", ("a",), ("b",)) == {"a": 1}
    with pytest.raises(Rejected, match="missing key"):
        R.obj({"b": 1}, "o", ("a",), ("b",))
    with pytest.raises(Rejected, match="unknown key"):
        R.obj({"a": 1, "c": 1}, "o", ("a",), ("b",))
    with pytest.raises(Rejected, match="expected an object"):
        R.obj([], "o")


def test_vec_mat_box():
    assert R.vec(["1/2", 1], "v", 2) == [Fraction(1, 2), Fraction(1)]
    with pytest.raises(Rejected):
        R.vec([1], "v", 2)
    with pytest.raises(Rejected):
        R.vec([1, 2, 3], "v", max_len=2)
    assert R.mat([[1, 2], [3, 4]], "m", 2, 2) == [[1, 2], [3, 4]]
    assert R.mat([], "m") == []
    assert R.mat([[1, 2], [3, 4], [5, 6]], "m") == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(Rejected, match="different lengths"):
        R.mat([[1, 2], [1, 2], [3]], "m")
    assert R.box([[0, 1]], "b") == [(0, 1)]
    with pytest.raises(Rejected, match="different lengths"):
        R.mat([[1, 2], [3]], "m")
    with pytest.raises(Rejected):
        R.mat([[1, 2]], "m", 2, 2)
    assert R.box([[0, 1], ["-1/2", "1/2"]], "b") == [(0, 1), (Fraction(-1, 2), Fraction(1, 2))]
    for bad in ([[1, 1]], [[1, 0]], [], [[0, 1, 2]], [[0, 1]] * 65):
        with pytest.raises(Rejected, match="^b"):
            R.box(bad, "b")


def test_digest_and_statement():
    assert R.digest({"b": 1, "a": [1, "x"]}) == R.digest({"a": [1, "x"], "b": 1})
    assert R.digest({"a": 1}) != R.digest({"a": 2})
    assert len(R.digest([])) == 64
    # the canonical text: sorted keys, no spaces, UTF-8 (not ASCII escapes); NaN is refused
    assert R.digest({"a": "\u00e9"}) == __import__("hashlib").sha256('{"a":"\u00e9"}'.encode()).hexdigest()
    with pytest.raises(ValueError):
        R.digest([float("nan")])
    tag = R.instance_tag({"a": 1}, {})
    assert tag.startswith("[instance sha256:") and len(tag) == len("[instance sha256:]") + 16
    assert R.bound_statement("s", {"a": 1}, {}) == "s " + tag
    assert R.instance_tag({"a": 1}, {}) != R.instance_tag({"a": 1}, {"tie": "first"})
    r = {"statement": "s " + tag, "parameters": {"a": 1}, "conventions": {}}
    R.expect_statement(r, "s")
    with pytest.raises(Rejected, match="statement"):
        R.expect_statement(r, "t")


# -- balls ------------------------------------------------------------------------------------------------
def test_ball_bounds_contain():
    with B.workprec(64):
        lo, hi = B.bounds(B.ball(Fraction(1, 3)))
        assert lo <= Fraction(1, 3) <= hi and hi - lo < Fraction(1, 2 ** 60)
        lo, hi = B.bounds(B.ball(5))
        assert lo == hi == 5
        assert B.bounds(B.arb(-3)) == (-3, -3)
        assert B.bounds(B.ball(12)) == (12, 12)                    # midpoint 3 * 2^2
        assert B.bounds(B.ball(-2 ** 70)) == (-2 ** 70, -2 ** 70)
        lo, hi = B.bounds(B.ball(Fraction(1, 3)) * 2 ** 80)
        assert lo < Fraction(2 ** 80, 3) < hi
        assert B.bounds(B.ball(Fraction(-7, 4)) * 4) == (-7, -7)


def test_ball_bounds_reject_infinite():
    with pytest.raises(Rejected):
        B.bounds(B.arb("inf"))
    with pytest.raises(Rejected):
        B.bounds(Fraction(1))


def test_positive_negative():
    with B.workprec(64):
        third = B.ball(Fraction(1, 3))
        assert B.positive(third) and not B.negative(third)
        assert B.negative(-third) and not B.positive(-third)
        zero_ish = third - third
        assert not B.positive(zero_ish) and not B.negative(zero_ish)
        assert not B.positive(B.arb(0)) and not B.negative(B.arb(0))
        assert not B.positive(1) and not B.negative(-1)


def test_workprec_bounds():
    with B.workprec(16):
        pass
    with B.workprec(100_000):
        pass
    for bad in (15, 100_001, True, 64.0, "64"):
        with pytest.raises(Rejected):
            B.workprec(bad)


def test_cholesky_pd():
    with B.workprec(128):
        b = B.ball
        assert B.cholesky_pd([[b(2), b(1)], [b(1), b(2)]])
        assert not B.cholesky_pd([[b(1), b(1)], [b(1), b(1)]])        # singular
        assert not B.cholesky_pd([[b(1), b(2)], [b(2), b(1)]])        # indefinite
        assert not B.cholesky_pd([[b(-1)]])
        assert B.cholesky_pd([[b(Fraction(1, 10 ** 30))]])
        assert B.cholesky_pd([])
        third = b(Fraction(1, 3))
        G = [[b(4), b(2), b(2)], [b(2), b(5), b(3)], [b(2), b(3), b(6)]]
        assert B.cholesky_pd(G)
        assert not B.cholesky_pd([[b(1), b(0)], [b(0), third - third]])
        half, tenth = b(Fraction(1, 2)), b(Fraction(1, 10))
        assert B.cholesky_pd([[b(4), b(1)], [b(1), half]])                  # last pivot 1/4
        assert not B.cholesky_pd([[b(4), b(1)], [b(1), b(Fraction(1, 4))]])  # last pivot 0
        # B B^T with B = [[1, 0], [2, 1], [1, 3]] is singular; adding 1/10 at the corner makes it PD
        G = [[b(1), b(2), b(1)], [b(2), b(5), b(5)], [b(1), b(5), b(10)]]
        assert not B.cholesky_pd(G)
        G[2][2] = b(10) + tenth
        assert B.cholesky_pd(G)
