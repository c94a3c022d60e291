"""Kernel kinds of verify/kernel/regions.py (T10 region counts, T4 token-shift slabs): genuine Results are
accepted; the forgeries of issue 11 (forgery 4) and tampering are rejected; hostile inputs are bounded."""

import copy
import functools
import json
import time

import pytest

from verify import kernel
from verify.checks import t10_linear_regions as T10
from verify.checks.t4_token_shift import check_token_shift
from verify.constructions.reference_networks import o2_network
from verify.decide.polytope import prove_activation_count
from verify.decide.polytope_pieces import prove_pieces_count
from verify.kernel import regions as KR
from verify.kernel._read import Rejected, bound_statement

from kernel_samples import edited

THREE_LINES = {"layers": [{"W": [[["1", "0"], ["0", "0"]], [["0", "1"], ["0", "0"]], [["1", "1"], ["0", "0"]]],
                           "b": [["0", "0"], ["0", "0"], ["-1/2", "0"]]}],
               "readout": {"W": [["1", "-1", "2"]], "b": ["0"]}}
TENT2 = {"layers": [{"W": [[["-2"], ["2"]]], "b": [["0", "-2"]]}, {"W": [[["2"], ["-2"]]], "b": [["0", "-2"]]}]}
SQ = [["-1", "1"], ["-1", "1"]]
# relu(x1) - relu(-x1) = x1 (2 regions, 1 piece); relu(x1) - 2 relu(x1 - 1/2) + relu(x1 - 1) (0 on two slabs)
IDENT_2D = {"layers": [{"W": [[["1", "0"], ["0", "0"]], [["-1", "0"], ["0", "0"]]], "b": [["0", "0"], ["0", "0"]]}],
            "readout": {"W": [["1", "-1"]], "b": ["0"]}}
HAT_2D = {"layers": [{"W": [[["1", "0"], ["0", "0"]]] * 3, "b": [["0", "0"], ["-1/2", "0"], ["-1", "0"]]}],
          "readout": {"W": [["1", "-2", "1"]], "b": ["0"]}}

# Paths whose change keeps the Result true and proved (each justified):
KERNEL_FREE_PATHS = [
    # regions-universal-miss: any network with fewer pieces than the bound refutes the universal reading;
    # max(2h, 2h) with a weight bumped (max(3h, 2h)) is still a 1-piece counterexample.
    r"^parameters\.counterexample\.",
    # regions-one-layer-lemma: a larger target keeps 1 + N < target, the refuted claim stays false.
    r"^parameters\.target$",
    # regions-depth-miss: more rows still contain the failing one; regions-depth-bound: while
    # floor((D_max - e)/c) is unchanged the same breakpoints certify the extra row (still true).
    r"^parameters\.D_max$",
    # regions-grid-miss on O2: another grid step (720 -> 721, 100 -> 101) still misses 9/26: still a miss.
    r"^parameters\.den$",
    # regions-count / regions-grid / regions-one-layer: the kernel re-counts the network of the parameters
    # from scratch, so a perturbed network that it accepts has that count (e.g. the read-out of the 2-D
    # three-lines network does not move the 7 cells; a random instance's dead piece changes nothing; the
    # one-layer ceiling is a theorem for every network).  Acceptance of such a mutant is correct.
    r"^parameters\.networks?\.|^parameters\.networks\[",
    # token-shift-witness gate: |P_2 - P_1| = 2 at both ends x = 0 and x = 1 of layer 1, either is a witness.
    r"^certificate\.gate\.x$",
    # regions-polytope(-miscount): a leaf's point is any exact point of its cell (Lemma 1 of docs/regions.md,
    # "Polyhedral cells in any dimension"); a changed coordinate that stays inside the cell, with the leaf's
    # sign entries still valid, is the same proof; so is a multiplier moved to another constraint of the cell with
    # the same linear part (Lemma 3 holds for either).
    r"^regions-polytope(-miscount)?:certificate\.roots\[\d+\](\.children\[\d\])*\.point\[\d+\]$",
    r"^regions-polytope(-miscount)?:certificate\.roots\[\d+\](\.children\[\d\])*\.signs\[\d+\]\.[yl]"
    r"\[\d+\]\[0\]$",
    r"^regions-polytope-pieces(-miscount)?:certificate\.roots\[\d+\](\.children\[\d\])*\.point\[\d+\]$",
    r"^regions-polytope-pieces(-miscount)?:certificate\.roots\[\d+\](\.children\[\d\])*\.signs\[\d+\]\.[yl]"
    r"\[\d+\]\[0\]$",
    # regions-polytope-pieces(-miscount): a merge point is any exact point of the shared hyperplane with every
    # other constraint of both leaves > 0 (Lemma 5 of docs/regions.md, "Pieces in d >= 3"); a coordinate moved
    # along the hyperplane that keeps those is the same proof.
    r"^regions-polytope-pieces(-miscount)?:certificate\.merges\[\d+\]\[4\]\[\d+\]$",
]


def _d(r):
    return json.loads(r.to_json())


