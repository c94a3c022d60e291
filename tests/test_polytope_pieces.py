"""Linear pieces in d >= 3 (kinds regions-polytope-pieces / -miscount; docs/regions.md, "Pieces in d >= 3"):
merges, distinct maps, separations, agreement with the 2-D engine and a float-LP brute force, forged
certificates rejected."""

import copy
import itertools
import json
import random

import numpy as np
import pytest
from scipy.optimize import linprog

from verify import kernel
from verify.checks.t10_linear_regions import check_region_count
from verify.decide.polytope_pieces import prove_pieces_count
from verify.decide.regions import count_regions
from verify.errors import SizeLimitError
from verify.kernel import regions as KR
from verify.objects.maxout import MaxoutNetwork


def relu_net(rows, ro, d=None):
    """ReLU units max(w.x + b, 0) with a linear read-out (exact strings)."""
    d = d or len(rows[0][0])
    return {"layers": [{"W": [[[str(c) for c in w] + ["0"] * (d - len(w)), ["0"] * d] for w, _ in rows],
                        "b": [[str(b), "0"] for _, b in rows]}],
            "readout": {"W": [[str(c) for c in ro]], "b": ["0"]}}


# relu(x1) - relu(-x1) = x1: 2 activation regions, 1 piece (a merge across x1 = 0); x2, x3 padding
IDENT = relu_net([([1, 0, 0], 0), ([-1, 0, 0], 0)], [1, -1])
# relu(x1) - 2 relu(x1 - 1/2) + relu(x1 - 1) on [-1, 2] x [0, 1]^2: the map 0 on the two slabs x1 < 0 and
# x1 > 1, which share no facet: 4 regions, 3 maps, 4 pieces (one separation)
HAT = relu_net([([1, 0, 0], 0), ([1, 0, 0], "-1/2"), ([1, 0, 0], -1)], [1, -2, 1])
HAT_BOX = [(-1, 2), (0, 1), (0, 1)]
CUBE = [(-1, 1)] * 3


def _check(r):
    return kernel.check(json.loads(r.to_json()))


def _restate(r):
    r["statement"] = KR.statement("polytope", r["parameters"], r["conventions"])
    return r


def _rejected(r):
    with pytest.raises(kernel.Rejected):
        kernel.check(r)


def test_merge_two_regions_one_piece():
    r = prove_pieces_count(IDENT, CUBE, 1)
    assert r.verdict.value == "proved"
    assert len(r.certificate["merges"]) == 1 and r.certificate["separations"] == []
    assert _check(r).startswith("regions-polytope-pieces: 1 pieces (2 activation regions, 1 maps")
    rc = count_regions(MaxoutNetwork.from_dict(IDENT), CUBE, kind="pieces")
    assert (rc.count, rc.activation_regions, rc.pieces) == (1, 2, 1)
    # check_region_count (T10) routes d >= 3 pieces here
    assert check_region_count(IDENT, [["-1", "1"]] * 3, kind="pieces", expected=1).certificate["kind"] == \
        "regions-polytope-pieces"


def test_separation_same_map_on_two_slabs():
    r = prove_pieces_count(HAT, HAT_BOX)
    assert r.verdict.value == "proved" and r.parameters["count"] == 4
    assert r.certificate["merges"] == [] and len(r.certificate["separations"]) == 1
    assert "4 pieces (4 activation regions, 3 maps, 1 separations" in _check(r)
    wrong = prove_pieces_count(HAT, HAT_BOX, 3)
    assert wrong.verdict.value == "refuted"
    assert _check(wrong).startswith("regions-polytope-pieces-miscount: 4 pieces")


def test_bounds_without_separations():
    """With no separation allowed the count is only bounded (3..4): INCONCLUSIVE inside, REFUTED outside."""
    assert prove_pieces_count(HAT, HAT_BOX, 3, max_pairs=0).verdict.value == "inconclusive"
    assert prove_pieces_count(HAT, HAT_BOX, None, max_pairs=0).verdict.value == "inconclusive"
    r = prove_pieces_count(HAT, HAT_BOX, 5, max_pairs=0)
    assert r.verdict.value == "refuted" and r.certificate["separations"] == []
    assert _check(r).startswith("regions-polytope-pieces-miscount: 3..4 pieces")
    r2 = json.loads(r.to_json())
    r2["parameters"]["count"] = 4                          # inside the bounds: not refuted by them
    _restate(r2)
    with pytest.raises(kernel.Rejected, match="does not exclude 4"):
        kernel.check(r2)


