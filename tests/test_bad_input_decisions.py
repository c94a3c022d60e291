"""Adversarial inputs to the decision primitives: balls that touch zero, exact zeros, boundary
precisions, dependent columns, singular and barely-PD matrices, boundary sizes, floats where exact
numbers are required, and Results whose verdict or timing could leak.  Each case pins a behaviour
that a mutation of verify/arith/ball.py, verify/arith/exact.py or verify/results.py would break
(see bench/mutation.py): a decision primitive may answer "not proved", never a wrong "proved"."""

import dataclasses
from fractions import Fraction

import pytest
from flint import arb, fmpq, fmpz

from verify.arith import ball
from verify.arith.exact import (MAX_EXPONENT, MAX_NUMBER_LENGTH, JsonFloat, nullspace_q, parse_exact,
                                  parse_matrix, parse_positive, parse_vector, rank_q)
from verify.errors import InputError, InputTypeError
from verify.results import Method, Result, Verdict


def straddling_zero():
    return arb(0, 1)            # the ball [-1, 1]: contains 0 and positive and negative numbers


def touching_zero():
    return arb(1, 1)            # [0, 2]: every point >= 0, but 0 is in it


# -- ball comparisons ------------------------------------------------------------------------------------

def test_ladder_is_the_documented_one():
    assert ball.LADDER == (64, 128, 256, 512)


@pytest.mark.parametrize("bits", [16, 64, 1_000_000])
def test_workprec_accepts_bounds(bits):
    with ball.workprec(bits):
        pass


@pytest.mark.parametrize("bits", [15, 0, -64, 1_000_001, 64.0, "64", True])
def test_workprec_refuses(bits):
    with pytest.raises(ValueError, match="^precision: "):
        ball.workprec(bits)


def test_sign_three_valued():
    assert ball.sign(arb(2)) == 1 and ball.sign(ball.to_ball(Fraction(1, 2))) == 1
    assert ball.sign(arb(-2)) == -1 and ball.sign(ball.to_ball(Fraction(-1, 2))) == -1
    assert ball.sign(arb(0)) == 0
    assert ball.sign(straddling_zero()) is None
    assert ball.sign(touching_zero()) is None          # not exactly zero, not certainly positive
    assert ball.sign(arb(0, fmpq(1, 2**80))) is None


def test_certain_only_comparisons():
    for x in (straddling_zero(), touching_zero(), arb(0)):
        assert not ball.certainly_positive(x)
        assert not ball.certainly_negative(-x)
    assert not ball.certainly_negative(arb(0)) and not ball.certainly_negative(-touching_zero())
    assert ball.certainly_positive(ball.to_ball(Fraction(1, 3)))
    assert ball.certainly_negative(ball.to_ball(Fraction(-1, 3)))
    assert not ball.certainly_nonzero(arb(0)) and not ball.certainly_nonzero(straddling_zero())
    assert ball.certainly_nonzero(arb(-1)) and ball.certainly_nonzero(arb(1))
    assert not ball.certainly_less(arb(1), arb(1))
    assert not ball.certainly_less(arb(1, 1), arb(2))   # [0, 2] vs 2: touches
    assert ball.certainly_less(arb(1), arb(2))
    b = arb(1, fmpq(1, 4))                          # [3/4, 5/4]
    assert ball.certainly_contains(b, Fraction(3, 4)) and ball.certainly_contains(b, Fraction(5, 4))
    assert not ball.certainly_contains(b, Fraction(1, 2)) and not ball.certainly_contains(b, 2)


def test_to_ball_and_exact_bounds():
    third = ball.to_ball(Fraction(1, 3))
    lo, hi = ball.ball_bounds(third)
    assert lo <= Fraction(1, 3) <= hi and lo < hi
    assert ball.ball_bounds(arb(3)) == (3, 3)
    assert ball.ball_bounds(arb(2) ** 70) == (2 ** 70, 2 ** 70)
    assert ball.ball_bounds(arb(-3) / 4) == (Fraction(-3, 4), Fraction(-3, 4))
    lo, hi = ball.ball_bounds(arb(5, 2))             # radii are stored rounded up: never narrower
    assert lo <= 3 and hi >= 7 and hi - lo < Fraction(4) + Fraction(1, 10**6)
    assert ball.to_ball(third) is third
    with pytest.raises(ValueError, match="^ball: "):
        ball.ball_bounds(arb("inf"))