@functools.lru_cache(maxsize=None)
def _samples():
    o2 = o2_network().to_dict()
    out = [
        T10.check_region_count(o2, [["0", "1"]], "pieces", 4),
        T10.check_region_count(THREE_LINES, SQ, "activation", 7),
        T10.check_region_count(o2, [["0", "1"]], "pieces", 5),
        T10.check_region_count(THREE_LINES, SQ, "activation", 8),
        T10.check_tent_counts(L_max=4, compiled_L_max=0),
        T10.check_zigzag_counts(q=2, L_max=3, compiled_L_max=0),
        T10.check_depth_bound_table("tent", 2, D_max=12, c=3),
        T10.check_depth_bound_table("zigzag", 3, D_max=7, c=2, e=1),
        T10.check_depth_bound_table("identical-pieces", 2, D_max=12, c=2),
        T10.check_depth_bound_table("identical-pieces", 2, D_max=9, c=3),
        T10.check_universal_reading(L=4),
        T10.check_universal_reading(L=5),
        T10.check_one_layer_ceiling(seeds=(0, 1, 2), N=3, k=3),
        T10.check_one_layer_ceiling(seeds=(3, 4), N=2, k=2),
        T10.check_shallow_family(L=3),
        T10.check_shallow_family(L=5),
        T10.check_grid_method("tent-3", 16),
        T10.check_grid_method("tent-4", 32),
        T10.check_grid_method("O2", 720),
        T10.check_grid_method("O2", 100),
        check_token_shift(L=2, Delta=2, M=4),
        check_token_shift(L=3, Delta=10, M=4, ranges="interval"),
        check_token_shift(L=2, Delta=1, M=4),
        check_token_shift(L=3, Delta=2, M=3),
        prove_activation_count(THREE_LINES, [(-1, 1)] * 2, 7),          # regions-polytope (any d; 2-D keeps mutations cheap)
        prove_activation_count(THREE_LINES, [(0, 1)] * 2, 2),
        prove_activation_count(THREE_LINES, [(-1, 1)] * 2, 8),          # regions-polytope-miscount
        prove_activation_count(THREE_LINES, [(0, 1)] * 2, 3),
        prove_pieces_count(IDENT_2D, [(-1, 1)] * 2, 1),                 # regions-polytope-pieces (a merge)
        prove_pieces_count(HAT_2D, [(-1, 2), (0, 1)], 4),                # (a separation)
        prove_pieces_count(IDENT_2D, [(-1, 1)] * 2, 2),                 # regions-polytope-pieces-miscount
        prove_pieces_count(HAT_2D, [(-1, 2), (0, 1)], 3),
    ]
    return tuple(json.dumps(_d(r)) for r in out)


def kernel_samples():
    return [json.loads(s) for s in _samples()]


def _by_kind(kind):
    return [r for r in kernel_samples() if r["certificate"]["kind"] == kind]


def _rejected(r, match=None):
    with pytest.raises(Rejected, match=match):
        kernel.check(r)


def _restate(r, form):
    r["statement"] = KR.statement(form, r["parameters"], r["conventions"])
    return r


def test_every_sample_is_accepted_with_its_kind():
    kinds = {}
    for r in kernel_samples():
        assert kernel.check(r).startswith(r["certificate"]["kind"] + ":")
        kinds[r["certificate"]["kind"]] = kinds.get(r["certificate"]["kind"], 0) + 1
    assert kinds == {k: 2 for k in KR.KINDS}


def test_exact_numbers_in_summaries():
    s = [kernel.check(r) for r in kernel_samples()]
    assert s[0] == "regions-count: 4 pieces (4 activation regions, 4 pieces)"
    assert s[1] == "regions-count: 7 activation regions (7 activation regions, 7 pieces)"
    assert s[4].endswith("exactly 2^L pieces for L = 1..4 (16 at L = 4); depth tables c in [2, 3] hold")
    assert "D = 6 (L = 3) has 1 pieces < 2^(floor(D/3)-1) = 2" in s[8]
    assert s[10].endswith("a 4-layer network (D = 8) has 1 piece(s) < 2^(floor(D/3)-1) = 2")
    assert s[18].endswith("grid count 5 != exact count 4")
    assert s[22].endswith("layer 1: tokens 1 and 2 share the shifted state 2: the slabs intersect")
    assert s[23].endswith("layer 1: M gamma <= 3/2 < |P_2 - P_1| = 2")


def test_statements_are_exact_sentences():
    s = {}
    for r in kernel_samples():
        s.setdefault(r["certificate"]["kind"], r["statement"].rsplit(" [instance", 1)[0])
    assert s["regions-grid"] == ("counting runs of equal slopes of the network of parameters.network sampled at "
                                 "0 + i (1 - 0)/16, i = 0..16, gives its exact number of linear pieces on [0, 1]")
    assert s["regions-count"] == ("the maxout network of parameters.network has exactly 4 linear pieces (maximal "
                                  "connected open sets on which it is affine) on the box [0, 1]")
    assert s["regions-one-layer"] == ("each of the 3 one-layer maxout networks of parameters.networks (width N, rank "
                                      "k, linear read-out) has at most 1 + N(k-1) linear pieces on [-2, 2]")
    assert s["regions-one-layer-lemma"] == ("some one-layer rank-2 maxout network of width N = 6 with a linear "
                                            "read-out has at least 8 linear pieces on an interval")
    assert s["regions-depth-bound"].endswith("with L = floor((D - 0)/3) layers has >= 2^(floor(D/3)-1) linear pieces "
                                             "on [0, 1] for every depth D = 3 + 0..12 (D = sublayers, c = 3 per "
                                             "layer, e = 0 extra)")
    assert s["regions-family"].startswith("the tent network (h_1 = max(-2x, 2x - 2), h_l = max(2h, -2h - 2), = "
                                          "-T^(oL) on [0, 1]) has exactly 2^L linear pieces on [0, 1] for every "
                                          "L = 1..4; hence with depth D = c L + 0 sublayers (c in {2, 3})")
    assert "Delta = 2, M = 4 (exact ranges)" in s["token-shift"] and "sha256:" in s["token-shift"]
    assert s["token-shift-witness"].endswith("M gamma_l >= sup |P_2 - P_1|, and the compiled network is exact")


