"""Case-split trees and exact instances: T1 (hardmax max), T3 (one-hot gate), T5 (group isolation), T11
(permutation equivariance).

**Evaluator.**  :func:`_evaluate` runs a hardmax Transformer (exact JSON weights read by :func:`_transformer`)
on an E x n matrix whose entries are Fractions or :class:`_Lin` (exact linear forms in symbols z_0..z_{n-1}).
Every decision goes through an oracle ``sign(x) -> -1 | 0 | 1 | None`` (None: not decided).  A ReLU needs a
decided sign.  The argmax set of a query is A = {l : sign(s_l - s_m) >= 0 is decided for every m}; it must be
non-empty with sign(s_a - s_c) = +1 decided for every a in A and c not in A, so A is the argmax set wherever
the oracle's answers hold.  For Fractions the oracle is exact.

**Trees.**  A case-split tree is a flat preorder list: ``[a, b]`` (a < b) splits on sign(z_a - z_b) into its
three subtrees (<, =, >), ``[]`` is a leaf.  The three outcomes are exhaustive, so the leaves of a complete
tree cover every z; the kernel checks the list parses to exactly one tree and, at every leaf, evaluates the
head under the leaf's facts: a form is decided when, after substituting the equalities, it is constant, is
c (z_a - z_b) with a strict path between the classes of a and b, or (box |z| <= C given) its exact interval
bound over the box excludes 0.  Every decision not entailed rejects.

PROVED / REFUTED of each kind is stated in its check's docstring; :func:`statement` builds every statement.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from gmpy2 import mpq

from . import _read as R
from ._read import Rejected

__all__ = ["KINDS", "statement", "o1_head", "group_head"]

MAX_TOKENS, MAX_DIM, MAX_SUB, MAX_HEADS, MAX_WIDTH, MAX_TREE = 8, 64, 16, 16, 64, 20_000
MAX_LEAVES = 4000            # leaves of all the trees of one certificate (each costs an exact evaluation)
MAX_WORK = 1_500_000         # instances: sum over instances of (#permutations + 1) * n^2 * #weights
BITS = 128                   # numerator / denominator bits of recorded weights and inputs
TIES = ("average", "first")
_0, _1 = 0, 1          # exact ints where possible: Fraction arithmetic is ~50x slower


# -- exact linear forms and the evaluator ---------------------------------------------------------------
class _Lin:
    """sum_a c[a] z_a + k with Fraction coefficients (no zero entries in c)."""

    __slots__ = ("c", "k")

    def __init__(self, c, k=_0):
        self.c, self.k = c, k

    def __add__(self, o):
        if not isinstance(o, _Lin):
            return _Lin(self.c, self.k + o)
        c = dict(self.c)
        for a, v in o.c.items():
            w = c.get(a, 0) + v
            if w:
                c[a] = w
            else:
                del c[a]
        return _Lin(c, self.k + o.k)

    __radd__ = __add__

    def __neg__(self):
        return _Lin({a: -v for a, v in self.c.items()}, -self.k)

    def __sub__(self, o):
        return self + -o

    def __rsub__(self, o):
        return -self + o

    def __mul__(self, o):
        if isinstance(o, _Lin):
            if self.c and o.c:
                raise Rejected("evaluation: a product of two symbolic values (not piecewise linear)")
            return o * self.k if not self.c else self * o.k
        return _Lin({a: v * o for a, v in self.c.items()} if o else {}, self.k * o)

    __rmul__ = __mul__


def _z(a):
    return _Lin({a: _1})


def _dot(w, x):
    acc = _0
    for a, b in zip(w, x):
        if a:
            acc = acc + b * a
    return acc


class _Exact:
    """The oracle for exact rationals."""

    def __init__(self):
        self.memo = {}

    def sign(self, x):
        return (x > 0) - (x < 0)


def _key(x):
    return (tuple(sorted(x.c.items())), x.k) if isinstance(x, _Lin) else x


def _argmax(s, dec, key=None, diffs=None):
    """The argmax set of the scores ``s`` (list of indices), every decision checked (module docstring).
    ``key``: the scores' key (the oracle memoises by it); ``diffs``: a cache of the differences s_a - s_b."""
    key = tuple(map(_key, s)) if key is None else key
    if key in dec.memo:
        return dec.memo[key]
    n, sg, diffs = len(s), {}, {} if diffs is None else diffs

    def cmp(a, b):
        if (a, b) not in sg:
            if (a, b) not in diffs:
                diffs[a, b] = s[a] - s[b]
            sg[a, b] = dec.sign(diffs[a, b])
        return sg[a, b]

    A = [a for a in range(n) if all(b == a or cmp(a, b) in (0, 1) for b in range(n))]
    if not A or any(cmp(a, c) != 1 for a in A for c in range(n) if c not in A):
        raise Rejected("evaluation: an argmax set is not decided by the facts")
    dec.memo[key] = A
    return A


def _head_forms(cols, head):
    """The part of a head that needs no decision: per query j its scores, their key and a difference cache;
    the values."""
    WQ, WK, WV, WO = head
    q, k, v = ([[_dot(r, c) for r in W] for c in cols] for W in (WQ, WK, WV))
    s = [[sum((a * b for a, b in zip(k[l], q[j])), _0) for l in range(len(cols))] for j in range(len(cols))]
    return [(sj, tuple(map(_key, sj)), {}) for sj in s], v, {}


def _attention(X, heads, tie, dec, only=None, forms=None):
    """Residual hardmax attention; ``only``: compute these query columns only; ``forms``: cached
    :func:`_head_forms` of ``heads`` at X (they do not depend on the oracle)."""
    E, n = len(X), len(X[0])
    cols = [[X[e][j] for e in range(E)] for j in range(n)]
    out = [list(c) for c in cols]
    for h, head in enumerate(heads):
        s, v, reads = forms[h] if forms else _head_forms(cols, head)
        for j in range(n) if only is None else only:
            R.tick()
            sj, key, diffs = s[j]
            A = _argmax(sj, dec, key, diffs)
            A = tuple(A[:1] if tie == "first" else A)
            if A not in reads:          # what the head reads depends only on the selected set
                w = mpq(1, len(A)) if len(A) > 1 else 1
                reads[A] = [sum((v[l][i] for l in A), _0) * w for i in range(len(v[0]))]
            c = reads[A]
            out[j] = [out[j][e] + _dot(head[3][e], c) for e in range(E)]
    return [[out[j][e] for j in range(n)] for e in range(E)]


