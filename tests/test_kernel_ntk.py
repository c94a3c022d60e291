"""verify.kernel.ntk: the N7 kinds (ntk-cholesky, ntk-null-vector, ntk-instances, ntk-equivalence,
ntk-equivalence-counterexample).  Genuine Results accepted; forgeries 5 and 6 of issue 11 and every tampering
rejected; exact expectations for the null-space algebra; hostile inputs bounded in time."""

import copy
import functools
import json
import math
import time
from fractions import Fraction as F

import pytest

from verify import kernel
from verify.kernel import Rejected, _read as R, ntk as K

Q94 = [[1, F(1, 2)], [F(-3, 10), 1]]
LADDER = (128, 256)
BETA = {"family": "discrete", "atoms": [["0", "0"], ["1", "3/10"], ["-2/5", "11/10"]],
        "weights": ["1/3", "1/3", "1/3"]}
BETA_T = {"family": "discrete", "atoms": [["1/2", "-1/5"], ["3/2", "1/10"], ["1/10", "9/10"]],
          "weights": ["1/3", "1/3", "1/3"]}
HEADS9 = [[["1/2", "0"], ["0", "1/2"]], [["0", "1/2"], ["-1/2", "0"]], [["1/2", "1/2"], ["0", "-1/2"]],
          [["-1/2", "0"], ["1/2", "1/2"]], [["0", "0"], ["1/2", "-1/2"]]]
# a changed precision hint keeps a Result true and proved: the kernel re-runs ball Cholesky at the new
# precision and the recorded pivots (rounded down to 32 bits) still bound the rebuilt ones
KERNEL_FREE_PATHS = [r"\.precision_bits$"]


def _dict(r):
    return json.loads(r.to_json())


def _laws(case):
    from verify.laws.oracle_families import oracle_case

    return list(oracle_case(case).laws)


@functools.lru_cache(maxsize=None)
def _samples():
    from verify.checks.n7_ntk_gram import check_equivalence
    from verify.decide.ntk import ntk_positive_definite as pd
    from verify.laws import Discrete, Gaussian

    b = Discrete([[0, 0], [1, F(3, 10)], [F(-2, 5), F(11, 10)]])
    t = b.translated([F(1, 2), F(-1, 5)])
    mu = Discrete([[0], [1]])
    out = {
        "cholesky-translates-m1": pd([b, t], Q94[:1], heads=5, seed=1, ladder=LADDER, spectrum=False),
        "cholesky-F11": pd(_laws("F11"), [[1]], heads=4, seed=2, ladder=LADDER, spectrum=False),
        "cholesky-per-token": pd([b, t], None, head_set=[[[F(x) for x in r] for r in A] for A in HEADS9],
                                 reading="per-token", ladder=LADDER, spectrum=False, claim="N7.n1"),
        "null-translates-m2": pd([b, t], Q94, heads=5, seed=1, ladder=LADDER, spectrum=False),
        "null-F1": pd(_laws("F1"), [[1]], heads=4, seed=0, ladder=LADDER, spectrum=False),
        "null-collinear": pd([mu, mu.dilated(2)], [[1], [2]], heads=6, seed=0, ladder=LADDER, spectrum=False),
        "null-gaussians-2d": pd([Gaussian([[1, 0], [0, 1]]), Gaussian([[2, 0], [0, 2]])], Q94, heads=4, seed=3,
                                ladder=LADDER, spectrum=False),
        "equivalence-F1-F11": check_equivalence(["F1", "F11"], random_trials=0, seed=1, ladder=LADDER),
        "equivalence-F2-F9": check_equivalence(["F2", "F9"], random_trials=0, seed=2, ladder=LADDER),
        "counter-F11": check_equivalence(["F11"], random_trials=0, swap_pairing=True, seed=0, ladder=LADDER),
        "counter-F1-F11": check_equivalence(["F1", "F11"], random_trials=0, swap_pairing=True, seed=4,
                                            ladder=LADDER),
    }
    out = {k: _dict(r) for k, r in out.items()}
    out["instances-a"] = _instances(out["cholesky-translates-m1"], out["null-translates-m2"])
    out["instances-b"] = _instances(out["null-F1"], out["cholesky-F11"], out["null-collinear"])
    out["residual-translates-m1"] = _residual(out["cholesky-translates-m1"])
    out["residual-per-token"] = _residual(out["cholesky-per-token"])
    return out


def _residual(r, prec=128):
    """An ``ntk-residual`` Result on the instance of the PD sample ``r`` (the kind takes any size; the decision
    uses it above MAX_ROWS rows)."""
    rec = K.gram_residual(r["parameters"], prec)
    cert = {"kind": "ntk-residual", "precision_bits": prec, "diagonal": [str(x) for x in rec["diagonal"]]}
    return _result(r["parameters"], cert, "proved", "certified", claim=r["claim"])


def _instances(*rs):
    params = {"instances": [{**r["parameters"], "gram": "PD" if r["verdict"] == "proved" else "singular"}
                            for r in rs], "label": "sample table"}
    subs = [{k: v for k, v in r["certificate"].items() if k not in ("kind", "summary")} for r in rs]
    return _result(params, {"kind": "ntk-instances", "instances": subs}, "proved", "certified")


def _result(params, cert, verdict, method, claim="N7"):
    return {"claim": claim, "statement": K.statement(params, K.CONVENTIONS), "verdict": verdict, "method": method,
            "certificate": cert, "parameters": params, "conventions": dict(K.CONVENTIONS)}


def kernel_samples():
    return [copy.deepcopy(r) for r in _samples().values()]


def S(name):
    return copy.deepcopy(_samples()[name])


def ok(r):
    return kernel.check(r, seconds=60)


def rejected(r, match=None):
    with pytest.raises(Rejected) as exc:
        kernel.check(r, seconds=60)
    if match:
        assert match in str(exc.value), str(exc.value)
    return str(exc.value)


def retagged(r):
    """The old statement text with the instance tag of the (changed) parameters."""
    text = r["statement"].rsplit(" [instance sha256:", 1)[0]
    r["statement"] = R.bound_statement(text, r["parameters"], r["conventions"])
    return r


