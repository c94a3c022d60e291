"""Regression: prove_emulation recorded a PROVED certificate that the kernel refused as too large (a 2-D slice of a
300-ReLU network, 163 cells: 34,576,128 > 15,000,000).  The search now asks the kernel's own work figure first."""

from verify import kernel
from verify.constructions.reference_networks import o2_network
from verify.decide.emulation import prove_emulation
from verify.kernel import emulation as K


def test_over_the_kernels_work_bound_is_inconclusive(monkeypatch):
    r = prove_emulation(o2_network(), [["-1", "1"]], tie="average")
    assert r.verdict.value == "proved"
    kernel.check(r.to_dict())
    work = K.regions_work(r.parameters, r.certificate["cells"])
    monkeypatch.setattr(K, "MAX_WORK", work - 1)
    r2 = prove_emulation(o2_network(), [["-1", "1"]], tie="average")
    assert r2.verdict.value == "inconclusive"
    assert "work bound" in r2.certificate["summary"]
