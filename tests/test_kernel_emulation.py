"""The emulation kernel (verify/kernel/emulation.py) and the shared cell machinery (verify/kernel/_cells.py).

Genuine certificates are accepted; the forgeries of issue 11 and generic tampering are rejected; the partition
check is exact and O(n log n); hostile certificates of ~1 MB are rejected within seconds.  The refuted kinds'
samples live in tests/test_kernel_emulation_refuted.py (their free parameter paths differ)."""

import copy
import functools
import json
import time
from fractions import Fraction as F

import pytest

from verify import kernel
from verify.kernel import Rejected, _cells as C, _read as R, emulation as K

# free paths (the changed Result is still true and proved by what it carries):
# * parameters.k_max: a relu-tournament Result for another k_max <= 8 is just as true (the statement follows it);
# * parameters.transformer.read.token: after the last attention layer every token of an R4 / R8 Transformer holds
#   the same values (each head broadcasts one value to every query), so reading another token is the same map.
# * emulation-polytope, a leaf's point: any exact point of its cell will do (Lemma 1 of docs/regions.md, "Polyhedral
#   cells in any dimension"); a changed coordinate that stays in the cell, its sign entries still valid, is the
#   same proof; likewise the index of a multiplier when another constraint of the cell has the same linear part
#   (x > 0 and x - 1/2 > 0 both bound x from below: either gives s f = y g + c with c >= 0, Lemma 3).
KERNEL_FREE_PATHS = [r"^parameters\.k_max$", r"^parameters\.transformer\.read\.token$",
                     r"^emulation-polytope:certificate\.roots\[\d+\](\.children\[\d\])*\.point\[\d+\]$",
                     r"^emulation-polytope:certificate\.roots\[\d+\](\.children\[\d\])*\.signs\[\d+\]\.[yl]"
                     r"\[\d+\]\[0\]$"]


def _d(r):
    return json.loads(r.to_json())


@functools.lru_cache(maxsize=None)
def _o2(S):
    from verify.checks.t6_maxout_emulation import check_maxout_emulation

    return _d(check_maxout_emulation("O2", S=S))


@functools.lru_cache(maxsize=None)
def _dc2d():
    from verify.checks.t9_cpwl_emulation import check_dc_emulation

    return _d(check_dc_emulation([[[1, 0], 0], [[0, 1], 0], [[-1, -1], 0]], [[[1, -1], 0], [[-1, 1], 0]],
                                 [[-1, 1], [-1, 1]]))


@functools.lru_cache(maxsize=None)
def _tournament(k):
    from verify.checks.t8_relu_emulation import check_relu_identities

    return _d(check_relu_identities(k))


@functools.lru_cache(maxsize=None)
def _polytope(which):
    """An emulation-polytope Result over the parameters of a 1-D T8 Result (the kind accepts d = 1..6; a tiny
    1-D network keeps the mutation test fast)."""
    from verify.decide.polytope import emulation_search, strip

    from verify.checks.t8_relu_emulation import check_relu_emulation

    base = _d(check_relu_emulation([[[1]]], [[0]], box=[[-1, 1]]) if which == "relu" else
              check_relu_emulation([[[1], [-1]]], [[0, "1/2"]], readout=([[1, 1]], [0]), box=[[-1, 1]], tie="first"))
    info = emulation_search(base["parameters"])
    assert info["complete"] and info["stop"] is None
    return {"claim": base["claim"], "verdict": "proved", "method": "exact",
            "statement": K.statement(base["parameters"], base["conventions"], "emulation-polytope"),
            "certificate": {"kind": "emulation-polytope", "roots": strip(info["trees"])},
            "parameters": base["parameters"], "conventions": base["conventions"]}


def kernel_samples():
    return [_o2(40), _dc2d(), _tournament(2), _tournament(3), _polytope("relu"), _polytope("two")]


def _ok(r):
    return kernel.check(copy.deepcopy(r), seconds=60)


def _rejected(r, match=None):
    with pytest.raises(Rejected, match=match):
        kernel.check(r, seconds=60)


def _restate(r, kind="emulation-regions"):
    r["statement"] = K.statement(r["parameters"], r["conventions"], kind)
    return r


# -- genuine ------------------------------------------------------------------------------------------------
def test_genuine_o2_regions_accepted_with_exact_summary():
    r = _o2(40)
    assert _ok(r) == "emulation-regions: T = Phi on the closed box, 17 cells (8 open), tie average+first, R4 sizes"
    assert r["certificate"] == {"kind": "emulation-regions", "cells": r["certificate"]["cells"]}
    assert len(r["certificate"]["cells"]) == 17
    digest = C.transformer_digest(r["parameters"]["transformer"])
    assert f"sha256:{digest} (n = 2 tokens, E = 7, D = 4 sublayers FAFA, heads 2/1 of size 1, FFN widths 16/12, " \
           f"non-zeros W1 32/24, W2 16/12, attention 8/4)" in r["statement"]
    assert "attention 8/4) and the maxout network (d = 1, rank 2, widths 2/1): T(x) = Phi(x) for every x in the " \
           "closed box [0, 1] under the hardmax tie rules average and first; its sizes are those of R4: n = k tokens, " \
           "E = 2 Nbar + k + 1, D = 2L sublayers (FFN, attention), N_l heads of size 1, FFN widths 2k N_l + 4 Nbar, " \
           "non-zeros W1 <= 2k N_l (N_(l-1) + 2) + 4 Nbar, W2 = 2k N_l + 4 Nbar, attention = 4 N_l [instance sha256:" \
           in r["statement"]