def _relu(t, dec):
    s = dec.sign(t)
    if s is None:
        raise Rejected("evaluation: a ReLU sign is not decided by the facts")
    return t if s > 0 else _0


def _ffn(X, W1, b1, W2, b2, dec):
    E, n = len(X), len(X[0])
    cols = []
    for j in range(n):
        R.tick()
        x = [X[e][j] for e in range(E)]
        a = [_relu(_dot(r, x) + b, dec) for r, b in zip(W1, b1)]
        cols.append([x[e] + _dot(W2[e], a) + b2[e] for e in range(E)])
    return [[cols[j][e] for j in range(n)] for e in range(E)]


def _evaluate(T, X, tie, dec=None, trace=False):
    """T(X) (``trace``: the list of states X, X_1, ..., T(X))."""
    dec = dec or _Exact()
    states = [X]
    for kind, sub in T:
        X = _attention(X, sub, tie, dec) if kind == "attention" else _ffn(X, *sub, dec)
        states.append(X)
    return states if trace else X


# -- readers ----------------------------------------------------------------------------------------------
def _q(x, field, bits=None):
    """An exact number as int or gmpy2 mpq (10x faster than Fraction); at most ``bits`` bits per part."""
    if bits is not None and (abs(x.numerator).bit_length() > bits or x.denominator.bit_length() > bits):
        raise Rejected(f"{field}: a number has more than {bits} bits")
    return x.numerator if x.denominator == 1 else mpq(x.numerator, x.denominator)


def _mat(v, field, rows, cols, bits=None):
    """A matrix with ``rows`` rows (an int, or (lo, hi)) and ``cols`` columns."""
    lo, hi = (rows, rows) if isinstance(rows, int) else rows
    R.lst(v, field, lo, hi)
    return [[_q(x, field, bits) for x in r] for r in R.mat(v, field, cols=cols)] if v else []


def _transformer(v, field, E):
    """``{"sublayers": [{"attention": [{"W_Q", "W_K", "W_V", "W_O"}...]} | {"ffn": {"W1", "b1", "W2", "b2"}}]}``
    on E coordinates (numbers of at most BITS bits), as
    ``[("attention", [(WQ, WK, WV, WO)...]) | ("ffn", (W1, b1, W2, b2))]``."""
    out = []
    for s, sub in enumerate(R.lst(R.obj(v, field, required=("sublayers",))["sublayers"], f"{field}.sublayers", 1,
                                  MAX_SUB)):
        f = f"{field}.sublayers[{s}]"
        if not isinstance(sub, dict) or len(sub) != 1:
            raise Rejected(f"{f}: expected {{\"attention\": [...]}} or {{\"ffn\": {{...}}}}")
        R.obj(sub, f, optional=("attention", "ffn"))
        if "attention" in sub:
            heads = []
            for h, hd in enumerate(R.lst(sub["attention"], f"{f}.attention", 1, MAX_HEADS)):
                g = f"{f}.attention[{h}]"
                R.obj(hd, g, required=("W_Q", "W_K", "W_V", "W_O"))
                WQ = _mat(hd["W_Q"], f"{g}.W_Q", (1, MAX_DIM), E, BITS)
                m = len(WQ)
                heads.append((WQ, _mat(hd["W_K"], f"{g}.W_K", m, E, BITS), _mat(hd["W_V"], f"{g}.W_V", m, E, BITS),
                              _mat(hd["W_O"], f"{g}.W_O", E, m, BITS)))
            out.append(("attention", heads))
        else:
            d = R.obj(sub["ffn"], f"{f}.ffn", required=("W1", "b1", "W2", "b2"))
            W1 = _mat(d["W1"], f"{f}.ffn.W1", (1, MAX_WIDTH), E, BITS)
            r = len(W1)
            out.append(("ffn", (W1, _mat([d["b1"]], f"{f}.ffn.b1", 1, r, BITS)[0],
                                _mat(d["W2"], f"{f}.ffn.W2", E, r, BITS),
                                _mat([d["b2"]], f"{f}.ffn.b2", 1, E, BITS)[0])))
    return out


def _weights(T):
    return sum(sum(len(W) * len(W[0]) for W in h) for kind, sub in T if kind == "attention" for h in sub) + \
        sum(len(W1) * (2 * len(W1[0]) + 2) for kind, (W1, *_) in T if kind == "ffn")


def _matrix(v, field, min_n=1):
    X = _mat(v, field, (1, MAX_DIM), None, BITS)
    n = len(X[0])
    if not min_n <= n <= MAX_TOKENS:
        raise Rejected(f"{field}: expected {min_n}..{MAX_TOKENS} tokens (columns), got {n}")
    return X


def _perm(v, field, n):
    p = [R.integer(x, f"{field}[{i}]", 0, n - 1) for i, x in enumerate(R.lst(v, field, n, n))]
    if sorted(p) != list(range(n)):
        raise Rejected(f"{field}: not a permutation of range({n})")
    return p


def _cols(X, perm):
    """(X Pi)[:, j] = X[:, perm[j]]."""
    return [[row[p] for p in perm] for row in X]


def _cert(result, *keys):
    """The certificate with exactly ``kind``, ``keys`` and an optional ``summary`` (free text, not trusted)."""
    cert = R.obj(result["certificate"], "certificate", required=("kind",) + keys, optional=("summary",))
    R.string(cert.get("summary", ""), "certificate.summary", max_len=2000)
    return cert


def _ties(v, field):
    ties = [R.string(t, f"{field}[{i}]", TIES) for i, t in enumerate(R.lst(v, field, 1, len(TIES)))]
    if len(set(ties)) != len(ties):
        raise Rejected(f"{field}: a tie rule is repeated")
    return ties


