"""Samples of the refuted emulation kinds (emulation-witness, emulation-sizes) for the generic mutation test,
and their own checks.  Kept apart from tests/test_kernel_emulation.py because their free paths differ."""

import copy
import functools
import json

import pytest

from verify import kernel
from verify.kernel import Rejected, emulation as K

# free paths: a refutation stays true and proved when a parameter changes without changing what it refutes:
# * parameters.network / parameters.transformer: a weight that the witness point does not use (a piece that is not
#   the maximum at x, a gate row that is inactive at x) can change while T(x) and Phi(x) -- recomputed by the
#   kernel and compared with the certificate -- stay the same; every other change is caught by those values or by
#   the recomputed sizes.  For emulation-sizes, a non-zero weight changed to another non-zero keeps every size.
# * parameters.box: a larger box still contains the witness (a box that loses it is rejected).
KERNEL_FREE_PATHS = [r"^parameters\.(network|transformer|box)\b"]


def _d(r):
    return json.loads(r.to_json())


@functools.lru_cache(maxsize=None)
def _o2_witness():
    from verify.checks.t6_maxout_emulation import check_maxout_emulation

    return _d(check_maxout_emulation("O2", S="3/2"))


@functools.lru_cache(maxsize=None)
def _shared_head():
    from verify.checks.t8_relu_emulation import check_shared_head

    return _d(check_shared_head("1/2"))


@functools.lru_cache(maxsize=None)
def _sizes_shared_head():
    """The shared-head Transformer of T8.n claimed to have the R4 sizes (it has 1 head of size 2, not 2 of 1)."""
    from verify.decide.emulation import AlteredCompiled, prove_emulation
    from verify.checks.t8_relu_emulation import check_shared_head  # noqa: F401  (builds the same object below)
    from verify.constructions.maxout_compiler import compile_maxout
    from verify.objects.maxout import MaxoutNetwork
    from verify.objects.transformer import Attention, Head, Transformer

    net = MaxoutNetwork.from_relu([[[1], [-1]]], [[0, 0]])
    comp = compile_maxout(net, [[-1, 1]])
    T, E = comp.transformer, comp.transformer.embedding_dim
    names = list(T.coordinate_names)
    one, z1, z2, h1, h2 = (names.index(c) for c in ("one", "z_1", "z_2", "h_1", "h_2"))
    row = lambda i: [1 if e == i else 0 for e in range(E)]
    shared = Head([row(one), [0] * E], [row(z1), [0] * E], [row(z1), row(z2)],
                  [[1 if e == h1 else 0, 1 if e == h2 else 0] for e in range(E)])
    alt = AlteredCompiled(comp, Transformer([T.sublayers[0], Attention([shared])], coordinate_names=names))
    return _d(prove_emulation((net, alt), [(-1, 1)], formula="R4", claim="T8"))


@functools.lru_cache(maxsize=None)
def _sizes_dc():
    """The O8 difference-of-maxima Transformer claimed to have the R4 sizes of its one-layer network."""
    from verify.decide.emulation import prove_emulation
    from verify.checks.t9_cpwl_emulation import _dc_as_maxout
    from verify.constructions.cpwl_compiler import compile_cpwl
    from verify.objects.cpwl import DCFunction

    f = DCFunction([([1], 0), ([-1], 0)], [([2], -2), ([-2], 2)])
    comp = compile_cpwl(f, [[-3, 3]], S=16)
    return _d(prove_emulation((f, comp), [[-3, 3]], network=_dc_as_maxout(comp), formula="R4", claim="T9"))


def kernel_samples():
    return [_o2_witness(), _shared_head(), _sizes_shared_head(), _sizes_dc()]


def _check(r):
    return kernel.check(copy.deepcopy(r), seconds=60)


def _restated(sample, kind, **parameters):
    """A copy of ``sample`` with ``parameters`` changed and the statement rebuilt by the kernel for ``kind``."""
    r = copy.deepcopy(sample)
    r["parameters"].update(parameters)
    r["statement"] = K.statement(r["parameters"], r["conventions"], kind)
    return r


