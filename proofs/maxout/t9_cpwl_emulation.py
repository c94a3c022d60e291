"""Audits of T9 (CPWL -> one FFN + one 2-head attention layer; docs/paper1.md R8, O8)."""

from verify.audit.spec import Audit, seeded_instances
from verify.checks.t9_cpwl_emulation import (check_breakpoint_emulation, check_dc_emulation,
                                             check_random_cpwl_emulation)
from verify.results import Verdict

P, R = Verdict.PROVED, Verdict.REFUTED

O8_G = [[[1], 0], [[-1], 0]]
O8_H = [[[2], -2], [[-2], 2]]

AUDITS = [
    Audit("T9", "O8-dc-S16", P, check_dc_emulation, {"g_pieces": O8_G, "h_pieces": O8_H, "box": [[-3, 3]], "S": 16},
          description="O8: |x| - 2|x - 1| on [-3, 3], n = 2, E = 7, FFN width 8, S = 16"),
    Audit("T9", "O8-dc-S8", P, check_dc_emulation, {"g_pieces": O8_G, "h_pieces": O8_H, "box": [[-3, 3]], "S": 8},
          description="O8 with S = 8 (the certified bound)"),
    Audit("T9", "O8-breakpoint-form", P, check_breakpoint_emulation,
          {"x0": -3, "x_end": 3, "breakpoints": [0, 1], "slopes": [1, 3, -1], "value0": -5},
          description="O8 given by breakpoints (x - 2 | 3x - 2 | 2 - x), split into its DC form"),
    Audit("T9", "2d-example", P, check_dc_emulation,
          {"g_pieces": [[[1, 0], 0], [[0, 1], 0], [[-1, -1], 0]], "h_pieces": [[[1, -1], 0], [[-1, 1], 0]],
           "box": [[-1, 1], [-1, 1]]},
          description="max(x1, x2, -x1 - x2) - max(x1 - x2, x2 - x1) on [-1, 1]^2 (3 tokens, repeat padding)"),
    Audit("T9", "n-zero-padding", R, check_dc_emulation,
          {"g_pieces": [[[1], 0], [[-1], 0], [[2], -3]], "h_pieces": [[[1], -5]], "box": [[-3, 3]],
           "padding": "zero", "witness": [0]},
          quick=True, description="T9.n: zero padding, h-head returns max(x - 5, 0, 0) = 0, output 0 instead of f(0) = 5"),
    Audit("T9", "n-zero-padding-region-witness", R, check_dc_emulation,
          {"g_pieces": [[[1], 0], [[-1], 0], [[2], -3]], "h_pieces": [[[1], -5]], "box": [[-3, 3]],
           "padding": "zero"},
          description="the same, witness found by the exact region decomposition"),
    Audit("T9", "repeat-padding-control", P, check_dc_emulation,
          {"g_pieces": [[[1], 0], [[-1], 0], [[2], -3]], "h_pieces": [[[1], -5]], "box": [[-3, 3]]},
          quick=True, description="control: padding by repetition is exact on [-3, 3]"),
    # d = 3: exact polyhedral cells (kernel kind emulation-polytope; docs/regions.md, "Polyhedral cells in any
    # dimension"), the same R8 construction as in 1-D and 2-D
    Audit("T9", "3d-example", P, check_dc_emulation,
          {"g_pieces": [[[1, 0, 0], 0], [[0, 1, 0], 0], [[0, 0, 1], 0]],
           "h_pieces": [[[1, -1, 0], 0], [[-1, 1, 0], 0]], "box": [[-1, 1]] * 3},
          description="max(x1, x2, x3) - |x1 - x2| on [-1, 1]^3 (3 tokens, repeat padding), polyhedral cells"),
    Audit("T9", "n-zero-padding-3d", R, check_dc_emulation,
          {"g_pieces": [[[1, 0, 0], 0], [[-1, 0, 0], 0], [[0, 1, 1], -1]], "h_pieces": [[[1, 1, -1], -2]],
           "box": [[-1, 1]] * 3, "padding": "zero"},
          quick=True, description="T9.n in d = 3: zero padding makes the h-head max(h, 0); h < 0 on the whole box, "
                                  "so the output differs (witness found by the search)"),
    Audit("T9", "repeat-padding-control-3d", P, check_dc_emulation,
          {"g_pieces": [[[1, 0, 0], 0], [[-1, 0, 0], 0], [[0, 1, 1], -1]], "h_pieces": [[[1, 1, -1], -2]],
           "box": [[-1, 1]] * 3},
          description="control: the same function with padding by repetition is exact on [-1, 1]^3"),
]
# formerly one audit "random-1d-2-8-breakpoints" PROVED a universal statement from 14 samples; now each seeded
# function is its own Result whose statement names that function by its network weights
AUDITS += seeded_instances("T9", "random-1d-{i}", P, check_random_cpwl_emulation, 14, 20260309,
                           "random 1-D CPWL function {i} of the seeded family (2..8 rational breakpoints, slopes "
                           "in [-2, 2])")
