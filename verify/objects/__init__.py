"""Mathematical objects with exact parameters: maxout networks, Transformers, CPWL functions,
probability distributions (with their CGFs).  May import :mod:`verify.arith` only."""
