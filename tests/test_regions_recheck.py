"""Independent re-checkers for emulation-regions and regions-count certificates; tampering is rejected."""

import copy
import json

import pytest

from verify.checks.t10_linear_regions import check_region_count
from verify.checks.t6_maxout_emulation import check_maxout_emulation, check_random_emulation, random_maxout
from verify.recheck import RecheckFailure, recheck


def _load(result):
    return json.loads(result.to_json())


@pytest.fixture(scope="module")
def o2_cert():
    return _load(check_maxout_emulation("O2", S=40))


@pytest.fixture(scope="module")
def d2_cert():
    return _load(check_random_emulation(seed=1, d=2, k=2, L=2, max_width=3))


def test_genuine_certificates_pass(o2_cert, d2_cert):
    assert "tile the box" in recheck(o2_cert)
    assert "tile the box" in recheck(d2_cert)


def _tamper_number(cert):
    bad = copy.deepcopy(cert)
    reg = next(r for r in bad["certificate"]["regions"] if r["dim"] == len(bad["certificate"]["box"]))
    reg["transformer"]["first"][0][0] = str(int(reg["transformer"]["first"][0][0].split("/")[0]) + 1) + (
        "/" + reg["transformer"]["first"][0][0].split("/")[1] if "/" in reg["transformer"]["first"][0][0] else "")
    return bad


@pytest.mark.parametrize("which", ["o2", "d2"])
def test_tampering_is_rejected(which, o2_cert, d2_cert):
    cert = o2_cert if which == "o2" else d2_cert
    with pytest.raises(RecheckFailure):
        recheck(_tamper_number(cert))
    dropped = copy.deepcopy(cert)
    regs = dropped["certificate"]["regions"]
    i = next(k for k, r in enumerate(regs) if r["dim"] == len(dropped["certificate"]["box"]))
    del regs[i]
    with pytest.raises(RecheckFailure):
        recheck(dropped)
    for dim in (0, 1):                  # the lower-dimensional regions of the closed cover are needed too
        if dim >= len(cert["certificate"]["box"]) and dim == 1:
            continue
        lower = copy.deepcopy(cert)
        regs = lower["certificate"]["regions"]
        i = next(k for k, r in enumerate(regs) if r["dim"] == dim)
        del regs[i]
        with pytest.raises(RecheckFailure):
            recheck(lower)
    moved = copy.deepcopy(cert)
    moved["certificate"]["network"]["layers"][0]["b"][0][0] = "7"
    with pytest.raises(RecheckFailure):
        recheck(moved)


def test_regions_count_certificates():
    net = random_maxout(3, 2, 2, 2, 3)
    r = check_region_count(net, [[-1, 1], [-1, 1]], "pieces", expected=1)
    cert = _load(r)
    recheck(cert)                      # the count is genuine even when it differs from the expectation
    o2 = _load(check_region_count(random_maxout(0, 1, 2, 2, 3), [[-1, 1]], "pieces", expected=3))
    recheck(o2)
    bad = copy.deepcopy(o2)
    bad["certificate"]["count"] += 1
    with pytest.raises(RecheckFailure):
        recheck(bad)
    bad = copy.deepcopy(o2)
    bad["verdict"] = "proved" if o2["verdict"] == "refuted" else "refuted"
    with pytest.raises(RecheckFailure):
        recheck(bad)
    bad = copy.deepcopy(cert)
    del bad["certificate"]["regions"][0]
    bad["certificate"]["count"] -= 1
    with pytest.raises(RecheckFailure):
        recheck(bad)


def test_refutation_witness_is_rechecked_independently():
    from verify.checks.t6_maxout_emulation import check_altered_emulation

    for r in (check_maxout_emulation("O2", S="3/2"),
              check_altered_emulation("random", seed=1, d=2, sublayer=3, name="W_O", index=(0, 0), delta="1/4")):
        d = _load(r)
        assert d["certificate"]["kind"] == "emulation-witness"
        assert "!=" in recheck(d)
        bad = copy.deepcopy(d)
        bad["certificate"]["witness"]["network"][0] = "0"
        with pytest.raises(RecheckFailure):
            recheck(bad)
        bad = copy.deepcopy(d)
        bad["certificate"]["transformer_sublayers"][-1]["heads"][0]["W_O"][0][0] = "0"
        with pytest.raises(RecheckFailure):
            recheck(bad)
