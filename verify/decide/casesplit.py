"""Exact case splits over the orderings of symbolic values: linear forms in symbols z_0..z_{n-1}, an
arithmetic (:class:`DecisionTree`, a :class:`~verify.arith.context.Context`) whose signs are decided from pairwise
facts, and a driver that branches on every undecided comparison.

Algorithm
---------
A computation ``run(ops)`` (e.g. a Transformer evaluation on symbolic tokens) is run with
``ops`` a :class:`DecisionTree` holding the facts decided so far, each ``(a, b, s)``: sign(z_a - z_b) = s.  A
sign it asks for is answered when it is a constant, or c (z_a - z_b) with the comparison implied by the facts
(equality classes by union-find, strict order by reachability); at an undecided comparison
:func:`explore_decisions` forks the run: the children z_a < z_b and z_a = z_b wait on its stack (each
re-runs the computation with its facts), and the run itself goes on as the child z_a > z_b (the fact is
added to its :class:`DecisionTree` in place; alone, a tree raises :class:`Undecided`).  Any other sign (a
form that is not a comparison of two symbols, a product of two symbolic values) raises
:class:`UnsupportedDecision`: outside what the case analysis covers.  Every run of one exploration shares
one memo (:func:`shared_memo`) of the :class:`LinearForm` results it computes (sums, products, keys, the
shape of a sign per set of equality classes), keyed by the operands' identity, and a Transformer's attention
keeps its decision-free work there too (``DecisionTree.shared_cache``: the parsed tokens, projections and
scores once per input, the output once per input and winner pattern): what does not depend on the
decisions is computed once for the whole tree.  At a node an argmax over the same value objects is
decided once.  Cost: one run of the computation's control flow per leaf, most of its arithmetic shared;
the leaves are at most the weak orderings of the n symbols (Fubini numbers: 75 for n = 4, 4683 for n = 6),
since each leaf is a non-empty union of them.

Soundness
---------
The three outcomes of every branching are exhaustive and each leaf's facts are consistent
(realised by :meth:`DecisionTree.witness`), so the leaves partition R^n (Q^n); at a leaf every decision the
computation made is entailed by the leaf's facts, so its output, an exact linear form, is the output at every
point of that leaf.  A run that goes on as its child z_a > z_b computes what a fresh run with that fact
would: a strict fact merges no symbols, so every answer given before it stays entailed.  The memo returns
the value an operation would compute: forms are never mutated, each entry keeps its operands alive (so an
identity is never reused while the memo lives), and a sign's cached shape is used only at nodes with the
same equality classes.  :func:`tree_from_leaves`
writes the leaves as the flat preorder tree that the kernel (:mod:`verify.kernel.casesplit`) re-checks on
its own.  Everything is exact (``mpq`` coefficients).

Limits
------
At most ``max_nodes`` = ``MAX_NODES`` = 200,000 runs by default: beyond, :func:`explore_decisions`
returns ``(None, nodes)``.  Only comparisons of two symbols z_a - z_b (up to a constant factor, after
merging equal symbols) can be decided or branched on; a sign of any other form, or a product of two
symbolic values, raises :class:`UnsupportedDecision` (not caught here).

>>> z = [LinearForm.var(0), LinearForm.var(1)]
>>> leaves, nodes = explore_decisions(2, lambda ops: z[0] + ops.relu(z[1] - z[0]))     # max(z_0, z_1)
>>> len(leaves), all(ops.same(out, ops.top()) for ops, out in leaves)
(3, True)
>>> tree_from_leaves([ops.facts for ops, _ in leaves])
[[0, 1], [], [], []]
"""

from __future__ import annotations

import contextlib
import threading
from fractions import Fraction

from gmpy2 import mpq

from ..errors import InputError
from ..arith.context import Context, MpqContext
from ..objects.transformer import TIE_RULES

__all__ = ["LinearForm", "DecisionTree", "Undecided", "UnsupportedDecision", "explore_decisions",
           "tree_from_leaves", "scan_tree", "parse_ties", "shared_memo", "MAX_NODES", "MPQ_TOKENS"]

MAX_NODES = 200_000
_MPQ = type(mpq(0))

# The memo shared by every node of one exploration (see explore_decisions): (operation, operand ids) ->
# (operands, result).  Each entry holds its operands, so their ids stay unique while the memo lives.
_SHARED = threading.local()
_SHARED.memo = None


def _memo():
    return getattr(_SHARED, "memo", None)


