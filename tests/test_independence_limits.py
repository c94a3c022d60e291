"""No size cliffs in the independence procedure (docs/independence.md, "Limits"): S2 and S1 on large
inputs, the square design beyond 64 laws, the numeric search beyond 16 laws, and the budgets that end in
INCONCLUSIVE (never a hang, never a false verdict)."""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
import resource
import time
from fractions import Fraction as F

import pytest

from verify import kernel
from verify.decide import lattice as L
from verify.decide import relations as R
from verify.decide.independence import independent_mod_affine
from verify.decide.independence_certificates import design_points, square_design_certificate, square_design_points
from verify.kernel import Rejected
from verify.laws import Discrete, UniformCube


def s2_reference(laws):
    """S2 by its definition: every law has >= 2 atoms, difference sets pairwise disjoint (all pairs)."""
    seen = {}
    for i, law in enumerate(laws):
        if len(law.atoms) < 2:
            return False
        for a in law.atoms:
            for b in law.atoms:
                if a != b and seen.setdefault(tuple(x - y for x, y in zip(a, b)), i) != i:
                    return False
    return True


def random_family(rng, d, n_laws, atoms, lo=-4, dens=(1, 2)):
    out = []
    for _ in range(n_laws):
        pts = {tuple(F(rng.randint(lo, -lo), rng.choice(dens)) for _ in range(d)) for _ in range(rng.randint(*atoms))}
        out.append(Discrete([list(p) for p in pts]))
    return out


@pytest.mark.parametrize("enumerate_bound", [L.S2_ENUMERATE, 30])
def test_s2_agrees_with_its_definition(monkeypatch, enumerate_bound):
    """Sorted differences (and, with a tiny enumeration bound, the probing of one large law) give the
    definition's answer; None (undecided) only past the budget, never a wrong bool."""
    monkeypatch.setattr(L, "S2_ENUMERATE", enumerate_bound)
    rng = random.Random(enumerate_bound)
    undecided = 0
    for _ in range(150):
        laws = random_family(rng, rng.randint(1, 3), rng.randint(1, 4), (1, 7))
        got = L.s2_holds(laws)
        undecided += got is None
        assert got is None or got == s2_reference(laws)
    assert undecided < 150


def test_s2_of_ten_thousand_atoms_is_fast():
    rng = random.Random(1)
    big = Discrete([[F(rng.randint(-10 ** 6, 10 ** 6), 7), rng.randint(0, 5)] for _ in range(10_000)])
    t0 = time.perf_counter()
    assert L.s2_holds([big]) is True
    assert L.s2_holds([big, Discrete([[0, 0], [F(1, 7), 0]])]) is False     # (1/7, 0) is a difference of big
    assert time.perf_counter() - t0 < 3


def test_directions_are_bounded_in_d():
    for d in (1, 2, 3):          # the enumeration of entries in [-3, 3] is unchanged for d <= 3
        full = [v for v in itertools.product(range(-3, 4), repeat=d) if any(v) and math.gcd(*v) == 1]
        full.sort(key=lambda v: (sum(map(abs, v)), tuple(-x for x in v)))
        assert L._directions(d, 3) == full
    t0 = time.perf_counter()
    dirs = L._directions(16, 1)
    assert len(dirs) == L.S1_MAX_DIRECTIONS and len(set(dirs)) == len(dirs)
    assert [sum(map(abs, v)) for v in dirs] == sorted(sum(map(abs, v)) for v in dirs)
    assert time.perf_counter() - t0 < 1


def test_ten_thousand_atoms_decide_within_ten_seconds():
    rng = random.Random(3)
    pts = set()
    while len(pts) < 10_000:
        pts.add((F(rng.randint(-10 ** 4, 10 ** 4), rng.randint(1, 9)),))
    law = Discrete([list(p) for p in sorted(pts)])
    t0 = time.perf_counter()
    r = independent_mod_affine([law])
    assert r.proved and r.evidence["S2"] is True
    assert time.perf_counter() - t0 < 20       # ~2 s on an idle core (bench: docs/independence.md, Limits)


def test_sixteen_dimensional_two_atom_laws_are_cheap():
    rng = random.Random(5)
    laws = [Discrete([[rng.randint(-3, 3) for _ in range(16)], [rng.randint(-3, 3) for _ in range(16)]],
                     [F(1, 3), F(2, 3)]) for _ in range(16)]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss          # KiB on Linux
    t0 = time.perf_counter()
    r = independent_mod_affine(laws)
    elapsed = time.perf_counter() - t0
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
    assert r.proved and elapsed < 10 and grown < 1 << 20                 # < 1 GB more than before
    # dependent (a translate) in d = 16: still decided, never PROVED
    r = independent_mod_affine(laws[:3] + [laws[0].translated([1] * 16)])
    assert r.refuted


