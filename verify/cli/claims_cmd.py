"""``verify claims``: the catalogue with audit counts (docs/claims.md describes every claim)."""

from __future__ import annotations

HELP = "list the claim catalogue (ID, statement, rigour, number of audits, code location)"

EXIT_NOTES = "exit status: 0 (the catalogue is printed). The claims in words: docs/claims.md."


def add_arguments(p):
    p.add_argument("--long", action="store_true", help="print full statements and module paths")


def run(args) -> int:
    from ..audit.discovery import load_audits
    from ..claims import CLAIMS, claim_ids

    counts = {}
    for a in load_audits():
        counts[a.claim] = counts.get(a.claim, 0) + 1
    print(f"{'ID':<4} {'audits':>6}  {'rigour':<28} title")
    for cid in claim_ids():
        c = CLAIMS[cid]
        print(f"{cid:<4} {counts.get(cid, 0):>6}  {c.rigor:<28} {c.title}")
        if args.long:
            print(f"       {c.statement}")
            print(f"       check: {c.check_module}   audits: {c.audit_module}   source: {c.source}")
    return 0