def _const_key(o):
    """A hashable key of an exact constant, cheap for Fractions (equal values, equal keys)."""
    if type(o) is Fraction:
        return (o.numerator, o.denominator)
    return o


def parse_ties(ties) -> tuple:
    """A non-empty tuple of distinct tie rules (each one of :data:`~verify.objects.transformer.TIE_RULES`)."""
    ties = tuple(ties)
    if not ties or len(set(ties)) != len(ties):
        raise InputError("ties", f"expected distinct tie rules among {', '.join(TIE_RULES)}")
    for t in ties:
        if t not in TIE_RULES:
            raise InputError("ties", f"each must be one of {', '.join(TIE_RULES)}, got {t!r}")
    return ties


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

    def _plus(self, o, s):
        """self + s * o for s = +1 or -1."""
        memo = _memo()
        if memo is not None:
            key = (id(self), s, id(o)) if isinstance(o, LinearForm) else (id(self), s, "c", _const_key(o))
            hit = memo.get(key)
            if hit is not None:
                return hit[2]
            out = self._plus_new(self._lift(o), s)
            memo[key] = (self, o, out)
            return out
        return self._plus_new(self._lift(o), s)

    def _plus_new(self, o, s):
        c = dict(self.coef)
        for a, v in o.coef.items():
            w = c.get(a, 0) + s * v
            if w:
                c[a] = w
            else:
                c.pop(a, None)
        return LinearForm._raw(c, self.const + s * o.const)

    def __add__(self, o):
        return self._plus(o, 1)

    __radd__ = __add__

    def __neg__(self):
        return LinearForm._raw({a: -v for a, v in self.coef.items()}, -self.const)

    def __sub__(self, o):
        return self._plus(o, -1)

    def __rsub__(self, o):
        return self._lift(o) - self

    def __mul__(self, o):
        memo = _memo()
        if memo is not None:
            key = (id(self), "*", id(o)) if isinstance(o, LinearForm) else (id(self), "*c", _const_key(o))
            hit = memo.get(key)
            if hit is not None:
                return hit[2]
            out = self._times(o)
            memo[key] = (self, o, out)
            return out
        return self._times(o)

    def _times(self, o):
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

    def _merged(self, rename) -> dict:
        """The coefficients with every symbol a renamed to rename(a) (merged symbols add up; zeros dropped)."""
        c = {}
        for a, v in self.coef.items():
            b = rename(a)
            c[b] = c.get(b, 0) + v
        return {a: v for a, v in c.items() if v}

    def substitute(self, rep: dict) -> "LinearForm":
        return LinearForm._raw(self._merged(lambda a: rep.get(a, a)), self.const)

    def key(self):
        memo = _memo()
        if memo is None:
            return self._key()
        hit = memo.get(("key", id(self)))
        if hit is None:
            hit = memo[("key", id(self))] = (self, self._key())
        return hit[1]

    def _key(self):
        return (tuple(sorted((a, Fraction(int(v.numerator), int(v.denominator))) for a, v in self.coef.items()
                             if v != 0)), Fraction(int(self.const.numerator), int(self.const.denominator)))

    def __str__(self):
        terms = [f"{v}*z{a + 1}" for a, v in sorted(self.coef.items())]
        if self.const or not terms:
            terms.append(str(self.const))
        return " + ".join(terms)


def _shape(coef: dict, c0) -> tuple:
    """What deciding the sign of sum coef[a] z_a + c0 needs: ``("const", sign)``, ``("compare", a, b, positive)``
    (c (z_a - z_b), a < b, c > 0 iff positive) or ``("unsupported",)``."""
    if not coef:
        return ("const", (c0 > 0) - (c0 < 0))
    if not c0 and len(coef) == 2:
        (a, ca), (b, cb) = sorted(coef.items())
        if ca == -cb:
            return ("compare", a, b, ca > 0)
    return ("unsupported",)


class Undecided(Exception):
    def __init__(self, a, b):
        super().__init__(f"z{a + 1} vs z{b + 1}")
        self.a, self.b = a, b


class UnsupportedDecision(Exception):
    """A decision that is not a comparison of two symbols (outside what the case analysis covers)."""