def tagged(r):
    """The statement the kernel derives when the parameters are valid (so only the certificate's mathematics or a
    bound can reject), else the old text with a fresh tag."""
    try:
        return restated(r)
    except Rejected:
        return retagged(r)


def restated(r):
    r["statement"] = K.statement(r["parameters"], r["conventions"])
    return r


# -- genuine Results ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_sample_is_accepted_with_its_kind():
    kinds = {name: r["certificate"]["kind"] for name, r in _samples().items()}
    assert kinds == {
        "cholesky-translates-m1": "ntk-cholesky", "cholesky-F11": "ntk-cholesky", "cholesky-per-token": "ntk-cholesky",
        "null-translates-m2": "ntk-null-vector", "null-F1": "ntk-null-vector", "null-collinear": "ntk-null-vector",
        "null-gaussians-2d": "ntk-null-vector", "equivalence-F1-F11": "ntk-equivalence",
        "equivalence-F2-F9": "ntk-equivalence", "counter-F11": "ntk-equivalence-counterexample",
        "counter-F1-F11": "ntk-equivalence-counterexample", "instances-a": "ntk-instances",
        "instances-b": "ntk-instances", "residual-translates-m1": "ntk-residual",
        "residual-per-token": "ntk-residual"}
    for r in kernel_samples():
        ok(r)


def test_exact_null_spaces():
    assert S("null-translates-m2")["certificate"]["null_space"] == [["1", "-1", "-1", "1"]]
    assert S("null-F1")["certificate"]["null_space"] == [["1", "1", "-1"]]
    assert S("null-collinear")["certificate"]["null_space"] == [["0", "1", "-1/2", "0"]]
    # a Gaussian relation 2 L1 - L2 = 0 with alpha = 0: the null space has dimension m = 2 (a basis is reported)
    assert S("null-gaussians-2d")["certificate"]["null_space"] == [["1", "0", "-1/2", "0"], ["0", "1", "0", "-1/2"]]
    assert "exact null space of dimension 2" in ok(S("null-gaussians-2d"))
    assert "the other 2 coordinates are PD, so this is the whole null space" in ok(S("null-gaussians-2d"))


def test_statements():
    r = S("cholesky-translates-m1")
    assert r["statement"] == (
        "The V-block NTK Gram k[(i,a),(j,b)] = (1/H) sum_h <grad Lambda_i(A_h q_a), grad Lambda_j(A_h q_b)> of the "
        "2 laws, the 1 shared queries q_a and the H = 5 exact head matrices A_h of the parameters (d = 2, 2 x 2) is "
        "positive definite " + R.instance_tag(r["parameters"], r["conventions"]))
    assert S("null-translates-m2")["statement"].endswith(
        "(d = 2, 4 x 4) is positive definite " + R.instance_tag(S("null-translates-m2")["parameters"], K.CONVENTIONS))
    assert "each law's own atoms as its queries (per-token reading)" in S("cholesky-per-token")["statement"]
    assert "the Gram of instance(s) 1 is positive definite and the Gram of instance(s) 2 is singular" in \
        S("instances-a")["statement"]
    assert "modulo constants (instance(s) 1, 2) / modulo affine functions (instance(s) none)" in \
        S("equivalence-F1-F11")["statement"]
    assert sorted(S("cholesky-F11")["parameters"]) == ["heads", "laws", "queries", "reading"]


# -- forgeries of issue 11 ------------------------------------------------------------------------------------
def test_forgery_6_singular_gram_marked_proved():
    r = S("null-translates-m2")
    r["verdict"] = "proved"
    rejected(r, "supports the verdict 'refuted'")
    r["certificate"]["claim_form"] = "singular"
    rejected(r)
    r["verdict"] = "refuted"
    rejected(r, "unknown key(s) claim_form")
    # a PD certificate cannot refute, and a null space cannot be dressed as a Cholesky certificate
    r = S("cholesky-F11")
    r["verdict"], r["method"] = "refuted", "exact"
    rejected(r)
    r = S("null-translates-m2")
    r["certificate"]["kind"], r["verdict"], r["method"] = "ntk-cholesky", "proved", "certified"
    rejected(r, "unknown key(s) null_space")


def test_forgery_5_inputs_changed_certificate_kept():
    for name in ("cholesky-translates-m1", "null-translates-m2", "null-F1"):
        r = S(name)
        q = r["parameters"].get("queries") or [[1]]
        if "queries" in r["parameters"]:
            r["parameters"]["queries"][0][0] = "7/5" if q[0][0] != "7/5" else "2"
            rejected(copy.deepcopy(r), "statement: does not match")
            rejected(restated(r))
        r = S(name)
        r["parameters"]["laws"][0]["atoms"][1][0] = "5/2"
        rejected(restated(r))
        r = S(name)
        del r["parameters"]["laws"][-1]
        rejected(restated(r))


def test_a_change_that_keeps_the_pivots_changes_the_diagonal():
    # F11, m = 1, d = 1: rows a_h and 1 + c a_h; the second pivot (the residual of 1 after projecting on a) does
    # not depend on the covariance c, the diagonal entry mean (1 + c a)^2 does
    r = S("cholesky-F11")
    r["parameters"]["laws"][1]["cov"][0][0] = "5"
    rec = K.gram_pivots(r["parameters"], 128)
    assert [str(x) for x in rec["pivots"]] == r["certificate"]["pivots"]
    assert [str(x) for x in rec["diagonal"]] != r["certificate"]["diagonal"]
    rejected(restated(r), "diagonal[1]")


def test_changed_queries_keep_a_null_vector_but_not_its_complement():
    r = S("null-translates-m2")
    inst = K.read_instance(r["parameters"])
    r["parameters"]["queries"][1] = ["2", "-1"]
    inst2 = K.read_instance(r["parameters"])
    v = [F(1), F(-1), F(-1), F(1)]
    assert K.null_identity_holds(inst, v) is True and K.null_identity_holds(inst2, v) is True
    assert "pivots[0]" in rejected(restated(r))


def test_recheck_reads_only_parameters():
    # the certificate carries no copy of the inputs: laws, queries or heads in it are unknown keys
    for key, value in (("laws", [BETA]), ("queries", [[1, 0]]), ("heads", HEADS9), ("reading", "shared")):
        r = S("cholesky-translates-m1")
        r["certificate"][key] = value
        rejected(r, f"unknown key(s) {key}")


