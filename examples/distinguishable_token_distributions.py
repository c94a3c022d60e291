"""Teaching example: when can attention tell token distributions apart? (paper 2, claims N3-N7)

Attention reads a token distribution mu only through the gradient of its cumulant generating
function Lambda_mu(theta) = log E exp(<theta, Y>).  The attention NTK is positive definite exactly when
the Lambda_i are linearly independent modulo affine functions.  Translates of one law differ by an
affine function (dependent: the NTK is singular), dilations do not (independent: PD).  Run:
    python3 examples/distinguishable_token_distributions.py
"""

from verify.decide.independence import independent_mod_affine
from verify.decide.ntk import ntk_positive_definite
from verify.laws import Discrete, Gaussian

beta = Discrete([[0, 0], [1, 0], [0, 1]])
shifted = beta.translated(["1/2", "-1/5"])       # Y + a
dilated = beta.dilated(2)                         # 2 Y

cases = [
    ("beta and its translate", [beta, shifted]),
    ("beta and its dilation by 2", [beta, dilated]),
    ("Gaussians with covariances I, 2I, 3I (CGFs c |theta|^2 / 2)", [Gaussian([[1, 0], [0, 1]]), Gaussian([[2, 0], [0, 2]]),
                                                Gaussian([[3, 0], [0, 3]])]),
]
for name, laws in cases:
    r = independent_mod_affine(laws, modulo="affine")
    word = {"proved": "independent", "refuted": "DEPENDENT", "inconclusive": "undecided"}[r.verdict.value]
    print(f"{name:<56} {word:<12} {r.summary(110)}")

print("\nNTK Gram with two shared queries (PD <=> independent modulo affine functions):")
queries = [[1, 0], [0, 1]]
for name, laws in cases[:2]:
    r = ntk_positive_definite(laws, queries, heads=16, seed=1)
    print(f"{name:<56} {r.verdict.value:<12} {r.summary(110)}")
