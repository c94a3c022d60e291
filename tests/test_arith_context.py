"""The arithmetic context protocol: every implementation agrees with EXACT on rationals, undecided ball signs
are never answered, and no second mechanism for swapping arithmetic comes back."""

import ast
import pathlib
import random
from fractions import Fraction as F

import pytest

from verify.arith.ball import ball_bounds
from verify.arith.context import (EXACT, FMPQ, MPQ, SYMPY, BallContext, Context, MpfrContext, MpmathContext,
                                  UndecidedSign)
from verify.decide.geometry import box_cell
from verify.decide.tracer import TracingContext

ROOT = pathlib.Path(__file__).resolve().parents[1] / "verify"
RNG = random.Random(20261201)
VALUES = [F(RNG.randint(-50, 50), RNG.randint(1, 9)) for _ in range(40)] + [F(0), F(1, 3), F(-1, 3)]


def _contexts():
    return [EXACT, MPQ, FMPQ, BallContext(128), MpmathContext(dps=40), MpfrContext(140), SYMPY,
            TracingContext(box_cell([(0, 1)]))]


@pytest.mark.parametrize("ctx", _contexts(), ids=lambda c: c.name)
def test_contexts_agree_with_exact_on_rationals(ctx):
    with ctx.scope():
        vals = [ctx.convert(v) for v in VALUES]
        for q, v in zip(VALUES, vals):
            assert ctx.sign(v) == EXACT.sign(q)
        for a, b in zip(VALUES[::2], VALUES[1::2]):
            assert ctx.argmax_set([ctx.convert(a), ctx.convert(b)]) == EXACT.argmax_set([a, b])
        lc = ctx.linear_combination(vals[:3], [2, 0, F(-1, 2)], F(5, 7))
        want = EXACT.linear_combination(VALUES[:3], [2, 0, F(-1, 2)], F(5, 7))
        if isinstance(ctx, BallContext):
            lo, hi = ball_bounds(lc)
            assert lo <= want <= hi
        elif isinstance(ctx, (MpmathContext, MpfrContext)):
            assert abs(lc - ctx.convert(want)) < ctx.convert(F(1, 10 ** 30))
        elif isinstance(ctx, type(FMPQ)):
            assert ctx.to_fraction(lc) == want
        else:
            assert lc == want
        r = ctx.relu(ctx.convert(F(-3, 2)))
        assert ctx.sign(r) == 0


def test_an_undecided_ball_sign_is_never_a_decision():
    ball = BallContext(64)
    with ball.scope():
        third = ball.convert(F(1, 3))
        x = third * 3 - 1                     # contains 0, not exactly 0
        assert ball.sign(x) is None
        for decide in (lambda: ball.argmax_set([x, ball.zero]), lambda: ball.max([third * 3, ball.one])):
            with pytest.raises(UndecidedSign):
                decide()
        lo, hi = ball_bounds(ball.relu(x))     # the ReLU of a ball is its enclosure, not a decision
        assert lo <= 0 <= hi


def test_softmax_weights_enclose_the_exact_values():
    ball = BallContext(128)
    with ball.scope():
        w = ball.softmax([ball.convert(0), ball.convert(0)], ball.convert(5))
        assert all(ball_bounds(p)[0] <= F(1, 2) <= ball_bounds(p)[1] for p in w)
    mp = MpmathContext(dps=30)
    with mp.scope():
        assert abs(sum(mp.softmax([mp.convert(1), mp.convert(2)], mp.convert(3))) - 1) < 1e-25
    assert SYMPY.softmax([SYMPY.convert(1), SYMPY.convert(1)], 2) == [F(1, 2), F(1, 2)]


def test_exact_context_has_no_exp():
    with pytest.raises(NotImplementedError):
        EXACT.exp(F(1))


