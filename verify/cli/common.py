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

import dataclasses
import json
import os

from ..canonical import atomic_write_json, atomic_write_text
from ..arith.exact import JsonFloat
from ..errors import InputError

__all__ = ["load_json_file", "parse_json_text", "parse_json_document", "check_output_path", "write_json_output",
           "read_network_spec", "add_network_spec_arguments", "read_network_input", "NetworkInput", "parse_budgets",
           "MAX_SPEC_BYTES", "MAX_JSON_INT_DIGITS",
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


def add_network_spec_arguments(p, max_cells_help: str = "") -> None:
    """The FILE positional and the options of ``verify maxout`` and ``verify regions``: ``--allow-float``, the
    slice (``--slice``, ``--fix``, ``--box``, ``--units``) and the budgets (``--time-budget``, ``--max-cells``,
    ``--quiet``)."""
    p.add_argument("spec", metavar="FILE", help='the network: SPEC.json ({"layers": [...], "box": [[lo, hi], ...]}) '
                   "or a trained network, .nnet, .onnx or .npz (docs/regions.md, Real networks)")
    p.add_argument("--allow-float", action="store_true", help="accept JSON floats (their exact binary value)")
    p.add_argument("--slice", metavar="I,J", help="the free inputs (0-based, in this order); every other input "
                   "is fixed with --fix")
    p.add_argument("--fix", metavar="I=V,...", help="fix inputs to exact values, e.g. 2=0.1,3=0,4=-1/5 "
                   "(in --units); without --slice the other inputs stay free")
    p.add_argument("--box", metavar="LO:HI,...", help="the box of the free inputs, e.g. --box=-1/10:1/10,0:1/5 "
                   "(write --box=... when it starts with '-'); default: the file's box (SPEC box, .nnet minima "
                   "and maxima); needed for .onnx and .npz")
    p.add_argument("--units", choices=["original", "normalised"], default="original",
                   help=".nnet only: --box and --fix in original units (default; the file's normalisation is "
                        "folded in exactly) or normalised units (the network as written)")
    p.add_argument("--time-budget", metavar="SECONDS", default=None,
                   help="stop after SECONDS (INCONCLUSIVE with the part done, never a hang); default: no limit")
    p.add_argument("--max-cells", metavar="N", default=None, help="cell budget " + max_cells_help)
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")


@dataclasses.dataclass(frozen=True)
class NetworkInput:
    """What ``verify maxout`` / ``verify regions`` read: the exact network (sliced), its box, a description."""

    net: object
    box: tuple
    source: str
    slice_note: str = ""


def _parse_int_list(text: str, field: str, hi: int) -> list:
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or len(part) > 4:
            raise InputError(field, f"expected comma-separated input indices, got {part[:20]!r}")
        out.append(int(part))
    return out


def _parse_fix(text: str, allow_float: bool) -> dict:
    from ..arith.exact import parse_exact

    out = {}
    for part in text.split(","):
        i, eq, v = part.partition("=")
        i = i.strip()
        if not eq or not i.isdigit() or len(i) > 4:
            raise InputError("--fix", f"expected I=V pairs separated by commas, got {part[:30]!r}")
        if int(i) in out:
            raise InputError("--fix", f"input {i} is fixed twice")
        out[int(i)] = parse_exact(v.strip(), f"--fix {i}", allow_float=allow_float)
    return out


def _intervals_option(text: str, allow_float: bool) -> tuple:
    from ..arith.exact import parse_box

    ivs = []
    for m, part in enumerate(text.split(",")):
        lo, colon, hi = part.partition(":")
        if not colon:
            raise InputError("--box", f"expected LO:HI intervals separated by commas, got {part[:30]!r}")
        ivs.append([lo.strip(), hi.strip()])
    return parse_box(ivs, field="--box", allow_float=allow_float)


def parse_budgets(args, default_cells: int, max_cells: int) -> tuple:
    """``(time_budget seconds or None, max_cells)`` from ``--time-budget`` and ``--max-cells``."""
    from ..arith.exact import parse_int, parse_positive

    budget = None
    if args.time_budget is not None:
        budget = float(parse_positive(args.time_budget, "--time-budget", allow_float=True))
        if budget > MAX_TIME_BUDGET:
            raise InputError("--time-budget", f"{args.time_budget} s exceeds the limit {MAX_TIME_BUDGET} s (a week)")
    cells = default_cells
    if args.max_cells is not None:
        text = str(args.max_cells).strip().replace("_", "")
        if not text.isdigit() or len(text) > 12:
            raise InputError("--max-cells", f"must be an integer in [1, {max_cells}], got {args.max_cells!r}")
        cells = parse_int(int(text), "--max-cells", 1, max_cells)
    return budget, cells


MAX_TIME_BUDGET = 7 * 24 * 3600


def read_network_input(args, limits=None) -> NetworkInput:
    """The network and box of ``args.spec`` (a SPEC.json, ``.nnet``, ``.onnx`` or ``.npz`` file, dispatched on
    the suffix), restricted to the slice of ``--slice`` / ``--fix`` with the box ``--box`` (docs/regions.md,
    Real networks).  ``limits(net)`` (if given) is applied to the network actually analysed."""
    from ..arith.exact import fraction_str
    from ..objects.readers import NETWORK_SUFFIXES, load_network, slice_network

    path = args.spec
    is_file_net = path.lower().endswith(NETWORK_SUFFIXES)
    if args.units != "original" and not path.lower().endswith(".nnet"):
        raise InputError("--units", "normalised units exist only for .nnet files")
    if is_file_net:
        loaded = load_network(path, units=args.units)
        net, file_box, source = loaded.net, loaded.box, loaded.source
    else:
        from ..errors import InputTypeError
        from ..objects.maxout import MaxoutNetwork, parse_box

        doc = load_json_file(path, "SPEC")
        if not isinstance(doc, dict):
            raise InputTypeError("SPEC", f"expected a JSON object with \"layers\" and \"box\", got "
                                         f"{type(doc).__name__}")
        net = MaxoutNetwork.from_dict(doc, allow_float=args.allow_float)
        file_box = parse_box(doc, dim=net.input_dim, allow_float=args.allow_float) if "box" in doc else None
        source = f"SPEC {path}"
    d = net.input_dim
    fixed = _parse_fix(args.fix, args.allow_float) if args.fix else {}
    if args.slice:
        free = _parse_int_list(args.slice, "--slice", d)
    else:
        free = [i for i in range(d) if i not in fixed]
    for i in fixed:
        if not 0 <= i < d:
            raise InputError("--fix", f"input index {i} outside [0, {d - 1}] (the network has {d} inputs)")
    for i in free:
        if not 0 <= i < d:
            raise InputError("--slice", f"input index {i} outside [0, {d - 1}] (the network has {d} inputs)")
    if file_box is not None and is_file_net:
        # a .nnet network clips its inputs to [minima, maxima]: exact (affine) only inside that box
        for i, v in fixed.items():
            lo, hi = file_box[i]
            if not lo <= v <= hi:
                raise InputError(f"--fix {i}", f"{fraction_str(v)} outside the file's input range "
                                               f"[{fraction_str(lo)}, {fraction_str(hi)}] ({args.units} units)")
    if args.box:
        box = _intervals_option(args.box, args.allow_float)
        if len(box) != len(free):
            raise InputError("--box", f"expected {len(free)} interval{'s' if len(free) != 1 else ''} (one per free "
                                      f"input), got {len(box)}")
        if file_box is not None and is_file_net:
            for (lo, hi), i in zip(box, free):
                flo, fhi = file_box[i]
                if lo < flo or hi > fhi:
                    raise InputError("--box", f"input {i}: [{fraction_str(lo)}, {fraction_str(hi)}] leaves the "
                                              f"file's input range [{fraction_str(flo)}, {fraction_str(fhi)}] "
                                              f"({args.units} units)")
    elif file_box is not None:
        box = tuple(file_box[i] for i in free)
    else:
        raise InputError("--box", f"needed: {path} has no box (one LO:HI interval per free input)")
    note = ""
    if fixed or free != list(range(d)):
        net = slice_network(net, free, fixed)
        fx = ", ".join(f"x{i} = {fraction_str(v)}" for i, v in sorted(fixed.items()))
        note = f"slice: free inputs {free}" + (f", fixed {fx}" if fx else "") + f" ({args.units} units)"
    if limits is not None:
        limits(net)
    return NetworkInput(net, tuple(box), source, note)


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
