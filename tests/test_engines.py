from fractions import Fraction

import pytest
from flint import arb

from verify.arith import ball, exact
from verify.arith.exact import JsonFloat, parse_exact, parse_matrix, parse_vector
from verify.errors import InputError, InputTypeError
from verify.results import Verdict


@pytest.mark.parametrize("text,value", [
    ("0.125", Fraction(1, 8)), ("-2/6", Fraction(-1, 3)), ("1e-30", Fraction(1, 10**30)),
    (" 7 ", Fraction(7)), (3, Fraction(3)), (Fraction(1, 3), Fraction(1, 3)), ("+.5", Fraction(1, 2)),
])
def test_parse_exact(text, value):
    assert parse_exact(text, "x") == value


@pytest.mark.parametrize("bad", ["nan", "inf", "-Infinity", "", "1/0", "abc", "1e999999", "0x10", "1/2/3"])
def test_parse_exact_rejects(bad):
    with pytest.raises(InputError, match="^x"):
        parse_exact(bad, "x")


def test_floats_refused_unless_opted_in():
    with pytest.raises(InputTypeError, match="w: 0.1 is a float"):
        parse_exact(0.1, "w")
    with pytest.raises(InputTypeError):
        parse_exact(JsonFloat("0.1"), "w")
    assert parse_exact(0.1, "w", allow_float=True) == Fraction(0.1)
    assert parse_exact(JsonFloat("0.5"), "w", allow_float=True) == Fraction(1, 2)
    with pytest.raises(InputTypeError):
        parse_exact(True, "w")
    with pytest.raises(InputError):
        parse_exact(float("nan"), "w", allow_float=True)


def test_parse_vector_matrix_shapes():
    assert parse_vector(["1/2", 1], "v", dim=2) == (Fraction(1, 2), Fraction(1))
    with pytest.raises(InputError, match=r"v: expected length 3"):
        parse_vector([1, 2], "v", dim=3)
    with pytest.raises(InputError, match=r"M\[1\]: row length"):
        parse_matrix([[1, 2], [3]], "M")
    with pytest.raises(InputTypeError, match="M: expected a list"):
        parse_matrix("12", "M")


def test_exact_linear_algebra():
    assert exact.rank_q([[1, 2], [2, 4]]) == 1
    assert exact.nullspace_q([[1, 1, -1]]) == [(1, -1, 0), (1, 0, 1)]
    assert exact.solve_q([[2, 0], [0, 4]], [1, 1]) == (Fraction(1, 2), Fraction(1, 4))


def test_certain_only_comparisons():
    x = arb(1) / 3 * 3 - 1  # a ball around 0
    assert ball.sign(x) is None
    assert not ball.certainly_positive(x) and not ball.certainly_negative(x)
    assert not ball.certainly_nonzero(x)
    assert ball.sign(arb(2)) == 1 and ball.sign(arb(0)) == 0


def test_ladder_inconclusive_and_escalation():
    out = ball.decide_with_ladder(lambda prec: (None, None))
    assert out.verdict is Verdict.INCONCLUSIVE and out.precision == ball.LADDER[-1]
    assert len(out.attempts) == len(ball.LADDER)

    # decided only once precision is high enough to separate 1 + 2^-100 from 1
    def attempt(prec):
        x = ball.to_ball(Fraction(1) + Fraction(1, 2**100)) - 1
        return (Verdict.PROVED if ball.certainly_positive(x) else None), prec
    out = ball.decide_with_ladder(attempt)
    assert out.verdict is Verdict.PROVED and out.precision == 128


def test_interval_cholesky():
    pd = [[arb(2), arb(1)], [arb(1), arb(2)]]
    assert ball.ball_cholesky(pd).positive_definite is True
    singular = [[arb(1), arb(1)], [arb(1), arb(1)]]
    assert ball.ball_cholesky(singular).positive_definite is None   # undecided, never "False"
    out = ball.certify_positive_definite(lambda prec: singular)
    assert out.verdict is Verdict.INCONCLUSIVE


def test_full_column_rank():
    eps = Fraction(1, 10**40)
    rows = [[1, 1], [1, 1 + eps], [0, 0]]
    out = ball.certify_full_column_rank(lambda prec: [[ball.to_ball(v) for v in r] for r in rows])
    assert out.verdict is Verdict.PROVED and out.precision >= 256  # Gram squares sigma_min
    dep = [[1, 2], [2, 4], [3, 6]]
    out = ball.certify_full_column_rank(lambda prec: [[ball.to_ball(v) for v in r] for r in dep])
    assert out.verdict is Verdict.INCONCLUSIVE


def test_ball_bounds_exact():
    lo, hi = ball.ball_bounds(arb(1) / 3)
    assert lo < Fraction(1, 3) < hi
    assert ball.certainly_contains(arb(1) / 3, Fraction(1, 3))
