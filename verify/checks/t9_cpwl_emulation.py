"""T9: CPWL -> Transformer, exact on the box (docs/paper1.md R8, O8).

(a) DC form f = max_j l_j - max_j l'_j: one FFN (R3 gates) and one 2-head hardmax attention layer, n = max(n_g, n_h)
tokens, the shorter list padded by repetition.  (b) 1-D breakpoint form, split into convex g (affine part and
Delta_i > 0) and h (Delta_i < 0), then (a).  "Exact on the box" is decided by
:func:`verify.decide.emulation.prove_emulation` (exact region decomposition) against the CPWL function's own
exact evaluator; sizes are checked against R8 (E = d + n + 4, FFN width 4n, 2 heads).  T9.n: zero padding computes
max(h, 0) and is REFUTED at x = 0.

>>> check_dc_emulation([[[1], 0], [[-1], 0]], [[[2], -2], [[-2], 2]], [[-3, 3]], S=16).verdict.value
'proved'
>>> r = check_dc_emulation([[[1], 0], [[-1], 0], [[2], -3]], [[[1], -5]], [[-3, 3]], padding="zero", witness=[0])
>>> r.verdict.value, r.certificate["x"], r.certificate["network"], r.certificate["transformer"]
('refuted', ['0'], ['5'], ['0'])
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..constructions.cpwl_compiler import compile_cpwl
from ..arith.exact import fraction_str
from ..errors import InputError
from ..objects.cpwl import CPWL1D, DCFunction
from ..objects.maxout import MaxoutNetwork, coerce_input, parse_box
from ..objects.transformer import TIE_RULES
from ..results import Method, Result, Verdict

__all__ = ["check_dc_emulation", "check_breakpoint_emulation", "check_random_cpwl_emulation", "random_cpwl_1d"]



def _dc_as_maxout(compiled) -> MaxoutNetwork:
    """max_j g_j - max_j h_j as a rank-n maxout layer of 2 units (pieces padded by repetition, which keeps each
    max) with read-out (1, -1): literally f, whatever padding the compiled Transformer used."""
    dc = compiled.dc
    n = max(dc.n_g, dc.n_h)
    pad = lambda ps: list(ps) + [ps[-1]] * (n - len(ps))
    g, h = pad(dc.g_pieces), pad(dc.h_pieces)
    W = [[list(w) for w, _ in g], [list(w) for w, _ in h]]
    b = [[c for _, c in g], [c for _, c in h]]
    return MaxoutNetwork([(W, b)], readout=([[1, -1]], [0]))


def _breakpoint_as_maxout(f: CPWL1D) -> MaxoutNetwork:
    """f(x) = f(x0) + s0 (x - x0) + sum_i Delta_i ReLU(x - x_i) as a rank-2 maxout network: the unit
    max(x - x0, x - x0) = x - x0, the units max(x - x_i, 0), read-out (s0, Delta_1, ...) and bias f(x0)."""
    W = [[[1], [1]]] + [[[1], [0]] for _ in f.breakpoints]
    b = [[-f.x0, -f.x0]] + [[-xi, 0] for xi in f.breakpoints]
    return MaxoutNetwork([(W, b)], readout=([[f.slopes[0]] + list(f.jumps)], [f.value0]))


def _pieces_figure(network, box) -> dict:
    """Typed figure data ``pieces_2d`` (docs/reports.md): the exact pieces of the emulated function on a 2-D box."""
    from ..decide.regions import count_regions

    rc = count_regions(network, box, kind="pieces")
    return {"type": "pieces_2d", "kind": "pieces", "box": [[fraction_str(lo), fraction_str(hi)] for lo, hi in rc.box],
            "pieces": [[[[fraction_str(c) for c in v] for v in cell] for cell in reg["cells"]]
                       for reg in rc.regions[:400]]}


def _run(f, compiled, tie, witness, network, formula, evidence=None):
    from ..decide.emulation import prove_emulation   # exact region decomposition of the box

    res = prove_emulation((f, compiled), compiled.box, tie=tie, claim="T9", network=network, formula=formula,
                          witness=witness, record_regions=False)
    ev = dict(res.evidence)
    ev.update({"S": compiled.S, "S_bound_certified": compiled.S_bound_certified, "padding": compiled.padding,
               "sizes": compiled.sizes(), "construction": compiled.conventions})
    ev.update(evidence or {})
    if len(compiled.box) == 2:
        ev["figure"] = _pieces_figure(network, compiled.box)
    return Result("T9", res.statement, res.verdict, Method.EXACT, certificate=res.certificate,
                  parameters=res.parameters, conventions=res.conventions,
                  seeds=res.seeds, evidence=ev)


def check_dc_emulation(g_pieces, h_pieces, box, S=None, padding: str = "repeat", tie: str = "both",
                       witness=None) -> Result:
    """DC form: PROVED iff the compiled Transformer equals f on the whole box with the R8 sizes; REFUTED with an
    exact witness (``witness`` is tried first, then the region decomposition's own)."""
    f = DCFunction(g_pieces, h_pieces)
    bx = parse_box(box, dim=f.input_dim)
    compiled = compile_cpwl(f, bx, S=S, padding=padding)
    return _run(f, compiled, tie, witness, _dc_as_maxout(compiled), "R8",
                {"g_pieces": [[list(w), b] for w, b in f.g_pieces], "h_pieces": [[list(w), b] for w, b in f.h_pieces]})


def check_breakpoint_emulation(x0, x_end, breakpoints, slopes, value0=0, S=None, padding: str = "repeat",
                               tie: str = "both", witness=None) -> Result:
    """1-D breakpoint form on [x0, x_end], compiled through its DC split."""
    f = CPWL1D(x0, x_end, breakpoints, slopes, value0)
    compiled = compile_cpwl(f, S=S, padding=padding)
    return _run(f, compiled, tie, witness, _breakpoint_as_maxout(f), None,
                {"breakpoint_form": {"x0": f.x0, "x_end": f.x_end, "breakpoints": list(f.breakpoints),
                                     "slopes": list(f.slopes), "value0": f.value0}})


def random_cpwl_1d(rng: random.Random, m_breaks: int) -> CPWL1D:
    """Random CPWL on [-2, 2] with ``m_breaks`` distinct rational breakpoints and rational slopes in [-2, 2]."""
    pts = set()
    while len(pts) < m_breaks:
        pts.add(Fraction(rng.randint(-23, 23), 12))
    slopes = [Fraction(rng.randint(-8, 8), 4) for _ in range(m_breaks + 1)]
    return CPWL1D(-2, 2, sorted(pts), slopes, Fraction(rng.randint(-4, 4), 2))


def check_random_cpwl_emulation(index: int = 0, seed: int = 20260309, min_breaks: int = 2, max_breaks: int = 8,
                                tie: str = "both") -> Result:
    """Function ``index`` of the seeded random 1-D CPWL family (min_breaks + index mod (max - min + 1)
    breakpoints), compiled and proved equal on its interval: its own Result, naming this one function by its
    network weights (the audits list the instances one by one; no universal claim from samples)."""
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 199:
        raise InputError("index", f"must be an integer in [0, 199], got {index!r}")
    if not isinstance(min_breaks, int) or not isinstance(max_breaks, int) or not 1 <= min_breaks <= max_breaks <= 40:
        raise InputError("max_breaks", "need integers 1 <= min_breaks <= max_breaks <= 40")
    rng = random.Random(seed)
    for c in range(index + 1):
        f = random_cpwl_1d(rng, min_breaks + c % (max_breaks - min_breaks + 1))
    compiled = compile_cpwl(f)
    r = _run(f, compiled, tie, None, _breakpoint_as_maxout(f), None,
             {"family": {"index": index, "seed": seed, "min_breaks": min_breaks, "max_breaks": max_breaks},
              "breakpoint_form": {"x0": f.x0, "x_end": f.x_end, "breakpoints": list(f.breakpoints),
                                  "slopes": list(f.slopes), "value0": f.value0}})
    return Result(r.claim, r.statement, r.verdict, r.method, certificate=r.certificate, parameters=r.parameters,
                  conventions=r.conventions, seeds={"functions": seed}, evidence=r.evidence)