# -- case-split trees -------------------------------------------------------------------------------------
class _Facts:
    """The oracle of a leaf: facts (a, b, s) meaning sign(z_a - z_b) = s, and optionally the box |z| <= C."""

    def __init__(self, n, facts, C=None):
        self.parent, self.C, self.memo = list(range(n)), C, {}
        for a, b, s in facts:
            if s == 0:
                self.parent[self.find(a)] = self.find(b)
        self.down = {}
        for a, b, s in facts:
            if s:
                hi, lo = (a, b) if s > 0 else (b, a)
                self.down.setdefault(self.find(hi), set()).add(self.find(lo))

    def find(self, a):
        while self.parent[a] != a:
            a = self.parent[a]
        return a

    def _above(self, a, b):
        seen, todo = set(), [a]
        while todo:
            for y in self.down.get(todo.pop(), ()):
                if y == b:
                    return True
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    def sign(self, x):
        if not isinstance(x, _Lin):
            return (x > 0) - (x < 0)
        c = {}
        for a, v in x.c.items():
            r = self.find(a)
            c[r] = c.get(r, 0) + v
        c = {a: v for a, v in c.items() if v}
        if not c:
            return (x.k > 0) - (x.k < 0)
        if len(c) == 2 and not x.k:
            (a, va), (b, vb) = c.items()
            if va == -vb and self._above(a, b):
                return 1 if va > 0 else -1
            if va == -vb and self._above(b, a):
                return -1 if va > 0 else 1
        if self.C is not None:
            r = self.C * sum(abs(v) for v in c.values())
            if x.k - r > 0:
                return 1
            if x.k + r < 0:
                return -1
        return None


def _leaves(tree, field, allowed):
    """The leaves of a complete tree (flat preorder list) over the symbols ``allowed``: lists of facts."""
    nodes = R.lst(tree, field, 1, MAX_TREE)
    depth = len(allowed) * (len(allowed) - 1) // 2
    stack, out, i = [()], [], 0
    while stack:
        R.tick()
        facts = stack.pop()
        if i == len(nodes):
            raise Rejected(f"{field}: the tree is incomplete (a subtree is missing)")
        f = f"{field}[{i}]"
        node = R.lst(nodes[i], f)
        i += 1
        if not node:
            out.append(facts)
            continue
        a, b = (R.integer(x, f, 0, MAX_DIM) for x in R.lst(node, f, 2, 2))
        if not a < b or a not in allowed or b not in allowed or len(facts) >= depth:
            raise Rejected(f"{f}: expected a pair a < b of {sorted(allowed)} below depth {depth}")
        same = {x for x_, y_, s_ in facts if not s_ for x in (x_, y_)}
        if a in same or b in same:       # canonical: split on the smallest symbol of each equality class only
            uf = _Facts(MAX_DIM + 1, facts)
            if any(min(x for x in same | {y} if uf.find(x) == uf.find(y)) != y for y in (a, b)):
                raise Rejected(f"{f}: compare the smallest symbol of each equality class")
        stack.extend(facts + ((a, b, s),) for s in (1, 0, -1))
    if i != len(nodes):
        raise Rejected(f"{field}: node(s) after the end of the tree")
    return out


def _forest(trees, field, allowed):
    """The leaves of each tree (``allowed[i]``: the symbols of tree i), at most MAX_LEAVES in all."""
    out = [_leaves(t, f"{field}[{i}]", a) for i, (t, a) in enumerate(zip(trees, allowed))]
    if sum(map(len, out)) > MAX_LEAVES:
        raise Rejected(f"{field}: more than {MAX_LEAVES} leaves in all")
    return out


def _same(x, y):
    """x - y is identically zero (no decision needed)."""
    d = x - y
    return not d.c and d.k == 0 if isinstance(d, _Lin) else d == 0


def _is_max(dec, out, zs, members, cache):
    """``out`` equals z_t for a t of ``members`` with z_t >= z_l for every member l (decided); ``cache``: the
    key and difference cache of the members' symbols."""
    t = _argmax([zs[m] for m in members], dec, *cache)[0]
    return dec.sign(out - zs[members[t]]) == 0


# -- T1 ---------------------------------------------------------------------------------------------------
def o1_head():
    """The O1 head on coordinates (z, one, out): W_Q = e_one^T, W_K = W_V = e_z^T, W_O = e_out."""
    return [[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]]


def _t1_params(p, with_head):
    p = R.obj(p, "parameters", required=("n_min", "n_max", "ties") + (("head",) if with_head else ()))
    lo = R.integer(p["n_min"], "parameters.n_min", 1, MAX_TOKENS)
    hi = R.integer(p["n_max"], "parameters.n_max", lo, MAX_TOKENS)
    return lo, hi, _ties(p["ties"], "parameters.ties")


def _t1_text(p, head=None):
    lo, hi, ties = _t1_params(p, head is not None)
    who = ("The O1 hardmax head (W_Q = e_one^T, W_K = W_V = e_z^T, W_O = e_out)" if head is None else
           f"The hardmax head (W_Q, W_K, W_V, W_O) = {head} on coordinates (z, one, out)")
    return (f"{who}, applied to tokens (z_j, 1, 0), writes max_l z_l into the out slot of every token and leaves "
            f"the other coordinates unchanged, "
            f"for n = {lo}..{hi} and every z in Q^n, under the tie rule(s) {' and '.join(ties)}")