# -- tampering --------------------------------------------------------------------------------------------------
def test_tampering_is_rejected():
    for name, r0 in _samples().items():
        for mutate in (lambda r: r.__setitem__("verdict", {"proved": "refuted", "refuted": "proved"}[r["verdict"]]),
                       lambda r: r.__delitem__("certificate"),
                       lambda r: r.__setitem__("certificate", {}),
                       lambda r: r.__setitem__("certificate", {"kind": r["certificate"]["kind"]}),
                       lambda r: r["certificate"].__setitem__("extra", 1),
                       lambda r: r.__setitem__("conventions", {**r["conventions"], "V": "V = I"}),
                       lambda r: r.__setitem__("claim", "N6"),
                       lambda r: r["parameters"].__setitem__("extra", 1) or retagged(r)):
            r = copy.deepcopy(r0)
            mutate(r)
            rejected(r)


def test_certificate_elements_changed_dropped_duplicated():
    r = S("cholesky-translates-m1")
    r["certificate"]["pivots"][0] = str(F(r["certificate"]["pivots"][0]) * 2)
    rejected(r, "pivots[0]")
    r = S("cholesky-translates-m1")
    r["certificate"]["pivots"][1] = str(F(r["certificate"]["pivots"][1]) * (1 - F(1, 10 ** 6)))
    rejected(r, "pivots[1]")                      # valid lower bound, but not the tight record
    r = S("cholesky-translates-m1")
    r["certificate"]["pivots"].append(r["certificate"]["pivots"][0])
    rejected(r, "expected 2..2 elements")
    r = S("null-translates-m2")
    r["certificate"]["null_space"][0][3] = "2"
    rejected(r, "does not vanish identically")
    r = S("null-translates-m2")
    r["certificate"]["null_space"].append(["2", "-2", "-2", "2"])
    rejected(r, "linearly dependent")
    r = S("null-gaussians-2d")
    del r["certificate"]["null_space"][1]        # one basis vector short: the complement is singular
    rejected(r, "expected 3..3 elements")
    r = S("null-gaussians-2d")
    del r["certificate"]["null_space"][1]
    r["certificate"]["pivots"].append("1/1000")
    r["certificate"]["diagonal"].append("1/1000")
    rejected(r, "does not certify PD")
    r = S("instances-a")
    r["certificate"]["instances"].reverse()
    rejected(r)
    r = S("equivalence-F1-F11")
    r["certificate"]["rows"].reverse()
    rejected(r)
    r = S("counter-F11")
    r["certificate"]["relation"]["alpha"] = ["0"]
    rejected(r, "does not vanish identically")
    r = S("counter-F11")
    r["certificate"]["relation"]["c"] = ["0", "0"]
    rejected(r, "c = 0")


def test_transplanted_certificates_and_statements():
    names = list(_samples())
    for a in names:
        for b in names:
            ra, rb = S(a), S(b)
            if a == b or ra["certificate"]["kind"] != rb["certificate"]["kind"]:
                continue
            ra["certificate"] = rb["certificate"]
            rejected(ra)
            ra = S(a)
            ra["statement"] = rb["statement"]
            rejected(ra, "statement")


def test_polarity_and_scope_of_the_equivalence_rows():
    r = S("equivalence-F1-F11")
    r["parameters"]["rows"][1]["modulo"] = "affine"      # F11, m = 1, PD: says nothing modulo affine functions
    rejected(restated(r), "a PD Gram with m = 1 does not exclude an affine relation")
    r = S("equivalence-F2-F9")
    k = next(k for k, row in enumerate(r["parameters"]["rows"]) if len(row["queries"]) == 2
             and "null_space" in r["certificate"]["rows"][k])
    r["parameters"]["rows"][k]["modulo"] = "constants"
    rejected(restated(r), "modulo constants only for m = 1")
    r = S("null-collinear")                               # outside 9.3: a null space says nothing about independence
    params = {"rows": [{**r["parameters"], "modulo": "affine"}]}
    cert = {k: v for k, v in r["certificate"].items() if k not in ("kind", "summary")}
    rejected(_result(params, {"kind": "ntk-equivalence", "rows": [cert]}, "proved", "certified"),
             "m <= d independent queries")
    r = S("counter-F1-F11")
    assert len(r["parameters"]["rows"]) == 1 and r["parameters"]["label"] == "F11 m=1 (swapped pairing)"
    r["parameters"]["rows"].append(copy.deepcopy(r["parameters"]["rows"][0]))
    rejected(restated(r), "states its one instance")


# -- exact algebra ----------------------------------------------------------------------------------------------
def test_null_identity_is_exact_and_head_universal():
    inst = K.read_instance({"laws": [BETA, BETA_T], "reading": "shared", "queries": [[1, "1/2"], ["-3/10", 1]],
                            "heads": [[["0", "0"], ["0", "0"]]]})
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1)]) is True
    assert K.null_identity_holds(inst, [F(2), F(-2), F(-2), F(2)]) is True
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1, 1) + F(1, 10 ** 30)]) is False
    assert K.null_identity_holds(inst, [F(1), F(0), F(-1), F(0)]) is False   # null only at A = 0, not for every A
    # the F8 cubes at the zero head: the Gram is 0, yet no coordinate vector is null for every head
    from verify.decide.ntk import instance_parameters

    p = instance_parameters(_laws("F8"), Q94, [[[0, 0], [0, 0]]])
    inst = K.read_instance(p)
    assert [K.null_identity_holds(inst, [F(int(j == k)) for j in range(8)]) for k in range(8)] == [False] * 8
    r = _result(p, {"kind": "ntk-null-vector", "null_space": [[int(j == k) for j in range(8)] for k in range(8)],
                    "precision_bits": 64, "pivots": [], "diagonal": []}, "refuted", "exact")
    rejected(r, "null_space[0]: sum_r v_r grad Lambda(A q_r) does not vanish identically")


