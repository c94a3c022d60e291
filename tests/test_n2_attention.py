"""N2: attention = V grad Lambda(K^T Q x); wrong variants are never PROVED."""

import pytest
import sympy

from verify.checks.n2_attention_gradient import (_matrix_symbols, _tilted, _vector_symbols, attention_sympy,
                                                 check_attention_identity, check_continuous_attention)
from verify.decide.symbolic import exp_free_zero
from verify.errors import InputError
from verify.results import Verdict


@pytest.mark.slow
def test_identity_and_transposed():
    assert check_attention_identity(key_dim=2).verdict is Verdict.PROVED
    r = check_attention_identity(key_dim=2, transpose=True)
    assert r.verdict is Verdict.REFUTED
    assert r.certificate["witness"]["Q"] != r.certificate["witness"]["K"]


def test_symmetric_A_does_not_refute():
    """With Q = K (A = Q^T Q symmetric) the transposed form is correct: no refutation at that witness."""
    from verify.checks import n2_attention_gradient as n2
    saved = n2._WITNESSES[2]
    try:
        n2._WITNESSES[2] = (((1, 1), (0, 1)), ((1, 1), (0, 1)), ((1, 0), (0, 1)), (1, 0))
        r = check_attention_identity(key_dim=2, transpose=True, ladder=(64, 128))
        assert r.verdict is Verdict.INCONCLUSIVE
    finally:
        n2._WITNESSES[2] = saved


def test_wrong_context_jacobian_not_shown_equal():
    d, n = 2, 3
    ws = [sympy.Rational(1, 3)] * 3
    X = [_vector_symbols(f"y{j}_", d) for j in range(n)]
    A = _matrix_symbols("A", d, d)
    z = _vector_symbols("z", d)
    theta = A * z
    pk, m, H = _tilted(theta, X, ws)
    wrong = pk[0] * (X[0] - m) * theta.T          # missing the identity term
    assert not exp_free_zero((m).jacobian(X[0]) - wrong)


def test_bad_input():
    with pytest.raises(InputError, match="^key_dim"):
        check_attention_identity(key_dim=4)
    with pytest.raises(InputError, match="^weights"):
        check_attention_identity(weights=["1/2", "1/2", "1/2"])
    with pytest.raises(InputError, match=r"^atoms\[0\]"):
        check_attention_identity(atoms=[(1, 2, 3)])


@pytest.mark.slow
def test_continuous_quadrature_criterion():
    r = check_continuous_attention(dps=50)
    assert r.verdict is Verdict.INCONCLUSIVE and r.certificate["criterion_met"] is True


from fractions import Fraction as _F

from hypothesis import given, settings, strategies as st

from verify.strategies import points

_pt = points(2, -2, 2, max_denominator=5)


@settings(max_examples=8)
@given(st.lists(_pt, min_size=2, max_size=3, unique=True))
@pytest.mark.slow
def test_identity_for_random_rational_atoms(atoms):
    import json

    from verify import kernel
    r = check_attention_identity(key_dim=1, atoms=[list(a) for a in atoms])
    assert r.verdict is Verdict.PROVED and kernel.check(json.loads(r.to_json())).startswith("attention-identity")


@settings(max_examples=8)
@given(st.lists(_pt, min_size=2, max_size=3, unique=True))
@pytest.mark.slow
def test_transposed_never_proved(atoms):
    import json

    from verify import kernel
    r = check_attention_identity(key_dim=2, atoms=[list(a) for a in atoms], transpose=True, ladder=(64, 128))
    assert r.verdict is not Verdict.PROVED
    if r.verdict is Verdict.REFUTED:
        assert kernel.check(json.loads(r.to_json())).startswith("attention-witness")


def _cpu_seconds(kind, claim, params):
    import json
    import time

    from verify import kernel
    from verify.canonical import jsonable
    from verify.kernel import symbolic as S
    from verify.results import Method, Result

    r = json.loads(Result(claim, S.statement(kind, jsonable(params), {}), Verdict.PROVED, Method.EXACT,
                          certificate={"kind": kind}, parameters=params).to_json())
    t = time.process_time()
    out = kernel.check(r)
    return time.process_time() - t, out


@pytest.mark.slow
def test_kernel_table_at_its_bounds_within_10s():
    """The largest attention-table the kernel accepts (key dim 1, 3 symbolic atoms, 64-bit weights): < 10 s CPU."""
    seconds, out = _cpu_seconds("attention-table", "N2", {"key_dim": 1, "weights": [f"{2 ** 61}/{2 ** 63}",
                                                                                    f"{2 ** 62 - 3}/{2 ** 63}",
                                                                                    f"{2 ** 61 + 3}/{2 ** 63}"]})
    assert seconds < 10 and out.startswith("attention-table: 9 table entries")


@pytest.mark.slow
def test_audit_results_pass_the_kernel():
    import json

    from verify import kernel
    from verify.checks.n2_attention_gradient import check_derivative_table
    for r in (check_attention_identity(key_dim=3), check_attention_identity(key_dim=3, transpose=True),
              check_attention_identity(key_dim=2, atoms=[(1, 0), (0, 1), ("-1/2", "1/3")], weights=["1/2", "1/3", "1/6"]),
              check_derivative_table(key_dim=1)):
        assert kernel.check(json.loads(r.to_json())).startswith(r.certificate["kind"])
