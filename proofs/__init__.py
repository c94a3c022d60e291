"""Audits of the catalogue claims, one module per claim: ``proofs/maxout/t6_maxout_emulation.py``
holds the audits of T6.  Each module defines ``AUDITS``, a list of :class:`verify.audit.spec.Audit`.
They run with ``verify audit`` and with ``pytest proofs/`` (one test item per audit).

This folder stays at the top of the checkout but is installed as the package ``verify.proofs``
(``setup.py``); the toolkit imports it under that name only (``verify/audit/discovery.py``)."""