def _random_net(seed, d=3, n=4):
    rng = random.Random(seed)
    rows = [([rng.randint(-3, 3) or 1 for _ in range(d)], f"{rng.randint(-2, 2)}/3") for _ in range(n)]
    return relu_net(rows, [rng.choice([-2, -1, 1, 2, 3]) for _ in range(n)])


def test_generic_network_pieces_equal_activation_regions():
    net = _random_net(7)
    m = MaxoutNetwork.from_dict(net)
    act = count_regions(m, CUBE, kind="activation").count
    r = prove_pieces_count(net, CUBE)
    assert r.verdict.value == "proved" and r.parameters["count"] == act > 4
    _check(r)


def test_agrees_with_the_2d_count_when_x3_is_ignored():
    rows = [([1, 0], 0), ([-1, 0], 0), ([1, 1], "-1/2"), ([0, 1], "1/3"), ([1, -1], 0)]
    ro = [1, -1, 2, -1, 1]
    two = count_regions(MaxoutNetwork.from_dict(relu_net(rows, ro)), [(-1, 1)] * 2, kind="pieces")
    three = relu_net(rows, ro, d=3)
    r = prove_pieces_count(three, CUBE)
    assert r.verdict.value == "proved"
    assert r.parameters["count"] == two.count and r.evidence["activation_regions"] == two.activation_regions
    assert two.count < two.activation_regions            # a merge happened
    _check(r)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_padded_networks_with_hats_agree_with_2d(seed):
    """Random 2-D ReLU networks plus a hat (one map on two separated slabs), padded by x3: the same piece count
    as the 2-D engine, with separations."""
    rng = random.Random(seed)
    n = rng.choice([3, 4, 5])
    rows = [([rng.choice([-1, 0, 1, 1, 2]) for _ in range(2)], f"{rng.randint(-2, 2)}/2") for _ in range(n)]
    rows = [(w if any(w) else [1, 0], b) for w, b in rows]
    ro = [rng.choice([-2, -1, 1, 2]) for _ in range(n)]
    w = [rng.choice([1, -1]), rng.choice([0, 1])]
    rows += [(w, "0"), (w, "-1/2"), (w, "-1")]
    ro += [1, -2, 1]
    if rng.random() < 0.5:
        ro = [0 if rng.random() < 0.4 else c for c in ro]
    two = count_regions(MaxoutNetwork.from_dict(relu_net(rows, ro)), [(-1, 2)] * 2, kind="pieces")
    r = prove_pieces_count(relu_net(rows, ro, d=3), [(-1, 2), (-1, 2), (0, 1)])
    assert r.verdict.value == "proved" and r.parameters["count"] == two.count
    assert r.evidence["separations"] >= 1
    _check(r)


def _brute_pieces(rows, ro, bx):
    """Independent float-LP count for a one-layer ReLU network: sign patterns with a Chebyshev ball, their maps,
    and facet adjacency (patterns differing in the units of one hyperplane, whose piece between them has a
    relatively open part)."""
    d = len(bx)
    W = np.array([[float(c) for c in w] for w, _ in rows])
    b = np.array([float(eval(str(c))) for _, c in rows])
    A_box = np.vstack([np.eye(d), -np.eye(d)])
    b_box = np.concatenate([[hi for _, hi in bx], [-lo for lo, _ in bx]])

    def cheb(A, c, A_eq=None, b_eq=None):            # max t: A x + t |A| <= c
        norms = np.linalg.norm(A, axis=1)
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.hstack([A, norms[:, None]]), b_ub=c,
                      A_eq=None if A_eq is None else np.hstack([A_eq, np.zeros((len(A_eq), 1))]), b_eq=b_eq,
                      bounds=[(None, None)] * d + [(None, 1)], method="highs")
        return res.status == 0 and -res.fun > 1e-7

    def rows_of(s, skip=None):
        A = [-(1 if si else -1) * W[i] for i, si in enumerate(s) if i not in (skip or ())]
        c = [(1 if si else -1) * b[i] for i, si in enumerate(s) if i not in (skip or ())]
        return np.vstack([A_box] + ([np.array(A)] if A else [])), np.concatenate([b_box, c])

    pats = [s for s in itertools.product((0, 1), repeat=len(rows)) if cheb(*rows_of(s))]
    ro = np.array(ro, dtype=float)

    def fmap(s):
        on = np.array(s, dtype=float) * ro
        return tuple(np.round(np.r_[on @ b, on @ W], 9))

    parent = {s: s for s in pats}

    def find(s):
        while parent[s] != s:
            s = parent[s]
        return s

    def plane(i):                                        # the hyperplane of unit i, up to sign and scale
        v = np.r_[b[i], W[i]]
        v = v / v[1:][np.nonzero(W[i])[0][0]]
        return tuple(np.round(v, 9))

    for s, t in itertools.combinations(pats, 2):
        diff = [i for i in range(len(s)) if s[i] != t[i]]
        if len({plane(i) for i in diff}) == 1 and fmap(s) == fmap(t):
            A, c = rows_of(s, skip=set(diff))
            if cheb(A, c, W[diff[0]][None, :], np.array([-b[diff[0]]])):
                parent[find(s)] = find(t)
    return len({find(s) for s in pats}), len(pats)


