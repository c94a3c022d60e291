"""Pins of the emulation search's shortcuts: they change no cell, map or certificate (docs/regions.md)."""

from _pins import plain_digest as _digest
from verify.checks.t6_maxout_emulation import check_altered_emulation, check_random_emulation


def test_tie_free_sharing_changes_no_result(monkeypatch):
    """Under tie rule both, a sublayer whose input is shared by both rules and that met no tie is evaluated once,
    and the decision-free work of a sublayer is shared between cells; without the shortcuts every rule and every
    cell evaluates every sublayer: the same Results (PROVED and REFUTED), each shortcut alone too."""
    import verify.decide.emulation as E

    def run():
        return [_digest(check_random_emulation(seed=1, d=2, k=2, L=2, max_width=3)),
                _digest(check_altered_emulation("O2", sublayer=3, name="W_O", index=(0, 0), delta="1/2"))]

    fast = run()
    monkeypatch.setattr(E, "SHARE_ACROSS_CELLS", False)
    assert run() == fast
    monkeypatch.setattr(E, "SHARE_TIE_FREE", False)
    assert run() == fast
    monkeypatch.setattr(E, "SHARE_ACROSS_CELLS", True)
    assert run() == fast


def test_audit_results_pinned():
    """sha256 of the canonical Result JSON (minus timing) of audits the speed work touched, recorded on the base
    commit before it: a speed-up must leave them byte-identical."""
    assert _digest(check_random_emulation(seed=1, d=2, k=2, L=2, max_width=3))[:16] == "1ac7bd5da2cbaf1e"
    assert _digest(check_altered_emulation("random", seed=1, d=2, sublayer=3, name="W_O", index=(0, 0),
                                           delta="1/4"))[:16] == "17eb29705467fe55"


def test_sampled_tie_free_sharing_changes_no_result(monkeypatch):
    """The sampled path (d > 6) evaluates the compiled Transformer once per point when that evaluation met no tie;
    the same Result without the shortcut; a tie is noticed (then every rule is evaluated)."""
    import verify.decide.emulation as E
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.constructions.reference_networks import random_maxout

    compiled = compile_maxout(random_maxout(0, 7, 2, 1, 1), [[-1, 1]] * 7)
    fast = _digest(E.prove_emulation(compiled, samples=4))
    assert E._tie_free_shareable(compiled)
    assert E._tie_free_shareable(E.alter_weight(compiled, 1, "W_O", (0, 0), "1/2"))
    monkeypatch.setattr(E, "SHARE_TIE_FREE", False)
    assert not E._tie_free_shareable(compiled)
    assert _digest(E.prove_emulation(compiled, samples=4)) == fast
    w = E._TieWatch()
    assert w.argmax_set([1, 2]) == [1] and not w.tied
    assert w.argmax_set([2, 2, 1]) == [0, 1] and w.tied


