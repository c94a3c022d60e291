"""Checks returning :class:`verify.results.Result`.

One module per claim, named by its ID: ``t1_hardmax_max`` .. ``t11_permutation_equivariance``,
``n1_cgf_closed_forms`` .. ``n10_gradient_flow`` (see :mod:`verify.claims`), plus shared
decision procedures (``independence``, ``ntk``, ``emulation``).
May import engines, objects, constructions and analysis; never audit or cli.
"""