def test_float_lp_brute_force():
    rows = [([1, 0, 0], 0), ([-1, 0, 0], 0), ([0, 1, 1], "-1/2"), ([1, 1, -1], 0), ([0, 0, 1], "1/4")]
    ro = [1, -1, 1, 2, -1]
    pieces, regions = _brute_pieces(rows, ro, CUBE)
    r = prove_pieces_count(relu_net(rows, ro), CUBE)
    assert r.verdict.value == "proved"
    assert (r.parameters["count"], r.evidence["activation_regions"]) == (pieces, regions)
    assert pieces < regions


# |x1| + |x2| - |x1 + x2| (x3 padding): 0 on the quadrants x1, x2 > 0 and x1, x2 < 0, which meet in the line
# x1 = x2 = 0 only (codimension 2): 6 regions, 5 maps, 6 pieces; the separation has sum y c = 0, rank 2
CORNERS = relu_net([([1, 0, 0], 0), ([-1, 0, 0], 0), ([0, 1, 0], 0), ([0, -1, 0], 0), ([1, 1, 0], 0),
                    ([-1, -1, 0], 0)], [1, 1, 1, 1, -1, -1])


def test_codimension_two_separation():
    r = prove_pieces_count(CORNERS, CUBE)
    assert r.verdict.value == "proved" and r.parameters["count"] == 6
    assert (r.evidence["maps"], len(r.certificate["separations"])) == (5, 1)
    assert "6 pieces (6 activation regions, 5 maps, 1 separations" in _check(r)
    a, b, y = r.certificate["separations"][0]
    forged = json.loads(r.to_json())
    # x1 >= 0 on one region's closure and -x1 >= 0 on the other's: sum 0, but rank 1 (the plane x1 = 0 is
    # not of dimension d - 2)
    forms = [i for i, _ in y]
    forged["certificate"]["separations"] = [[a, b, [[forms[0], "1"], [forms[len(forms) // 2], "1"]]]]
    with pytest.raises(kernel.Rejected, match="rank < 2"):
        kernel.check(forged)


# -- forged certificates -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ident():
    return json.loads(prove_pieces_count(IDENT, CUBE, 1).to_json())


@pytest.fixture(scope="module")
def hat():
    return json.loads(prove_pieces_count(HAT, HAT_BOX, 4).to_json())


def test_forged_merge_point_off_the_hyperplane(ident):
    r = copy.deepcopy(ident)
    r["certificate"]["merges"][0][4][0] = "1/7"            # x1 = 1/7: off x1 = 0
    _rejected(r)


def test_forged_merge_point_violating_a_constraint(ident):
    r = copy.deepcopy(ident)
    r["certificate"]["merges"][0][4][1] = "3"              # x2 = 3: outside the box
    _rejected(r)


def test_merges_removed_leave_the_count_open(ident):
    r = copy.deepcopy(ident)
    r["certificate"]["merges"] = []
    _rejected(r)                                           # 1..2 pieces: "exactly 1" not proved


def test_separation_of_an_adjacent_pair_rejected(ident):
    """x1 < 0 and x1 > 0 share the facet x1 = 0: no multipliers separate them."""
    n = 2 * 3 + 1                                          # closed constraints of one region: box + 1 form
    for y in ([[0, "1"], [1, "1"]], [[6, "1"], [13, "1"]], [[k, "1"] for k in range(2 * n)],
              [[6, "1"], [13, "1"], [0, "1"], [7, "1"]]):
        r = copy.deepcopy(ident)
        r["certificate"]["merges"] = []
        r["certificate"]["separations"] = [[0, 1, y]]
        _rejected(r)


def test_forged_farkas_multipliers(hat):
    sep = hat["certificate"]["separations"][0]
    for k in range(len(sep[2])):
        r = copy.deepcopy(hat)
        r["certificate"]["separations"][0][2][k][1] = "1000"
        _rejected(r)
    r = copy.deepcopy(hat)
    r["certificate"]["separations"][0][2] = r["certificate"]["separations"][0][2][1:]
    _rejected(r)


def test_forged_counts(hat, ident):
    for res, wrong in ((hat, 3), (hat, 5), (ident, 2)):
        r = copy.deepcopy(res)
        r["parameters"]["count"] = wrong
        _restate(r)
        _rejected(r)                                       # PROVED of a wrong count
        r["verdict"] = "refuted"
        r["certificate"]["kind"] = "regions-polytope-pieces-miscount"
        assert kernel.check(r).startswith("regions-polytope-pieces-miscount")
    r = copy.deepcopy(hat)
    r["verdict"] = "refuted"
    r["certificate"]["kind"] = "regions-polytope-pieces-miscount"
    _rejected(r)                                           # the true count is not a miscount


def test_merge_of_different_maps_rejected(hat):
    r = copy.deepcopy(hat)
    # leaves 0 (x1 < 0, map 0) and 1 (0 < x1 < 1/2, map x1) are adjacent across x1 = 0 but differ in map
    r["certificate"]["merges"] = [[0, 6, 1, 6, ["0", "1/2", "1/2"]]]
    _rejected(r)


def test_cli_counts_pieces_in_three_dimensions(tmp_path, capsys):
    from verify.cli import main

    net, out = tmp_path / "net.json", tmp_path / "out.json"
    net.write_text(json.dumps(IDENT))
    assert main(["regions", str(net), "--box=-1:1,-1:1,-1:1", "--kind", "pieces", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 activation regions, 1 piece" in text and "regions-polytope-pieces certificate" in text
    assert kernel.check(json.loads(out.read_text())).startswith("regions-polytope-pieces: 1 pieces")


def test_activation_budget_names_its_field():
    """Regression: the d >= 3 activation count raised SizeLimitError with one argument (a TypeError)."""
    with pytest.raises(SizeLimitError) as exc:
        count_regions(MaxoutNetwork.from_dict(_random_net(7)), CUBE, kind="activation", max_regions=1)
    assert exc.value.field == "max_regions"


def test_time_budget_ends_the_merges(monkeypatch):
    """A budget spent after the tree leaves the merges undone: the count is only bounded (1..2), never PROVED."""
    import types

    import verify.decide.polytope_pieces as PP

    def clock():                      # pieces_search's own clock: its start, then far beyond the budget
        clock.calls += 1
        return 0.0 if clock.calls == 1 else 100.0

    for expected, verdict in ((1, "inconclusive"), (3, "refuted")):
        clock.calls = 0
        monkeypatch.setattr(PP, "time", types.SimpleNamespace(monotonic=clock))
        r = prove_pieces_count(IDENT, CUBE, expected, time_budget=10)
        assert r.verdict.value == verdict
        if verdict == "inconclusive":
            assert "time_budget = 10 s spent in the merges" in r.certificate["summary"]
        else:
            assert r.certificate["merges"] == [] and _check(r).startswith("regions-polytope-pieces-miscount: 1..2")


def test_cli_bounds_that_do_not_meet_are_inconclusive_not_bad_input(tmp_path, capsys, monkeypatch):
    """Regression: a pieces count left between its bounds (no separation allowed here) raised
    SizeLimitError("kind"), and `verify regions` exited 2 as if the input were bad; it is INCONCLUSIVE."""
    import verify.decide.polytope_pieces as PP
    from verify.cli import main

    search = PP.pieces_search
    monkeypatch.setattr(PP, "pieces_search", lambda *a, **k: search(*a, **{**k, "max_pairs": 0}))
    with pytest.raises(SizeLimitError) as exc:
        count_regions(MaxoutNetwork.from_dict(HAT), HAT_BOX, kind="pieces")
    assert exc.value.field == "max_pairs" and "between 3 and 4" in exc.value.problem
    net = tmp_path / "hat.json"
    net.write_text(json.dumps(HAT))
    assert main(["regions", str(net), "--box=-1:2,0:1,0:1", "--kind", "pieces"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("T10 INCONCLUSIVE: no exact count: max_pairs: pieces in d >= 3: between 3 and 4") and not err
