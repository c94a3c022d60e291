"""Helpers shared by CLI commands: reading JSON specs exactly, writing outputs atomically."""

from __future__ import annotations

import json
import os

from ..canonical import atomic_write_json, atomic_write_text
from ..arith.exact import JsonFloat
from ..errors import InputError

__all__ = ["load_json_file", "parse_json_text", "check_output_path", "write_json_output", "read_network_spec",
           "add_network_spec_arguments", "MAX_SPEC_BYTES", "atomic_write_text"]

MAX_SPEC_BYTES = 16 * 1024 * 1024


def _reject_constant(name):
    raise InputError("json", f"{name} is not allowed (numbers must be finite)")


def parse_json_text(text: str, field: str = "json"):
    """Parse JSON keeping float literals as :class:`JsonFloat` text (refused later unless opted in)."""
    try:
        return json.loads(text, parse_float=JsonFloat, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(field, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(field, "JSON nested too deeply") from None


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
    return parse_json_text(text, f"{field} {path}")


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