# -- the precision ladder --------------------------------------------------------------------------------

def test_ladder_decides_at_first_deciding_rung():
    seen = []

    def attempt(prec):
        seen.append(prec)
        return (Verdict.PROVED if prec >= 256 else None), prec

    out = ball.decide_with_ladder(attempt)
    assert out.verdict is Verdict.PROVED and out.precision == 256 and out.decided and out.info == 256
    assert seen == [64, 128, 256]
    assert [a["decided"] for a in out.attempts] == [False, False, True]
    assert out.attempts[-1] == {"precision_bits": 256, "decided": True, "verdict": "proved"}
    assert "verdict" not in out.attempts[0]


def test_ladder_exhausted_is_inconclusive():
    out = ball.decide_with_ladder(lambda prec: (None, prec), ladder=(64, 128))
    assert out.verdict is Verdict.INCONCLUSIVE and out.precision == 128 and not out.decided
    assert len(out.attempts) == 2 and out.info == 128
    out = ball.decide_with_ladder(lambda prec: ("refuted", None), ladder=(64,))
    assert out.verdict is Verdict.REFUTED and out.decided
    with pytest.raises(ValueError, match="^ladder: "):
        ball.decide_with_ladder(lambda prec: (None, None), ladder=())


def test_ladder_runs_attempt_at_its_precision():
    from flint import ctx

    precs = []
    ball.decide_with_ladder(lambda prec: (precs.append(ctx.prec) or None, None), ladder=(70, 90))
    assert precs == [70, 90]


# -- interval Cholesky and the certificates built on it -------------------------------------------------

def _balls(rows):
    return [[ball.to_ball(Fraction(v)) for v in r] for r in rows]


def test_cholesky_pivots_exact_matrices():
    out = ball.ball_cholesky(_balls([[4, 2, 0], [2, 5, 3], [0, 3, 10]]))
    assert out.positive_definite is True and out.failed_at is None
    for p, exact in zip(out.pivots, (4, 4, Fraction(31, 4))):
        assert ball.certainly_contains(p, exact)
    out = ball.ball_cholesky(_balls([[4, 2], [2, 3]]))
    assert out.positive_definite and ball.certainly_contains(out.pivots[1], 2)


@pytest.mark.parametrize("rows,where", [([[1, 1], [1, 1]], 1), ([[1, 2], [2, 1]], 1), ([[0, 0], [0, 1]], 0),
                                        ([[-1, 0], [0, 1]], 0), ([[1, 0, 0], [0, 1, 1], [0, 1, 1]], 2)])
def test_cholesky_never_proves_singular_or_indefinite(rows, where):
    out = ball.ball_cholesky(_balls(rows))
    assert out.positive_definite is None and out.failed_at == where and len(out.pivots) == where + 1


def test_cholesky_undecided_when_a_pivot_touches_zero():
    m = [[arb(1, fmpq(1, 2**10)), arb(1)], [arb(1), arb(1)]]   # the exact singular matrix is inside
    assert ball.ball_cholesky(m).positive_definite is None
    with pytest.raises(ValueError, match="^matrix: "):
        ball.ball_cholesky([[arb(1), arb(0)], [arb(0)]])


def test_certify_positive_definite():
    out = ball.certify_positive_definite(lambda prec: _balls([[4, 2], [2, 3]]))
    assert out.verdict is Verdict.PROVED and out.precision == 64 and out.info.positive_definite
    out = ball.certify_positive_definite(lambda prec: _balls([[1, 1], [1, 1]]), ladder=(64, 128))
    assert out.verdict is Verdict.INCONCLUSIVE          # never REFUTED: singularity needs a null vector
    # barely PD: decided only once the precision resolves the 2^-100 gap
    eps = Fraction(1, 2**100)
    out = ball.certify_positive_definite(
        lambda prec: [[ball.to_ball(1) + 0, ball.to_ball(1)], [ball.to_ball(1), ball.to_ball(1 + eps)]])
    assert out.verdict is Verdict.PROVED and out.precision >= 128


@pytest.mark.parametrize("rows", [[[1, -1], [0, 0]], [[1, 2], [2, 4], [3, 6]], [[1, 0], [1, 0], [1, 0]],
                                  [[1, 2, 3]], [[0, 1], [0, 2], [0, 3]]])