def test_null_identity_for_each_family():
    e1 = (F(1), F(0))
    cube = {"family": "uniform_cube", "radius": "1/2", "center": ["1", "0"]}
    cube_t = {"family": "uniform_cube", "radius": "1/2", "center": ["3", "-1"]}
    lap = {"family": "laplace", "cov": [["1", "1/5"], ["1/5", "1"]], "mean": ["0", "1"]}
    lap_t = {"family": "laplace", "cov": [["1", "1/5"], ["1/5", "1"]], "mean": ["2", "1"]}
    mix = {"family": "gaussian_mixture", "separation": "1", "direction": ["3", "4"], "cov": [["1", "0"], ["0", "2"]]}
    mix_t = {"family": "gaussian_mixture", "separation": "1", "direction": ["3", "4"], "cov": [["1", "0"], ["0", "2"]],
             "center": ["1", "1"]}
    for a, b in ((cube, cube_t), (lap, lap_t), (mix, mix_t), (BETA, BETA_T)):
        inst = K.read_instance({"laws": [a, b], "reading": "shared", "queries": [[1, "1/2"], ["-3/10", 1]],
                                "heads": [[["0", "0"], ["0", "0"]]]})
        assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1)]) is True
        assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(2)]) is False
        c1 = {"laws": inst["laws"], "d": 2, "rows": [(0, e1), (1, e1)]}
        shift = [x - y for x, y in zip(K.read_instance({"laws": [a], "reading": "shared", "queries": [[1, 0]],
                                                         "heads": [[[0, 0], [0, 0]]]})["laws"][0].get(
            "center", inst["laws"][0].get("mean", ())), inst["laws"][1].get("center", inst["laws"][1].get("mean", ())))]
        if a is not BETA:   # Lambda_a - Lambda_b = <c_a - c_b, theta>: gradient difference is the constant shift
            assert K.null_identity_holds(c1, [F(1), F(-1)], shift) is True
            assert K.null_identity_holds(c1, [F(1), F(-1)], [shift[0] + 1, shift[1]]) is False
    mix_irr = dict(mix, direction=["1", "1"])
    inst = K.read_instance({"laws": [mix_irr, dict(mix_irr, center=["1", "0"])], "reading": "shared",
                            "queries": [[1, 0], [0, 1]], "heads": [[["0", "0"], ["0", "0"]]]})
    with pytest.raises(Rejected, match="irrational"):
        K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1)])
    # a zero query: theta = 0 for every A, the gradient is the mean
    inst = K.read_instance({"laws": [BETA, cube], "reading": "shared", "queries": [[0, 0]],
                            "heads": [[["1", "0"], ["0", "1"]]]})
    assert K.null_identity_holds(inst, [F(1), F(-1)]) is False
    assert K.null_identity_holds(inst, [F(1), F(0)], [F(1, 5), F(7, 15)]) is True


def test_rref_rank_and_records():
    assert K._rref([[F(0), F(2), F(1)], [F(1), F(1), F(0)]]) == [1, 0]
    with pytest.raises(Rejected, match="linearly dependent"):
        K._rref([[F(1), F(2)], [F(2), F(4)]])
    with pytest.raises(Rejected, match="linearly dependent"):
        K._rref([[F(0), F(0)]])
    assert K._rank([[F(1), F(2)], [F(2), F(4)]]) == 1 and K._rank([[F(1), F(2)], [F(0), F(1)]]) == 2
    assert K._rank([[F(0), F(0)], [F(0), F(3)]]) == 1
    from verify.kernel._ball import ball, workprec

    with workprec(128):
        assert K.record(ball(F(1, 3))) == F(5726623061, 2 ** 34)   # 32 significant bits, rounded down
        assert K.record(ball(F(3, 1))) == F(3)
        assert K.record(ball(F(10 ** 12, 7))) == F(142857142848)    # 2^37: rounded down to a multiple of 2^5
        assert K.record(ball(F(5 * 2 ** 40))) == F(5 * 2 ** 40)
        assert K.record(ball(F(2 ** 40 + 1))) == F(2 ** 40)
        piv = K._pivots([[ball(4), ball(2)], [ball(2), ball(5)]])
        assert [K.record(p) for p in piv] == [4, 4]
        assert K._pivots([[ball(1), ball(1)], [ball(1), ball(1)]]) is None
        assert K._pivots([[ball(-1)]]) is None


def test_read_instance_rejects():
    base = {"laws": [BETA, BETA_T], "reading": "shared", "queries": [[1, "1/2"]], "heads": HEADS9}
    for change, match in (
            ({"reading": "diagonal"}, "reading"),
            ({"queries": []}, "queries"),
            ({"queries": [[1, 2, 3]]}, "queries[0]"),
            ({"heads": []}, "heads"),
            ({"heads": [[[1, 0]]]}, "heads[0]"),
            ({"heads": [[["1/" + "3" * 200, 0], [0, 1]]]}, "more than 512 bits"),
            ({"queries": [["2" * 200, 1]]}, "more than 512 bits"),
            ({"reading": "per-token"}, "per-token reading takes each law's atoms"),
            ({"label": 5}, "label"),
            ({"laws": [BETA, {"family": "gaussian", "cov": [["1", "0"], ["0", "1"]]}], "reading": "per-token",
              "queries": None}, "per-token reading needs discrete laws"),
            ({"laws": [{"family": "laplace", "cov": [["1", "0"], ["0", "1"]]}], "heads": [[[4, 0], [0, 4]]]},
             "outside the domain"),
            ({"queries": [[1, 0]] * 65}, "1..128 rows"),
            ({"heads": [[[0, 0], [0, 0]]] * 4097}, "heads")):
        p = {**copy.deepcopy(base), **change}
        p = {k: v for k, v in p.items() if v is not None}
        with pytest.raises(Rejected, match=None) as exc:
            K.read_instance(p)
        assert match in str(exc.value), (change, str(exc.value))
    assert K.read_instance(base)["n"] == 2
    assert K.read_instance({**base, "reading": "per-token", "queries": None} if False else
                           {"laws": [BETA, BETA_T], "reading": "per-token", "heads": HEADS9})["n"] == 6


def test_laplace_exactly_on_the_domain_boundary_is_rejected():
    lap = {"family": "laplace", "cov": [["1", "0"], ["0", "1"]]}
    p = {"laws": [lap], "reading": "shared", "queries": [[1, 0]], "heads": [[["1", "1"], ["1", "1"]]]}
    with pytest.raises(Rejected, match="outside the domain"):
        K.read_instance(p)    # theta = (1, 1): theta^T theta = 2, on the boundary
    p["heads"] = [[["1", "0"], ["0", "1"]]]
    assert K.read_instance(p)["n"] == 1