class DecisionTree(Context):
    """An arithmetic context whose signs are decided from a set of pairwise facts z_a {>, =} z_b (with transitivity);
    an undecided comparison raises :class:`Undecided` so the driver can branch."""

    native_inputs = True        # a Transformer takes LinearForm tokens as they are (no parsing per node)

    def __init__(self, n, facts=(), on_undecided=None):
        self.n = n
        self._on_undecided = on_undecided     # (ops, a, b) -> True: continue with z_a > z_b added
        self.facts = list(facts)           # (a, b, s): sign(z_a - z_b) = s
        self.parent = list(range(n))
        self.greater = set()                # (class a, class b): z_a > z_b
        self._memo = {}
        self._argmax = {}                   # ids of the values -> (values, argmax set) at this node
        for a, b, s in self.facts:
            self._add(a, b, s)
        self._flat = not any(s == 0 for _, _, s in self.facts)     # no equalities: every symbol its own class
        self._reps = None if self._flat else tuple(self.find(a) for a in range(n))
        self._classes = None
        self.decisions = []

    def is_native(self, v) -> bool:
        return isinstance(v, LinearForm)

    @property
    def shared_cache(self):
        """The memo shared by the nodes of the exploration (:func:`shared_memo`; None outside one): a
        Transformer's attention keeps its decision-free work there (its entries keep their keys' objects
        alive, like every entry of the memo)."""
        return _memo()

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
        if self._on_undecided is not None and self._on_undecided(self, a, b):
            # the run goes on as the child z_a > z_b: a strict fact merges no symbols, so every cached
            # answer of this node (compare, argmax, sign shapes) stays entailed
            self.facts.append((a, b, 1))
            self._add(a, b, 1)
            self._classes = None
            return 1
        raise Undecided(a, b)

    def sign(self, form) -> int:
        if not isinstance(form, LinearForm):
            return (form > 0) - (form < 0)
        memo = _memo()
        if memo is None:
            shape = _shape(form._merged(self.find), form.const)   # symbols of one equality class merged
        else:
            # the shape depends on the form and on which symbols are merged (none at a node without
            # equalities): shared by every node with the same equality classes
            key = ("sign", id(form), self._reps)
            hit = memo.get(key)
            if hit is None:
                coef = form.coef if self._flat else form._merged(self.find)   # symbols of one class merged
                hit = memo[key] = (form, _shape(coef, form.const))
            shape = hit[1]
        if shape[0] == "const":
            return shape[1]
        if shape[0] == "compare":
            _, a, b, positive = shape
            s = self.compare(a, b)
            self.decisions.append((a, b, s))
            return s if positive else -s
        raise UnsupportedDecision(f"sign of {form} is not a comparison of two token values")

    def argmax_set(self, values) -> list:
        """:meth:`Context.argmax_set`, answered once per node for the same value objects (the facts do not
        change during a run, so the same comparisons give the same answers)."""
        values = list(values)
        key = tuple(map(id, values))
        hit = self._argmax.get(key)
        if hit is None:
            hit = self._argmax[key] = (values, super().argmax_set(values))    # keeps the ids alive
        return list(hit[1])

    def mul(self, a, b):
        try:
            return a * b
        except TypeError:
            raise UnsupportedDecision("product of two token-dependent values (not piecewise linear)") from None

    def classes(self) -> list:
        """Equality classes in a topological order, largest first (a witness ordering)."""
        if self._classes is None:
            self._classes = self._order_classes()
        return [list(c) for c in self._classes]

    def _order_classes(self) -> list:
        """Repeatedly the smallest class representative all of whose greater classes are placed."""
        members = {}
        for a in range(self.n):
            members.setdefault(self.find(a), []).append(a)
        reps = sorted(members)
        above = {r: set() for r in reps}
        for x, y in self.greater:
            if x in above and y in above:
                above[y].add(x)
        order, placed = [], set()
        while len(order) < len(reps):
            for r in reps:
                if r not in placed and above[r] <= placed:
                    order.append(r)
                    placed.add(r)
                    break
            else:  # pragma: no cover - facts are always acyclic
                raise AssertionError("cyclic facts")
        return [members[r] for r in order]

    def top(self) -> LinearForm:
        """z_t for a maximiser t of the facts (the first member of the top class)."""
        return LinearForm.var(self.classes()[0][0])

    def same(self, f, g) -> bool:
        """f = g as exact linear forms once the equalities among the facts are substituted."""
        f, g = LinearForm._lift(f), LinearForm._lift(g)
        if f is g:
            return True
        if self._flat:
            return f.key() == g.key()
        # the merged coefficient dicts (zeros dropped) are equal iff the substituted forms' keys are
        return f.const == g.const and f._merged(self.find) == g._merged(self.find)

    def witness(self) -> list:
        """An exact point z realising the facts (the top class gets n, the next n - 1, ...)."""
        z = [Fraction(0)] * self.n
        for level, cls in enumerate(self.classes()):
            for a in cls:
                z[a] = Fraction(self.n - level)
        return z


