"""T9: CPWL -> Transformer, exact on the box (spec maxout R8, O8).

(a) DC form f = max_j l_j - max_j l'_j: one FFN (R3 gates) and one 2-head hardmax attention layer, n = max(n_g, n_h)
tokens, the shorter list padded by repetition.  (b) 1-D breakpoint form, split into convex g (affine part and
Delta_i > 0) and h (Delta_i < 0), then (a).  "Exact on the box" is decided by
:func:`verify.checks.emulation.prove_emulation` (exact region decomposition) against the CPWL function's own
exact evaluator; sizes are checked against R8 (E = d + n + 4, FFN width 4n, 2 heads).  T9.n: zero padding computes
max(h, 0) and is REFUTED at x = 0.

>>> check_dc_emulation([[[1], 0], [[-1], 0]], [[[2], -2], [[-2], 2]], [[-3, 3]], S=16).verdict.value
'proved'
>>> check_dc_emulation([[[1], 0], [[-1], 0], [[2], -3]], [[[1], -5]], [[-3, 3]], padding="zero",
...                    witness=[0]).certificate["summary"]
'x = (0): Transformer 0 != f = 5 (padding zero)'
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..constructions.cpwl_compiler import compile_cpwl
from ..engines.exact import fraction_str
from ..errors import InputError
from ..objects.cpwl import CPWL1D, DCFunction
from ..objects.maxout import MaxoutNetwork, coerce_input, parse_box
from ..objects.ops import TIE_RULES
from ..results import Method, Result, Verdict

__all__ = ["check_dc_emulation", "check_breakpoint_emulation", "check_random_cpwl_emulation", "random_cpwl_1d"]

STATEMENT = ("a CPWL function (difference-of-convex or 1-D breakpoint form) is computed exactly on the box by one "
             "FFN and one 2-head hardmax attention layer with n = max(n_g, n_h) tokens (padding by repetition)")


def _sizes(compiled) -> dict:
    d, n = compiled.input_dim, compiled.n_tokens
    s = compiled.sizes()
    want = {"tokens": n, "embedding": d + n + 4, "sublayers": 2, "heads": [2], "ffn_widths": [4 * n]}
    got = {k: s[k] for k in want}
    return {"expected": want, "measured": got, "ok": got == want, "transformer_nonzeros": s["transformer_nonzeros"],
            "pieces": s["pieces"]}


def _dc_as_maxout(compiled) -> MaxoutNetwork:
    """max_j g_j - max_j h_j as a rank-n maxout layer of 2 units (pieces padded by repetition, which keeps each
    max) with read-out (1, -1)."""
    dc = compiled.dc
    n = max(dc.n_g, dc.n_h)
    pad = lambda ps: list(ps) + [ps[-1]] * (n - len(ps))
    g, h = pad(dc.g_pieces), pad(dc.h_pieces)
    W = [[list(w) for w, _ in g], [list(w) for w, _ in h]]
    b = [[c for _, c in g], [c for _, c in h]]
    return MaxoutNetwork([(W, b)], readout=([[1, -1]], [0]))


def _run(f, compiled, tie, witness, params):
    from .emulation import prove_emulation   # H2's exact region decomposition

    rules = list(TIE_RULES) if tie == "both" else [tie]
    sizes = _sizes(compiled)
    conventions = {**compiled.conventions, "tie_rules": rules}
    if witness is not None:
        if not isinstance(witness, (list, tuple)) or len(witness) != compiled.input_dim:
            raise InputError("witness", f"expected {compiled.input_dim} coordinates")
        x = [coerce_input(v, f"witness[{m}]") for m, v in enumerate(witness)]
        want = f.evaluate(x)
        for rule in rules:
            got = compiled(x, tie=rule)
            if got != want:
                return Result("T9", STATEMENT, Verdict.REFUTED, Method.EXACT, parameters=params, conventions=conventions,
                              certificate={"summary": f"x = ({', '.join(fraction_str(v) for v in x)}): Transformer "
                                                      f"{fraction_str(got[0])} != f = {fraction_str(want[0])} "
                                                      f"(padding {compiled.padding})",
                                           "witness": {"x": x, "tie": rule, "f": list(want), "transformer": list(got)},
                                           "sizes": sizes})
    res = prove_emulation((f, compiled), compiled.box, tie=tie, claim="T9", record_regions=True)
    cert = dict(res.certificate)
    if cert.get("kind") == "emulation-regions":
        # f = max g - max h is the one-layer maxout network (units g, h; read-out (1, -1)), recorded for the
        # re-checker's independent evaluator
        cert["network"] = _dc_as_maxout(compiled).to_dict()
    cert["sizes"] = sizes
    cert["S"] = compiled.S
    cert["S_bound_certified"] = compiled.S_bound_certified
    verdict = res.verdict
    if verdict is Verdict.PROVED and not sizes["ok"]:
        verdict = Verdict.REFUTED
        cert["summary"] = f"sizes differ from R8: {sizes['measured']} vs {sizes['expected']}"
    return Result("T9", STATEMENT, verdict, Method.EXACT, certificate=cert, parameters=params,
                  conventions={**conventions, **res.conventions})


def check_dc_emulation(g_pieces, h_pieces, box, S=None, padding: str = "repeat", tie: str = "both",
                       witness=None) -> Result:
    """DC form: PROVED iff the compiled Transformer equals f on the whole box with the R8 sizes; REFUTED with an
    exact witness (``witness`` is tried first, then the region decomposition's own)."""
    f = DCFunction(g_pieces, h_pieces)
    bx = parse_box(box, dim=f.input_dim)
    compiled = compile_cpwl(f, bx, S=S, padding=padding)
    params = {"g_pieces": [[list(w), b] for w, b in f.g_pieces], "h_pieces": [[list(w), b] for w, b in f.h_pieces],
              "box": [list(iv) for iv in bx], "S": compiled.S, "padding": padding, "tie": tie}
    return _run(f, compiled, tie, witness, params)


def check_breakpoint_emulation(x0, x_end, breakpoints, slopes, value0=0, S=None, padding: str = "repeat",
                               tie: str = "both", witness=None) -> Result:
    """1-D breakpoint form on [x0, x_end], compiled through its DC split."""
    f = CPWL1D(x0, x_end, breakpoints, slopes, value0)
    compiled = compile_cpwl(f, S=S, padding=padding)
    params = {"x0": f.x0, "x_end": f.x_end, "breakpoints": list(f.breakpoints), "slopes": list(f.slopes),
              "value0": f.value0, "S": compiled.S, "padding": padding, "tie": tie}
    return _run(f, compiled, tie, witness, params)


def random_cpwl_1d(rng: random.Random, m_breaks: int) -> CPWL1D:
    """Random CPWL on [-2, 2] with ``m_breaks`` distinct rational breakpoints and rational slopes in [-2, 2]."""
    pts = set()
    while len(pts) < m_breaks:
        pts.add(Fraction(rng.randint(-23, 23), 12))
    slopes = [Fraction(rng.randint(-8, 8), 4) for _ in range(m_breaks + 1)]
    return CPWL1D(-2, 2, sorted(pts), slopes, Fraction(rng.randint(-4, 4), 2))


def check_random_cpwl_emulation(count: int = 8, seed: int = 20260309, min_breaks: int = 2, max_breaks: int = 8,
                                tie: str = "both") -> Result:
    """``count`` seeded random 1-D CPWL functions (min_breaks..max_breaks breakpoints) compiled and proved equal."""
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 200:
        raise InputError("count", f"must be an integer in [1, 200], got {count!r}")
    if not isinstance(min_breaks, int) or not isinstance(max_breaks, int) or not 1 <= min_breaks <= max_breaks <= 40:
        raise InputError("max_breaks", "need integers 1 <= min_breaks <= max_breaks <= 40")
    rng = random.Random(seed)
    rows = []
    for c in range(count):
        f = random_cpwl_1d(rng, min_breaks + c % (max_breaks - min_breaks + 1))
        compiled = compile_cpwl(f)
        r = _run(f, compiled, tie, None, {})
        rows.append({"index": c, "breakpoints": list(f.breakpoints), "slopes": list(f.slopes), "value0": f.value0,
                     "tokens": compiled.n_tokens, "verdict": r.verdict.value, "cells": r.certificate.get("cells")})
        if r.verdict is not Verdict.PROVED:
            return Result("T9", STATEMENT, r.verdict, Method.EXACT, seeds={"functions": seed},
                          parameters={"count": count, "min_breaks": min_breaks, "max_breaks": max_breaks},
                          certificate={"summary": f"function {c}: {r.certificate.get('summary')}", "failed": rows[-1],
                                       "witness": r.certificate.get("witness")})
    return Result("T9", STATEMENT, Verdict.PROVED, Method.EXACT, seeds={"functions": seed},
                  parameters={"count": count, "min_breaks": min_breaks, "max_breaks": max_breaks, "tie": tie},
                  conventions={"domain": "[-2, 2]", "padding": "repeat"},
                  certificate={"summary": f"{count} random 1-D CPWL functions ({min_breaks}-{max_breaks} breakpoints) "
                                          f"equal to their compiled Transformers on the whole interval",
                               "functions": rows})
