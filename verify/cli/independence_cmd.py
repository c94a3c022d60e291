"""``verify independence SPEC.json [--json OUT] [--expect VERDICT]``: decide linear independence of CGFs modulo
affine functions (claims N3-N6; docs/independence.md).

SPEC (the laws in the format of ``Distribution.to_dict``; docs/independence.md, Command line)::

    {"modulo": "affine",
     "distributions": [{"family": "discrete", "atoms": [[0,0],[1,0],[0,2]], "weights": ["1/3","1/3","1/3"]},
                       {"family": "uniform_cube", "radius": "1/2", "center": [0,0]},
                       {"family": "laplace", "cov": [[1,0],[0,2]]},
                       {"family": "gaussian_mixture", "separation": "1", "direction": [1,0], "cov": [[1,0],[0,1]]},
                       {"family": "gaussian", "cov": [[1,0],[0,1]], "mean": [0,0]}]}

Optional keys: ``"points"`` (exact rational points for the design certificate), ``"ladder"`` (precisions in
bits), ``"seed"``, ``"box"``.  Exact numbers as integers or strings ("1/3", "0.25"); JSON floats are refused
unless ``--allow-float`` (then a float is taken as its exact binary value).  Prints the verdict and the
certificate summary; exit 0 whatever the verdict unless ``--expect`` asks for another (then 1), 2 on bad input
(one line on stderr): the table of :mod:`verify.cli.conventions`.
"""

from __future__ import annotations

HELP = "decide whether the CGFs of the laws in SPEC.json are linearly independent modulo affine functions"

EXIT_NOTES = ("exit status: 0 whenever a verdict is printed: PROVED (independent), REFUTED (an exact relation: "
              "dependent) and INCONCLUSIVE are all answers. With --expect VERDICT: 1 when the verdict is another. "
              "SPEC format: docs/independence.md, Command line.")

_KEYS = {"modulo", "distributions", "points", "ladder", "seed", "box", "claim"}


def add_arguments(p):
    p.add_argument("spec", metavar="SPEC.json", help="the laws (SPEC format of docs/independence.md); '-' reads stdin")
    p.add_argument("--json", metavar="OUT", help="write the Result as canonical JSON ('-': to stdout, the summary "
                   "to stderr)")
    p.add_argument("--modulo", choices=("affine", "constants"), help="override the SPEC's modulo")
    p.add_argument("--allow-float", action="store_true", help="accept JSON floats (their exact binary values)")
    from .conventions import add_expect_argument

    add_expect_argument(p)


def parse_spec(spec, allow_float: bool = False) -> dict:
    """Validate a SPEC object; returns keyword arguments for ``independent_mod_affine``."""
    from ..decide.independence import parse_laws
    from ..arith.exact import parse_exact, parse_vector
    from ..errors import InputError, InputTypeError, reject_unknown_keys

    if not isinstance(spec, dict):
        raise InputTypeError("SPEC", f"expected a JSON object, got {type(spec).__name__}")
    reject_unknown_keys(spec, _KEYS, "SPEC")   # names the nearest known key (schema: verify schema independence)
    if "distributions" not in spec:
        raise InputError("SPEC.distributions", "missing (a list of laws)")
    kwargs = {"dists": parse_laws(spec["distributions"], "distributions", allow_float=allow_float)}
    modulo = spec.get("modulo", "affine")
    if modulo not in ("affine", "constants"):
        raise InputError("SPEC.modulo", f"must be 'affine' or 'constants', got {modulo!r}")
    kwargs["modulo"] = modulo
    if "points" in spec:
        pts = spec["points"]
        if not isinstance(pts, list):
            raise InputTypeError("SPEC.points", "expected a list of points")
        d = kwargs["dists"][0].dim
        kwargs["points"] = [parse_vector(t, f"SPEC.points[{k}]", dim=d, allow_float=allow_float)
                            for k, t in enumerate(pts)]
    if "ladder" in spec:
        lad = spec["ladder"]
        if not isinstance(lad, list) or not lad or any(isinstance(x, bool) or not isinstance(x, int) for x in lad):
            raise InputError("SPEC.ladder", "must be a non-empty list of integers (bits)")
        kwargs["ladder"] = tuple(lad)
    if "seed" in spec:
        s = spec["seed"]
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise InputError("SPEC.seed", f"must be a non-negative integer, got {s!r}")
        kwargs["seed"] = s
    if "box" in spec:
        kwargs["box"] = parse_exact(spec["box"], "SPEC.box", allow_float=allow_float)
    if "claim" in spec:
        from ..results import CLAIM_ID_PATTERN

        if not isinstance(spec["claim"], str) or not CLAIM_ID_PATTERN.match(spec["claim"]):
            raise InputError("SPEC.claim", f"must be a catalogue ID such as 'N3', got {spec['claim']!r}")
        kwargs["claim"] = spec["claim"]
    return kwargs


def run(args) -> int:
    from ..decide.independence import independent_mod_affine
    from .common import load_json_file
    from .conventions import check_json_path, expect_code, human_stream, plural, write_json

    check_json_path(args.json)
    spec = load_json_file(args.spec)
    kwargs = parse_spec(spec, allow_float=args.allow_float)
    if args.modulo:
        kwargs["modulo"] = args.modulo
    result = independent_mod_affine(**kwargs)
    if args.json:   # the file first: a reader that closes stdout early never costs it
        write_json(args.json, result.to_dict())
    out = human_stream(args.json)
    verdict = {"proved": "INDEPENDENT (proved)", "refuted": "DEPENDENT (refuted)",
               "inconclusive": "INCONCLUSIVE"}[result.verdict.value]
    print(f"{verdict} [{result.method.value}] modulo {kwargs['modulo']}, {plural(len(kwargs['dists']), 'law')} "
          f"in dimension {kwargs['dists'][0].dim}", file=out)
    print(result.certificate.get("summary", ""), file=out)
    return expect_code(result.verdict, args.expect)
