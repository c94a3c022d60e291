"""Pins of the emulation search's shortcuts: they change no cell, map or certificate (docs/regions.md)."""

import hashlib

from verify.canonical import canonical_dumps
from verify.checks.t6_maxout_emulation import check_altered_emulation, check_random_emulation


def _digest(r) -> str:
    d = r.to_dict()
    d.pop("timing", None)
    return hashlib.sha256(canonical_dumps(d).encode()).hexdigest()


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
