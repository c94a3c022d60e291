"""Session 24's speed-ups of the d >= 3 emulation search (docs/regions.md, "Fifth round: emulation", the section on
session 24): the scores of a constant query shared by the value objects they are computed from and the heads that
read no changed row kept whole (verify/kernel/_cells.py), the per-face memo of forms of constant sign on the
closed face (verify/decide/polytope.py, BOX_MEMO), sign entries of 2-cells from their exact polygon (POLY2), and
the bench's --before loading the kernel modules of REV.
Each is exercised and changes no certificate."""

import json
import sys
from pathlib import Path

from gmpy2 import mpq

import verify.decide.polytope as P
import verify.kernel._cells as C
from verify.decide.emulation import prove_emulation
from verify.kernel import check
from verify.objects.maxout import MaxoutNetwork

# three ReLU units in d = 3 whose planes cross inside the cube
NET = MaxoutNetwork([([[[1, 1, 0], [0, 0, 0]], [[1, -1, 1], [0, 0, 0]], [[0, 1, -2], [0, 0, 0]]],
                      [["-1/2", 0], ["-1/3", 0], ["1/5", 0]])])


def _run():
    r = prove_emulation(NET, [[-1, 1]] * 3, tie="average", record_regions=False)
    assert r.verdict.value == "proved"
    return r


def test_box_sign_exact():
    z, one = mpq(0), mpq(1)
    cube = [(z, one, None)] * 3
    P._clear_search_memos()
    assert P._box_sign((mpq(1, 4), one, z, z), b"a", cube) == 1           # 1/4 + x1 >= 1/4 on [0, 1]^3
    assert P._box_sign((mpq(-1, 4), one, z, z), b"b", cube) == 0          # changes sign
    assert P._box_sign((mpq(-3), one, one, z), b"c", cube) == -1          # <= -1
    assert P._box_sign((mpq(-2), one, one, z), b"d", cube) == 0           # max 0: not < 0
    assert P._box_sign((mpq(-1, 4), one, z, z), b"a", cube) == 1          # remembered under its key
    face = [(z, one, None), (z, one, None), (z, one, one)]                # x3 = 1
    assert P._box_sign((mpq(-1, 2), z, z, one), b"a", face) == 1          # another face: the memo is emptied
    P._clear_search_memos()
    assert not P._BOXED and P._BOXED_BOUNDS[0] is None


def _fires_and_changes_nothing(monkeypatch, func, fired, flag):
    """The shortcut ``func`` of verify.decide.polytope answers (``fired(out)``) on the bench network, not at all
    with ``flag`` off, and the certificate is the same either way and accepted by the kernel; the Result."""
    hits, real = [0], getattr(P, func)

    def counted(*a):
        out = real(*a)
        hits[0] += fired(out)
        return out

    monkeypatch.setattr(P, func, counted)
    fast = _run()
    assert hits[0] > 0
    hits[0] = 0
    monkeypatch.setattr(P, flag, False)
    slow = _run()
    assert hits[0] == 0
    assert fast.certificate == slow.certificate
    assert check(json.loads(json.dumps(fast.to_dict()))).startswith("emulation-polytope")
    return fast


def test_box_memo_used_and_certificates_unchanged(monkeypatch):
    fast = _fires_and_changes_nothing(monkeypatch, "_box_sign", lambda s: s != 0, "BOX_MEMO")
    assert "box" in json.dumps(fast.certificate)


def test_shared_scores_and_kept_heads(monkeypatch):
    """The scores of constant queries are computed once per set of value objects (fewer _dot calls than scores
    used) and _qkv_near keeps whole heads; with FFN_NEAR off (queries, keys and values from scratch on every
    input) the same certificate."""
    calls = {"dot": 0, "kept": 0}
    dot, qkv_near = C._dot, C._qkv_near

    def count_dot(*a):
        calls["dot"] += 1
        return dot(*a)

    def count_qkv(memo, si, s, X, m):
        last = None if memo is None else memo.get("qkv_last", {}).get(si)
        out = qkv_near(memo, si, s, X, m)
        if last is not None:
            calls["kept"] += sum(1 for h, h0 in zip(out, last[1]) if h is h0)
            assert out == C._qkv(s, X, m)                                # the same values as from scratch
        return out

    monkeypatch.setattr(C, "_dot", count_dot)
    monkeypatch.setattr(C, "_qkv_near", count_qkv)
    leaves = []
    leaf = P.search

    def search(*a, **k):
        info = leaf(*a, **k)
        leaves.append(info["leaves"])
        return info

    monkeypatch.setattr(P, "search", search)
    fast = _run()
    # 3 heads x 2 tokens x 2 keys = 12 scores per evaluation without the sharing
    assert calls["kept"] > 0 and 0 < calls["dot"] < 12 * leaves[0]
    monkeypatch.setattr(C, "FFN_NEAR", False)
    assert _run().certificate == fast.certificate


