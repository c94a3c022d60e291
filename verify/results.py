"""Three-valued verdicts and the :class:`Result` every check returns.

A check answers **PROVED**, **REFUTED** or **INCONCLUSIVE**, and says *how* it
knows (its method):

* ``exact``     -- exact rational / symbolic arithmetic; a verdict is a proof for the instance;
* ``certified`` -- rigorous ball (interval) arithmetic; every reported number is an enclosure;
* ``evidence``  -- floating point (mpmath, numpy) only; never a proof.

An ``evidence`` Result cannot carry PROVED or REFUTED, and a PROVED/REFUTED Result must carry a
certificate of a kind the kernel re-checks (:func:`verify.kernel.kinds`; ``verify check`` then re-checks
it, docs/soundness.md): constructing either raises.

>>> r = Result("T3", "gate identity", Verdict.PROVED, Method.EXACT, {"kind": "gate-case-split"})
>>> r.verdict.value, r.method.value
('proved', 'exact')
>>> Result("T3", "gate identity", Verdict.PROVED, Method.EXACT, {"summary": "trust me"})
Traceback (most recent call last):
...
ValueError: certificate: a proved Result needs a certificate of a kind the kernel re-checks (verify.kernel.kinds()), got kind None; undecided checks return INCONCLUSIVE
>>> Result("T2", "search", Verdict.PROVED, Method.EVIDENCE)
Traceback (most recent call last):
...
ValueError: verdict: an 'evidence' Result cannot be 'proved'; only exact or certified methods decide
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any, Mapping
from fractions import Fraction

__all__ = ["Verdict", "Method", "Result", "CLAIM_ID_PATTERN", "MAX_LABEL_LENGTH", "kernel_checked", "readable"]

CLAIM_ID_PATTERN = re.compile(r"^(T(1[01]|[1-9])|N(10|[1-9]))(\.[A-Za-z0-9_]+)?$")
MAX_LABEL_LENGTH = 80


def check_label(label):
    """``label`` (None or a user's name for a Result) checked: a printable string of 1..80 characters without
    surrounding spaces that does not look like a catalogue ID (those are reserved for ``claim``)."""
    from .errors import InputError, InputTypeError

    if label is None:
        return None
    if not isinstance(label, str):
        raise InputTypeError("label", f"must be a string, got {type(label).__name__}")
    if not 1 <= len(label) <= MAX_LABEL_LENGTH:
        raise InputError("label", f"must have 1 to {MAX_LABEL_LENGTH} characters, got {len(label)}")
    if not label.isprintable() or label != label.strip():
        raise InputError("label", f"must be printable text without surrounding spaces, got {label!r}")
    if CLAIM_ID_PATTERN.match(label.upper()):
        raise InputError("label", f"{label!r} looks like a catalogue ID; catalogue IDs are reserved for the "
                                  "claim field (choose a name of your own, e.g. 'Lemma-4.2')")
    return label


class _TextEnum(str, enum.Enum):
    """A string-valued enum that prints as its value."""

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


class Verdict(_TextEnum):
    """Outcome of a check. ``INCONCLUSIVE`` is never to be read as False."""

    PROVED = "proved"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


class Method(_TextEnum):
    """Rigour level of a check (see module docstring)."""

    EXACT = "exact"
    CERTIFIED = "certified"
    EVIDENCE = "evidence"


def _coerce(enum_cls, value, field):
    if isinstance(value, enum_cls):
        return value
    try:
        return enum_cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in enum_cls)
        raise ValueError(f"{field}: must be one of {allowed}, got {value!r}") from None


@dataclasses.dataclass(frozen=True)
class Result:
    """What a check returns.

    Fields
    ------
    claim       catalogue ID (``T1``..``T11``, ``N1``..``N10``, optional suffix ``T6.n2``)
    statement   the precise statement that was checked (one sentence)
    verdict     :class:`Verdict`
    method      :class:`Method`
    certificate JSON-ready data from which the verdict can be re-checked
                (points, enclosures, exact relations, regions ...)
    parameters  the inputs of the check (exact numbers as strings where possible)
    conventions open conventions in force (tie rule, depth convention, reading ...)
    seeds       every random seed used
    evidence    numerical evidence (labelled as such); allowed with any verdict
    timing      wall-clock data; the only part of the JSON allowed to vary between runs
    label       optional user name for the Result (e.g. ``"Lemma-4.2"``): metadata only, it changes neither the
                statement, the parameters nor the certificate, so the kernel's re-check ignores it; it must not
                look like a catalogue ID (at most 80 printable characters)
    """

    claim: str
    statement: str
    verdict: Verdict
    method: Method
    certificate: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    conventions: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    seeds: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    evidence: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    timing: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    label: Any = None

    def __post_init__(self):
        check_label(self.label)
        if not isinstance(self.claim, str) or not CLAIM_ID_PATTERN.match(self.claim):
            raise ValueError(
                f"claim: must be a catalogue ID T1..T11 or N1..N10 (optional suffix), got {self.claim!r}"
            )
        if not isinstance(self.statement, str):
            raise TypeError(f"statement: must be a string, got {type(self.statement).__name__}")
        object.__setattr__(self, "verdict", _coerce(Verdict, self.verdict, "verdict"))
        object.__setattr__(self, "method", _coerce(Method, self.method, "method"))
        if self.method is Method.EVIDENCE and self.verdict is not Verdict.INCONCLUSIVE:
            raise ValueError(
                f"verdict: an 'evidence' Result cannot be '{self.verdict.value}'; "
                "only exact or certified methods decide"
            )
        for name in ("certificate", "parameters", "conventions", "seeds", "evidence", "timing"):
            value = getattr(self, name)
            if not isinstance(value, Mapping):
                raise TypeError(f"{name}: must be a mapping, got {type(value).__name__}")
        if self.verdict is not Verdict.INCONCLUSIVE:
            from .kernel import has_kind

            kind = self.certificate.get("kind")
            if not isinstance(kind, str) or not has_kind(kind):
                raise ValueError(
                    f"certificate: a {self.verdict.value} Result needs a certificate of a kind the kernel "
                    f"re-checks (verify.kernel.kinds()), got kind {kind!r}; undecided checks return INCONCLUSIVE"
                )

    # -- convenience -----------------------------------------------------------------
    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED

    @property
    def refuted(self) -> bool:
        return self.verdict is Verdict.REFUTED

    @property
    def inconclusive(self) -> bool:
        return self.verdict is Verdict.INCONCLUSIVE

    def with_timing(self, **timing) -> "Result":
        return dataclasses.replace(self, timing=dict(timing))

    def with_label(self, label) -> "Result":
        """The same Result with a user label (metadata only; ``None`` removes it)."""
        return dataclasses.replace(self, label=label)

    def _name(self) -> str:
        return f"{self.claim} [{self.label}]" if self.label else self.claim

    def _summary_text(self):
        """The certificate's ``summary`` entry, else the evidence's (strict kernel certificates carry none)."""
        for part in (self.certificate, self.evidence):
            text = part.get("summary") if isinstance(part, Mapping) else None
            if text:
                return text
        return None

    def summary(self, width: int = 160) -> str:
        """One line: claim, verdict, method and the certificate's (or evidence's) ``summary`` if present."""
        text = self._summary_text()
        line = f"{self._name()} {self.verdict.value.upper()} ({self.method.value})"
        if text:
            line += f": {text}"
        return line if len(line) <= width else line[: width - 3] + "..."

    # -- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready dict (exact numbers as strings, versions recorded; ``label`` only when set)."""
        from .canonical import jsonable, library_versions

        out = {
            "claim": self.claim,
            "statement": self.statement,
            "verdict": self.verdict.value,
            "method": self.method.value,
            "certificate": jsonable(self.certificate),
            "parameters": jsonable(self.parameters),
            "conventions": jsonable(self.conventions),
            "seeds": jsonable(self.seeds),
            "evidence": jsonable(self.evidence),
            "versions": library_versions(),
            "timing": jsonable(self.timing),
        }
        if self.label is not None:
            out["label"] = self.label
        return out

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, fixed separators; byte-identical for identical inputs
        except for the top-level ``"timing"`` object."""
        from .canonical import canonical_dumps

        return canonical_dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Result":
        if not isinstance(data, Mapping):
            raise TypeError(f"result: must be a JSON object, got {type(data).__name__}")
        missing = [k for k in ("claim", "statement", "verdict", "method") if k not in data]
        if missing:
            raise ValueError(f"result: missing field(s) {', '.join(missing)}")
        return cls(
            claim=data["claim"],
            statement=data["statement"],
            verdict=data["verdict"],
            method=data["method"],
            certificate=data.get("certificate", {}),
            parameters=data.get("parameters", {}),
            conventions=data.get("conventions", {}),
            seeds=data.get("seeds", {}),
            evidence=data.get("evidence", {}),
            timing=data.get("timing", {}),
            label=data.get("label"),
        )

    # -- display ---------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"<Result {self.summary(120)}>"

    def _display_parts(self):
        """(name, statement, certificate kind, summary, conventions) as short readable text."""
        kind = self.certificate.get("kind") if isinstance(self.certificate, Mapping) else None
        summary = self._summary_text()
        conventions = [(str(k), readable(v, 120)) for k, v in sorted(self.conventions.items(), key=lambda kv: str(kv[0]))]
        return (self._name(), _shorten(self.statement, DISPLAY_STATEMENT), readable(kind, 80) if kind else None,
                _shorten(str(summary), DISPLAY_SUMMARY) if summary else None, conventions[:DISPLAY_CONVENTIONS])

    def _repr_html_(self) -> str:
        from html import escape

        name, statement, kind, summary, conventions = self._display_parts()
        colour = {"proved": "#1a7f37", "refuted": "#cf222e", "inconclusive": "#9a6700"}[self.verdict.value]
        rows = [f"<p><b>{escape(name)}</b> &mdash; {escape(statement)}</p>",
                f"<p><b style='color:{colour}'>{self.verdict.value.upper()}</b> ({escape(self.method.value)})"
                + (f", certificate <code>{escape(kind)}</code>" if kind else "") + "</p>"]
        if summary:
            rows.append(f"<p>Certificate: {escape(summary)}</p>")
        if conventions:
            items = ", ".join(f"<code>{escape(k)}={escape(v)}</code>" for k, v in conventions)
            rows.append(f"<p>Conventions: {items}</p>")
        return "\n".join(rows)

    def _repr_markdown_(self) -> str:
        name, statement, kind, summary, conventions = self._display_parts()
        rows = [
            f"**{name}** — {statement}",
            "",
            "| verdict | method | certificate |",
            "|---|---|---|",
            f"| **{self.verdict.value.upper()}** | {self.method.value} | {f'`{kind}`' if kind else '—'} |",
        ]
        if conventions:
            rows += ["", "Conventions: " + ", ".join(f"`{k}={v}`" for k, v in conventions)]
        if summary:
            rows += ["", f"Certificate: {summary}"]
        return "\n".join(rows)


DISPLAY_STATEMENT = 600        # characters of the statement shown by a Result's HTML / Markdown display
DISPLAY_SUMMARY = 600          # characters of the certificate summary shown
DISPLAY_CONVENTIONS = 12       # conventions shown


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def readable(value, limit: int = 200) -> str:
    """Short readable text of a JSON-like value for displays: exact rationals as ``p/q`` (never
    ``Fraction(p, q)``), sequences as ``[a, b]``, mappings as ``{k: v}``, cut to ``limit`` characters.

    >>> from fractions import Fraction
    >>> readable({"S": Fraction(3, 4), "box": [(Fraction(0), Fraction(1, 2))]})
    '{S: 3/4, box: [[0, 1/2]]}'
    """
    def text(v, depth):
        if isinstance(v, bool) or v is None:
            return str(v)
        if isinstance(v, Fraction):
            return str(v)
        if isinstance(v, (int, float, str)):
            return str(v)
        if hasattr(v, "numerator") and hasattr(v, "denominator"):      # gmpy2 mpq, flint fmpq
            p, q = int(v.numerator), int(v.denominator)
            return str(p) if q == 1 else f"{p}/{q}"
        if isinstance(v, enum.Enum):
            return str(v.value)
        if depth > 4:
            return "…"
        if isinstance(v, Mapping):
            return "{" + ", ".join(f"{text(k, depth + 1)}: {text(x, depth + 1)}" for k, x in list(v.items())[:20]) + \
                (", …" if len(v) > 20 else "") + "}"
        if isinstance(v, (list, tuple, set, frozenset)):
            items = list(v)
            return "[" + ", ".join(text(x, depth + 1) for x in items[:20]) + (", …" if len(items) > 20 else "") + "]"
        return str(v)

    return _shorten(text(value, 0), limit)


def kernel_checked(r: Result) -> Result:
    """``r`` if the kernel accepts it (or it is undecided), else the same Result made INCONCLUSIVE with the
    kernel's reason as its certificate summary: the kernel is the judge of every verdict a check returns."""
    if r.verdict is Verdict.INCONCLUSIVE:
        return r
    import json

    from . import kernel

    try:
        kernel.check(json.loads(r.to_json()))
    except kernel.Rejected as exc:
        return Result(r.claim, r.statement, Verdict.INCONCLUSIVE, r.method, parameters=r.parameters, seeds=r.seeds,
                      evidence=dict(r.evidence), certificate={"summary": f"the kernel rejects the certificate: {exc}"},
                      label=r.label)
    return r
