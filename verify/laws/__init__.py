"""Token distributions of paper 2 (the laws whose cumulant generating functions the attention NTK sees).

* :mod:`verify.laws.families`        -- the five families (discrete, uniform cube, symmetric Laplace,
  Gaussian, Gaussian mixture): exact parameters, parsing, CGFs and their derivatives;
* :mod:`verify.laws.oracle_families` -- the named test families with known truth (docs/lse.md).

May import :mod:`verify.arith`, :mod:`verify.objects` and the base modules; never anything above.
"""

from .families import *  # noqa: F401,F403  (the public names of the families)
from .families import __all__  # noqa: F401
