"""T6: the R4 hardmax Transformer equals the maxout network on the WHOLE box, with the stated sizes.

The equality is established by :func:`verify.decide.emulation.prove_emulation` on the actual compiled
weights (exact region decomposition of the closed box, both sides affine and equal on every cell), and
the lemma certificate (S >= the bound certified by exact interval propagation; T1 + T3) is recorded
beside it.  The sizes of the compiled Transformer are compared with the R4 formulas (n = k,
E = 2N + k + 1, D = 2L, N_l heads of size 1, FFN width 2kN_l + 4N, non-zeros W1 <= 2kN_l(N_{l-1}+2) + 4N,
W2 = 2kN_l + 4N, attention 4N_l) and, for O2, with the numbers of docs/paper1.md O2.

>>> check_maxout_emulation("O2", S=40).verdict.value
'proved'
>>> r = check_maxout_emulation("O2", S="3/2")
>>> r.verdict.value, r.certificate["kind"], r.certificate["x"], r.certificate["transformer"]
('refuted', 'emulation-witness', ['0'], ['2/3'])
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.exact import fraction_str, parse_exact
from ..constructions.reference_networks import o2_network, random_maxout
from ..errors import InputError
from ..objects.maxout import MaxoutNetwork
from ..results import Method, Result, Verdict
from ..decide.emulation import alter_weight, prove_emulation

__all__ = ["check_maxout_emulation", "check_random_emulation", "check_altered_emulation", "O2_SIZES"]


# the O2 sizes of docs/claims.md T6 and docs/paper1.md O2
O2_SIZES = {"tokens": 2, "embedding": 7, "sublayers": 4, "heads_per_layer": [2, 1], "ffn_widths": [16, 12],
            "W1_nonzeros": [32, 24], "W2_nonzeros": [16, 12], "attention_nonzeros": [8, 4],
            "S_bound_certified": Fraction(11, 2)}


def _catalogue_problems(compiled, expected: dict | None) -> list:
    """Differences between the compiled sizes and the catalogue's numbers (O2)."""
    if not expected:
        return []
    sizes = compiled.sizes()
    problems = []
    for key, val in expected.items():
        got = compiled.S_bound_certified if key == "S_bound_certified" else sizes.get(key)
        if got != val:
            problems.append(f"{key}: measured {got} != catalogue {val}")
    return problems


def _combine(r: Result, compiled, expected, evidence: dict, seeds=None) -> Result:
    """The prove_emulation Result with the search-side facts added to its evidence.  The R4 size formulas are
    part of the kernel-checked statement (``formula="R4"``: a mismatch is a REFUTED ``emulation-sizes``
    Result); a difference from the catalogue's numbers (not a mathematical claim) makes it INCONCLUSIVE."""
    ev = dict(r.evidence)
    ev.update(evidence)
    ev["sizes"] = compiled.sizes()
    problems = _catalogue_problems(compiled, expected)
    verdict, cert, statement = r.verdict, r.certificate, r.statement
    if problems:
        ev["catalogue_problems"] = problems
        if verdict is Verdict.PROVED:
            verdict, cert = Verdict.INCONCLUSIVE, {"summary": "equal on the box with the R4 sizes, but the sizes "
                                                              "differ from the catalogue: " + "; ".join(problems)}
    return Result("T6", statement, verdict, Method.EXACT, certificate=cert, parameters=r.parameters,
                  conventions=r.conventions, seeds={**r.seeds, **(seeds or {})}, evidence=ev)


def check_maxout_emulation(network="O2", box=None, S=None, tie: str = "both") -> Result:
    """T6 on a given network (``"O2"`` or a SPEC dict / MaxoutNetwork) and box; ``S=None`` uses the
    certified bound.  O2 is also compared with the catalogue's sizes."""
    from ..constructions.maxout_compiler import compile_maxout

    expected = None
    if network == "O2":
        net, box, expected = o2_network(), box or [[0, 1]], O2_SIZES
    elif isinstance(network, MaxoutNetwork):
        net = network
    elif isinstance(network, dict):
        net = MaxoutNetwork.from_dict(network)
    else:
        raise InputError("network", f"expected 'O2', a MaxoutNetwork or a SPEC dict, got {type(network).__name__}")
    if box is None:
        raise InputError("box", "missing")
    S = None if S is None else parse_exact(S, "S")
    if expected is not None and S != 40:
        # the catalogue's W1 count is for S = 40; another S can cancel a bias (e.g. b - S = 0 at S = 2)
        expected = {k: v for k, v in expected.items() if k != "W1_nonzeros"}
    compiled = compile_maxout(net, box, S=S)
    r = prove_emulation(compiled, tie=tie, formula="R4")
    return _combine(r, compiled, expected, {"S": compiled.S, "S_given": S is not None,
                                            "network_name": network if isinstance(network, str) else "given"})


def check_random_emulation(seed: int = 0, d: int = 1, k: int = 2, L: int = 2, max_width: int = 3,
                           tie: str = "both") -> Result:
    """T6 on a seeded random network on K = [-1, 1]^d with the certified S (this one instance; the statement
    names it by its weights)."""
    from ..constructions.maxout_compiler import compile_maxout

    net = random_maxout(seed, d, k, L, max_width)
    compiled = compile_maxout(net, [[-1, 1]] * d)
    r = prove_emulation(compiled, tie=tie, seed=seed, formula="R4", record_regions=False)
    return _combine(r, compiled, None, {"S": compiled.S, "d": d, "k": k, "L": L, "max_width": max_width},
                    seeds={"network": seed})


def check_altered_emulation(network="O2", seed: int = 0, d: int = 1, sublayer: int = 0, name: str = "W1",
                            index=(0, 0), delta=1, head: int = 0, tie: str = "both") -> Result:
    """T6 negative side: the compiled Transformer with one weight changed by ``delta`` must not be
    PROVED equal to the network (REFUTED with an exact witness)."""
    from ..constructions.maxout_compiler import compile_maxout

    if network == "O2":
        net, box = o2_network(), [[0, 1]]
    elif network == "random":
        net, box = random_maxout(seed, d, 2, 2, 3), [[-1, 1]] * d
    else:
        raise InputError("network", f"expected 'O2' or 'random', got {network!r}")
    compiled = compile_maxout(net, box)
    altered = alter_weight(compiled, sublayer, name, tuple(index) if isinstance(index, list) else index,
                           parse_exact(delta, "delta"), head=head)
    r = prove_emulation((net, altered), box, tie=tie)
    ev = dict(r.evidence)
    ev.update({"network_name": network, "seed": seed, "alteration": altered.note,
               "expectation": "altered Transformer: expected to fail"})
    return Result("T6", r.statement, r.verdict, r.method, certificate=r.certificate, parameters=r.parameters,
                  conventions=r.conventions, seeds={"network": seed} if network == "random" else {}, evidence=ev)
