"""T5: score-shift group isolation (spec maxout R4', O7).

Tokens in N groups, values |z_l| <= C, score_lj = M [g_l = g_j] + z_l (the head of
:class:`~verify.constructions.group_shift.GroupShiftHead`).  Claim: if M > 2C, hardmax at every token of group i
returns max_{l in group i} z_l under both tie rules.

How the check decides:

* **Lemma (exact).** For l in group(j) and l' outside, score_lj - score_l'j = M + z_l - z_l' >= M - 2C > 0, so the
  argmax set lies inside the query's group; there the value is score - M, so the head reduces to T1.
* **Machine proof on a small shape.** The actual head is evaluated on symbolic z in [-C, C]^n (exact linear forms):
  a decision is answered by exact interval bounds over the box when they exclude 0, by branching when it is a
  comparison z_a vs z_b, and otherwise the proof stops (INCONCLUSIVE).  This proves the small shapes for
  all z in the box (group shapes 2+2, 2+2+2 and 1+3).
* **Exact instances.** 300 random rational z in [-C, C]^n (O7: N = 3, k = 4), half with repeated group maxima, or
  the given value vectors; any mismatch is REFUTED with the exact witness.

>>> check_group_isolation(M="61/10", C=3, N=3, k=4, cases=20).verdict.value
'proved'
>>> check_group_isolation(M=2, C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]], ties=["first"]).verdict.value
'refuted'
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..constructions.group_shift import GroupShiftHead
from ..engines.exact import fraction_str, parse_exact, parse_positive
from ..errors import InputError
from ..objects.ops import TIE_RULES
from ..results import Method, Result, Verdict
from .t1_hardmax_max import DecisionTree, LinearForm, Undecided, UnsupportedDecision

__all__ = ["check_group_isolation"]

STATEMENT = ("with |z_l| <= C and score M[g_l = i] + z_l, hardmax at every token of group i returns "
             "max_{l in group i} z_l under the tie rules average and first")
MAX_CASES = 5000
SYMBOLIC_SHAPES = ((0, 0, 1, 1), (0, 0, 1, 1, 2, 2), (0, 1, 1, 1))


class _BoxDecisions(DecisionTree):
    """Decisions on linear forms over the box [-C, C]^n: interval bounds first, then pairwise branching."""

    def __init__(self, n, facts=(), C=Fraction(1)):
        super().__init__(n, facts)
        self.C = C

    def sign(self, form):
        if isinstance(form, LinearForm) and form.coef:
            f = form.substitute({a: self.find(a) for a in form.coef})
            spread = sum(abs(Fraction(int(v.numerator), int(v.denominator))) for v in f.coef.values()) * self.C
            c0 = Fraction(int(f.const.numerator), int(f.const.denominator))
            if c0 - spread > 0:
                return 1
            if c0 + spread < 0:
                return -1
        return super().sign(form)


def _ge(ops, a, b) -> bool:
    try:
        return ops.compare(a, b) >= 0
    except Undecided:
        return False


def _symbolic_shape(M, C, groups, tie):
    gs = GroupShiftHead(M, C, groups)
    n = len(groups)
    T = gs.transformer
    X0 = gs.embed([LinearForm.var(a) for a in range(n)])

    def run(ops):
        return T.evaluate(X0, tie=tie, ops=ops)

    class Box(_BoxDecisions):
        def __init__(self, n_, facts=()):
            super().__init__(n_, facts, C)

    stack, leaves, nodes = [()], 0, 0
    while stack:
        facts = stack.pop()
        nodes += 1
        if nodes > 20000:
            return None, "too many decision nodes"
        ops = Box(n, facts)
        try:
            Y = run(ops)
        except Undecided as u:
            stack.extend(facts + ((u.a, u.b, s),) for s in (-1, 0, 1))
            continue
        except UnsupportedDecision as exc:
            return None, f"undecided comparison ({exc}); the interval lemma needs M > 2C"
        leaves += 1
        rep = {a: ops.find(a) for a in range(n)}
        for j in range(n):
            members = [l for l in range(n) if groups[l] == groups[j]]
            # the maximiser of the group: a member not below any other member
            top = next(l for l in members if all(_ge(ops, l, m) for m in members))
            if Y[-1][j].substitute(rep).key() != LinearForm.var(top).substitute(rep).key():
                return False, {"token": j, "output": str(Y[-1][j]), "facts": ops.facts}
    return True, {"leaves": leaves, "nodes": nodes}


def check_group_isolation(M, C, N: int = 3, k: int = 4, groups=None, values=None, cases: int = 300,
                          seed: int = 20260305, ties=TIE_RULES) -> Result:
    """PROVED iff M > 2C (exact lemma), the small-shape machine proof succeeds and every case agrees exactly;
    REFUTED with a witness if a case disagrees; INCONCLUSIVE if M <= 2C but no case disagrees."""
    M = parse_positive(M, "M")
    C = parse_positive(C, "C")
    ties = tuple(ties)
    for t in ties:
        if t not in TIE_RULES:
            raise InputError("ties", f"each must be one of {', '.join(TIE_RULES)}, got {t!r}")
    if groups is None:
        for name, v in (("N", N), ("k", k)):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 16:
                raise InputError(name, f"must be an integer in [1, 16], got {v!r}")
        groups = [l // k for l in range(N * k)]
    gs = GroupShiftHead(M, C, groups)           # validates groups
    n = gs.n_tokens
    if not isinstance(cases, int) or isinstance(cases, bool) or not 0 <= cases <= MAX_CASES:
        raise InputError("cases", f"must be an integer in [0, {MAX_CASES}], got {cases!r}")
    params = {"M": M, "C": C, "groups": list(groups), "ties": list(ties)}
    seeds = {}
    if values is not None:
        if not isinstance(values, (list, tuple)) or not values or len(values) > MAX_CASES:
            raise InputError("values", f"expected a non-empty list of at most {MAX_CASES} value vectors")
        vecs = []
        for i, z in enumerate(values):
            if not isinstance(z, (list, tuple)) or len(z) != n:
                raise InputError(f"values[{i}]", f"expected {n} values (one per token)")
            zz = tuple(parse_exact(v, f"values[{i}][{l}]") for l, v in enumerate(z))
            for l, v in enumerate(zz):
                if abs(v) > C:
                    raise InputError(f"values[{i}][{l}]", f"|z| must be <= C = {fraction_str(C)}, got {fraction_str(v)}")
            vecs.append(zz)
        params["values"] = [list(v) for v in vecs]
    else:
        rng = random.Random(seed)
        seeds["random"] = seed
        params["cases"] = cases
        vecs = []
        for c in range(cases):
            z = [C * Fraction(rng.randint(-12, 12), 12) for _ in range(n)]
            if c % 2 == 0:                                # repeated maxima inside groups
                for g in range(gs.n_groups):
                    members = [l for l in range(n) if groups[l] == g]
                    m = max(z[l] for l in members)
                    for l in rng.sample(members, min(2, len(members))):
                        z[l] = m
            vecs.append(tuple(z))
    for z in vecs:
        want = gs.expected(z)
        for tie in ties:
            got = gs(z, tie=tie)
            if got != want:
                j = next(i for i in range(n) if got[i] != want[i])
                return Result("T5", STATEMENT, Verdict.REFUTED, Method.EXACT, parameters=params, seeds=seeds,
                              conventions={"tie_rule": tie},
                              certificate={"summary": f"{tie}: token {j + 1} (group {groups[j] + 1}) gets "
                                                      f"{fraction_str(got[j])} instead of {fraction_str(want[j])} "
                                                      f"at M = {fraction_str(M)}, C = {fraction_str(C)}",
                                           "witness": {"z": list(z), "tie": tie, "token": j, "output": got[j],
                                                       "group_max": want[j]}})
    margin = M - 2 * C
    if margin <= 0:
        return Result("T5", STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params, seeds=seeds,
                      certificate={"summary": f"hypothesis M > 2C fails (M - 2C = {fraction_str(margin)}); "
                                              f"no counterexample among {len(vecs)} cases"})
    shape = {}
    for shp in SYMBOLIC_SHAPES:
        key = "groups " + "".join(str(g) for g in shp)
        shape[key] = {}
        for tie in ties:
            ok, info = _symbolic_shape(M, C, list(shp), tie)
            if ok is not True:
                verdict = Verdict.REFUTED if ok is False else Verdict.INCONCLUSIVE
                return Result("T5", STATEMENT, verdict, Method.EXACT, parameters=params, seeds=seeds,
                              certificate={"summary": f"symbolic shape {key} ({tie}): {info}"})
            shape[key][tie] = info
    return Result(
        "T5", STATEMENT, Verdict.PROVED, Method.EXACT, parameters=params, seeds=seeds,
        conventions={"tie_rules": list(ties), "head": "query (M g_j, 1), key (g_l, z_l), value z_l"},
        certificate={"summary": f"M - 2C = {fraction_str(margin)} > 0 separates in-group scores [M-C, M+C] from "
                                f"the rest [-C, C]; symbolic proof on all of [-C, C]^n for the group shapes 2+2, 2+2+2, 1+3; "
                                f"{len(vecs)} exact cases x {len(ties)} tie rules agree",
                     "lemma": {"M_minus_2C": margin, "in_group_score_min": M - C, "out_group_score_max": C},
                     "symbolic_shapes": shape, "cases_checked": len(vecs)})
