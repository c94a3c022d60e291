"""The ``verify`` command line.

Sub-commands live one per module (``verify/cli/<name>_cmd.py``) and each defines ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` (and may define ``EXIT_NOTES``, its line of the exit
table).  Heavy imports happen inside ``run``.

Exit status, the same for every subcommand (:mod:`verify.cli.conventions`, README "Exit status"): 0 ran and
every result met what was asked, 1 a result differs from what was asked (an audit missed, ``--expect`` not met,
a re-check rejected), 2 bad input (one line on stderr, no traceback), 3 internal error (one line; set
VERIFY_DEBUG=1 for the traceback), 5 nothing selected; 141 (quietly) when stdout is closed early.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from .._version import __version__

__all__ = ["main", "COMMANDS", "UsageError"]

# command name -> the module that implements it (HELP, add_arguments, run); every one must import
COMMANDS = {
    "claims": "verify.cli.claims_cmd",
    "audit": "verify.cli.audit_cmd",
    "maxout": "verify.cli.maxout_cmd",
    "regions": "verify.cli.regions_cmd",
    "independence": "verify.cli.independence_cmd",
    "ntk": "verify.cli.ntk_cmd",
    "check": "verify.cli.check_cmd",
    "schema": "verify.cli.schema_cmd",
}


class UsageError(Exception):
    """Bad command-line usage; printed as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    from .conventions import exit_epilog

    parser = _Parser(prog="verify", description="Machine-check the claims of the maxout/CPWL and "
                     "mean-field Transformer papers (claim IDs T1..T11, N1..N10; catalogue: docs/claims.md).",
                     epilog=exit_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"verify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, modname in COMMANDS.items():
        module = importlib.import_module(modname)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP,
                           epilog=exit_epilog(getattr(module, "EXIT_NOTES", "")),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv=None) -> int:
    from ..errors import InputError, InputTypeError
    from .conventions import EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, quiet_broken_pipe

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
            if not getattr(args, "_run", None):
                raise UsageError("verify: missing COMMAND (try 'verify --help')")
            code = args._run(args)
        except SystemExit as exc:  # --help / --version
            code = exc.code if isinstance(exc.code, int) else 0
        sys.stdout.flush()   # inside the try: a reader that went away is seen here, not at interpreter exit
    except BrokenPipeError:  # '| head': quiet, like other Unix tools
        return quiet_broken_pipe()
    except (UsageError, InputError, InputTypeError) as exc:
        # library messages name the Python keyword; on the command line the switch is --allow-float
        _one_line("error: " + str(exc).replace("allow_float=True", "--allow-float"))
        code = EXIT_INPUT
    except KeyboardInterrupt:
        _one_line("interrupted")
        code = EXIT_INTERRUPTED
    except Exception as exc:  # never a deep traceback for a user
        if os.environ.get("VERIFY_DEBUG"):
            raise
        _one_line(f"internal error: {type(exc).__name__}: {exc} (set VERIFY_DEBUG=1 for a traceback)")
        code = EXIT_INTERNAL
    return int(code or 0)


def _one_line(text: str) -> None:
    line = " ".join(str(text).split())
    try:
        sys.stderr.write(line[:2000] + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError, ValueError):  # stderr gone too: the exit status still tells
        pass


def _entry():  # pragma: no cover
    sys.exit(main())
