"""``verify audit``: run audits, print a table, write JSON; exit 0 iff every audit met its verdict.

Audit IDs are case-insensitive like claim IDs (``t6/o2-s40`` names ``T6/O2-S40``).  An empty selection
(e.g. ``--quick`` with only full audits named) exits 5, pytest's "no tests collected".  ``--json -`` writes
the JSON to stdout and the table to stderr.  The JSON and the report are written before the table is printed.
"""

from __future__ import annotations

import contextlib
import os
import sys

HELP = "run the audits (all, or the given claim / audit IDs) and compare with the expected verdicts"

EXIT_NOTES = ("exit status: 0 every selected audit met its expected verdict; 1 an audit missed it (or, with "
              "--strict, a selected claim has no audit); 5 the selection is empty. Audits: docs/claims.md "
              "lists the claims, 'verify claims --long' where each claim's audits are.")

MAX_WORKERS = 256


def add_arguments(p):
    p.add_argument("ids", nargs="*", metavar="IDS",
                   help="claim IDs (T6) or audit IDs (T6/O2-S40), any case; default all")
    p.add_argument("--json", metavar="FILE", help="write every Result to FILE (canonical JSON, atomic); '-' writes "
                   "the JSON to stdout and the table to stderr")
    p.add_argument("--quick", action="store_true",
                   help="only the quick audits: a smoke run of a few seconds with at least one audit per claim")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) if a selected claim has no audit")
    p.add_argument("--workers", default="1", metavar="N|auto",
                   help="run audits in N local processes; 'auto' = the number of CPUs")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the audits on an existing dask.distributed cluster: any address dask accepts "
                        "(tcp://HOST:PORT, HOST:PORT, tls://HOST:PORT, ...); optional extra [dask]")
    p.add_argument("--scheduler-timeout", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for the scheduler and for its first worker (default 10 s each)")
    p.add_argument("--report", metavar="FILE.html|FILE.md",
                   help="write a self-contained report: a summary, contents, and one section per claim run with "
                        "its figures, audits and certificates (docs/reports.md)")
    p.add_argument("--path", metavar="DIR|FILE.py|MODULE",
                   help="run a project's own audits instead of the toolkit's: a folder (every *.py below it that "
                        "defines AUDITS), one file or a dotted module name; runs in this process (no --workers)")
    p.add_argument("--list", action="store_true", help="list the selected audits without running them")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def parse_workers(text) -> int:
    """``N`` in [1, 256] or ``auto`` (``os.cpu_count()``, at most 256)."""
    from ..errors import InputError

    raw = str(text).strip().lower()
    if raw == "auto":
        return max(1, min(MAX_WORKERS, os.cpu_count() or 1))
    try:
        n = int(raw)
    except ValueError:
        raise InputError("--workers", f"must be an integer in [1, {MAX_WORKERS}] or 'auto', got {text!r}") from None
    if not 1 <= n <= MAX_WORKERS:
        raise InputError("--workers", f"must be in [1, {MAX_WORKERS}] or 'auto', got {n}")
    return n


def _empty_selection_message(args, audits_all) -> str:
    what = " ".join(args.ids) if args.ids else "all audits"
    if args.quick:
        return (f"no audit selected: {what} with --quick keeps none (every selected audit is a full one; "
                "drop --quick)")
    if not audits_all:
        return "no audit selected: no audit module was found"
    return f"no audit selected by {what}"


def _write_report_json(path, report, outcomes) -> None:
    """The report's canonical JSON (:func:`verify.audit.runner.report_json_text`) to ``path`` or stdout."""
    from ..audit.runner import report_json_text
    from ..canonical import atomic_write_text
    from ..errors import InputError
    from .conventions import json_to_stdout

    text = report_json_text(report, outcomes) + "\n"
    if json_to_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise InputError("--json", f"cannot write {path}: {exc.strerror or exc}") from None


def run(args) -> int:
    from ..audit.discovery import load_audits
    from ..errors import InputError
    from .conventions import check_json_path

    check_json_path(args.json)
    workers = parse_workers(args.workers)
    if args.scheduler_timeout is not None and not 0 < args.scheduler_timeout <= 3600:
        raise InputError("--scheduler-timeout", f"must be in (0, 3600] seconds, got {args.scheduler_timeout}")
    report_format = None
    if args.report:
        from ..audit.report import report_format_of

        report_format = report_format_of(args.report)
        check_json_path(args.report, "--report")
        if args.report == "-":
            raise InputError("--report", "needs a file name (the report is a file with figures)")
    if args.scheduler is not None:
        from ..audit.parallel import parse_scheduler_address, require_distributed

        parse_scheduler_address(args.scheduler)
        if workers != 1:
            raise InputError("--workers", "cannot be combined with --scheduler (the cluster decides)")
        require_distributed()
    if args.path is not None:
        from ..audit.discovery import load_audits_from
        from ..audit.spec import AuditError

        if workers != 1 or args.scheduler is not None:
            raise InputError("--path", "runs in this process: cannot be combined with --workers or --scheduler "
                                       "(their workers load the toolkit's own audits)")
        try:
            all_audits = load_audits_from(args.path)
        except (AuditError, ImportError, SyntaxError) as exc:
            raise InputError("--path", f"{type(exc).__name__}: {exc}") from None
    else:
        all_audits = None
    with contextlib.ExitStack() as stack:
        pool = None
        if workers > 1 and args.scheduler is None and args.path is None and not args.list:
            # started before this process loads its audits: the workers' start-up overlaps ours
            from ..audit.runner import LocalWorkers

            pool = stack.enter_context(LocalWorkers(workers - 1))
        if all_audits is None:
            all_audits = load_audits()
        return _select_and_run(args, all_audits, workers, pool, report_format)


def _select_and_run(args, all_audits, workers, pool, report_format) -> int:
    from ..audit.discovery import select_audits
    from ..audit.runner import audit_report_dict, run_audits
    from ..errors import InputError
    from .conventions import EXIT_EMPTY, EXIT_MISMATCH, EXIT_OK, Progress, human_stream, plural

    try:
        audits = select_audits(all_audits, args.ids, quick=args.quick)
    except ValueError as exc:
        raise InputError("IDS", str(exc).split(": ", 1)[-1]) from None
    selected_claims = None
    if args.path is not None and not args.ids:   # a project's audits: its own claims, not the whole catalogue
        selected_claims = list(dict.fromkeys(a.claim for a in audits))
    if args.ids:
        selected_claims = []
        for raw in args.ids:
            c = raw.strip().split("/", 1)[0].upper()
            if c not in selected_claims:
                selected_claims.append(c)
    if not audits:
        print(_empty_selection_message(args, all_audits), file=sys.stderr)
        return EXIT_EMPTY
    if args.list:
        for a in audits:
            print(f"{a.id:<44} expected {a.expected.value:<12} {'quick' if a.quick else 'full'}")
        return EXIT_OK
    progress = Progress(sys.stderr, quiet=args.quiet)
    progress.start(len(audits))
    outcomes = run_audits(audits, workers=workers, progress=progress, scheduler=args.scheduler,
                          started=progress.started, scheduler_timeout=args.scheduler_timeout,
                          notice=lambda text: print(text, file=sys.stderr),
                          pool=pool)
    report = audit_report_dict(outcomes, selected_claims)
    # files first (the report before a JSON on stdout): a reader that closes stdout early never costs them
    if args.report:
        from ..audit.report import write_report

        write_report(args.report, report, fmt=report_format)
    if args.json:
        _write_report_json(args.json, report, outcomes)
    out = human_stream(args.json)
    print(f"{'audit':<44} {'expected':<12} {'actual':<12} {'method':<10} {'time':>8}", file=out)
    for o in outcomes:
        method = o.result.method.value if o.result is not None else "-"
        mark = "" if o.met else "   <-- MISS"
        print(f"{o.audit_id:<44} {o.expected.value:<12} {o.actual:<12} {method:<10} {o.elapsed:>7.2f}s{mark}",
              file=out)
    summary = report["summary"]
    missed = [o for o in outcomes if not o.met]
    for o in missed:
        print("MISS " + o.message(), file=out)
    without = summary["claims_without_audits"]
    print(f"{summary['met']}/{summary['audits']} audits met their expected verdict; "
          f"{plural(len(summary['claims_with_audits']), 'claim')} audited"
          + (f"; claims without audits: {', '.join(without)}" if without else ""), file=out)
    if missed:
        return EXIT_MISMATCH
    if args.strict and without:
        print("strict: failing because some claims have no audit", file=sys.stderr)
        return EXIT_MISMATCH
    return EXIT_OK
