"""The exact exponent lattice (verify.decide.exponent_lattice, kernel kind independence-lattice)."""

import copy
import json
from fractions import Fraction as F

import pytest

from verify import kernel
from verify.decide.exponent_lattice import exponent_lattice, lattice_affine_part
from verify.decide.independence import check_relation, independent_mod_affine
from verify.decide.relations import Relation, verify_relation
from verify.kernel import Rejected
from verify.laws import Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube


def J(r):
    return json.loads(r.to_json())


def _dep(laws, modulo="affine"):
    r = independent_mod_affine(laws, modulo)
    assert r.verdict.value == "refuted", r.certificate
    assert kernel.check(J(r)).startswith("dependence-relation")
    return r


def _ind(laws, modulo="affine"):
    r = independent_mod_affine(laws, modulo)
    assert r.verdict.value == "proved" and r.certificate["kind"] == "independence-lattice", r.certificate
    assert kernel.check(J(r)).startswith("independence-lattice")
    return r


def test_sinh_double_angle_any_centres():
    r = _dep([UniformCube(2, [5]), UniformCube(1, [-1]), Discrete([[2], [4]])])
    assert r.certificate["c"] == [1, -1, -1] and r.certificate["a"] == ["3"] and r.certificate["C"] == "1"
    _ind([UniformCube(2, [5]), UniformCube(1, [-1]), Discrete([[2], [4]])], "constants")
    _dep([UniformCube(2, [1, 1]), UniformCube(1, [0, 0]), Discrete([[-1, -1], [-1, 1], [1, -1], [1, 1]])])


def test_mixture_gaussian_two_point_and_four_law_relation():
    S = [[2, 1], [1, 3]]
    _dep([GaussianMixture(5, [3, 4], S, [1, 1]), Gaussian(S), Discrete([[4, 5], [-2, -3]])])
    r = _dep([UniformCube(2), UniformCube(1), GaussianMixture(1, [1], [[3]]), Gaussian([[3]])])
    assert r.certificate["c"] == [1, -1, -1, 1]


def test_controls_are_independent_and_perturbations_never_refuted():
    _ind([UniformCube(2), UniformCube(1), Discrete([[-1], [2]])])
    _ind([GaussianMixture(5, [3, 4], [[1, 0], [0, 1]]), Gaussian([[1, 0], [0, 1]]), Discrete([[-3, -4], [3, 5]])])
    eps = F(1, 10 ** 20)
    for laws in ([UniformCube(2 + eps), UniformCube(1), Discrete([[-1], [1]])],
                 [UniformCube(2), UniformCube(1), Discrete([[-1 - eps], [1 + eps]])]):
        assert independent_mod_affine(laws, search=False).verdict.value != "refuted"


def test_laplace_factors_over_q():
    # 1 - theta^2 = (1 - theta)(1 + theta) (cov 2) and 1 - theta^2 / 2 (cov 1, irreducible over Q)
    lat = exponent_lattice([SymmetricLaplace([[2]]), SymmetricLaplace([[1]]), SymmetricLaplace([[8]])])
    assert lat["independent"] and lat["base_sizes"] == [0, 5]
    _ind([SymmetricLaplace([[2]]), UniformCube(1), Gaussian([[1]]), Discrete([[0], [1]])])


def test_irrational_mixture_keeps_the_certified_path():
    lat = exponent_lattice([GaussianMixture(1, [1, 1], [[1, 0], [0, 1]]), Gaussian([[2, 0], [0, 1]])])
    assert lat == {"applicable": False, "reason": "law 0: the mixture frequency a u / |u| is irrational"}


def test_dirac_with_cube_is_refuted_not_rejected(tmp_path, capsys):
    # regression: verify_relation handed the whole mixed family to the discrete-only identity (InputError)
    laws = [Discrete([[3]]), UniformCube(1)]
    assert verify_relation(laws, Relation((1, 0), (F(3),), F(1)))[0]
    r = _dep(laws)
    assert r.certificate["c"] == [1, 0]
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"distributions": [{"family": "discrete", "atoms": [[3]]},
                                                  {"family": "uniform_cube", "radius": "1"}]}))
    from verify.cli import main

    assert main(["independence", str(spec)]) == 0
    assert capsys.readouterr().out.startswith("DEPENDENT")