def _check_t1_tree(result):
    """PROVED: the O1 head writes max_l z_l into every token's out slot and keeps z and one, for every n in
    n_min..n_max, every z in Q^n and each tie rule.  Checks: ``certificate.trees`` has one complete tree per n;
    at every leaf the exact evaluation under the leaf's facts decides every argmax set and gives out_j = z_t
    with z_t >= z_l for all l (decided), z and one unchanged."""
    lo, hi, ties = _t1_params(result["parameters"], False)
    R.expect_statement(result, _t1_text(result["parameters"]))
    cert = _cert(result, "trees")
    trees = R.lst(cert["trees"], "certificate.trees", hi - lo + 1, hi - lo + 1)
    head = tuple(_mat(W, "head", len(W), None) for W in o1_head())
    count, forest = 0, _forest(trees, "certificate.trees", [set(range(n)) for n in range(lo, hi + 1)])
    for k, (n, leaves) in enumerate(zip(range(lo, hi + 1), forest)):
        zs = [_z(a) for a in range(n)]
        X = [list(zs), [_1] * n, [_0] * n]
        forms = [_head_forms([[X[e][j] for e in range(3)] for j in range(n)], head)]
        cache = (tuple(map(_key, zs)), {})
        for facts in leaves:
            dec = _Facts(n, facts)
            for tie in ties:
                Y = _attention(X, [head], tie, dec, forms=forms)
                if not all(_same(Y[e][j], X[e][j]) for e in range(2) for j in range(n)) or \
                        not all(_is_max(dec, Y[2][j], zs, list(range(n)), cache) for j in range(n)):
                    raise Rejected(f"certificate.trees[{k}]: at the leaf {facts} ({tie}) the output is not "
                                   "max_l z_l or a coordinate changed")
            count += 1
    return f"n = {lo}..{hi}, {count} leaves, {'/'.join(ties)}: out = max z at every leaf"


def _check_t1_witness(result):
    """REFUTED: the recorded head (parameters.head) fails the T1 identity at the exact point certificate.z
    (n = len(z) in range) under certificate.tie."""
    p = result["parameters"]
    lo, hi, ties = _t1_params(p, True)
    h = R.obj(p["head"], "parameters.head", required=("W_Q", "W_K", "W_V", "W_O"))
    WQ = _mat(h["W_Q"], "parameters.head.W_Q", (1, MAX_DIM), 3)
    m = len(WQ)
    head = (WQ, _mat(h["W_K"], "parameters.head.W_K", m, 3), _mat(h["W_V"], "parameters.head.W_V", m, 3),
            _mat(h["W_O"], "parameters.head.W_O", 3, m))
    R.expect_statement(result, _t1_text(p, [h["W_Q"], h["W_K"], h["W_V"], h["W_O"]]))
    cert = _cert(result, "z", "tie")
    z = R.vec(cert["z"], "certificate.z", max_len=hi)
    tie = R.string(cert["tie"], "certificate.tie", ties)
    if not lo <= len(z) <= hi:
        raise Rejected(f"certificate.z: n = {len(z)} is outside {lo}..{hi}")
    n = len(z)
    Y = _evaluate([("attention", [head])], [z, [_1] * n, [_0] * n], tie)
    if Y[0] == z and Y[1] == [_1] * n and Y[2] == [max(z)] * n:
        raise Rejected("certificate: the head computes max z at the witness (not a counterexample)")
    return f"n = {n}, {tie}: the head gives out = {[str(v) for v in Y[2]]}, max z = {max(z)}"


def _t1n_text(p):
    p = R.obj(p, "parameters", required=("scores", "values"))
    return (f"The hardmax head W_Q = e_one^T, W_K = e_key^T, W_V = e_value^T, W_O = e_out on tokens with keys "
            f"{p['scores']} and values {p['values']} writes the same out at every token under the tie rules "
            f"average and first")


def _t1n_outputs(result):
    p = R.obj(result["parameters"], "parameters", required=("scores", "values"))
    s = R.vec(p["scores"], "parameters.scores", max_len=64)
    v = R.vec(p["values"], "parameters.values", len(s))
    R.expect_statement(result, _t1n_text(p))
    _cert(result)
    if not s:
        raise Rejected("parameters.scores: no token")
    n = len(s)
    T = [("attention", [([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[0, 1, 0, 0]], [[0], [0], [0], [1]])])]
    return {t: _evaluate(T, [s, v, [_1] * n, [_0] * n], t)[3] for t in TIES}


def _check_t1n_agree(result):
    """PROVED: for the recorded keys and values both tie rules give the same out (exact evaluation)."""
    out = _t1n_outputs(result)
    if out["average"] != out["first"]:
        raise Rejected("parameters: the tie rules give different outputs")
    return f"average and first both give {[str(x) for x in out['first']]}"


def _check_t1n_differ(result):
    """REFUTED: for the recorded keys and values the tie rules give different outs (exact evaluation)."""
    out = _t1n_outputs(result)
    if out["average"] == out["first"]:
        raise Rejected("parameters: the tie rules give the same output")
    return f"average gives {out['average'][0]}, first gives {out['first'][0]} at token 1"


# -- T3 ---------------------------------------------------------------------------------------------------
_GATE = "gate_S(u,p) = ReLU(u - S(1-p)) - ReLU(-u - S(1-p)) equals p*u"


def _t3_text(p):
    if "points" in p:
        p = R.obj(p, "parameters", required=("S", "points"))
        pts = ", ".join(f"({u}, {q})" for u, q in p["points"]) if len(p["points"]) <= 8 else \
            f"each of the {len(p['points'])} given points"
        return f"{_GATE} at (u, p) = {pts}, with S = {p['S']}"
    p = R.obj(p, "parameters", required=("S",))
    return f"{_GATE} for p in {{0, 1}} and every rational u with |u| <= S, S = {p['S']}"


def _gate(u, p, S):
    return max(u - S * (1 - p), _0) - max(-u - S * (1 - p), _0)


def _affine_sign(slope, const, lo, hi, lc, hc):
    """+1 if slope*u + const > 0 on the interval, 0 if it is <= 0 there, None if neither."""
    fl, fh = slope * lo + const, slope * hi + const
    if fl <= 0 and fh <= 0:
        return 0
    if (fl > 0 or not lc and fl == 0) and (fh > 0 or not hc and fh == 0):
        return 1
    return None


