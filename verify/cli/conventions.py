"""What every ``verify`` subcommand shares: the exit-code table, ``--expect``, ``--json -``, plurals, progress.

The exit status is the same for every subcommand (README, Command line; every ``--help`` ends with it):

>>> [code for code, meaning in EXIT_TABLE]
[0, 1, 2, 3, 5, 130, 141]

Decision subcommands (``maxout``, ``independence``, ``ntk``) exit 0 whenever they ran and reported a verdict;
PROVED, REFUTED and INCONCLUSIVE are all answers.  With ``--expect VERDICT`` they exit 1 when the verdict
differs (what ``maxout`` did unconditionally before):

>>> expect_code("proved", None), expect_code("refuted", None), expect_code("refuted", "proved")
(0, 0, 1)
>>> plural(1, "law"), plural(4, "law"), plural(2, "audit", "audits met")
('1 law', '4 laws', '2 audits met')
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["EXIT_OK", "EXIT_MISMATCH", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_EMPTY", "EXIT_INTERRUPTED",
           "EXIT_BROKEN_PIPE", "EXIT_TABLE", "exit_epilog", "add_expect_argument", "expect_code", "plural",
           "JSON_STDOUT", "json_to_stdout", "human_stream", "write_json", "check_json_path", "Progress",
           "CellProgress",
           "quiet_broken_pipe"]

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_EMPTY = 5
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141   # 128 + SIGPIPE, what a shell reports for a Unix tool whose reader went away

EXIT_TABLE = (
    (EXIT_OK, "ran, and every result met what was asked; a decision command (maxout, independence, ntk) "
              "reported its verdict, whichever it is, unless --expect asked for another"),
    (EXIT_MISMATCH, "a result differs from what was asked; an audit missed its expected verdict, a verdict "
                    "differs from --expect, or the kernel rejected a Result (verify check)"),
    (EXIT_INPUT, "bad input or usage (one line on stderr, naming the field)"),
    (EXIT_INTERNAL, "internal error (one line on stderr; VERIFY_DEBUG=1 shows the traceback)"),
    (EXIT_EMPTY, "nothing selected (pytest's \"no tests collected\"); an audit selection with no audit, "
                 "a file with no Result"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
    (EXIT_BROKEN_PIPE, "stdout was closed early (e.g. '| head'); nothing is printed, files given with --json "
                       "are written"),
)

VERDICTS = ("proved", "refuted", "inconclusive")


def exit_epilog(notes: str = "") -> str:
    """The ``--help`` epilog of a subcommand: its own notes, then the common exit-code table."""
    import textwrap

    lines = []
    if notes:
        lines += textwrap.wrap(" ".join(notes.split()), 100) + [""]
    lines.append("exit codes of every verify command (README, Exit status):")
    for code, meaning in EXIT_TABLE:
        wrapped = textwrap.wrap(meaning, 92)
        lines.append(f"  {code:<4} {wrapped[0]}")
        lines += [f"       {w}" for w in wrapped[1:]]
    return "\n".join(lines)


def add_expect_argument(p) -> None:
    """``--expect proved|refuted|inconclusive`` (any case) for the decision subcommands."""
    p.add_argument("--expect", metavar="VERDICT", type=str.lower, choices=VERDICTS, default=None,
                   help="exit 1 unless the verdict is this one (proved, refuted or inconclusive); without it "
                        "the command exits 0 whatever the verdict")


def expect_code(verdict, expect) -> int:
    """0 if no verdict was asked for or ``verdict`` (a Verdict or its value) is the one asked for, else 1."""
    value = getattr(verdict, "value", verdict)
    if expect is None or str(value).lower() == str(expect).lower():
        return EXIT_OK
    return EXIT_MISMATCH


def plural(n: int, word: str, plural_word: str | None = None) -> str:
    """``"1 law"``, ``"2 laws"``: the count and the word in the right number."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {plural_word if plural_word is not None else word + 's'}"


JSON_STDOUT = "-"


def json_to_stdout(path) -> bool:
    """True for ``--json -``: the JSON goes to stdout, and the human-readable lines to stderr."""
    return path == JSON_STDOUT


def human_stream(json_path=None):
    """Where the human-readable lines go: stdout, or stderr when stdout carries the JSON (``--json -``)."""
    return sys.stderr if json_to_stdout(json_path) else sys.stdout


def check_json_path(path, field: str = "--json") -> None:
    """Refuse an unwritable ``--json`` path before any work (``-`` is stdout and always fine)."""
    if path is None or json_to_stdout(path):
        return
    from .common import check_output_path

    check_output_path(path, field)


