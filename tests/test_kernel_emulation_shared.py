"""The polyhedral-cell fast path of the kernel's Transformer evaluator (shared decision-free work on the fixed
frame 0, e_1, .., e_d; skipped zero terms; the value-keyed decide cache) against the evaluator as it was before
it: on every leaf of real certificates (ties included) the same decisions, the same forms certified in the same
order, the same outputs; and a forged entry is still rejected."""

import copy

import pytest

from verify.checks.t6_maxout_emulation import check_maxout_emulation
from verify.kernel import Rejected, _cells as C, _poly as P, emulation as K
from verify.kernel._cells import _Z, _dot, mpq, tick

_TWO3 = {"layers": [{"W": [[["1", "-1", "1"], ["0", "0", "0"]], [["1", "1", "-1"], ["0", "0", "0"]]],
                     "b": [["-1/2", "0"], ["0", "0"]]}], "readout": {"W": [["1", "-2"]], "b": ["1/3"]}}


# -- the evaluator before the fast path (vertices p, p + e_i of each cell; every value computed per cell) --------
def _old_lin(srow, col, m):
    out = [_Z] * m
    for j, c in srow:
        v = col[j]
        for i in range(m):
            out[i] += c * v[i]
    return out


def _old_eval(T, cell, tie):
    d, n, E, V = cell.ambient, T["n"], T["E"], cell.vertices
    m = len(V)
    one, xs = T["embed_one"], T["embed_x"]
    X = [[[one[e][j] + sum((xs[k][e][j] * v[k] for k in range(d)), _Z) for v in V] for e in range(E)]
         for j in range(n)]
    decisions = []
    for kind, s in T["sublayers"]:
        if kind == "ffn":
            new, dec = [], []
            for col in X:
                hidden = []
                for srow, b in zip(s["sW1"], s["b1"]):
                    u = [x + b for x in _old_lin(srow, col, m)]
                    sg = cell.decide(u)
                    dec.append(sg > 0)
                    hidden.append(u if sg > 0 else [_Z] * m)
                new.append([[a + c + s["b2"][e] for a, c in zip(col[e], _old_lin(s["sW2"][e], hidden, m))]
                            for e in range(E)])
            decisions.append(tuple(dec))
            X = new
        else:
            delta = [[[_Z] * m for _ in range(E)] for _ in range(n)]
            dec = []
            for hd in s:
                Q = [[_old_lin(r, col, m) for r in hd["sW_Q"]] for col in X]
                K_ = [[_old_lin(r, col, m) for r in hd["sW_K"]] for col in X]
                Vv = [[_old_lin(r, col, m) for r in hd["sW_V"]] for col in X]
                for j in range(n):
                    scores = [_dot(K_[l], Q[j], cell) for l in range(n)]
                    best = [0]
                    for l in range(1, n):
                        sg = cell.decide([a - b for a, b in zip(scores[l], scores[best[0]])])
                        if sg > 0:
                            best = [l]
                        elif sg == 0:
                            best.append(l)
                    dec.append(tuple(best))
                    chosen = best[:1] if tie == "first" else best
                    w = mpq(1, len(chosen))
                    val = [[w * sum((Vv[l][a][i] for l in chosen), _Z) for i in range(m)] for a in range(len(hd["W_V"]))]
                    for e in range(E):
                        if hd["sW_O"][e]:
                            delta[j][e] = [x + y for x, y in zip(delta[j][e], _old_lin(hd["sW_O"][e], val, m))]
            X = [[[a + b for a, b in zip(X[j][e], delta[j][e])] for e in range(E)] for j in range(n)]
            decisions.append(tuple(dec))
    col = X[T["read_token"]]
    out = [[x + b for x in _old_lin(srow, col, m)] for srow, b in zip(T["s_read_W"], T["read_b"])]
    return [cell.form(vals) for vals in out], tuple(decisions)


