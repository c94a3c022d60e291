"""Exact polyhedral cells in R^d (verify/kernel/_poly.py, verify/decide/polytope.py): T6/T8 emulation and T10
activation counts in d >= 3, re-checked by the kernel, with forged certificates rejected."""

import copy
import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from gmpy2 import mpq
from scipy.optimize import linprog

from verify.constructions.maxout_compiler import compile_maxout
from verify.decide.emulation import alter_weight, prove_emulation
from verify.decide.polytope import prove_activation_count
from verify.kernel import _poly as KP
from verify.kernel import check
from verify.kernel._read import Rejected
from verify.objects.maxout import MaxoutNetwork
from _networks import bench_relu_spec

BOX3 = [[0, 1]] * 3
# two ReLU units in d = 3 (rank-2 maxout form: max(w x + b, 0)) whose planes cross inside the cube
NET3 = MaxoutNetwork([([[[1, 1, 0], [0, 0, 0]], [[1, -1, 1], [0, 0, 0]]], [["-1/2", 0], ["-1/3", 0]])])


@pytest.fixture(scope="module")
def proved3():
    r = prove_emulation(NET3, BOX3, tie="average")
    assert r.verdict.value == "proved", r.certificate
    return json.loads(json.dumps(r.to_dict()))


def test_t6_d3_proved_and_rechecked(proved3):
    assert proved3["certificate"]["kind"] == "emulation-polytope"
    assert len(proved3["certificate"]["roots"]) == 27
    assert check(proved3).startswith("emulation-polytope: T = Phi on the closed box, 27 faces")


def _nodes(tree):
    stack = [tree]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        yield n
        stack.extend(n.get("children", []))


def _forged(doc, edit):
    bad = copy.deepcopy(doc)
    edit(bad["certificate"]["roots"])
    return bad


def _first(roots, pred):
    for t in roots:
        for n in _nodes(t):
            if pred(n):
                return n
    raise AssertionError("no such node")


def test_forged_emulation_certificates_are_rejected(proved3):
    def flip_multiplier(roots):
        n = _first(roots, lambda n: any(isinstance(s, dict) and s.get("y") for s in n.get("signs", [])))
        s = next(s for s in n["signs"] if isinstance(s, dict) and s.get("y"))
        s["y"][0][1] = "-" + s["y"][0][1]

    def drop_leaf(roots):
        n = _first(roots, lambda n: "children" in n)
        n["children"][1] = None

    def change_split(roots):
        n = _first(roots, lambda n: "split" in n)
        n["split"][0] = str(Fraction(n["split"][0]) + Fraction(1, 7))

    def drop_sign(roots):
        n = _first(roots, lambda n: len(n.get("signs", [])) > 1)
        n["signs"].pop()

    def leaf_for_split(roots):
        n = _first(roots, lambda n: "split" in n)
        leaf = _first(roots, lambda n: "point" in n)
        n.clear()
        n.update(copy.deepcopy(leaf))

    def move_point(roots):
        n = _first(roots, lambda n: "point" in n)
        n["point"][0] = "5"

    for edit in (flip_multiplier, drop_leaf, change_split, drop_sign, leaf_for_split, move_point):
        with pytest.raises(Rejected):
            check(_forged(proved3, edit))
    fewer = copy.deepcopy(proved3)
    fewer["certificate"]["roots"].pop()
    with pytest.raises(Rejected):
        check(fewer)


