"""Teaching example: a hardmax attention head computes max (paper 1, claims T1 and T2).

One head whose value equals its score writes max_l z_l into every token.  With softmax(lambda *)
instead of hardmax the result is below the max by at most W0((n-1)/e)/lambda, and that bound is
attained.  Run:  python3 examples/hardmax_computes_max.py
The notebook examples/hardmax_computes_max.ipynb tells the same story with figures.
"""

from fractions import Fraction

import verify

# coordinates of a token: (z, one, out); tokens are the columns of X
head = verify.Head(W_Q=[[0, 1, 0]],          # query  = one
                   W_K=[[1, 0, 0]],          # key    = z   -> score of key l for query j is z_l
                   W_V=[[1, 0, 0]],          # value  = z   (value = score)
                   W_O=[[0], [0], [1]])      # write into "out"
T = verify.Transformer([verify.Attention([head])], coordinate_names=["z", "one", "out"])
print(T)

examples = [[3, -1, "5/2"], ["1/3", "1/3", "-2"], [0, 0, 0, 0], ["-7/2", "1/2", "1/2", "-1"]]
print("\nhardmax: the 'out' row of every token equals max z (exact rationals), under both tie rules")
for z in examples:
    n = len(z)
    X = [z, [1] * n, [0] * n]
    zmax = max(Fraction(v) for v in z)
    for tie in ("average", "first"):
        out = T.evaluate(X, tie=tie)[2]
        assert all(o == zmax for o in out), (z, tie, out)
    zs = "(" + ", ".join(str(Fraction(v)) for v in z) + ")"
    print(f"  z = {zs:<22} max = {str(zmax):<5} out = ({', '.join(str(o) for o in out)})")

print("\nsoftmax(lambda * score): certified enclosures of max z - out, and the bound W0((n-1)/e)/lambda")
z = [3, -1, "5/2"]
X = [z, [1, 1, 1], [0, 0, 0]]
for lam in (1, 10, 100):
    out = T.evaluate(X, attention="softmax", scale=lam)[2][0]     # an arb ball (rigorous)
    err = 3 - out
    bound = verify.sharp_bound(3, lam)
    print(f"  lambda = {lam:>4}: error in {err.str(8, radius=True):<34} bound {bound.str(8)}")

r = verify.check_softmax_bound(3, 10, search_points=200, local_starts=1)
print("\nT2 check for n = 3, lambda = 10:", r.summary())
