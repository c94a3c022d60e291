"""Teaching example: linear regions double with depth (paper 1, claim T10).

The tent map T(x) = 2 min(x, 1 - x) is one rank-2 maxout unit; composing it L times gives a
sawtooth with exactly 2^L linear pieces on [0, 1], while one layer of width N and rank 2 has at most
N + 1 pieces.  The counts below are exact (rational breakpoints, no grid).  Run:
    python3 examples/regions_double_with_depth.py
"""

from verify.decide.regions import count_regions
from verify.objects.maxout import MaxoutNetwork


def tent(depth):
    """T^depth as a maxout network: T(h) = 1 - |2h - 1| takes two rank-2 layers per application."""
    layer = ([[[2], [-2]]], [[-1, 1]])        # u = max(2h - 1, 1 - 2h) = |2h - 1| = 1 - T(h)
    back = ([[[-1], [-1]]], [[1, 1]])         # h = max(1 - u, 1 - u) = T(h)   (identical pieces)
    layers = []
    for _ in range(depth):
        layers += [layer, back]
    return MaxoutNetwork(layers)


print(f"{'L':>3} {'pieces':>8} {'2^L':>6}   one wide layer bound 1 + N(k-1) with N = 2L")
for L in range(1, 9):
    rc = count_regions(tent(L), [[0, 1]], kind="pieces")
    count = rc.count if hasattr(rc, "count") else rc
    print(f"{L:>3} {count:>8} {2 ** L:>6}   {1 + 2 * L}")
    assert count == 2 ** L
