"""Exact rational arithmetic: parsing user numbers and linear algebra over Q.

User numbers are parsed *exactly*: ``int``, ``Fraction``, ``"p/q"`` and decimal
strings (``"0.125"`` is 1/8 exactly, ``"1e-30"`` is 10^-30).  Python/JSON floats
are refused unless the caller opts in with ``allow_float=True``; then a float is
taken as its exact binary value.

Algorithm
---------
Strings are matched against two regular expressions (``p/q`` and decimal with an optional exponent) and
built as ``Fraction(digits) * 10**exponent``; nothing passes through a float.  Linear algebra over Q
(:func:`rank_q`, :func:`nullspace_q`, :func:`solve_q`) converts to python-flint ``fmpq_mat`` and uses its
exact ``rank`` / ``rref`` / ``solve``: polynomial in the size and the bit length of the entries.

Soundness
---------
Every number returned is the exact rational the input denotes (a float, when allowed, is its exact
binary value); rank, null space and solution are exact over Q.  Nothing here is evidence only.

Limits
------
Strings longer than ``MAX_NUMBER_LENGTH`` = 5000 characters and exponents beyond ``MAX_EXPONENT`` = 5000
are refused (:class:`~verify.errors.InputError`); a box has at most ``max_dim`` intervals (default
``MAX_BOX_DIM`` = 256, :class:`~verify.errors.SizeLimitError` beyond).  ``nan`` / ``inf`` are refused.
:func:`solve_q` needs a square non-singular system (``ZeroDivisionError`` otherwise).

>>> parse_exact("0.125", "w")
Fraction(1, 8)
>>> parse_exact("-2/6", "w")
Fraction(-1, 3)
>>> parse_exact(0.1, "w")
Traceback (most recent call last):
...
verify.errors.InputTypeError: w: 0.1 is a float; give an exact number such as "1/10" or "0.1" (a string), or opt in with allow_float=True (floats taken as their exact binary value)
>>> parse_exact(0.5, "w", allow_float=True)
Fraction(1, 2)
"""

from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction
from typing import Any, Iterable, Sequence

from ..canonical import fraction_str
from ..errors import InputError, InputTypeError, SizeLimitError

__all__ = [
    "JsonFloat", "parse_exact", "parse_int", "parse_positive", "parse_vector", "parse_matrix", "parse_box", "is_list",
    "plain",
    "fraction_str", "rank_q", "nullspace_q", "solve_q", "MAX_NUMBER_LENGTH", "MAX_EXPONENT", "MAX_BOX_DIM",
]

MAX_NUMBER_LENGTH = 5000   # characters in one numeric string
MAX_EXPONENT = 5000        # |e| in "1.5e-30"; larger is refused up front (memory bomb)
MAX_BOX_DIM = 256          # default bound on the number of intervals in a box

_RATIONAL = re.compile(r"^[+-]?\d+(/\d+)?$")
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class JsonFloat(str):
    """A float literal read from JSON, kept as its text so it can be refused (or taken exactly)."""


def _int(text: str) -> int:
    """``int(text)`` for decimal digit strings of any length up to MAX_NUMBER_LENGTH
    (Python refuses more than 4300 digits; gmpy2 does not)."""
    try:
        return int(text)
    except ValueError:
        import gmpy2

        return int(gmpy2.mpz(text))


def _float_refusal(field: str, text: str) -> InputTypeError:
    return InputTypeError(
        field,
        f"{text} is a float; give an exact number such as \"{_suggest(text)}\" or \"{text}\" (a string), "
        "or opt in with allow_float=True (floats taken as their exact binary value)",
    )


def _suggest(text: str) -> str:
    try:
        q = Fraction(text).limit_denominator(10**6)
        return fraction_str(q)
    except (ValueError, ZeroDivisionError, OverflowError):
        return "p/q"


