"""Teaching example: linear regions double with depth (paper 1, claim T10).

The tent map T(x) = 2 min(x, 1 - x) is one rank-2 maxout unit; composing it L times gives a
sawtooth with exactly 2^L linear pieces on [0, 1], while one layer of width N and rank 2 has at most
N + 1 pieces.  The counts below are exact (rational breakpoints, no grid).  Run:
    python3 examples/regions_double_with_depth.py
The notebook examples/regions_double_with_depth.ipynb draws the counts and the pieces.
"""

import verify


def tent(depth):
    """T^depth as a maxout network: T(h) = 1 - |2h - 1| takes two rank-2 layers per application."""
    layer = ([[[2], [-2]]], [[-1, 1]])        # u = max(2h - 1, 1 - 2h) = |2h - 1| = 1 - T(h)
    back = ([[[-1], [-1]]], [[1, 1]])         # h = max(1 - u, 1 - u) = T(h)   (identical pieces)
    return verify.MaxoutNetwork([layer, back] * depth)


print(f"{'L':>3} {'pieces':>8} {'2^L':>6}   {'one wide layer: 1 + N(k-1), N = 2L':>36}")
for L in range(1, 9):
    rc = verify.count_regions(tent(L), [[0, 1]], kind="pieces")
    print(f"{L:>3} {rc.count:>8} {2 ** L:>6}   {1 + 2 * L:>36}")
    assert rc.count == 2 ** L
print("\nthe pieces of T^2:", verify.count_regions(tent(2), [[0, 1]])._repr_markdown_(), sep="\n")
