"""Arithmetic engines (the bottom layer).

* :mod:`verify.engines.exact`    -- exact rationals: parsing user numbers, exact linear algebra over Q;
* :mod:`verify.engines.ball`     -- python-flint ``arb`` balls with a precision ladder and certain-only comparisons;
* :mod:`verify.engines.evidence` -- mpmath at high precision; its numbers are *evidence*, never proofs.

Engines import nothing from the rest of ``verify`` except :mod:`verify.errors` and :mod:`verify.results`.
"""
