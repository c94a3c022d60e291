"""The digests the byte-identity pins compare (tests/test_*_speed.py, test_*_pins.py, test_polytope.py).

* :func:`result_hash`: sha256 of a Result's canonical JSON without "timing", "versions", the "float64" evidence
  entries (numpy's figures, platform-dependent, docs/ntk.md), the evidence of float searches (T2's softmax
  search: scipy's optimiser takes other paths with other CPUs' BLAS kernels, so its points differ: three values of
  one audit's hash on one machine under three OPENBLAS_CORETYPE settings) and the evidence's typed figure data
  ("figure", docs/reports.md) -- none of them part of a verdict or certificate; ``floats=False`` leaves out every
  "float64..." entry and every JSON float as well (tests/test_casesplit_speed.py, tests/test_n8_n10_pins.py: nine of
  their slow pins differed on an AMD EPYC machine from the machine they were recorded on, by float figures only);
* :func:`plain_digest`: sha256 of the canonical JSON without the top-level "timing" only.

``HASH_ALL``: the slow pins run only with VERIFY_HASH_ALL=1 (the suite's audit run checks their verdicts anyway).
"""

import hashlib
import os

from verify.canonical import canonical_dumps

HASH_ALL = os.environ.get("VERIFY_HASH_ALL") == "1"


def _float_search(v) -> bool:
    """A float search's evidence (T2's softmax search: its optimiser's points depend on the CPU's BLAS kernels)."""
    return isinstance(v, dict) and str(v.get("label", "")).startswith("evidence (float search")


def _strip(o, floats=True):
    """Without "timing" and "float64" entries and float searches' evidence (at any depth); ``floats=False``:
    also without every "float64..." entry and every JSON float (exact numbers are strings in a Result, so a
    float is always a float figure: evidence, and platform-dependent)."""
    if isinstance(o, dict):
        return {k: _strip(v, floats) for k, v in o.items()
                if k not in ("timing", "float64") and not _float_search(v)
                and (floats or (not k.startswith("float64") and type(v) is not float))}
    if isinstance(o, list):
        return [_strip(v, floats) for v in o if floats or type(v) is not float]
    return o


def result_hash(result, floats: bool = True) -> str:
    """``floats=False``: the float figures left out too (the pins of Results whose evidence is float-heavy:
    N7's float64 tables, N8's fitted slopes, N10's residuals, which differ with the CPU's BLAS kernels)."""
    d = _strip(result.to_dict(), floats)
    d.pop("versions", None)
    if isinstance(d.get("evidence"), dict):
        d["evidence"].pop("figure", None)
    return hashlib.sha256(canonical_dumps(d).encode()).hexdigest()


def plain_digest(result) -> str:
    d = result.to_dict()
    d.pop("timing", None)
    return hashlib.sha256(canonical_dumps(d).encode()).hexdigest()
