"""Audits of T7 (softmax emulation error of the compiled maxout Transformer; docs/paper1.md R5, O3).

Every decided Result is re-checked by ``verify.kernel.softmax``: PROVED (kind ``softmax-emulation-points``)
states the certified error at the recorded points and the lemma's sup, with the Transformer named by its
recorded weights (checked to be the R4 compilation); REFUTED (``softmax-emulation-exceeded``) carries the
witness x.

Positive: O2 at lambda in {10, 100, 1000, 10000} (S = 40; the lemma's hypothesis is checked exactly and every
grid / near-tie point is certified below B = 4 W0(1/e)/lambda), the smallest admissible S, a 2-D network with
a read-out, and the sharpness network at factor 1.  Negative: T7.n sharpness (factor 1 - 1e-3) at three lambdas;
S = 3/2 (the gates leak: an O(1) error, certified above B); S = 11/2 (the lemma's hypothesis fails and no point
violates the bound: INCONCLUSIVE, never PROVED); factor 0.999 on O2 (the lemma proves factor 1 only).
"""

from verify.audit.spec import Audit
from verify.checks.t7_softmax_emulation import check_softmax_emulation, check_softmax_sharpness
from verify.objects.maxout import MaxoutNetwork
from verify.results import Verdict

# d = 2, k = 3, N = (2,), read-out (1, -1/2): a small network with a read-out factor |W_out|_inf = 3/2
NET_2D = MaxoutNetwork([([[[1, 0], [0, 1], ["-1/2", "-1/2"]], [[1, -1], [-1, 1], [0, "1/4"]]],
                         [[0, 0, "1/4"], [0, 0, "-1/3"]])], readout=([[1, "-1/2"]], [0]))

AUDITS = [
    Audit("T7", "o2-four-lambdas", Verdict.PROVED, check_softmax_emulation,
          {"lams": (10, 100, 1000, 10000), "S": 40},
          description="O3: 33 grid points + 3 x 17 near-tie points per lambda, certified below 4 W0(1/e)/lambda"),
    Audit("T7", "o2-smallest-S", Verdict.PROVED, check_softmax_emulation,
          {"lams": (10, 100), "S": "auto", "search": False},
          description="S = the smallest multiple of 1/8 with S >= sup|pieces| + Lip e (45/8)"),
    Audit("T7", "2d-readout", Verdict.PROVED, check_softmax_emulation,
          {"net": NET_2D, "box": [[-1, 1], [-1, 1]], "lams": (20, 200), "S": "auto", "grid": 6, "search": False},
          description="d = 2, k = 3, read-out: B carries |W_out|_inf = 3/2"),
    Audit("T7", "sharpness-net-factor-1", Verdict.PROVED, check_softmax_sharpness, {"lam": 100, "factor": 1},
          quick=True, description="max(x, -x): the bound W0(1/e)/lambda itself holds"),
] + [
    Audit("T7", f"n-sharpness-lam{lam}", Verdict.REFUTED, check_softmax_sharpness,
          {"lam": lam, "factor": "999/1000"},
          quick=lam == 1000, description="T7.n: at x* = (1 + W0(1/e))/(2 lambda) the error equals W0(1/e)/lambda")
    for lam in (10, 100, 1000)
] + [
    Audit("T7", "o2-S-3_2-gates-leak", Verdict.REFUTED, check_softmax_emulation,
          {"lams": (10,), "S": "3/2", "search": False},
          description="S below sup|pieces|: at x = 0 the error is ~1/2 > B"),
    Audit("T7", "o2-S-11_2-hypothesis-fails", Verdict.INCONCLUSIVE, check_softmax_emulation,
          {"lams": (10, 100), "S": "11/2", "search": False},
          description="S = certified sup|pieces| exactly: the enlarged-S hypothesis fails, so no sup claim"),
    Audit("T7", "o2-factor-0.999-not-claimed", Verdict.INCONCLUSIVE, check_softmax_emulation,
          {"lams": (10,), "factor": "999/1000", "search": False},
          description="the lemma gives factor 1 only; no grid point violates 0.999 B on O2"),
]