def test_zigzag_weights_and_readout():
    spec = KR.family_spec("zigzag", 3, 2)
    assert spec["layers"][1]["W"][0] == [["3", "-6", "6"], ["0", "0", "0"]]
    assert spec["layers"][0]["b"] == [["0", "0"], ["-1/3", "0"], ["-2/3", "0"]]
    assert spec["readout"] == {"W": [["3", "-6", "6"]], "b": ["0"]}


# -- issue 11, forgery 4 (regions-count) -------------------------------------------------------------------
def _tent2(count, points, kind="pieces"):
    p = {"network": TENT2, "box": [["0", "1"]], "kind": kind, "count": count}
    r = {"claim": "T10", "verdict": "proved", "method": "exact", "parameters": p, "conventions": {},
         "certificate": {"kind": "regions-count", "breakpoints": points}}
    return _restate(r, "count")


def test_tent_tent_genuine_four_pieces():
    assert kernel.check(_tent2(4, ["0", "1/4", "1/2", "3/4", "1"])).startswith("regions-count: 4 pieces")
    assert kernel.check(_tent2(4, {"grid": 4}, "activation")).startswith("regions-count: 4 activation")


def test_forgery_one_region_count_one():
    _rejected(_tent2(1, ["0", "1"]), "no piece maximal")


def test_forgery_piece_split_in_two_with_the_same_map():
    _rejected(_tent2(5, ["0", "1/8", "1/4", "1/2", "3/4", "1"]), "superfluous")
    _rejected(_tent2(5, ["0", "1/8", "1/4", "1/2", "3/4", "1"], "activation"), "superfluous")
    _rejected(_tent2(5, ["0", "1/4", "1/2", "3/4", "1"], "activation"), "has 4 activation")


def test_forgery_missing_breakpoint_and_moved_breakpoint():
    _rejected(_tent2(3, ["0", "1/4", "3/4", "1"]), "no piece maximal")
    _rejected(_tent2(4, ["0", "1/4", "1/2", "5/8", "1"]), "no piece maximal")


def test_forgery_2d_polygon_split_keeps_the_count():
    r = copy.deepcopy(_by_kind("regions-count")[1])
    cells = r["certificate"]["cells"]
    big = max((c for c in cells if len(c) >= 3), key=len)
    # the claim "8 activation regions" is false however the cells are cut
    r["parameters"]["count"] = 8
    _restate(r, "count")
    _rejected(r, "has 7 activation")
    r["parameters"]["count"] = 7
    _restate(r, "count")
    cells.remove(big)
    _rejected(r)


def test_2d_pieces_are_merged_across_edges():
    # max(x1, 0) + max(x2, 0) - x1 ... a network affine on the whole square, cut into four cells
    spec = {"layers": [{"W": [[["1", "0"], ["1", "0"]]], "b": [["0", "0"]]}]}
    r = _d(T10.check_region_count(spec, SQ, "pieces", 1))
    assert kernel.check(r).startswith("regions-count: 1 pieces")
    q = [["-1", "-1"], ["0", "-1"], ["0", "0"], ["-1", "0"]]
    cells = [q, [["0", "-1"], ["1", "-1"], ["1", "0"], ["0", "0"]], [["0", "0"], ["1", "0"], ["1", "1"], ["0", "1"]],
             [["-1", "0"], ["0", "0"], ["0", "1"], ["-1", "1"]]]
    r["certificate"]["cells"] = cells + T10._skeleton([[tuple(map(T10.Fraction, v)) for v in c] for c in
                                                       [[tuple(v) for v in c] for c in cells]])
    r["certificate"]["cells"] = [[[str(c) for c in v] for v in cell] for cell in r["certificate"]["cells"]]
    assert kernel.check(r).startswith("regions-count: 1 pieces")
    r["parameters"]["count"] = 4
    _rejected(_restate(r, "count"), "has 1 pieces")


def test_verdict_follows_from_the_statement_without_expected():
    r = copy.deepcopy(_by_kind("regions-count")[0])
    r["verdict"] = "refuted"
    _rejected(r)
    r["certificate"]["kind"] = "regions-miscount"
    _rejected(r, "exactly 4' is true")


# -- tampering --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("i", range(24))
def test_statement_and_parameters_are_bound(i):
    r = kernel_samples()[i]
    weaker = r["statement"].replace("exactly", "at least", 1).replace("disjoint", "apart", 1) + " "
    _rejected(edited(r, lambda m: m.update(statement=weaker)), "statement")
    _rejected(edited(r, lambda m: m.update(conventions={"region": "something else"})), "statement")
    _rejected(edited(r, lambda m: m["certificate"].update(extra=1)), "unknown key")
    _rejected(edited(r, lambda m: m["parameters"].update(extra=1)))


def test_breakpoint_list_tampering():
    r = copy.deepcopy(_by_kind("regions-count")[0])
    pts = r["certificate"]["breakpoints"]
    for bad in (pts[1:], pts[:-1], pts[:2] + pts[1:], list(reversed(pts)), [pts[0], "1/0"] + pts[1:],
                {"grid": 0}, {"grid": 4, "x": 1}, "0..1", [], ["0", "1e9", "1"]):
        m = copy.deepcopy(r)
        m["certificate"]["breakpoints"] = bad
        _rejected(m)


def test_family_rows_are_recomputed():
    r = copy.deepcopy(_by_kind("regions-family")[0])
    r["parameters"]["L_max"] = 5
    _rejected(_restate(r, "family"), "no piece maximal")
    r["certificate"]["breakpoints"] = {"grid": 32}
    assert "L = 1..5" in kernel.check(r)
    r["parameters"]["family"] = "identical-pieces"
    _rejected(_restate(r, "family"), "identical-pieces")
    r = copy.deepcopy(_by_kind("regions-family")[1])
    r["parameters"]["q"] = 3
    _rejected(_restate(r, "family"))


