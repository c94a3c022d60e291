"""Errors raised on bad input.

Every error a user can trigger with bad input is an :class:`InputError` (a
``ValueError``) or a ``TypeError`` whose message names the offending *field*
and the bound it broke.  The CLI prints such an error as one line on stderr
and exits with status 2.

>>> raise InputError("radius", "must be > 0, got -1")
Traceback (most recent call last):
...
verify.errors.InputError: radius: must be > 0, got -1
"""

from __future__ import annotations

__all__ = ["InputError", "InputTypeError", "DomainError", "SizeLimitError", "BudgetExhausted", "nearest",
           "reject_unknown_keys"]


class InputError(ValueError):
    """A value is out of range or malformed; the message starts with the field name."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class InputTypeError(TypeError):
    """A value has the wrong type; the message starts with the field name."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class DomainError(InputError):
    """A point lies outside the domain of a function (e.g. a CGF evaluated outside its domain)."""


class SizeLimitError(InputError):
    """A request exceeds a documented size limit; refused up front instead of hanging."""


class BudgetExhausted(SizeLimitError):
    """A time budget ran out (a compile or a decomposition checks the clock and stops); the callers that take a
    ``time_budget`` catch it and return INCONCLUSIVE with what was finished."""


def nearest(name: str, known, prefix: bool = False):
    """The known name closest to ``name`` (difflib, ignoring case), or None.  ``prefix``: failing that, a known
    name that starts ``name`` (``"bias"`` -> ``"b"``, ``"weights"`` -> ``"W"``).

    >>> nearest("maen", ["cov", "mean"]), nearest("bias", ["W", "b"], prefix=True), nearest("zz", ["a"])
    ('mean', 'b', None)
    """
    import difflib

    lower = {n.lower(): n for n in known}
    close = difflib.get_close_matches(name.lower(), list(lower), n=1)
    if not close and prefix:
        close = [n for n in lower if name.lower().startswith(n)][:1]
    return lower[close[0]] if close else None


def reject_unknown_keys(mapping, allowed, field: str) -> None:
    """Raise :class:`InputError` for the first key of ``mapping`` (in sorted order) not in ``allowed``, naming
    it as ``field.key`` and the nearest allowed key (difflib, ignoring case; else an allowed key the unknown one
    starts with: ``"bias"`` -> ``"b"``), so a typo is an error instead of a silently ignored key.

    >>> reject_unknown_keys({"layers": [], "read_out": {}}, ("layers", "readout", "box"), "SPEC")
    Traceback (most recent call last):
    ...
    verify.errors.InputError: SPEC.read_out: unknown key; did you mean 'readout'? (allowed: box, layers, readout)
    """
    unknown = sorted((k for k in mapping if k not in allowed), key=str)
    if not unknown:
        return
    key = unknown[0]
    names = sorted(allowed)
    near = nearest(key, names, prefix=True) if isinstance(key, str) else None
    hint = f"; did you mean {near!r}?" if near else ""
    shown = str(key) if len(str(key)) <= 60 else str(key)[:57] + "..."
    raise InputError(f"{field}.{shown}", f"unknown key{hint} (allowed: {', '.join(names)})")
