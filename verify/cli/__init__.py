"""The ``verify`` command line.

Sub-commands live one per module (``verify/cli/<name>_cmd.py``) and each defines ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``.  Heavy imports happen inside ``run``.

Exit status: 0 success, 1 an audit missed its expected verdict (or a check failed where that is
the point of the command), 2 usage or input error (one line on stderr, no traceback),
3 internal error (one line; set VERIFY_DEBUG=1 for the traceback).
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
    parser = _Parser(prog="verify", description="Machine-check the claims of the maxout/CPWL and "
                     "mean-field Transformer papers (claim IDs T1..T11, N1..N10).")
    parser.add_argument("--version", action="version", version=f"verify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, modname in COMMANDS.items():
        module = importlib.import_module(modname)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv=None) -> int:
    from ..errors import InputError, InputTypeError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            raise UsageError("verify: missing COMMAND (try 'verify --help')")
        code = args._run(args)
    except SystemExit as exc:  # --help / --version
        code = exc.code if isinstance(exc.code, int) else 0
    except (UsageError, InputError, InputTypeError) as exc:
        _one_line(f"error: {exc}")
        code = 2
    except KeyboardInterrupt:
        _one_line("interrupted")
        code = 130
    except Exception as exc:  # never a deep traceback for a user
        if os.environ.get("VERIFY_DEBUG"):
            raise
        _one_line(f"internal error: {type(exc).__name__}: {exc} (set VERIFY_DEBUG=1 for a traceback)")
        code = 3
    return int(code or 0)


def _one_line(text: str) -> None:
    line = " ".join(str(text).split())
    sys.stderr.write(line[:2000] + "\n")
    sys.stderr.flush()


def _entry():  # pragma: no cover
    sys.exit(main())
