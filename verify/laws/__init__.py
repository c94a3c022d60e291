"""Token distributions of paper 2 (the laws whose cumulant generating functions the attention NTK sees).

* :mod:`verify.laws.models`          -- the five families (discrete, uniform cube, symmetric Laplace, Gaussian,
  Gaussian mixture) as frozen objects: exact parameters, parsing, domains, translates and dilates;
* :mod:`verify.laws.cgf`             -- each family's CGF, gradient and Hessian once: the SymPy formula (the
  specification) and its exact, ball, mpmath and float64 evaluators (:data:`verify.laws.cgf.TABLE`);
* :mod:`verify.laws.spec`            -- SPEC entries <-> objects (:func:`distribution_from_dict`);
* :mod:`verify.laws.display`         -- LaTeX for notebooks;
* :mod:`verify.laws.oracle_families` -- the named test families with known truth (docs/paper2.md §6.7).

May import :mod:`verify.arith`, :mod:`verify.objects` and the base modules; never anything above.
"""

from .models import (FAMILIES, MAX_ATOMS, MAX_DIM, Discrete, Distribution, Gaussian, GaussianMixture,
                     SymmetricLaplace, UniformCube, check_spd, theta_symbols)
from .spec import distribution_from_dict

__all__ = [
    "Distribution", "Discrete", "UniformCube", "SymmetricLaplace", "GaussianMixture", "Gaussian",
    "distribution_from_dict", "theta_symbols", "check_spd", "FAMILIES", "MAX_DIM", "MAX_ATOMS",
]