def test_genuine_2d_regions_accepted():
    r = _dc2d()
    assert _ok(r).startswith("emulation-regions: T = Phi on the closed box") and r["parameters"]["formula"] == "R8"
    assert r["statement"].startswith("the hardmax Transformer sha256:")
    assert "(n = 3 tokens, E = 9, D = 2 sublayers FA, heads 2 of size 1, FFN widths 12, non-zeros W1 " in r["statement"]
    assert ") and the maxout network (d = 2, rank 3, widths 2, affine read-out): T(x) = Phi(x) for every x in the " \
           "closed box [-1, 1] x [-1, 1] under the hardmax tie rules average and first; its sizes are those of R8: " \
           "n = k tokens, E = d + k + 4, one FFN of width 4k and one attention layer of 2 heads of size 1 [instance" \
           in r["statement"]
    assert C.read_maxout(r["parameters"]["network"], "n")["output_dim"] == 1


def test_tournament_counts_every_ordering_cone():
    assert _ok(_tournament(3)).startswith("relu-tournament: the tournament returns the max on each of the 9 ")
    assert _ok(_tournament(2)).startswith("relu-tournament: the tournament returns the max on each of the 3 ")


# -- issue 11 forgeries ---------------------------------------------------------------------------------------
def _forgery1():
    """f = relu(x - 1/2) - relu(-x - 1/2) on [-1, 1], compiled by R4, its cells replaced by one interval."""
    from verify.decide.emulation import prove_emulation
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.objects.maxout import MaxoutNetwork

    net = MaxoutNetwork.from_relu([[[1], [-1]]], [["-1/2", "-1/2"]], readout=([[1, -1]], [0]))
    r = _d(prove_emulation(compile_maxout(net, [[-1, 1]])))
    assert r["verdict"] == "proved" and _ok(r)
    return r


def test_forgery1_one_interval_with_undecided_network_decisions_is_rejected():
    r = _forgery1()
    r["certificate"]["cells"] = [[["-1"]], [["-1"], ["1"]], [["1"]]]
    _rejected(r, r"cell: the sign of .* is not constant on the cell \(-1\)\.\.\(1\)")


def test_forgery2_certificate_renamed_to_the_refuted_transformer_is_rejected():
    good, bad = _o2(None), _o2("3/2")          # S = 11/2 (proved) and S = 3/2 (refuted by verify maxout)
    assert good["verdict"] == "proved" and bad["verdict"] == "refuted"
    r = copy.deepcopy(good)
    r["parameters"]["transformer"] = copy.deepcopy(bad["parameters"]["transformer"])
    r["parameters"]["sizes"] = copy.deepcopy(bad["parameters"]["sizes"])
    _rejected(r, "statement")                   # the statement names the S = 11/2 Transformer's digest
    _restate(r)
    assert C.transformer_digest(bad["parameters"]["transformer"])[:16] in r["statement"]
    _rejected(r, r"certificate\.cells\[0\]: output 0 differs")   # the Transformer side is evaluated: T(0) = 2/3


def test_forgery3_witness_of_a_correct_transformer_is_rejected():
    good = _o2(None)
    w = {"kind": "emulation-witness", "x": ["0"], "tie": "average", "network": ["7/6"], "transformer": ["2/3"]}
    r = dict(copy.deepcopy(good), verdict="refuted", certificate=w)
    _restate(r, "emulation-witness")
    _rejected(r, r"certificate\.transformer: the Transformer's value at x is \['7/6'\]")
    w["transformer"] = ["7/6"]
    _rejected(r, "T\\(x\\) = Phi\\(x\\) at the witness")
    # the old format's embedded token matrix / read rows are not accepted any more
    r["certificate"] = dict(w, embedded_X=[["0"]])
    _rejected(r, "unknown key")
    # editing the embedding's one row names another Transformer: its digest changes, so the old statement fails
    r["certificate"] = dict(w, transformer=["2/3"])
    r["parameters"]["transformer"]["embed"]["one"][-1] = ["1", "2"]
    _rejected(r, "statement")
    # ... and with a freshly derived statement it is a (true) claim about a different Transformer, not about the
    # compiled one: the kernel evaluates the edited weights itself, so the recorded value must be theirs
    _restate(r, "emulation-witness")
    assert C.transformer_digest(good["parameters"]["transformer"])[:16] not in r["statement"]
    _rejected(r, "certificate.transformer")


def test_size_claims_are_recomputed_from_the_weights():
    r = copy.deepcopy(_o2(40))
    r["parameters"]["sizes"]["W1_nonzeros"] = [31, 24]
    _restate_raw = R.bound_statement("x", r["parameters"], r["conventions"])
    r["statement"] = _restate_raw
    _rejected(r, r"parameters\.sizes: .* differ from the sizes of the recorded weights")


def test_formula_claim_is_checked():
    r = copy.deepcopy(_dc2d())
    r["parameters"]["formula"] = "R4"
    _restate(r)
    _rejected(r, "differ from the R4 formula")


