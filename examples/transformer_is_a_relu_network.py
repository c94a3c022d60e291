"""Teaching example: a Transformer that *is* a ReLU network (paper 1, claims T6 and T8).

A ReLU network is a rank-2 maxout network (ReLU(t) = max(t, 0)); the R4 compiler turns it into a
hardmax Transformer with k = 2 tokens, and the exact region decomposition proves the two are equal
at every point of the box -- not just at sample points.  Run:
    python3 examples/transformer_is_a_relu_network.py
The notebook examples/transformer_is_a_relu_network.ipynb shows the Transformer sublayer by sublayer.
"""

import verify

# f(x) = ReLU(x) - 2 ReLU(x - 1/2) + ReLU(x - 1): a hat on [0, 1]  (one hidden layer of width 3)
net = verify.MaxoutNetwork.from_relu([[[1], [1], [1]]], [[0, "-1/2", -1]], readout=([[1, -2, 1]], [0]))
box = [[-1, 2]]
compiled = verify.compile_maxout(net, box)
print(net)
print("\nTransformer sizes (compiled with R4):")
for key, value in compiled.sizes().items():
    if key != "formula":
        print(f"  {key:<24} {', '.join(map(str, value)) if isinstance(value, list) else value}")

print("\nexact values at a few points (network vs Transformer):")
for x in ("-1", "0", "1/4", "1/2", "3/4", "1", "2"):
    a, b = net.evaluate([x]), compiled([x])
    print(f"  x = {x:>4}:  {str(a[0]):>5}  {str(b[0]):>5}")
    assert a == b

r = verify.prove_emulation(compiled, box)
print("\nT6 on the whole box:", r.summary())
assert r.proved

# an altered weight is caught with an exact witness: the Transformer compiled from another network,
# compared with `net` (the kernel evaluates both from their recorded weights)
wrong = verify.compile_maxout(verify.MaxoutNetwork.from_relu([[[1], [1], [1]]], [[0, "-1/2", -1]],
                                                             readout=([[1, -2, "3/2"]], [0])), box)
r2 = verify.prove_emulation((net, wrong), box)
print("altered readout weight:", r2.summary())
assert r2.refuted

# a Python callable has no recorded weights, so no certificate can be re-checked: INCONCLUSIVE, never PROVED
r3 = verify.prove_emulation((net, lambda x, ops: wrong(x, ops=ops)), box)
print("the same as a Python callable:", r3.summary())
assert r3.inconclusive
