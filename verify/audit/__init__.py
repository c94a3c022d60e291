"""Audits: (claim ID, parameters, expected verdict) triples, defined in ``proofs/`` and run by
:func:`verify.audit.runner.run_audits`, by ``verify audit`` and by ``pytest proofs/``."""
