"""``verify check CERT.json``: re-check every decided Result with the kernel (:mod:`verify.kernel`).

Accepts a single Result (``Result.to_json``) or an audit document (``verify audit --json``).  Every
PROVED/REFUTED Result is handed to :func:`verify.kernel.check`, which re-derives what is claimed from the
Result's own claim, statement, parameters, conventions and verdict and verifies the certificate against
it; no search is re-run.  There is no skip path: a decided Result whose certificate is missing, has no
``kind``, an unknown kind, or does not verify is **rejected**.

Exit status (the table of :mod:`verify.cli.conventions`): 0 iff every decided Result is accepted; 1 if any is
rejected; 2 on bad input (unreadable file, not JSON, not a Result or audit document); 5 if the document holds no
Result at all.  ``--allow-unchecked`` is for files written before the
kernel existed: decided Results with no certificate kind are listed as UNCHECKED and do not fail the
run (a certificate that has a kind and fails is still a rejection).

>>> items = collect_results({"claim": "T3", "statement": "s", "verdict": "inconclusive", "method": "exact"})
>>> [(label, r["verdict"]) for label, r in items]
[('T3', 'inconclusive')]
>>> recheck_one("T3", {"claim": "T3", "statement": "s", "verdict": "proved", "method": "exact",
...                    "certificate": {"summary": "trust me"}}).status
'rejected'
"""

from __future__ import annotations

import dataclasses
import os
import sys

from ..errors import InputError

__all__ = ["HELP", "add_arguments", "run", "collect_results", "recheck_one", "CheckLine", "load_document",
           "MAX_CERT_BYTES"]

HELP = "re-check every decided Result in a saved Result or audit JSON with the kernel (exit 0 iff all accepted)"

MAX_CERT_BYTES = 256 * 1024 * 1024

EXIT_NOTES = ("exit status: 0 iff every decided (PROVED/REFUTED) Result is accepted by the kernel; 1 if any is "
              "rejected; 5 if the file holds no Result. The kernel and its kinds: docs/soundness.md.")


def add_arguments(p):
    p.add_argument("cert", metavar="CERT.json", help="a Result JSON or an audit JSON (verify audit --json)")
    p.add_argument("--allow-unchecked", action="store_true",
                   help="legacy files: list decided Results without a certificate kind as UNCHECKED instead of "
                        "failing (a certificate with a kind that does not verify still fails)")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="wall-clock budget per Result (default 600); a Result whose re-check runs out is rejected")
    p.add_argument("--quiet", action="store_true", help="print only rejections and the summary line")


@dataclasses.dataclass(frozen=True)
class CheckLine:
    """Outcome for one Result: status ``accepted``, ``rejected``, ``unchecked`` (legacy: decided, no
    certificate kind, only with ``--allow-unchecked``) or ``undecided`` (INCONCLUSIVE: nothing to check)."""

    label: str
    kind: str
    status: str
    detail: str


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
    from .common import parse_json_document

    # floats stay floats for the kernel; an integer literal over 4300 digits is bad input naming its place
    # (Results write longer integers as strings, verify/canonical.py), NaN / Infinity are refused
    return parse_json_document(text, "CERT", path, exact_floats=False, unique_keys=False)


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


def recheck_one(label: str, result, allow_unchecked: bool = False, seconds=None) -> CheckLine:
    """Re-check one Result dict with the kernel; never raises."""
    from .. import kernel

    cert = result.get("certificate") if isinstance(result, dict) else None
    kind = cert.get("kind") if isinstance(cert, dict) else None
    kind_text = kind if isinstance(kind, str) else "-"
    verdict = result.get("verdict") if isinstance(result, dict) else None
    if verdict == "inconclusive":
        return CheckLine(label, kind_text, "undecided", "inconclusive: nothing to re-check")
    if allow_unchecked and verdict in ("proved", "refuted") and kind is None:
        return CheckLine(label, "-", "unchecked", "decided, but the certificate has no kind (legacy file)")
    try:
        summary = kernel.check(result, kernel.DEFAULT_BUDGET if seconds is None else seconds)
    except kernel.Rejected as exc:
        return CheckLine(label, kind_text[:40], "rejected", str(exc))
    return CheckLine(label, kind_text[:40], "accepted", summary)


def run(args) -> int:
    from .conventions import EXIT_EMPTY, EXIT_MISMATCH, EXIT_OK, plural

    if args.budget is not None and not 0 < args.budget <= 86400:
        raise InputError("--budget", f"must be in (0, 86400] seconds, got {args.budget}")
    doc = load_document(args.cert)
    items = collect_results(doc)
    if not items:
        print(f"check: {args.cert} holds no Result (nothing to re-check)", file=sys.stderr)
        return EXIT_EMPTY
    lines = []
    tags = {"accepted": "OK  ", "rejected": "FAIL", "unchecked": "SKIP", "undecided": "--  "}
    for label, r in items:
        x = recheck_one(label, r, args.allow_unchecked, args.budget)
        lines.append(x)
        if args.quiet and x.status != "rejected":
            continue
        print(f"{tags[x.status]} {x.label:<40} {x.kind:<22} {' '.join(x.detail.split())[:300]}")
    counts = {s: sum(1 for x in lines if x.status == s) for s in tags}
    decided = counts["accepted"] + counts["rejected"] + counts["unchecked"]
    text = (f"{counts['accepted']} of {plural(decided, 'decided Result')} re-checked and accepted by the kernel, "
            f"{counts['rejected']} rejected")
    if args.allow_unchecked:
        text += f", {counts['unchecked']} unchecked (no certificate kind)"
    print(text + f"; {counts['undecided']} inconclusive (nothing to check)")
    if counts["rejected"]:
        print(f"check: {plural(counts['rejected'], 'decided Result')} rejected", file=sys.stderr)
        return EXIT_MISMATCH
    return EXIT_OK