def test_kernel_gradients_match_the_distributions():
    from verify.arith.ball import workprec
    from verify.kernel._ball import ball
    from verify.kernel._laws import read_laws
    from verify.laws import Discrete, GaussianMixture, SymmetricLaplace, UniformCube

    theta = (F(1, 3), F(-1, 1000))
    for law in (UniformCube(F(3, 2), [1, 0]), SymmetricLaplace([[1, F(1, 5)], [F(1, 5), 1]], [0, 1]),
                GaussianMixture(2, [3, 4], [[1, 0], [0, 2]], [1, 1]), Discrete([[0, 0], [1, 2], [3, -1]])):
        with workprec(200):
            a = law.grad_ball(theta)
            kl = read_laws([law.to_dict()])[0]
            b = K._grad_ball(dict(kl, balls=K._law_balls(kl)), theta, [ball(x) for x in theta])
            for x, y in zip(a, b):
                assert abs(float((x - y).mid())) < 1e-50 and x.overlaps(y)


def test_search_side_results_recheck():
    from verify.checks.n7_ntk_gram import check_family_gram, check_oracle_gram, check_translates_singular

    for r in (check_oracle_gram("translates-m1"), check_oracle_gram("translates-m2"),
              check_translates_singular(reading="per-token"), check_family_gram("F15", m=2, heads=5),
              check_family_gram("F8", m=2, heads=5), check_family_gram("F20", m=2, heads=5)):
        d = _dict(r)
        assert r.verdict.value in ("proved", "refuted")
        assert ok(d).startswith(d["certificate"]["kind"])


# -- hostile input ------------------------------------------------------------------------------------------------
def _timed_reject(r, seconds=10):
    text = json.dumps(r)
    t0 = time.perf_counter()
    with pytest.raises(Rejected):
        kernel.check(json.loads(text), seconds=60)
    dt = time.perf_counter() - t0
    assert dt < seconds, dt
    return len(text), dt


@pytest.mark.slow
def test_hostile_certificates_are_rejected_quickly():
    big = "1" * 5000
    base = S("cholesky-translates-m1")
    cases = []
    r = copy.deepcopy(base)
    r["certificate"]["pivots"] = [big] * 190             # ~1 MB, wrong length
    cases.append(r)
    r = copy.deepcopy(base)
    r["certificate"]["precision_bits"] = 10 ** 6
    r["certificate"]["pivots"] = [big + "/" + big] * 95
    cases.append(r)
    r = copy.deepcopy(base)                             # 4096 heads of 5000-digit entries (within the head count)
    r["parameters"]["heads"] = [[[big, "0"], ["0", "1"]]] * 60 + [[["1", "0"], ["0", "1"]]] * 4036
    cases.append(tagged(r))
    r = copy.deepcopy(base)                             # many heads and rows: over the work limits
    r["parameters"]["queries"] = [[str(k), "1"] for k in range(64)]
    r["parameters"]["heads"] = [[[str(k % 7), "1"], ["1", str(k % 5)]] for k in range(3000)]
    cases.append(tagged(r))
    r = copy.deepcopy(base)                             # deep nesting
    deep = "0"
    for _ in range(900):
        deep = [deep]
    r["certificate"]["pivots"] = [deep, "1"]
    cases.append(r)
    n = S("null-translates-m2")                         # a null space of 4 x 50000 entries
    r = copy.deepcopy(n)
    r["certificate"]["null_space"] = [["1"] * 50000] * 4
    cases.append(r)
    r = copy.deepcopy(n)                                # huge exponents in the exact identity
    r["parameters"]["laws"] = [{"family": "discrete", "atoms": [["0", "0"], ["1/" + "7" * 150, "1"]]},
                               {"family": "discrete", "atoms": [["1/" + "3" * 150, "0"], ["1", "1"]]}]
    cases.append(tagged(r))
    r = copy.deepcopy(n)                                # many atoms: products of large polynomials
    atoms = [[str(k), str(k * k % 97)] for k in range(2000)]
    r["parameters"]["laws"] = [{"family": "discrete", "atoms": atoms},
                               {"family": "discrete", "atoms": [[str(int(a[0]) + 1), a[1]] for a in atoms]}]
    r["parameters"]["heads"] = [[["1/100", "0"], ["0", "1/100"]]]
    cases.append(tagged(r))
    e = S("equivalence-F1-F11")                         # 128 rows, each as large as allowed
    row = {"laws": [{"family": "discrete", "atoms": [[str(k), str(-k)] for k in range(64)]}] * 2,
           "reading": "shared", "queries": [["1", "1"]],
           "heads": [[[str(k % 3), "1"], ["1", "0"]] for k in range(300)], "modulo": "constants"}
    e["parameters"] = {"rows": [row] * 128}
    e["certificate"]["rows"] = [{"precision_bits": 2048, "pivots": ["1", "1"], "diagonal": ["1", "1"]}] * 128
    cases.append(tagged(e))
    t = S("instances-a")                                 # 16 large instances, certificates of 5000-digit numbers
    inst = {**copy.deepcopy(base["parameters"]), "gram": "PD"}
    inst["heads"] = [[[str(k % 5), "1"], ["1", str(k % 3)]] for k in range(1000)]
    t["parameters"]["instances"] = [inst] * 16
    t["certificate"]["instances"] = [{"precision_bits": 2048, "pivots": [big] * 2, "diagonal": [big] * 2}] * 16
    cases.append(tagged(t))
    c = S("counter-F11")                                 # a relation of 1 MB
    c["certificate"]["relation"]["c"] = ["1" * 20] * 50000
    cases.append(c)
    c = S("counter-F11")
    c["certificate"]["relation"]["alpha"] = [big + "/7"]
    cases.append(c)
    for r in cases:
        size, dt = _timed_reject(r)
        assert size < 2_000_000


