"""Audits of the catalogue claims, one module per claim: ``proofs/maxout/t6_maxout_emulation.py``
holds the audits of T6.  Each module defines ``AUDITS``, a list of :class:`verify.audit.spec.Audit`.
They run with ``verify audit`` and with ``pytest proofs/`` (one test item per audit)."""
