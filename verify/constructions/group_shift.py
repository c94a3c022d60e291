"""Group isolation by a score shift (docs/paper1.md R4'): one head returns the maximum within each group.

n tokens in N groups; token l carries the group one-hot g_l and a value z_l with |z_l| <= C.  Coordinates
``[g_1..g_N | z | one | out]`` (E = N + 3; the layout :func:`group_layout`).  One head of size N + 1 (query reads
g, one; key reads g, z; value reads z; output writes out):

* query at token j = (M g_j, 1), key at token l = (g_l, z_l), so score_lj = M [g_l = g_j] + z_l;
* value = z_l, written to ``out``.

If M > 2C the in-group scores lie in [M - C, M + C] and all others in [-C, C], so hardmax returns
max_{l in group(j)} z_l under every tie rule.  At M = 2C the sets touch and ties across groups break it.

>>> gs = GroupShiftHead(M=2, C=1, groups=[0, 0, 1, 1])          # the M = 2C counterexample
>>> gs([-1, -1, 1, 0], tie="average")[0], gs([-1, -1, 1, 0], tie="first")[0]
(Fraction(-1, 3), Fraction(-1, 1))
>>> GroupShiftHead(M="201/100", C=1, groups=[0, 0, 1, 1])([-1, -1, 1, 0])[0]
Fraction(-1, 1)
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.exact import fraction_str, parse_positive, plain
from ..errors import InputError, InputTypeError, SizeLimitError
from ..objects.layout import Layout
from ..objects.maxout import coerce_input
from ..arith.context import EXACT, Context
from ..objects.transformer import Attention, Head, Transformer

__all__ = ["GroupShiftHead", "MAX_GROUP_TOKENS", "group_layout"]

MAX_GROUP_TOKENS = 256


def group_layout(n_groups: int) -> Layout:
    """The R4' residual layout: blocks g (N: the group one-hot), z (the value), one (1), out (the result)."""
    return Layout([("g", n_groups), "z", "one", "out"])


class GroupShiftHead:
    """The R4' construction for a fixed token-to-group assignment ``groups`` (group index per token, 0-based,
    every group 0..N-1 non-empty).  ``embed(z)``, ``read(X)`` (the ``out`` coordinate of every token),
    ``__call__(z, tie, ops)``, ``expected(z)`` (the group maxima, computed directly), ``transformer``,
    ``layout`` (:func:`group_layout`)."""

    def __init__(self, M, C, groups):
        self.M = parse_positive(M, "M")
        self.C = parse_positive(C, "C", strict=False)
        if not isinstance(groups, (list, tuple)) or not groups:
            raise InputTypeError("groups", "expected a non-empty list of group indices (one per token)")
        if len(groups) > MAX_GROUP_TOKENS:
            raise SizeLimitError("groups", f"{len(groups)} tokens exceed the limit {MAX_GROUP_TOKENS}")
        for l, g in enumerate(groups):
            if not isinstance(g, int) or isinstance(g, bool) or g < 0:
                raise InputError(f"groups[{l}]", f"must be a group index >= 0, got {g!r}")
        N = max(groups) + 1
        missing = sorted(set(range(N)) - set(groups))
        if missing:
            raise InputError("groups", f"group(s) {missing} have no token (indices must be 0..N-1)")
        self.groups = tuple(groups)
        self.n_groups = N
        self.n_tokens = len(groups)
        L = self.layout = group_layout(N)
        W_Q = [L.unit("g", r, self.M) for r in range(N)] + [L.unit("one")]
        W_K = [L.unit("g", r) for r in range(N)] + [L.unit("z")]
        W_V = [L.unit("z")] + [L.row({}) for _ in range(N)]
        W_O = [list(col) for col in zip(*([L.unit("out")] + [L.row({}) for _ in range(N)]))]
        head = Head(W_Q, W_K, W_V, W_O, reads={"query": ["g", "one"], "key": ["g", "z"], "value": ["z"]},
                    writes=["out"])
        self.transformer = Transformer([Attention([head])], layout=L)
        self.coordinate_names = L.labels()

    @property
    def hypothesis_holds(self) -> bool:
        """M > 2C (strict)."""
        return self.M > 2 * self.C

    def _z(self, z):
        z = plain(z)
        if not isinstance(z, (list, tuple)) or len(z) != self.n_tokens:
            raise InputError("z", f"expected {self.n_tokens} values (one per token)")
        return tuple(coerce_input(v, f"z[{l}]") for l, v in enumerate(z))

    def embed(self, z) -> tuple:
        z = self._z(z)
        zero = z[0] * 0
        return self.layout.stack({"g": [tuple(zero + (1 if g == i else 0) for g in self.groups)
                                        for i in range(self.n_groups)],
                                  "z": [z], "one": [tuple(zero + 1 for _ in z)], "out": [tuple(zero for _ in z)]})

    def read(self, X) -> tuple:
        return tuple(X[self.layout.index("out")])

    def __call__(self, z, tie: str = "average", ops: Context = EXACT) -> tuple:
        return self.read(self.transformer.evaluate(self.embed(z), attention="hardmax", tie=tie, ops=ops))

    def expected(self, z) -> tuple:
        """max over the token's group of z (exact Fractions)."""
        z = self._z(z)
        best = {}
        for g, v in zip(self.groups, z):
            best[g] = v if g not in best else max(best[g], v)
        return tuple(best[g] for g in self.groups)

    def __repr__(self):
        return (f"GroupShiftHead(M={fraction_str(self.M)}, C={fraction_str(self.C)}, groups={list(self.groups)})")