def _check_t3_split(result):
    """PROVED: the gate identity for p in {0, 1} and all u in [-S, S].  Checks: for each p the pieces
    ``[p, lo, hi, lo_closed, hi_closed]`` partition [-S, S] exactly (sort and sweep); on each piece the
    kernel decides the sign of both ReLU arguments from the endpoints (affine) and the gate minus p*u is the
    zero affine function there (at the point, for a one-point piece)."""
    p = result["parameters"]
    R.obj(p, "parameters", required=("S",))
    S = R.num(p["S"], "parameters.S")
    if S <= 0:
        raise Rejected("parameters.S: must be > 0")
    R.expect_statement(result, _t3_text(p))
    cert = _cert(result, "pieces")
    by_p = {0: [], 1: []}
    for i, pc in enumerate(R.lst(cert["pieces"], "certificate.pieces", 1, 64)):
        f = f"certificate.pieces[{i}]"
        q, lo, hi, lc, hc = R.lst(pc, f, 5, 5)
        q, lo, hi, lc, hc = R.integer(q, f, 0, 1), R.num(lo, f), R.num(hi, f), R.flag(lc, f), R.flag(hc, f)
        if lo > hi or lo == hi and not (lc and hc):
            raise Rejected(f"{f}: empty piece")
        c = -S * (1 - q)
        sa, sb = _affine_sign(1, c, lo, hi, lc, hc), _affine_sign(-1, c, lo, hi, lc, hc)
        if sa is None or sb is None:
            raise Rejected(f"{f}: a ReLU argument changes sign on the piece")
        slope, const = sa + sb, sa * c - sb * c          # ReLU(A) - ReLU(B), A = u + c, B = -u + c
        if (slope != q or const != 0) if lo < hi else slope * lo + const != q * lo:
            raise Rejected(f"{f}: the gate differs from p*u on the piece")
        by_p[q].append((lo, not lc, hi, hc))
    for q, pieces in by_p.items():
        at, closed = -S, True
        for lo, lo_open, hi, hc in sorted(pieces):
            if lo != at or lo_open == closed:
                raise Rejected(f"certificate.pieces: p = {q}: the pieces do not tile [-S, S] at {lo}")
            at, closed = hi, not hc
        if at != S or closed:
            raise Rejected(f"certificate.pieces: p = {q}: the pieces do not reach S closed")
    return f"S = {S}: {len(by_p[0])} + {len(by_p[1])} pieces tile [-S, S] for p = 0, 1; gate = p*u on each"


def _t3_points(result):
    p = R.obj(result["parameters"], "parameters", required=("S", "points"))
    S = R.num(p["S"], "parameters.S")
    pts = [tuple(R.vec(x, f"parameters.points[{i}]", 2)) for i, x in enumerate(R.lst(p["points"], "parameters.points",
                                                                                     1, 10_000))]
    R.expect_statement(result, _t3_text(p))
    _cert(result)
    return [(u, q) for u, q in pts if _gate(u, q, S) != q * u], len(pts)


def _check_t3_points(result):
    """PROVED: the gate equals p*u at every recorded point (exact evaluation)."""
    bad, n = _t3_points(result)
    if bad:
        raise Rejected(f"parameters.points: the gate differs from p*u at {bad[0]}")
    return f"gate = p*u at all {n} points"


def _check_t3_witness(result):
    """REFUTED: the gate differs from p*u at one of the recorded points (exact evaluation)."""
    bad, n = _t3_points(result)
    if not bad:
        raise Rejected("parameters.points: the gate equals p*u at every point")
    return f"gate differs from p*u at (u, p) = ({bad[0][0]}, {bad[0][1]})"


# -- T5 ---------------------------------------------------------------------------------------------------
def group_head(M, groups):
    """The R4' head on coordinates [g_1..g_N | z | one | out]: query (M g_j, 1), key (g_l, z_l), value z_l."""
    N = max(groups) + 1
    E = N + 3
    e = lambda i: [_1 if c == i else _0 for c in range(E)]
    WQ = [[M * x for x in e(i)] for i in range(N)] + [e(N + 1)]
    WK = [e(i) for i in range(N)] + [e(N)]
    WV = [e(N)] + [[_0] * E for _ in range(N)]
    WO = [[_1 if r == N + 2 and t == 0 else _0 for t in range(N + 1)] for r in range(E)]
    return WQ, WK, WV, WO


def _t5_params(p):
    p = R.obj(p, "parameters", required=("M", "C", "groups", "ties"), optional=("values",))
    M, C = R.num(p["M"], "parameters.M"), R.num(p["C"], "parameters.C")
    groups = [R.integer(g, f"parameters.groups[{i}]", 0, MAX_DIM)
              for i, g in enumerate(R.lst(p["groups"], "parameters.groups", 1, MAX_DIM))]
    if M <= 0 or C < 0 or sorted(set(groups)) != list(range(max(groups) + 1)):
        raise Rejected("parameters: need M > 0, C >= 0 and groups numbered 0..N-1, each non-empty")
    return p, M, C, groups, _ties(p["ties"], "parameters.ties")


def _t5_text(p):
    p, *_ = _t5_params(p)
    scope = (f"for each of the {len(p['values'])} given value vectors z" if "values" in p else
             "for every z in [-C, C]^n")
    return (f"With score_lj = M [g_l = g_j] + z_l and value z_l (M = {p['M']}, C = {p['C']}, token groups "
            f"{p['groups']}, tokens (e_(g_j), z_j, 1, 0)), hardmax at every token of group i writes "
            f"max_(l in group i) z_l into its out slot and leaves the other coordinates unchanged, {scope}, under "
            f"the tie rule(s) {' and '.join(p['ties'])}")


def _t5_failure(z, M, groups, tie):
    """The first token where the exact head output differs from its group's maximum, or None."""
    n, N = len(groups), max(groups) + 1
    X = [[_1 if g == i else _0 for g in groups] for i in range(N)] + [list(z), [_1] * n, [_0] * n]
    Y = _evaluate([("attention", [group_head(M, groups)])], X, tie)
    best = [max(z[l] for l in range(n) if groups[l] == groups[j]) for j in range(n)]
    bad = [j for j in range(n) if Y[-1][j] != best[j] or any(Y[e][j] != X[e][j] for e in range(N + 2))]
    return bad[0] if bad else None