def _parse_string(value: str, field: str) -> Fraction:
    s = value.strip()
    if not s:
        raise InputError(field, "empty string is not a number")
    if len(s) > MAX_NUMBER_LENGTH:
        raise InputError(field, f"numeric string longer than {MAX_NUMBER_LENGTH} characters")
    low = s.lower()
    if low in {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}:
        raise InputError(field, f"{s!r} is not a finite number")
    if _RATIONAL.match(s):
        num, _, den = s.partition("/")
        if den and _int(den) == 0:
            raise InputError(field, f"{s!r} has a zero denominator")
        return Fraction(_int(num), _int(den) if den else 1)
    m = _DECIMAL.match(s)
    if m:
        exp = 0
        if m.group(2):
            exp = int(m.group(2)[1:])
            if abs(exp) > MAX_EXPONENT:
                raise InputError(field, f"exponent {exp} outside [-{MAX_EXPONENT}, {MAX_EXPONENT}]")
        mantissa = m.group(1)
        sign = -1 if s.startswith("-") else 1
        whole, _, frac = mantissa.partition(".")
        digits = (whole + frac).lstrip("0") or "0"
        exp -= len(frac)
        value = Fraction(_int(digits)) * (Fraction(10) ** exp)
        return sign * value
    raise InputError(field, f"{value!r} is not an exact number (use an integer, 'p/q' or a decimal string)")


def parse_exact(value: Any, field: str = "value", *, allow_float: bool = False) -> Fraction:
    """Parse one exact rational number; errors name ``field``."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise InputTypeError(field, f"{value!r} is a boolean, not a number")
    if isinstance(value, JsonFloat):
        if not allow_float:
            raise _float_refusal(field, str(value))
        f = float(value)
        if not math.isfinite(f):
            raise InputError(field, f"{value} is not a finite number")
        return Fraction(f)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, str):
        return _parse_string(value, field)
    if isinstance(value, float) or type(value).__name__ in ("float64", "float32", "float16"):
        f = float(value)
        if not math.isfinite(f):
            raise InputError(field, f"{value!r} is not a finite number")
        if not allow_float:
            raise _float_refusal(field, repr(f))
        return Fraction(f)
    mod = type(value).__module__ or ""
    if mod.startswith("flint") and type(value).__name__ in ("fmpq", "fmpz"):
        if type(value).__name__ == "fmpz":
            return Fraction(int(value))
        return Fraction(int(value.p), int(value.q))
    if mod.startswith("sympy"):
        import sympy

        if isinstance(value, sympy.Rational):
            return Fraction(int(value.p), int(value.q))
        raise InputTypeError(field, f"sympy value {value} is not a rational number")
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    raise InputTypeError(field, f"expected an exact number (int, 'p/q' or decimal string), got {type(value).__name__}")


def parse_int(value: Any, field: str, lo: int, hi: int) -> int:
    """An ``int`` (not a bool) in [lo, hi]; a wrong type raises :class:`InputTypeError`, a value out of
    range :class:`InputError`.

    >>> parse_int(3, "L", 1, 8)
    3
    >>> parse_int(9, "L", 1, 8)
    Traceback (most recent call last):
    ...
    verify.errors.InputError: L: must be an integer in [1, 8], got 9
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputTypeError(field, f"must be an integer in [{lo}, {hi}], got {type(value).__name__} {value!r}")
    if not lo <= value <= hi:
        raise InputError(field, f"must be an integer in [{lo}, {hi}], got {value}")
    return value


def parse_positive(value: Any, field: str, *, allow_float: bool = False, strict: bool = True) -> Fraction:
    """Parse a number that must be > 0 (``strict``) or >= 0."""
    q = parse_exact(value, field, allow_float=allow_float)
    if strict and q <= 0:
        raise InputError(field, f"must be > 0, got {fraction_str(q)}")
    if not strict and q < 0:
        raise InputError(field, f"must be >= 0, got {fraction_str(q)}")
    return q


def is_list(value) -> bool:
    """True for a ``list`` or ``tuple`` (the containers JSON and Python literals give us); numpy arrays are
    turned into lists first by :func:`plain`."""
    return isinstance(value, (list, tuple))


def _is_ndarray(value) -> bool:
    return type(value).__name__ == "ndarray" and (type(value).__module__ or "").startswith("numpy")


_PLAIN_ATOMS = frozenset((Fraction, int, str, float, bool, type(None)))