def test_kernel_cell_lemmas():
    # the open square (0,1)^2 in R^2: x > 0, 1 - x > 0, y > 0, 1 - y > 0
    G = [(mpq(0), mpq(1), mpq(0)), (mpq(1), mpq(-1), mpq(0)), (mpq(0), mpq(0), mpq(1)), (mpq(1), mpq(0), mpq(-1))]
    bounds = [(mpq(0), mpq(1), None)] * 2
    f = (mpq(3), mpq(-1), mpq(-1))                 # 3 - x - y > 0 on the square: 1 (1 - x) + 1 (1 - y) + 1
    c = KP.PolyCell([], G, (mpq(1, 2), mpq(1, 2)), bounds, [{"y": [[1, "1"], [3, "1"]], "l": []}])
    assert c.sign(f) == 1 and c.sign((mpq(6), mpq(-2), mpq(-2))) == 1     # the second is a cache hit
    c.done()
    for entry in ({"y": [[1, "1"]], "l": []}, {"y": [[1, "-1"], [3, "1"]], "l": []}, {"l": []}):
        with pytest.raises(Rejected):
            KP.PolyCell([], G, (mpq(1, 2), mpq(1, 2)), bounds, [entry]).sign(f)
    g = (mpq(-1, 2), mpq(1), mpq(0))                # x - 1/2 changes sign: "box" cannot prove it
    with pytest.raises(Rejected):
        KP.PolyCell([], G, (mpq(3, 4), mpq(1, 2)), bounds, ["box"]).sign(g)
    # emptiness: x > 0 and -x - 1 > 0 -> 1 * x + 1 * (-x - 1) = -1 < 0
    roots = [([], [(mpq(0), mpq(1))], [(mpq(-5), mpq(5), None)])]
    tree = {"split": ["1", "1"], "children": [{"point": ["1"], "signs": []},
                                                {"empty": {"y": [[0, "1"], [1, "1"]], "l": []}},
                                                {"empty": {"y": [[0, "1"]], "l": [[0, "-1"]]}}]}
    seen = []
    KP.walk([tree], roots, seen.append)
    assert len(seen) == 1
    bad = copy.deepcopy(tree)
    bad["children"][1]["empty"]["y"] = [[0, "1"]]
    with pytest.raises(Rejected):
        KP.walk([bad], roots, seen.append)


def test_t6_d3_tweaked_weight_refuted_with_witness():
    compiled = compile_maxout(NET3, BOX3)
    bad = alter_weight(compiled, 0, "b1", 0, delta=Fraction(1, 3))
    r = prove_emulation((NET3, bad), BOX3, tie="average", network=NET3)
    assert r.verdict.value == "refuted", r.certificate
    assert r.certificate["kind"] == "emulation-witness"
    assert check(json.loads(json.dumps(r.to_dict()))).startswith("emulation-witness")


def test_budgets_end_inconclusive_with_partial_coverage():
    r = prove_emulation(NET3, BOX3, tie="average", max_cells=5)
    assert r.verdict.value == "inconclusive"
    assert "max_cells = 5" in r.certificate["summary"]
    assert 0 <= r.evidence["volume_fraction_estimate"] <= 1
    r = prove_emulation(NET3, BOX3, tie="average", time_budget=Fraction(1, 10 ** 6))
    assert r.verdict.value == "inconclusive" and "time_budget" in r.certificate["summary"]


# -- T10: exact activation counts in d = 3 against an independent brute force ------------------------------------
def _relu_spec(rng, d, widths):
    layers, n_in = [], d
    for w in widths:
        W = [[[Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(n_in)], [0] * n_in] for _ in range(w)]
        b = [[Fraction(rng.randint(-2, 2), rng.randint(1, 3)), 0] for _ in range(w)]
        layers.append({"W": [[[str(c) for c in p] for p in u] for u in W], "b": [[str(c) for c in u] for u in b]})
        n_in = w
    return {"layers": layers}


def _brute_force(spec, d, lo=-1.0, hi=1.0):
    """Activation patterns with non-empty interior by DFS over unit signs, feasibility by a float Chebyshev LP
    (margin 1e-7) -- an independent yardstick written for this test (ReLU units: max(w h + b, 0))."""
    count = 0
    A0 = [np.eye(d)[k] for k in range(d)]
    base = [(-A0[k], -lo) for k in range(d)] + [(A0[k], hi) for k in range(d)]     # a x <= c

    def feasible(cons):
        A = np.array([a for a, _ in cons])
        c = np.array([v for _, v in cons])
        nrm = np.linalg.norm(A, axis=1)
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.c_[A, nrm], b_ub=c, bounds=[(None, None)] * d + [(None, 1)],
                      method="highs")
        return res.status == 0 and -res.fun > 1e-7

    units = [(l, u) for l, L in enumerate(spec["layers"]) for u in range(len(L["W"]))]

    def rec(i, cons, h):      # h: list of (coef vector, const) forms of the current layer's inputs
        nonlocal count
        if i == len(units):
            count += 1
            return
        l, u = units[i]
        if u == 0 and l > 0:
            h = cur[l - 1]
        L = spec["layers"][l]
        w = [float(Fraction(c)) for c in L["W"][u][0]]
        b = float(Fraction(L["b"][u][0]))
        a = sum(wj * hj[0] for wj, hj in zip(w, h))
        c = b + sum(wj * hj[1] for wj, hj in zip(w, h))
        if np.allclose(a, 0):
            state = [c > 0] if abs(c) > 1e-12 else [None]
        else:
            state = [True, False]
        for s in state:
            new = cons if s is None or np.allclose(a, 0) else cons + [(-a, c) if s else (a, -c)]
            if new is cons or feasible(new):
                cur.setdefault(l, [])
                cur[l] = cur.get(l, [])[:u] + [(a, c) if s else (np.zeros(d), 0.0)]
                rec(i + 1, new, h)

    cur = {}
    rec(0, base, [(A0[k], 0.0) for k in range(d)])
    return count


