"""Audits of N3 (three-way decision procedure, docs/paper2.md §5.3 and the oracle table §6.7)."""

from verify.audit.spec import Audit
from verify.checks.n3_decision_procedure import check_no_overclaiming, check_oracle_family, check_perturbed_relation
from verify.laws.oracle_families import oracle_case
from verify.results import Verdict

_EXPECT = {"I": Verdict.PROVED, "D": Verdict.REFUTED}
_CASES = ["F1", "F1c", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F11c", "F12", "F13", "F14",
          "F15", "F16", "F17", "F18", "F18g", "F18g6", "F19", "F20", "F21", "F22", "F23", "F24", "F24g"]

AUDITS = [
    Audit("N3", f"oracle-{cid}", _EXPECT[oracle_case(cid).expected], check_oracle_family, {"case": cid},
          quick=cid in ("F4", "F11c"), description=f"{cid}: {oracle_case(cid).description} (modulo {oracle_case(cid).modulo})")
    for cid in _CASES
] + [
    Audit("N3", "n1-dilations-h128-double", Verdict.INCONCLUSIVE, check_no_overclaiming,
          {"h": "1/128", "ladder": (53,)}, quick=True, description="5 dilations of beta, 25 points, h = 1/128, 53 bits: never REFUTED"),
    Audit("N3", "n1-dilations-h512-double", Verdict.INCONCLUSIVE, check_no_overclaiming,
          {"h": "1/512", "ladder": (53,)}, description="h = 1/512 at 53 bits"),
    Audit("N3", "n1-dilations-h128-60digits", Verdict.PROVED, check_no_overclaiming,
          {"h": "1/128", "ladder": (200,)}, description="h = 1/128 at 200 bits (60 digits): PROVED"),
    Audit("N3", "n1-dilations-h512-60digits", Verdict.PROVED, check_no_overclaiming,
          {"h": "1/512", "ladder": (200,)}, description="h = 1/512 at 200 bits (60 digits): PROVED"),
    Audit("N3", "F3-modulo-constants", Verdict.PROVED, check_oracle_family, {"case": "F3", "modulo": "constants"},
          description="Lambda3 = Lambda1 + Lambda2 + 10 theta is affine, not constant: independent modulo constants"),
    Audit("N3", "F9-modulo-constants", Verdict.PROVED, check_oracle_family, {"case": "F9", "modulo": "constants"},
          description="translates differ by a linear function: independent modulo constants"),
    Audit("N3", "F14-modulo-constants", Verdict.REFUTED, check_oracle_family, {"case": "F14", "modulo": "constants"},
          description="Lambda1 + Lambda2 - 2 Lambda3 = 0 is also a constant relation"),
    Audit("N3", "n2-perturbed-relation", Verdict.REFUTED, check_perturbed_relation, {"eps": "1e-20"},
          description="F5 with (1, 0, -2, 1 + 1e-20): the identity is certified false"),
    Audit("N3", "n2-exact-relation", Verdict.PROVED, check_perturbed_relation, {"eps": 0},
          description="F5 with (1, 0, -2, 1): P1 P4 = P3^2 verified by expansion"),
]