def test_largest_genuine_work_is_bounded():
    # the largest Gram the limits allow, at the largest precision, is re-checked (or rejected) within 10 s
    p = {"laws": [{"family": "discrete", "atoms": [[str(k), str(j)], ["0", "0"]]} for k in range(1, 9)
                  for j in range(1, 9)], "reading": "shared", "queries": [["1", "1/2"], ["-3/10", "1"]],
         "heads": [[[str(F(k % 7, 5)), str(F(k % 3, 4))], [str(F(k % 5, 6)), str(F(k % 11, 9))]] for k in range(120)]}
    r = _result(p, {"kind": "ntk-cholesky", "precision_bits": 2048, "pivots": ["1"] * 128, "diagonal": ["1"] * 128},
                "proved", "certified")
    t0 = time.perf_counter()
    with pytest.raises(Rejected):
        kernel.check(r, seconds=60)
    assert time.perf_counter() - t0 < 10


# -- limits and the work model, pinned (each bound at its edge) ---------------------------------------------------
def _one(d=1, heads=None, laws=None, queries=None):
    return {"laws": laws or [{"family": "discrete", "atoms": [[str(k)] * d for k in range(2)]}], "reading": "shared",
            "queries": queries or [["1"] * d], "heads": heads or [[["1" if i == j else "0" for j in range(d)]
                                                                    for i in range(d)]]}


def test_limits_at_their_edges():
    two = [{"family": "discrete", "atoms": [["0"], [str(k + 1)]]} for k in range(3)]
    assert K.read_instance(_one(laws=two[:2], queries=[[str(k + 1)] for k in range(64)]))["n"] == 128
    with pytest.raises(Rejected, match="1..128 rows"):
        K.read_instance(_one(laws=two, queries=[[str(k + 1)] for k in range(43)]))          # 129 rows
    assert len(K.read_instance(_one(heads=[[["1"]]] * 4096))["heads"]) == 4096
    assert K.read_instance(_one(heads=[[[str(2 ** 511)]]]))["n"] == 1                       # 512 bits
    with pytest.raises(Rejected, match="more than 512 bits"):
        K.read_instance(_one(heads=[[[str(2 ** 512)]]]))
    with pytest.raises(Rejected, match="more than 512 bits"):
        K.read_instance(_one(heads=[[["1/" + str(2 ** 512)]]]))
    p = _one(laws=[{"family": "gaussian", "cov": [["1"]]}])
    for prec, fine in ((2048, True), (2049, False), (16, True), (15, False)):
        rec = K.gram_pivots(p, 64)
        r = _result(p, {"kind": "ntk-cholesky", "precision_bits": prec, "pivots": [str(x) for x in rec["pivots"]],
                        "diagonal": [str(x) for x in rec["diagonal"]]}, "proved", "certified")
        if fine:
            ok(r)
        else:
            rejected(r, "precision_bits")
    r = _result(p, {"kind": "ntk-cholesky", "precision_bits": 64, "pivots": ["1"], "diagonal": ["1"],
                    "summary": "x" * 2000}, "proved", "certified")
    assert ok(r).startswith("ntk-cholesky: 1x1 Gram (1 heads) PD by ball Cholesky; smallest pivot >= 1")
    r["certificate"]["summary"] = "x" * 2001
    rejected(r, "summary")
    inst = {**p, "gram": "PD"}
    assert "For these 16 instances" in K.statement({"instances": [inst] * 16}, K.CONVENTIONS)
    assert "For these 1 instances" in K.statement({"instances": [inst]}, K.CONVENTIONS)
    with pytest.raises(Rejected, match="parameters.instances: expected 1..16 elements"):
        K.statement({"instances": [inst] * 17}, K.CONVENTIONS)


def test_each_size_clause():
    atoms64 = [{"family": "discrete", "atoms": [[str(k)] for k in range(64)]}]
    for p in (_one(queries=[[str(k + 1)] for k in range(10)], heads=[[["1"]]] * 4001),   # n H > 40000 only
              _one(laws=atoms64, queries=[[str(k + 1)] for k in range(2)], heads=[[["1"]]] * 3200),  # n H atoms
              _one(laws=[{"family": "discrete", "atoms": [["0"], [str(k + 1)]]} for k in range(2)],
                   queries=[[str(k + 1)] for k in range(64)], heads=[[["1"]]] * 250)):   # n^2 H d > 4e6 only
        with pytest.raises(Rejected, match="Gram too large for the kernel"):
            K.read_instance(p)
    # each clause at its edge is allowed: n H atoms = 400000, n^2 H d = 4000000
    assert K.read_instance(_one(laws=atoms64, queries=[["1"], ["2"]], heads=[[["1"]]] * 3125))["n"] == 2
    hundred = [{"family": "discrete", "atoms": [["0"], [str(k + 1)]]} for k in range(100)]
    assert K.read_instance(_one(laws=hundred, heads=[[["1"]]] * 400))["n"] == 100


def test_work_model_is_pinned():
    p = {"laws": [BETA, BETA_T], "reading": "shared", "queries": [[1, "1/2"], ["-3/10", 1]], "heads": HEADS9}
    K.statement(p, K.CONVENTIONS)
    # reads: atoms 3 + 3, heads 5, then 2 distinct queries x 5 heads + 5 heads x d^2
    assert K._WORK == {"reads": 6 + 5 + 2 * 5 + 5 * 4, "gram": 0, "terms": 0}
    inst = K.read_instance(p)
    assert K._WORK["reads"] == 41
    K._reset()
    K._gram(inst, 200)
    n, H, atoms, d, prec = 4, 5, 3, 2, 200
    assert K._WORK["gram"] == n * H * (atoms * (128 + prec) // 32 + 5 * d) + n * n * H * d * (120 + prec) // 2400 \
        + n ** 3 * (3000 + prec) // 6000 == 855
    K._reset()
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1)]) is True
    assert K._WORK["terms"] == 946
    K._reset()
    assert K._WORK == {"reads": 0, "gram": 0, "terms": 0}


def test_limits_of_the_exact_check():
    atoms = [[str(k), str(k * k)] for k in range(257)]
    for count, fine in ((256, True), (257, False)):
        law = {"family": "discrete", "atoms": atoms[:count]}
        inst = K.read_instance({"laws": [law], "reading": "shared", "queries": [["0", "0"]], "heads": HEADS9})
        mean = [sum(F(a[k]) for a in atoms[:count]) / count for k in range(2)]
        if fine:
            assert K.null_identity_holds(inst, [F(1)], mean) is True
        else:
            inst = K.read_instance({"laws": [law], "reading": "shared", "queries": [["1", "0"]], "heads": HEADS9})
            with pytest.raises(Rejected, match="more than 256 atoms"):
                K.null_identity_holds(inst, [F(1)])


