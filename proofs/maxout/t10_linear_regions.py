"""Audits of T10 (exact linear-region counts and depth growth; docs/paper1.md R7, O4, O6)."""

from verify.audit.spec import Audit
from verify.checks.t10_linear_regions import (check_depth_bound_table, check_grid_method, check_one_layer_ceiling,
                                              check_region_count, check_shallow_family, check_tent_counts,
                                              check_universal_reading, check_zigzag_counts)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

O2_SPEC = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                      {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}]}

THREE_LINES = {"layers": [{"W": [[["1", "0"], ["0", "0"]], [["0", "1"], ["0", "0"]], [["1", "1"], ["0", "0"]]],
                           "b": [["0", "0"], ["0", "0"], ["-1/2", "0"]]}],
               "readout": {"W": [["1", "-1", "2"]], "b": ["0"]}}
# d = 3: ReLUs on the planes x1, x2, x3, x1 + x2 + x3 = 1/2 and a second-layer unit (kind regions-polytope;
# 27 is also the count of an independent float-LP brute force over sign patterns, tests/test_polytope.py)
FOUR_PLANES_2L = {"layers": [{"W": [[["1", "0", "0"], ["0", "0", "0"]], [["0", "1", "0"], ["0", "0", "0"]],
                                    [["0", "0", "1"], ["0", "0", "0"]], [["1", "1", "1"], ["0", "0", "0"]]],
                              "b": [["0", "0"], ["0", "0"], ["0", "0"], ["-1/2", "0"]]},
                             {"W": [[["1", "-1", "1", "-2"], ["0", "0", "0", "0"]]], "b": [["-1/4", "0"]]}]}

# d = 3, linear pieces (kind regions-polytope-pieces; docs/regions.md, "Pieces in d >= 3"): ReLUs on x1 = 0 twice
# (relu(x1) - relu(-x1) = x1, so the two sides merge), x1 + x2 = 1/2, x2 = -1/3, x1 = x2; x3 is ignored
# (the 2-D count of the same network agrees, tests/test_polytope_pieces.py)
MERGE_3D = {"layers": [{"W": [[["1", "0", "0"], ["0", "0", "0"]], [["-1", "0", "0"], ["0", "0", "0"]],
                              [["1", "1", "0"], ["0", "0", "0"]], [["0", "1", "0"], ["0", "0", "0"]],
                              [["1", "-1", "0"], ["0", "0", "0"]]],
                        "b": [["0", "0"], ["0", "0"], ["-1/2", "0"], ["1/3", "0"], ["0", "0"]]}],
            "readout": {"W": [["1", "-1", "2", "-1", "1"]], "b": ["0"]}}
# relu(x1) - 2 relu(x1 - 1/2) + relu(x1 - 1): the map 0 on the slabs x1 < 0 and x1 > 1, which share no facet
HAT_3D = {"layers": [{"W": [[["1", "0", "0"], ["0", "0", "0"]]] * 3, "b": [["0", "0"], ["-1/2", "0"], ["-1", "0"]]}],
          "readout": {"W": [["1", "-2", "1"]], "b": ["0"]}}
HAT_BOX = [["-1", "2"], ["0", "1"], ["0", "1"]]

