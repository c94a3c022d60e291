"""Region counts in d >= 3 (verify/decide/polytope.py, activation_search): the float active-set descent that
proposes far-side points (_descent_point), its float optimum standing in for the sign LP (_descended), the
small-denominator far points and going on in the point's child after any split (RESUME_NEG).  Floats only
propose: every point is checked exactly, every entry by exact elimination, and the kernel re-checks all."""

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from gmpy2 import mpq

import verify.decide.polytope as P
from verify.kernel import _poly as KP
from verify.kernel import check
from verify.kernel._read import Rejected
from _networks import bench_relu_spec

BOX3 = [(mpq(-1), mpq(1))] * 3


_spec = bench_relu_spec           # bench/polytope.py's relu_spec (tests/_networks.py)


def _cell(G_extra=(), p=(mpq(0),) * 3):
    E, G, bounds = P._open_box_root(BOX3)
    return P.SearchCell(E, G + list(G_extra), p, bounds, {}, pool=object(), pidx=None)


def test_descent_point_is_exact_and_can_fail():
    """A far point is strictly inside the cell with s f < 0 (exact); none when s f > 0 on the closed cell, or
    when s f only reaches 0 at a corner (no float verdict either way)."""
    cell = _cell()
    for f, s in [((mpq(1, 2), mpq(1), mpq(0), mpq(0)), 1), ((mpq(-9, 10), mpq(1), mpq(1), mpq(1)), -1),
                 ((mpq(1, 3), mpq(-1), mpq(2), mpq(-1, 2)), 1)]:
        q = P._descent_point(cell, f, s)
        assert q is not None and s * P._at(f, q) < 0 and P._inside([], cell.G, q)
    assert P._descent_point(cell, (mpq(4), mpq(1), mpq(1), mpq(1)), 1) is None
    assert P._descent_point(cell, (mpq(3), mpq(1), mpq(1), mpq(1)), 1) is None      # min 0 at a corner
    # a cell cut by x1 + x2 < 1/2 (the row -x1 - x2 + 1/2 > 0): f = 1 - x1 - x2 stays > 0 on it, though the
    # box bound alone would not show it; the descent ends at a float minimum and records it for the sign LP
    P._local.opt = None
    cut = _cell([(mpq(1, 2), mpq(-1), mpq(-1), mpq(0))])
    f = (mpq(1), mpq(-1), mpq(-1), mpq(0))
    assert P._descent_point(cut, f, 1) is None
    assert P._local.opt is not None
    P._local.opt = None


def test_descended_answers_only_its_own_lp_and_forged_multipliers_give_no_entry():
    """The recorded optimum answers the very sign LP it solved (the same entry as HiGHS's duals give); another
    LP gets HiGHS; forged multipliers (a wrong working set) give no entry but a split, never a false one."""
    cut = _cell([(mpq(1, 2), mpq(-1), mpq(0), mpq(0)), (mpq(1, 2), mpq(0), mpq(-1), mpq(0))])
    f = (mpq(6, 5), mpq(-1), mpq(-1), mpq(0))        # = both cut rows + 1/5: two constraints, so an LP
    P._local.opt = None
    highs = P.sign_certificate(cut.E, cut.G, cut.bounds, f, 1, 3, cut.p)
    assert P._descent_point(cut, f, 1) is None and P._local.opt is not None
    ours = P.sign_certificate(cut.E, cut.G, cut.bounds, f, 1, 3, cut.p)
    assert ours == highs == {"y": [[6, "1"], [7, "1"]], "l": []}
    assert P._local.opt is None                          # used once
    # recorded for another objective: ignored (HiGHS answers)
    P._descent_point(cut, f, 1)
    Gl, G0, El, E0 = P._lp_arrays(cut.E, cut.G, 3)
    ok, fun, x, duals = P._lp(np.array([1.0, 0.0, 0.0]), -Gl, G0)
    assert ok and abs(fun + 1) < 1e-9 and P._local.opt is None
    # forged: the optimum's working set replaced by a box row
    P._descent_point(cut, f, 1)
    G, fl, s, W, lam, xo = P._local.opt
    P._local.opt = (G, fl, s, [0], np.array([1.0]), xo)
    with pytest.raises(P.Split):
        P.sign_certificate(cut.E, cut.G, cut.bounds, f, 1, 3, cut.p)


@pytest.mark.parametrize("seed,d,widths", [(100, 3, [8]), (7, 4, [4])])
def test_descent_counts_equal_the_lp_path_and_the_kernel_accepts(seed, d, widths, monkeypatch):
    """With the descent, small far points and RESUME_NEG the count equals the LP-only search's (the pre-pool
    search's too: POOL = 0), with no HiGHS solve for a split; the kernel accepts the certificate."""
    spec, box = _spec(seed, d, widths), [(Fraction(-1), Fraction(1))] * d
    runs = {}
    for name, flags in [("descent", dict(DESCENT=True, SMALL_POINTS=True, RESUME_NEG=True)),
                        ("lp", dict(DESCENT=False, SMALL_POINTS=False, RESUME_NEG=False))]:
        for k, v in flags.items():
            monkeypatch.setattr(P, k, v)
        r = P.prove_activation_count(spec, box)
        assert r.verdict.value == "proved"
        assert check(json.loads(json.dumps(r.to_dict()))).startswith("regions-polytope:")
        runs[name] = r.parameters["count"]
    assert runs["descent"] == runs["lp"]


def test_descent_far_point_forged_is_rejected(monkeypatch):
    """A far child's point found by the descent, moved onto its sibling's side, is rejected by the kernel."""
    monkeypatch.setattr(P, "DESCENT", True)
    monkeypatch.setattr(P, "SMALL_POINTS", True)
    monkeypatch.setattr(P, "POOL", 1)        # one pool point: nearly every far point is the descent's
    r = json.loads(json.dumps(P.prove_activation_count(_spec(100, 3, [8]), [(Fraction(-1), Fraction(1))] * 3)
                              .to_dict()))
    check(copy.deepcopy(r))
    nodes, stack = [], list(r["certificate"]["roots"])
    while stack:
        n = stack.pop()
        if n is not None:
            nodes.append(n)
            stack.extend(n.get("children", []))
    n = next(n for n in nodes if "children" in n and all(c is not None and "point" in c for c in n["children"][:2]))
    n["children"][0]["point"], n["children"][1]["point"] = n["children"][1]["point"], n["children"][0]["point"]
    with pytest.raises(Rejected):
        check(r)


def test_resume_negative_changes_no_tree(monkeypatch):
    """Going on in the negative child after a split with f(p) < 0 gives the tree of a restart."""
    spec, box = _spec(101, 3, [6, 4]), [(Fraction(-1), Fraction(1))] * 3
    monkeypatch.setattr(P, "DESCENT", True)
    on = P.strip(P.activation_search(spec, box)["trees"])
    monkeypatch.setattr(P, "RESUME_NEG", False)
    assert P.strip(P.activation_search(spec, box)["trees"]) == on
    assert KP is not None