def test_small_cube_arguments_keep_their_precision():
    from verify.kernel._ball import ball, workprec
    from verify.kernel._laws import read_laws

    law = read_laws([{"family": "uniform_cube", "radius": "3/2", "center": ["1"]}])[0]
    t = (F(1, 10 ** 40),)
    with workprec(128):
        g = K._grad_ball(law, t, [ball(t[0])])[0]
        lo, hi = K.bounds(g)
    # r (coth(r t) - 1/(r t)) = r^2 t / 3 - ...: the value 1 + 3/4 10^-40, to about 2^-120
    assert hi - lo < F(1, 2 ** 110) and lo <= 1 + F(3, 4) * t[0] <= hi + F(1, 10 ** 80)


def test_exact_identities_of_single_laws_and_convolutions():
    dirac = {"family": "discrete", "atoms": [["0"]]}
    inst = K.read_instance({"laws": [dirac], "reading": "shared", "queries": [["1"]], "heads": [[["1"]]]})
    assert K.null_identity_holds(inst, [F(1)]) is True           # grad Lambda = 0 for the Dirac at 0
    cube, cube_t = ({"family": "uniform_cube", "radius": "1/3", "center": [c]} for c in ("0", "1"))
    inst = K.read_instance({"laws": [cube, cube_t], "reading": "shared", "queries": [["1"], ["2"]],
                            "heads": [[["1"]]]})
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-1), F(1)]) is True
    assert K.null_identity_holds(inst, [F(1), F(0), F(-1), F(0)]) is False
    # 1/2 N(-1, 1) + 1/2 N(1, 1) = N(0, 1) * 1/2 (delta_-1 + delta_1): Lambda_mix - Lambda_gauss - Lambda_disc = 0
    mix = {"family": "gaussian_mixture", "separation": "1", "direction": ["1"], "cov": [["1"]]}
    gauss = {"family": "gaussian", "cov": [["1"]]}
    disc = {"family": "discrete", "atoms": [["-1"], ["1"]]}
    inst = K.read_instance({"laws": [mix, gauss, disc], "reading": "shared", "queries": [["1"]], "heads": [[["1"]]]})
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-1)]) is True
    assert K.null_identity_holds(inst, [F(1), F(-1), F(-2)]) is False


def test_records_are_checked_at_their_edges():
    p = _one(laws=[{"family": "gaussian", "cov": [["3"]], "mean": ["1/7"]}], heads=[[["1/3"]], [["2"]]])
    inst = K.read_instance(p)
    from verify.kernel._ball import workprec

    with workprec(64):
        G = K._gram(inst, 64)
        lo = K.bounds(K._pivots(G)[0])[0]
        assert lo == K.bounds(G[0][0])[0] and lo < F(1, 2) * ((F(1, 7) + 1) ** 2 + (F(1, 7) + 6) ** 2) < lo + F(1, 2 ** 50)
    edge = lo * (1 - K.TIGHT)
    for r, fine in ((lo, True), (edge, True), (edge - F(1, 2 ** 80), False), (lo + F(1, 2 ** 80), False)):
        cert = {"precision_bits": 64, "pivots": [str(r)], "diagonal": [str(r)]}
        if fine:
            assert K._check_pivots(inst, cert, "c") == [r]
        else:
            with pytest.raises(Rejected, match="is not the rebuilt lower bound"):
                K._check_pivots(inst, cert, "c")


def test_exact_gradients_of_the_rational_families():
    A = ((F(1, 3), F(-1, 2)), (F(1, 5), F(1, 4)))
    q = (F(1), F(-2, 3))
    theta = tuple(sum(a * x for a, x in zip(row, q)) for row in A)
    from verify.kernel._laws import read_laws

    for spec in ({"family": "laplace", "cov": [["1", "1/5"], ["1/5", "1/2"]], "mean": ["1", "-2"]},
                 {"family": "gaussian", "cov": [["2", "1/3"], ["1/3", "1"]], "mean": ["1/2", "0"]}):
        law = read_laws([spec])[0]
        S, m = law["cov"], law["mean"]
        St = [sum(S[i][j] * theta[j] for j in range(2)) for i in range(2)]
        quad = sum(t * s for t, s in zip(theta, St))
        want = [m[i] + St[i] / ((1 - quad / 2) if spec["family"] == "laplace" else 1) for i in range(2)]
        ring = K._Ring(2, 1)
        vals = [K._q(x) for row in A for x in row] + [K._q(F(1))] * 4
        got = [N(*vals) / D(*vals) for N, D in K._grad_exact(ring, law, q)]
        assert got == [K._q(x) for x in want]


def test_exponent_bound_of_the_exact_check():
    for den, fine in ((2048, True), (4096, False)):
        law = {"family": "discrete", "atoms": [["0"], [str(2 ** 29)], [f"1/{den}"]]}
        inst = K.read_instance(_one(laws=[law]))
        if fine:   # L max |w| = 2^11 2^29 = 2^40 exactly
            assert K.null_identity_holds(inst, [F(1)]) is False
        else:
            with pytest.raises(Rejected, match="exponents too large"):
                K.null_identity_holds(inst, [F(1)])