def plain(value):
    """``value`` with every numpy array (at any depth of nested lists and tuples) turned into nested lists,
    and numpy scalars into Python scalars, *exactly*: integers stay integers, object arrays keep their
    elements (Fractions, strings), and floats stay floats, so the parsers still refuse them unless
    ``allow_float=True``.  Anything else is returned unchanged (the same object when nothing changed).

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> plain(np.array([[1, -2]], dtype=np.int64))
    [[1, -2]]
    >>> plain([np.array([Fraction(1, 3), "1/2"], dtype=object)])
    [[Fraction(1, 3), '1/2']]
    >>> plain(np.array([0.5]))        # still a float: parse_exact refuses it unless allow_float=True
    [0.5]
    """
    if _is_ndarray(value):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        if all(type(v) in _PLAIN_ATOMS for v in value):    # nothing to convert (plain(v) is v for these)
            return value
        out = [plain(v) for v in value]
        if all(a is b for a, b in zip(out, value)):
            return value
        return type(value)(out) if isinstance(value, list) or type(value) is tuple else out
    if (type(value).__module__ or "") == "numpy" and hasattr(value, "item"):   # a numpy scalar
        return value.item()
    return value


def _is_sequence(value) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes)) or (
        type(value).__name__ == "ndarray")


def parse_vector(values: Any, field: str, *, dim: int | None = None, allow_float: bool = False,
                 max_len: int | None = None) -> tuple:
    """Parse a list of exact numbers; ``dim`` enforces the length."""
    if not _is_sequence(values):
        raise InputTypeError(field, f"expected a list of numbers, got {type(values).__name__}")
    values = list(values)
    if max_len is not None and len(values) > max_len:
        raise InputError(field, f"length {len(values)} exceeds the limit {max_len}")
    if dim is not None and len(values) != dim:
        raise InputError(field, f"expected length {dim}, got {len(values)}")
    return tuple(parse_exact(v, f"{field}[{i}]", allow_float=allow_float) for i, v in enumerate(values))


def parse_matrix(rows: Any, field: str, *, shape: tuple | None = None, allow_float: bool = False,
                 max_size: int | None = None) -> tuple:
    """Parse a rectangular list of lists of exact numbers; returns a tuple of row tuples."""
    if not _is_sequence(rows):
        raise InputTypeError(field, f"expected a list of rows, got {type(rows).__name__}")
    rows = list(rows)
    if not rows:
        raise InputError(field, "matrix has no rows")
    if max_size is not None and len(rows) > max_size:
        raise InputError(field, f"{len(rows)} rows exceed the limit {max_size}")
    out = [parse_vector(r, f"{field}[{i}]", allow_float=allow_float, max_len=max_size) for i, r in enumerate(rows)]
    width = len(out[0])
    for i, r in enumerate(out):
        if len(r) != width:
            raise InputError(f"{field}[{i}]", f"row length {len(r)} differs from row 0 length {width}")
    if shape is not None:
        nr, nc = shape
        if (nr is not None and len(out) != nr) or (nc is not None and width != nc):
            raise InputError(field, f"expected shape {shape}, got ({len(out)}, {width})")
    return tuple(out)


def parse_box(box: Any, dim: int | None = None, *, field: str = "box", max_dim: int = MAX_BOX_DIM,
              allow_float: bool = False, degenerate: bool = False) -> tuple:
    """A rational box from ``[[lo, hi], ...]`` or from a spec dict with key ``"box"``.

    Returns a tuple of ``(lo, hi)`` Fraction pairs.  ``dim`` (if given) is the required number of
    intervals, ``max_dim`` the largest accepted (larger is refused with :class:`SizeLimitError`).
    Every interval needs lo < hi, or lo <= hi with ``degenerate=True`` (a point is then allowed in
    a coordinate).  This is the one box parser of the package outside the kernel, whose
    ``read_box`` is a deliberately independent copy.

    >>> parse_box({"box": [["0", "1/2"]]})
    ((Fraction(0, 1), Fraction(1, 2)),)
    >>> parse_box([[1, 0]])
    Traceback (most recent call last):
    ...
    verify.errors.InputError: box[0]: lower end 1 must be < upper end 0
    >>> parse_box([[1, 1]], degenerate=True)
    ((Fraction(1, 1), Fraction(1, 1)),)
    """
    if isinstance(box, dict):
        if "box" not in box:
            raise InputError(field, "missing (expected [[lo, hi], ...], one interval per input coordinate)")
        box = box["box"]
    if not _is_sequence(box) or not len(box):
        raise InputTypeError(field, "expected a non-empty list of [lo, hi] intervals")
    if len(box) > max_dim:
        raise SizeLimitError(field, f"dimension {len(box)} exceeds the limit {max_dim}")
    if dim is not None and len(box) != dim:
        raise InputError(field, f"expected {dim} intervals (the input dimension), got {len(box)}")
    out = []
    for m, iv in enumerate(box):
        if not _is_sequence(iv) or len(iv) != 2:
            raise InputError(f"{field}[{m}]", "expected an interval [lo, hi]")
        lo = parse_exact(iv[0], f"{field}[{m}][0]", allow_float=allow_float)
        hi = parse_exact(iv[1], f"{field}[{m}][1]", allow_float=allow_float)
        if lo > hi or (lo == hi and not degenerate):
            rel = "<=" if degenerate else "<"
            raise InputError(f"{field}[{m}]", f"lower end {fraction_str(lo)} must be {rel} upper end {fraction_str(hi)}")
        out.append((lo, hi))
    return tuple(out)