def _check_t5_tree(result):
    """PROVED: for every z in [-C, C]^n the head returns the group maximum at every token (each tie rule).
    Checks: one complete tree per group over comparisons of that group's tokens; at every leaf the head is
    evaluated at the group's queries under the facts and the box (in-group versus out-group scores are
    decided by the box bound M - 2C > 0), each argmax is decided and out_j = z_t, t a decided maximiser of the
    group, other coordinates unchanged."""
    p, M, C, groups, ties = _t5_params(result["parameters"])
    if "values" in p:
        raise Rejected("parameters.values: a tree proves the box statement, not given instances")
    R.expect_statement(result, _t5_text(p))
    cert = _cert(result, "trees")
    n, N = len(groups), max(groups) + 1
    if n > 16:
        raise Rejected("parameters.groups: at most 16 tokens")
    trees = R.lst(cert["trees"], "certificate.trees", N, N)
    head = group_head(M, groups)
    zs = [_z(a) for a in range(n)]
    X = [[_1 if g == i else _0 for g in groups] for i in range(N)] + [list(zs), [_1] * n, [_0] * n]
    count, forms = 0, [_head_forms([[X[e][j] for e in range(N + 3)] for j in range(n)], head)]
    groups_of = [[l for l in range(n) if groups[l] == g] for g in range(N)]
    for g, leaves in enumerate(_forest(trees, "certificate.trees", [set(m) for m in groups_of])):
        members = groups_of[g]
        cache = (tuple(map(_key, [zs[m] for m in members])), {})
        for facts in leaves:
            dec = _Facts(n, facts, C)
            for tie in ties:
                Y = _attention(X, [head], tie, dec, only=members, forms=forms)
                if not all(_is_max(dec, Y[-1][j], zs, members, cache) and
                           all(_same(Y[e][j], X[e][j]) for e in range(N + 2)) for j in members):
                    raise Rejected(f"certificate.trees[{g}]: at the leaf {facts} ({tie}) a token of group {g} "
                                   "does not get its group maximum")
            count += 1
    return f"M - 2C = {M - 2 * C}: {N} group trees, {count} leaves, {'/'.join(ties)} on [-C, C]^{n}"


def _t5_values(p, n, C):
    vs = [R.vec(z, f"parameters.values[{i}]", n) for i, z in enumerate(R.lst(p["values"], "parameters.values", 1,
                                                                               5000))]
    if any(abs(x) > C for z in vs for x in z):
        raise Rejected("parameters.values: a value exceeds C in absolute value")
    return vs


def _check_t5_instances(result):
    """PROVED: at each recorded value vector (|z| <= C) the head returns the group maxima (exact)."""
    p, M, C, groups, ties = _t5_params(result["parameters"])
    R.expect_statement(result, _t5_text(p))
    _cert(result)
    if "values" not in p:
        raise Rejected("parameters.values: missing (instances kind)")
    vs = _t5_values(p, len(groups), C)
    for z in vs:
        for tie in ties:
            if _t5_failure(z, M, groups, tie) is not None:
                raise Rejected(f"parameters.values: the head fails at z = {[str(x) for x in z]} ({tie})")
    return f"{len(vs)} value vectors x {len(ties)} tie rules: group maxima"


def _check_t5_witness(result):
    """REFUTED: at certificate.z (one of parameters.values if given, else any z in [-C, C]^n) with
    certificate.tie the head does not return the group maxima (exact)."""
    p, M, C, groups, ties = _t5_params(result["parameters"])
    R.expect_statement(result, _t5_text(p))
    cert = _cert(result, "z", "tie")
    z = R.vec(cert["z"], "certificate.z", len(groups))
    tie = R.string(cert["tie"], "certificate.tie", ties)
    if any(abs(x) > C for x in z) or "values" in p and z not in _t5_values(p, len(groups), C):
        raise Rejected("certificate.z: not in the statement's scope")
    j = _t5_failure(z, M, groups, tie)
    if j is None:
        raise Rejected("certificate.z: the head returns the group maxima there")
    return f"{tie}: token {j + 1} does not get its group maximum at z = {[str(x) for x in z]}"


# -- T11 --------------------------------------------------------------------------------------------------
def _t11_text(kind, p):
    if kind == "equivariance-counterexample":
        p = R.obj(p, "parameters", required=("tie", "n"))
        return (f"Every Transformer of hardmax attention (tie rule {p['tie']}) and ReLU FFN sublayers satisfies "
                f"T(X Pi) = T(X) Pi for every input X with n = {p['n']} tokens and every permutation Pi")
    if kind == "content-equivariance-counterexample":
        p = R.obj(p, "parameters", required=("transformer", "X", "tie", "content_rows", "read_rows"))
        return (f"For the recorded hardmax Transformer (sha256:{R.digest(p['transformer'])[:16]}, tie rule "
                f"{p['tie']}) and input X, permuting the tokens' content rows {p['content_rows']} by Pi (the other "
                f"rows stay at their positions) permutes the read rows {p['read_rows']} of T(X) by Pi, for every "
                f"permutation Pi")
    if kind == "identical-tokens-instances":
        p = R.obj(p, "parameters", required=("n", "instances"))
        return (f"For each of the {len(p['instances'])} recorded hardmax Transformers and tokens x, with "
                f"X = x 1^T (n = {p['n']}) and both tie rules: every column of T(X) is equal and every attention "
                f"sublayer maps its input Z to Z + sum_h W_O^h W_V^h Z")
    if kind == "softmax-equivariance-symbolic":
        p = R.obj(p, "parameters", required=("n_max", "instances"))
        return (f"For each of the {len(p['instances'])} recorded Transformers with softmax(lambda * score) attention "
                f"and ReLU FFN sublayers, and n = 1..{p['n_max']} tokens: T(X Pi) = T(X) Pi for every permutation Pi, "
                f"identically in the real token entries X and lambda > 0")
    p = R.obj(p, "parameters", required=("tie", "instances"))
    return (f"For each of the {len(p['instances'])} recorded hardmax Transformers (tie rule {p['tie']}) and its "
            f"recorded input X, T(X Pi) = T(X) Pi for every permutation Pi of the tokens")


