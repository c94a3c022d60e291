"""Canonical JSON and atomic file writes.

Canonical means: sorted keys, fixed separators, UTF-8, a final newline;
exact numbers (``Fraction``, ``fmpq``, SymPy rationals) as strings ``"p/q"``;
floats as Python ``repr``; ball enclosures as exact endpoint strings.  The same
data always serialises to the same bytes.

>>> from fractions import Fraction
>>> canonical_dumps({"b": Fraction(3, 7), "a": [1, 0.5]})
'{"a":[1,0.5],"b":"3/7"}'
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import platform
import tempfile
from fractions import Fraction
from functools import lru_cache
from itertools import chain
from typing import Any

__all__ = ["jsonable", "canonical_dumps", "plain_dumps", "atomic_write_text", "atomic_write_json", "library_versions",
           "fraction_str", "int_str", "arf_to_fraction"]


_STR, _LIST = frozenset({str}), frozenset({list})
_INT_LIMIT = 10**4000   # computed once: Python does not fold a constant this large, jsonable used to rebuild it


def int_str(n: int) -> str:
    """Decimal text of an integer of any size (Python's ``str`` refuses more than 4300 digits)."""
    try:
        return str(n)
    except ValueError:
        import gmpy2

        return gmpy2.mpz(n).digits(10)


def fraction_str(q) -> str:
    """``Fraction(3, 7) -> "3/7"``, ``Fraction(4) -> "4"`` (any size)."""
    q = Fraction(q)
    if q.denominator == 1:
        return int_str(q.numerator)
    return f"{int_str(q.numerator)}/{int_str(q.denominator)}"


def arf_to_fraction(x) -> Fraction:
    """The exact value of a finite python-flint ``arf`` (a ball's midpoint or radius), m * 2^e."""
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2 ** (-e))


def _arb_to_json(x) -> dict:
    if not x.is_finite():
        return {"lower": "-inf", "upper": "inf", "approx": x.str(12, radius=True)}
    midq = arf_to_fraction(x.mid())
    radq = arf_to_fraction(x.rad())
    return {"lower": fraction_str(midq - radq), "upper": fraction_str(midq + radq),
            "approx": x.str(12, radius=True)}


def jsonable(obj: Any) -> Any:
    """Convert ``obj`` to plain JSON types, deterministically."""
    t = type(obj)                      # fast paths (the same output as the general branches below)
    if t is str:
        return obj
    if t is list or t is tuple:
        types = set(map(type, obj))
        if types <= _STR:              # a list of texts (the weights of laws, an atom)
            return list(obj)
        if types == _LIST and set(map(type, chain.from_iterable(obj))) <= _STR:    # lists of texts (atoms)
            return [list(v) for v in obj]
        return [jsonable(v) for v in obj]
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value)
    if isinstance(obj, int):
        n = int(obj)
        return n if abs(n) < _INT_LIMIT else int_str(n)
    if isinstance(obj, Fraction):
        return fraction_str(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict) or hasattr(obj, "items") and callable(obj.items):
        out = {}
        for k, v in obj.items():
            key = k if isinstance(k, str) else str(jsonable(k))
            out[key] = jsonable(v)
        return out
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        items = [jsonable(v) for v in obj]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(obj, "to_dict"):
            return jsonable(obj.to_dict())
        return jsonable(dataclasses.asdict(obj))
    mod = type(obj).__module__ or ""
    name = type(obj).__name__
    if mod.startswith("flint"):
        if name == "fmpq" or name == "fmpz":
            return fraction_str(Fraction(int(obj.p), int(obj.q))) if name == "fmpq" else int(obj)
        if name == "arb":
            return _arb_to_json(obj)
        if name in ("fmpq_mat", "fmpz_mat", "arb_mat"):
            return [[jsonable(obj[i, j]) for j in range(obj.ncols())] for i in range(obj.nrows())]
    if mod.startswith("numpy"):
        import numpy as np

        if isinstance(obj, np.ndarray):
            return jsonable(obj.tolist())
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return jsonable(float(obj))
    if mod.startswith("sympy"):
        import sympy

        if isinstance(obj, sympy.Rational):
            return fraction_str(Fraction(int(obj.p), int(obj.q)))
        if isinstance(obj, sympy.MatrixBase):
            return [[jsonable(obj[i, j]) for j in range(obj.cols)] for i in range(obj.rows)]
        return str(obj)
    if mod.startswith("mpmath"):
        import mpmath

        return mpmath.nstr(obj, 30) if not isinstance(obj, mpmath.matrix) else [
            [mpmath.nstr(obj[i, j], 30) for j in range(obj.cols)] for i in range(obj.rows)]
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    raise TypeError(f"cannot serialise object of type {type(obj).__name__} to JSON")


def canonical_dumps(obj: Any, indent: int | None = None) -> str:
    """Canonical JSON text (no trailing newline)."""
    return plain_dumps(jsonable(obj), indent)


def plain_dumps(data: Any, indent: int | None = None) -> str:
    """:func:`canonical_dumps` of data that is already plain JSON (what :func:`jsonable` and ``to_dict``
    return, on which :func:`jsonable` is the identity): the same text without a second walk."""
    seps = (",", ":") if indent is None else (",", ": ")
    return json.dumps(data, sort_keys=True, separators=seps, ensure_ascii=False, allow_nan=False, indent=indent)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename).

    A reader sees either the old file or the complete new one, never a partial write.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".tmp", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)   # mkstemp makes 0600; give the file the usual permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_json(path: str | os.PathLike, obj: Any, indent: int | None = 1) -> None:
    """Canonical JSON (with a final newline) written atomically."""
    atomic_write_text(path, canonical_dumps(obj, indent=indent) + "\n")


@lru_cache(maxsize=1)
def library_versions() -> dict:
    """Versions of the interpreter and every numerical library the verdicts may depend on."""
    from importlib import metadata

    from ._version import __version__

    versions = {"python": platform.python_version(), "verify": __version__}
    for dist in ("sympy", "mpmath", "numpy", "scipy", "python-flint", "gmpy2"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "absent"
    return versions
