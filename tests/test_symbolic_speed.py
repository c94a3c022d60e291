"""The symbolic zero tests' exact fast paths (flint polynomials before ``sympy.cancel``, coefficient lists before
``cancel`` for integer ratios of exponents) and the byte-identity of the N1, N2, T2, T7 and T11 audits whose
procedures were sped up: the sha256 of each Result's JSON as in tests/test_casesplit_speed.py, recorded on the
commit before the speed-ups.  The audits that take seconds are compared only with VERIFY_HASH_ALL=1 (the audit
run of the test suite checks their verdicts, and the pytest plugin re-checks them with the kernel, anyway)."""

import os

import pytest
import sympy

from test_casesplit_speed import result_hash

from verify.audit.discovery import load_audits
from verify.audit.runner import run_audit
from verify.decide import symbolic as S
from verify.kernel import symbolic as KS

BEFORE = {
    "N1/symbolic-derivatives": "5016a4f90d17302e21a4893e9d20600e936f6294504f13c0102a6bf6c49158c8",
    "N1/taylor-bernoulli-order-12": "ef3b834fd8d8d75b7e240a056757726eb57b2bcf52d561a365502db9d5b39d29",
    "N1/translation-convolution-cube-limits": "7dc7556a3502a1aa352e28a4e291a4039e6fa14889ebf57869071567f68761f4",
    "N2/derivative-table-k1": "ea1072ada42934f7e2f77ac9626ef8e2818367bfc91263557ad187b01a0f5c75",
    "N2/continuous-quadrature": "dced537930a5bf105ae25dc02753f610445579da0df9e4192a24d38e58de2835",
    "N2/identity-beta-k1": "9af9267ee45d770649eba38c0f61a32f9a83bf329d5276d785ee2b78c20caafd",
    "N2/identity-beta-k3": "a534e31e4d410abc99aa79ed8706c930ce6974ddadd4929c63f901a8e5dea37e",
    "N2/n-transposed-k3": "204bd8b2e2615efadd6c999d549b45d2620d0672eb280ffb60d7e905fb2acc92",
}
SLOW = {"N1/symbolic-derivatives", "N1/translation-convolution-cube-limits", "N2/derivative-table-k1",
        "N2/continuous-quadrature", "N2/identity-beta-k3"}
ALL = os.environ.get("VERIFY_HASH_ALL") == "1"


@pytest.fixture(scope="module")
def audits():
    return {a.id: a for a in load_audits()}


@pytest.mark.parametrize("audit_id", sorted(BEFORE))
def test_results_byte_identical_to_before(audit_id, audits):
    if audit_id in SLOW and not ALL:
        pytest.skip("seconds long: compared with VERIFY_HASH_ALL=1")
    if audit_id not in audits:
        pytest.skip(f"{audit_id} renamed by its owner")
    assert result_hash(run_audit(audits[audit_id]).result) == BEFORE[audit_id]


a, b, c = sympy.symbols("a b c")


@pytest.mark.parametrize("zero_test", [S._flint_zero, KS._flint_zero])
def test_flint_zero_decides_rational_functions(zero_test):
    assert zero_test(a / (a + b) + b / (b + a) - 1) is True
    assert zero_test(sympy.Integer(0)) is True
    assert zero_test(1 / (a - b) ** 2 - 1 / (b - a) ** 2) is True
    assert zero_test(sympy.sqrt(c) ** 3 / c - sympy.sqrt(c)) is True       # sqrt(c) is one generator
    # negative: a non-zero rational function, a float, a zero denominator are never "zero"
    assert zero_test(a / (a + b) - 1) is False
    assert zero_test(a / (a + b) + b / (a + b) - 1 + sympy.Rational(1, 10 ** 30)) is False
    assert zero_test(sympy.Float(0.5) * a - b) is None
    assert zero_test(a * sympy.Pow(b - b, -1, evaluate=False)) is None      # zoo
    assert zero_test(sympy.pi * a - sympy.pi * b) is None


def test_rational_zero_falls_back_to_cancel_on_non_zero():
    assert S._rational_zero(a / (a + b) + b / (a + b) - 1)
    assert not S._rational_zero(a / (a + b) + b / (a + b))
    assert not S._rational_zero(sympy.exp(a) - sympy.exp(b))


def test_integer_ratio_as_cancel():
    cases = [(2 * a + 4 * b, a + 2 * b), (-a - 2 * b, a + 2 * b), (a + 2 * b, 2 * a + 4 * b), (a + b, a + 2 * b),
             (a * b + b, a + 1), (a ** 2, a), (3 * a * b, a * b), (sympy.sin(a) * 2, sympy.sin(a)), (a + 1, a)]
    for arg, key in cases:
        ratio = sympy.cancel(arg / key)
        want = int(ratio) if ratio.is_Integer else None
        assert S._integer_ratio(arg, S._polynomial_coefficients(arg), key, {}) == want, (arg, key)


def test_exp_free_zero_unchanged_on_the_docstring_cases():
    assert S.exp_free_zero(sympy.exp(a * (a + b)) - sympy.exp(a ** 2 + a * b))
    assert S.exp_free_zero(sympy.exp(-a) * sympy.exp(a) ** 2 - sympy.exp(a))
    assert not S.exp_free_zero(sympy.exp(a) * sympy.exp(b) - sympy.exp(a + b))
    assert S.exp_free_zero(sympy.exp(a) * sympy.exp(b / 3) - sympy.exp(a + b / 3), fine=True)
    assert not S.exp_free_zero(sympy.exp(a) - sympy.exp(b), fine=True)


def test_ball_context_converts_each_weight_once_per_precision():
    from fractions import Fraction

    from verify.arith.ball import workprec
    from verify.arith.context import BallContext

    ops = BallContext()
    third = Fraction(1, 3)
    with workprec(64):
        a = ops.convert(third)
        assert ops.convert(third) is a                          # the cached ball
    with workprec(256):
        b = ops.convert(third)
        assert b is not a and b.rad() < a.rad()                 # another precision: converted again
        assert ops.convert(Fraction(2, 3)).overlaps(2 * b) and not ops.convert(Fraction(2, 3)).overlaps(b)