AUDITS = [
    Audit("T10", "tent-L1-14-compiled-L1-5", P, check_tent_counts, {"L_max": 14, "compiled_L_max": 5},
          description="2^L pieces for L = 1..14 (network; kernel-certified by the exact breakpoints); the compiled "
                      "Transformer's counts and T6 verdicts for L <= 5 are evidence (not in the statement)"),
    Audit("T10", "tent-L1-20-D60", P, check_tent_counts, {"L_max": 20, "compiled_L_max": 6}, quick=False,
          description="narrowed: the statement proves 2^L pieces for L = 1..14 (the largest breakpoint certificate "
                      "within the kernel's work bound) with depth tables c = 2, 3; the exact sweep up to L = 20 "
                      "(1048576 pieces) and the compiled counts are evidence"),
    Audit("T10", "depth-table-tent-c3-D45", P, check_depth_bound_table, {"family": "tent", "D_max": 45, "c": 3},
          description="brief's form 2^(floor(D/3)-1) with c = 3 sublayers per layer; narrowed to the certified rows "
                      "D <= 44 (L <= 14), D = 45 is evidence"),
    Audit("T10", "depth-table-tent-c2-D30", P, check_depth_bound_table, {"family": "tent", "D_max": 30, "c": 2},
          description="brief's form with our c = 2; narrowed to the certified rows D <= 29 (L <= 14)"),
    Audit("T10", "zigzag-q2-L8", P, check_zigzag_counts, {"q": 2, "L_max": 8, "compiled_L_max": 3}),
    Audit("T10", "zigzag-q3-L8", P, check_zigzag_counts, {"q": 3, "L_max": 8, "compiled_L_max": 3},
          description="narrowed: 3^L pieces certified for L = 1..7 (work bound); L = 8 is evidence"),
    Audit("T10", "zigzag-q4-L8", P, check_zigzag_counts, {"q": 4, "L_max": 8, "compiled_L_max": 2},
          description="narrowed: 4^L pieces certified for L = 1..6 (work bound); L = 7, 8 are evidence"),
    Audit("T10", "O2-exact-4-pieces", P, check_region_count,
          {"spec": O2_SPEC, "box": [["0", "1"]], "kind": "pieces", "expected": 4},
          quick=True, description="O2 has exactly 4 pieces (breaks 5/18, 9/26, 3/4); re-checkable certificate"),
    Audit("T10", "2d-three-lines-7-activation", P, check_region_count,
          {"spec": THREE_LINES, "box": [["-1", "1"], ["-1", "1"]], "kind": "activation", "expected": 7},
          description="2-D: ReLUs on x1, x2, x1 + x2 - 1/2 cut the square into 7 convex cells (exact polygons)"),
    Audit("T10", "n-2d-three-lines-not-8", R, check_region_count,
          {"spec": THREE_LINES, "box": [["-1", "1"], ["-1", "1"]], "kind": "activation", "expected": 8},
          description="a wrong expected count is refuted by the exact count"),
    Audit("T10", "n1-universal-reading", R, check_universal_reading, {"L": 4, "q": 2},
          description="T10.n1: max(2h, 2h), L = 4, D = 2L = 8 (the compiled depth) has 1 piece < 2; the compiled "
                      "Transformer's count is evidence"),
    Audit("T10", "n1-identical-pieces-table", R, check_depth_bound_table,
          {"family": "identical-pieces", "D_max": 12, "c": 2},
          description="the depth table of the identical-pieces family misses the bound"),
    Audit("T10", "n2-one-layer-ceiling", P, check_one_layer_ceiling, {"seeds": tuple(range(12)), "N": 3, "k": 3},
          description="T10.n2, narrowed to the 12 seeded instances (each counted exactly): <= 1 + N(k-1) pieces; "
                      "the universal ceiling is a lemma, no longer PROVED from samples"),
    Audit("T10", "n2-shallow-family-L3", R, check_shallow_family, {"L": 3, "q": 2},
          quick=True, description="T10.n2: width qL = 6, one layer: 1 + N = 7 < 2^3 pieces by the one-layer ceiling lemma "
                      "(the old refutation exhibited one instance only)"),
    Audit("T10", "n2-shallow-family-L5", R, check_shallow_family, {"L": 5, "q": 2}),
    Audit("T10", "n3-grid-720-on-O2", R, check_grid_method, {"network": "O2", "den": 720},
          description="T10.n3: the 1/720 grid finds 5 pieces, the exact counter 4"),
    Audit("T10", "grid-dyadic-on-tent", P, check_grid_method, {"network": "tent-6", "den": 128},
          description="control: {i/2^(L+1)} contains every breakpoint of the tent, so the grid count is exact"),
    Audit("T10", "3d-four-planes-two-layers-27-activation", P, check_region_count,
          {"spec": FOUR_PLANES_2L, "box": [["-1", "1"]] * 3, "kind": "activation", "expected": 27},
          description="d = 3: exact polyhedral cells of the open cube, 27 distinct activation patterns"),
    Audit("T10", "n-3d-four-planes-not-28", R, check_region_count,
          {"spec": FOUR_PLANES_2L, "box": [["-1", "1"]] * 3, "kind": "activation", "expected": 28},
          description="d = 3: a wrong expected count is refuted by the exact count (kind regions-polytope-miscount)"),
    Audit("T10", "3d-merge-pieces", P, check_region_count,
          {"spec": MERGE_3D, "box": [["-1", "1"]] * 3, "kind": "pieces", "expected": 7},
          description="d = 3 pieces: the regions on both sides of x1 = 0 with one map merge across it (exact merge "
                      "points); 7 pieces of 11 activation regions, as the 2-D count of the network without x3"),
    Audit("T10", "3d-hat-4-pieces-separated", P, check_region_count,
          {"spec": HAT_3D, "box": HAT_BOX, "kind": "pieces", "expected": 4},
          description="d = 3 pieces: the map 0 on two slabs whose closures are disjoint (exact Farkas separation): "
                      "4 pieces, 3 distinct maps"),
    Audit("T10", "n-3d-hat-not-3-pieces", R, check_region_count,
          {"spec": HAT_3D, "box": HAT_BOX, "kind": "pieces", "expected": 3},
          description="d = 3: counting distinct maps (3) is not counting pieces (4): refuted, kind "
                      "regions-polytope-pieces-miscount"),
]