def test_genuine_refutations_accepted():
    assert _check(_o2_witness()) == "emulation-witness: T(x) != Phi(x) at x = (0), tie average"
    assert _check(_shared_head()) == "emulation-witness: T(x) != Phi(x) at x = (1/2), tie average"
    assert _check(_sizes_shared_head()) == "emulation-sizes: heads, head_sizes, attention_nonzeros " \
                                           "differ from the R4 formula"
    assert _check(_sizes_dc()) == "emulation-sizes: ffn_widths, W2_nonzeros differ from the R4 formula"
    assert "(n = 2 tokens, E = 7, D = 2 sublayers FA, heads 1 of sizes (2), FFN widths 16, non-zeros W1 28, W2 16, " \
           "attention 6) and the maxout network (d = 1, rank 2, widths 2): its sizes are those of R4: n = k tokens" \
           in _sizes_shared_head()["statement"]
    assert _o2_witness()["certificate"] == {"kind": "emulation-witness", "x": ["0"], "tie": "average",
                                            "network": ["7/6"], "transformer": ["2/3"]}


@pytest.mark.parametrize("edit, match", [
    (lambda r: r["certificate"].update(x=["2"]), "not in the box"),
    (lambda r: r["certificate"].update(x=["1"]), "certificate.network: the network's value at x is"),
    (lambda r: r["certificate"].update(tie="both"), "certificate.tie"),
    (lambda r: r["certificate"].update(network=["7/6", "0"]), "expected 1..1"),
    (lambda r: r["certificate"].update(network=["1"]), "certificate.network"),
    (lambda r: r["certificate"].pop("transformer"), "missing key"),
    (lambda r: r.update(verdict="proved"), "supports the verdict 'refuted'"),
    (lambda r: r["parameters"]["sizes"].update(tokens=3), "parameters.sizes"),
])
def test_witness_tampering_rejected(edit, match):
    r = copy.deepcopy(_o2_witness())
    edit(r)
    with pytest.raises(Rejected, match=match):
        kernel.check(r, seconds=60)


def test_witness_of_another_tie_rule_only_if_listed():
    r = _restated(_o2_witness(), "emulation-witness", tie="first")
    with pytest.raises(Rejected, match="certificate.tie: 'average' is not one of 'first'"):
        kernel.check(r, seconds=60)
    r["certificate"]["tie"] = "first"
    assert kernel.check(r, seconds=60).endswith("tie first")


def test_sizes_refutation_needs_a_violated_formula():
    r = _restated(_sizes_dc(), "emulation-sizes", formula="R8")
    with pytest.raises(Rejected, match="the sizes satisfy the R8 formula"):
        kernel.check(r, seconds=60)
    del r["parameters"]["formula"]
    with pytest.raises(Rejected, match="needs the formula it refutes"):
        kernel.check(r, seconds=60)
    r = copy.deepcopy(_sizes_dc())
    r["certificate"]["why"] = "trust me"
    with pytest.raises(Rejected, match="unknown key"):
        kernel.check(r, seconds=60)


def test_hostile_witness_numbers():
    r = copy.deepcopy(_o2_witness())
    r["certificate"]["x"] = ["1/" + "7" * 4999]
    with pytest.raises(Rejected):
        kernel.check(r, seconds=60)
    r["certificate"]["x"] = ["1" * 6000]
    with pytest.raises(Rejected, match="not an exact number"):
        kernel.check(r, seconds=60)


def test_cost_of_a_size_two_head():
    """The work count of the shared-head Transformer, term by term: network 2 x 2 x (1 + 1) = 8; residual
    E x D x n = 7 x 2 x 2 = 28; FFN n (28 + 16 + 16) = 120; the head n x 6 non-zeros + n^2 x size 2 = 12 + 8."""
    from verify.kernel import _cells as C

    r = _sizes_shared_head()
    net = C.read_maxout(r["parameters"]["network"], "n")
    T = C.read_transformer(r["parameters"]["transformer"], "T")
    assert K._cost(net, T) == 8 + 28 + 120 + 12 + 8
