"""T9 check: CPWL compiled exactly; zero padding and small S never PROVED."""

from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from verify.checks.t9_cpwl_emulation import check_breakpoint_emulation, check_dc_emulation

G = [[[1], 0], [[-1], 0], [[2], -3]]
H = [[[1], -5]]


def test_zero_padding_refuted_at_zero():
    r = check_dc_emulation(G, H, [[-3, 3]], padding="zero", witness=[0])
    assert r.refuted and r.certificate["witness"]["f"] == [F(5)] and r.certificate["witness"]["transformer"] == [F(0)]
    assert check_dc_emulation(G, H, [[-3, 3]], padding="zero").refuted
    assert check_dc_emulation(G, H, [[-3, 3]]).proved


def test_small_gate_constant_refuted():
    r = check_dc_emulation([[[1], 0], [[-1], 0]], [[[2], -2], [[-2], 2]], [[-3, 3]], S=2)
    assert r.refuted


@settings(max_examples=15)
@given(st.lists(st.integers(-15, 15), min_size=1, max_size=5, unique=True),
       st.lists(st.integers(-4, 4), min_size=6, max_size=6))
def test_breakpoint_form_never_wrong(bps, slopes):
    bps = sorted(F(b, 8) for b in bps if -16 < b < 16)
    r = check_breakpoint_emulation(-2, 2, bps, slopes[:len(bps) + 1], 1)
    assert r.proved
    bad = check_breakpoint_emulation(-2, 2, bps, slopes[:len(bps) + 1], 1, S="1/100")
    assert not bad.proved or all(s == slopes[0] for s in slopes[:len(bps) + 1])
