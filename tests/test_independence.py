"""The independence decision procedure: soundness properties, invariances, re-checkers, CLI."""

import copy
import json
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from verify.decide.independence_certificates import ball_design_certificate, design_points, modular_certificate
from verify.decide.independence import check_relation, independent_mod_affine
from verify.checks.n5_discrete_laws import convolve, random_discrete_law
from verify.cli import main
from verify.errors import InputError, InputTypeError
from verify.laws import Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube
from verify.laws.oracle_families import ORACLE_IDS, oracle_case
from verify.kernel import Rejected as RecheckFailure, check as recheck

SEEDS = st.integers(0, 10 ** 6)


def _dependent_discrete(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 2)
    base = [random_discrete_law(rng, d) for _ in range(rng.randint(1, 3))]
    kind = rng.choice(["dirac", "translate", "convolution", "duplicate"])
    if kind == "dirac":
        extra = Discrete([[rng.randint(-3, 3) for _ in range(d)]])
    elif kind == "translate":
        extra = base[0].translated([F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(d)])
    elif kind == "duplicate":
        extra = base[-1]
    else:
        other = random_discrete_law(rng, d)
        base = base + [other]
        extra = convolve(base[0], other)
    laws = base + [extra]
    rng.shuffle(laws)
    return laws


@given(SEEDS)
@pytest.mark.slow
def test_dependent_discrete_never_proved(seed):
    laws = _dependent_discrete(seed)
    r = independent_mod_affine(laws)
    assert r.verdict.value == "refuted"
    assert recheck(json.loads(r.to_json())).startswith("dependence-relation")
    # the certificates alone can never succeed on a dependent family
    assert not modular_certificate(laws, "affine", seed=seed)["certified"]
    pts = design_points(laws, len(laws) + laws[0].dim + 3, seed)
    assert not ball_design_certificate(laws, "affine", pts, (64, 128))["certified"]