class _MpqTokens(MpqContext):
    """Exact rationals as gmpy2 ``mpq``, taking ``mpq`` tokens as they are: the point checks at the leaves'
    exact witnesses (about ten times cheaper than Fractions; the same exact values and signs)."""

    native_inputs = True

    def __init__(self):
        super().__init__()
        self._last = None                   # (values, argmax set) of the last call

    def convert(self, q):
        if type(q) is Fraction:
            return self._mpq(q.numerator, q.denominator)
        return super().convert(q)

    def argmax_set(self, values) -> list:
        """:meth:`Context.argmax_set`; a call on values equal to the previous call's (the queries of one
        head that share their scores) gets the previous answer: exact values, so the same comparisons."""
        values = tuple(values)
        last = self._last                   # one read: a consistent pair even with other threads
        if last is not None and last[0] == values:
            return list(last[1])
        best = super().argmax_set(values)
        self._last = (values, tuple(best))
        return best


MPQ_TOKENS = _MpqTokens()


@contextlib.contextmanager
def shared_memo():
    """Share one memo of :class:`LinearForm` results (sums, products, keys, sign shapes, keyed by the
    operands' identity) over the block: what the nodes of one exploration compute alike is computed once.
    Nested blocks reuse the outer memo; a thread has its own."""
    outer = _memo()
    if outer is not None:
        yield outer
        return
    _SHARED.memo = {}
    try:
        yield _SHARED.memo
    finally:
        _SHARED.memo = None


def explore_decisions(n: int, run, max_nodes: int = MAX_NODES):
    """Depth-first over every consistent outcome of the pairwise decisions ``run(ops)`` makes.
    Returns (leaves, nodes): each leaf is (DecisionTree, output of run).

    Algorithm
    ---------
    A stack of fact tuples, starting empty.  Each popped node runs ``run`` once on a fresh
    :class:`DecisionTree`; at an undecided z_a vs z_b the children z_a < z_b and z_a = z_b are pushed and
    the run itself goes on as the child z_a > z_b (the fact added to its tree: the run forks into its
    first child instead of restarting it), so a completed run is a leaf and the leaves come in the order
    of a depth-first search that visits >, =, < in turn.  Cost: one run per leaf; ``nodes`` counts every
    node of the tree (see the module docstring for the bound).

    Soundness
    ---------
    The children of a node are exhaustive and each is consistent, so the leaves' fact sets partition R^n;
    at a leaf every sign the run asked was entailed by its facts (a strict fact added during the run only
    adds consequences: what was decided before stays decided the same way), so the output is the output
    at every point of the leaf.  The kernel re-checks the tree from :func:`tree_from_leaves` independently.

    Limits
    ------
    Returns ``(None, nodes)`` once more than ``max_nodes`` (default 200,000) nodes were visited;
    :class:`UnsupportedDecision` and any other exception of ``run`` propagate.
    """
    stack, leaves, nodes = [()], [], 0

    def branch(ops, a, b):
        # the node's children z_a < z_b and z_a = z_b wait on the stack; the run goes on as z_a > z_b
        nonlocal nodes
        prefix = tuple(ops.facts)
        stack.append(prefix + ((a, b, -1),))
        stack.append(prefix + ((a, b, 0),))
        nodes += 1
        if nodes > max_nodes:
            raise _OverBudget
        return True

    with shared_memo():
        while stack:
            facts = stack.pop()
            nodes += 1
            if nodes > max_nodes:
                return None, nodes
            ops = DecisionTree(n, facts, on_undecided=branch)
            try:
                out = run(ops)
            except _OverBudget:
                return None, nodes
            leaves.append((ops, out))
        return leaves, nodes


class _OverBudget(Exception):
    """Raised inside a run when the exploration passes its node budget."""


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


def scan_tree(members) -> list:
    """The case-split tree (flat preorder, the kernel's format) of the argmax scan over ``members``: compare
    each member with the current best (<: it becomes the best; =, >: the best stays)."""
    def gen(k, best):
        if k == len(members):
            return [[]]
        i = members[k]
        return [[best, i]] + gen(k + 1, i) + gen(k + 1, best) + gen(k + 1, best)
    return gen(1, members[0])
