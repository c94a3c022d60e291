"""``verify check CERT.json``: re-check saved certificates from their recorded data alone.

Accepts a single Result (``Result.to_json``) or an audit document (``verify audit --json``).  Every
PROVED/REFUTED Result whose certificate has a ``"kind"`` is handed to the independent re-checker of
that kind (:mod:`verify.recheck`); no search is re-run.  Exit 0 iff every re-check passes, 1 if any
certificate is rejected (or, with ``--strict``, if some decided Result could not be re-checked),
2 on bad input.

A re-checker that fails in any way on a certificate (its own :class:`~verify.recheck.RecheckFailure`
or any other exception on malformed data) *rejects* it: rejecting is always the safe answer.

>>> items = collect_results({"claim": "T3", "statement": "s", "verdict": "inconclusive", "method": "exact"})
>>> [(label, r["verdict"]) for label, r in items]
[('T3', 'inconclusive')]
>>> recheck_one("T3", {"claim": "T3", "statement": "s", "verdict": "proved", "method": "exact",
...                    "certificate": {"summary": "case split"}}).status
'not-recheckable'
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys

from ..errors import InputError

__all__ = ["HELP", "add_arguments", "run", "collect_results", "recheck_one", "CheckLine", "load_document"]

HELP = "re-check the certificates in a saved Result or audit JSON (exit 0 iff every re-check passes)"

MAX_CERT_BYTES = 256 * 1024 * 1024
# the message of verify.recheck.recheck when the module of a kind cannot be imported
_NESTED_MISSING = re.compile(r"^certificate\.kind: re-checker for '[^']+' is not installed$")


def add_arguments(p):
    p.add_argument("cert", metavar="CERT.json", help="a Result JSON or an audit JSON (verify audit --json)")
    p.add_argument("--strict", action="store_true",
                   help="also fail (exit 1) when a PROVED/REFUTED Result has no re-checkable certificate")
    p.add_argument("--quiet", action="store_true", help="print only rejections and the summary line")


@dataclasses.dataclass(frozen=True)
class CheckLine:
    """Outcome for one Result: status is ``passed``, ``rejected``, ``not-recheckable`` (no certificate
    kind, or its re-checker is not installed) or ``undecided`` (INCONCLUSIVE: nothing to re-check)."""

    label: str
    kind: str
    status: str
    detail: str


def _reject_constant(name):
    raise InputError("CERT", f"{name} is not allowed in a certificate (numbers must be finite)")


def load_document(path: str):
    """Parse CERT.json (size-limited, NaN/Infinity refused); every failure is an InputError."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputError("CERT", f"{path}: {exc.strerror or exc}") from None
    if size > MAX_CERT_BYTES:
        raise InputError("CERT", f"{path}: file of {size} bytes exceeds the limit {MAX_CERT_BYTES}")
    try:
        with open(path, "r", encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise InputError("CERT", f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError("CERT", f"{path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError("CERT", f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError("CERT", f"{path}: JSON nested too deeply") from None


def collect_results(doc) -> list:
    """``(label, result_dict)`` pairs from a Result or an audit document (audits without a Result,
    i.e. whose check raised, are skipped: there is nothing to re-check)."""
    if isinstance(doc, dict) and isinstance(doc.get("audits"), list):
        out = []
        for i, a in enumerate(doc["audits"]):
            if not isinstance(a, dict):
                raise InputError("CERT", f"audits[{i}] is not an object")
            r = a.get("result")
            if r is None:
                continue
            if not isinstance(r, dict):
                raise InputError("CERT", f"audits[{i}].result is not an object")
            out.append((str(a.get("audit", f"audits[{i}]")), r))
        return out
    if isinstance(doc, dict) and "verdict" in doc and "claim" in doc:
        return [(str(doc.get("claim")), doc)]
    raise InputError("CERT", "not a Result (needs claim, verdict, ...) nor an audit document (needs an 'audits' "
                             "list)")


def recheck_one(label: str, result: dict) -> CheckLine:
    """Re-check one Result dict; never raises."""
    from ..recheck import KINDS, RecheckFailure, recheck
    from ..results import Result

    try:
        Result.from_dict(result)
    except (TypeError, ValueError) as exc:
        return CheckLine(label, "-", "rejected", f"not a valid Result: {exc}")
    verdict = result.get("verdict")
    cert = result.get("certificate")
    kind = cert.get("kind") if isinstance(cert, dict) else None
    if verdict not in ("proved", "refuted"):
        return CheckLine(label, str(kind or "-"), "undecided", f"{verdict}: nothing to re-check")
    if kind is None:
        return CheckLine(label, "-", "not-recheckable", "certificate has no 'kind'")
    if not isinstance(kind, str) or kind not in KINDS:
        return CheckLine(label, str(kind), "rejected", f"certificate.kind {kind!r} is not a known kind "
                                                       f"({', '.join(sorted(KINDS))})")
    try:
        import importlib

        importlib.import_module(KINDS[kind])
    except ModuleNotFoundError as exc:
        if exc.name == KINDS[kind]:
            return CheckLine(label, kind, "not-recheckable", f"the re-checker {KINDS[kind]} is not installed")
        return CheckLine(label, kind, "rejected", f"re-checker failed to import: {exc}")
    try:
        summary = recheck(result)
    except RecheckFailure as exc:
        if _NESTED_MISSING.search(str(exc)):  # a re-checker it delegates to is not installed (yet)
            return CheckLine(label, kind, "not-recheckable", str(exc))
        return CheckLine(label, kind, "rejected", str(exc))
    except RecursionError:
        return CheckLine(label, kind, "rejected", "certificate nested too deeply")
    except Exception as exc:  # malformed certificate data: reject, never crash
        return CheckLine(label, kind, "rejected", f"{type(exc).__name__}: {exc}")
    return CheckLine(label, kind, "passed", str(summary))


def run(args) -> int:
    doc = load_document(args.cert)
    items = collect_results(doc)
    lines = [recheck_one(label, r) for label, r in items]
    counts = {s: sum(1 for x in lines if x.status == s) for s in ("passed", "rejected", "not-recheckable",
                                                                  "undecided")}
    tags = {"passed": "OK  ", "rejected": "FAIL", "not-recheckable": "SKIP", "undecided": "--  "}
    for x in lines:
        if args.quiet and x.status != "rejected":
            continue
        print(f"{tags[x.status]} {x.label:<40} {x.kind:<22} {' '.join(x.detail.split())[:300]}")
    print(f"{counts['passed']} certificate(s) re-checked, {counts['rejected']} rejected, "
          f"{counts['not-recheckable']} decided Result(s) without a re-checkable certificate, "
          f"{counts['undecided']} inconclusive")
    if counts["rejected"]:
        return 1
    if args.strict and counts["not-recheckable"]:
        print("strict: failing because some decided Results could not be re-checked", file=sys.stderr)
        return 1
    return 0