# -- tampering --------------------------------------------------------------------------------------------------
def test_tampering_is_rejected():
    base = _o2(40)
    r = copy.deepcopy(base)
    r["verdict"] = "refuted"
    _rejected(r, "supports the verdict 'proved'")
    r = copy.deepcopy(base)
    r["parameters"]["network"]["layers"][0]["W"][0][0][0] = "3"
    _rejected(r, "statement")
    _restate(r)
    _rejected(r, "not constant|differs")
    r = copy.deepcopy(base)
    r["parameters"]["box"] = [["0", "2"]]
    _restate(r)
    _rejected(r, "cells: the cover ends at 1")
    for mutate, match in ((lambda c: c["cells"].pop(3), "cells: expected"),
                          (lambda c: c["cells"].append(c["cells"][0]), "cells: expected"),
                          (lambda c: c.update(extra=1), "unknown key"),
                          (lambda c: c.pop("cells"), "missing key"),
                          (lambda c: c.update(cells=[]), "expected 1..")):
        r = copy.deepcopy(base)
        mutate(r["certificate"])
        _rejected(r, match)
    r = copy.deepcopy(base)
    r["certificate"] = copy.deepcopy(_o2(2)["certificate"])
    assert _ok(r)        # S = 2's 19 cells refine S = 40's decisions: a finer partition is still a proof
    r["certificate"] = copy.deepcopy(_dc2d()["certificate"])      # transplanted from a 2-D Result
    _rejected(r, "expected 1..1")
    r = copy.deepcopy(base)
    del r["certificate"]
    _rejected(r, "certificate: missing")
    r = copy.deepcopy(base)
    r["claim"] = "T10"
    _rejected(r, "proves claims T6, T8, T9")
    r = copy.deepcopy(base)
    r["parameters"]["unknown"] = 1
    _rejected(r, "unknown key")
    r = copy.deepcopy(base)
    r["parameters"]["tie"] = "random"
    _rejected(r, "parameters.tie")


def test_tournament_tampering():
    r = copy.deepcopy(_tournament(3))
    r["parameters"]["k_max"] = 9
    _rejected(r, r"k_max: expected an integer in \[2, 8\]")
    r = copy.deepcopy(_tournament(3))
    r["certificate"]["cone"] = []
    _rejected(r, "unknown key")
    r = copy.deepcopy(_tournament(3))
    r["statement"] = _tournament(2)["statement"]
    _rejected(r, "statement")


def test_tournament_on_cones():
    assert K._tournament(3, (2, 0, 1)) == (1, 2)          # a2 < a0 < a1: the max is a1, after 2 levels
    assert K._tournament(1, (0,)) == (0, 0)
    assert K._tournament(4, (3, 2, 1, 0)) == (0, 2)
    assert K._tournament(5, (0, 1, 2, 3, 4)) == (4, 3)
    assert K._tournament(2, (1, 0)) == (0, 1) and K._tournament(2, (0, 1)) == (1, 1)


# -- the shared cell machinery ----------------------------------------------------------------------------------
def P(*vs):
    return C.Cell([tuple(F(c) for c in v) for v in vs])


def test_cell_sign_on_the_whole_cell():
    c = P((0,), (1,))
    assert c.sign((F(1), F(-1))) == 1            # 1 - x > 0 on the open interval (0, 1)
    assert c.sign((F(0), F(-1))) == -1
    assert c.sign((F(0), F(0))) == 0
    with pytest.raises(Rejected, match="not constant"):
        c.sign((F(-1, 2), F(1)))
    tri = P((0, 0), (1, 0), (0, 1))
    assert tri.sign((F(0), F(1), F(1))) == 1 and tri.sign((F(1), F(-1), F(-1))) == 1
    with pytest.raises(Rejected):
        tri.sign((F(-1, 2), F(1), F(0)))
    assert P((3, 4)).sign((F(-7), F(1), F(1))) == 0 and P((3, 4)).point() == (3, 4)
    assert tri.point() == (F(1, 3), F(1, 3)) and c.dim == 1 and tri.dim == 2 and P((1,)).dim == 0


@pytest.mark.parametrize("vs, match", [
    ([(0, 0), (0, 1), (1, 0)], "not strictly convex counter-clockwise"),         # clockwise
    ([(0, 0), (1, 0), (2, 0), (1, 1)], "not strictly convex"),                    # collinear vertices
    ([(0, 0), (1, 0), (1, 1), (2, 2), (0, 1)], "not strictly convex"),            # a reflex vertex
    ([(1, 0), (-0.809, 0.588), (0.309, -0.951), (0.309, 0.951), (-0.809, -0.588)], "winds more than once"),
    ([(0, 0), (-4, 2), (-2, 0), (2, 0), (-4, 1)], "winds more than once"),      # every turn left, an edge through v0
    ([(1,), (1,)], "two distinct end points"),
    ([(0,), (1,), (2,)], "1 or 2 vertices"),
    ([(0, 0, 0), (1, 0, 0)], "1 or all have 2"),
])
def test_bad_cells_rejected(vs, match):
    with pytest.raises(Rejected, match=match):
        C.Cell([tuple(F(c) for c in v) for v in vs])


def test_long_cells_are_shown_with_six_vertices():
    hept = C.Cell([(F(i), F(i * i)) for i in range(7)])
    with pytest.raises(Rejected, match=r"on the cell \(0, 0\)\.\.\(1, 1\)\.\.\(2, 4\)\.\.\(3, 9\)\.\.\(4, 16\)\.\."
                                       r"\(5, 25\)\.\.$"):
        hept.sign((F(-3), F(1), F(0)))
    hexa = C.Cell([(F(i), F(i * i)) for i in range(6)])
    with pytest.raises(Rejected, match=r"\(5, 25\)$"):
        hexa.sign((F(-3), F(1), F(0)))


