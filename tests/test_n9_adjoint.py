"""N9: the adjoint agrees with finite differences; dropping a term breaks it."""

from verify.checks.n9_adjoint_gradient import check_adjoint_gradient
from verify.errors import InputError
from verify.results import Verdict
import pytest


@pytest.mark.slow
def test_full_adjoint_meets_criterion():   # same arguments as the audits (memoised)
    for kw in ({"configuration": "constant-heads", "max_coordinates": 8},
               {"configuration": "layers-4", "max_coordinates": 2, "directions": 2}):
        r = check_adjoint_gradient(**kw)
        assert r.verdict is Verdict.INCONCLUSIVE and r.certificate["criterion_met"] is True
        assert r.evidence["max_relative_difference"] <= 1e-20 and r.evidence["ode_error_estimate"] <= 1e-30


@pytest.mark.slow
def test_dropped_terms_mismatch():
    for variant in ("drop-context", "drop-query"):
        r = check_adjoint_gradient(configuration="constant-heads", variant=variant, max_coordinates=2)
        assert r.certificate["criterion_met"] is True and r.evidence["max_relative_difference"] > 1e-3


def test_bad_input():
    with pytest.raises(InputError, match="^variant"):
        check_adjoint_gradient(variant="drop-everything")
    with pytest.raises(InputError, match="^configuration"):
        check_adjoint_gradient(configuration="layers-9")
    with pytest.raises(InputError, match="^dps"):
        check_adjoint_gradient(dps=5)


@pytest.mark.slow
def test_exact_instance():
    from verify.checks.n9_adjoint_gradient import check_adjoint_exact_instance
    # keyword arguments, as the audits pass them: the memoised Results are shared with the audit run
    r = check_adjoint_exact_instance(variant="full")
    assert r.verdict is Verdict.PROVED and r.evidence["zero_for_all_v"] is True
    for variant in ("drop-context", "drop-query"):
        assert check_adjoint_exact_instance(variant=variant).verdict is Verdict.REFUTED
    with pytest.raises(InputError, match="^v"):
        check_adjoint_exact_instance("full", v=0)


def test_fd_loss_memo_returns_the_direct_numbers():
    from verify.checks.n9_adjoint_gradient import (BETA, QUERY, QUERY_TARGET, TARGETS, WEIGHTS, _LOSS_MEMO,
                                                   _loss_value, n9_configuration)
    from verify.decide.mean_field import HPModel, backend

    layers, _ = n9_configuration("layers-4")
    be = backend("gmpy2", 20)
    first = _loss_value(layers, be, 1, 3)
    assert _loss_value(layers, be, 1, 3) is first and len(_LOSS_MEMO) >= 1
    direct = HPModel(BETA, WEIGHTS, layers, QUERY, be).loss_value(TARGETS, QUERY_TARGET, 1, 3)
    assert repr(direct[0]) == repr(first[0]) and direct[1] == first[1]
    assert _loss_value(layers, backend("gmpy2", 21), 1, 3) is not first          # precision is part of the key
