"""T11 check: equivariance proved for average / softmax; the first rule and positional codes never PROVED."""

from hypothesis import given, settings, strategies as st

from verify.checks.t11_permutation_equivariance import (check_first_rule_ties, check_permutation_equivariance,
                                                        check_positional_codes,
                                                        check_softmax_equivariance_evidence)


@settings(max_examples=10)
@given(st.integers(0, 10 ** 6))
def test_average_always_equivariant(seed):
    assert check_permutation_equivariance(trials=3, seed=seed, n_max=4).proved


def test_first_rule_and_codes_refuted():
    r = check_first_rule_ties()
    assert r.refuted and r.certificate["witness"]["T_XPi"][3] != r.certificate["witness"]["T_X"][3]
    assert not check_permutation_equivariance(trials=16, tie="first").proved
    assert check_positional_codes().refuted


def test_softmax_evidence_is_never_a_verdict():
    r = check_softmax_equivariance_evidence(n=5, trials=3)       # the audit's parameters
    assert r.inconclusive and r.method.value == "evidence"
    assert r.certificate["criterion_met"] is True and r.evidence["criterion_met"] is True