def test_cell_form_matches_values():
    tri = P((0, 0), (2, 0), (0, 2))
    assert tri.form([F(1), F(3), F(5)]) == (1, 1, 2)
    seg = P((0, 0), (2, 2))
    f = seg.form([F(1), F(3)])
    assert [C.at(f, v) for v in seg.vertices] == [1, 3] and f == (1, F(1, 2), F(1, 2))
    assert P((0,), (2,)).form([F(1), F(5)]) == (1, 2) and P((1, 1)).form([F(4)]) == (4, 0, 0)
    sq = P((0, 0), (1, 0), (1, 1), (0, 1))
    with pytest.raises(Rejected, match="not affine"):
        sq.form([F(0), F(0), F(1), F(0)])


def _box1(cells, lo=0, hi=1):
    C.check_partition([P(*c) for c in cells], [(F(lo), F(hi))])


def test_partition_1d():
    _box1([[(0,)], [(0,), (F(1, 2),)], [(F(1, 2),)], [(F(1, 2),), (1,)], [(1,)]])
    _box1([[(1,)], [(1,), (0,)], [(0,)]])                               # any order, interval ends either way
    for bad, match in (([[(0,)], [(0,), (1,)]], "ends at 1 \\(open\\)"),
                       ([[(0,), (1,)], [(1,)]], "expected the point 0"),
                       ([[(0,)], [(0,), (1,)], [(1,)], [(1,)]], "got point at 1"),
                       ([[(0,)], [(0,), (F(1, 2),)], [(F(1, 3),), (1,)], [(1,)]], "expected the point 1/2"),
                       ([[(0,)], [(0,), (F(1, 2),)], [(F(1, 2),), (1,)], [(1,)]], "expected the point 1/2"),
                       ([[(0,)], [(0,), (2,)], [(2,)]], "not at the closed end 1")):
        with pytest.raises(Rejected, match=match):
            _box1(bad)


SQ = [(F(0), F(1)), (F(0), F(1))]


def _square_diag():
    return [P((0, 0), (1, 0), (1, 1)), P((0, 0), (1, 1), (0, 1)), P((0, 0), (1, 1)), P((0, 0), (1, 0)),
            P((1, 0), (1, 1)), P((1, 1), (0, 1)), P((0, 1), (0, 0)), P((0, 0)), P((1, 0)), P((1, 1)), P((0, 1))]


def _t_junction():
    h = F(1, 2)
    return [P((0, 0), (h, 0), (h, 1), (0, 1)), P((h, 0), (1, 0), (1, h), (h, h)), P((h, h), (1, h), (1, 1), (h, 1)),
            P((h, 0), (h, 1)), P((h, h), (1, h)), P((0, 0), (h, 0)), P((h, 0), (1, 0)), P((1, 0), (1, h)),
            P((1, h), (1, 1)), P((1, 1), (h, 1)), P((h, 1), (0, 1)), P((0, 1), (0, 0)),
            P((0, 0)), P((h, 0)), P((1, 0)), P((1, h)), P((1, 1)), P((h, 1)), P((0, 1))]


@pytest.mark.parametrize("cells", [_square_diag, _t_junction])
def test_partition_2d_genuine_and_every_drop_or_duplicate_rejected(cells):
    cs = cells()
    C.check_partition(cs, SQ)
    for i in range(len(cs)):
        with pytest.raises(Rejected):
            C.check_partition(cs[:i] + cs[i + 1:], SQ)
        with pytest.raises(Rejected):
            C.check_partition(cs + [cs[i]], SQ)


def test_partition_2d_t_junction_point_and_crossing_segments():
    h = F(1, 2)
    cs = _t_junction()
    with pytest.raises(Rejected, match=r"covered 2 times"):     # the T point is inside the vertical segment
        C.check_partition(cs + [P((h, h))], SQ)
    split = [c for c in cs if c.vertices != [(h, 0), (h, 1)]] + [P((h, 0), (h, h)), P((h, h), (h, 1)), P((h, h))]
    C.check_partition(split, SQ)
    quads = [P((0, 0), (h, 0), (h, h), (0, h)), P((h, 0), (1, 0), (1, h), (h, h)), P((h, h), (1, h), (1, 1), (h, 1)),
             P((0, h), (h, h), (h, 1), (0, 1))]
    rim = [P((0, 0), (h, 0)), P((h, 0), (1, 0)), P((1, 0), (1, h)), P((1, h), (1, 1)), P((1, 1), (h, 1)),
           P((h, 1), (0, 1)), P((0, 1), (0, h)), P((0, h), (0, 0))] + \
          [P(v) for v in ((0, 0), (h, 0), (1, 0), (1, h), (1, 1), (h, 1), (0, 1), (0, h))]
    cross = [P((0, h), (1, h)), P((h, 0), (h, 1))]
    with pytest.raises(Rejected, match="covered 2 times"):     # two open segments crossing at the centre
        C.check_partition(quads + rim + cross, SQ)
    C.check_partition(quads + rim + [P((0, h), (1, h)), P((h, 0), (h, h)), P((h, h), (h, 1))], SQ)
    with pytest.raises(Rejected, match="not on the skeleton"):
        C.check_partition(_square_diag() + [P((F(1, 4), F(3, 4)))], SQ)
    with pytest.raises(Rejected, match="not inside the box"):
        C.check_partition(_square_diag() + [P((2, 2))], SQ)
    with pytest.raises(Rejected, match="total area"):
        C.check_partition(_square_diag()[1:], SQ)
    over = [P((0, 0), (1, 0), (1, 1), (0, 1)), P((0, 0), (1, 0), (1, 1)), P((0, 0), (1, 1), (0, 1))]
    with pytest.raises(Rejected):
        C.check_partition(over + _square_diag()[2:], [(F(0), F(1)), (F(0), F(2))])


