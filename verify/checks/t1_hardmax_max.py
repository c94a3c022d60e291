"""T1: a hardmax head whose value equals its score writes max_l z_l into every token (spec maxout R1, O1).

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

from gmpy2 import mpq

from ..canonical import jsonable
from ..arith.exact import fraction_str, parse_exact
from ..errors import InputError
from ..arith.context import Context
from ..objects.transformer import TIE_RULES, Attention, Head, Transformer
from ..kernel import casesplit as K
from ..results import Method, Result, Verdict

__all__ = ["check_hardmax_max", "check_tie_rule_independence", "max_head_transformer", "LinearForm",
           "DecisionTree", "explore_decisions", "MAX_SYMBOLIC_N"]

MAX_SYMBOLIC_N = 8
MAX_NODES = 200_000
_MPQ = type(mpq(0))


def max_head_transformer() -> Transformer:
    """The O1 head on coordinates (z, one, out)."""
    return Transformer([Attention([Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])],
                       coordinate_names=["z", "one", "out"])


# ---------------------------------------------------------------------------------------------
# exact linear forms in symbols z_0..z_{n-1} and a branching decision procedure

def _q(v):
    """Exact number as gmpy2 mpq (fast exact rationals)."""
    if isinstance(v, _MPQ):
        return v
    if isinstance(v, Fraction):
        return mpq(v.numerator, v.denominator)
    return mpq(v)


class LinearForm:
    """sum_a c_a z_a + c0 with exact rational (mpq) coefficients (+, -, constant multiples; a product only
    with a constant)."""

    __slots__ = ("coef", "const")

    def __init__(self, coef=None, const=0):
        self.coef = {a: _q(c) for a, c in (coef or {}).items() if c != 0}
        self.const = _q(const)

    @classmethod
    def _raw(cls, coef, const):
        f = cls.__new__(cls)
        f.coef = coef
        f.const = const
        return f

    @classmethod
    def var(cls, a):
        return cls({a: 1})

    @staticmethod
    def _lift(o):
        return o if isinstance(o, LinearForm) else LinearForm._raw({}, _q(o))

    def __add__(self, o):
        o = self._lift(o)
        c = dict(self.coef)
        for a, v in o.coef.items():
            w = c.get(a, 0) + v
            if w:
                c[a] = w
            else:
                c.pop(a, None)
        return LinearForm._raw(c, self.const + o.const)

    __radd__ = __add__

    def __neg__(self):
        return LinearForm._raw({a: -v for a, v in self.coef.items()}, -self.const)

    def __sub__(self, o):
        o = self._lift(o)
        c = dict(self.coef)
        for a, v in o.coef.items():
            w = c.get(a, 0) - v
            if w:
                c[a] = w
            else:
                c.pop(a, None)
        return LinearForm._raw(c, self.const - o.const)

    def __rsub__(self, o):
        return self._lift(o) - self

    def __mul__(self, o):
        if isinstance(o, LinearForm):
            if not o.coef:
                o = o.const
            elif not self.coef:
                return o * self.const
            else:
                raise TypeError("LinearForm: product of two non-constant forms")
        o = _q(o)
        if not o:
            return LinearForm._raw({}, mpq(0))
        return LinearForm._raw({a: v * o for a, v in self.coef.items()}, self.const * o)

    __rmul__ = __mul__

    def substitute(self, rep: dict) -> "LinearForm":
        c = {}
        for a, v in self.coef.items():
            b = rep.get(a, a)
            c[b] = c.get(b, 0) + v
        return LinearForm(c, self.const)

    def key(self):
        return (tuple(sorted((a, Fraction(int(v.numerator), int(v.denominator))) for a, v in self.coef.items()
                             if v != 0)), Fraction(int(self.const.numerator), int(self.const.denominator)))

    def __str__(self):
        terms = [f"{v}*z{a + 1}" for a, v in sorted(self.coef.items())]
        if self.const or not terms:
            terms.append(str(self.const))
        return " + ".join(terms)


class Undecided(Exception):
    def __init__(self, a, b):
        super().__init__(f"z{a + 1} vs z{b + 1}")
        self.a, self.b = a, b


class UnsupportedDecision(Exception):
    """A decision that is not a comparison of two symbols (outside what the case analysis covers)."""


class DecisionTree(Context):
    """An arithmetic context whose signs are decided from a set of pairwise facts z_a {>, =} z_b (with transitivity);
    an undecided comparison raises :class:`Undecided` so the driver can branch."""

    def __init__(self, n, facts=()):
        self.n = n
        self.facts = list(facts)           # (a, b, s): sign(z_a - z_b) = s
        self.parent = list(range(n))
        self.greater = set()                # (class a, class b): z_a > z_b
        self._memo = {}
        for a, b, s in self.facts:
            self._add(a, b, s)
        self.decisions = []

    def find(self, a):
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def _add(self, a, b, s):
        if s < 0:
            a, b, s = b, a, 1
        ra, rb = self.find(a), self.find(b)
        if s == 0:
            self.parent[rb] = ra
            self.greater = {(self.find(x), self.find(y)) for x, y in self.greater}
        else:
            self.greater.add((ra, rb))

    def _reaches(self, a, b) -> bool:
        """Is z_a > z_b implied (a strict path from class a down to class b)?"""
        start, goal = self.find(a), self.find(b)
        seen, todo = set(), [start]
        while todo:
            u = todo.pop()
            for x, y in self.greater:
                if x == u and y not in seen:
                    if y == goal:
                        return True
                    seen.add(y)
                    todo.append(y)
        return False

    def compare(self, a, b) -> int:
        key = (a, b)
        if key in self._memo:
            return self._memo[key]
        s = self._compare(a, b)
        self._memo[key] = s
        return s

    def _compare(self, a, b) -> int:
        if self.find(a) == self.find(b):
            return 0
        if self._reaches(a, b):
            return 1
        if self._reaches(b, a):
            return -1
        raise Undecided(a, b)

    def sign(self, form) -> int:
        if not isinstance(form, LinearForm):
            return (form > 0) - (form < 0)
        coef = {}
        for a, v in form.coef.items():
            r = self.find(a)
            coef[r] = coef.get(r, 0) + v
        items = [(a, v) for a, v in coef.items() if v]
        c0 = form.const
        if not items:
            return (c0 > 0) - (c0 < 0)
        if not c0 and len(items) == 2:
            (a, ca), (b, cb) = sorted(items)
            if ca == -cb:
                s = self.compare(a, b)
                self.decisions.append((a, b, s))
                return s if ca > 0 else -s
        raise UnsupportedDecision(f"sign of {form} is not a comparison of two token values")

    def mul(self, a, b):
        try:
            return a * b
        except TypeError:
            raise UnsupportedDecision("product of two token-dependent values (not piecewise linear)") from None

    def classes(self) -> list:
        """Equality classes in a topological order, largest first (a witness ordering)."""
        reps = sorted({self.find(a) for a in range(self.n)})
        order, placed = [], set()
        while len(order) < len(reps):
            for r in reps:
                if r in placed:
                    continue
                if not any(x not in placed and y == r for x, y in self.greater if x in reps):
                    order.append(r)
                    placed.add(r)
                    break
            else:  # pragma: no cover - facts are always acyclic
                raise AssertionError("cyclic facts")
        return [[a for a in range(self.n) if self.find(a) == r] for r in order]

    def witness(self) -> list:
        """An exact point z realising the facts (the top class gets n, the next n - 1, ...)."""
        z = [Fraction(0)] * self.n
        for level, cls in enumerate(self.classes()):
            for a in cls:
                z[a] = Fraction(self.n - level)
        return z


def explore_decisions(n: int, run, max_nodes: int = MAX_NODES):
    """Depth-first over every consistent outcome of the pairwise decisions ``run(ops)`` makes.
    Returns (leaves, nodes): each leaf is (DecisionTree, output of run)."""
    stack, leaves, nodes = [()], [], 0
    while stack:
        facts = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            return None, nodes
        ops = DecisionTree(n, facts)
        try:
            out = run(ops)
        except Undecided as u:
            for s in (-1, 0, 1):
                stack.append(facts + ((u.a, u.b, s),))
            continue
        leaves.append((ops, out))
    return leaves, nodes


def tree_from_leaves(leaves) -> list:
    """The case-split tree (flat preorder, the kernel's format) whose leaves are these fact sequences
    ((a, b, s): sign(z_a - z_b) = s, a < b) of :func:`explore_decisions`."""
    def build(group, depth):
        if len(group) == 1 and len(group[0]) == depth:
            return [[]]
        a, b, _ = group[0][depth]
        if any(len(f) <= depth or f[depth][:2] != (a, b) for f in group):  # pragma: no cover - DFS invariant
            raise AssertionError("leaves do not form a tree")
        out = [[a, b]]
        for sgn in (-1, 0, 1):
            out += build([f for f in group if f[depth][2] == sgn], depth + 1)
        return out
    return build([tuple(f) for f in leaves], 0)


def _symbolic_case(n: int, tie: str, T: Transformer) -> dict:
    X = (tuple(LinearForm.var(a) for a in range(n)), tuple(LinearForm(None, 1) for _ in range(n)),
         tuple(LinearForm() for _ in range(n)))

    def run(ops):
        return T.evaluate(X, tie=tie, ops=ops)

    try:
        leaves, nodes = explore_decisions(n, run)
    except UnsupportedDecision as exc:
        return {"ok": None, "reason": str(exc)}
    if leaves is None:
        return {"ok": None, "reason": f"more than {MAX_NODES} decision nodes"}
    for ops, Y in leaves:
        top = ops.classes()[0][0]
        rep = {a: ops.find(a) for a in range(n)}
        target = LinearForm.var(top).substitute(rep).key()
        for j in range(n):
            if Y[2][j].substitute(rep).key() != target or Y[0][j].key() != X[0][j].key() \
                    or Y[1][j].key() != X[1][j].key():
                return {"ok": False, "witness": ops.witness()}
        # concrete cross-check at the leaf's witness with exact numbers
        z = ops.witness()
        if not _check_point(T, z, tie)[0]:
            return {"ok": False, "witness": z}
    return {"ok": True, "leaves": len(leaves), "nodes": nodes, "tree": tree_from_leaves([o.facts for o in
                                                                                          (l[0] for l in leaves)])}


def _check_point(T, z, tie):
    n = len(z)
    X = (tuple(z), tuple(Fraction(1) for _ in range(n)), tuple(Fraction(0) for _ in range(n)))
    Y = T.evaluate(X, tie=tie)
    m = max(z)
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
                      seed: int = 20260301, n_min: int = 1) -> Result:
    """PROVED (for n = n_min..n_max, every z in Q^n, each tie rule) if the decision-tree case analysis of the
    actual head proves the identity; the certificate is that tree (kind ``hardmax-max-tree``), re-checked by
    the kernel.  The O1 grid and random rational z are evaluated exactly as evidence (a failure there is a
    REFUTED witness).  ``grid_step`` thins the O1 grid {k/3 : |k| <= 6} (1 = all 169 pairs)."""
    if not isinstance(n_max, int) or isinstance(n_max, bool) or not 1 <= n_max <= MAX_SYMBOLIC_N:
        raise InputError("n_max", f"must be an integer in [1, {MAX_SYMBOLIC_N}], got {n_max!r}")
    if not isinstance(n_min, int) or isinstance(n_min, bool) or not 1 <= n_min <= n_max:
        raise InputError("n_min", f"must be an integer in [1, n_max = {n_max}], got {n_min!r}")
    ties = tuple(ties)
    if not ties or len(set(ties)) != len(ties):
        raise InputError("ties", f"expected distinct tie rules among {', '.join(TIE_RULES)}")
    for t in ties:
        if t not in TIE_RULES:
            raise InputError("ties", f"each must be one of {', '.join(TIE_RULES)}, got {t!r}")
    if not isinstance(grid_step, int) or not 1 <= grid_step <= 13:
        raise InputError("grid_step", f"must be an integer in [1, 13], got {grid_step!r}")
    if not isinstance(random_cases, int) or not 0 <= random_cases <= 10_000:
        raise InputError("random_cases", f"must be an integer in [0, 10000], got {random_cases!r}")
    T = max_head_transformer()
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