@pytest.fixture(scope="module")
def sixty_five_cubes():
    return independent_mod_affine([UniformCube(F(k, 4)) for k in range(1, 66)], search=False, **_NO_LATTICE)


def _lattice_kw():
    import inspect

    return {"lattice": False} if "lattice" in inspect.signature(independent_mod_affine).parameters else {}


_NO_LATTICE = _lattice_kw()       # force the design path where the exact exponent lattice would decide first


def test_square_design_beyond_64_laws(sixty_five_cubes):
    r = sixty_five_cubes
    assert r.proved and r.method.value == "certified"
    assert r.certificate["variant"] == "design-ball" and len(r.certificate["points"]) == 67
    assert kernel.check(json.loads(r.to_json()))


@pytest.mark.parametrize("forge", ["det", "points"])
def test_forged_square_design_is_rejected(sixty_five_cubes, forge):
    doc = copy.deepcopy(json.loads(sixty_five_cubes.to_json()))
    if forge == "det":           # a wrong determinant: recomputed at every rung of the kernel's ladder, refused
        p, q = doc["certificate"]["det"].split("/")
        doc["certificate"]["det"] = f"{int(p) * 3}/{q}"
    else:                        # one point short of a square design
        doc["certificate"]["points"].pop()
    with pytest.raises(Rejected):
        kernel.check(doc)


def test_square_design_never_proves_a_dependent_family():
    """62 cubes and the doubling relation cube(2) = cube(1) + {-1, 1} (65 laws): the square determinant
    must not be certified (its balls contain 0), whatever the ladder."""
    laws = [UniformCube(F(2 * k + 1, 8)) for k in range(62)] + [UniformCube(2), UniformCube(1),
                                                               Discrete([[-1], [1]])]
    info = square_design_certificate(laws, "affine", square_design_points(laws, 67, 0), (64, 512))
    assert not info["certified"] and "not certified" in info["reason"]
    info = square_design_certificate(laws[-3:], "affine", square_design_points(laws[-3:], 5, 0), (64, 512, 2048))
    assert not info["certified"] and "not certified" in info["reason"]


def test_square_design_past_the_kernel_budget_is_inconclusive_at_once():
    t0 = time.perf_counter()
    r = independent_mod_affine([UniformCube(F(k, 8)) for k in range(1, 151)], search=False, **_NO_LATTICE)
    assert r.inconclusive and time.perf_counter() - t0 < 5
    assert "kernel's ball budget" in r.evidence["design_certificate"]["reason"]
    assert "None" not in r.certificate["summary"] and "kernel's ball budget" in r.certificate["summary"]


def test_square_design_points_avoid_symmetric_orbits():
    pts = square_design_points([UniformCube(1, [0, 0])], 40, seed=2)
    keys = {tuple(sorted(abs(x) for x in t)) for t in pts}
    assert len(pts) == 40 and len(keys) == 40


def test_numeric_search_beyond_sixteen_laws():
    laws = [UniformCube(F(k, 4)) for k in range(1, 18)] + [UniformCube(40), UniformCube(20), Discrete([[-20], [20]])]
    sets = [design_points(laws, len(laws) + 12, 1000 + k) for k in range(2)]
    cand = R.numeric_relation_search(laws, "affine", sets)
    assert cand is not None and cand.c[-3:] in ((1, -1, -1), (-1, 1, 1)) and not any(cand.c[:-3])
    # independent (the relation broken): no candidate
    broken = laws[:-1] + [Discrete([[-20], [21]])]
    assert R.numeric_relation_search(broken, "affine", [design_points(broken, len(laws) + 12, 1000 + k)
                                                         for k in range(2)]) is None


def test_numeric_search_past_its_budget_evaluates_nothing(monkeypatch):
    laws = [UniformCube(F(k, 4)) for k in range(1, 21)]
    pts = [[(F(k, 1000),) for k in range(1000)]]
    monkeypatch.setattr(UniformCube, "cgf_ball", lambda *a, **k: pytest.fail("a CGF was evaluated"))
    assert R.search_work(laws, 1000) > R.MAX_SEARCH_WORK
    assert R.numeric_relation_search(laws, "affine", pts) is None


def test_more_atoms_than_the_kernel_reads_is_a_size_error_at_once():
    """Regression: 8 laws of 3,000 atoms (24,000 > the kernel's 20,000) ran the whole decision, then raised the
    kernel's Rejected from the statement builder (a traceback, after 73 s)."""
    import pytest

    from verify.decide.independence import independent_mod_affine
    from verify.errors import SizeLimitError
    from verify.laws import Discrete

    laws = [Discrete([[str(i * 8 + k)] for i in range(3000)]) for k in range(8)]
    with pytest.raises(SizeLimitError, match="20000"):
        independent_mod_affine(laws)
