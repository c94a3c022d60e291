"""T5: score-shift group isolation (docs/paper1.md R4', O7).

Tokens in N groups, values |z_l| <= C, score_lj = M [g_l = g_j] + z_l (the head of
:class:`~verify.constructions.group_shift.GroupShiftHead`).  Claim: if M > 2C, hardmax at every token of group i
returns max_{l in group i} z_l under both tie rules.

How the check decides:

* **Lemma (exact).** For l in group(j) and l' outside, score_lj - score_l'j = M + z_l - z_l' >= M - 2C > 0, so the
  argmax set lies inside the query's group; there the value is score - M, so the head reduces to T1.
* **Certificate (exact, the claimed shape).** One case-split tree per group, the argmax scan over the group's
  tokens (3^(k-1) leaves); the kernel (:mod:`verify.kernel.casesplit`) evaluates the actual head on symbolic z at
  every leaf, each in-group versus out-group comparison decided by the box bound M - 2C > 0, each in-group one by
  the leaf's facts.  This proves the statement for every z in [-C, C]^n for the given group assignment.
* **Exact instances.** 300 random rational z in [-C, C]^n (O7: N = 3, k = 4), half with repeated group maxima:
  evidence (a mismatch is REFUTED with the exact witness).  With given value vectors the statement is about
  those vectors only.

>>> check_group_isolation(M="61/10", C=3, N=3, k=4, cases=20).verdict.value
'proved'
>>> check_group_isolation(M=2, C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]], ties=["first"]).verdict.value
'refuted'
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..canonical import jsonable
from ..constructions.group_shift import GroupShiftHead
from ..decide.casesplit import MPQ_TOKENS, parse_ties, scan_tree
from ..arith.exact import fraction_str, parse_exact, parse_positive, plain
from ..errors import InputError
from ..kernel import casesplit as K
from ..objects.transformer import TIE_RULES
from ..results import Method, Result, Verdict, kernel_checked as _self_checked

__all__ = ["check_group_isolation"]

MAX_CASES = 5000


def _evaluate(gs, z, tie) -> tuple:
    """``gs(z, tie=tie)``: the same exact evaluation of the head, in gmpy2 ``mpq`` (the case-split engine's point
    context, as at T1's leaves), read back as Fractions."""
    X = tuple(tuple(MPQ_TOKENS.convert(v) for v in row) for row in gs.embed(z))
    out = gs.read(gs.transformer.evaluate(X, attention="hardmax", tie=tie, ops=MPQ_TOKENS))
    return tuple(Fraction(int(v.numerator), int(v.denominator)) for v in out)


def check_group_isolation(M, C, N: int = 3, k: int = 4, groups=None, values=None, cases: int = 300,
                          seed: int = 20260305, ties=TIE_RULES) -> Result:
    """With ``values``: the statement is about those value vectors; PROVED (``group-isolation-instances``) or
    REFUTED with the failing vector (``group-isolation-witness``), by exact evaluation.  Without: the statement
    is "for every z in [-C, C]^n" for this group assignment; ``cases`` random rational z are evaluated exactly
    (a failure is a REFUTED witness, otherwise evidence) and, if M > 2C, PROVED by one scan tree per group
    (``group-isolation-tree``: the kernel evaluates the head under every leaf's facts and the box, where
    in-group scores exceed out-group ones by M - 2C > 0).  M <= 2C without a failure: INCONCLUSIVE."""
    M = parse_positive(M, "M")
    C = parse_positive(C, "C")
    ties = parse_ties(ties)
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
        values = plain(values)
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
    statement = K.statement("group-isolation-tree", jsonable(params), {})
    evidence = {"cases_checked": len(vecs), "M_minus_2C": M - 2 * C}
    for z in vecs:
        want = gs.expected(z)
        for tie in ties:
            got = _evaluate(gs, z, tie)
            if got != want:
                j = next(i for i in range(n) if got[i] != want[i])
                return _self_checked(Result(
                    "T5", statement, Verdict.REFUTED, Method.EXACT, parameters=params, seeds=seeds, evidence=evidence,
                    certificate={"kind": "group-isolation-witness", "z": list(z), "tie": tie,
                                 "summary": f"{tie}: token {j + 1} (group {groups[j] + 1}) gets "
                                            f"{fraction_str(got[j])} instead of {fraction_str(want[j])} at "
                                            f"M = {fraction_str(M)}, C = {fraction_str(C)}"}))
    if values is not None:
        return _self_checked(Result(
            "T5", statement, Verdict.PROVED, Method.EXACT, parameters=params,
            evidence=dict(evidence, summary=f"{len(vecs)} value vectors x {len(ties)} tie rules give the group maxima"),
            certificate={"kind": "group-isolation-instances"}))
    margin = M - 2 * C
    if margin <= 0:
        return Result("T5", statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params, seeds=seeds,
                      evidence=evidence,
                      certificate={"summary": f"hypothesis M > 2C fails (M - 2C = {fraction_str(margin)}); "
                                              f"no counterexample among {len(vecs)} cases"})
    trees = [scan_tree([l for l in range(n) if groups[l] == g]) for g in range(gs.n_groups)]
    return _self_checked(Result(
        "T5", statement, Verdict.PROVED, Method.EXACT, parameters=params, seeds=seeds, evidence=evidence,
        certificate={"kind": "group-isolation-tree", "trees": trees,
                     "summary": f"M - 2C = {fraction_str(margin)} > 0: in-group scores exceed out-group ones on "
                                f"[-C, C]^{n}; one scan tree per group ({sum(len(t) for t in trees)} nodes); "
                                f"{len(vecs)} exact random cases agree (evidence)"}))