@pytest.mark.parametrize("seed,widths", [(1, [4]), (2, [3, 2])])
def test_t10_d3_activation_count_matches_brute_force(seed, widths):
    spec = _relu_spec(random.Random(seed), 3, widths)
    r = prove_activation_count(spec, [(Fraction(-1), Fraction(1))] * 3)
    assert r.verdict.value == "proved", r.certificate
    n = r.parameters["count"]
    assert n == _brute_force(spec, 3)
    assert check(json.loads(json.dumps(r.to_dict()))).startswith("regions-polytope")


def test_t10_d3_forged_counts_rejected():
    spec = _relu_spec(random.Random(1), 3, [4])
    r = json.loads(json.dumps(prove_activation_count(spec, [(Fraction(-1), Fraction(1))] * 3).to_dict()))
    wrong = copy.deepcopy(r)
    wrong["parameters"]["count"] += 1
    with pytest.raises(Rejected):
        check(wrong)                    # the statement no longer matches the parameters
    from verify.kernel import regions as KR

    wrong["statement"] = KR.statement("polytope", wrong["parameters"], wrong["conventions"])
    with pytest.raises(Rejected):
        check(wrong)                    # and the count is wrong
    r2 = prove_activation_count(spec, [(Fraction(-1), Fraction(1))] * 3, expected=r["parameters"]["count"] + 1)
    assert r2.verdict.value == "refuted"
    assert check(json.loads(json.dumps(r2.to_dict()))).startswith("regions-polytope-miscount")
    cut = copy.deepcopy(r)
    n = _first(cut["certificate"]["roots"], lambda n: "children" in n)
    n["children"][0] = None
    with pytest.raises(Rejected):
        check(cut)


def test_same_inputs_same_json_and_bad_budget_named():
    spec = _relu_spec(random.Random(1), 3, [3])
    bx = [(Fraction(-1), Fraction(1))] * 3
    assert prove_activation_count(spec, bx).to_json() == prove_activation_count(spec, bx).to_json()
    from verify.errors import InputError

    with pytest.raises(InputError, match="time_budget"):
        prove_emulation(NET3, BOX3, time_budget=0)
    with pytest.raises(InputError, match="expected"):
        prove_activation_count(spec, bx, expected=-1)


def test_speedups_change_no_tree(monkeypatch):
    """The search's shortcuts (going on in the positive child after a split, the float filter of the
    one-constraint bound and its per-box memo of outcomes, the vertex-value decision cache) give the same trees
    and entries as without them."""
    import verify.decide.polytope as P

    spec = _relu_spec(random.Random(8), 3, [4])
    box = [(Fraction(-1), Fraction(1))] * 3

    def run():
        r = prove_emulation(NET3, BOX3, tie="average", record_regions=False)
        assert r.verdict.value == "proved"
        return r.certificate, P.strip(P.activation_search(spec, box)["trees"])

    fast = run()
    monkeypatch.setattr(P, "RESUME", False)
    monkeypatch.setattr(P, "ONE_MEMO", False)
    monkeypatch.setattr(P, "_may_bound", lambda *a: True)
    monkeypatch.setattr(P.SearchCell, "decide", KP.PolyCell.decide)
    monkeypatch.setattr(P.SearchCell, "form", KP.PolyCell.form)
    assert run() == fast


def test_search_helpers_equal_the_kernel_ones():
    """The search's unrolled f(x), list-built norm / value keys and forms are the kernel's values (types too);
    a form off by one coefficient evaluates differently (the check can fail)."""
    import verify.decide.polytope as P

    rng = random.Random(5)
    for _ in range(3000):
        d = rng.randint(1, 6)
        f = tuple(mpq(rng.randint(-4, 4), rng.randint(1, 5)) if rng.random() < 0.8 else mpq(0) for _ in range(d + 1))
        x = tuple(mpq(rng.randint(-9, 9), rng.randint(1, 7)) for _ in range(d))
        v = P._at(f, x)
        assert v == KP._at(f, x) and type(v) is type(mpq(0))
        assert P._at(f[:-1], x) == sum((c * t for c, t in zip(f[1:-1], x)), f[0])      # shorter form: generic path
        g = f[:1] + (f[1] + 1,) + f[2:]
        assert P._at(g, x) != v or x[0] == 0
        if any(f[1:]):
            assert P._norm_key(f) == KP.norm_key(f)
        assert P._value_key(list(f)) == KP.value_key(list(f))
        assert P.SearchCell.form(None, list(f)) == KP.PolyCell.form(None, list(f))