def test_partition_2d_overlap_with_equal_area_rejected():
    # two overlapping squares whose area sum equals the box area, leaving a gap
    box = [(F(0), F(2)), (F(0), F(1))]
    a = P((0, 0), (1, 0), (1, 1), (0, 1))
    b = P((F(1, 2), 0), (F(3, 2), 0), (F(3, 2), 1), (F(1, 2), 1))
    with pytest.raises(Rejected, match="overlap or leave a gap"):
        C.check_partition([a, b], box)


def _strips(n):
    """n vertical strips of [0, 1]^2 with all their edges and vertices (a genuine closed partition)."""
    xs = [F(i, n) for i in range(n + 1)]
    cells = [P((xs[i], 0), (xs[i + 1], 0), (xs[i + 1], 1), (xs[i], 1)) for i in range(n)]
    cells += [P((x, 0), (x, 1)) for x in xs]
    cells += [P((xs[i], y), (xs[i + 1], y)) for i in range(n) for y in (0, 1)]
    cells += [P((x, y)) for x in xs for y in (0, 1)]
    return cells


@pytest.mark.parametrize("n, limit", [(5000, 10)])      # 20,000: about 4x as long (measured), kept out of CI
@pytest.mark.slow
def test_partition_is_n_log_n_on_many_strips(n, limit):
    """issue 11: 5,000 strips took 49 s, 20,000 more than 120 s (quadratic); now a sort and a sweep."""
    cells = _strips(n)
    t = time.perf_counter()
    C.check_partition(cells, SQ)
    assert time.perf_counter() - t < limit
    with pytest.raises(Rejected):
        C.check_partition(cells[:-1], SQ)


# -- readers ----------------------------------------------------------------------------------------------------
NET = {"layers": [{"W": [[["1"], ["-1"]]], "b": [["0", "0"]]}]}


def test_read_maxout():
    net = C.read_maxout(NET, "n")
    assert (net["input_dim"], net["widths"], net["rank"], net["readout"]) == (1, [1], 2, None)
    assert C.eval_maxout(net, P((-1,), (0,))) == ([(0, -1)], (((1,),),))
    assert C.eval_maxout(net, P((0,))) == ([(0, 1)], (((0, 1),),))
    assert C.eval_maxout_at(net, [F(-3)]) == [3]
    ro = C.read_maxout(dict(NET, readout={"W": [["2"]], "b": ["1"]}), "n")
    assert C.eval_maxout_at(ro, [F(-3)]) == [7] and C.read_maxout(dict(NET, readout=None), "n")["readout"] is None
    for bad, match in ((dict(NET, extra=1), "unknown key"),
                       ({"layers": [{"W": [[["1"], ["-1", "2"]]], "b": [["0", "0"]]}]}, "expected 1..1"),
                       ({"layers": [{"W": [[["1"], ["-1"]], [["1"]]], "b": [["0", "0"], ["0"]]}]}, "uniform"),
                       ({"layers": [{"W": [[["1"], ["-1"]]], "b": [["0"]]}]}, "expected 2..2"),
                       ({"layers": [{"W": [[["1"], ["-1"]]], "b": [["0", "0"]]},
                                    {"W": [[["1", "1"], ["0", "0"]]], "b": [["0", "0"]]}]}, "expected 1..1"),
                       (dict(NET, readout={"W": [["1", "2"]], "b": ["0"]}), "expected 1..1"),
                       ({"layers": []}, "expected 1.."), ({"layers": [{"W": [[["1e3"]]], "b": [["0"]]}]}, "exact")):
        with pytest.raises(Rejected, match=match):
            C.read_maxout(bad, "n")
    with pytest.raises(Rejected, match="input dimension 1, the cell is in R\\^2"):
        C.eval_maxout(net, P((0, 0)))


def _o1():
    """docs/paper1.md O1: tokens (z, one, out), one head W_Q = one, W_K = W_V = z, W_O = out; x = (a, b) in the z row."""
    z = lambda v: [v, v, v]
    return {"tokens": 2, "coordinates": ["z", "one", "out"],
            "embed": {"one": [["0", "0"], ["1", "1"], ["0", "0"]],
                      "x": [[["1", "0"], ["0", "0"], ["0", "0"]], [["0", "1"], ["0", "0"], ["0", "0"]]]},
            "sublayers": [{"attention": [{"W_Q": [["0", "1", "0"]], "W_K": [["1", "0", "0"]],
                                          "W_V": [["1", "0", "0"]], "W_O": [["0"], ["0"], ["1"]]}]}],
            "read": {"token": 1, "W": [["0", "0", "1"]], "b": ["0"]}}


def test_o1_transformer_max_and_tie_rules():
    T = C.read_transformer(_o1(), "T")
    assert C.eval_transformer_at(T, [F(1), F(5, 2)], "average") == [F(5, 2)]
    assert C.eval_transformer_at(T, [F(3), F(3)], "first") == [3]
    maps, dec = C.eval_transformer(T, P((0, 0), (1, 0), (1, 1)), "first")   # a < b... no: on this cell b <= a
    assert maps == [(0, 1, 0)] and dec == (((0,), (0,)),)
    # the caveat of R1: value != score makes the rules differ at a tie
    t = _o1()
    t["sublayers"][0]["attention"][0]["W_V"] = [["0", "1", "0"]]          # value = one (1), score = z
    t["embed"]["one"][0] = ["0", "2"]                                     # ... and z_2 = b + 2
    T2 = C.read_transformer(t, "T")
    assert C.eval_transformer_at(T2, [F(2), F(0)], "average") == [1]
    sizes = C.transformer_sizes(T)
    assert sizes == {"tokens": 2, "embedding": 3, "sublayers": 1, "layout": "A", "heads": [1], "head_sizes": [[1]],
                     "ffn_widths": [], "W1_nonzeros": [], "W2_nonzeros": [], "bias_nonzeros": [],
                     "attention_nonzeros": [4], "embed_nonzeros": 4, "read_nonzeros": 1}


