"""N5: discrete laws (docs/paper2.md §6.1): S1 / S2 imply independence; Diracs, translates and convolutions give
dependence; the lattice criterion decides rational discrete laws and agrees with the certificate.

* :func:`check_sufficient_condition` -- an oracle case where S1 (or S2) holds exactly: PROVED when the
  condition holds *and* the certificate proves independence.
* :func:`check_forced_dependent` -- seeded families with a forced dependence (Dirac, translate, convolution
  mu_i * mu_j, or a product law P_i P_j): REFUTED when every family is refuted with a verified relation.
* :func:`check_criterion_agreement` -- 200 random families (N in 2..5, 2-4 atoms in {-3..3}^d, d in {1, 2},
  rational weights): the lattice criterion and the certificate agree in both directions, and every kernel
  vector of the multiplicity matrix is a verified relation.  PROVED = agreement on every family.
* :func:`check_s1_not_necessary` -- N5.n: F6 is independent although S1 fails for both unit directions of R.

>>> check_sufficient_condition("F2").verdict.value
'proved'
"""

from __future__ import annotations

import random
from fractions import Fraction

from ..decide.lattice import (lattice_applicable, lattice_criterion, s1_direction, s2_holds, top_gap,
                                verify_polynomial_relation)
from ..errors import InputError
from ..laws import Discrete
from ..laws.oracle_families import oracle_case
from ..results import Method, Result, Verdict
from ..decide.independence import batch_result, independent_mod_affine, self_checked
from ..canonical import jsonable
from ..kernel.lse import CONVENTIONS, statement_s1, statement_s1_necessary

__all__ = ["check_sufficient_condition", "check_forced_dependent", "check_criterion_agreement",
           "check_s1_not_necessary", "random_discrete_family", "convolve"]


def convolve(mu: Discrete, nu: Discrete) -> Discrete:
    """mu * nu (exact)."""
    atoms, weights = [], []
    for a, w in zip(mu.atoms, mu.weights):
        for b, v in zip(nu.atoms, nu.weights):
            atoms.append([x + y for x, y in zip(a, b)])
            weights.append(w * v)
    return Discrete(atoms, weights)


def random_discrete_law(rng, d: int, n_atoms=(2, 4), box: int = 3) -> Discrete:
    k = rng.randint(*n_atoms)
    pts = set()
    while len(pts) < k:
        pts.add(tuple(rng.randint(-box, box) for _ in range(d)))
    raw = [rng.randint(1, 5) for _ in range(k)]
    s = sum(raw)
    return Discrete([list(p) for p in sorted(pts)], [Fraction(x, s) for x in raw])


def random_discrete_family(rng):
    d = rng.randint(1, 2)
    N = rng.randint(2, 5)
    return [random_discrete_law(rng, d) for _ in range(N)]


def check_sufficient_condition(case: str = "F2", claim: str = "N5") -> Result:
    oc = oracle_case(case)
    laws = oc.laws
    if not all(l.family == "discrete" for l in laws):
        raise InputError("case", f"{case} is not a family of discrete laws")
    v = s1_direction(laws)
    s2 = s2_holds(laws)
    r = independent_mod_affine(laws, "affine", claim=claim)
    cond = {"S1_direction": list(v) if v else None,
            "S1_top_gaps": [top_gap(l, v) for l in laws] if v else None, "S2": s2}
    holds = v is not None or s2
    params = {"laws": [l.to_dict() for l in laws], "label": f"oracle case {case}"}
    statement = statement_s1(jsonable(params), jsonable(CONVENTIONS))
    summary = (f"S1 holds with v = {list(v)}" if v else ("S2 holds" if s2 else "neither S1 nor S2 found")) + \
        f"; {r.certificate.get('summary')}"
    if not (holds and r.proved):
        return Result(claim, statement, Verdict.INCONCLUSIVE, r.method, certificate={"summary": summary},
                      parameters=params, conventions=dict(CONVENTIONS), evidence={**r.evidence, "conditions": cond})
    cert = {"kind": "s1-independence", "summary": summary,
            "design": {k: x for k, x in r.certificate.items() if k not in ("kind", "summary")}}
    if v is not None:
        cert.update(direction=[int(x) for x in v], gaps=[top_gap(l, v) for l in laws])
    return self_checked(Result(claim, statement, Verdict.PROVED, r.method, certificate=cert, parameters=params,
                               conventions=dict(CONVENTIONS), evidence={**r.evidence, "conditions": cond}))


