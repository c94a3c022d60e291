"""Independent re-checking of saved certificates (the de Bruijn criterion).

``verify check CERT.json`` re-verifies a saved PROVED/REFUTED Result from the data recorded in its
certificate alone: no search is re-run.  This package is deliberately small and imports only the
arithmetic engines, never the code that *found* the certificate (``tests/test_layering.py``).

A certificate that can be re-checked carries ``"kind"``; :data:`KINDS` maps each kind to the module
whose ``recheck(result: dict) -> str`` verifies it, returning a one-line summary or raising
:class:`RecheckFailure` with the reason.

>>> sorted(KINDS)[:1]
['dependence-relation']
"""

from __future__ import annotations

import importlib

__all__ = ["KINDS", "RecheckFailure", "recheck"]

# certificate kind -> module with recheck(result_dict) -> str
KINDS = {
    "dependence-relation": "verify.recheck.dependence",       # N3-N6: exact relation sum c_i Lambda_i = affine
    "independence-design": "verify.recheck.independence",     # N3-N6: certified full-rank design matrix
    "emulation-regions": "verify.recheck.emulation",          # T6/T8/T9: regions + exact affine maps
    "emulation-witness": "verify.recheck.emulation",          # T6: exact witness, Transformer re-evaluated
    "ntk-cholesky": "verify.recheck.ntk",                      # N7: certified PD Gram
    "ntk-null-vector": "verify.recheck.ntk",                   # N7: exact null vector
    "regions-count": "verify.recheck.regions",                 # T10: exact regions
}


class RecheckFailure(Exception):
    """The certificate does not verify (tampered, incomplete, or of an unknown kind)."""


def recheck(result: dict) -> str:
    """Re-verify a Result given as a dict (as written by ``Result.to_json``)."""
    if not isinstance(result, dict):
        raise RecheckFailure("result: not a JSON object")
    verdict = result.get("verdict")
    if verdict not in ("proved", "refuted"):
        raise RecheckFailure(f"verdict: only proved/refuted results carry a certificate, got {verdict!r}")
    cert = result.get("certificate")
    if not isinstance(cert, dict):
        raise RecheckFailure("certificate: missing or not an object")
    kind = cert.get("kind")
    if kind not in KINDS:
        raise RecheckFailure(f"certificate.kind: {kind!r} has no re-checker; known kinds: {', '.join(sorted(KINDS))}")
    try:
        module = importlib.import_module(KINDS[kind])
    except ModuleNotFoundError:
        raise RecheckFailure(f"certificate.kind: re-checker for {kind!r} is not installed") from None
    return module.recheck(result)
