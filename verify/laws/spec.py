"""SPEC entries of the law families: ``{"family": ..., <parameters>}`` <-> :mod:`verify.laws.models` objects.

Exact numbers are written as ``"p/q"`` strings (``Distribution.to_dict``) and read back exactly.

>>> distribution_from_dict(UniformCube("1/2", center=[0, 1]).to_dict()) == UniformCube("1/2", center=[0, 1])
True
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, InputTypeError, nearest, reject_unknown_keys
from .models import FAMILIES, Discrete, Distribution, Gaussian, GaussianMixture, SymmetricLaplace, UniformCube

__all__ = ["distribution_from_dict"]

# family -> (required keys, optional keys)
_KEYS = {
    "discrete": ({"atoms"}, {"weights"}),
    "uniform_cube": ({"radius"}, {"center", "dim"}),
    "laplace": ({"cov"}, {"mean"}),
    "gaussian_mixture": ({"separation", "direction", "cov"}, {"center"}),
    "gaussian": ({"cov"}, {"mean"}),
}


def distribution_from_dict(d: Any, field: str = "distribution", *, allow_float: bool = False) -> Distribution:
    """Build a law from its SPEC entry, e.g. ``{"family": "discrete", "atoms": [[0], [1]]}``.

    Errors name the field (``distributions[2].cov: not symmetric ...``); a key the family does not have is an
    error naming it and the nearest known key.  The JSON Schema is ``verify/schemas/independence.json``.

    >>> distribution_from_dict({"family": "laplace", "cov": [[1]]}).family
    'laplace'
    >>> distribution_from_dict({"family": "poisson"})
    Traceback (most recent call last):
    ...
    verify.errors.InputError: distribution.family: unknown family 'poisson'; known: discrete, uniform_cube, laplace, gaussian_mixture, gaussian
    >>> distribution_from_dict({"family": "laplace", "cov": [[1]], "maen": [0]})
    Traceback (most recent call last):
    ...
    verify.errors.InputError: distribution.maen: unknown key; did you mean 'mean'? (allowed: cov, family, mean)
    """
    if not isinstance(d, dict):
        raise InputTypeError(field, f"expected a JSON object, got {type(d).__name__}")
    fam = d.get("family")
    if not isinstance(fam, str):
        if "family" not in d:
            raise InputError(f"{field}.family", f"missing (one of {', '.join(FAMILIES)})")
        raise InputTypeError(f"{field}.family", f"expected a string (one of {', '.join(FAMILIES)}), "
                                                f"got {type(fam).__name__}")
    if fam not in _KEYS:
        near = nearest(fam, list(_KEYS))
        hint = f"did you mean {near!r}? " if near else ""
        raise InputError(f"{field}.family", f"unknown family {fam[:60]!r}; {hint}known: {', '.join(FAMILIES)}")
    required, optional = _KEYS[fam]
    reject_unknown_keys(d, required | optional | {"family"}, field)
    missing = sorted(required - set(d))
    if missing:
        raise InputError(f"{field}.{missing[0]}", f"missing (required for family {fam!r})")
    try:
        if fam == "discrete":
            return Discrete(d["atoms"], d.get("weights"), allow_float=allow_float)
        if fam == "uniform_cube":
            return UniformCube(d["radius"], d.get("center"), d.get("dim"), allow_float=allow_float)
        if fam == "laplace":
            return SymmetricLaplace(d["cov"], d.get("mean"), allow_float=allow_float)
        if fam == "gaussian_mixture":
            return GaussianMixture(d["separation"], d["direction"], d["cov"], d.get("center"), allow_float=allow_float)
        return Gaussian(d["cov"], d.get("mean"), allow_float=allow_float)
    except InputError as exc:
        raise type(exc)(f"{field}.{exc.field}", exc.problem) from None
    except InputTypeError as exc:
        raise InputTypeError(f"{field}.{exc.field}", exc.problem) from None