def test_score_product_of_two_varying_values_rejected():
    t = _o1()
    t["sublayers"][0]["attention"][0]["W_Q"] = [["1", "0", "0"]]          # query = z: scores are quadratic
    T = C.read_transformer(t, "T")
    with pytest.raises(Rejected, match="score product of two values that vary"):
        C.eval_transformer(T, P((0, 0), (1, 0), (0, 1)), "average")
    assert C.eval_transformer_at(T, [F(1), F(2)], "average") == [2]      # at a point it is fine


def test_ffn_relu_decided_on_the_cell():
    t = {"tokens": 1, "coordinates": ["x", "y"], "embed": {"one": [["0"], ["0"]], "x": [[["1"], ["0"]]]},
         "sublayers": [{"ffn": {"W1": [["1", "0"]], "b1": ["-1/2"], "W2": [["0"], ["1"]], "b2": ["0", "0"]}}],
         "read": {"token": 0, "W": [["0", "1"]], "b": ["0"]}}
    T = C.read_transformer(t, "T")
    assert C.eval_transformer(T, P((F(1, 2),), (1,)), "first") == ([(F(-1, 2), 1)], ((True,),))
    assert C.eval_transformer(T, P((0,), (F(1, 2),)), "first") == ([(0, 0)], ((False,),))
    with pytest.raises(Rejected, match="not constant"):
        C.eval_transformer(T, P((0,), (1,)), "first")
    with pytest.raises(Rejected, match="tie"):
        C.eval_transformer(T, P((0,),), "both")


@pytest.mark.parametrize("edit, match", [
    (lambda t: t.update(extra=1), "unknown key"),
    (lambda t: t["coordinates"].append("w"), r"embed\.one: expected 4..4"),
    (lambda t: t.update(coordinates=["z", "z", "out"]), "repeated names"),
    (lambda t: t["sublayers"].append({}), "exactly one of ffn, attention"),
    (lambda t: t["sublayers"].append({"ffn": {}, "attention": []}), "exactly one of ffn, attention"),
    (lambda t: t["sublayers"][0]["attention"][0].pop("W_O"), "missing key"),
    (lambda t: t["sublayers"][0]["attention"][0].update(W_K=[["1", "0"]]), "expected 3..3"),
    (lambda t: t["read"].update(token=2), r"read\.token: expected an integer in \[0, 1\]"),
    (lambda t: t["read"].update(b=["0", "1"]), r"read\.b: expected 1..1"),
    (lambda t: t.update(tokens=0), "tokens"),
    (lambda t: t["embed"].update(x=[]), "expected 1.."),
])
def test_read_transformer_strict(edit, match):
    t = _o1()
    edit(t)
    with pytest.raises(Rejected, match=match):
        C.read_transformer(t, "T")


def test_transformer_digest_is_the_canonical_sha256():
    a = _o1()
    b = json.loads(json.dumps(a, indent=3))
    assert C.transformer_digest(a) == C.transformer_digest(b) == R.digest(a) and len(C.transformer_digest(a)) == 64


def test_formula_sizes():
    net = C.read_maxout(_o2(40)["parameters"]["network"], "n")
    assert K.formula_sizes(net, "R4") == {
        "tokens": 2, "embedding": 7, "sublayers": 4, "layout": "FAFA", "heads": [2, 1], "head_sizes": [[1, 1], [1]],
        "ffn_widths": [16, 12], "W1_nonzeros_at_most": [32, 24], "W2_nonzeros": [16, 12],
        "attention_nonzeros": [8, 4]}
    with pytest.raises(Rejected, match="R8 formula needs"):
        K.formula_sizes(net, "R8")
    one = {"layers": [{"W": [[["1"], ["-1"]], [["2"], ["0"]]], "b": [["0", "0"], ["0", "1"]]}]}
    for readout in (None, {"W": [["1", "1"]], "b": ["0"]}, {"W": [["1", "-1"]], "b": ["1"]}):
        with pytest.raises(Rejected, match="R8 formula needs"):
            K.formula_sizes(C.read_maxout(dict(one, readout=readout), "n"), "R8")
    dc = C.read_maxout(dict(one, readout={"W": [["1", "-1"]], "b": ["0"]}), "n")
    assert K.formula_sizes(dc, "R8") == {"tokens": 2, "embedding": 7, "sublayers": 2, "layout": "FA", "heads": [2],
                                         "head_sizes": [[1, 1]], "ffn_widths": [8]}
    sizes = dict(_o2(40)["parameters"]["sizes"])
    assert K._formula_holds(sizes, K.formula_sizes(net, "R4")) == []
    assert K._formula_holds(dict(sizes, W1_nonzeros=[33, 24]), K.formula_sizes(net, "R4")) == ["W1_nonzeros"]
    assert K._formula_holds(dict(sizes, W1_nonzeros=[32]), K.formula_sizes(net, "R4")) == ["W1_nonzeros"]
    assert K._formula_holds(dict(sizes, heads=[1, 1]), K.formula_sizes(net, "R4")) == ["heads"]


# -- hostile inputs (each ~1 MB, each decided within 10 s) ------------------------------------------------------
def _timed_reject(r, match=None, limit=10.0):
    kernel.kinds()                      # import every kernel module first (not part of the timing)
    t = time.perf_counter()
    with pytest.raises(Rejected, match=match):
        kernel.check(r, seconds=60)
    assert time.perf_counter() - t < limit