def test_bench_before_loads_the_kernel_at_rev():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import polytope as B
    finally:
        sys.path.pop(0)
    import verify.kernel as K

    mod = B.load_before("HEAD")
    cur = (sys.modules["verify.kernel._cells"], K.emulation)
    assert mod.KC is not C and mod.KC.__name__ == "verify.kernel._cells_before"
    with mod.KERNEL:
        from verify.kernel import emulation as KE
        assert KE.C is mod.KC and sys.modules["verify.kernel._cells"] is mod.KC
    assert (sys.modules["verify.kernel._cells"], K.emulation) == cur
    sys.modules["verify.decide.polytope"] = mod
    try:
        with B._kernel_of(mod):
            r = prove_emulation(NET, [[-1, 1]] * 3, tie="average", record_regions=False)
    finally:
        sys.modules["verify.decide.polytope"] = P
    assert r.certificate == _run().certificate


def _square():
    """The face {x3 = 0} of the cube [0, 1]^3 as a 2-cell (E, G, bounds, p)."""
    z, one = mpq(0), mpq(1)
    E = [(z, z, z, one)]
    G = [(z, one, z, z), (one, -one, z, z), (z, z, one, z), (one, z, -one, z)]
    bounds = [(z, one, None), (z, one, None), (z, one, z)]
    return E, G, bounds, (mpq(1, 2), mpq(1, 2), z)


def test_polygon_entry_exact_checked_and_declines():
    from verify.kernel import _poly as KP
    from verify.kernel._read import Rejected

    E, G, bounds, p = _square()
    P._clear_search_memos()
    f = (mpq(1, 4), mpq(1), mpq(2), mpq(5))            # min 1/4 at the vertex (0, 0): g_0 and g_2 tight
    entry = P._polygon_entry(E, G, bounds, list(f), 3)
    assert entry == {"y": [[0, "1"], [2, "2"]], "l": [[0, "5"]]}
    assert P.sign_certificate(E, G, bounds, f, 1, 3, p) == "box"          # the box bound comes first there
    cell = KP.PolyCell(E, G, p, bounds, [entry])
    assert cell.sign(f) == 1
    cell.done()
    bad = KP.PolyCell(E, G, p, bounds, [{"y": [[0, "1"], [2, "3"]], "l": [[0, "5"]]}])
    try:
        bad.sign(f)
        raise AssertionError("forged entry accepted")
    except Rejected:
        pass
    assert P._polygon_entry(E, G, bounds, [mpq(1, 4), mpq(1), mpq(0), mpq(0)], 3) is None   # an edge of minima
    assert P._polygon_entry(E, G, bounds, [mpq(-1, 4), mpq(1), mpq(1), mpq(0)], 3) is None  # negative somewhere
    assert P._polygon_entry([], G, bounds, list(f), 3) is None                                # not a 2-cell
    P._clear_search_memos()
    assert not P._POLYS


def test_polygon_entries_used_and_certificates_unchanged(monkeypatch):
    _fires_and_changes_nothing(monkeypatch, "_polygon_entry", lambda out: out is not None, "POLY2")


def test_solve3_is_solve():
    import random

    rng = random.Random(1)
    for _ in range(300):
        A = [[mpq(rng.randint(-2, 2), rng.randint(1, 3)) for _ in range(3)] for _ in range(3)]
        b = [mpq(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(3)]
        assert P._solve3(A, b) == P._solve(A, b)
    assert P._solve3([[1, 0, 0], [0, 1, 0], [0, 0, 2]], [1, 2, 3]) == [mpq(1), mpq(2), mpq(3, 2)]
