"""``verify schema KIND`` / ``verify schema --list``: print the JSON Schema (draft 2020-12) of a document kind.

The schemas are shipped in the package as ``verify/schemas/<kind>.json`` (docs/reports.md, Schemas):

* ``maxout``       -- the SPEC of ``verify maxout`` and ``verify regions`` (``regions`` is the same schema);
* ``independence`` -- the SPEC of ``verify independence``;
* ``ntk``          -- the SPEC and the ``--queries`` file of ``verify ntk``;
* ``audit``        -- the document ``verify audit --json`` writes;
* ``result``       -- one Result (``Result.to_dict``), as ``--json`` of the other commands writes it.

The readers enforce the same rules themselves (an unknown key is an error naming the nearest known key), so no
validator library is needed; a schema states the shape, the readers also check what a schema cannot (matching
dimensions, a positive definite covariance, ...).  Prints the schema as JSON with sorted keys; exit 0, or 2 for
an unknown kind (one line on stderr naming the known kinds).

>>> sorted(load_schema("maxout")["required"])
['box', 'layers']
"""

from __future__ import annotations

HELP = "print the JSON Schema of a SPEC, audit or Result document (verify schema --list for the kinds)"

# kind -> what it describes; the file is verify/schemas/<kind>.json
KINDS = {
    "maxout": "the SPEC of verify maxout and verify regions: layers, optional read-out, box",
    "independence": "the SPEC of verify independence: the laws and the options of the decision",
    "ntk": "the SPEC (laws) and the --queries file of verify ntk",
    "audit": "the document written by verify audit --json",
    "result": "one Result, as --json of maxout, regions, independence and ntk writes it",
    "figure": "the typed figure data of a Result (its evidence.figure), the only data the report's figures read",
}
ALIASES = {"regions": "maxout"}

__all__ = ["HELP", "KINDS", "ALIASES", "add_arguments", "run", "load_schema", "schema_text"]


def add_arguments(p):
    p.add_argument("kind", nargs="?", metavar="KIND", help=f"one of {', '.join([*KINDS, *ALIASES])}")
    p.add_argument("--list", action="store_true", help="list the kinds, one per line, with what each describes")


def load_schema(kind: str) -> dict:
    """The schema of ``kind`` (a key of :data:`KINDS` or :data:`ALIASES`) as a dict, read from the package."""
    import json
    from importlib import resources

    from ..errors import InputError

    name = ALIASES.get(kind, kind)
    if name not in KINDS:
        raise InputError("KIND", f"unknown schema {str(kind)[:40]!r}; known: {', '.join([*KINDS, *ALIASES])}")
    text = resources.files("verify").joinpath("schemas", f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)


def schema_text(kind: str) -> str:
    """The schema of ``kind`` as printed: JSON with sorted keys, indented, a final newline."""
    import json

    return json.dumps(load_schema(kind), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def run(args) -> int:
    import sys

    from ..errors import InputError

    if args.list:
        if args.kind:
            raise InputError("KIND", "give either a KIND or --list")
        width = max(map(len, [*KINDS, *ALIASES]))
        lines = [f"{k:<{width}}  {v}" for k, v in KINDS.items()]
        lines += [f"{k:<{width}}  the same schema as {v}" for k, v in ALIASES.items()]
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    if not args.kind:
        raise InputError("KIND", f"missing; one of {', '.join([*KINDS, *ALIASES])} (or --list)")
    sys.stdout.write(schema_text(args.kind))
    return 0