# -- exact linear algebra over Q (python-flint fmpq_mat) ---------------------------------

def _to_fmpq_mat(rows: Sequence[Sequence[Fraction]]):
    from flint import fmpq, fmpq_mat

    nr = len(rows)
    nc = len(rows[0]) if nr else 0
    flat = []
    for r in rows:
        for v in r:
            v = Fraction(v)
            flat.append(fmpq(v.numerator, v.denominator))
    return fmpq_mat(nr, nc, flat)


def _from_fmpq(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def rank_q(rows: Sequence[Sequence[Fraction]]) -> int:
    """Exact rank over Q.

    >>> rank_q([[1, 2], [2, 4]])
    1
    """
    if not rows or not rows[0]:
        return 0
    return int(_to_fmpq_mat(rows).rank())


def nullspace_q(rows: Sequence[Sequence[Fraction]]) -> list:
    """An exact basis of {c : rows @ c = 0} over Q, each vector scaled to coprime integers
    with a positive first non-zero entry.

    >>> nullspace_q([[1, 1, -1]])
    [(1, -1, 0), (1, 0, 1)]
    """
    nc = len(rows[0]) if rows else 0
    if not rows:
        return [tuple(1 if i == j else 0 for i in range(nc)) for j in range(nc)]
    R, rank = _to_fmpq_mat(rows).rref()
    rank = int(rank)
    pivots = []
    for i in range(rank):
        for j in range(nc):
            if R[i, j] != 0:
                pivots.append(j)
                break
    free = [j for j in range(nc) if j not in pivots]
    basis = []
    for f in free:
        vec = [Fraction(0)] * nc
        vec[f] = Fraction(1)
        for i, p in enumerate(pivots):
            vec[p] = -_from_fmpq(R[i, f])
        basis.append(integer_normalise(vec))
    return basis


def integer_scale(vec: Iterable) -> tuple:
    """Scale a rational vector by a positive rational to coprime integers (the zero vector stays zero).

    >>> integer_scale(["1/2", "-1/3", 0])
    (3, -2, 0)
    """
    vec = [Fraction(v) for v in vec]
    den = math.lcm(*(v.denominator for v in vec))
    ints = [int(v * den) for v in vec]
    g = math.gcd(*ints)
    return tuple(ints) if g == 0 else tuple(v // g for v in ints)


def integer_normalise(vec: Iterable) -> tuple:
    """Scale a rational vector to coprime integers, first non-zero entry positive."""
    ints = integer_scale(vec)
    first = next((v for v in ints if v != 0), 0)
    return tuple(-v for v in ints) if first < 0 else ints


def solve_q(rows: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]):
    """Solve a square non-singular system exactly; raises ``ZeroDivisionError`` if singular."""
    from flint import fmpq_mat

    A = _to_fmpq_mat(rows)
    b = _to_fmpq_mat([[v] for v in rhs])
    x = A.solve(b)
    return tuple(_from_fmpq(x[i, 0]) for i in range(x.nrows()))


def as_fraction_matrix(rows) -> tuple:
    return tuple(tuple(Fraction(v) for v in r) for r in rows)
