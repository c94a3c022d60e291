"""Bounded, strict readers for the kernel: every field of a Result is read through these.

Nothing here trusts its input.  Each reader either returns an exact Python value or raises
:class:`Rejected` naming the field.  Resource bounds (documented in docs/soundness.md):

* an exact number is an ``int`` or a string ``"[-]digits"`` / ``"[-]digits/digits"`` with at most
  :data:`MAX_DIGITS` digits per part (no exponents, no decimals, no spaces, no ``inf``/``nan``);
* a list holds at most ``max_len`` elements (default :data:`MAX_LIST`);
* an object has exactly the keys it is read with (unknown or missing keys are rejected);
* the whole check runs under a wall-clock budget: long loops call :func:`tick`, which raises
  :class:`Rejected` once the budget set by :func:`budget` is spent (rejecting is always safe).

Examples
--------
>>> num("-3/6", "x")
Fraction(-1, 2)
>>> num("1e9", "x")
Traceback (most recent call last):
...
verify.kernel._read.Rejected: x: '1e9' is not an exact number ("p" or "p/q" with at most 5000 digits each)
>>> obj({"a": 1, "b": 2}, "cert", required=("a",))
Traceback (most recent call last):
...
verify.kernel._read.Rejected: cert: unknown key(s) b
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from fractions import Fraction

__all__ = ["Rejected", "MAX_DIGITS", "MAX_LIST", "num", "integer", "string", "flag", "lst", "obj", "vec", "mat",
           "box", "digest", "instance_tag", "bound_statement", "expect_statement", "budget", "tick"]

MAX_DIGITS = 5000
MAX_LIST = 2_000_000
_NUM = re.compile(r"^-?[0-9]{1,%d}(/[0-9]{1,%d})?$" % (MAX_DIGITS, MAX_DIGITS))


class Rejected(Exception):
    """The Result is not proved by what it carries (malformed, tampered, incomplete or unknown)."""


# -- the budget ---------------------------------------------------------------------------------------------
_deadline = [None]


@contextlib.contextmanager
def budget(seconds):
    """Run the body under a wall-clock budget of ``seconds`` (``None``: unbounded)."""
    old = _deadline[0]
    _deadline[0] = None if seconds is None else time.monotonic() + float(seconds)
    try:
        yield
    finally:
        _deadline[0] = old


def tick():
    """Raise :class:`Rejected` when the budget is spent.  Call it inside every loop over input data."""
    d = _deadline[0]
    if d is not None and time.monotonic() > d:
        raise Rejected("budget: the re-check ran out of time (the certificate is rejected, not refuted)")


# -- scalars ------------------------------------------------------------------------------------------------
def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # Python refuses more than 4300 digits
        import gmpy2

        return int(gmpy2.mpz(text))


def num(v, field: str) -> Fraction:
    """An exact rational recorded as an ``int`` or ``"p"`` / ``"p/q"`` (q > 0)."""
    tick()
    if isinstance(v, bool):
        raise Rejected(f"{field}: expected an exact number, got a boolean")
    if isinstance(v, int):
        if v.bit_length() > 4 * MAX_DIGITS:
            raise Rejected(f"{field}: integer has more than {MAX_DIGITS} digits")
        return Fraction(v)
    if not isinstance(v, str) or not _NUM.match(v):
        raise Rejected(f"{field}: {v!r:.60} is not an exact number (\"p\" or \"p/q\" with at most "
                       f"{MAX_DIGITS} digits each)")
    p, _, q = v.partition("/")
    den = _int(q) if q else 1
    if den == 0:
        raise Rejected(f"{field}: zero denominator")
    return Fraction(_int(p), den)


def integer(v, field: str, lo: int, hi: int) -> int:
    """An integer (JSON int or exact-number string) with ``lo <= v <= hi``."""
    x = num(v, field)
    if x.denominator != 1 or not lo <= x <= hi:
        raise Rejected(f"{field}: expected an integer in [{_short(lo)}, {_short(hi)}], got {v!r:.60}")
    return int(x)


def _short(n: int) -> str:
    """Decimal text of a bound, or its size when it is too long to print (Python refuses > 4300 digits)."""
    return str(n) if abs(n).bit_length() < 300 else f"{'-' if n < 0 else ''}2^{abs(n).bit_length() - 1}.."


def string(v, field: str, choices=None, max_len: int = 100_000) -> str:
    if not isinstance(v, str) or len(v) > max_len:
        raise Rejected(f"{field}: expected a string of at most {max_len} characters")
    if choices is not None and v not in choices:
        raise Rejected(f"{field}: {v!r:.60} is not one of {', '.join(map(repr, sorted(choices)))}")
    return v


def flag(v, field: str) -> bool:
    if not isinstance(v, bool):
        raise Rejected(f"{field}: expected true or false")
    return v


# -- containers ---------------------------------------------------------------------------------------------
def lst(v, field: str, min_len: int = 0, max_len: int = MAX_LIST) -> list:
    """A JSON list with ``min_len <= len <= max_len``."""
    if not isinstance(v, list):
        raise Rejected(f"{field}: expected a list, got {type(v).__name__}")
    if not min_len <= len(v) <= max_len:
        raise Rejected(f"{field}: expected {min_len}..{max_len} elements, got {len(v)}")
    return v


def obj(v, field: str, required=(), optional=()) -> dict:
    """A JSON object with all ``required`` keys, optionally some ``optional`` keys, and no other key."""
    if not isinstance(v, dict):
        raise Rejected(f"{field}: expected an object, got {type(v).__name__}")
    missing = [k for k in required if k not in v]
    if missing:
        raise Rejected(f"{field}: missing key(s) {', '.join(missing)}")
    unknown = sorted(set(v) - set(required) - set(optional))
    if unknown:
        raise Rejected(f"{field}: unknown key(s) {', '.join(map(str, unknown))}")
    return v


def vec(v, field: str, n=None, max_len: int = MAX_LIST) -> list:
    """A list of exact numbers (of length ``n`` if given)."""
    xs = lst(v, field, 0 if n is None else n, max_len if n is None else n)
    return [num(x, f"{field}[{i}]") for i, x in enumerate(xs)]


def mat(v, field: str, rows=None, cols=None) -> list:
    """A list of rows of exact numbers, all of the same length (``rows`` x ``cols`` if given)."""
    rs = lst(v, field, 0 if rows is None else rows, MAX_LIST if rows is None else rows)
    out = [vec(r, f"{field}[{i}]", cols) for i, r in enumerate(rs)]
    if out and cols is None and any(len(r) != len(out[0]) for r in out):
        raise Rejected(f"{field}: rows of different lengths")
    return out


def box(v, field: str, max_dim: int = 64) -> list:
    """A box ``[[lo, hi], ...]`` with ``lo < hi`` in every coordinate (a full-dimensional closed box)."""
    out = []
    for i, iv in enumerate(lst(v, field, 1, max_dim)):
        lo, hi = vec(iv, f"{field}[{i}]", 2)
        if not lo < hi:
            raise Rejected(f"{field}[{i}]: expected lo < hi, got [{lo}, {hi}]")
        out.append((lo, hi))
    return out


# -- statements ---------------------------------------------------------------------------------------------
def digest(data) -> str:
    """sha256 (hex) of the canonical JSON text of ``data`` (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def instance_tag(parameters, conventions) -> str:
    """The tag that ends every kernel statement: it pins the exact parameters and conventions."""
    return f"[instance sha256:{digest({'parameters': parameters, 'conventions': conventions})[:16]}]"


def bound_statement(text: str, parameters, conventions) -> str:
    """``text`` followed by the instance tag of these (JSON-level) parameters and conventions."""
    return f"{text} {instance_tag(parameters, conventions)}"


def expect_statement(result: dict, text: str) -> None:
    """Reject unless ``result["statement"]`` is exactly ``text`` plus the instance tag of the Result's
    own parameters and conventions."""
    want = bound_statement(text, result.get("parameters"), result.get("conventions"))
    got = result.get("statement")
    if got != want:
        raise Rejected(f"statement: does not match what the parameters say is claimed; expected {want!r:.400}, "
                       f"got {got!r:.400}")
