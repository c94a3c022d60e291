"""T1: a hardmax head whose value equals its score writes max_l z_l into every token (docs/paper1.md R1, O1).

Head (size 1) on tokens with coordinates ``(z, one, out)``: W_Q = e_one^T, W_K = W_V = e_z^T, W_O = e_out, so
score_lj = z_l for every query j.  Claim: Attn(X) has out_j = max_l z_l at every token j and all other
coordinates unchanged, for n = n_min..n_max (at most 8) and every z in Q^n, under both tie rules.

**Symbolic proof for each n <= 8 (exact case analysis).**  The token values are the symbols z_1..z_n, carried
through the *actual* Transformer evaluation as exact linear forms.  Every decision the evaluation makes is a
comparison z_a vs z_b; a decision already implied by the earlier ones (transitivity) is answered, and an
undecided one **branches** into z_a > z_b, z_a = z_b, z_a < z_b.  The leaves of this decision tree partition
Q^n (each leaf is one ordering / tie pattern, realised by an exact witness); at every leaf the output is an
exact linear form in z, which must equal z_t for a maximiser t of the leaf (modulo the leaf's equalities).
So the identity holds on all of Q^n for that n.  The tree is the certificate (kind ``hardmax-max-tree``): the
kernel (:mod:`verify.kernel.casesplit`) re-evaluates the head under every leaf's facts.  The O1 grid (169 pairs)
and random rational z (half with a repeated maximum) are evaluated exactly as evidence.

>>> r = check_hardmax_max(n_max=3, grid_step=2, random_cases=4)
>>> r.verdict.value, len(r.certificate["trees"][2])           # n = 3: 9 leaves, 4 comparisons
('proved', 13)
>>> r.statement.split(", under")[0][-31:]
'for n = 1..3 and every z in Q^n'

>>> check_tie_rule_independence(scores=[1, 1], values=[0, 2]).verdict.value
'refuted'
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact
from ..decide.casesplit import MAX_NODES, MPQ_TOKENS, LinearForm, UnsupportedDecision, explore_decisions, \
    parse_ties, shared_memo, tree_from_leaves
from ..errors import InputError
from ..objects.transformer import TIE_RULES, Attention, Head, Transformer
from ..kernel import casesplit as K
from ..results import Method, Result, Verdict

__all__ = ["check_hardmax_max", "check_tie_rule_independence", "max_head_transformer", "MAX_SYMBOLIC_N"]

MAX_SYMBOLIC_N = 8


def max_head_transformer() -> Transformer:
    """The O1 head on coordinates (z, one, out)."""
    return Transformer([Attention([Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])],
                       coordinate_names=["z", "one", "out"])


def _symbolic_case(n: int, tie: str, T: Transformer) -> dict:
    one, zero = LinearForm(None, 1), LinearForm()     # one object per constant row: shared work across tokens
    X = (tuple(LinearForm.var(a) for a in range(n)), (one,) * n, (zero,) * n)

    def run(ops):
        return T.evaluate(X, tie=tie, ops=ops)

    with shared_memo():       # the leaf checks below reuse the exploration's keys of shared forms
        return _explore_and_check(n, tie, T, X, run)


def _explore_and_check(n, tie, T, X, run) -> dict:
    try:
        leaves, nodes = explore_decisions(n, run)
    except UnsupportedDecision as exc:
        return {"ok": None, "reason": str(exc)}
    if leaves is None:
        return {"ok": None, "reason": f"more than {MAX_NODES} decision nodes"}
    for ops, Y in leaves:
        top = ops.top()
        checked = set()           # ids of output forms already found equal to z_top (Y keeps them alive)
        for j in range(n):
            if id(Y[2][j]) not in checked:
                if not ops.same(Y[2][j], top):
                    return {"ok": False, "witness": ops.witness()}
                checked.add(id(Y[2][j]))
            for e in (0, 1):
                if Y[e][j] is not X[e][j] and Y[e][j].key() != X[e][j].key():
                    return {"ok": False, "witness": ops.witness()}
        # concrete cross-check at the leaf's witness with exact numbers
        z = ops.witness()
        if not _check_point(T, z, tie)[0]:
            return {"ok": False, "witness": z}
    return {"ok": True, "leaves": len(leaves), "nodes": nodes, "tree": tree_from_leaves([o.facts for o in
                                                                                          (l[0] for l in leaves)])}


_ONE, _ZERO = MPQ_TOKENS.convert(1), MPQ_TOKENS.convert(0)


def _check_point(T, z, tie):
    """Does T write max z at every token (z and the constant rows unchanged)?  An exact evaluation in
    gmpy2 ``mpq`` (the same values as in Fractions)."""
    n = len(z)
    X = (tuple(MPQ_TOKENS.convert(v) for v in z), (_ONE,) * n, (_ZERO,) * n)
    Y = T.evaluate(X, tie=tie, ops=MPQ_TOKENS)
    m = max(X[0])
    return Y[0] == X[0] and Y[1] == X[1] and all(v == m for v in Y[2]), Y


def _single_head(T):
    """(W_Q, W_K, W_V, W_O) if T is one attention sublayer with one head on 3 coordinates, else None."""
    if len(T.sublayers) != 1 or not isinstance(T.sublayers[0], Attention) or len(T.sublayers[0].heads) != 1:
        return None
    h = T.sublayers[0].heads[0]
    return (h.W_Q, h.W_K, h.W_V, h.W_O) if h.embedding_dim == 3 else None


def _counterexample(T, params, z, tie, why) -> Result:
    """REFUTED with an exact witness for the head T (named by its weights in the statement), or
    INCONCLUSIVE when T is not a single head (the kernel's witness kind names one head)."""
    head = _single_head(T)
    if head is None:
        return Result("T1", K.statement("hardmax-max-tree", jsonable(params), {}), Verdict.INCONCLUSIVE,
                      Method.EXACT, parameters=params, evidence={"witness": list(z), "tie": tie},
                      certificate={"summary": f"{why}; not a single head, so no kernel witness kind"})
    p = dict(params, head=dict(zip(("W_Q", "W_K", "W_V", "W_O"), head)))
    return Result("T1", K.statement("hardmax-max-witness", jsonable(p), {}), Verdict.REFUTED, Method.EXACT,
                  parameters=p, certificate={"kind": "hardmax-max-witness", "z": list(z), "tie": tie,
                                             "summary": f"{why} at z = {[fraction_str(v) for v in z]}, {tie}"})


def check_hardmax_max(n_max: int = 8, ties=TIE_RULES, grid_step: int = 1, random_cases: int = 60,
                      seed: int = 20260301, n_min: int = 1, transformer: Transformer | None = None) -> Result:
    """PROVED (for n = n_min..n_max, every z in Q^n, each tie rule) if the decision-tree case analysis of the
    actual head proves the identity; the certificate is that tree (kind ``hardmax-max-tree``), re-checked by
    the kernel.  The O1 grid and random rational z are evaluated exactly as evidence (a failure there is a
    REFUTED witness).  ``grid_step`` thins the O1 grid {k/3 : |k| <= 6} (1 = all 169 pairs).
    ``transformer``: the Transformer under check, on coordinates (z, one, out) (default: the O1 head,
    :func:`max_head_transformer`); only the O1 head can be PROVED, another one is REFUTED or INCONCLUSIVE."""
    if not isinstance(n_max, int) or isinstance(n_max, bool) or not 1 <= n_max <= MAX_SYMBOLIC_N:
        raise InputError("n_max", f"must be an integer in [1, {MAX_SYMBOLIC_N}], got {n_max!r}")
    if not isinstance(n_min, int) or isinstance(n_min, bool) or not 1 <= n_min <= n_max:
        raise InputError("n_min", f"must be an integer in [1, n_max = {n_max}], got {n_min!r}")
    ties = parse_ties(ties)
    if not isinstance(grid_step, int) or not 1 <= grid_step <= 13:
        raise InputError("grid_step", f"must be an integer in [1, 13], got {grid_step!r}")
    if not isinstance(random_cases, int) or not 0 <= random_cases <= 10_000:
        raise InputError("random_cases", f"must be an integer in [0, 10000], got {random_cases!r}")
    T = max_head_transformer() if transformer is None else transformer
    params = {"n_min": n_min, "n_max": n_max, "ties": list(ties)}
    statement = K.statement("hardmax-max-tree", jsonable(params), {})
    trees, leaves = [], 0
    for n in range(n_min, n_max + 1):
        for tie in ties:
            res = _symbolic_case(n, tie, T)
            if res["ok"] is None:
                return Result("T1", statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params,
                              certificate={"summary": f"n = {n}, {tie}: {res['reason']}"})
            if not res["ok"]:
                return _counterexample(T, params, res["witness"], tie, f"n = {n}: the head does not compute max")
        trees.append(res["tree"])
        leaves += res["leaves"]
    # O1 grid and random rational z: exact evaluations, evidence (a failure is a witness)
    vals = [Fraction(k, 3) for k in range(-6, 7, grid_step)]
    rng = random.Random(seed)
    cases = [(a, b) for a in vals for b in vals]
    for c in range(random_cases):
        n = 3 + c % 6
        z = [Fraction(rng.randint(-20, 20), rng.randint(1, 6)) for _ in range(n)]
        if c % 2 == 0:
            m = max(z)
            for idx in rng.sample(range(n), rng.randint(2, n)):
                z[idx] = m
        cases.append(tuple(z))
    repeated = sum(1 for z in cases[len(vals) ** 2:] if z.count(max(z)) > 1)
    for z in cases:
        for tie in ties:
            if not _check_point(T, z, tie)[0]:
                return _counterexample(T, params, z, tie, "the head does not compute max")
    if _single_head(T) != tuple(tuple(tuple(Fraction(x) for x in r) for r in W) for W in K.o1_head()):
        return Result("T1", statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params,
                      certificate={"summary": "the case analysis passed, but the kernel's tree kind proves the O1 "
                                              "head only"})
    return Result(
        "T1", statement, Verdict.PROVED, Method.EXACT, parameters=params, seeds={"random": seed},
        evidence={"grid_evaluations": len(vals) ** 2 * len(ties), "random_cases": random_cases,
                  "random_with_repeated_maximum": repeated},
        certificate={"kind": "hardmax-max-tree", "trees": trees,
                     "summary": f"decision tree over every ordering/tie pattern for n = {n_min}..{n_max} "
                                f"({leaves} leaves per tie rule), exact linear forms at every leaf"})


_KV_HEAD = Transformer([Attention([Head([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[0, 1, 0, 0]], [[0], [0], [0], [1]])])],
                       coordinate_names=["key", "value", "one", "out"])


def check_tie_rule_independence(scores=(1, 1), values=(0, 2)) -> Result:
    """T1.n: a head with value != score.  For the given keys (scores) and values: PROVED if average and first
    give the same output at every token (kind ``tie-rule-agree``), REFUTED otherwise (``tie-rule-differ``):
    the statement is about this instance; the kernel re-evaluates both rules exactly."""
    if not isinstance(scores, (list, tuple)) or not isinstance(values, (list, tuple)) or len(scores) != len(values) \
            or not 1 <= len(scores) <= 64:
        raise InputError("scores", "scores and values must be lists of the same length in [1, 64]")
    s = tuple(parse_exact(v, f"scores[{i}]") for i, v in enumerate(scores))
    v = tuple(parse_exact(x, f"values[{i}]") for i, x in enumerate(values))
    n = len(s)
    X = (s, v, tuple(Fraction(1) for _ in range(n)), tuple(Fraction(0) for _ in range(n)))
    outs = {tie: _KV_HEAD.evaluate(X, tie=tie)[3] for tie in TIE_RULES}
    params = {"scores": list(s), "values": list(v)}
    agree = outs["average"] == outs["first"]
    kind = "tie-rule-agree" if agree else "tie-rule-differ"
    summary = ("average and first agree" if agree else f"average gives {fraction_str(outs['average'][0])}, first "
               f"gives {fraction_str(outs['first'][0])} at token 1")
    return Result("T1.n", K.statement(kind, jsonable(params), {}), Verdict.PROVED if agree else Verdict.REFUTED,
                  Method.EXACT, parameters=params, evidence={"outputs": outs, "summary": summary},
                  certificate={"kind": kind})      # everything is in the parameters: the kernel recomputes it