class _Logged(P.PolyCell):
    """The kernel's cell, recording every certified form (in order)."""
    __slots__ = ("log",)

    def certify(self, f, s):
        self.log.append((tuple(f), s))
        super().certify(f, s)


class _OldCell(_Logged):
    """The cell as it was: vertices p, p + e_i, no decide cache, no shared work."""
    __slots__ = ()
    SHARED_VERTICES = False

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.vertices = [self.p] + [tuple(c + (k == i) for k, c in enumerate(self.p)) for i in range(self.ambient)]

    def form(self, vals):
        lin = [v - vals[0] for v in vals[1:]]
        return (vals[0] - sum((c * x for c, x in zip(lin, self.p)), _Z),) + tuple(lin)

    def decide(self, vals, f=None):
        return self.sign(self.form(vals))

    def is_constant(self, vals):
        g = self.form([v - vals[0] for v in vals])
        if not any(g[1:]):
            return True
        return bool(self.E) and P.solve([[e[k] for e in self.E] for k in range(self.ambient + 1)], list(g)) is not None


def _leaves(result_dict, cls, evaluator, monkeypatch):
    p = result_dict["parameters"]
    _, net, T, bx, rules, _, _ = K._read_params(p)
    monkeypatch.setattr(P, "PolyCell", cls)
    seen = []

    def leaf(cell):
        cell.log = []
        phi, _ = C.eval_maxout(net, cell)
        for rule in rules:
            out, dec = evaluator(T, cell, rule)
            assert all(cell.sign(C.sub(a, b)) == 0 for a, b in zip(phi, out))
            seen.append((rule, tuple(map(tuple, out)), dec))
        seen.append(tuple(cell.log))

    P.walk(result_dict["certificate"]["roots"], P.roots(bx), leaf)
    monkeypatch.undo()
    return seen


@pytest.mark.parametrize("spec,box,tie", [(_TWO3, [["0", "1"]] * 3, "both")])
def test_fast_evaluator_equals_the_old_one_on_every_leaf(spec, box, tie, monkeypatch):
    r = check_maxout_emulation(spec, box=box, tie=tie)
    assert r.verdict.value == "proved"
    rd = r.to_dict()
    new = _leaves(rd, _Logged, C.eval_transformer, monkeypatch)
    old = _leaves(rd, _OldCell, _old_eval, monkeypatch)
    assert len(new) == len(old) > 20
    assert new == old
    assert any(len(a) > 1 for item in new if len(item) == 3 for dec in item[2] for a in dec
               if isinstance(a, tuple))                          # hardmax ties were met


def test_memo_clearing_changes_nothing(monkeypatch):
    r = check_maxout_emulation(_TWO3, box=[["0", "1/2"]] * 3, tie="average").to_dict()
    want = K._check_polytope(r)
    monkeypatch.setattr(C, "MEMO_MAX", 3)
    assert K._check_polytope(r) == want


def test_forged_entry_still_rejected_after_shared_work():
    """The same forged sign entry is rejected whether or not earlier cells filled the memo."""
    rd = check_maxout_emulation(_TWO3, box=[["0", "1"]] * 3, tie="average").to_dict()
    K._check_polytope(rd)
    stack, leaves = [n for n in rd["certificate"]["roots"]], []
    while stack:
        n = stack.pop()
        if n and "children" in n:
            stack.extend(n["children"])
        elif n and n.get("signs"):
            leaves.append(n)
    assert len(leaves) > 5
    for node in leaves[:: max(1, len(leaves) // 5)]:
        bad = copy.deepcopy(rd)
        target = _find(bad["certificate"]["roots"], node)
        e = target["signs"][-1]
        target["signs"][-1] = {"l": []} if e == "box" or "y" in e else {"y": [], "l": []}
        with pytest.raises(Rejected):
            K._check_polytope(bad)


def _find(roots, node):
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n and "children" in n:
            stack.extend(n["children"])
        elif n == node:
            return n
    raise AssertionError