def test_documented_bounds():
    assert (K.MAX_ROWS, K.MAX_HEADS, K.MAX_EVALS, K.MAX_EXPS, K.MAX_MUL, K.MAX_BITS, K.MAX_PREC, K.MAX_WORK,
            K.MAX_INSTANCES, K.MAX_TERMS, K.MAX_TOTAL_TERMS, K.MAX_EXACT_ATOMS, K.MAX_READS, K.TIGHT) == (
        128, 4096, 40_000, 400_000, 4_000_000, 512, 2048, 4_000_000, 16, 200_000, 600_000, 256, 20_000, F(1, 2 ** 24))
    K._reset()
    K._charge("terms", 600_000, K.MAX_TOTAL_TERMS)
    with pytest.raises(Rejected, match="more work than the kernel allows"):
        K._charge("terms", 1, K.MAX_TOTAL_TERMS)
    K._reset()
    # n H = 40000 exactly is allowed
    ten = [{"family": "discrete", "atoms": [["0"], [str(k + 1)]]} for k in range(10)]
    assert K.read_instance(_one(laws=ten, heads=[[["1"]]] * 4000))["n"] == 10
    inst = {**_one(), "gram": "PD"}
    assert "(" + "x" * 200 + ")" in K.statement({"instances": [inst], "label": "x" * 200}, K.CONVENTIONS)
    for key, params in (("instances", {"instances": [inst]}), ("rows", {"rows": [{**_one(), "modulo": "affine"}]})):
        with pytest.raises(Rejected, match="parameters.label"):
            K.statement({**params, "label": "x" * 201}, K.CONVENTIONS)
    assert K.read_instance({**_one(), "label": "y" * 200})["label"] == "y" * 200
    with pytest.raises(Rejected, match="label"):
        K.read_instance({**_one(), "label": "y" * 201})


def test_polynomial_product_bound():
    from flint import fmpq_mpoly_ctx

    ctx = fmpq_mpoly_ctx.get((("y", 2),), "lex")
    a = ctx.from_dict({(k, 0): 1 for k in range(400)})
    b = ctx.from_dict({(0, k): 1 for k in range(500)})
    c = ctx.from_dict({(0, k): 1 for k in range(501)})
    K._reset()
    assert len(K._mul(a, b)) == 200_000 and K._WORK["terms"] == 200_000
    with pytest.raises(Rejected, match="too large for the kernel"):
        K._mul(a, c)


def _float_pivots(inst, rows=None):
    """An independent float64 rebuild of the (sub-)Gram (discrete and Gaussian laws): pivots and diagonal."""
    import numpy as np

    rows = list(range(inst["n"])) if rows is None else rows
    feats = []
    for r in rows:
        i, q = inst["rows"][r]
        law, f = inst["laws"][i], []
        for A in inst["heads"]:
            t = np.array([[float(x) for x in row] for row in A]) @ np.array([float(x) for x in q])
            if law["family"] == "discrete":
                X = np.array([[float(x) for x in a] for a in law["atoms"]])
                z = X @ t + np.log([float(w) for w in law["weights"]])
                p = np.exp(z - z.max())
                f.extend((p / p.sum()) @ X)
            else:
                S = np.array([[float(x) for x in row] for row in law["cov"]])
                f.extend(np.array([float(x) for x in law["mean"]]) + S @ t)
        feats.append(f)
    Fm = np.array(feats)
    G = Fm @ Fm.T / len(inst["heads"])
    L = np.linalg.cholesky(G)
    return list(np.diag(L) ** 2), list(np.diag(G))


def test_recorded_pivots_agree_with_an_independent_float_rebuild():
    checked = 0
    for name, r in _samples().items():
        p, c = r["parameters"], r["certificate"]
        pairs = ([(p, c)] if "laws" in p else
                 list(zip(p.get("instances", p.get("rows", [])), c.get("instances", c.get("rows", [])))))
        if c["kind"] == "ntk-equivalence-counterexample":
            pairs = [(p["rows"][0], c)]
        for params, sub in pairs:
            inst = K.read_instance({k: v for k, v in params.items() if k not in ("gram", "modulo")})
            if any(law["family"] not in ("discrete", "gaussian") for law in inst["laws"]):
                continue
            rows = None
            if "null_space" in sub:
                piv = K._rref([[F(x) for x in v] for v in sub["null_space"]])
                rows = sorted(set(range(inst["n"])) - set(piv))
            piv, diag = _float_pivots(inst, rows)
            for key, want in (("pivots", piv), ("diagonal", diag)):
                if key not in sub:              # ntk-residual records the diagonal only
                    assert c["kind"] == "ntk-residual" and key == "pivots"
                    continue
                got = sub[key]
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    assert abs(float(F(g)) - w) <= 1e-6 * abs(w), (name, g, w)
            checked += 1
    assert checked >= 12


def _eval_ball(poly, vals, L, d):
    """A polynomial of _Ring(d, L) at A = vals (Fractions), with y = e^(a/L), in balls."""
    from verify.kernel._ball import ball

    a = [ball(x) for x in vals]
    y = [(ball(x) / L).exp() for x in vals]
    tot = ball(0)
    for e, c in poly.to_dict().items():
        term = ball(F(int(c.p), int(c.q)))
        for j, k in enumerate(e):
            term *= (a + y)[j] ** k
        tot += term
    return tot


def test_exact_gradients_agree_with_the_ball_gradients():
    from verify.kernel._ball import ball, workprec
    from verify.kernel._laws import read_laws

    A = ((F(1, 3), F(-1, 2)), (F(1, 5), F(1, 4)))
    q = (F(1), F(-2, 3))
    theta = tuple(sum(a * x for a, x in zip(row, q)) for row in A)
    for spec in ({"family": "uniform_cube", "radius": "3/2", "center": ["1", "-1/2"]},
                 {"family": "gaussian_mixture", "separation": "2", "direction": ["3", "4"],
                  "cov": [["1", "0"], ["0", "2"]], "center": ["1", "1"]},
                 {"family": "discrete", "atoms": [["0", "0"], ["1", "3/10"], ["-2/5", "11/10"]],
                  "weights": ["1/2", "1/3", "1/6"]}):
        law = read_laws([spec])[0]
        L = math.lcm(*(w.denominator for w in K._exponent_coeffs(law, q)))
        ring = K._Ring(2, L)
        with workprec(200):
            want = K._grad_ball(dict(law, balls=K._law_balls(law)), theta, [ball(x) for x in theta])
            vals = [x for row in A for x in row]
            for (N, D), w in zip(K._grad_exact(ring, law, q), want):
                got = _eval_ball(N, vals, L, 2) / _eval_ball(D, vals, L, 2)
                assert abs(float((got - w).mid())) < 1e-40 and got.overlaps(w), spec["family"]


def test_mixture_exponents_need_their_own_denominators():
    mix = {"family": "gaussian_mixture", "separation": "1", "direction": ["1"], "cov": [["1"]]}
    inst = K.read_instance(_one(laws=[mix], queries=[["1/3"]]))
    assert K.null_identity_holds(inst, [F(1)]) is False