def _functions(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        if isinstance(node, ast.ClassDef):
            yield node


def test_one_arithmetic_mechanism():
    """Outside the kernel: no ``lift=`` / ``num=`` conversion parameters (nor ``conv=`` below the claims, where
    it names a convention), no ``*Backend`` classes, and every class that decides signs and computes (an
    arithmetic) is a Context."""
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        if "kernel" in path.relative_to(ROOT).parts:
            continue
        for node in _functions(path):
            if isinstance(node, ast.ClassDef):
                if node.name.endswith("Backend"):
                    bad.append(f"{path.name}: class {node.name}")
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                arithmetic = "sign" in methods and methods & {"relu", "mul", "argmax_set", "max", "exp", "convert"}
                if arithmetic and node.name != "Context" and not bases & {"Context", "ExactContext"}:
                    bad.append(f"{path.name}: class {node.name} decides signs outside the Context protocol")
                continue
            args = [a.arg for a in node.args.args + node.args.kwonlyargs]
            layer = path.relative_to(ROOT).parts[0]
            names = ("lift", "num") + (("conv",) if layer in ("arith", "objects", "constructions", "decide") else ())
            for name in names:
                if name in args:
                    bad.append(f"{path.name}: {node.name}({name}=...)")
    assert not bad, "\n".join(bad)


def test_protocol_base_is_abstract_in_sign():
    with pytest.raises(NotImplementedError):
        Context().sign(1)


# -- pins of the helpers whose mutants survived the first bench run (bench/mutation.py, 2026-12-01) -------------

def test_combinations_default_constant_and_empty_rows():
    assert EXACT.linear_combination([F(1, 2)], [3]) == F(3, 2)          # the constant defaults to 0
    assert EXACT.linear_combination([F(5), F(7)], [0, 0]) == 0          # no non-zero coefficient: zero
    assert EXACT.sparse_combination([F(5)], []) == 0
    assert EXACT.sparse_combination([F(5)], [], F(2)) == 2
    assert EXACT.sparse_combination([F(5), F(1, 3)], [(1, 3)]) == 1


def test_fmpq_affine_is_w_h_plus_b():
    W = FMPQ.matrix(2, 2, [FMPQ.convert(x) for x in (1, 2, 3, 4)])
    H = FMPQ.matrix(2, 1, [FMPQ.convert(x) for x in (F(1, 2), -1)])
    B = FMPQ.matrix(2, 1, [FMPQ.convert(x) for x in (F(1, 3), 0)])
    assert [FMPQ.to_fraction(v) for v in FMPQ.affine(W, B, H)] == [F(1, 2) - 2 + F(1, 3), F(3, 2) - 4]


def test_sympy_native_values_are_non_rational_expressions():
    import sympy

    x = sympy.Symbol("x")
    assert SYMPY.is_native(x + 1) is True
    assert SYMPY.is_native(sympy.Rational(1, 2)) is False
    assert SYMPY.is_native(3) is False and SYMPY.is_native(F(1, 2)) is False


def test_text_default_digits():
    from flint import arb

    from verify.arith.ball import workprec

    b = BallContext()
    with workprec(200):                       # enough digits that 20 and 21 print differently
        x = arb(1) / 3
        assert b.text(x) == x.str(20, radius=True) != x.str(21, radius=True)
    m = MpmathContext(dps=40)
    with m.scope():
        y = m.convert(F(1, 3))
        assert m.text(y) == m._mp.nstr(y, 30)


def test_evidence_contexts_lift_exact_constants():
    """The evidence contexts combine their numbers with exact constants (coefficients and the constant term)."""
    m = MpmathContext(dps=30)
    with m.scope():
        v = m.linear_combination([m.convert(1)], [F(1, 3)], F(1, 6))
        assert abs(v - m.convert(F(1, 2))) < m._mp.mpf(10) ** -25
    g = MpfrContext(prec=100)
    with g.scope():
        w = g.linear_combination([g.convert(1)], [F(1, 3)], F(1, 6))
        assert abs(float(w) - 0.5) < 1e-15 and type(w).__name__ == "mpfr"
