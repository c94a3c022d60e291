"""The symbolic zero tests' exact fast paths (flint polynomials before ``sympy.cancel``, coefficient lists before
``cancel`` for integer ratios of exponents) and the byte-identity of the N1, N2, T2, T7 and T11 audits whose
procedures were sped up: the sha256 of each Result's JSON as in tests/test_casesplit_speed.py, recorded on the
commit before the speed-ups.  The audits that take seconds are compared only with VERIFY_HASH_ALL=1 (the audit
run of the test suite checks their verdicts, and the pytest plugin re-checks them with the kernel, anyway)."""


import pytest
import sympy

from _pins import HASH_ALL, result_hash

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
    "T2/sharp-bound-n4-lam10": "8c49b5f325c98bff8e486344f5ebe40138bbedd56166d098dbf563ff5180eb09",
    "T7/sharpness-net-factor-1": "ea0360fafc99bebfb3db33a0cb2c8757f4e5e7833a4db153071cb3b53466ff21",
    "T11/identical-tokens": "deb7780ef02f7ed1d0a6b29ec1171997a0138bd5e8c17e5aca4e68f96fa640f8",
    "T7/o2-four-lambdas": "a45d1854fae07c1e2487a8f42f84b11d8a4a8c68f0b505d12da5ec50606febce",
    "T7/o2-smallest-S": "adb780a5f476375fc65ab7675fd7921360c26149cb4ab206c1b0aefee6eb0799",
    "T7/2d-readout": "ac065fe6fa0a3010a734756a67fbab5fe98370ade851958af1862067eca2c3e5",
    "T11/hardmax-average-random": "eb24e47b5e2a9293c4ed817ba29d6d7f850b4745c8aa76bb56df2999009a0e60",
    "T2/sharp-bound-n16-lam100": "e7c5d42a14958d56c66cb716ea696a2aea773314447d4453ac9a97d786e565c8",
    "T11/softmax-50-digits-n5": "39700bd2cd34408c012f076ce7d24bd0f5e40ed053ad091c9eb9c85b69d38158",
    "T2/scalar-problem": "ce27ca3f385077c261bc0d89876173d5616735f6f097d1bf71d1cc096dfb5806",
}
SLOW = {"N1/symbolic-derivatives", "N1/translation-convolution-cube-limits", "N2/derivative-table-k1",
        "N2/continuous-quadrature", "N2/identity-beta-k3", "T7/o2-four-lambdas", "T7/o2-smallest-S", "T7/2d-readout",
        "T11/hardmax-average-random", "T2/sharp-bound-n16-lam100", "T11/softmax-50-digits-n5", "T2/scalar-problem"}
ALL = HASH_ALL


@pytest.fixture(scope="module")
def audits():
    return {a.id: a for a in load_audits()}


@pytest.mark.parametrize("audit_id", sorted(BEFORE))
def test_results_byte_identical_to_before(audit_id, request):
    if audit_id in SLOW and not ALL:
        pytest.skip("seconds long: compared with VERIFY_HASH_ALL=1")
    audits = request.getfixturevalue("audits")          # loaded only when a comparison runs
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


def test_laurent_at_zero_exact_and_refuses_what_it_cannot_read():
    from fractions import Fraction

    t = sympy.Symbol("t", real=True)
    coth = (sympy.exp(t) + sympy.exp(-t)) / (sympy.exp(t) - sympy.exp(-t))
    v, c = S.laurent_at_zero(coth - 1 / t, t, 8)
    assert v == 1 and c[:3] == [Fraction(1, 3), 0, Fraction(-1, 45)]
    v, c = S.laurent_at_zero(coth, t, 8)
    assert v == -1 and c[0] == 1                                   # a pole: no finite limit
    assert S.laurent_at_zero(sympy.exp(-2 * sympy.log(t)) - t ** -2, t) == (0, [])
    for bad in (sympy.sin(t), sympy.exp(1 + t), sympy.log(1 + t), 1 / (sympy.exp(t) - 1 - t - t ** 2 / 2 - t ** 3 / 6
                                                                      - t ** 4 / 24)):
        assert S.laurent_at_zero(bad, t, 4) is None, bad           # never a guess


def test_n1_limit_at_zero_as_sympy_limit():
    from verify.checks.n1_cgf_closed_forms import _limit_at_zero

    t = sympy.Symbol("t", real=True)
    # sympy.limit's values for these (recorded, not recomputed: seconds each)
    for e, want in ((sympy.coth(t / 2) / 2 - 1 / t + sympy.Rational(1, 3), sympy.Rational(1, 3)),
                    (1 / t ** 2 - 1 / sympy.sinh(t) ** 2, sympy.Rational(1, 3)), (sympy.sinh(t) / t, 1),
                    (sympy.coth(t) - 1 / t, 0)):
        assert _limit_at_zero(e.rewrite(sympy.exp), t) == want, e
    assert not _limit_at_zero(sympy.coth(t).rewrite(sympy.exp), t).is_finite      # a pole is never a finite limit
