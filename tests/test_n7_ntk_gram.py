"""N7 checks against the spec's reference values (certified numbers only; float64 is never asserted)."""

from fractions import Fraction as F

import pytest

from verify.checks.n7_ntk_gram import (ORACLE_94, _ratio_matches, check_equivalence, check_oracle_gram,
                                       check_translates_singular)
from verify.results import Verdict


@pytest.mark.parametrize("row", [r for r in ORACLE_94 if ORACLE_94[r][3] is not None])
def test_certified_ratios_match_lse_9_4(row):
    r = check_oracle_gram(row)
    assert r.verdict is Verdict.PROVED
    assert r.certificate["precision_bits"] >= 200          # >= 60 digits
    assert r.evidence["reference"]["matches_5_digits"] is True, r.evidence["reference"]


def test_singular_row_has_the_exact_kernel():
    r = check_oracle_gram("translates-m2")
    assert r.verdict is Verdict.REFUTED
    assert [F(x) for x in r.certificate["null_vector"]] == [1, -1, -1, 1]
    assert r.certificate["modulo"] == "affine" and r.certificate["m"] == 2


def test_per_token_reading_ratio_and_name():
    r = check_translates_singular(reading="per-token")
    assert r.verdict is Verdict.REFUTED and r.claim == "N7.n1"
    assert r.conventions["reading"] == "per-token"
    assert _ratio_matches(r.certificate["spectrum"], "1.7343e-5")


def test_ratio_matching_is_strict():
    spec = {"ratio": {"lower": F(520468, 10**12), "upper": F(520472, 10**12)}}
    assert _ratio_matches(spec, "5.2047e-7")
    assert not _ratio_matches(spec, "5.2049e-7")


def test_swapped_pairing_contradicts_on_f11():
    r = check_equivalence(["F11"], random_trials=0, swap_pairing=True)
    assert r.verdict is Verdict.REFUTED and "F11 m=1" in r.certificate["contradictions"]
