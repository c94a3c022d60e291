"""verify: machine-checked claims of two 2026 Transformer theory papers.

Layers (lower never imports upper)::

    arith/          exact rationals, arb balls, mpmath evidence
    objects/        maxout networks, Transformers, CPWL functions
    laws/           token distributions of paper 2 and the named test families
    constructions/  maxout -> Transformer compiler, token shift, CPWL compiler, reference families
    decide/         decision procedures: regions, emulation, independence, NTK, softmax bounds, mean field
    checks/         one module per claim (t1_..., n10_...), each returning a Result
    audit/          audit registry and runner (the audits themselves live in proofs/)
    cli/            the ``verify`` command
    kernel/         beside them all: the trusted re-checker, importing only the arithmetic libraries

The public names below are imported lazily, so ``import verify`` is fast.

>>> import verify
>>> verify.Verdict.PROVED.value
'proved'
"""

from __future__ import annotations

import importlib

from ._version import __version__

# public name -> module that defines it
_EXPORTS = {
    # results and errors
    "Verdict": "verify.results",
    "Method": "verify.results",
    "Result": "verify.results",
    "InputError": "verify.errors",
    "DomainError": "verify.errors",
    "CLAIMS": "verify.claims",
    "get_claim": "verify.claims",
    # paper 1 objects and constructions
    "MaxoutNetwork": "verify.objects.maxout",
    "Transformer": "verify.objects.transformer",
    "Attention": "verify.objects.transformer",
    "Head": "verify.objects.transformer",
    "FeedForward": "verify.objects.transformer",
    "CPWL1D": "verify.objects.cpwl",
    "DCFunction": "verify.objects.cpwl",
    "compile_maxout": "verify.constructions.maxout_compiler",
    "compile_cpwl": "verify.constructions.cpwl_compiler",
    "SublayerView": "verify.objects.transformer",
    "o2_network": "verify.constructions.reference_networks",
    "prove_emulation": "verify.decide.emulation",
    "count_regions": "verify.decide.regions",
    "RegionCount": "verify.decide.regions",
    "CompiledMaxout": "verify.constructions.maxout_compiler",
    "sharp_bound": "verify.decide.softmax_error",
    "softmax_error_ball": "verify.decide.softmax_error",
    "star_point_rational": "verify.decide.softmax_error",
    "check_softmax_bound": "verify.checks.t2_softmax_bound",
    # paper 2 objects and checks
    "Discrete": "verify.laws",
    "UniformCube": "verify.laws",
    "SymmetricLaplace": "verify.laws",
    "GaussianMixture": "verify.laws",
    "Gaussian": "verify.laws",
    "independent_mod_affine": "verify.decide.independence",
    "check_relation": "verify.decide.independence",
    "distribution_from_dict": "verify.laws",
    "ntk_gram": "verify.decide.ntk_gram",
    "ntk_positive_definite": "verify.decide.ntk",
    "certified_spectrum": "verify.decide.ntk",
    "NtkGram": "verify.decide.ntk_gram",
    # audits
    "Audit": "verify.audit.spec",
    "run_audits": "verify.audit.runner",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