def test_depth_polarity_and_rows():
    good, bad = _by_kind("regions-depth-bound")[0], _by_kind("regions-depth-miss")[0]
    m = copy.deepcopy(good)
    m["certificate"]["kind"] = "regions-depth-miss"
    m["verdict"] = "refuted"
    _rejected(m, "every row holds")
    m = copy.deepcopy(bad)
    m["certificate"]["kind"] = "regions-depth-bound"
    m["verdict"] = "proved"
    _rejected(m, "D = 6 has 1 < 2")


def test_universal_witness_must_be_a_counterexample():
    r = copy.deepcopy(_by_kind("regions-universal-miss")[0])
    r["parameters"]["counterexample"] = TENT2
    r["certificate"]["breakpoints"] = ["0", "1/4", "1/2", "3/4", "1"]
    _rejected(_restate(r, "universal"), "not a counterexample")
    r = copy.deepcopy(_by_kind("regions-universal-miss")[0])
    r["parameters"]["q"] = 1
    _rejected(_restate(r, "universal"), "not a counterexample")


def test_one_layer_instances():
    r = copy.deepcopy(_by_kind("regions-one-layer")[0])
    r["parameters"]["networks"][0] = TENT2
    _rejected(_restate(r, "one-layer"), "one layer")
    r = copy.deepcopy(_by_kind("regions-one-layer")[0])
    r["certificate"]["breakpoints"] = r["certificate"]["breakpoints"][:-1]
    _rejected(r)
    r = copy.deepcopy(_by_kind("regions-one-layer-lemma")[0])
    r["parameters"]["target"] = 7
    _rejected(_restate(r, "shallow"), "not below")


def test_grid_polarity():
    r = copy.deepcopy(_by_kind("regions-grid")[0])
    r["parameters"]["den"] = 15
    _rejected(_restate(r, "grid"), "differ")
    r = copy.deepcopy(_by_kind("regions-grid-miss")[0])
    r["parameters"]["network"] = TENT2
    r["parameters"]["den"] = 4
    r["certificate"]["breakpoints"] = {"grid": 4}
    _rejected(_restate(r, "grid"), "agree")


def test_token_shift_transformer_is_evaluated():
    r = copy.deepcopy(_by_kind("token-shift")[0])
    T = r["parameters"]["transformer"]
    T["read"]["b"] = ["1/2"]
    _rejected(_restate(r, "token-shift"), "differs from")
    r = copy.deepcopy(_by_kind("token-shift")[0])
    del r["parameters"]["transformer"]
    _rejected(_restate(r, "token-shift"), "missing")
    r = copy.deepcopy(_by_kind("token-shift")[0])
    r["method"] = "certified"
    _rejected(r, "method")
    # the S = Delta 1 Transformer (misrouted) named in a PROVED Result with Delta = 2 ranges
    bad = _d(check_token_shift(L=2, Delta=1, M=4))
    from verify.checks.t4_token_shift import transformer_json
    from verify.constructions.token_shift import scalar_shift_tent
    r = copy.deepcopy(_by_kind("token-shift")[0])
    r["parameters"]["transformer"] = transformer_json(scalar_shift_tent(2, 1, 4))
    _rejected(_restate(r, "token-shift"), "differs from")
    assert bad["verdict"] == "refuted"


def test_token_shift_witnesses():
    r = copy.deepcopy(_by_kind("token-shift-witness")[0])
    r["certificate"]["collision"]["x"] = ["0", "0"]
    _rejected(r, "not a collision")
    r = copy.deepcopy(_by_kind("token-shift-witness")[0])
    r["certificate"]["collision"]["tokens"] = [1, 1]
    _rejected(r, "not a collision")
    r = copy.deepcopy(_by_kind("token-shift-witness")[0])
    r["parameters"]["Delta"] = "2"
    _rejected(_restate(r, "token-shift"), "not a collision")
    r = copy.deepcopy(_by_kind("token-shift-witness")[1])
    r["parameters"]["M"] = "4"
    _rejected(_restate(r, "token-shift"), "not a gate failure")
    r = copy.deepcopy(_by_kind("token-shift-witness")[1])
    r["certificate"]["collision"] = r["certificate"]["gate"]
    _rejected(r, "exactly one")
    r = copy.deepcopy(_by_kind("token-shift-witness")[1])
    r["certificate"]["gate"]["x"] = "2"
    _rejected(r, "outside")


# -- search side ----------------------------------------------------------------------------------------------
def test_kernel_families_equal_the_constructions():
    from verify.canonical import jsonable
    from verify.constructions.token_shift import tent_network

    assert jsonable(tent_network(5).to_dict()) == KR.family_spec("tent", 2, 5)
    for q in (2, 3, 4):
        assert jsonable(T10.zigzag_network(q, 3).to_dict()) == KR.family_spec("zigzag", q, 3)


# -- hostile inputs ---------------------------------------------------------------------------------------------
def _timed_reject(r, limit=10.0):
    t = time.monotonic()
    try:
        kernel.check(r, seconds=60)
        ok = True
    except Rejected:
        ok = False
    dt = time.monotonic() - t
    assert dt < limit, dt
    return ok


