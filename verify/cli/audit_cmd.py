"""``verify audit``: run audits, print a table, write JSON; exit 0 iff every audit met its verdict."""

from __future__ import annotations

import sys

HELP = "run the audits (all, or the given claim / audit IDs) and compare with the expected verdicts"


def add_arguments(p):
    p.add_argument("ids", nargs="*", metavar="IDS", help="claim IDs (T6) or audit IDs (T6/o2-s40); default all")
    p.add_argument("--json", metavar="FILE", help="write every Result to FILE (canonical JSON, atomic)")
    p.add_argument("--quick", action="store_true", help="only the quick audits")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) if a selected claim has no audit")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="run audits in N local processes")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run the audits on an existing dask.distributed cluster (optional extra [dask])")
    p.add_argument("--report", metavar="FILE.html|FILE.md",
                   help="write a self-contained report (claim table, certificate summaries, figures)")
    p.add_argument("--list", action="store_true", help="list the selected audits without running them")


def _progress_printer(stream):
    tty = stream.isatty()

    def show(done, total, outcome):
        status = "ok" if outcome.met else "MISS"
        text = f"[{done:>{len(str(total))}}/{total}] {outcome.audit_id:<40} {outcome.actual:<12} {status}"
        if tty:
            stream.write("\r\x1b[K" + text[:150])
            if done == total:
                stream.write("\n")
        else:
            stream.write(text + "\n")
        stream.flush()

    return show


def run(args) -> int:
    from ..audit.discovery import load_audits, select_audits
    from ..audit.runner import audit_report_dict, run_audits
    from ..claims import claim_ids
    from ..errors import InputError
    from .common import check_output_path, write_json_output

    if args.json:
        check_output_path(args.json)
    if args.workers < 1 or args.workers > 256:
        raise InputError("--workers", f"must be in [1, 256], got {args.workers}")
    report_format = None
    if args.report:
        from ..audit.report import report_format_of

        report_format = report_format_of(args.report)
        check_output_path(args.report, "--report")
    if args.scheduler is not None:
        from ..audit.parallel import parse_scheduler_address, require_distributed

        parse_scheduler_address(args.scheduler)
        if args.workers != 1:
            raise InputError("--workers", "cannot be combined with --scheduler (the cluster decides)")
        require_distributed()
    try:
        audits = select_audits(load_audits(), args.ids, quick=args.quick)
    except ValueError as exc:
        raise InputError("IDS", str(exc).split(": ", 1)[-1]) from None
    selected_claims = None
    if args.ids:
        selected_claims = []
        for raw in args.ids:
            c = raw.split("/", 1)[0].upper()
            if c not in selected_claims:
                selected_claims.append(c)
    if args.list:
        for a in audits:
            print(f"{a.id:<44} expected {a.expected.value:<12} {'quick' if a.quick else 'full'}")
        return 0
    outcomes = run_audits(audits, workers=args.workers, progress=_progress_printer(sys.stderr),
                          scheduler=args.scheduler)
    report = audit_report_dict(outcomes, selected_claims)
    if args.json:
        write_json_output(args.json, report)
    if args.report:
        from ..audit.report import write_report

        write_report(args.report, report, fmt=report_format)
    print(f"{'audit':<44} {'expected':<12} {'actual':<12} {'method':<10} {'time':>8}")
    for o in outcomes:
        method = o.result.method.value if o.result is not None else "-"
        mark = "" if o.met else "   <-- MISS"
        print(f"{o.audit_id:<44} {o.expected.value:<12} {o.actual:<12} {method:<10} {o.elapsed:>7.2f}s{mark}")
    summary = report["summary"]
    missed = [o for o in outcomes if not o.met]
    for o in missed:
        print("MISS " + o.message())
    without = summary["claims_without_audits"]
    print(f"{summary['met']}/{summary['audits']} audits met their expected verdict; "
          f"{len(summary['claims_with_audits'])} claims audited"
          + (f"; claims without audits: {', '.join(without)}" if without else ""))
    if missed:
        return 1
    if args.strict and without:
        print("strict: failing because some claims have no audit", file=sys.stderr)
        return 1
    return 0
