"""The fifth-round shortcuts of the d >= 3 emulation search (docs/regions.md, "Fifth round: emulation"):
sign entries of cells of dimension 0 and 1 by exact elimination (verify/decide/polytope.py, LOW_DIM) and the
kernel evaluator's updates of FFN / attention values from the last ones of the same sublayer
(verify/kernel/_cells.py, FFN_NEAR).  Both give the same certificates as without them, both are exercised, and
the entries they produce are checked by the kernel (a forged one is rejected; the shortcut declines where the
sign varies)."""

import json

from gmpy2 import mpq

import verify.decide.polytope as P
import verify.kernel._cells as C
from verify.decide.emulation import prove_emulation
from verify.kernel import _poly as KP
from verify.kernel import check
from verify.kernel._read import Rejected
from verify.objects.maxout import MaxoutNetwork


# two ReLU units in d = 3 whose planes cross inside the cube (tests/test_polytope.py's NET3)
NET = MaxoutNetwork([([[[1, 1, 0], [0, 0, 0]], [[1, -1, 1], [0, 0, 0]]], [["-1/2", 0], ["-1/3", 0]])])


def _run():
    r = prove_emulation(NET, [[0, 1]] * 3, tie="average", record_regions=False)
    assert r.verdict.value == "proved"
    return r


def test_shortcuts_used_and_certificates_unchanged(monkeypatch):
    calls = {"low": 0, "full_ffn": 0}
    low, full = P._low_dim_entry, C._ffn_out

    def count_low(*a):
        out = low(*a)
        calls["low"] += out is not None
        return out

    def count_full(*a):
        calls["full_ffn"] += 1
        return full(*a)

    monkeypatch.setattr(P, "_low_dim_entry", count_low)
    monkeypatch.setattr(C, "_ffn_out", count_full)
    fast = _run()
    used = dict(calls)
    assert used["low"] > 0                      # entries found without an LP
    calls.update(low=0, full_ffn=0)
    monkeypatch.setattr(P, "LOW_DIM", False)
    monkeypatch.setattr(C, "FFN_NEAR", False)
    slow = _run()
    assert calls["low"] == 0 and calls["full_ffn"] > used["full_ffn"]     # the near updates replaced full ones
    assert fast.certificate == slow.certificate
    assert check(json.loads(json.dumps(fast.to_dict()))).startswith("emulation-polytope")


def _segment():
    """The segment {x2 = 0, x3 = 0, 0 < x1 < 1} of the cube [0, 1]^3 as a cell (E, G, bounds, p)."""
    z, one = mpq(0), mpq(1)
    E = [(z, z, one, z), (z, z, z, one)]
    G = [(z, one, z, z), (one, -one, z, z)]
    bounds = [(z, one, None), (z, one, z), (z, one, z)]
    return E, G, bounds, (mpq(1, 2), z, z)


def test_low_dim_entry_is_checked_and_declines_a_varying_sign():
    E, G, bounds, p = _segment()
    f = (mpq(1, 4), mpq(1), mpq(5), mpq(-7))           # 1/4 + x1 + ...: > 0 on the closed segment, min at x1 = 0
    entry = P._low_dim_entry(E, G, list(f), 3, p)
    assert entry is not None and entry["y"] == [[0, "1"]]
    cell = KP.PolyCell(E, G, p, bounds, [entry])
    assert cell.sign(f) == 1
    cell.done()
    forged = {"y": [[0, "2"]], "l": entry["l"]}        # s f - 2 g_0 is not a constant
    bad = KP.PolyCell(E, G, p, bounds, [forged])
    try:
        bad.sign(f)
        raise AssertionError("forged entry accepted")
    except Rejected:
        pass
    g = (mpq(-1, 4), mpq(1), z := mpq(0), z)            # x1 - 1/4 changes sign on the segment: no entry
    assert P._low_dim_entry(E, G, list(g), 3, p) is None
    pt = [(mpq(0), mpq(1), mpq(0), mpq(0)), (mpq(-1, 2), mpq(0), mpq(1), mpq(0)), (mpq(0), mpq(0), mpq(0), mpq(1))]
    e0 = P._low_dim_entry(pt, [], [mpq(1), mpq(3), mpq(-2), mpq(1)], 3, (mpq(0), mpq(1, 2), mpq(0)))
    assert e0 == {"y": [], "l": [[0, "3"], [1, "-2"], [2, "1"]]}     # a point: lambda only
    assert P._low_dim_entry(pt, [], [mpq(-1), mpq(0), mpq(1), mpq(0)], 3, (mpq(0), mpq(1, 2), mpq(0))) is None
