"""The ``ntk-residual`` kind (verify/kernel/ntk.py): V-block NTK Grams above 128 rows proved PD by the exact
residual of a fixed-point Cholesky factor, re-checked by the kernel; every forgery rejected."""

import copy
import json
from fractions import Fraction as F

import pytest
from flint import arb

from verify import kernel
from verify.decide.ntk import ntk_positive_definite
from verify.kernel import ntk as K
from verify.kernel._read import Rejected
from verify.laws.oracle_families import grid_laws
from verify.results import Verdict

Q94 = [[1, F(1, 2)], [F(-3, 10), 1]]


def _laws(N, seed=2026):
    return grid_laws(N, seed=seed)


@pytest.fixture(scope="module")
def big():
    """70 discrete laws, 2 shared queries: a 140 x 140 Gram (148 heads), beyond ball Cholesky's 128 rows."""
    r = ntk_positive_definite(_laws(70), Q94)
    return json.loads(r.to_json())


def _rejected(r, match):
    with pytest.raises(Rejected) as exc:
        kernel.check(r, seconds=120)
    assert match in str(exc.value), str(exc.value)


def test_a_gram_above_128_rows_is_proved_and_rechecked(big):
    assert big["verdict"] == "proved" and big["certificate"]["kind"] == "ntk-residual"
    assert "(d = 2, 140 x 140) is positive definite" in big["statement"]
    assert sorted(big["certificate"]) == ["diagonal", "kind", "precision_bits", "summary"]
    assert kernel.check(big, seconds=120).startswith(
        "ntk-residual: 140x140 Gram (148 heads) PD by the exact residual of a fixed-point Cholesky factor")
    assert big["evidence"]["implies"] == "independent modulo affine functions"


def test_forged_residual_certificates_are_rejected(big):
    r = copy.deepcopy(big)
    r["certificate"]["diagonal"][7] = str(F(r["certificate"]["diagonal"][7]) * F(1001, 1000))
    _rejected(r, "certificate.diagonal[7]")
    r = copy.deepcopy(big)
    r["certificate"]["precision_bits"] = 16         # the shift 8 (n + 2)^2 2^-16 max K_ii swamps the Gram
    _rejected(r, "does not certify the rebuilt Gram PD at 16 bits")
    r = copy.deepcopy(big)
    r["certificate"]["diagonal"] = r["certificate"]["diagonal"][:-1]
    _rejected(r, "certificate.diagonal")
    # the same instance as a ball-Cholesky certificate: beyond that kind's 128 rows
    r = copy.deepcopy(big)
    r["certificate"] = {"kind": "ntk-cholesky", "precision_bits": 128, "pivots": r["certificate"]["diagonal"],
                        "diagonal": r["certificate"]["diagonal"]}
    _rejected(r, "the Gram must have 1..128 rows")


def test_a_singular_gram_is_never_certified_pd():
    """A duplicated law makes the Gram singular: the decision REFUTES with the exact null space (dimension 2: the
    duplicate relation holds modulo constants, so c (x) e_1 and c (x) e_2; the 138 other rows PD by the residual
    bound), and a residual PD certificate built for it (its true diagonal records, so only the mathematics can
    reject) is rejected at every rung."""
    laws = _laws(69)
    laws.append(laws[0])
    r = ntk_positive_definite(laws, Q94, ladder=(64, 128))
    assert r.verdict is Verdict.REFUTED and r.certificate["kind"] == "ntk-null-vector"
    assert len(r.certificate["null_space"]) == 2 and "pivots" not in r.certificate
    assert "the other 138 coordinates are PD (exact residual bound)" in kernel.check(json.loads(r.to_json()),
                                                                                      seconds=120)
    params = r.parameters
    inst = K.read_instance(params, large=True)
    for prec in (64, 256):
        with K.workprec(prec):
            G = K._gram(inst, prec, residual=True)
            assert K._residual_pd(G, prec) is False
            diag = [str(K.record(G[k][k])) for k in range(len(G))]
        forged = {"claim": "N7", "statement": K.statement(params, K.CONVENTIONS), "verdict": "proved",
                  "method": "certified", "parameters": params, "conventions": dict(K.CONVENTIONS),
                  "certificate": {"kind": "ntk-residual", "precision_bits": prec, "diagonal": diag}}
        _rejected(forged, f"does not certify the rebuilt Gram PD at {prec} bits")


