"""High-precision floating point (mpmath): **evidence only**.

Numbers computed here are never used to decide PROVED or REFUTED.  They fill the
``evidence`` part of a Result, and :class:`Evidence` values carry that label with them.
gmpy2, when installed, is picked up by mpmath automatically as its integer backend.

Algorithm
---------
mpmath at a working precision of ``dps`` decimal digits (:func:`precision`); an exact rational enters
with one rounding (:func:`mpf_from_fraction`); :class:`Evidence` keeps the decimal text (30 digits by
default), the digits in use and a description.

Soundness
---------
None, by design: mpmath numbers carry no error bound, so they are evidence only.  A Result whose method
is ``evidence`` cannot be PROVED or REFUTED (``verify/results.py`` refuses it) and the kernel never reads
``evidence``; see docs/conventions.md section 7.

Limits
------
``dps`` must be an integer in [5, 100000] (``ValueError`` otherwise).  Agreement of many digits is not a
proof of anything.

>>> with precision(50):
...     e = Evidence.of(mpmath.sqrt(2), "sqrt(2)")
>>> e.label
'evidence'
>>> e.text[:12]
'1.4142135623'
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import mpmath

__all__ = ["precision", "mpf_from_fraction", "Evidence", "backend"]


def precision(dps: int):
    """Context manager: mpmath working precision in decimal digits."""
    if not isinstance(dps, int) or dps < 5 or dps > 100_000:
        raise ValueError(f"dps: must be an integer in [5, 100000] digits, got {dps!r}")
    return mpmath.workdps(dps)


def mpf_from_fraction(q) -> mpmath.mpf:
    """An exact rational converted to mpf at the current precision (one rounding)."""
    q = Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def backend() -> str:
    """mpmath's integer backend ('gmpy' when gmpy2 is available)."""
    return mpmath.libmp.BACKEND


@dataclasses.dataclass(frozen=True)
class Evidence:
    """A number labelled as evidence: its decimal text, the digits used, and what it is."""

    text: str
    dps: int
    what: str = ""
    label: str = "evidence"

    @classmethod
    def of(cls, value, what: str = "", digits: int = 30) -> "Evidence":
        return cls(mpmath.nstr(value, digits), int(mpmath.mp.dps), what)

    def to_dict(self) -> dict:
        return {"value": self.text, "dps": self.dps, "what": self.what, "label": self.label}