def write_json(path, obj) -> None:
    """Canonical JSON to ``path`` atomically, or to stdout for ``-`` (flushed, so it precedes the summary)."""
    if json_to_stdout(path):
        from ..canonical import canonical_dumps

        sys.stdout.write(canonical_dumps(obj, indent=1) + "\n")
        sys.stdout.flush()
        return
    from .common import write_json_output

    write_json_output(path, obj)


def quiet_broken_pipe() -> int:
    """After a BrokenPipeError on stdout: point stdout at /dev/null so the interpreter's final flush is
    silent (Python's documented recipe for SIGPIPE), and return the Unix exit status 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (captured in tests)
        pass
    return EXIT_BROKEN_PIPE


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Progress of an audit run on ``stream`` (stderr).  On a terminal: one line, rewritten in place, with the
    count, the current audit, the elapsed time and an ETA (mean time per finished audit times the number
    left).  Elsewhere: one line per finished audit.  ``quiet`` prints nothing.  A progress stream that goes
    away (closed pipe) silences the progress, never the run.

    >>> import io
    >>> s = io.StringIO()
    >>> p = Progress(s, tty=False, clock=iter([0.0, 2.0, 4.0]).__next__)
    >>> p.start(2)
    >>> class O: audit_id, actual, met = "T3/x", "proved", True
    >>> p(1, 2, O()); p(2, 2, O())
    >>> print(s.getvalue(), end="")
    [1/2] T3/x                                     proved       ok   elapsed 00:02 eta 00:02
    [2/2] T3/x                                     proved       ok   elapsed 00:04
    """

    def __init__(self, stream=None, quiet: bool = False, tty=None, clock=time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        self.quiet = quiet
        if tty is None:
            try:
                tty = self.stream.isatty()
            except (AttributeError, ValueError):
                tty = False
        self.tty = bool(tty)
        self.clock = clock
        self.t0 = None
        self.total = 0
        self.done = 0

    def start(self, total: int) -> None:
        self.total = total
        self.t0 = self.clock()

    def _times(self, done: int, total: int) -> str:
        elapsed = self.clock() - self.t0
        text = f"elapsed {_clock(elapsed)}"
        if 0 < done < total:
            text += f" eta {_clock(elapsed / done * (total - done))}"
        return text

    def started(self, index, total, audit) -> None:
        """Shown on a terminal only: the audit now running."""
        if self.quiet or not self.tty:
            return
        if self.t0 is None:
            self.start(total)
        width = len(str(total))
        self._line(f"[{self.done:>{width}}/{total}] {self._times(self.done, total)}  running {audit.id}")

    def __call__(self, done, total, outcome) -> None:
        if self.quiet:
            return
        if self.t0 is None:
            self.start(total)
        self.done = done
        status = "ok" if outcome.met else "MISS"
        width = len(str(total))
        times = self._times(done, total)
        if self.tty:   # the times first: a narrow terminal cuts the audit name, not the ETA
            self._line(f"[{done:>{width}}/{total}] {times}  {outcome.audit_id} {outcome.actual}"
                       f"{'' if outcome.met else ' MISS'}", final=done == total)
        else:
            self._write(f"[{done:>{width}}/{total}] {outcome.audit_id:<40} {outcome.actual:<12} {status:<4} {times}\n")

    def _line(self, text: str, final: bool = False) -> None:
        cols = 150
        try:
            reported = os.get_terminal_size(self.stream.fileno()).columns
            if reported > 0:   # a pseudo-terminal may report 0
                cols = max(40, reported - 1)
        except (OSError, ValueError, AttributeError):
            pass
        self._write("\r\x1b[K" + text[:cols] + ("\n" if final else ""))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):   # BrokenPipeError included: the reader went away
            self.quiet = True           # keep running, stop reporting


class CellProgress:
    """The progress line of a long decomposition on stderr (the convention of :class:`Progress`:
    on a terminal one line rewritten in place, elsewhere one line every 10 s); silent for the first 2 s."""

    def __init__(self, what: str, quiet: bool = False, stream=None):
        self.p = Progress(stream, quiet=quiet)
        self.what = what
        self.next_plain = 10.0
        self.shown = False

    def __call__(self, done, seconds) -> None:
        if self.p.quiet or seconds < 2:
            return
        text = f"{self.what}: " + ("" if done is None else f"{done} cells done, ") + f"elapsed {_clock(seconds)}"
        if self.p.tty:
            self.p._line(text)
            self.shown = True
        elif seconds >= self.next_plain:
            self.next_plain = seconds + 10
            self.p._write(text + "\n")

    def close(self) -> None:
        if self.shown and not self.p.quiet:
            self.p._write("\r\x1b[K")
