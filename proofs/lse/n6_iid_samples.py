"""Audits of N6 (empirical laws of i.i.d. samples; docs/paper2.md §6.1, oracle F25)."""

from verify.audit.spec import Audit
from verify.checks.n3_decision_procedure import check_oracle_family
from verify.checks.n6_iid_samples import check_dirac_samples, check_iid_samples, check_lattice_samples
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

AUDITS = [
    Audit("N6", "F25-one-trial", P, check_oracle_family, {"case": "F25", "claim": "N6"}, quick=True),
    Audit("N6", "normal-1000-trials", P, check_iid_samples, {"trials": 1000},
          description="F25 at scale: 1000 trials of 5 laws of 3 N(0, I2) points, exact certificate per trial"),
    Audit("N6", "uniform-d1-N10", P, check_iid_samples, {"trials": 50, "n_laws": 10, "dim": 1, "dist": "uniform"}),
    Audit("N6", "uniform-d3-N10", P, check_iid_samples, {"trials": 50, "n_laws": 10, "dim": 3, "dist": "uniform"}),
    Audit("N6", "n1-diracs", R, check_dirac_samples, {"trials": 100}),
    Audit("N6", "n2-lattice-samples", R, check_lattice_samples, {"trials": 200}),
]