def _check_t11_instances(result):
    """PROVED: for each recorded (Transformer, X), T(X Pi) = T(X) Pi for all n! permutations (exact)."""
    p = result["parameters"]
    R.expect_statement(result, _t11_text("equivariance-instances", p))
    tie = R.string(p["tie"], "parameters.tie", TIES)
    _cert(result)
    work = pairs = 0
    for i, inst in enumerate(R.lst(p["instances"], "parameters.instances", 1, 64)):
        f = f"parameters.instances[{i}]"
        R.obj(inst, f, required=("transformer", "X"))
        X = _matrix(inst["X"], f"{f}.X")
        T = _transformer(inst["transformer"], f"{f}.transformer", len(X))
        n = len(X[0])
        work += (math.factorial(n) + 1) * n * n * _weights(T)
        if work > MAX_WORK:
            raise Rejected(f"{f}: the instances exceed the kernel's work bound")
        Y = _evaluate(T, X, tie)
        for perm in itertools.permutations(range(n)):
            if _evaluate(T, _cols(X, perm), tie) != _cols(Y, perm):
                raise Rejected(f"{f}: T(X Pi) != T(X) Pi for Pi = {list(perm)}")
            pairs += 1
    return f"{pairs} (instance, permutation) pairs, {tie}: T(X Pi) = T(X) Pi exactly"


def _check_t11_counterexample(result):
    """REFUTED: certificate.transformer, certificate.X (n tokens) and certificate.perm give
    T(X Pi) != T(X) Pi under parameters.tie (exact)."""
    p = R.obj(result["parameters"], "parameters", required=("tie", "n"))
    tie = R.string(p["tie"], "parameters.tie", TIES)
    n = R.integer(p["n"], "parameters.n", 1, MAX_TOKENS)
    R.expect_statement(result, _t11_text("equivariance-counterexample", p))
    cert = _cert(result, "transformer", "X", "perm")
    X = _matrix(cert["X"], "certificate.X")
    if len(X[0]) != n:
        raise Rejected(f"certificate.X: expected n = {n} tokens")
    T = _transformer(cert["transformer"], "certificate.transformer", len(X))
    perm = _perm(cert["perm"], "certificate.perm", n)
    if _evaluate(T, _cols(X, perm), tie) == _cols(_evaluate(T, X, tie), perm):
        raise Rejected("certificate: T(X Pi) = T(X) Pi (not a counterexample)")
    return f"{tie}, n = {n}: T(X Pi) != T(X) Pi for Pi = {perm}"


def _check_t11_content(result):
    """REFUTED: with X' = X with the content rows permuted by certificate.perm, the read rows of T(X') differ
    from those of T(X) Pi (exact)."""
    p = R.obj(result["parameters"], "parameters", required=("transformer", "X", "tie", "content_rows", "read_rows"))
    R.expect_statement(result, _t11_text("content-equivariance-counterexample", p))
    X = _matrix(p["X"], "parameters.X")
    E, n = len(X), len(X[0])
    T = _transformer(p["transformer"], "parameters.transformer", E)
    tie = R.string(p["tie"], "parameters.tie", TIES)
    rows = {}
    for key in ("content_rows", "read_rows"):
        rows[key] = [R.integer(r, f"parameters.{key}[{i}]", 0, E - 1)
                     for i, r in enumerate(R.lst(p[key], f"parameters.{key}", 1, E))]
    cert = _cert(result, "perm")
    perm = _perm(cert["perm"], "certificate.perm", n)
    Xp = [[X[e][q] for q in perm] if e in rows["content_rows"] else X[e] for e in range(E)]
    Y, Yp = _cols(_evaluate(T, X, tie), perm), _evaluate(T, Xp, tie)
    if all(Y[e] == Yp[e] for e in rows["read_rows"]):
        raise Rejected("certificate.perm: the read rows agree (not a counterexample)")
    return f"content permutation {perm}: read rows of T(X') != T(X) Pi"


def _check_t11_identical(result):
    """PROVED: for each recorded (Transformer, x) and X = x 1^T (n tokens), under both tie rules, every state
    has equal columns and every attention sublayer maps Z to Z + sum_h W_O^h W_V^h Z (exact)."""
    p = result["parameters"]
    R.expect_statement(result, _t11_text("identical-tokens-instances", p))
    n = R.integer(p["n"], "parameters.n", 1, MAX_TOKENS)
    _cert(result)
    count, work = 0, 0
    for i, inst in enumerate(R.lst(p["instances"], "parameters.instances", 1, 256)):
        f = f"parameters.instances[{i}]"
        R.obj(inst, f, required=("transformer", "x"))
        x = _mat([inst["x"]], f"{f}.x", 1, None, BITS)[0]
        T = _transformer(inst["transformer"], f"{f}.transformer", len(x))
        work += 2 * n * n * _weights(T)
        if work > MAX_WORK // 10:
            raise Rejected(f"{f}: the instances exceed the kernel's work bound")
        for tie in TIES:
            states = _evaluate(T, [[v] * n for v in x], tie, trace=True)
            for (kind, sub), Z, Y in zip(T, states, states[1:]):
                col = [r[0] for r in Z]
                lin = col
                for WQ, WK, WV, WO in sub if kind == "attention" else ():
                    v = [_dot(r, col) for r in WV]
                    lin = [lin[e] + _dot(WO[e], v) for e in range(len(x))]
                if any(len(set(r)) != 1 for r in Y) or kind == "attention" and [r[0] for r in Y] != lin:
                    raise Rejected(f"{f}: {tie}: unequal columns or attention != Z + sum W_O W_V Z")
                count += 1
    return f"{count} sublayer applications on identical tokens, both tie rules"