def test_bytes_keys_are_equal_exactly_when_the_mpq_keys_are():
    """The emulation search's dict keys written as exact bytes (_value_bkey, sign's bytes norm key) are equal
    exactly when the kernel's value / norm keys are (so its caches hit and miss as the kernel's); a positive
    multiple of a form has the same key, and here every form off in one coefficient another."""
    import verify.decide.polytope as P
    from gmpy2 import to_binary

    rng = random.Random(7)
    forms = []
    for _ in range(600):
        f = [mpq(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(4)]
        forms += [f, [mpq(rng.randint(1, 5), rng.randint(1, 3)) * c for c in f]]
        g = list(f)
        g[rng.randrange(4)] += mpq(1, rng.randint(1, 4))
        forms.append(g)
    vk = [KP.value_key(f) for f in forms]
    bk = [P._value_bkey(f) for f in forms]
    nk = [KP.norm_key(f) if any(f[1:]) else None for f in forms]
    nb = [tuple(to_binary(c) for c in k) if k is not None else None for k in nk]
    pairs = [(rng.randrange(len(forms)), rng.randrange(len(forms))) for _ in range(20000)]
    pairs += [(i, i + 1) for i in range(0, len(forms) - 2, 3)] + [(i, i + 2) for i in range(0, len(forms) - 2, 3)]
    for i, j in pairs:
        assert (vk[i] == vk[j]) == (bk[i] == bk[j])
        assert (nk[i] == nk[j]) == (nb[i] == nb[j])
    assert len(set(bk)) == len(set(vk)) and len(set(nb)) == len(set(nk))
    assert any(vk[i] == vk[i + 1] for i in range(0, len(forms) - 2, 3))        # multiples do occur
    assert all(vk[i] != vk[i + 2] or type(vk[i]) is int for i in range(0, len(forms) - 2, 3))


_bench_spec = bench_relu_spec     # bench/polytope.py's relu_spec (tests/_networks.py)


# sha256 of the canonical JSON minus timing.  Re-recorded when region counts got the point pool (PointPool in
# verify/decide/polytope.py): the certificate format is unchanged, the trees differ by design (far children's
# points are pool points, splits found without an LP, own-constraint entries); counts 59 / 54 as before and
# as the float walker's, both accepted by the kernel.  With POOL = 0 the Results are those of the earlier pins
# (67b99f70..., 53bdea82...; test_pool_off_gives_the_earlier_trees).  Re-recorded again when the far points of
# splits came from the float descent (DESCENT: exact points with small dyadic denominators instead of the sign
# LP's segment points; the descent's float optimum proposes the certificates' active sets) and the segment
# points of the LP fallback were rounded (SMALL_POINTS): the same splits, counts 59 / 54, other points and
# multipliers (docs/regions.md, "Fifth round"); e02a80be... / bb474ca8... before.  Later speed-ups must keep these.
PINNED = {(100, 3, (8,)): "eb1bab30af7f7922d11483ef473e58adbd700fdcba031f8553d11d3aaeb4272b",
          (101, 3, (6, 4)): "06d8fb85d695860c4f795c4f73908b3844251090698527a82c707a6148b63e31"}


@pytest.mark.parametrize("key", sorted(PINNED))
def test_bench_counts_byte_identical_to_pinned(key):
    seed, d, widths = key
    r = prove_activation_count(_bench_spec(seed, d, list(widths)), [(Fraction(-1), Fraction(1))] * d)
    assert _digest(r) == PINNED[key]


def _digest(r):
    from _pins import plain_digest

    return plain_digest(r)


def test_pool_off_gives_the_earlier_trees_and_the_same_count(monkeypatch):
    """Without the point pool the memoised pattern evaluator gives the Result of the pre-pool pin (the same
    decisions as the kernel's eval_maxout); with it the count is the same and the kernel accepts both."""
    import verify.decide.polytope as P

    spec, box = _bench_spec(100, 3, [8]), [(Fraction(-1), Fraction(1))] * 3
    on = prove_activation_count(spec, box)
    monkeypatch.setattr(P, "POOL", 0)
    off = prove_activation_count(spec, box)
    assert _digest(off) == "67b99f702cebe948c75951b3efd64e17884d44f0cd6c9b2d53c8be8ec63e1591"
    assert on.parameters["count"] == off.parameters["count"] == 59
    for r in (on, off):
        assert check(json.loads(json.dumps(r.to_dict()))).startswith("regions-polytope: 59 activation regions")


def test_pool_certificates_forged_are_rejected():
    """The pool path's new pieces can fail: a far child's pool point moved to the other side of its split, and
    an own-constraint entry with a doubled multiplier, are both rejected by the kernel."""
    spec, box = _bench_spec(100, 3, [8]), [(Fraction(-1), Fraction(1))] * 3
    r = json.loads(json.dumps(prove_activation_count(spec, box).to_dict()))
    bad = copy.deepcopy(r)
    n = _first(bad["certificate"]["roots"],
               lambda n: "children" in n and n["children"][1] is not None and "point" in n["children"][1])
    n["children"][1]["point"] = _first([n["children"][0]], lambda m: "point" in m)["point"]
    with pytest.raises(Rejected):
        check(bad)
    bad = copy.deepcopy(r)
    leaf = _first(bad["certificate"]["roots"],
                  lambda m: any(isinstance(e, dict) and len(e.get("y", [])) == 1 and not e.get("l")
                                for e in m.get("signs", [])))
    e = next(e for e in leaf["signs"] if isinstance(e, dict) and len(e.get("y", [])) == 1 and not e.get("l"))
    e["y"][0][1] = str(2 * Fraction(e["y"][0][1]))
    with pytest.raises(Rejected):
        check(bad)


def test_chord_point_is_exact_and_can_fail(monkeypatch):
    """A chord from the cell's point (off by default, CHORDS = 0) finds an exact point with s f < 0 strictly
    inside when f vanishes on the chord, and nothing when s f > 0 on the whole cell (no float verdict)."""
    import verify.decide.polytope as P

    monkeypatch.setattr(P, "CHORDS", 5)
    box = [(mpq(-1), mpq(1))] * 3
    E, G, bounds = KP.interior_root(box)
    cell = P.SearchCell(E, G, (mpq(0),) * 3, bounds, {})
    f = (mpq(1, 2), mpq(1), mpq(0), mpq(0))
    q = P._chord_point(cell, f, 1)
    assert q is not None and P._at(f, q) < 0 and P._inside(E, G, q)
    assert P._chord_point(cell, (mpq(2), mpq(1), mpq(1), mpq(0)), 1) is None
    for b in (box, [(mpq(-1), mpq(2)), (mpq(0), mpq(1, 3))]):
        assert P._open_box_root(b) == KP.interior_root(b)


def test_rational_rounding_matches_fraction_limit_denominator():
    """The search's rounding of float coordinates (without Fractions) gives Fraction.limit_denominator's value,
    ties included; a forged 'equal' (an off-by-one denominator bound) is told apart."""
    from verify.decide.polytope import _DENS, _limit

    rng = random.Random(3)
    xs = [rng.uniform(-2, 2) for _ in range(100)] + [k / 7 for k in range(-20, 21)] + [0.5, -0.25, 1e-13, -3.0]
    xs += [(2 * k + 1) / 2 ** 7 for k in range(-8, 8)]        # midpoints between grid points of denominator 64
    for x in xs:
        for den in _DENS:
            assert _limit(x, den) == mpq(Fraction(x).limit_denominator(den)), (x, den)
    assert _limit(1 / 3, 2) != mpq(Fraction(1 / 3).limit_denominator(3))


def test_score_factor_constant_only_on_a_face_uses_its_value_there():
    """Regression: on a polyhedral cell with equations a score factor may be constant on the cell but not on
    R^d (here x1 on the face x1 = 1); the kernel's score product must use its value on the cell (1), not its
    value at the frame vertex 0 (0, off the face)."""
    from verify.kernel import _cells as KC

    one, zero = mpq(1), mpq(0)
    face = KP.PolyCell([(mpq(-1), one, zero)], [], (one, zero), [], [])      # {x1 = 1} in R^2, point (1, 0)
    q = [[zero, one, zero]]               # x1 at the vertices 0, e1, e2: constant (1) on the face only
    k = [[zero, zero, one]]               # x2
    assert face.is_constant(q[0]) and not face.is_constant(k[0])
    assert KC._dot(k, q, face) == [zero, zero, one]          # 1 * x2, not 0 * x2
    cell = KP.PolyCell([], [], (one, zero), [], [])           # no equation: x1 varies, so the product is refused
    with pytest.raises(Rejected):
        KC._dot(k, q, cell)
