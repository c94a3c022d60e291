"""T9 check: CPWL compiled exactly; zero padding and small S never PROVED."""

import json
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from verify import kernel
from verify.checks.t9_cpwl_emulation import check_breakpoint_emulation, check_dc_emulation, check_random_cpwl_emulation


def _k(r):
    return kernel.check(json.loads(r.to_json()))

G = [[[1], 0], [[-1], 0], [[2], -3]]
H = [[[1], -5]]


@pytest.mark.slow
def test_zero_padding_refuted_at_zero():
    r = check_dc_emulation(G, H, [[-3, 3]], padding="zero", witness=[0])
    assert r.refuted and r.certificate["network"] == ["5"] and r.certificate["transformer"] == ["0"]
    assert _k(r).startswith("emulation-witness")
    z = check_dc_emulation(G, H, [[-3, 3]], padding="zero")
    assert z.refuted and _k(z).startswith("emulation-witness")
    ok = check_dc_emulation(G, H, [[-3, 3]])
    assert ok.proved and ok.parameters["formula"] == "R8" and _k(ok).startswith("emulation-regions")


def test_random_functions_are_each_their_own_certified_result():
    """issue 11: no universal PROVED from N samples; each seeded function is one Result."""
    a, b = check_random_cpwl_emulation(0), check_random_cpwl_emulation(5)
    assert a.proved and b.proved and a.parameters["network"] != b.parameters["network"]
    assert _k(a).startswith("emulation-regions") and _k(b).startswith("emulation-regions")


def test_small_gate_constant_refuted():
    r = check_dc_emulation([[[1], 0], [[-1], 0]], [[[2], -2], [[-2], 2]], [[-3, 3]], S=2)
    assert r.refuted


@settings(max_examples=15)
@given(st.lists(st.integers(-15, 15), min_size=1, max_size=5, unique=True),
       st.lists(st.integers(-4, 4), min_size=6, max_size=6))
@pytest.mark.slow
def test_breakpoint_form_never_wrong(bps, slopes):
    bps = sorted(F(b, 8) for b in bps if -16 < b < 16)
    r = check_breakpoint_emulation(-2, 2, bps, slopes[:len(bps) + 1], 1)
    assert r.proved and _k(r).startswith("emulation-regions")
    bad = check_breakpoint_emulation(-2, 2, bps, slopes[:len(bps) + 1], 1, S="1/100")
    assert not bad.proved or all(s == slopes[0] for s in slopes[:len(bps) + 1])