def _check_t11_softmax(result):
    """PROVED: for each recorded Transformer (softmax(lambda * score) attention, ReLU FFN) and n = 1..n_max, with
    SymPy ``Dummy`` symbols for lambda > 0 and every token entry, and the ReLU an uninterpreted function,
    T(X Pi) is the *same* expression as T(X) Pi for every permutation Pi (SymPy sorts the terms of sums and
    products canonically, so structural identity is equality for all entries and lambda; anything else
    rejects -- no simplification is attempted).  Bounds: E <= 3, n_max <= 3, <= 3 sublayers, <= 10 instances."""
    import sympy

    p = R.obj(result["parameters"], "parameters", required=("n_max", "instances"))
    n_max = R.integer(p["n_max"], "parameters.n_max", 1, 3)
    R.expect_statement(result, _t11_text("softmax-equivariance-symbolic", p))
    _cert(result)
    lam, relu, count = sympy.Dummy("lambda", positive=True), sympy.Function("relu"), 0
    for i, inst in enumerate(R.lst(p["instances"], "parameters.instances", 1, 10)):
        f = f"parameters.instances[{i}]"
        R.obj(inst, f, required=("E", "transformer"))
        E = R.integer(inst["E"], f"{f}.E", 1, 3)
        T = _transformer(inst["transformer"], f"{f}.transformer", E)
        nums = [x for kind, sub in T for part in (sub if kind == "attention" else [sub]) for W in part
                for x in (W if W and not isinstance(W[0], list) else [y for r in W for y in r])]
        if len(T) > 3 or len(nums) > 200 or any(abs(x.numerator) > 10 ** 6 or x.denominator > 10 ** 6 for x in nums):
            raise Rejected(f"{f}: beyond the symbolic bounds (3 sublayers, 200 weights, 6 digits)")
        q = lambda W: [q(r) for r in W] if isinstance(W, list) else sympy.Rational(str(W))
        T = [(kind, [q(list(h)) for h in sub] if kind == "attention" else q(list(sub))) for kind, sub in T]
        for n in range(1, n_max + 1):
            X = [[sympy.Dummy(f"x{e}_{j}", real=True) for j in range(n)] for e in range(E)]
            Y = _sym_eval(T, X, lam, relu)
            for perm in itertools.permutations(range(n)):
                R.tick()
                if _sym_eval(T, _cols(X, perm), lam, relu) != _cols(Y, perm):
                    raise Rejected(f"{f}: T(X Pi) and T(X) Pi are not the same expression (n = {n}, Pi = {perm})")
                count += 1
    return f"{count} (instance, n, permutation) cases: T(X Pi) = T(X) Pi identically (SymPy, Dummy symbols)"


def _sym_eval(T, X, lam, relu):
    import sympy

    E, n = len(X), len(X[0])
    for kind, sub in T:
        cols = [[X[e][j] for e in range(E)] for j in range(n)]
        new = [list(c) for c in cols]
        for j in range(n):
            if kind == "ffn":
                W1, b1, W2, b2 = sub
                a = [relu(sympy.Add(*(w * x for w, x in zip(r, cols[j])), b)) for r, b in zip(W1, b1)]
                new[j] = [cols[j][e] + sympy.Add(*(w * y for w, y in zip(W2[e], a)), b2[e]) for e in range(E)]
                continue
            for WQ, WK, WV, WO in sub:
                q, k, v = ([[sympy.Add(*(w * x for w, x in zip(r, c))) for r in W] for c in cols] for W in (WQ, WK, WV))
                ex = [sympy.exp(lam * sympy.Add(*(a * b for a, b in zip(k[l], q[j])))) for l in range(n)]
                tot = sympy.Add(*ex)
                c = [sympy.Add(*(ex[l] * v[l][i] for l in range(n))) / tot for i in range(len(WV))]
                new[j] = [new[j][e] + sympy.Add(*(w * y for w, y in zip(WO[e], c))) for e in range(E)]
        X = [[new[j][e] for j in range(n)] for e in range(E)]
    return X


# -- registry ---------------------------------------------------------------------------------------------
def statement(kind: str, parameters: dict, conventions: dict) -> str:
    """The statement a Result of ``kind`` with these (JSON-level) parameters and conventions must carry."""
    if kind == "hardmax-max-tree":
        text = _t1_text(parameters)
    elif kind == "hardmax-max-witness":
        h = parameters["head"]
        text = _t1_text(parameters, [h["W_Q"], h["W_K"], h["W_V"], h["W_O"]])
    elif kind in ("tie-rule-agree", "tie-rule-differ"):
        text = _t1n_text(parameters)
    elif kind.startswith("gate-"):
        text = _t3_text(parameters)
    elif kind.startswith("group-isolation-"):
        text = _t5_text(parameters)
    else:
        text = _t11_text(kind, parameters)
    return R.bound_statement(text, parameters, conventions)


def _kind(claim, verdict, fn):
    from . import Kind

    return Kind(frozenset({claim}), verdict, frozenset({"exact"}), fn)


KINDS = {
    "hardmax-max-tree": _kind("T1", "proved", _check_t1_tree),
    "hardmax-max-witness": _kind("T1", "refuted", _check_t1_witness),
    "tie-rule-agree": _kind("T1", "proved", _check_t1n_agree),
    "tie-rule-differ": _kind("T1", "refuted", _check_t1n_differ),
    "gate-case-split": _kind("T3", "proved", _check_t3_split),
    "gate-points": _kind("T3", "proved", _check_t3_points),
    "gate-witness": _kind("T3", "refuted", _check_t3_witness),
    "group-isolation-tree": _kind("T5", "proved", _check_t5_tree),
    "group-isolation-instances": _kind("T5", "proved", _check_t5_instances),
    "group-isolation-witness": _kind("T5", "refuted", _check_t5_witness),
    "equivariance-instances": _kind("T11", "proved", _check_t11_instances),
    "equivariance-counterexample": _kind("T11", "refuted", _check_t11_counterexample),
    "content-equivariance-counterexample": _kind("T11", "refuted", _check_t11_content),
    "identical-tokens-instances": _kind("T11", "proved", _check_t11_identical),
    "softmax-equivariance-symbolic": _kind("T11", "proved", _check_t11_softmax),
}
