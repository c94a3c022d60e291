"""Claims, one module each, named by the claim ID: ``t1_hardmax_max`` .. ``t11_permutation_equivariance``,
``n1_cgf_closed_forms`` .. ``n10_gradient_flow`` (see :mod:`verify.claims` and docs/map.md).

A claim module states the claim with its scope, reads its parameters, calls the decision procedures of
:mod:`verify.decide` and returns a :class:`verify.results.Result`.  May import arith, objects, laws,
constructions and decide; never another claim module, audit or cli.
"""