def test_work_bound_is_exact(monkeypatch):
    r = _o2(40)
    net = C.read_maxout(r["parameters"]["network"], "n")
    T = C.read_transformer(r["parameters"]["transformer"], "T")
    work = sum(len(c) for c in r["certificate"]["cells"]) * K._cost(net, T) * 2
    assert K._cost(net, T) == 2 * 7 * 4 + 2 * 2 * 2 + 1 * 2 * 3 + sum(
        2 * sum(map(len, s["sW1"])) + 2 * sum(map(len, s["sW2"])) + 2 * len(s["b1"]) for k, s in T["sublayers"]
        if k == "ffn") + sum(2 * sum(sum(map(len, h[m])) for m in ("sW_Q", "sW_K", "sW_V", "sW_O")) + 4
                             for k, s in T["sublayers"] if k == "attention" for h in s)
    monkeypatch.setattr(K, "MAX_WORK", work)
    assert _ok(r)
    monkeypatch.setattr(K, "MAX_WORK", work - 1)
    _rejected(copy.deepcopy(r), rf"exceed the work bound \({work} > {work - 1}\)")
    w = copy.deepcopy(_o2("3/2"))
    monkeypatch.setattr(K, "MAX_WORK", K._cost(net, T))
    assert _ok(w)
    monkeypatch.setattr(K, "MAX_WORK", K._cost(net, T) - 1)
    _rejected(w, "exceed the work bound")


def test_hostile_many_cells_hit_the_work_bound():
    r = copy.deepcopy(_o2(40))
    n = 40000
    xs = [f"{i}/{n}" for i in range(n + 1)]
    r["certificate"]["cells"] = [[[x]] for x in xs] + [[[a], [b]] for a, b in zip(xs, xs[1:])]
    assert len(json.dumps(r["certificate"])) > 1_000_000
    _timed_reject(r, "exceed the work bound")


def test_hostile_2d_strips_partition_is_fast_then_rejected_by_the_maps():
    r = copy.deepcopy(_dc2d())
    n = 6000
    xs = [F(-1) + F(2 * i, n) for i in range(n + 1)]
    cells = [[[str(xs[i]), "-1"], [str(xs[i + 1]), "-1"], [str(xs[i + 1]), "1"], [str(xs[i]), "1"]] for i in range(n)]
    cells += [[[str(x), "-1"], [str(x), "1"]] for x in xs]
    r["certificate"]["cells"] = cells
    assert len(json.dumps(r["certificate"])) > 500_000
    _timed_reject(r)


def test_hostile_huge_numbers_deep_nesting_and_long_lists():
    r = copy.deepcopy(_o2(40))
    r["certificate"]["cells"][0] = [["1" * 5001]]
    _timed_reject(r, "not an exact number")
    r["certificate"]["cells"][0] = [["1" * 4999 + "/" + "3" * 4999]]
    _timed_reject(r)
    deep = [[["0"]]]
    for _ in range(100_000):
        deep = [deep]
    r["certificate"]["cells"] = deep
    _timed_reject(r)
    r["certificate"]["cells"] = [[["0"]]] * 300_000
    _timed_reject(r, "expected 1..200000")
    r = copy.deepcopy(_o2(40))
    r["parameters"]["transformer"]["sublayers"] = r["parameters"]["transformer"]["sublayers"] * 300
    _timed_reject(r, "expected 0..256")
    r = copy.deepcopy(_o2(40))
    r["parameters"]["transformer"]["sublayers"][0]["ffn"]["W1"] *= 600
    _timed_reject(r)
    t = copy.deepcopy(_tournament(3))
    t["parameters"]["k_max"] = "9" * 5000
    _timed_reject(t, "k_max")


def _tie_caveat(tie):
    """R1's caveat: scores tie (both keys x), values differ (0 and 2x): average gives x, first gives 0."""
    T = {"tokens": 2, "coordinates": ["z", "v", "one", "out"],
         "embed": {"one": [["0", "0"], ["0", "0"], ["1", "1"], ["0", "0"]],
                   "x": [[["1", "1"], ["0", "2"], ["0", "0"], ["0", "0"]]]},
         "sublayers": [{"attention": [{"W_Q": [["0", "0", "1", "0"]], "W_K": [["1", "0", "0", "0"]],
                                       "W_V": [["0", "1", "0", "0"]], "W_O": [["0"], ["0"], ["0"], ["1"]]}]}],
         "read": {"token": 0, "W": [["0", "0", "0", "1"]], "b": ["0"]}}
    params = {"network": {"layers": [{"W": [[["1"], ["1"]]], "b": [["0", "0"]]}]}, "transformer": T,
              "box": [["0", "1"]], "tie": tie, "sizes": C.transformer_sizes(C.read_transformer(T, "T"))}
    r = {"claim": "T6", "verdict": "proved", "method": "exact", "parameters": params, "conventions": {},
         "certificate": {"kind": "emulation-regions", "cells": [[["0"]], [["0"], ["1"]], [["1"]]]}}
    return _restate(r)


def test_both_tie_rules_are_checked_where_hardmax_ties():
    assert _ok(_tie_caveat("average")) == "emulation-regions: T = Phi on the closed box, 3 cells (1 open), tie average"
    _rejected(_tie_caveat("first"), r"output 0 differs on Cell\(\(0\)\.\.\(1\)\) \(tie first\)")
    _rejected(_tie_caveat("both"), r"\(tie first\)")