def test_check_relation_confirms_true_relations():
    cubes = [UniformCube(2, [1]), UniformCube(1), Discrete([[-1], [1]])]
    r = check_relation(cubes, (2, -2, -2))
    assert r.verdict.value == "proved" and r.certificate["a"] == ["2"] and kernel.check(J(r))
    assert check_relation(cubes, (1, -1, -1), a=(1,), C=1).verdict.value == "proved"
    assert check_relation(cubes, (1, -1, -1), a=(0,), C=1).verdict.value == "refuted"
    assert check_relation(cubes, (1, -1, -2)).verdict.value == "refuted"
    g = check_relation([Gaussian([[1]], [1]), Gaussian([[2]])], (2, -1))
    assert g.verdict.value == "proved" and g.certificate["a"] == ["2"]
    assert lattice_affine_part(cubes, (1, -1, -2)) is False


# -- forged certificates ------------------------------------------------------------------------------------------
def _rej(r, match):
    with pytest.raises(Rejected, match=match):
        kernel.check(r)


def test_forged_lattice_certificates_rejected():
    good = J(_ind([UniformCube(2), UniformCube(1), Discrete([[-1], [2]])]))
    c = good["certificate"]
    m = copy.deepcopy(good)      # a reducible "base element": the product of two base elements
    b0, b1 = c["laurent_base"][0], c["laurent_base"][1]
    assert b0 and b1
    from verify.kernel._lattice import _ctx, _read_poly, poly_json
    ctx = _ctx(1, "t")
    m["certificate"]["laurent_base"][0] = poly_json(_read_poly(ctx, b0, "x", 1) * _read_poly(ctx, b1, "x", 1))
    _rej(m, "not irreducible|multiply out|degrees")
    # a repeated base element (t - 1 for cube(1) and again, as another index, for cube(2)): only the
    # distinctness check catches it (the rank stays 2)
    two = J(_ind([UniformCube(1), UniformCube(2)]))
    tc = two["certificate"]
    one = [[[0], "-1"], [[1], "1"]]
    k0 = tc["laurent_base"].index(one)
    tc["laurent_base"].append(one)
    tc["exponents"][1]["laurent"] = [[len(tc["laurent_base"]) - 1 if j == k0 else j, e]
                                     for j, e in tc["exponents"][1]["laurent"]]
    _rej(two, "repeated")
    m = copy.deepcopy(good)      # monomial content
    m["certificate"]["laurent_base"][0] = [[[e[0] + 1], x] for e, x in b0]
    _rej(m, "monomial content|degrees")       # (a divisor of a law without monomial content has none)
    m = copy.deepcopy(good)      # exponents changed
    ex = m["certificate"]["exponents"][2]["laurent"]
    ex[0][1] += 1
    _rej(m, "multiply out|degrees")
    m = copy.deepcopy(good)
    m["certificate"]["D"] = 2
    _rej(m, "common denominator")
    # the certificate of an independent family stated for a dependent one: the statement or the rank fails
    dep = copy.deepcopy(good)
    dep["parameters"]["laws"][2] = {"family": "discrete", "atoms": [[-1], [1]], "weights": ["1/2", "1/2"]}
    _rej(dep, "statement")
    from verify.kernel.lse import CONVENTIONS, statement_independence
    dep["statement"] = statement_independence(dep["parameters"], CONVENTIONS)
    _rej(dep, "multiply out|degrees|rank")
    # a reducible base element that multiplies out correctly: only the irreducibility check catches it
    g = J(_ind([UniformCube(1), Gaussian([[1]])]))
    assert len(g["certificate"]["laurent_base"]) == 2             # t^2 - 1 = (t - 1)(t + 1)
    g["certificate"]["laurent_base"] = [[[[0], "-1"], [[2], "1"]]]
    g["certificate"]["exponents"][0]["laurent"] = [[0, 1]]
    _rej(g, "not irreducible")
    g["certificate"]["laurent_base"].append([[[0], "1"], [[1], "1"]])     # an unused element
    _rej(g, "divides no law")


def test_forged_relation_rejected():
    r = J(_dep([UniformCube(2), UniformCube(1), Discrete([[-1], [1]])]))
    for key, val in (("C", "2"), ("a", ["1"]), ("c", [1, -1, -2]), ("c", [1, 1, -1])):
        m = copy.deepcopy(r)
        m["certificate"][key] = val
        _rej(m, "certificate")


