"""The oracle families F1..F25 of docs/paper2.md §6.7, the base law beta of §9.4, and
its dilation grid used by N3.n1.

Each case is an :class:`OracleCase`: the laws, the reading (``modulo``), the expected verdict
(``"I"`` independent / ``"D"`` dependent modulo affine functions) and, for D, the exact relation
``sum c_i Lambda_i = <a, theta> + b`` as given in docs/paper2.md §6.7 (``b`` a rational, or ``None`` when the
spec states none).  Variants of one table row get suffixed ids (``F11c`` = F11 modulo constants;
``F18g`` / ``F18g6`` = the 8 / first 6 covariances as Gaussians; ``F24g`` = dilations of a Gaussian).

>>> case = oracle_case("F5")
>>> case.expected, case.relation
('D', (1, 0, -2, 1))
>>> [c for c in ORACLE_IDS if c.startswith("F1")][:4]
['F1', 'F10', 'F11', 'F11c']
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F
from typing import Optional

from ..errors import InputError
from .models import Discrete, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube

__all__ = ["OracleCase", "oracle_case", "ORACLE_IDS", "BETA_ATOMS", "beta", "beta_dilations",
           "dilation_grid", "f18_covariances", "f25_trial", "f25_trials", "F25_SEED", "grid_laws"]

BETA_ATOMS = ((F(0), F(0)), (F(1), F(3, 10)), (F(-2, 5), F(11, 10)))
F25_SEED = 20260525

I2 = [[1, 0], [0, 1]]
S1 = [[1, 0], [0, 1]]
S2 = [[F(1, 2), F(1, 5)], [F(1, 5), F(4, 5)]]
S3 = [[(a + b) / 2 for a, b in zip(r1, r2)] for r1, r2 in zip(S1, S2)]


@dataclasses.dataclass(frozen=True)
class OracleCase:
    id: str
    description: str
    laws: tuple
    expected: str                       # "I" or "D"
    modulo: str = "affine"
    relation: Optional[tuple] = None    # c (integers), for D
    affine: Optional[tuple] = None      # a (rationals), for D
    constant: Optional[F] = None        # b, when rational and stated
    box: Optional[F] = None             # suggested theta box [-box, box]^d (docs/paper2.md §6.7), None = default


def beta():
    """beta = 1/3 (delta_(0,0) + delta_(1,3/10) + delta_(-2/5,11/10))."""
    return Discrete([list(a) for a in BETA_ATOMS])


def beta_dilations(lams):
    """The laws of lam * Y, Y ~ beta."""
    b = beta()
    return tuple(b.dilated(lam) for lam in lams)


def dilation_grid(h) -> list:
    """The 25 points {-h, -h/2, 0, h/2, h}^2 of N3.n1."""
    h = F(h)
    ticks = [-h, -h / 2, F(0), h / 2, h]
    return [(x, y) for x in ticks for y in ticks]


def grid_laws(n_laws: int, atoms: int = 4, seed: int = 2026) -> list:
    """``n_laws`` seeded random discrete laws in d = 2, each with ``atoms`` distinct atoms on the grid
    (k/8, l/8), |k|, |l| <= 16, uniform weights, drawn by ``random.Random(seed)`` (the large NTK Grams of
    N7's residual audits, their tests and bench/ntk.py).

    >>> [law.atoms for law in grid_laws(1, atoms=2, seed=0)] == [((F(-7, 4), F(0)), (F(1), F(5, 4)))]
    True
    """
    rng = random.Random(seed)
    laws = []
    for _ in range(n_laws):
        pts: set = set()
        while len(pts) < atoms:
            pts.add((F(rng.randint(-16, 16), 8), F(rng.randint(-16, 16), 8)))
        laws.append(Discrete([list(p) for p in sorted(pts)]))
    return laws


def f18_covariances(seed: int = 18) -> list:
    """8 random rational SPD 3x3 matrices B B^T / 4 + I/2, B with entries in {-2..2} (fixed seed)."""
    rng = random.Random(seed)
    out = []
    for _ in range(8):
        B = [[F(rng.randint(-2, 2)) for _ in range(3)] for _ in range(3)]
        S = [[sum(B[i][k] * B[j][k] for k in range(3)) / 4 + (F(1, 2) if i == j else 0) for j in range(3)]
             for i in range(3)]
        out.append(S)
    return out


def f25_trial(rng, n_laws: int = 5, n_points: int = 3, dim: int = 2, *, dist: str = "normal"):
    """One F25/N6 trial: ``n_laws`` empirical laws of ``n_points`` i.i.d. points (numpy Generator ``rng``),
    floats converted to their exact binary rationals."""
    if dist == "normal":
        X = rng.standard_normal((n_laws, n_points, dim))
    elif dist == "uniform":
        X = rng.random((n_laws, n_points, dim))
    else:
        raise InputError("dist", f"must be 'normal' or 'uniform', got {dist!r}")
    return tuple(Discrete([[F(float(v)) for v in pt] for pt in law]) for law in X)


def f25_trials(n_trials: int = 100, seed: int = F25_SEED):
    import numpy as np

    rng = np.random.default_rng(seed)
    return [f25_trial(rng) for _ in range(n_trials)]


def _build(cid: str) -> OracleCase:
    h = F(1, 2)
    if cid in ("F1", "F1c"):
        mu, nu = Discrete([[0], [1]]), Discrete([[0], [2]])
        conv = Discrete([[0], [1], [2], [3]])
        return OracleCase(cid, "mu, nu, mu*nu (convolution)", (mu, nu, conv), "D",
                          "affine" if cid == "F1" else "constants", (1, 1, -1), (F(0),), F(0))
    if cid == "F2":
        return OracleCase(cid, "mu, nu (S1: gaps 1 and 2)", (Discrete([[0], [1]]), Discrete([[0], [2]])), "I")
    if cid == "F3":
        laws = (Discrete([[0], [1]]), Discrete([[10], [12]]), Discrete([[20], [21], [22], [23]]))
        return OracleCase(cid, "disjoint supports, Lambda3 = Lambda1 + Lambda2 + 10 theta", laws, "D",
                          relation=(1, 1, -1), affine=(F(-10),), constant=F(0))
    if cid == "F4":
        laws = (Discrete([[F(3, 10), F(1, 10)]]), Discrete([[0, 0], [1, 1]]))
        return OracleCase(cid, "a Dirac and a two-point law", laws, "D", relation=(1, 0),
                          affine=(F(3, 10), F(1, 10)), constant=F(0))
    if cid in ("F5", "F6"):
        W = [[1, 3, 3, 1], [1, 6, 11, 6], [1, 4, 5, 2], [1, 5, 8, 4]]
        laws = tuple(Discrete([[0], [1], [2], [3]], [F(w, sum(r)) for w in r]) for r in W)
        if cid == "F5":
            return OracleCase(cid, "Poisson-binomial laws 1-4, P1 P4 = P3^2", laws, "D",
                              relation=(1, 0, -2, 1), affine=(F(0),), constant=F(0))
        return OracleCase(cid, "Poisson-binomial laws 1-3 (every top gap 1)", laws[:3], "I")
    if cid == "F7":
        laws = tuple(Discrete([[-a], [a]]) for a in (F(1, 2), F(1), F(3, 2), F(2), F(5, 2)))
        return OracleCase(cid, "symmetric two-point laws +-a", laws, "I")
    if cid == "F8":
        laws = tuple(UniformCube(r, [0, 0]) for r in (F(1, 2), F(1), F(3, 2), F(2)))
        return OracleCase(cid, "centred squares, r = 1/2, 1, 3/2, 2", laws, "I", box=F(1))
    if cid == "F9":
        laws = (UniformCube(1, [0, 0]), UniformCube(1, [F(3, 10), F(-7, 10)]))
        return OracleCase(cid, "a square and its translate", laws, "D", relation=(1, -1),
                          affine=(F(-3, 10), F(7, 10)), constant=F(0))
    if cid == "F10":
        laws = (UniformCube(h, [0, 0]), UniformCube(h, [1, 0]), UniformCube(h, [0, 2]))
        return OracleCase(cid, "unit squares centred at (0,0), (1,0), (0,2)", laws, "D", relation=(1, -1, 0),
                          affine=(F(-1), F(0)), constant=F(0))
    if cid in ("F11", "F11c"):
        laws = (Gaussian([[1]], [0]), Gaussian([[4]], [1]))
        if cid == "F11":
            return OracleCase(cid, "N(0,1), N(1,4): 4 Lambda1 - Lambda2 = -theta", laws, "D",
                              relation=(4, -1), affine=(F(-1),), constant=F(0))
        return OracleCase(cid, "N(0,1), N(1,4) modulo constants", laws, "I", "constants")
    if cid in ("F12", "F13"):
        laws = (Gaussian(I2), Gaussian([[2, 0], [0, 1]]), Gaussian([[1, h], [h, 1]]))
        if cid == "F12":
            return OracleCase(cid, "Gaussians I, diag(2,1), [[1,1/2],[1/2,1]]", laws, "I")
        laws = laws + (Gaussian([[3, F(1, 5)], [F(1, 5), 2]], [1, 0]),)
        return OracleCase(cid, "F12 plus N((1,0), [[3,1/5],[1/5,2]])", laws, "D", relation=(-3, -5, -2, 5),
                          affine=(F(5), F(0)), constant=F(0))
    if cid == "F14":
        return OracleCase(cid, "Gaussians S1, S2, S3 = (S1+S2)/2", tuple(Gaussian(S) for S in (S1, S2, S3)), "D",
                          relation=(1, 1, -2), affine=(F(0), F(0)), constant=F(0))
    if cid == "F15":
        return OracleCase(cid, "Laplace S1, S2, S3 = (S1+S2)/2", tuple(SymmetricLaplace(S) for S in (S1, S2, S3)),
                          "I", box=F(4, 5))
    if cid == "F16":
        laws = tuple(SymmetricLaplace([[v]]) for v in (F(1, 4), F(1, 2), F(1), F(3, 2)))
        return OracleCase(cid, "1-D Laplace, variances 1/4, 1/2, 1, 3/2", laws, "I")
    if cid == "F17":
        laws = (SymmetricLaplace(S1), SymmetricLaplace(S1, [F(2, 5), -1]))
        return OracleCase(cid, "Laplace(0, S1) and its translate by (2/5, -1)", laws, "D", relation=(1, -1),
                          affine=(F(-2, 5), F(1)), constant=F(0))
    if cid in ("F18", "F18g", "F18g6"):
        covs = f18_covariances()
        if cid == "F18":
            return OracleCase(cid, "8 random SPD 3x3 covariances as Laplace laws", tuple(SymmetricLaplace(S) for S in covs), "I")
        if cid == "F18g":
            return OracleCase(cid, "8 Gaussians in d = 3 (8 > 6 = dim Sym_3)", tuple(Gaussian(S) for S in covs), "D")
        return OracleCase(cid, "the first 6 as Gaussians", tuple(Gaussian(S) for S in covs[:6]), "I")
    if cid == "F19":
        laws = tuple(GaussianMixture(a, [1, 1], I2) for a in (F(1, 2), F(1), F(3, 2), F(2)))
        return OracleCase(cid, "mixtures 1/2 N(+-a u, I), u = (1,1)/sqrt 2", laws, "I")
    if cid == "F20":
        laws = (GaussianMixture(1, [1, 0], I2), GaussianMixture(1, [-1, 0], I2))
        return OracleCase(cid, "mixtures with centres m and -m (the same law)", laws, "D", relation=(1, -1),
                          affine=(F(0), F(0)), constant=F(0))
    if cid == "F21":
        laws = (GaussianMixture(1, [1, 0], I2), GaussianMixture(1, [0, 1], I2), GaussianMixture(1, [3, 4], I2))
        return OracleCase(cid, "mixtures, Sigma = I, centres e1, e2, (3/5, 4/5)", laws, "I")
    if cid == "F22":
        laws = (GaussianMixture(1, [1, 0], I2), GaussianMixture(2, [1, 0], I2), GaussianMixture(1, [0, 1], I2),
                GaussianMixture(1, [3, 4], I2), GaussianMixture(2, [3, 4], I2))
        return OracleCase(cid, "mixtures, centres (1,0), (2,0), (0,1), (3/5,4/5), (6/5,8/5)", laws, "I")
    if cid == "F23":
        laws = (GaussianMixture(1, [1], [[1]]), GaussianMixture(2, [1], [[1]]), Gaussian([[1]]))
        return OracleCase(cid, "1-D mixtures a = 1, 2 plus N(0,1)", laws, "I")
    if cid == "F24":
        return OracleCase(cid, "dilations 1/2, 1, 3/2, 2 of beta", beta_dilations([h, 1, F(3, 2), 2]), "I")
    if cid == "F24g":
        g = Gaussian([[1, h], [h, 1]])
        return OracleCase(cid, "dilations 1, 2 of a Gaussian: c = (lam2^2, -lam1^2)", (g, g.dilated(2)), "D",
                          relation=(4, -1), affine=(F(0), F(0)), constant=F(0))
    if cid == "F25":
        import numpy as np

        return OracleCase(cid, f"one trial: 5 empirical laws of 3 i.i.d. N(0, I2) points (seed {F25_SEED})",
                          f25_trial(np.random.default_rng(F25_SEED)), "I")
    raise InputError("case", f"unknown oracle case {cid!r}; known: {', '.join(ORACLE_IDS)}")


ORACLE_IDS = sorted(["F1", "F1c", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F11c", "F12",
                     "F13", "F14", "F15", "F16", "F17", "F18", "F18g", "F18g6", "F19", "F20", "F21", "F22",
                     "F23", "F24", "F24g", "F25"])

_CACHE: dict = {}


def oracle_case(cid: str) -> OracleCase:
    """The oracle case ``cid`` (see :data:`ORACLE_IDS`)."""
    if cid not in _CACHE:
        _CACHE[cid] = _build(cid)
    return _CACHE[cid]
