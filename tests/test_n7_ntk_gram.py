"""N7 checks against the reference values of docs/paper2.md §9.4 (certified numbers only; float64 is never asserted)."""

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
    assert r.verdict is Verdict.REFUTED and r.certificate["kind"] == "ntk-null-vector"
    assert [[F(x) for x in v] for v in r.certificate["null_space"]] == [[1, -1, -1, 1]]
    assert len(r.parameters["queries"]) == 2 and len(r.parameters["heads"]) == 81


def test_per_token_reading_ratio_and_name():
    r = check_translates_singular(reading="per-token")
    assert r.verdict is Verdict.PROVED and r.claim == "N7.n1" and r.certificate["kind"] == "ntk-cholesky"
    assert r.parameters["reading"] == "per-token" and "per-token reading" in r.statement
    assert r.statement.startswith("The V-block NTK Gram (beta and its translate, per-token reading)")
    assert "is positive definite [instance sha256:" in r.statement
    assert _ratio_matches(r.evidence["spectrum"], "1.7343e-5")


def test_shared_reading_translates_refuted():
    r = check_translates_singular(reading="shared")
    assert r.verdict is Verdict.REFUTED and r.claim == "N7" and r.certificate["null_space"] == [["1", "-1", "-1", "1"]]


def test_ratio_matching_is_strict():
    spec = {"ratio": {"lower": F(520468, 10**12), "upper": F(520472, 10**12)}}
    assert _ratio_matches(spec, "5.2047e-7")
    assert not _ratio_matches(spec, "5.2049e-7")


def test_swapped_pairing_contradicts_on_f11():
    r = check_equivalence(["F11"], random_trials=0, swap_pairing=True)
    assert r.verdict is Verdict.REFUTED and "F11 m=1" in r.evidence["contradictions"]
    assert r.certificate["kind"] == "ntk-equivalence-counterexample" and len(r.parameters["rows"]) == 1
    assert r.certificate["relation"] == {"c": ["4", "-1"], "alpha": ["-1"]} or \
        r.certificate["relation"] == {"c": ["-4", "1"], "alpha": ["1"]}


def test_equivalence_is_statement_per_instance():
    r = check_equivalence(["F1", "F11", "F14"], random_trials=0)
    assert r.verdict is Verdict.PROVED and r.certificate["kind"] == "ntk-equivalence"
    assert [len(v["null_space"]) if "null_space" in v else 0 for v in r.certificate["rows"]] == [1, 0, 1, 2]
    assert "For these 4 instances (equivalence)" in r.statement and "(instance(s) 1, 2, 3)" in r.statement


def test_float64_table_is_certified_row_by_row():
    from verify.checks.n7_ntk_gram import check_float64_table

    r = check_float64_table()
    assert r.verdict is Verdict.PROVED and r.certificate["kind"] == "ntk-instances"
    assert [i["gram"] for i in r.parameters["instances"]] == ["PD", "singular", "PD", "PD", "PD"]
    assert "float64" not in r.statement
