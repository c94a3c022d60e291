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
