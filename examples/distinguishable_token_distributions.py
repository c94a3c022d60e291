"""Teaching example: when can attention tell token distributions apart? (paper 2, claims N3-N7)

Attention reads a token distribution mu only through the gradient of its cumulant generating
function Lambda_mu(theta) = log E exp(<theta, Y>).  The attention NTK is positive definite exactly when
the Lambda_i are linearly independent modulo affine functions.  Translates of one law differ by an
affine function (dependent: the NTK is singular), dilations do not (independent: PD).  Run:
    python3 examples/distinguishable_token_distributions.py
The notebook examples/distinguishable_token_distributions.ipynb tells the same story with figures.
"""

import textwrap

import verify

beta = verify.Discrete([[0, 0], [1, 0], [0, 1]])
shifted = beta.translated(["1/2", "-1/5"])       # Y + a
dilated = beta.dilated(2)                         # 2 Y

cases = [
    ("beta and its translate", [beta, shifted]),
    ("beta and its dilation by 2", [beta, dilated]),
    ("Gaussians with covariances I, 2I, 3I", [verify.Gaussian([[1, 0], [0, 1]]), verify.Gaussian([[2, 0], [0, 2]]),
                                              verify.Gaussian([[3, 0], [0, 3]])]),
]


def show(name, word, r):
    print(f"{name:<40} {word:<12} {r.verdict.value.upper()} ({r.method.value})")
    text = r.certificate.get("summary") or r.evidence.get("summary") or ""
    for line in textwrap.wrap(str(text), 96):
        print("    " + line)


print("Independence of the CGFs modulo affine functions (PROVED = independent):\n")
for name, laws in cases:
    r = verify.independent_mod_affine(laws, modulo="affine")
    show(name, {"proved": "independent", "refuted": "dependent", "inconclusive": "undecided"}[r.verdict.value], r)

print("\nNTK Gram with two shared queries (PROVED = positive definite <=> independent):\n")
queries = [[1, 0], [0, 1]]
for name, laws in cases[:2]:
    r = verify.ntk_positive_definite(laws, queries, heads=16, seed=1)
    show(name, {"proved": "PD", "refuted": "singular", "inconclusive": "undecided"}[r.verdict.value], r)
