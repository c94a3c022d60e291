"""Arithmetic (the bottom layer).

* :mod:`verify.arith.exact`    -- exact rationals: parsing user numbers, exact linear algebra over Q;
* :mod:`verify.arith.ball`     -- python-flint ``arb`` balls with a precision ladder and certain-only comparisons;
* :mod:`verify.arith.evidence` -- mpmath at high precision; its numbers are *evidence*, never proofs.
* :mod:`verify.arith.context`  -- the one arithmetic context protocol (constants, three-valued signs, relu,
  max, exp, softmax) with its exact, ball, mpmath, MPFR and SymPy implementations.

The arithmetic imports nothing from the rest of ``verify`` except :mod:`verify.errors` and :mod:`verify.results`.
"""