def test_hostile_2d_strips():
    n = 20000
    cells = [[[i, 0], [i + 1, 0], [i + 1, 1], [i, 1]] for i in range(n)]
    spec = {"layers": [{"W": [[["1", "0"], ["0", "0"]]], "b": [["0", "0"]]}]}
    p = {"network": spec, "box": [["0", str(n)], ["0", "1"]], "kind": "pieces", "count": 1}
    r = _restate({"claim": "T10", "verdict": "proved", "method": "exact", "parameters": p, "conventions": {},
                  "certificate": {"kind": "regions-count", "cells": cells}}, "count")
    assert 900_000 < len(json.dumps(r)) < 1_100_000
    assert not _timed_reject(r)                     # the segments and points of the closed cover are missing
    # 20000 polygons x 8406 weights > MAX_WORK_2D (only the polygons are evaluated, so they are what counts)
    wide = [{"W": [[["1"], ["0"]]] * 10, "b": [["0", "0"]] * 10}]
    wide += [{"W": [[["1"] * 10, ["0"] * 10]] * 10, "b": [["0", "0"]] * 10}] * 38
    r["parameters"]["network"]["layers"] = spec["layers"] + wide
    _restate(r, "count")
    assert 20000 * 8406 > KR.MAX_WORK_2D
    assert not _timed_reject(r, 1.0)                # polygons x weights over the work bound: rejected at once
    _rejected(r, "work bound")
    # Euler characteristic made right with stray segments: every number is read, then the partition fails
    m = 8000
    r["parameters"]["network"]["layers"] = spec["layers"]
    r["parameters"]["box"] = [["0", str(m)], ["0", "1"]]
    r["certificate"]["cells"] = cells[:m] + [[[i, 0], [i + 1, 0]] for i in range(m - 1)]
    _restate(r, "count")
    assert 500_000 < len(json.dumps(r)) < 1_100_000
    assert not _timed_reject(r)


def test_hostile_2d_strips_genuine_partition_is_fast():
    n = 2000
    polys = [[(T10.Fraction(i, n), T10.Fraction(0)), (T10.Fraction(i + 1, n), T10.Fraction(0)),
              (T10.Fraction(i + 1, n), T10.Fraction(1)), (T10.Fraction(i, n), T10.Fraction(1))] for i in range(n)]
    cells = [[[str(c) for c in v] for v in P] for P in polys + T10._skeleton(polys)]
    spec = {"layers": [{"W": [[["1", "0"], ["0", "0"]]], "b": [["0", "0"]]}]}
    p = {"network": spec, "box": [["0", "1"], ["0", "1"]], "kind": "pieces", "count": 1}
    r = _restate({"claim": "T10", "verdict": "proved", "method": "exact", "parameters": p, "conventions": {},
                  "certificate": {"kind": "regions-count", "cells": cells}}, "count")
    assert _timed_reject(r)


def test_hostile_1d_lists_and_numbers():
    base = copy.deepcopy(_by_kind("regions-count")[0])
    m = copy.deepcopy(base)
    m["certificate"]["breakpoints"] = ["0"] + [f"{i}/100001" for i in range(1, 100001)] + ["1"]
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    m["certificate"]["breakpoints"] = {"grid": 10 ** 9}
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    m["certificate"]["breakpoints"] = ["0"] + [f"{i}{'7' * 4990}/{'9' * 5000}" for i in range(1, 190)] + ["1"]
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    m["certificate"]["breakpoints"] = ["0", "1" + "0" * 6000, "1"]
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    m["certificate"]["breakpoints"] = ["0", "1e100000000", "1"]
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    nest = "1"
    for _ in range(100000):
        nest = [nest]
    m["certificate"]["breakpoints"] = nest
    assert not _timed_reject(m)
    m = copy.deepcopy(base)
    m["parameters"]["count"] = "1e100000000"
    assert not _timed_reject(m)


def test_hostile_1d_largest_accepted_sweep_is_bounded():
    r = copy.deepcopy(_by_kind("regions-family")[0])
    r["parameters"]["L_max"] = 14
    _restate(r, "family")
    r["certificate"]["breakpoints"] = {"grid": 2 ** 14}
    assert _timed_reject(r)
    r["parameters"]["L_max"] = 15
    _restate(r, "family")
    r["certificate"]["breakpoints"] = {"grid": 2 ** 15}
    assert not _timed_reject(r, 1.0)


def test_hostile_transformer_is_bounded():
    r = copy.deepcopy(_by_kind("token-shift")[0])
    T = r["parameters"]["transformer"]
    ffn = T["sublayers"][0]["ffn"]
    ffn["W1"] = ffn["W1"] * 4000
    ffn["b1"] = ffn["b1"] * 4000
    ffn["W2"] = [row * 4000 for row in ffn["W2"]]
    _restate(r, "token-shift")
    assert not _timed_reject(r)


# -- pins (mutation testing) --------------------------------------------------------------------------------
def test_pin_point_list_bound():
    r = copy.deepcopy(_by_kind("regions-count")[0])
    r["certificate"]["breakpoints"] = ["0"] + [f"{i}/70001" for i in range(1, 70000)] + ["1"]
    assert len(r["certificate"]["breakpoints"]) == KR.MAX_POINTS + 1
    _rejected(r, "elements")


def test_pin_statement_readers():
    with pytest.raises(Rejected):
        KR.statement("one-layer", {"box": SQ, "networks": []}, {})
    with pytest.raises(Rejected):
        KR.statement("grid", {"box": SQ, "den": 4}, {})
    with pytest.raises(Rejected, match="unknown form"):
        KR.statement("nonsense", {}, {})
    with pytest.raises(Rejected, match="not an object"):
        KR.statement("count", [], {})