def test_two_hundred_discrete_laws_d3_fast():
    import random
    import time

    rng = random.Random(5)
    laws = []
    for _ in range(200):
        atoms = rng.sample([(a, b, c) for a in range(-4, 5) for b in range(-4, 5) for c in range(-4, 5)], 8)
        w = [rng.randint(1, 9) for _ in atoms]
        laws.append(Discrete([list(a) for a in atoms], [F(x, sum(w)) for x in w]))
    t = time.perf_counter()
    lat = exponent_lattice(laws)
    assert lat["independent"] and time.perf_counter() - t < 10      # about 0.5 s on an idle core


def test_batch_of_lattice_certificates():
    from verify.decide.independence import batch_result

    rs = [independent_mod_affine([UniformCube(2), UniformCube(1)]),
          independent_mod_affine([UniformCube(1), Gaussian([[1]]), Discrete([[0], [1]])])]
    b = batch_result("N4", rs, "two lattice families")
    assert b.verdict.value == "proved" and kernel.check(J(b)).startswith("independence-batch")
    m = J(b)
    m["certificate"]["certificates"][0]["exponents"][0]["laurent"] = []
    _rej(m, "multiply out|degrees")


def test_ntk_on_a_mixed_family_with_a_discrete_relation(tmp_path, capsys):
    # regression: 'verify ntk' exited 2 ("the polynomial identity applies to discrete laws ... only")
    from verify.cli import main

    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"distributions": [{"family": "discrete", "atoms": [[0], [1]]},
                                                  {"family": "discrete", "atoms": [[0], [1]]},
                                                  {"family": "uniform_cube", "radius": "1"}]}))
    q = tmp_path / "q.json"
    q.write_text("[[1], [2]]")
    assert main(["ntk", str(spec), "--queries", str(q)]) == 0
    assert capsys.readouterr().out.startswith("N7 REFUTED")


def test_agrees_with_the_other_paths_on_random_mixed_families():
    """Seeded random mixed families (d = 1, 2): the lattice never contradicts the certificates without it."""
    import random

    rng = random.Random(11)

    def law(d):
        k = rng.choice(["disc", "cube", "gauss", "mix", "lap"])
        c = [F(rng.randint(-3, 3), 2) for _ in range(d)]
        if k == "disc":
            pts = {tuple(F(rng.randint(-2, 2), rng.choice([1, 2])) for _ in range(d)) for _ in range(rng.randint(1, 3))}
            return Discrete([list(p) for p in pts])
        if k == "cube":
            return UniformCube(F(rng.randint(1, 4), 2), c)
        S = [[F(rng.randint(1, 3)) if i == j else F(0) for j in range(d)] for i in range(d)]
        if k == "gauss":
            return Gaussian(S, c)
        if k == "lap":
            return SymmetricLaplace(S, c)
        return GaussianMixture(F(rng.randint(1, 4), 2), [1] + [0] * (d - 1), S, c)

    seen = set()
    for _ in range(12):
        d = rng.randint(1, 2)
        laws = [law(d) for _ in range(rng.randint(2, 4))]
        mod = rng.choice(["affine", "constants"])
        a = independent_mod_affine(laws, mod, search=False)
        b = independent_mod_affine(laws, mod, search=False, lattice=False)
        assert a.verdict.value != "inconclusive"
        assert {a.verdict.value, b.verdict.value} != {"proved", "refuted"}
        seen.add(a.verdict.value)
    assert seen == {"proved", "refuted"}


def test_factoring_budget_is_a_documented_limit():
    from verify.kernel._lattice import MAX_FACTOR_COST, MAX_SPAN

    assert (MAX_SPAN, MAX_FACTOR_COST) == (1024, 8000)
    total = sum(2 ** 40 + j for j in range(1000))
    heavy = Discrete([[k] for k in range(1000)], [F(2 ** 40 + k, total) for k in range(1000)])   # 1000 x 51 bits
    lat = exponent_lattice([heavy, UniformCube(1)])
    assert not lat["applicable"] and "factoring budget" in lat["reason"]
    assert not exponent_lattice([Discrete([[0], [2000]]), UniformCube(1)])["applicable"]      # span 2000 > 1024