def test_full_column_rank_never_proved_when_dependent(rows):
    out = ball.certify_full_column_rank(lambda prec: _balls(rows), ladder=(64, 128))
    assert out.verdict is Verdict.INCONCLUSIVE


def test_outcomes_are_immutable_and_empty_design_vacuous():
    out = ball.decide_with_ladder(lambda prec: (None, None), ladder=(64,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.verdict = Verdict.PROVED
    chol = ball.ball_cholesky(_balls([[1]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        chol.positive_definite = None
    # zero columns: full column rank holds vacuously
    assert ball.certify_full_column_rank(lambda prec: [], ladder=(64,)).verdict is Verdict.PROVED


@pytest.mark.parametrize("rows", [[[1, 0], [0, 1], [1, 1]], [[1, 1], [1, -1]], [[3], [4]],
                                  [[1, 2], [3, 4], [5, 7]]])
def test_full_column_rank_proved_when_independent(rows):
    out = ball.certify_full_column_rank(lambda prec: _balls(rows))
    assert out.verdict is Verdict.PROVED and out.precision == 64


# -- exact parsing ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,expected", [("1e-3", Fraction(1, 1000)), ("2.5E+2", 250), ("-3/6", Fraction(-1, 2)),
                                            (" 7 ", 7), (".5", Fraction(1, 2)), (fmpq(1, 3), Fraction(1, 3)),
                                            (fmpz(5), 5), (Fraction(2, 3), Fraction(2, 3))])
def test_parse_exact_values(value, expected):
    q = parse_exact(value, "f")
    assert q == expected and isinstance(q, Fraction)


@pytest.mark.parametrize("value", ["nan", "-Infinity", "1/0", "", "1e-5001", "x", "1" * (MAX_NUMBER_LENGTH + 1),
                                   0.5, JsonFloat("0.5"), True, None, [1], float("nan")])
def test_parse_exact_refuses(value):
    with pytest.raises((InputError, InputTypeError), match="^f: "):
        parse_exact(value, "f")


def test_documented_size_limits_are_exact():
    assert parse_exact("1" * 5000, "f") == Fraction(10 ** 5000 - 1, 9)
    for text in ("1" * 5001, "1e5001", "1E+5001", "1e-5001"):
        with pytest.raises(InputError, match="^f: "):
            parse_exact(text, "f")


def test_long_integers_below_the_documented_limit():
    """Integers of 4301..5000 digits (past Python's int_max_str_digits) are parsed, not a bare ValueError."""
    try:
        q = parse_exact("1" * 4500, "f")
    except InputError as exc:
        assert str(exc).startswith("f: ")
    else:
        assert q == Fraction(10 ** 4500 - 1, 9)


def test_exponent_and_float_opt_in():
    assert parse_exact(f"1e{MAX_EXPONENT}", "f") == 10 ** MAX_EXPONENT
    assert parse_exact(0.5, "f", allow_float=True) == Fraction(1, 2)
    assert parse_exact(JsonFloat("0.25"), "f", allow_float=True) == Fraction(1, 4)
    with pytest.raises(InputError, match="^f: "):
        parse_exact(JsonFloat("1e999"), "f", allow_float=True)


def test_parse_positive_boundaries():
    with pytest.raises(InputError, match="^r: must be > 0"):
        parse_positive(0, "r")
    with pytest.raises(InputError, match="^r: must be > 0"):
        parse_positive("-1/2", "r")
    assert parse_positive(0, "r", strict=False) == 0
    assert parse_positive("1/2", "r", strict=False) == Fraction(1, 2)
    with pytest.raises(InputError, match="^r: must be >= 0"):
        parse_positive("-1/2", "r", strict=False)
    assert parse_positive("1/1000", "r") == Fraction(1, 1000)
    with pytest.raises(InputTypeError, match="^r: "):
        parse_positive(0.5, "r")
    assert parse_positive(0.5, "r", allow_float=True) == Fraction(1, 2)


def test_parse_vector_and_matrix_boundaries():
    assert parse_vector([1, "1/2"], "v", max_len=2) == (1, Fraction(1, 2))
    with pytest.raises(InputError, match="^v: length 3 exceeds"):
        parse_vector([1, 2, 3], "v", max_len=2)
    with pytest.raises(InputTypeError, match=r"^v\[0\]: "):
        parse_vector([0.5], "v")
    assert parse_vector([0.5], "v", allow_float=True) == (Fraction(1, 2),)
    with pytest.raises(InputError, match="^v: expected length 2"):
        parse_vector([1], "v", dim=2)
    assert parse_matrix([[1, 2], [3, 4]], "M", max_size=2) == ((1, 2), (3, 4))
    with pytest.raises(InputError, match="^M: 3 rows exceed"):
        parse_matrix([[1], [2], [3]], "M", max_size=2)
    assert parse_matrix([[1, 2]], "M", shape=(1, 2)) == ((1, 2),)
    assert parse_matrix([[1, 2]], "M", shape=(None, 2)) == ((1, 2),)
    assert parse_matrix([[1, 2], [3, 4], [5, 6]], "M", shape=(None, 2))
    assert parse_matrix([[1, 2]], "M", shape=(1, None)) == ((1, 2),)
    for shape in ((1, 3), (2, None), (None, 3), (2, 2)):
        with pytest.raises(InputError, match="^M: expected shape"):
            parse_matrix([[1, 2]], "M", shape=shape)
    with pytest.raises(InputError, match=r"^M\[1\]: row length"):
        parse_matrix([[1, 2], [3]], "M")
    with pytest.raises(InputError, match="^M: matrix has no rows"):
        parse_matrix([], "M")


def test_exact_linear_algebra():
    assert rank_q([]) == 0 and rank_q([[]]) == 0 and rank_q([[0, 0]]) == 0
    assert rank_q([[1, 2], [2, 4]]) == 1 and rank_q([[1, 0], [0, 1]]) == 2
    rows = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
    for v in nullspace_q(rows):
        assert all(sum(Fraction(a) * b for a, b in zip(r, v)) == 0 for r in rows)
        assert next(x for x in v if x) > 0
    assert nullspace_q([[1, 0], [0, 1]]) == []
    assert nullspace_q([[2, -4]]) == [(2, 1)]
    assert nullspace_q([[0, 0, 1]]) == [(1, 0, 0), (0, 1, 0)]


# -- Results ----------------------------------------------------------------------------------------------

def test_result_properties_and_immutability():
    p = Result("T3", "s", "proved", "exact", {"kind": "gate-case-split"})
    r = Result("T3", "s", "refuted", "certified", {"kind": "gate-witness"})
    i = Result("T3", "s", "inconclusive", "evidence")
    assert (p.proved, p.refuted, p.inconclusive) == (True, False, False)
    assert (r.proved, r.refuted, r.inconclusive) == (False, True, False)
    assert (i.proved, i.refuted, i.inconclusive) == (False, False, True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.verdict = Verdict.REFUTED
    for bad in ("proved", "refuted"):
        with pytest.raises(ValueError, match="^verdict: "):
            Result("N8", "s", bad, "evidence")
    with pytest.raises(ValueError, match="^claim: "):
        Result("T12", "s", "proved", "exact", {"kind": "gate-case-split"})
    with pytest.raises(TypeError, match="^statement: "):
        Result("T3", 5, "proved", "exact", {"kind": "gate-case-split"})
    with pytest.raises(TypeError, match="^certificate: "):
        Result("T3", "s", "proved", "exact", certificate=[1])


def test_timing_never_matters():
    a = Result("T3", "s", Verdict.PROVED, Method.EXACT, certificate={"kind": "gate-case-split", "summary": "x"})
    b = a.with_timing(elapsed_s=123.0)
    assert a == b and b.timing == {"elapsed_s": 123.0}
    da, db = a.to_dict(), b.to_dict()
    da.pop("timing"), db.pop("timing")
    assert da == db


def test_summary_widths_and_reprs():
    long = Result("T3", "s", "proved", "exact", certificate={"kind": "gate-case-split", "summary": "y" * 400})
    assert len(long.summary()) == 160 and long.summary().endswith("...")
    assert len(long.summary(50)) == 50
    head = "T3 PROVED (exact): "
    exact = Result("T3", "s", "proved", "exact", certificate={"kind": "gate-case-split", "summary": "z" * (160 - len(head))})
    assert len(exact.summary()) == 160 and not exact.summary().endswith("...")
    assert len(repr(long)) == len("<Result >") + 120
    md = Result("T3", "stmt", "refuted", "exact", certificate={"kind": "gate-witness", "summary": "why"},
                conventions={"tie": "first"})._repr_markdown_()
    assert "**REFUTED**" in md and "`tie=first`" in md and md.rstrip().endswith("Certificate: why")
    assert Result.from_dict(long.to_dict()) == long