# sha256[:16] of the canonical Result JSON minus timing of every T4/T6/T8/T9 audit, recorded on 2008683 (before the
# polyhedral fast path of the kernel's Transformer evaluator); the test runs the cheap d >= 3 ones, the whole table
# was compared on the branch (all identical).
_AUDIT_PINS = {
    ("T4", "O5-Delta2-M4-L1"): "a2ccd0ce35335790",
    ("T4", "O5-Delta2-M4-L2"): "e5c5d26a9401087e",
    ("T4", "O5-Delta2-M4-L3"): "c4f121f1651979d4",
    ("T4", "O5-Delta2-M4-L4"): "a701aaf2e1428c03",
    ("T4", "O5-Delta2-M4-L5"): "75e9dca6f6b36d0b",
    ("T4", "n-Delta1-L2"): "ffa6f6cd1e80467e",
    ("T4", "n-Delta1-2-L2"): "93ff30741db4f3aa",
    ("T4", "n-Delta1-L1-disjointness"): "d5b4bcb3b51717bd",
    ("T4", "n-M3-gates"): "cf522174c3b6972d",
    ("T4", "interval-enclosures-Delta2"): "4db0fd0e4b2c2a30",
    ("T4", "interval-enclosures-Delta10"): "1c349ba718b290b4",
    ("T6", "O2-S40"): "e4d997268cb0b3bc",
    ("T6", "O2-S-certified"): "e7b49ddd52bddd47",
    ("T6", "O2-S2"): "b1f5ac8ecd98f200",
    ("T6", "n-O2-S3-2"): "1c4f8202e392327e",
    ("T6", "random-d1-k2-L2-seed0"): "8694ae5023d9f834",
    ("T6", "random-d1-k3-L3-seed0"): "bc024bdafa8ec19d",
    ("T6", "random-d1-k2-L2-seed1"): "b14bb6a70ab3b3a8",
    ("T6", "random-d1-k3-L3-seed1"): "5dd7d360d4356646",
    ("T6", "random-d1-k2-L2-seed2"): "35e3fe78fba2b8c2",
    ("T6", "random-d1-k3-L3-seed2"): "fdb2bcc8563a83d5",
    ("T6", "random-d1-k2-L2-seed3"): "6653938d63ed9c39",
    ("T6", "random-d1-k3-L3-seed3"): "fec298d971a7fd66",
    ("T6", "random-d2-k2-L2-seed1"): "1ac7bd5da2cbaf1e",
    ("T6", "random-d2-k2-L2-seed3"): "cf4e83dcef4d651a",
    ("T6", "random-d2-k3-L3-seed2"): "ca138436e2b5e8b3",
    ("T6", "random-d2-k3-L3-seed4"): "d3876ab624e4ce92",
    ("T6", "random-d2-k3-L3-seed0"): "c40febe7ae205fa8",
    ("T6", "n-altered-O2-W1"): "2a2bf798736d5c55",
    ("T6", "n-altered-O2-WO"): "193d1efc8fbe829e",
    ("T6", "n-altered-random-d2-WO"): "17eb29705467fe55",
    ("T6", "inactive-alteration-still-equal"): "16280122c7198df3",
    ("T6", "d7-sampled"): "bb4f4a4629830688",
    ("T6", "polytope-d3"): "9d295961f89ad593",
    ("T6", "polytope-d4"): "7cc6a3bc20506ff3",
    ("T6", "polytope-d5"): "4c892d4e5e0ed3d6",
    ("T6", "n-altered-random-d3-W1"): "fa252e77558d9a4f",
    ("T8", "lit-identities"): "ceacddb72c5897e3",
    ("T8", "two-units-abs"): "690b7b4639e51c64",
    ("T8", "random-relu-0"): "fa7254316e68a8ba",
    ("T8", "random-relu-1"): "ea2375ae01ac22e0",
    ("T8", "random-relu-2"): "1733d58de71ec6b1",
    ("T8", "random-relu-3"): "646715fe3371d9ae",
    ("T8", "random-relu-4"): "4f2bd1633d73e167",
    ("T8", "random-relu-5"): "8bb7209b796779f2",
    ("T8", "random-relu-6"): "f4842015b6f5cda1",
    ("T8", "random-relu-7"): "4084966926632b1b",
    ("T8", "random-relu-8"): "c9b6b52d0eed06ec",
    ("T8", "random-relu-9"): "63c0a56ac493be9b",
    ("T8", "random-relu-10"): "afb25bc2ab00dba5",
    ("T8", "random-relu-11"): "4d5209b2101c8c75",
    ("T8", "zigzag-q2-L1"): "ad802dc8b4c4cb43",
    ("T8", "zigzag-q2-L2"): "120c5ad249139809",
    ("T8", "zigzag-q3-L1"): "db55738eb9c02d10",
    ("T8", "zigzag-q3-L2"): "3f56ffe5af581205",
    ("T8", "zigzag-q4-L1"): "16da12429f24430a",
    ("T8", "zigzag-q4-L2"): "d83b56eb723613b6",
    ("T8", "n-shared-head"): "f1cae4b0d9a93d41",
    ("T8", "polytope-d3"): "32d9e6a061e3d391",
    ("T8", "polytope-d4"): "2dccaa7b14066589",
    ("T8", "polytope-d5"): "099c892f0fa9cae6",
    ("T8", "n-polytope-d3-S-too-small"): "11588ebe0c418516",
    ("T9", "O8-dc-S16"): "59a83b7ceae88a28",
    ("T9", "O8-dc-S8"): "3b4278d23c47f67f",
    ("T9", "O8-breakpoint-form"): "741c858316fa0580",
    ("T9", "2d-example"): "124713903778ac0b",
    ("T9", "n-zero-padding"): "f86666f5d0a093f7",
    ("T9", "n-zero-padding-region-witness"): "7ed90f2140da630a",
    ("T9", "repeat-padding-control"): "c2d94cc3526261e6",
    ("T9", "random-1d-0"): "b22d92eb479b9087",
    ("T9", "random-1d-1"): "3690daae45ee0f53",
    ("T9", "random-1d-2"): "dc2fe2197ac69350",
    ("T9", "random-1d-3"): "57521f3b0b63c894",
    ("T9", "random-1d-4"): "e2dacb2d263fca61",
    ("T9", "random-1d-5"): "55e5d720ae23ba0c",
    ("T9", "random-1d-6"): "817f12e3145e4373",
    ("T9", "random-1d-7"): "a2b2187d3087f7e3",
    ("T9", "random-1d-8"): "5a238b3e13480f7e",
    ("T9", "random-1d-9"): "64e0db754668e8cf",
    ("T9", "random-1d-10"): "c493e62b412a1795",
    ("T9", "random-1d-11"): "12b7210fe73af45b",
    ("T9", "random-1d-12"): "23011edd1145e21b",
    ("T9", "random-1d-13"): "c8131fd837d305ef",
}
_RUN = [("T6", "n-altered-random-d3-W1"), ("T8", "polytope-d3"), ("T8", "n-polytope-d3-S-too-small")]


def test_polytope_audit_results_pinned():
    import importlib

    mods = {"T6": "t6_maxout_emulation", "T8": "t8_relu_emulation"}
    for claim, name in _RUN:
        audit = next(a for a in importlib.import_module("proofs.maxout." + mods[claim]).AUDITS if a.name == name)
        assert _digest(audit.check(**dict(audit.params)))[:16] == _AUDIT_PINS[(claim, name)], (claim, name)