@given(SEEDS)
@settings(max_examples=15)
def test_dependent_continuous_never_proved(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 2)
    kind = rng.choice(["gaussians", "cubes", "laplace", "mixtures"])
    spd = lambda: [[F(1 + rng.randint(0, 4), 2) if i == j else F(0) for j in range(d)] for i in range(d)] if d == 1 else \
        [[F(2 + rng.randint(0, 3)), F(rng.randint(-1, 1), 2)], [F(0), F(2 + rng.randint(0, 3))]]
    def sym(S):
        return [[S[i][j] if i <= j else S[j][i] for j in range(d)] for i in range(d)]
    c = lambda: [F(rng.randint(-4, 4), 4) for _ in range(d)]
    if kind == "gaussians":
        laws = [Gaussian(sym(spd()), c()) for _ in range(d * (d + 1) // 2 + 1)]
    elif kind == "cubes":
        r = F(rng.randint(1, 12), 4)
        laws = [UniformCube(r, c()), UniformCube(r + 1, c()), UniformCube(r, c())]
    elif kind == "laplace":
        S = sym(spd())
        laws = [SymmetricLaplace(S, c()), SymmetricLaplace(sym(spd()), c()), SymmetricLaplace(S, c())]
    else:
        S = sym(spd())
        u = [rng.randint(1, 3) for _ in range(d)]
        laws = [GaussianMixture(1, u, S, c()), GaussianMixture(2, u, S), GaussianMixture(1, [-x for x in u], S, c())]
    r = independent_mod_affine(laws)
    assert r.verdict.value == "refuted", (kind, r.summary())
    pts = design_points(laws, len(laws) + d + 3, seed)
    assert not ball_design_certificate(laws, "affine", pts, (64, 128))["certified"]


@given(st.fractions(min_value=F(1, 4), max_value=3, max_denominator=16), st.integers(1, 2))
@settings(max_examples=15)
def test_nearly_dependent_never_refuted(r, d):
    eps = F(1, 10 ** 30)
    cubes = [UniformCube(r, dim=d), UniformCube(r + eps, [1] * d), UniformCube(r + 1, dim=d)]
    assert independent_mod_affine(cubes).verdict.value != "refuted"
    S = [[r if i == j else F(0) for j in range(d)] for i in range(d)]
    S2 = [[r + eps if i == j else F(0) for j in range(d)] for i in range(d)]
    assert independent_mod_affine([SymmetricLaplace(S), SymmetricLaplace(S2, [1] * d)]).verdict.value == "proved"


def test_perturbed_poisson_binomial_not_refuted():
    laws = list(oracle_case("F5").laws)
    w = list(laws[3].weights)
    eps = F(1, 10 ** 30)
    laws[3] = Discrete([[0], [1], [2], [3]], [w[0] + eps, w[1] - eps, w[2], w[3]])
    r = independent_mod_affine(laws)
    assert r.verdict.value == "proved"
    conv = oracle_case("F1").laws
    near = Discrete([[0], [1], [2], [3]], [F(1, 4) + eps, F(1, 4) - eps, F(1, 4), F(1, 4)])
    assert independent_mod_affine([conv[0], conv[1], near]).verdict.value == "proved"


QUICK_IDS = [c for c in ORACLE_IDS if c not in ("F18", "F18g", "F25")]


@given(st.sampled_from(QUICK_IDS), st.integers(0, 7), st.fractions(-3, 3, max_denominator=7))
@settings(max_examples=20)
@pytest.mark.slow
def test_translation_changes_no_verdict(cid, k, shift):
    oc = oracle_case(cid)
    laws = list(oc.laws)
    k %= len(laws)
    laws[k] = laws[k].translated([shift] * laws[k].dim)
    r0 = independent_mod_affine(oc.laws, oc.modulo, box=oc.box)
    r1 = independent_mod_affine(laws, oc.modulo, box=oc.box)
    if oc.modulo == "affine":
        assert r0.verdict == r1.verdict
    else:   # modulo constants a translate can break a constant relation, never create one... both are decided
        assert r1.verdict.value in ("proved", "refuted")


@given(st.sampled_from(QUICK_IDS), st.randoms(use_true_random=False))
@settings(max_examples=20)
def test_permutation_permutes_certificate(cid, rnd):
    oc = oracle_case(cid)
    perm = list(range(len(oc.laws)))
    rnd.shuffle(perm)
    laws = [oc.laws[i] for i in perm]
    r0 = independent_mod_affine(oc.laws, oc.modulo, box=oc.box)
    r1 = independent_mod_affine(laws, oc.modulo, box=oc.box)
    assert r0.verdict == r1.verdict
    if r1.refuted:
        c1 = [F(x) for x in r1.certificate["c"]]
        back = [F(0)] * len(perm)
        for pos, i in enumerate(perm):
            back[i] = c1[pos]
        rel = r1.certificate
        assert check_relation(oc.laws, back, a=rel["a"], C=rel["C"]).verdict.value == "proved"
    if r1.proved:
        assert r1.parameters["laws"] == [oc.laws[i].to_dict() for i in perm]


def test_deterministic_json():
    oc = oracle_case("F8")
    a = json.loads(independent_mod_affine(oc.laws, box=oc.box).to_json())
    b = json.loads(independent_mod_affine(oc.laws, box=oc.box).to_json())
    a.pop("timing"), b.pop("timing")
    assert a == b


def test_double_precision_never_decides_near_singular():
    from verify.checks.n3_decision_procedure import check_no_overclaiming

    for h in ("1/128", "1/512"):
        r = check_no_overclaiming(h, (53,))
        assert r.verdict.value == "inconclusive"
        assert r.evidence["precision_bits"] == 53 and r.evidence["sigma_min_over_sigma_max"]


def test_check_relation_both_ways():
    laws = oracle_case("F11").laws
    assert check_relation(laws, (4, -1), a=(-1,)).verdict.value == "proved"
    assert check_relation(laws, (4, -1), a=(1,)).verdict.value == "refuted"
    assert check_relation(laws, (1, -1)).verdict.value == "refuted"
    with pytest.raises(InputError):
        check_relation(laws, (0, 0))


@pytest.mark.parametrize("bad, field", [
    (dict(dists=[]), "dists"),
    (dict(dists=[Discrete([[0]]), Discrete([[0, 1]])]), "dists[1]"),
    (dict(dists=[Discrete([[0], [1]])], modulo="linear"), "modulo"),
    (dict(dists=[Discrete([[0], [1]])], ladder=(8,)), "ladder"),
    (dict(dists=[SymmetricLaplace([[1]])], points=[[2]]), "points[0]"),
    (dict(dists=[Discrete([[0], [1]])] * 600), "dists"),
    (dict(dists="discrete"), "dists"),
])
def test_bad_input(bad, field):
    with pytest.raises((InputError, InputTypeError)) as exc:
        independent_mod_affine(**bad)
    assert str(exc.value).startswith(field)


# -- re-checkers: tampering is always rejected ---------------------------------------------------------

def _json(cid):
    oc = oracle_case(cid)
    return json.loads(independent_mod_affine(oc.laws, oc.modulo, box=oc.box).to_json())


@pytest.mark.parametrize("cid", ["F5", "F3", "F13", "F9", "F20"])
def test_dependence_tamper(cid):
    good = _json(cid)
    assert recheck(good)
    d = len(good["certificate"]["a"])
    for mutate in (lambda r: r["certificate"]["c"].__setitem__(0, r["certificate"]["c"][0] + 1),
                   lambda r: r["certificate"].__setitem__("a", [str(F(x) + 1) for x in r["certificate"]["a"]]),
                   lambda r: r["certificate"].__setitem__("C", "2"),
                   lambda r: r["parameters"]["laws"].__setitem__(0, Gaussian([[7 if i == j else 0 for j in range(d)]
                                                                               for i in range(d)]).to_dict()),
                   lambda r: r["certificate"].__setitem__("c", [0] * len(r["certificate"]["c"]))):
        bad = copy.deepcopy(good)
        mutate(bad)
        with pytest.raises(RecheckFailure):
            recheck(bad)


@pytest.mark.parametrize("cid", ["F6", "F15", "F8", "F11c"])
def test_independence_tamper(cid):
    good = _json(cid)
    assert recheck(good)
    if good["certificate"]["kind"] == "independence-lattice":     # cubes: the design path is tampered below
        oc = oracle_case(cid)
        good = json.loads(independent_mod_affine(oc.laws, oc.modulo, box=oc.box, lattice=False).to_json())
    cert = good["certificate"]
    mutations = [lambda r: r["parameters"]["laws"].append(r["parameters"]["laws"][0]),
                 lambda r: r["parameters"].__setitem__("modulo", "affine" if r["parameters"]["modulo"] == "constants"
                                                       else "linear")]
    if cert["variant"].endswith("modp"):
        mutations += [lambda r: r["certificate"].__setitem__("prime", r["certificate"]["prime"] - 1),
                      lambda r: r["certificate"].__setitem__("points", r["certificate"]["points"][:1]),
                      lambda r: r["certificate"].__setitem__("q", 0)]
    else:
        mutations += [lambda r: r["certificate"].__setitem__("points", [[0] * len(r["certificate"]["points"][0])] *
                                                             len(r["certificate"]["points"]))]
    for mutate in mutations:
        bad = copy.deepcopy(good)
        mutate(bad)
        with pytest.raises(RecheckFailure):
            recheck(bad)
    wrong = copy.deepcopy(good)
    wrong["verdict"] = "refuted"
    with pytest.raises(RecheckFailure):
        recheck(wrong)


def test_recheck_rejects_dependent_laws_with_design():
    """A PROVED certificate whose laws are swapped for a dependent family is rejected."""
    from verify.kernel.lse import statement_independence

    good = _json("F8")
    bad = copy.deepcopy(good)
    bad["parameters"]["laws"] = [l.to_dict() for l in oracle_case("F10").laws] + [bad["parameters"]["laws"][0]]
    bad["statement"] = statement_independence(bad["parameters"], bad["conventions"])
    with pytest.raises(RecheckFailure):
        recheck(bad)


# -- CLI ------------------------------------------------------------------------------------------

def test_cli(tmp_path, capsys):
    spec = {"modulo": "affine", "distributions": [
        {"family": "discrete", "atoms": [[0, 0], [1, 0], [0, 2]], "weights": ["1/3", "1/3", "1/3"]},
        {"family": "uniform_cube", "radius": "1/2", "center": [0, 0]},
        {"family": "laplace", "cov": [[1, 0], [0, 2]]},
        {"family": "gaussian_mixture", "separation": "1", "direction": [1, 0], "cov": [[1, 0], [0, 1]]},
        {"family": "gaussian", "cov": [[1, 0], [0, 1]], "mean": [0, 0]}]}
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(spec))
    out = tmp_path / "r.json"
    assert main(["independence", str(p), "--json", str(out)]) == 0
    assert "INDEPENDENT" in capsys.readouterr().out
    assert json.loads(out.read_text())["verdict"] == "proved"
    dep = {"distributions": [{"family": "gaussian", "cov": [[1]]}, {"family": "gaussian", "cov": [[4]], "mean": [1]}]}
    p.write_text(json.dumps(dep))
    assert main(["independence", str(p)]) == 0
    assert "DEPENDENT" in capsys.readouterr().out
    assert main(["independence", str(p), "--modulo", "constants"]) == 0
    assert "INDEPENDENT" in capsys.readouterr().out
    p.write_text('{"distributions": [{"family": "discrete", "atoms": [[0], [0.5]]}]}')
    assert main(["independence", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "distributions[0].atoms[1][0]" in err
    assert main(["independence", str(p), "--allow-float"]) == 0
    p.write_text('{"distributions": [{"family": "laplace", "cov": [[1, 2], [2, 1]]}]}')
    assert main(["independence", str(p)]) == 2
    assert "cov" in capsys.readouterr().err
    p.write_text('{"distributions": [], "extra": 1}')
    assert main(["independence", str(p)]) == 2


def test_kernel_search_finds_relation_beyond_the_lattice_limits():
    mu, nu = Discrete([[0, 0], [60, 1]]), Discrete([[0, 0], [1, 70]])      # exponent span > lattice limit
    laws = [mu, nu, convolve(mu, nu).translated([1, 2])]
    r = independent_mod_affine(laws, lattice=False)       # the numeric search (the exponent lattice decides first)
    assert r.verdict.value == "refuted" and r.evidence["relation"]["source"] == "numeric-kernel"
    assert recheck(json.loads(r.to_json()))
    assert independent_mod_affine(laws, search=False, lattice=False).verdict.value == "inconclusive"


def test_modular_chunks_agree(monkeypatch):
    import verify.decide.independence_certificates as ic

    laws = list(oracle_case("F7").laws) + [oracle_case("F2").laws[1]]
    full = ic.modular_certificate(laws, "affine", seed=3)
    monkeypatch.setattr(ic, "CHUNK_ELEMENTS", 8)
    chunked = ic.modular_certificate(laws, "affine", seed=3)
    assert full == chunked


def test_too_few_points_refused():
    with pytest.raises(InputError) as exc:
        independent_mod_affine(oracle_case("F2").laws, points=[[0], ["1/2"]])
    assert str(exc.value).startswith("points")


def test_near_dependent_gaussians_and_mixtures_never_refuted():
    eps = F(1, 10 ** 30)
    S1, S2 = [[1, 0], [0, 1]], [[F(1, 2), F(1, 5)], [F(1, 5), F(4, 5)]]
    S3 = [[(a + b) / 2 + (eps if i == j == 0 else 0) for j, (a, b) in enumerate(zip(r1, r2))]
          for i, (r1, r2) in enumerate(zip(S1, S2))]
    r = independent_mod_affine([Gaussian(S1), Gaussian(S2), Gaussian(S3)])
    assert r.verdict.value == "proved" and r.method.value == "exact"
    mix = [GaussianMixture(1, [1, 1], S1), GaussianMixture(1 + eps, [1, 1], S1), GaussianMixture(2, [1, 1], S1)]
    assert independent_mod_affine(mix).verdict.value != "refuted"


def test_small_modular_block_equals_the_numpy_block():
    """The Python-int path of the modular matrix (small blocks, the N6 trials) gives the same residues in the
    same order as the numpy path, also where a normaliser vanishes modulo a small prime."""
    from fractions import Fraction

    import verify.decide.independence_certificates as IC
    from verify.decide.lattice import common_denominator
    from verify.laws import Discrete

    rng = random.Random(5)
    for _ in range(40):
        d, N = rng.randint(1, 3), rng.randint(1, 5)
        laws = []
        for _ in range(N):
            pts = {tuple(Fraction(rng.randint(-9, 9), rng.choice([1, 2, 3])) for _ in range(d))
                   for _ in range(rng.randint(1, 4))}
            w = [rng.randint(1, 5) for _ in pts]
            laws.append(Discrete([list(p) for p in sorted(pts)], [Fraction(x, sum(w)) for x in w]))
        q = common_denominator(laws)
        for variant in ("hessian", "gradient"):
            for p in (IC.PRIMES[0], 13, 7):
                zp = [tuple(rng.randrange(2, 1 << 20) for _ in range(d)) for _ in range(3)]
                small = IC._modular_block_small(laws, variant, zp, q, p)
                IC.SMALL_BLOCK, old = -1, IC.SMALL_BLOCK
                try:
                    big = IC._modular_block(laws, variant, zp, q, p)
                finally:
                    IC.SMALL_BLOCK = old
                assert small == big