# -- the readers' limits, each at its boundary --------------------------------------------------------------------
def _parabola(n):
    return [(F(i), F(i * i)) for i in range(n)]


def test_cell_vertex_limit():
    assert C.MAX_CELL_VERTICES == 256 and len(C.Cell(_parabola(256)).vertices) == 256
    with pytest.raises(Rejected, match="expected 1..256 vertices, got 257"):
        C.Cell(_parabola(257))
    assert C.read_cell([[str(i), str(i * i)] for i in range(256)], "c", 2).dim == 2
    with pytest.raises(Rejected, match="expected 1..256 elements, got 257"):
        C.read_cell([[str(i), str(i * i)] for i in range(257)], "c", 2)
    assert C.Cell([tuple(F(1) for _ in range(64))]).ambient == 64
    with pytest.raises(Rejected, match="a point: up to 64"):
        C.Cell([tuple(F(1) for _ in range(65))])
    with pytest.raises(Rejected, match="expected 1..3 elements, got 4"):
        C.read_cells([[["0"]]] * 4, "c", 1, max_cells=3)


def _net(d=1, layers=1, width=1, rank=1):
    layer0 = {"W": [[["1"] * d] * rank] * width, "b": [["0"] * rank] * width}
    rest = {"W": [[["1"] * width] * rank] * width, "b": [["0"] * rank] * width}
    return {"layers": [layer0] + [rest] * (layers - 1)}


@pytest.mark.parametrize("kw, limit", [({"d": 64}, None), ({"d": 65}, "expected 1..64 elements, got 65"),
                                       ({"layers": 64}, None), ({"layers": 65}, "expected 1..64 elements, got 65"),
                                       ({"width": 256}, None), ({"width": 257}, "expected 1..256 elements, got 257"),
                                       ({"rank": 64}, None), ({"rank": 65}, "expected 1..64 elements, got 65")])
def test_maxout_limits(kw, limit):
    if limit is None:
        net = C.read_maxout(_net(**kw), "n")
        assert (net["input_dim"], len(net["layers"]), net["widths"][0], net["rank"]) == \
            (kw.get("d", 1), kw.get("layers", 1), kw.get("width", 1), kw.get("rank", 1))
    else:
        with pytest.raises(Rejected, match=limit):
            C.read_maxout(_net(**kw), "n")


def test_maxout_weight_budget(monkeypatch):
    monkeypatch.setattr(C, "MAX_WEIGHTS", 8)
    assert C.read_maxout(_net(d=3, width=2, rank=1), "n")["widths"] == [2]          # 2 x 1 x (3 + 1) = 8
    with pytest.raises(Rejected, match="more than 8 weights"):
        C.read_maxout(_net(d=4, width=2, rank=1), "n")


def _tf(E=3, n=2, heads=1, m=1, r=None):
    z = lambda rows, cols: [["0"] * cols for _ in range(rows)]
    sub = []
    if r is not None:
        sub.append({"ffn": {"W1": z(r, E), "b1": ["0"] * r, "W2": z(E, r), "b2": ["0"] * E}})
    if heads:
        sub.append({"attention": [{"W_Q": z(m, E), "W_K": z(m, E), "W_V": z(m, E), "W_O": z(E, m)}] * heads})
    return {"tokens": n, "coordinates": [f"c{i}" for i in range(E)], "embed": {"one": z(E, n), "x": [z(E, n)]},
            "sublayers": sub, "read": {"token": 0, "W": z(1, E), "b": ["0"]}}


@pytest.mark.parametrize("kw, limit", [({"E": 1024, "heads": 0}, None), ({"E": 1025, "heads": 0}, "expected 1..1024"),
                                       ({"n": 64}, None), ({"n": 65}, r"tokens: expected an integer in \[1, 64\]"),
                                       ({"heads": 256}, None), ({"heads": 257}, "expected 1..256 elements, got 257"),
                                       ({"m": 64}, None), ({"m": 65}, "expected 1..64 elements, got 65"),
                                       ({"r": 8192, "heads": 0, "E": 1}, None),
                                       ({"r": 8193, "heads": 0, "E": 1}, "expected 1..8192 elements, got 8193")])
def test_transformer_limits(kw, limit):
    if limit is None:
        T = C.read_transformer(_tf(**kw), "T")
        assert (T["E"], T["n"]) == (kw.get("E", 3), kw.get("n", 2))
    else:
        with pytest.raises(Rejected, match=limit):
            C.read_transformer(_tf(**kw), "T")


def test_transformer_sublayer_and_weight_budget(monkeypatch):
    t = _tf()
    t["sublayers"] = t["sublayers"] * 256
    assert len(C.read_transformer(t, "T")["sublayers"]) == 256
    t["sublayers"].append(t["sublayers"][0])
    with pytest.raises(Rejected, match="expected 0..256 elements, got 257"):
        C.read_transformer(t, "T")
    monkeypatch.setattr(C, "MAX_WEIGHTS", 24)
    assert C.read_transformer(_tf(E=3, heads=2, m=1), "T")["E"] == 3                 # 2 heads x 4 x 1 x 3 = 24
    with pytest.raises(Rejected, match="more than 24 weights"):
        C.read_transformer(_tf(E=3, heads=3, m=1), "T")
    monkeypatch.setattr(C, "MAX_WEIGHTS", 12)
    assert C.read_transformer(_tf(E=3, heads=0, r=2), "T")["E"] == 3                 # 2 x 2 x 3 = 12
    with pytest.raises(Rejected, match="more than 12 weights"):
        C.read_transformer(_tf(E=3, heads=0, r=3), "T")
