"""regions-count Results are re-checked by the kernel (verify.kernel.regions), independent of the search code;
tampering is rejected.  (The emulation-regions / emulation-witness parts of the old re-checker tests moved to
the emulation kernel's tests, tests/test_kernel_emulation*.py.)"""

import copy
import json

import pytest

from verify import kernel
from verify.checks.t10_linear_regions import check_region_count
from verify.constructions.reference_networks import random_maxout
from verify.kernel import regions as KR
from verify.kernel._read import Rejected


def _load(result):
    return json.loads(result.to_json())


def _restate(r):
    r["statement"] = KR.statement("count", r["parameters"], r["conventions"])
    return r


def test_regions_count_certificates():
    net = random_maxout(3, 2, 2, 2, 3)
    r = _load(check_region_count(net, [[-1, 1], [-1, 1]], "pieces", expected=1))
    assert "regions-count" in kernel.check(r) or "regions-miscount" in kernel.check(r)
    exact = _load(check_region_count(net, [[-1, 1], [-1, 1]], "pieces"))
    assert exact["verdict"] == "proved" and kernel.check(exact).startswith("regions-count:")
    one = _load(check_region_count(random_maxout(0, 1, 2, 2, 3), [[-1, 1]], "pieces"))
    kernel.check(one)
    bad = copy.deepcopy(one)
    bad["parameters"]["count"] += 1
    with pytest.raises(Rejected, match="is false"):
        kernel.check(_restate(bad))
    bad = copy.deepcopy(one)
    bad["verdict"] = "proved" if one["verdict"] == "refuted" else "refuted"
    with pytest.raises(Rejected):
        kernel.check(bad)


def test_2d_cells_dropped_moved_or_weights_changed():
    net = random_maxout(3, 2, 2, 2, 3)
    r = _load(check_region_count(net, [[-1, 1], [-1, 1]], "activation"))
    cells = r["certificate"]["cells"]
    for i in (0, len(cells) // 2, len(cells) - 1):
        bad = copy.deepcopy(r)
        del bad["certificate"]["cells"][i]
        with pytest.raises(Rejected):
            kernel.check(bad)
    bad = copy.deepcopy(r)
    bad["certificate"]["cells"].append(cells[0])
    with pytest.raises(Rejected):
        kernel.check(bad)
    bad = copy.deepcopy(r)
    bad["parameters"]["network"]["layers"][0]["b"][0][0] = "7"
    with pytest.raises(Rejected):
        kernel.check(_restate(bad))


def test_1d_network_changed_is_rejected():
    r = _load(check_region_count(random_maxout(0, 1, 2, 2, 3), [[-1, 1]], "pieces"))
    bad = copy.deepcopy(r)
    bad["parameters"]["network"]["layers"][0]["b"][0][0] = "7"
    with pytest.raises(Rejected):
        kernel.check(_restate(bad))
