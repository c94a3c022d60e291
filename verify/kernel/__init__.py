"""The kernel: the small trusted code that re-checks a decided Result.

``check(result)`` takes a Result as JSON data (``Result.to_dict()`` or a file written by ``verify``) and
either returns a one-line summary of what it verified or raises :class:`Rejected`.  It re-derives what
is claimed from the Result's own ``claim``, ``statement``, ``parameters``, ``conventions`` and
``verdict``, and checks that the certificate proves exactly that:

1. the verdict is ``proved`` or ``refuted`` and the method ``exact`` or ``certified``;
2. the certificate is an object whose ``kind`` names a kind of :data:`MODULES` (unknown, missing or
   malformed: rejected; there is no skip path);
3. the kind accepts the Result's claim ID (``T6``, ``T6.n`` ...), its verdict and its method (the
   polarity of a verdict is fixed by the kind and the statement, never by a certificate field);
4. the kind's own check reads the parameters with strict key sets, rebuilds the statement from them
   (:func:`verify.kernel._read.expect_statement`: text plus an instance tag, a digest of parameters and
   conventions) and re-verifies the certificate with exact arithmetic or arb balls.

Any exception inside a check rejects the Result (rejecting is always the safe answer).

Trusted base: this package, the Python standard library, ``fractions``, python-flint (``arb``,
``fmpq``, ``fmpz``), gmpy2 and SymPy.  It imports nothing else of ``verify`` (tests/test_layering.py).

>>> check({"claim": "T3", "statement": "s", "verdict": "proved", "method": "exact",
...        "certificate": {"summary": "trust me"}})
Traceback (most recent call last):
...
verify.kernel._read.Rejected: certificate.kind: missing (every decided Result needs a certificate of a known kind)
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import Callable, FrozenSet

from ._read import Rejected, budget

__all__ = ["Rejected", "Kind", "MODULES", "kinds", "has_kind", "check", "DEFAULT_BUDGET"]

# every kernel module that defines certificate kinds (module-level ``KINDS: dict[str, Kind]``)
MODULES = ("casesplit", "softmax", "emulation", "regions", "symbolic", "lse", "ntk")
DEFAULT_BUDGET = 600.0   # seconds per Result; a budget run out rejects


@dataclasses.dataclass(frozen=True)
class Kind:
    """A certificate kind: which claim IDs (base IDs, e.g. ``"T6"``), verdict and methods it can prove,
    and the check ``check(result: dict) -> str`` that verifies a Result of this kind."""

    claims: FrozenSet[str]
    verdict: str
    methods: FrozenSet[str]
    check: Callable[[dict], str]


_KINDS: dict = {}


def _modules():
    """The installed kernel modules in the order of ``MODULES``, each imported when the iteration reaches it
    (a module absent from the installation is skipped; any other import error propagates)."""
    for name in MODULES:
        try:
            yield importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise


def kinds() -> dict:
    """``{kind name: Kind}`` of every installed kernel module (imported once)."""
    if not _KINDS:
        table = {}
        for module in _modules():
            for kind, spec in module.KINDS.items():
                if kind in table:
                    raise RuntimeError(f"kernel: kind {kind!r} defined twice")
                table[kind] = spec
        _KINDS.update(table)
    return dict(_KINDS)


def has_kind(kind: str) -> bool:
    """Is ``kind`` a kernel kind?  The same answer as ``kind in kinds()``, importing the kernel modules in the
    order of ``MODULES`` only until one defines it (a Result's construction needs no more)."""
    if _KINDS:
        return kind in _KINDS
    return any(kind in module.KINDS for module in _modules())


_CLAIM = re.compile(r"^(T(1[01]|[1-9])|N(10|[1-9]))(\.[A-Za-z0-9_]+)?$")
_TOP = ("claim", "statement", "verdict", "method", "certificate", "parameters", "conventions", "seeds",
        "evidence", "versions", "timing", "label")


def _check(result) -> str:
    if not isinstance(result, dict):
        raise Rejected("result: not a JSON object")
    unknown = sorted(set(result) - set(_TOP))
    if unknown:
        raise Rejected(f"result: unknown key(s) {', '.join(map(str, unknown))}")
    for key in ("claim", "statement", "verdict", "method"):
        if not isinstance(result.get(key), str):
            raise Rejected(f"{key}: missing or not a string")
    if not _CLAIM.match(result["claim"]):
        raise Rejected(f"claim: {result['claim']!r:.40} is not a catalogue ID (T1..T11, N1..N10, optional suffix)")
    for key in ("parameters", "conventions"):
        if not isinstance(result.get(key, {}), dict):
            raise Rejected(f"{key}: not an object")
    result = dict(result)
    result.setdefault("parameters", {})
    result.setdefault("conventions", {})
    verdict, method = result["verdict"], result["method"]
    if verdict not in ("proved", "refuted"):
        raise Rejected(f"verdict: only proved/refuted Results are re-checked, got {verdict!r:.40}")
    if method not in ("exact", "certified"):
        raise Rejected(f"method: a decided Result must be exact or certified, got {method!r:.40}")
    cert = result.get("certificate")
    if not isinstance(cert, dict):
        raise Rejected("certificate: missing or not an object")
    kind = cert.get("kind")
    if kind is None:
        raise Rejected("certificate.kind: missing (every decided Result needs a certificate of a known kind)")
    table = kinds()
    if not isinstance(kind, str) or kind not in table:
        raise Rejected(f"certificate.kind: {kind!r:.60} is not a known kind ({', '.join(sorted(table))})")
    spec = table[kind]
    base = result["claim"].split(".", 1)[0]
    if base not in spec.claims:
        raise Rejected(f"claim: kind {kind!r} proves claims {', '.join(sorted(spec.claims))}, not {result['claim']!r:.20}")
    if verdict != spec.verdict:
        raise Rejected(f"verdict: a {kind!r} certificate supports the verdict {spec.verdict!r}, not {verdict!r}")
    if method not in spec.methods:
        raise Rejected(f"method: a {kind!r} certificate is {'/'.join(sorted(spec.methods))}, not {method!r}")
    summary = spec.check(result)
    if not isinstance(summary, str):
        raise Rejected(f"kernel: the {kind!r} check returned no summary")
    return f"{kind}: {summary}"


def check(result, seconds: float = DEFAULT_BUDGET) -> str:
    """Re-check one decided Result (JSON data); return a summary or raise :class:`Rejected`."""
    try:
        with budget(seconds):
            return _check(result)
    except Rejected:
        raise
    except RecursionError:
        raise Rejected("result: nested too deeply") from None
    except Exception as exc:  # malformed data inside a check: reject, never crash
        raise Rejected(f"{type(exc).__name__}: {str(exc)[:300]}") from None
