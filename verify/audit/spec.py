"""One audit: run a check with fixed parameters and compare its verdict with the expected one.

Audits are declared in ``proofs/<paper>/<id>_<slug>.py`` as a module-level list ``AUDITS``.

>>> from verify.results import Result, Verdict, Method
>>> def check_gate(u, S):
...     ok = abs(u) <= S
...     return Result("T3", f"gate at u={u}", Verdict.INCONCLUSIVE if ok else Verdict.REFUTED, Method.EXACT,
...                   {"kind": "gate-witness"})
>>> a = Audit("T3", "u-too-big", Verdict.REFUTED, check_gate, {"u": 11, "S": 10})
>>> a.id, a.run().verdict.value
('T3/u-too-big', 'refuted')
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Mapping

from ..results import CLAIM_ID_PATTERN, Result, Verdict

__all__ = ["Audit", "AuditError", "seeded_instances"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-=+]*$")


class AuditError(RuntimeError):
    """An audit is malformed or its check returned something that is not a Result for its claim."""


@dataclasses.dataclass(frozen=True)
class Audit:
    """``claim`` (catalogue ID), ``name`` (unique within the claim), ``expected`` verdict, the
    ``check`` to call with ``params``; ``quick=True`` marks the audit for the ``--quick`` smoke run (opt-in:
    the cheapest audits, at least one per claim, the whole subset in seconds)."""

    claim: str
    name: str
    expected: Verdict
    check: Callable[..., Result]
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    quick: bool = False
    description: str = ""

    def __post_init__(self):
        if not CLAIM_ID_PATTERN.match(self.claim) or "." in self.claim:
            raise AuditError(f"claim: {self.claim!r} is not a catalogue ID (T1..T11, N1..N10)")
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise AuditError(f"name: {self.name!r} must be a non-empty slug (letters, digits, _ . - = +)")
        try:
            object.__setattr__(self, "expected", Verdict(self.expected))
        except ValueError:
            raise AuditError(f"expected: {self.expected!r} is not a verdict") from None
        if not callable(self.check):
            raise AuditError(f"check: {self.check!r} is not callable")

    @property
    def id(self) -> str:
        return f"{self.claim}/{self.name}"

    def run(self) -> Result:
        result = self.check(**dict(self.params))
        if not isinstance(result, Result):
            raise AuditError(f"{self.id}: check returned {type(result).__name__}, not a Result")
        if result.claim.split(".", 1)[0] != self.claim:
            raise AuditError(f"{self.id}: check returned a Result for claim {result.claim}")
        return result


def seeded_instances(claim: str, name: str, expected, check: Callable[..., Result], count: int, seed: int,
                     description: str = "") -> list:
    """One audit per instance i = 0..count-1 of a seeded family, ``check(index=i, seed=seed)``: each instance
    is its own Result (its statement names that instance), none claims the family.  ``name`` and
    ``description`` are format strings in ``i``.

    >>> [a.id for a in seeded_instances("T6", "random-{i}", Verdict.PROVED, lambda index, seed: None, 2, 7)]
    ['T6/random-0', 'T6/random-1']
    """
    return [Audit(claim, name.format(i=i), expected, check, {"index": i, "seed": seed},
                  description=description.format(i=i)) for i in range(count)]

