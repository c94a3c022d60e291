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

__all__ = ["InputError", "InputTypeError", "DomainError", "SizeLimitError"]


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
