"""Helpers shared by CLI commands: reading JSON specs exactly, writing outputs atomically.

Every JSON document a user gives a command is parsed by :func:`parse_json_text` (through
:func:`load_json_file`; ``verify check`` uses :func:`parse_json_document` with its own size limit): float literals
are kept as their text (:class:`~verify.arith.exact.JsonFloat`, refused later unless ``--allow-float``), ``NaN`` /
``Infinity`` are refused, a key given twice in one object is refused, and an integer literal longer than
:data:`MAX_JSON_INT_DIGITS` digits (Python's default ``int_max_str_digits``) is refused with an
:class:`~verify.errors.InputError` naming its place in the document -- write a longer exact number as a string.
The schemas of the documents are in ``verify/schemas/`` (``verify schema KIND``; docs/reports.md, Schemas).
"""

from __future__ import annotations

import json
import os

from ..canonical import atomic_write_json, atomic_write_text
from ..arith.exact import JsonFloat
from ..errors import InputError

__all__ = ["load_json_file", "parse_json_text", "parse_json_document", "check_output_path", "write_json_output",
           "read_network_spec", "add_network_spec_arguments", "MAX_SPEC_BYTES", "MAX_JSON_INT_DIGITS",
           "atomic_write_text"]

MAX_SPEC_BYTES = 16 * 1024 * 1024
MAX_JSON_INT_DIGITS = 4300   # digits of one JSON integer literal (Python's default int_max_str_digits)


class _LongInt(str):
    """An integer literal over :data:`MAX_JSON_INT_DIGITS` digits, held as text until its place is found."""


_DUPLICATE = object()   # key of the entry that marks an object in which a key occurs twice (value: the key)


def _int_literal(text: str):
    if len(text) - text.startswith("-") > MAX_JSON_INT_DIGITS:
        return _LongInt(text)
    try:
        return int(text)
    except ValueError:   # a lower int_max_str_digits set by the environment
        import gmpy2

        return int(gmpy2.mpz(text))


def _path_text(path) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p.isidentifier():
            out += f".{p}"
        else:
            out += "[" + json.dumps(p[:40]) + "]"
    return out


def _find_marker(doc):
    """(path, marker) of the first too-long integer (a :class:`_LongInt`) or repeated key (a ``str``) in document
    order, else None."""
    stack = [((), doc)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, _LongInt):
            return path, v
        if isinstance(v, dict):
            if _DUPLICATE in v:
                return path, str(v[_DUPLICATE])
            stack.extend(((*path, k), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend(((*path, i), x) for i, x in reversed(list(enumerate(v))))
    return None


def parse_json_document(text: str, field: str, source: str | None = None, *, exact_floats: bool = True,
                        unique_keys: bool = True):
    """Parse one JSON document given by a user; every failure is an :class:`InputError` whose field is
    ``field`` (plus the place in the document for a too-long integer or a repeated key) and whose message names
    ``source`` (the file).  ``exact_floats`` keeps float literals as :class:`JsonFloat` text; ``unique_keys``
    refuses a key given twice in one object."""
    where = f"{field} {source}" if source else field
    found = []

    def ints(t):
        v = _int_literal(t)
        if isinstance(v, _LongInt):
            found.append(True)
        return v

    def pairs(p):
        d = dict(p)
        if len(d) != len(p):
            seen = set()
            for k, _ in p:
                if k in seen:
                    d[_DUPLICATE] = k
                    found.append(True)
                    break
                seen.add(k)
        return d

    def reject_constant(name):
        raise InputError(where, f"{name} is not allowed (numbers must be finite)")

    try:
        doc = json.loads(text, parse_float=JsonFloat if exact_floats else None, parse_constant=reject_constant,
                         parse_int=ints, object_pairs_hook=pairs if unique_keys else None)
    except json.JSONDecodeError as exc:
        raise InputError(where, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(where, "JSON nested too deeply") from None
    if found:
        hit = _find_marker(doc)
        if hit is not None:
            path, marker = hit
            place = field + _path_text(path)
            in_file = f" in {source}" if source else ""
            if not isinstance(marker, _LongInt):
                raise InputError(place, f"key {marker[:60]!r} occurs twice in one object{in_file} (give each key once)")
            digits = len(marker) - marker.startswith("-")
            raise InputError(place, f"integer literal of {digits} digits{in_file} exceeds the JSON limit of "
                                    f"{MAX_JSON_INT_DIGITS} digits; write the number as a string "
                                    f"(\"{marker[:12]}...\")")
    return doc


def parse_json_text(text: str, field: str = "json"):
    """Parse JSON keeping float literals as :class:`JsonFloat` text (refused later unless opted in); integer
    literals over :data:`MAX_JSON_INT_DIGITS` digits and repeated keys are refused (see the module docstring)."""
    return parse_json_document(text, field)


def load_json_file(path: str, field: str = "SPEC"):
    """Read and parse a JSON file; every failure is an :class:`InputError` naming the file."""
    if path == "-":
        import sys

        text = sys.stdin.read(MAX_SPEC_BYTES + 1)
    else:
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            raise InputError(field, f"{path}: {exc.strerror or exc}") from None
        if size > MAX_SPEC_BYTES:
            raise InputError(field, f"{path}: file of {size} bytes exceeds the limit {MAX_SPEC_BYTES}")
        try:
            with open(path, "r", encoding="utf-8") as fh:
                text = fh.read()
        except UnicodeDecodeError:
            raise InputError(field, f"{path}: not UTF-8 text") from None
        except OSError as exc:
            raise InputError(field, f"{path}: {exc.strerror or exc}") from None
    if len(text) > MAX_SPEC_BYTES:
        raise InputError(field, f"input exceeds the limit of {MAX_SPEC_BYTES} bytes")
    return parse_json_document(text, field, path)


def check_output_path(path: str, field: str = "--json") -> None:
    """Refuse an output path whose folder does not exist, before any work is done."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(field, f"cannot write {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise InputError(field, f"cannot write {path}: it is a folder")


def write_json_output(path: str, obj) -> None:
    """Canonical JSON written atomically."""
    try:
        atomic_write_json(path, obj)
    except OSError as exc:
        raise InputError("--json", f"cannot write {path}: {exc.strerror or exc}") from None


def add_network_spec_arguments(p) -> None:
    """The SPEC.json positional and ``--allow-float`` of ``verify maxout`` and ``verify regions``."""
    p.add_argument("spec", metavar="SPEC.json", help='network and box: {"layers": [...], "box": [[lo, hi], ...]}')
    p.add_argument("--allow-float", action="store_true", help="accept JSON floats (their exact binary value)")


def read_network_spec(path: str, allow_float: bool, limits) -> tuple:
    """``(net, box)`` from a ``verify maxout`` / ``verify regions`` SPEC file (docs/paper1-objects.md):
    the network is parsed and held to the command's ``limits(net)`` before the box is read."""
    from ..errors import InputTypeError
    from ..objects.maxout import MaxoutNetwork, parse_box

    doc = load_json_file(path, "SPEC")
    if not isinstance(doc, dict):
        raise InputTypeError("SPEC", f"expected a JSON object with \"layers\" and \"box\", got {type(doc).__name__}")
    net = MaxoutNetwork.from_dict(doc, allow_float=allow_float)
    limits(net)
    return net, parse_box(doc, dim=net.input_dim, allow_float=allow_float)
