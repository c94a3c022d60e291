"""N3-N6 check functions: parameters are validated, negative controls never PROVED, Results are reproducible."""

import json

import pytest

from verify.checks.n3_decision_procedure import check_no_overclaiming, check_oracle_family, check_perturbed_relation
from verify.checks.n4_continuous_families import check_random_families, check_series_vandermonde
from verify.checks.n5_discrete_laws import check_criterion_agreement, check_forced_dependent, check_s1_not_necessary
from verify.checks.n6_iid_samples import check_dirac_samples, check_iid_samples, check_lattice_samples
from verify.errors import InputError
from verify.kernel import check as recheck


@pytest.mark.parametrize("call, field", [
    (lambda: check_oracle_family("F99"), "case"),
    (lambda: check_no_overclaiming("2"), "h"),
    (lambda: check_random_families("spheres"), "kind"),
    (lambda: check_random_families("cubes", trials=0), "trials"),
    (lambda: check_series_vandermonde(0), "K"),
    (lambda: check_iid_samples(trials=0), "trials"),
    (lambda: check_iid_samples(trials=2, n_points=1), "n_points"),
    (lambda: check_iid_samples(trials=2, dist="cauchy"), "dist"),
])
def test_bad_parameters(call, field):
    with pytest.raises(InputError) as exc:
        call()
    assert str(exc.value).startswith(field)


def test_oracle_results_recheck_and_name_the_table_relation():
    for cid in ("F5", "F13", "F7", "F21"):
        r = check_oracle_family(cid)
        assert recheck(json.loads(r.to_json()))
        if r.refuted:
            assert r.evidence["table_relation"]["verified"] and r.evidence["found_relation_matches_table"]


def test_negative_controls_never_proved():
    assert check_perturbed_relation("1e-30").verdict.value == "refuted"
    assert check_forced_dependent(trials=8).verdict.value == "refuted"
    assert check_random_families("cubes", trials=4, distinct=False).verdict.value == "refuted"
    assert check_dirac_samples(trials=5).verdict.value == "refuted"
    assert check_lattice_samples(trials=20).verdict.value == "refuted"
    assert check_s1_not_necessary().verdict.value == "refuted"


def test_sweeps_reproducible():
    a = check_iid_samples(trials=20).to_dict()
    b = check_iid_samples(trials=20).to_dict()
    a.pop("timing"), b.pop("timing")
    assert a == b and a["seeds"]["numpy_default_rng"] and a["verdict"] == "proved"
    assert a["evidence"]["S2_count"] == 20 and recheck(a)
    c = check_criterion_agreement(families=10)
    assert c.verdict.value == "proved" and c.seeds["families"] == 55


def test_iid_trial_certificates_recheck_independently():
    """The vectorised modular certificate agrees with the re-checker's plain-integer arithmetic
    (huge signed exponents from float samples, both readings)."""
    import numpy as np

    from verify.decide.independence import independent_mod_affine
    from verify.laws.oracle_families import f25_trial

    rng = np.random.default_rng(5)
    for t in range(12):
        laws = f25_trial(rng, 5, 3, 2 if t % 2 else 3, dist="normal" if t % 3 else "uniform")
        r = independent_mod_affine(laws, "affine" if t % 4 else "constants", seed=t)
        assert r.proved and recheck(json.loads(r.to_json()))