def test_null_space_above_128_rows(big):
    """A translate: the 140-row Gram is singular with a one-dimensional null space (m = 2, modulo affine); the
    complement of the null space is checked by the residual bound.  Forgeries are rejected."""
    laws = _laws(69)
    laws.append(laws[0].translated([F(1, 2), F(-1, 5)]))
    r = json.loads(ntk_positive_definite(laws, Q94).to_json())
    c = r["certificate"]
    assert r["verdict"] == "refuted" and c["kind"] == "ntk-null-vector" and sorted(c) == [
        "diagonal", "kind", "null_space", "precision_bits", "summary"]
    v = c["null_space"][0]
    assert (v[:2], v[-2:], set(v[2:-2])) == (["1", "-1"], ["-1", "1"], {"0"})
    assert "139 coordinates are PD (exact residual bound)" in kernel.check(r, seconds=120)
    f = copy.deepcopy(r)
    f["certificate"]["pivots"] = f["certificate"]["diagonal"]           # the ball-Cholesky form: not above 128
    _rejected(f, "unknown key(s) pivots")
    f = copy.deepcopy(r)
    f["certificate"]["diagonal"][3] = str(F(f["certificate"]["diagonal"][3]) * 2)
    _rejected(f, "certificate.diagonal[3]")
    f = copy.deepcopy(r)
    f["certificate"]["null_space"] = [["1", "-1"] + ["0"] * 138]          # not null for every head
    _rejected(f, "does not vanish identically")
    # the PD Gram of the fixture with a made-up null vector: rejected
    f = copy.deepcopy(big)
    f["verdict"], f["method"] = "refuted", "exact"
    f["certificate"] = {"kind": "ntk-null-vector", "null_space": [["1", "-1"] + ["0"] * 138],
                        "precision_bits": 128, "diagonal": big["certificate"]["diagonal"][1:]}
    _rejected(f, "does not vanish identically")


def _balls(rows):
    return [[arb(x) for x in row] for row in rows]


def test_residual_bound_on_exact_matrices():
    assert K._residual_pd(_balls([[2, 1], [1, 2]]), 64) is True
    assert K._residual_pd(_balls([[1, 1], [1, 1]]), 64) is False           # singular
    assert K._residual_pd(_balls([[1, 2], [2, 1]]), 64) is False           # indefinite
    assert K._residual_pd(_balls([[0, 0], [0, 0]]), 64) is False
    assert K._residual_pd(_balls([[1, 0], [0, -1]]), 64) is False
    # a ball that contains a singular matrix: [[1, 1 +- 2^-10], [1 +- 2^-10, 1 + 2^-20]] holds [[1, 1], [1, 1]]
    wide = arb(1, 2.0 ** -10)
    assert K._residual_pd([[arb(1), wide], [wide, arb(1) + arb(2) ** -20]], 128) is False
    # PD for every matrix in these balls, but the shift c ~ 8 (n + 2)^2 2^-128 is far below the radii 2^-40: undecided
    loose = arb(1, 2.0 ** -40)
    assert K._residual_pd([[arb(1), loose], [loose, arb(1) + arb(2) ** -20]], 128) is False
    tight = arb(1, 2.0 ** -140)                                              # radii below the shift: certified
    assert K._residual_pd([[arb(1), tight], [tight, arb(1) + arb(2) ** -20]], 128) is True
    # only the lower triangle is read (the Gram is symmetric): an upper entry changes nothing
    assert K._residual_pd([[arb(2), arb(100)], [arb(1), arb(2)]], 64) is True
    assert K._residual_pd([[arb(2), arb(0)], [arb(5), arb(2)]], 64) is False
    # a non-finite entry is undecided, never PD
    assert K._residual_pd([[arb("inf"), arb(0)], [arb(0), arb(1)]], 64) is False


def test_factor_is_a_cholesky_factor_of_an_integer_matrix():
    A = [[25, 15, -5], [15, 18, 0], [-5, 0, 11]]
    assert K._factor(A, 3) == [[5], [3, 3], [-1, 1, 3]]
    assert K._factor([[1, 2], [2, 1]], 2) is None


def test_documented_residual_bounds():
    assert (K.MAX_RESIDUAL_ROWS, K.RESIDUAL_LIMITS, K.RESIDUAL_BLOCK) == (256, (80_000, 400_000, 40_000_000,
                                                                                16_000_000), 32)
    p = {"laws": [{"family": "discrete", "atoms": [["0"], [str(k + 1)]]} for k in range(3)], "reading": "shared",
         "queries": [[str(k + 1)] for k in range(86)], "heads": [[["1"]]]}              # 258 rows
    with pytest.raises(Rejected, match="1..256 rows"):
        K.read_instance(p, large=True)
    assert K.read_instance({**p, "queries": p["queries"][:85]}, large=True)["n"] == 255
    with pytest.raises(Rejected, match="1..128 rows"):
        K.read_instance({**p, "queries": p["queries"][:85]})