def test_pin_depth_and_universal_offsets():
    r = _d(T10.check_depth_bound_table("identical-pieces", 2, D_max=65, c=1, e=1))
    assert r["verdict"] == "refuted" and kernel.check(r).startswith("regions-depth-miss")
    r = copy.deepcopy(_by_kind("regions-universal-miss")[0])
    r["parameters"].update({"c": 1, "e": 3, "counterexample": KR.family_spec("identical-pieces", 2, 3)})
    assert kernel.check(_restate(r, "universal")).endswith("a 3-layer network (D = 6) has 1 piece(s) < "
                                                           "2^(floor(D/3)-1) = 2")
    r["parameters"]["e"] = 2
    _rejected(_restate(r, "universal"), "not a counterexample")


def test_pin_lemma_bounds_and_summary():
    r = copy.deepcopy(_by_kind("regions-one-layer-lemma")[0])
    assert kernel.check(r).endswith("one layer, width 6, rank 2: at most 1 + N(k-1) = 7 < 8 pieces (lemma)")
    r["parameters"] = {"N": 1, "target": 3}
    assert "= 2 < 3" in kernel.check(_restate(r, "shallow"))
    r["parameters"] = {"N": 0, "target": 3}
    _rejected(_restate(r, "shallow"), "parameters.N")


def test_pin_grid_work_bound():
    r = copy.deepcopy(_by_kind("regions-grid")[0])
    spec = KR.family_spec("tent", 2, 12)
    r["parameters"].update({"network": spec, "den": 60000})
    r["certificate"]["breakpoints"] = {"grid": 4096}
    _rejected(_restate(r, "grid"), "work bound")


def test_pin_token_shift_messages():
    r = copy.deepcopy(_by_kind("token-shift")[0])
    r["parameters"]["Delta"] = "1"
    _rejected(_restate(r, "token-shift"), r"layer 1: Delta = 1 <= width 1")
    r = copy.deepcopy(_by_kind("token-shift")[0])
    r["parameters"]["M"] = "3"
    _rejected(_restate(r, "token-shift"), r"layer 1: M gamma = 3/2 < sup")
    # a gate witness with gamma <= 0 is not accepted (that case needs a collision)
    r = copy.deepcopy(_by_kind("token-shift-witness")[0])
    del r["certificate"]["collision"]
    r["certificate"]["gate"] = {"u": "1", "v": "0", "x": "0"}
    _rejected(r, "not a gate failure")


def test_pin_depth_range():
    r = copy.deepcopy(_by_kind("regions-depth-bound")[1])          # zigzag q = 3, c = 2, e = 1
    r["parameters"]["D_max"] = 2
    _rejected(_restate(r, "depth"), "parameters.D_max")
    r["parameters"]["D_max"] = 8
    assert kernel.check(_restate(r, "depth")).endswith("every D = 3..8 meets 3^(floor(D/3)-1) (c = 2, e = 1)")