def _forced(rng, kind: str):
    d = rng.randint(1, 2)
    base = [random_discrete_law(rng, d) for _ in range(rng.randint(2, 3))]
    if kind == "dirac":
        extra = Discrete([[rng.randint(-3, 3) for _ in range(d)]])
    elif kind == "translate":
        extra = base[0].translated([rng.randint(-3, 3) for _ in range(d)])
    elif kind == "convolution":
        extra = convolve(base[0], base[1])
    elif kind == "product":       # P_i P_j = MGF of the convolution, shifted and reweighted
        extra = convolve(base[0], base[1]).translated([rng.randint(-2, 2) for _ in range(d)])
    else:
        raise InputError("kind", f"unknown construction {kind!r}")
    laws = base + [extra]
    rng.shuffle(laws)
    return laws


def check_forced_dependent(trials: int = 20, seed: int = 5, claim: str = "N5") -> Result:
    kinds = ("dirac", "translate", "convolution", "product")
    rng = random.Random(seed)
    results = []
    sources: dict = {}
    for t in range(trials):
        laws = _forced(rng, kinds[t % len(kinds)])
        r = independent_mod_affine(laws, "affine", claim=claim, seed=t)
        results.append(r)
        if r.refuted:
            src = r.evidence["relation"]["source"]
            sources[src] = sources.get(src, 0) + 1
    got = sum(r.refuted for r in results)
    return batch_result(claim, results, f"{got}/{trials} refuted with exact verified relations (sources {sources})",
                        label=f"{trials} families with a forced Dirac / translate / convolution / product law "
                              f"(seed {seed})", seeds={"families": seed})


def check_criterion_agreement(families: int = 200, seed: int = 55, claim: str = "N5") -> Result:
    rng = random.Random(seed)
    tally = {"I": 0, "D": 0}
    relations_verified = 0
    results, expected, disagreements = [], [], []
    for t in range(families):
        laws = random_discrete_family(rng)
        if lattice_applicable(laws) is not None:      # cannot happen for atoms in {-3..3}
            disagreements.append({"trial": t, "reason": lattice_applicable(laws)})
            continue
        crit = lattice_criterion(laws)
        kernel_ok = all(verify_polynomial_relation(laws, c).holds for c in crit.kernel)
        relations_verified += len(crit.kernel) if kernel_ok else 0
        r = independent_mod_affine(laws, "affine", claim=claim, seed=t, self_check=False)   # the batch is checked
        tally["I" if crit.independent else "D"] += 1
        results.append(r)
        expected.append("independent" if crit.independent else "dependent")
        if crit.independent != r.proved or not (crit.independent or r.refuted) or not kernel_ok:
            disagreements.append({"trial": t, "criterion_rank": crit.rank, "N": len(laws), "verdict": r.verdict.value,
                                  "kernel_verified": kernel_ok})
    summary = (f"agreement on {families - len(disagreements)}/{families} families ({tally['I']} independent, "
               f"{tally['D']} dependent by the lattice criterion); {relations_verified} kernel vectors verified as "
               "polynomial identities")
    evidence = {"tally": tally, "disagreements": disagreements[:5]}
    return batch_result(claim, results, summary, expected=expected, seeds={"families": seed},
                        label=f"{families} random rational discrete families (seed {seed}), expected verdicts from "
                              "the lattice criterion", evidence=evidence)


def check_s1_not_necessary(claim: str = "N5.n") -> Result:
    """F6: independent (certificate) while S1 fails exactly: in d = 1 the unit directions are +-1 and every
    top gap equals 1 for both."""
    laws = oracle_case("F6").laws
    gaps = {str(v): [top_gap(l, (v,)) for l in laws] for v in (1, -1)}
    s1_fails = all(len(set(g)) < len(g) for g in gaps.values())
    r = independent_mod_affine(laws, "affine", claim=claim)
    params = {"laws": [l.to_dict() for l in laws], "label": "F6 (Poisson-binomial laws 1-3)"}
    statement = statement_s1_necessary(jsonable(params), jsonable(CONVENTIONS))
    summary = (f"top gaps for v = +1, -1: {gaps} (not pairwise distinct), yet {r.certificate.get('summary')}")
    if not (s1_fails and r.proved):
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.EXACT, certificate={"summary": summary},
                      parameters=params, conventions=dict(CONVENTIONS), evidence={"top_gaps": gaps})
    return self_checked(Result(claim, statement, Verdict.REFUTED, r.method,
                               certificate={"kind": "s1-not-necessary", "summary": summary,
                                            "design": {k: x for k, x in r.certificate.items()
                                                       if k not in ("kind", "summary")}},
                               parameters=params, conventions=dict(CONVENTIONS), evidence={"top_gaps": gaps}))
