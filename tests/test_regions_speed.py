"""The fast region sweeps (docs/regions.md) keep every count, region list, verdict and certificate
byte-identical: sha256 of the JSON (timing removed) recorded on the commit before the matrix-form 1-D sweep
(0f6d16a), asserted here; plus the matrix sweep against the scalar one on networks chosen to hit ties."""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

import pytest

from verify.canonical import canonical_dumps
from verify.constructions.reference_networks import random_maxout
from verify.constructions.token_shift import tent_network
from verify.decide import regions as R
from verify.decide.regions import count_regions, maxout_values_1d
from verify.objects.maxout import MaxoutNetwork


def relu_net(sizes, seed, den=64):
    rng = random.Random(seed)
    q = lambda: Fraction(rng.randint(-100, 100), den)
    Ws = [[[q() for _ in range(sizes[i])] for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    bs = [[q() for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    return MaxoutNetwork.from_relu(Ws[:-1], bs[:-1], readout=(Ws[-1], bs[-1]))


def sha(obj) -> str:
    return hashlib.sha256(canonical_dumps(obj).encode()).hexdigest()


CASES = {
    "relu-1d-12x12": (lambda: relu_net([1, 12, 12, 1], 3), [(-1, 1)]),
    "maxout-1d-k3": (lambda: random_maxout(2, 1, 3, 3, 5), [(-2, 2)]),
    "maxout-1d-k4": (lambda: random_maxout(7, 1, 4, 2, 4), [(-1, 3)]),
    "relu-1d-32x32": (lambda: relu_net([1, 32, 32, 32, 1], 8), [(-2, 2)]),
    "tent-6": (lambda: tent_network(6), [(0, 1)]),
    "relu-2d-16x16": (lambda: relu_net([2, 16, 16, 1], 0), [(-1, 1), (-1, 1)]),
    "relu-2d-8x8": (lambda: relu_net([2, 8, 8, 1], 5), [(-1, 1), (-1, 1)]),
    "maxout-2d-k3": (lambda: random_maxout(4, 2, 3, 2, 4), [(-1, 1), (-1, 1)]),
}

# count_regions(...).to_dict() (regions included), recorded on 0f6d16a
DIRECT = {
    ("relu-1d-12x12", "pieces"): "b35164806c3f999fb5df18e5fb45dec87d34752c81483e4de02eff9cc8e9af6c",
    ("relu-1d-12x12", "activation"): "948e5ce23bf96548acee64803d13a557dd8e519fa3a93f7c0dd1aa45fcda553b",
    ("maxout-1d-k3", "pieces"): "fc60407d7fb32545f467a167662ba41ac702f6f4feefc2fa5234e95c5dc2fd39",
    ("maxout-1d-k3", "activation"): "0e17f00e18b3812026daaf2d28ece25dbc13a583ef54be24f19ad76142232ab3",
    ("maxout-1d-k4", "pieces"): "34a995d9e4a315f50725ac6f0307cc909056bd72404c7baf1946115bd96ae12c",
    ("maxout-1d-k4", "activation"): "7f61d748eb9fd337e8e8014d64e352d891a69b24f5fed7b7c39f3a5a82468933",
    ("relu-1d-32x32", "pieces"): "5820068e412b46bbbb9f46ca2cf07f43505d75aa0081af6837df300680e6153d",
    ("relu-1d-32x32", "activation"): "5cee32ad25857621d010345fbacc80ccfeae33b5dee29e4d0acb3ad26531ca77",
    ("tent-6", "pieces"): "366b7c13a71587c0a3f45bbbb86f5b66354d6c08831913cc39dd4749267cac40",
    ("tent-6", "activation"): "598b84bf56b9771bf956cc7a38b21015326b0e043a4f69bf806c7adbf510918d",
    ("relu-2d-16x16", "pieces"): "92b45fbaa8abf3fab5ac8db6e8b4a77aef7b4cc508cfc6893c5eb4c01cefa4fa",
    ("relu-2d-16x16", "activation"): "07085535a0b49f7822ac6a4a15b5cdad9289ed1cdd4d3382ae27ac4e212e1100",
    ("relu-2d-8x8", "pieces"): "fd9761a4ec5c3d8c2f40a0fdc57b8885034391d399c6ba29f804e1fd7f12966f",
    ("relu-2d-8x8", "activation"): "9754cd020cd691bf1720202bc28b634556afc23d3c87810b3beffc2a4772dd69",
    ("maxout-2d-k3", "pieces"): "b67d978f7fc43d3a31591bee556cc69919379d52be86c160592cecafef881385",
    ("maxout-2d-k3", "activation"): "1422d34873f151c50aeb7dd2026fb49af176a4f0a56ee52c2b1fd56c67b73660",
}

# Result.to_dict() of audits, timing removed, recorded on 0f6d16a (and equal on main 89117d5, the merged base)
AUDITS = {
    "T10/O2-exact-4-pieces": "d48c2a2dad3d36fc149d615c9de27b1257fb0b51189a463333180ea23fce716c",
    # main 89117d5 changed this Result's JSON by itself (the merged base); its hash there:
    "T10/2d-three-lines-7-activation": "30ee7ddd8c5f038ed0da923d556dff47e232a444641b5ff13cac9d5f47297d5d",
    "T10/n2-one-layer-ceiling": "8fd195fc3c8dd8f0544a7d7d44d1cae889af40a9f689857b0d56885f5067672e",
    "T10/grid-dyadic-on-tent": "5ca5cb14671641755e207f43be7a39a11623216bdf0700ea3eb4d73f8fbe1afa",
    "T10/n2-shallow-family-L5": "16acaf24def0aad7b95bef25b8aa0ffe504683e79e7c86166bd4b4912278580e",
    "T4/O5-Delta2-M4-L2": "e5c5d26a9401087e8d71b5f11047299f48902612056f86d81d8d36080aa33733",
    "T6/O2-S40": "e4d997268cb0b3bcba8bcb52179b9527ac52a7d9ba125e1c5b1185327d75d844",
    "T6/random-d2-k2-L2-seed1": "1ac7bd5da2cbaf1e083d42b638b520e0131f3186ab1bdda55c30eba1d269de31",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_count_regions_json_unchanged(name):
    mk, box = CASES[name]
    net = mk()
    for kind in ("pieces", "activation"):
        assert sha(count_regions(net, box, kind=kind).to_dict()) == DIRECT[(name, kind)], (name, kind)


@pytest.mark.parametrize("aid", sorted(AUDITS))
def test_audit_results_unchanged(aid):
    from verify.audit.discovery import audits_of_module
    from verify.audit.runner import run_audit, strip_timing

    mod = {"T4": "t4_token_shift", "T6": "t6_maxout_emulation", "T10": "t10_linear_regions"}[aid.split("/")[0]]
    audit, = [a for a in audits_of_module(f"verify.proofs.maxout.{mod}") if a.id == aid]
    out = run_audit(audit)
    assert out.error is None, out.error
    assert sha(strip_timing(out.result.to_dict())) == AUDITS[aid], aid


def _scalar(net, lo, hi, monkeypatch):
    monkeypatch.setattr(R, "_MATRIX_MIN_WIDTH", 10 ** 9)
    monkeypatch.setattr(R, "_I64_SWEEP", False)
    try:
        return maxout_values_1d(net, lo, hi)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("seed", range(6))
def test_matrix_sweep_equals_scalar_sweep(seed, monkeypatch):
    """Small integer weights force ties, shared crossings and zero differences at breakpoints; ranks 1-4."""
    rng = random.Random(seed)
    k = [2, 3, 1, 4, 2, 3][seed]
    q = lambda: Fraction(rng.randint(-3, 3), rng.choice([1, 2]))
    layers, n_in = [], 1
    for _ in range(3):
        N = 7
        layers.append(([[[q() for _ in range(n_in)] for _ in range(k)] for _ in range(N)],
                       [[q() for _ in range(k)] for _ in range(N)]))
        n_in = N
    net = MaxoutNetwork(layers)
    fast = maxout_values_1d(net, -2, Fraction(5, 3))
    assert fast == _scalar(net, -2, Fraction(5, 3), monkeypatch)


def _tied_rank2(seed, widths=(7, 7, 7)):
    rng = random.Random(seed)
    q = lambda: Fraction(rng.randint(-3, 3), rng.choice([1, 2]))
    layers, n_in = [], 1
    for N in widths:
        layers.append(([[[q() for _ in range(n_in)] for _ in range(2)] for _ in range(N)],
                       [[q() for _ in range(2)] for _ in range(N)]))
        n_in = N
    return MaxoutNetwork(layers)


@pytest.mark.parametrize("seed", range(8))
def test_int64_sweep_equals_fmpz_and_scalar_sweeps(seed, monkeypatch):
    """The int64 sweep of rank-2 networks (ties, shared crossings, several units crossing one interval, zero
    differences at breakpoints) gives the same breakpoints, values and prefix counts as the fmpz and the scalar
    sweeps; narrow (tent-like) and wide layers."""
    net = _tied_rank2(seed, [(7, 7, 7), (1, 1, 1, 1), (3, 5), (12, 2)][seed % 4])
    lo, hi = -2, Fraction(5, 3)
    R._i64_sweep_1d(net, lo, hi, 10 ** 6)                 # it runs (no fallback) on these networks
    fast = maxout_values_1d(net, lo, hi)
    counts = R.prefix_counts_1d(net, lo, hi)
    monkeypatch.setattr(R, "_I64_SWEEP", False)
    assert fast == maxout_values_1d(net, lo, hi)          # the fmpz matrix sweep (or the scalar one, narrow)
    assert fast == _scalar(net, lo, hi, monkeypatch)
    monkeypatch.setattr(R, "_I64_SWEEP", False)
    seen = []
    R.maxout_values_1d(net, lo, hi, after_layer=lambda _, xs, V: seen.append(
        (len(xs) - 1, len(R.pieces_from_values(xs, V)))))
    assert counts == seen


def test_int64_sweep_falls_back_when_numbers_grow(monkeypatch):
    """Weights whose integers (or products) pass 2^62 never wrap around: the int64 sweep refuses (_Overflow) and
    the fmpz sweep answers, with the same numbers as the scalar sweep."""
    big = Fraction(3 ** 40, 7)
    net = MaxoutNetwork([([[[big], [Fraction(-1)]]], [[Fraction(1), Fraction(0)]]),
                         ([[[big], [Fraction(1, 3 ** 30)]]], [[Fraction(-1), Fraction(2)]])])
    with pytest.raises(R._Overflow):
        R._i64_sweep_1d(net, -1, 1, 10 ** 6)
    assert maxout_values_1d(net, -1, 1) == _scalar(net, -1, 1, monkeypatch)
    counts = R.prefix_counts_1d(net, -1, 1)
    monkeypatch.setattr(R, "_I64_SWEEP", False)
    seen = []
    R.maxout_values_1d(net, -1, 1, after_layer=lambda _, xs, V: seen.append(
        (len(xs) - 1, len(R.pieces_from_values(xs, V)))))
    assert counts == seen == [(2, 2), (4, 4)]


def test_matrix_sweep_max_regions_refused():
    net = relu_net([1, 16, 16, 1], 2)
    n = len(maxout_values_1d(net, -1, 1)[0]) - 1
    assert len(maxout_values_1d(net, -1, 1, max_regions=n)[0]) - 1 == n
    from verify.errors import SizeLimitError

    with pytest.raises(SizeLimitError):
        maxout_values_1d(net, -1, 1, max_regions=n - 1)


# -- budgets -----------------------------------------------------------------------------------------

def test_max_regions_ends_in_a_partial_result_1d():
    net = relu_net([1, 16, 16, 1], 2)
    full = count_regions(net, [(-1, 1)])
    rc = count_regions(net, [(-1, 1)], max_regions=5)
    assert not rc.complete and rc.count is None and rc.pieces is None
    p = rc.partial
    assert p["stopped"] == "max_regions" and p["swept"][0][0] == -1 and Fraction(p["coverage"]) < 1
    # the swept part's breakpoints are exactly those of the full sweep on that interval
    xs_full = [Fraction(r["interval"][0]) for r in count_regions(net, [(-1, 1)], kind="activation").regions]
    hi = p["swept"][0][1]
    got = count_regions(net, [(-1, 1)], kind="activation", max_regions=5)
    assert [r["interval"][0] for r in got.regions] == [x for x in xs_full if x < hi]
    assert p["activation_regions_swept"] <= full.activation_regions
    assert count_regions(net, [(-1, 1)], max_regions=full.activation_regions).count == full.count


def test_max_regions_ends_in_a_partial_result_2d():
    net = relu_net([2, 16, 16, 1], 0)
    full = count_regions(net, [(-1, 1), (-1, 1)], kind="activation", include_regions=False)
    rc = count_regions(net, [(-1, 1), (-1, 1)], kind="activation", max_regions=50, include_regions=False)
    assert not rc.complete and rc.count is None
    assert 0 < Fraction(rc.partial["coverage"]) < 1
    assert rc.partial["activation_regions_swept"] <= full.count
    assert "complete" in rc.to_dict() and "complete" not in full.to_dict()


def test_time_budget_ends_in_a_partial_result_in_bounded_time():
    import time

    t = time.perf_counter()
    rc = count_regions(tent_network(20), [(0, 1)], time_budget=0.3, include_regions=False)
    assert time.perf_counter() - t < 2.5
    assert not rc.complete and rc.partial["stopped"] == "time_budget" and rc.count is None
    net = relu_net([2, 96, 96, 1], 0)          # 5,487 regions: > 1 s even for the residue sweep ([2, 48, 48, 1]
    t = time.perf_counter()                   # finished inside 0.3 s once that sweep landed)
    rc = count_regions(net, [(-1, 1), (-1, 1)], time_budget=0.05, include_regions=False)
    assert time.perf_counter() - t < 2.5
    assert not rc.complete and rc.partial["stopped"] == "time_budget"


def test_a_generous_time_budget_changes_nothing():
    net = relu_net([1, 12, 12, 1], 3)
    rc = count_regions(net, [(-1, 1)], time_budget=600)
    assert sha(rc.to_dict()) == DIRECT[("relu-1d-12x12", "pieces")]
    mk, box = CASES["relu-2d-8x8"]
    rc = count_regions(mk(), box, kind="activation", time_budget=600)
    assert rc.complete and rc.count == 61


@pytest.mark.parametrize("bad", [0, -1, True, "1", 10 ** 6, float("nan")])
def test_time_budget_is_validated(bad):
    from verify.errors import InputError

    with pytest.raises(InputError, match="time_budget"):
        count_regions(tent_network(2), [(0, 1)], time_budget=bad)


def test_check_region_count_is_inconclusive_when_a_budget_runs_out(monkeypatch):
    from verify.checks import t10_linear_regions as T10
    from verify.results import Verdict

    real = T10.count_regions
    monkeypatch.setattr(T10, "count_regions", lambda *a, **k: real(*a, **{**k, "max_regions": 3}))
    r = T10.check_region_count(relu_net([1, 16, 16, 1], 2), [["-1", "1"]], expected=13)
    assert r.verdict is Verdict.INCONCLUSIVE


# -- the rigorous float filter of the 2-D sweep ---------------------------------------------------------

def test_float_filter_never_decides_against_the_exact_sign():
    """Differences that cancel to tiny values, exact zeros at vertices and huge magnitudes: whenever the filter
    decides a unit, the exact values at every vertex have that strict sign; near-zero units stay undecided."""
    from flint import fmpq, fmpz, fmpz_mat

    rng = random.Random(5)
    big = 10 ** 15
    for trial in range(60):
        n_in = 3
        W, b = [], []
        for _ in range(8):
            w1 = [Fraction(rng.randint(-big, big), rng.randint(1, 7)) for _ in range(n_in)]
            w0 = [c + Fraction(rng.choice([0, 1, -1]), 10 ** rng.randint(0, 30)) for c in w1]
            W.append([w0, w1])
            b.append([Fraction(rng.randint(-3, 3), 10 ** rng.randint(0, 20)), Fraction(0)])
        Hint = fmpz_mat(n_in, 3, [rng.randint(-5, 5) for _ in range(3 * n_in)])
        scale = fmpz(rng.randint(1, 9))
        vs = [(fmpq(rng.randint(-4, 4), 3), fmpq(rng.randint(-4, 4), 5)) for _ in range(4)]
        dec = R._FloatFilter(W, b, n_in).decide((Hint, scale), vs)
        H = [[Fraction(int(Hint[m, c]), int(scale)) for c in range(3)] for m in range(n_in)]
        for u, d in enumerate(dec):
            dw = [W[u][1][m] - W[u][0][m] for m in range(n_in)]
            db = b[u][1] - b[u][0]
            vals = []
            for x, y in vs:
                xf, yf = Fraction(int(x.p), int(x.q)), Fraction(int(y.p), int(y.q))
                g = [H[m][0] * xf + H[m][1] * yf + H[m][2] for m in range(n_in)]
                vals.append(sum(c * gm for c, gm in zip(dw, g)) + db)
            if d > 0:
                assert all(v > 0 for v in vals), (trial, u, vals)
            elif d < 0:
                assert all(v < 0 for v in vals), (trial, u, vals)
            elif all(abs(v) > Fraction(1, 10 ** 6) * big for v in vals) and (all(v > 0 for v in vals)
                                                                            or all(v < 0 for v in vals)):
                pytest.fail(f"a clearly signed unit was left undecided: {trial} {u}")


def test_float_filter_leaves_an_exact_tie_undecided():
    from flint import fmpq, fmpz, fmpz_mat

    W = [[[Fraction(1), Fraction(-1)], [Fraction(0), Fraction(0)]]]          # relu(x - y): s = y - x
    b = [[Fraction(0), Fraction(0)]]
    H = (fmpz_mat(2, 3, [1, 0, 0, 0, 1, 0]), fmpz(1))
    on_diagonal = [(fmpq(0), fmpq(0)), (fmpq(1), fmpq(1)), (fmpq(0), fmpq(1))]   # s = 0, 0, 1
    assert R._FloatFilter(W, b, 2).decide(H, on_diagonal) == [0]
    above = [(fmpq(0), fmpq(1, 10 ** 30)), (fmpq(0), fmpq(1))]
    assert R._FloatFilter(W, b, 2).decide(H, above) == [1]


def test_cli_reports_a_partial_count_as_inconclusive(tmp_path):
    """``verify regions`` turns count_regions' partial result (a budget run out) into its INCONCLUSIVE line."""
    import json
    import subprocess
    import sys

    spec = tmp_path / "tent.json"
    spec.write_text(json.dumps({**tent_network(5).to_dict(), "box": [["0", "1"]]}))
    p = subprocess.run([sys.executable, "-m", "verify", "regions", str(spec), "--max-cells", "8"],
                       capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    assert "no exact count" in out and "max_regions" in out, out


# -- the residue sweep of rank-2 networks (exact maps mod primes, carried float copy) -------------------

def _old_cells(net, box, monkeypatch):
    monkeypatch.setattr(R, "_rank2_plan", lambda net: None)
    try:
        return R.maxout_cells_2d(net, box)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("seed", range(4))
def test_residue_sweep_equals_fmpz_sweep(seed, monkeypatch):
    """Same cells (vertices, order), patterns and maps as the fmpz_mat sweep: ReLU and rank-2 maxout
    networks, small integer weights that force ties, exact zeros at vertices and identical pieces."""
    rng = random.Random(seed)
    q = lambda: Fraction(rng.randint(-3, 3), rng.choice([1, 2, 4]))
    if seed % 2:
        layers, n_in = [], 2
        for _ in range(3):
            N = 6
            W = [[[q() for _ in range(n_in)] for _ in range(2)] for _ in range(N)]
            W[0][1] = list(W[0][0])                                       # a unit whose pieces tie everywhere
            layers.append((W, [[q(), q()] for _ in range(N)]))
            n_in = N
        net = MaxoutNetwork(layers, readout=([[q() for _ in range(n_in)]], [q()]) if seed == 1 else None)
    else:
        net = relu_net([2, 10, 10, 1], seed, den=rng.choice([3, 8, 10]))
    box = [(Fraction(-1), Fraction(1)), (Fraction(-1, 2), Fraction(3, 2))]
    assert R._rank2_plan(net) is not None
    assert R.maxout_cells_2d(net, box) == _old_cells(net, box, monkeypatch)


def test_residue_sweep_on_a_deep_decimal_slice(monkeypatch):
    """Many primes (maps of ~150 bits), 7-digit decimal weights: equal to the fmpz_mat sweep."""
    rng = random.Random(3)
    sc = 10 ** 7
    q = lambda s: Fraction(round(rng.gauss(0, s) * sc), sc)
    sizes = [2, 8, 8, 8, 8, 1]
    Ws = [[[q((2 / sizes[i]) ** 0.5) for _ in range(sizes[i])] for _ in range(sizes[i + 1])] for i in range(5)]
    bs = [[q(0.05) for _ in range(sizes[i + 1])] for i in range(5)]
    net = MaxoutNetwork.from_relu(Ws[:-1], bs[:-1], readout=(Ws[-1], bs[-1]))
    box = [(Fraction(-1, 4), Fraction(1, 4))] * 2
    assert len(R._rank2_plan(net)[0].p) >= 5
    assert R.maxout_cells_2d(net, box) == _old_cells(net, box, monkeypatch)


def test_residue_sweep_refuses_what_it_cannot_hold():
    """Weights outside the normal float64 range or too large for the primes go to the fmpz_mat sweep."""
    tiny = MaxoutNetwork.from_relu([[[Fraction(1, 2 ** 1100), Fraction(1)]]], [[Fraction(0)]])
    assert R._rank2_plan(tiny) is None
    huge = MaxoutNetwork.from_relu([[[Fraction(3 ** 40), Fraction(1)]]], [[Fraction(0)]])
    assert R._rank2_plan(huge) is None
    assert count_regions(tiny, [(-1, 1), (-1, 1)], kind="activation").count == 2
    rank3 = random_maxout(4, 2, 3, 2, 4)
    assert R._rank2_plan(rank3) is None


def test_residue_sweep_forged_float_copy_is_caught(monkeypatch):
    """The float filter only skips exact tests: a wrong float copy that decides a unit against its exact
    sign changes the result (so the equality tests above do test the filter), while a useless one (every
    bound infinite) changes nothing."""
    net = relu_net([2, 8, 8, 1], 5)
    box = [(-1, 1), (-1, 1)]
    ref = R.maxout_cells_2d(net, box)
    real = R._rank2_plan

    def blind(n):
        plan = real(n)
        for L in plan[1]:
            L["aWi"] = L["aWi"] * float("inf")                # every error bound infinite: nothing decided
        return plan

    monkeypatch.setattr(R, "_rank2_plan", blind)
    assert R.maxout_cells_2d(net, box) == ref

    def forged(n):
        plan = real(n)
        for L in plan[1]:
            L["den"] = -L["den"]                               # the float copy of the wrong network
        return plan

    monkeypatch.setattr(R, "_rank2_plan", forged)
    assert R.maxout_cells_2d(net, box) != ref


@pytest.mark.parametrize("case", ["tent-8", "zigzag-3-4", "shifted-tent", "random-k2", "wide"])
def test_breakpoints_certificate_1d_equals_the_values_route(case, monkeypatch):
    """The integer grid test on the int64 sweep's rows gives the certificate of breakpoint_certificate(xs);
    a non-uniform set of breakpoints (the shifted tent, random rank-2 layers) stays a list."""
    from verify.decide.regions import breakpoint_certificate, breakpoints_certificate_1d
    from verify.kernel.regions import family_spec

    box = (0, 1)
    if case == "tent-8":
        net = tent_network(8)
    elif case == "zigzag-3-4":
        net = MaxoutNetwork.from_dict(family_spec("zigzag", 3, 4))
    elif case == "shifted-tent":
        net, box = tent_network(5), (Fraction(-1, 7), Fraction(6, 5))
    elif case == "random-k2":
        net, box = random_maxout(11, 1, 2, 3, 4), (-2, 3)
    else:   # as wide as the matrix sweep: the values route
        net, box = relu_net([1, 8, 1], 2), (-1, 1)
    fast = breakpoints_certificate_1d(net, *box)
    assert fast == breakpoint_certificate(maxout_values_1d(net, *box)[0])
    monkeypatch.setattr(R, "_I64_SWEEP", False)
    assert breakpoints_certificate_1d(net, *box) == fast
    if case == "tent-8":
        assert fast == {"grid": 256}
    if case in ("shifted-tent", "random-k2"):
        assert isinstance(fast, list)