def test_pin_more_bounds():
    r = copy.deepcopy(_by_kind("regions-universal-miss")[0])
    r["parameters"]["q"] = 65
    _rejected(_restate(r, "universal"), "parameters.q")
    r = copy.deepcopy(_by_kind("regions-one-layer-lemma")[0])
    r["parameters"] = {"N": 10 ** 6 + 1, "target": 10 ** 7}
    _rejected(_restate(r, "shallow"), "parameters.N")
    # exactly at the 2-D work bound (open polygons x weights; points and segments are not evaluated): the Euler
    # check speaks, not the work bound; one polygon more and the work bound does
    r = copy.deepcopy(_by_kind("regions-count")[1])
    r["parameters"]["network"] = {"layers": [{"W": [[["1", "0"], ["0", "0"]]] * 250, "b": [["0", "0"]] * 250}]}
    assert KR.MAX_WORK_2D % 1500 == 0
    tri = [[0, 0], [1, 0], [0, 1]]
    r["certificate"]["cells"] = [tri] * (KR.MAX_WORK_2D // 1500) + [[[0, 0]]] * 10 ** 5
    _rejected(_restate(r, "count"), "points - segments")
    r["certificate"]["cells"].append(tri)
    _rejected(_restate(r, "count"), "work bound")


def test_pin_interval_enclosures():
    r = _d(check_token_shift(L=2, Delta=5, M=4, ranges="interval"))
    assert r["verdict"] == "proved" and kernel.check(r).startswith("token-shift: L = 2")
    r["parameters"]["Delta"] = "9/2"
    _rejected(_restate(r, "token-shift"), "layer 2: M gamma = 5 < sup")


def test_pin_zigzag_text_and_single_instance():
    r = _by_kind("regions-family")[1]
    assert r["statement"].startswith("the zigzag network g_2^(oL) (h_(l,i) = max(y_l - i/2, 0), i = 0..1, y_1 = x, "
                                     "y_(l+1) = 2 h_(l,0) - 4 sum_(i>=1) (-1)^(i+1) h_(l,i), output y_(L+1)) has "
                                     "exactly 2^L linear pieces on [0, 1] for every L = 1..3")
    r = _d(T10.check_one_layer_ceiling(seeds=(5,), N=2, k=2))
    assert kernel.check(r).startswith("regions-one-layer: 1 one-layer networks")


def test_pin_family_single_c_value():
    # one c value is enough (c_values has 1..6 entries, in the statement as in the check)
    r = copy.deepcopy(_by_kind("regions-family")[0])
    r["parameters"]["c_values"] = [3]
    assert kernel.check(_restate(r, "family")).endswith("depth tables c in [3] hold")
    p = dict(r["parameters"], c_values=[1, 2, 3, 4, 5, 6, 1])
    with pytest.raises(Rejected, match=r"parameters\.c_values: expected 1\.\.6 elements, got 7"):
        KR.statement("family", p, {})


def test_pin_2d_rank_one_network():
    # a rank-1 (affine) 2-D network: one piece, one activation region; the work bound reads its first piece
    spec = {"layers": [{"W": [[["1", "0"]]], "b": [["0"]]}]}
    r = _d(T10.check_region_count(spec, SQ, "pieces", 1))
    assert kernel.check(r) == "regions-count: 1 pieces (1 activation regions, 1 pieces)"
    r["parameters"]["kind"] = "activation"
    assert kernel.check(_restate(r, "count")) == "regions-count: 1 activation regions (1 activation regions, 1 pieces)"


def test_pin_count_zero_is_a_claim():
    r = copy.deepcopy(_by_kind("regions-miscount")[0])
    r["parameters"]["count"] = 0
    assert kernel.check(_restate(r, "count")) == "regions-miscount: 4 pieces (4 activation regions, 4 pieces)"
    r["parameters"]["count"] = 10 ** 9
    assert kernel.check(_restate(r, "count")).startswith("regions-miscount: 4 pieces")
    r["parameters"]["count"] = 10 ** 9 + 1
    _rejected(_restate(r, "count"), r"parameters\.count: expected an integer in \[0, 1000000000\]")


def test_pin_lemma_target_edges():
    r = copy.deepcopy(_by_kind("regions-one-layer-lemma")[0])
    r["parameters"] = {"N": 1, "target": 1}            # a valid target, but 1 + N = 2 is not below 1
    _rejected(_restate(r, "shallow"), r"parameters: the ceiling 1 \+ N = 2 is not below 1")
    r["parameters"] = {"N": 1, "target": 2}            # the edge 1 + N = target: not below
    _rejected(_restate(r, "shallow"), r"the ceiling 1 \+ N = 2 is not below 2")
    r["parameters"] = {"N": 1, "target": 10 ** 9}
    assert kernel.check(_restate(r, "shallow")).endswith("at most 1 + N(k-1) = 2 < 1000000000 pieces (lemma)")
    r["parameters"] = {"N": 1, "target": 10 ** 9 + 1}
    _rejected(_restate(r, "shallow"), r"parameters\.target: expected an integer in \[1, 1000000000\]")
    r["parameters"] = {"N": 1, "target": 0}
    _rejected(_restate(r, "shallow"), r"parameters\.target")


def test_pin_grid_work_bound_message():
    r = copy.deepcopy(_by_kind("regions-grid")[0])
    r["parameters"].update({"network": KR.family_spec("tent", 2, 12), "den": 60000})
    r["certificate"]["breakpoints"] = {"grid": 4096}
    _rejected(_restate(r, "grid"), r"^parameters\.den: 60001 grid points exceed the work bound$")


def _pad_ffn(T, sub, rows):
    f = T["sublayers"][sub]["ffn"]
    f["W1"] += rows
    f["b1"] += ["0"] * len(rows)
    f["W2"] = [row + ["0"] * len(rows) for row in f["W2"]]


def _transformer_size(T):
    Tp = KR._cells.read_transformer(T, "t")
    return sum(sum(v) if isinstance(v, list) else v for k, v in KR._cells.transformer_sizes(Tp).items()
               if k.endswith("nonzeros")) + len(Tp["sublayers"])


@pytest.mark.slow
def test_pin_transformer_work_bound_edge():
    # work = 2 x 5 points x size x 2 tokens.  The Transformer's size is 57 (+1 for the tampered read-out bias);
    # hidden units that the read-out ignores (zero W2 columns) pad it to exactly 60000: work = MAX_WORK, not
    # above it, so the cells are evaluated (and the tampered bias found); one more nonzero weight: the bound.
    r = copy.deepcopy(_by_kind("token-shift")[0])
    T = r["parameters"]["transformer"]
    assert _transformer_size(T) == 57
    T["read"]["b"] = ["1/2"]
    _pad_ffn(T, 0, [["1", "1", "1", "1"]] * 7493 + [["1", "1", "0", "0"]])
    _pad_ffn(T, 2, [["1", "1", "1", "1"]] * 7492)
    assert _transformer_size(T) == 60000 and 2 * 5 * 60000 * 2 == KR.MAX_WORK
    _rejected(_restate(r, "token-shift"), r"parameters\.transformer: differs from -T\^\(o2\) on Cell\(\(0\)\)")
    _pad_ffn(T, 2, [["0", "0", "0", "1"]])
    _rejected(_restate(r, "token-shift"), r"^parameters\.transformer: 9 cells x 60001 weights exceed the work bound$")


def test_pin_euler_count_ignores_non_lists():
    # a stray non-list cell has no dimension in the Euler count: the cell reader rejects it by its index
    r = copy.deepcopy(_by_kind("regions-count")[1])
    n = len(r["certificate"]["cells"])
    r["certificate"]["cells"].append("x")
    _rejected(r, r"^certificate\.cells\[%d\]" % n)
    r["certificate"]["cells"][-1] = [[0, 0], [1, 0]]        # a stray segment: now the Euler count speaks
    _rejected(r, r"^certificate\.cells: points - segments \+ polygons != 1")


# -- the integer-matrix evaluator of 2-D counts (kernel._cells.eval_maxout_int) --------------------------------
def test_integer_evaluator_equals_the_form_evaluator_on_every_cell():
    """Same patterns (ties of rank-3 units included) and the same output maps as eval_maxout, on the cells of
    genuine 2-D certificates of ReLU and rank-3 maxout networks with integer and decimal weights."""
    from fractions import Fraction

    from verify.constructions.reference_networks import random_maxout
    from verify.kernel import _cells as C

    nets = [(random_maxout(4, 2, 3, 2, 4), [(-1, 1), (-1, 1)]),
            (random_maxout(9, 2, 2, 3, 3), [(-1, 1), (-2, 1)])]
    tied = {"layers": [{"W": [[["1", "0"], ["1", "0"], ["0", "1"]], [["1", "1"], ["0", "0"], ["0", "0"]]],
                        "b": [["0", "0", "0"], ["-1/3", "0", "1/7"]]}],
            "readout": {"W": [["1", "-2"]], "b": ["1/2"]}}
    from verify.objects.maxout import MaxoutNetwork

    nets.append((MaxoutNetwork.from_dict(tied), [(-1, 1), (-1, 1)]))
    for net, box in nets:
        from verify.canonical import jsonable

        spec = jsonable(net.to_dict())
        cert = T10.region_certificate(net, [(Fraction(a), Fraction(b)) for a, b in box])
        knet = C.read_maxout(spec, "n")
        inet = C.maxout_int_layers(knet)
        cells = C.read_cells(cert["cells"], "c", 2)
        assert sum(c.dim == 2 for c in cells) > 3
        for c in cells:                   # every cell of the partition: polygons, segments and points
            maps, pat = C.eval_maxout(knet, c)
            imaps, ipat = C.eval_maxout_int(inet, c)
            assert ipat == pat
            assert [tuple(m) for m in maps] == [tuple(m) for m in imaps]


def test_integer_evaluator_rejects_a_cell_cut_by_a_unit():
    from verify.kernel import _cells as C

    knet = C.read_maxout({"layers": [{"W": [[["1", "0"], ["0", "0"]], [["0", "1"], ["0", "0"]]],
                                      "b": [["0", "0"], ["-1/2", "0"]]}]}, "n")
    inet = C.maxout_int_layers(knet)
    ok = C.Cell([(0, 0), (1, 0), (1, 1)])                  # x1 > 0 on the cell, x2 - 1/2 changes sign: rejected
    with pytest.raises(Rejected, match="layer 1, unit 2"):
        C.eval_maxout_int(inet, ok)
    maps, pat = C.eval_maxout_int(inet, C.Cell([(0, 0), (1, 0), (1, "1/4")]))
    assert pat == (((0,), (1,)),)


def test_a_forged_2d_certificate_of_a_deep_slice_is_rejected():
    """A genuine count of a 2 x 6 ReLU network with decimal weights is accepted; a wrong count, and the whole
    square claimed as one cell, are rejected (the latter by the integer evaluator: a ReLU changes sign on it)."""
    net = _decimal_slice(2, 6)
    r = _d(T10.check_region_count(net, [["-1/2", "1/2"], ["-1/2", "1/2"]], "activation"))
    assert r["verdict"] == "proved" and kernel.check(r).startswith("regions-count")
    forged = copy.deepcopy(r)
    forged["parameters"]["count"] += 1
    _rejected(_restate(forged, "count"), "so 'exactly")
    # a square that no cell of the count contains: the partition check or the evaluator rejects it
    forged = copy.deepcopy(r)
    forged["certificate"]["cells"] = [[["-1/2", "-1/2"], ["1/2", "-1/2"], ["1/2", "1/2"], ["-1/2", "1/2"]]] + \
        [[[a, b]] for a in ("-1/2", "1/2") for b in ("-1/2", "1/2")] + \
        [[[a, "-1/2"], [a, "1/2"]] for a in ("-1/2", "1/2")] + [[["-1/2", b], ["1/2", b]] for b in ("-1/2", "1/2")]
    forged["parameters"]["count"] = 1
    _rejected(_restate(forged, "count"), "not constant on the cell")


def _decimal_slice(depth, width, seed=3):
    import random
    from fractions import Fraction

    from verify.objects.maxout import MaxoutNetwork

    rng = random.Random(seed)
    q = lambda: Fraction(round(rng.gauss(0, 0.6) * 10 ** 5), 10 ** 5)
    sizes = [2] + [width] * depth + [1]
    Ws = [[[q() for _ in range(sizes[i])] for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    bs = [[q() for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    return MaxoutNetwork.from_relu(Ws[:-1], bs[:-1], readout=(Ws[-1], bs[-1]))


def test_1d_sweep_in_integers_and_in_rationals_agree():
    """The kernel's 1-D sweep holds values as integers over one scale when the points' common denominator is
    small, as rationals otherwise: same counts, same rejections (a missing and a superfluous breakpoint)."""
    from gmpy2 import mpq

    layers, ro = KR.read_network(KR.family_spec("zigzag", 3, 3), "n")
    xs = [mpq(i, 27) for i in range(28)]
    want = KR.sweep(layers, ro, xs, True)
    assert want == [(3, 3), (9, 9), (27, 27)]
    huge = mpq(1, 2 ** 1100 + 1)                           # the common denominator leaves the integer path
    for pts, match in ((xs[:5] + xs[6:], "a breakpoint is missing"), (xs[:1] + [huge] + xs[1:], "superfluous"),
                       (xs[:1] + [mpq(1, 54)] + xs[1:], "superfluous")):
        with pytest.raises(Rejected, match=match):
            KR.sweep(layers, ro, pts, True)
    # a breakpoint of a 1100-bit denominator (rationals throughout) and of a small one (integers): same counts
    for t in (huge, mpq(1, 3)):
        spec = {"layers": [{"W": [[["1"], ["0"]]], "b": [[f"-{t.numerator}/{t.denominator}", "0"]]},
                           {"W": [[["-1"], ["1"]]], "b": [["0", "0"]]}]}
        layers2, ro2 = KR.read_network(spec, "t")
        assert KR.sweep(layers2, ro2, [mpq(0), t, mpq(1)], True) == [(2, 2), (2, 2)]
