"""``verify ntk SPEC.json --queries Q.json [--heads H] [--seed S] [--json OUT] [--expect VERDICT]``: is the
attention-NTK V-block Gram positive definite? (claim N7; docs/ntk.md)

SPEC is the ``verify independence`` format (docs/independence.md, Command line):
``{"distributions": [{"family": ...}, ...], "modulo": ...}`` (``modulo`` is optional here: the number of
queries decides it, m = 1 <-> constants, m >= 2 <-> affine; any other key is an error, schema:
``verify schema ntk``).  Q.json is a list of query tokens with exact
numbers, e.g. ``[[1, "1/2"], ["-3/10", 1]]``; every number within the kernel's bit limit (the Result must be
re-checkable).  Prints the verdict (PROVED = certified PD, REFUTED = exact null space: the Gram is not PD,
INCONCLUSIVE), the certificate summary and the float64 comparison (or why float64 could not evaluate the Gram).
The Result written by ``--json`` is re-checked by ``verify check`` (kernel kinds ``ntk-cholesky`` /
``ntk-null-vector``).  Exit status: the table of :mod:`verify.cli.conventions` (0 whatever the verdict unless
``--expect`` asks for another).
"""

from __future__ import annotations

HELP = "certify the attention-NTK V-block Gram PD (interval Cholesky) or singular (exact null vector)"

MAX_LAWS = 400
SPEC_KEYS = ("distributions", "modulo")   # any other key is an error naming the nearest of these
EXIT_NOTES = ("exit status: 0 whenever a verdict is printed: PROVED (the Gram is certified PD), REFUTED (an exact "
              "null space: the Gram is not PD) and INCONCLUSIVE (neither could be certified) are all answers; read "
              "the verdict from the first line of stdout or from --json. With --expect VERDICT: 1 when the verdict "
              "is another. SPEC format: docs/independence.md; the Gram and its readings: docs/ntk.md.")


def add_arguments(p):
    from .conventions import add_expect_argument

    p.add_argument("spec", metavar="SPEC.json", help="the laws, as for 'verify independence' (docs/independence.md)")
    p.add_argument("--queries", metavar="Q.json", help="list of query tokens (exact numbers); required unless "
                   "--reading per-token")
    p.add_argument("--heads", default=None, metavar="H",
                   help="number of sampled Gaussian heads (default 2*ceil(N*m/d) + 8, at most 4096)")
    p.add_argument("--seed", default="0", metavar="S", help="seed of the head sampler (default 0)")
    p.add_argument("--key-dim", default=None, metavar="K", help="key dimension k of Q, K (default d)")
    p.add_argument("--scale", default="auto", metavar="C",
                   help="A = C * K^T Q / k; 'auto' (default) tries 1, 1/4, 1/16, 1/64 until every A q lies in "
                        "the CGF domains")
    p.add_argument("--reading", choices=["shared", "per-token"], default="shared",
                   help="shared queries (default) or each discrete law's own atoms (the negative reading; "
                        "docs/ntk.md, The Gram)")
    p.add_argument("--ladder", default=None, metavar="BITS,...",
                   help="precision ladder in bits (default 200,400,800: >= 60 digits)")
    p.add_argument("--allow-float", action="store_true", help="accept JSON floats (their exact binary value)")
    p.add_argument("--json", metavar="OUT", help="write the Result as canonical JSON ('-': to stdout, the summary "
                   "to stderr)")
    add_expect_argument(p)


def _int_arg(text, field, lo, hi):
    from ..errors import InputError

    try:
        value = int(str(text).strip())
    except ValueError:
        raise InputError(field, f"must be an integer, got {text!r}") from None
    if not lo <= value <= hi:
        raise InputError(field, f"must be in [{lo}, {hi}], got {value}")
    return value


def parse_spec(doc, allow_float: bool = False) -> list:
    """The laws of a SPEC document (errors name the field)."""
    from ..errors import InputError, InputTypeError, SizeLimitError, reject_unknown_keys
    from ..laws import distribution_from_dict

    if not isinstance(doc, dict):
        raise InputTypeError("SPEC", f"expected a JSON object with 'distributions', got {type(doc).__name__}")
    reject_unknown_keys(doc, SPEC_KEYS, "SPEC")   # schema: verify schema ntk
    if "distributions" not in doc:
        raise InputError("SPEC.distributions", "missing")
    laws = doc["distributions"]
    if not isinstance(laws, list) or not laws:
        raise InputError("SPEC.distributions", "must be a non-empty list of laws")
    if len(laws) > MAX_LAWS:
        raise SizeLimitError("SPEC.distributions", f"{len(laws)} laws exceed the limit {MAX_LAWS}")
    modulo = doc.get("modulo", "affine")
    if modulo not in ("affine", "constants"):
        raise InputError("SPEC.modulo", f"must be 'affine' or 'constants', got {modulo!r}")
    out = [distribution_from_dict(d, f"distributions[{i}]", allow_float=allow_float) for i, d in enumerate(laws)]
    dims = {d.dim for d in out}
    if len(dims) != 1:
        raise InputError("SPEC.distributions", f"laws of mixed dimension {sorted(dims)}")
    return out


def parse_queries(doc, dim: int, allow_float: bool = False) -> list:
    from ..arith.exact import parse_exact
    from ..errors import InputError, SizeLimitError
    from ..decide.ntk_gram import MAX_GRAM_SIZE
    from ..kernel.ntk import MAX_BITS   # the kernel re-checks no larger input

    if not isinstance(doc, list) or not doc:
        raise InputError("--queries", "must be a non-empty JSON list of query tokens")
    if len(doc) > MAX_GRAM_SIZE:
        raise SizeLimitError("--queries", f"{len(doc)} queries exceed the limit {MAX_GRAM_SIZE}")
    out = []
    for a, q in enumerate(doc):
        if not isinstance(q, list) or len(q) != dim:
            raise InputError(f"queries[{a}]", f"must be a list of {dim} exact numbers (the laws' dimension)")
        row = [parse_exact(x, f"queries[{a}][{c}]", allow_float=allow_float) for c, x in enumerate(q)]
        for c, x in enumerate(row):
            bits = max(x.numerator.bit_length(), x.denominator.bit_length())
            if bits > MAX_BITS:
                raise SizeLimitError(f"queries[{a}][{c}]", f"numerator or denominator of {bits} bits exceeds the "
                                                           f"limit {MAX_BITS} of the kernel's re-check")
        out.append(row)
    return out


def run(args) -> int:
    from fractions import Fraction

    from ..decide.ntk_gram import MAX_GRAM_SIZE, MAX_GRADIENTS, MAX_HEADS, default_head_count
    from ..arith.exact import parse_exact
    from ..errors import DomainError, InputError, SizeLimitError
    from .common import load_json_file
    from .conventions import check_json_path, expect_code, human_stream, write_json

    check_json_path(args.json)
    seed = _int_arg(args.seed, "--seed", 0, 2**63 - 1)
    key_dim = None if args.key_dim is None else _int_arg(args.key_dim, "--key-dim", 1, 64)
    heads = None if args.heads is None else _int_arg(args.heads, "--heads", 1, MAX_HEADS)
    if args.ladder is None:
        from ..decide.ntk import NTK_LADDER

        ladder = NTK_LADDER
    else:
        ladder = tuple(_int_arg(x, "--ladder", 16, 100_000) for x in str(args.ladder).split(","))
    if args.scale == "auto":
        scales = [Fraction(1), Fraction(1, 4), Fraction(1, 16), Fraction(1, 64)]
    else:
        s = parse_exact(args.scale, "--scale")
        if s <= 0:
            raise InputError("--scale", f"must be > 0, got {args.scale}")
        scales = [s]
    laws = parse_spec(load_json_file(args.spec, "SPEC"), allow_float=args.allow_float)
    dim = laws[0].dim
    if args.reading == "shared":
        if not args.queries:
            raise InputError("--queries", "required with the shared-query reading")
        queries = parse_queries(load_json_file(args.queries, "--queries"), dim, allow_float=args.allow_float)
        n = len(laws) * len(queries)
        m = len(queries)
    else:
        if args.queries:
            raise InputError("--queries", "not used with --reading per-token (queries = each law's atoms)")
        queries = None
        n = sum(len(getattr(d, "atoms", ())) for d in laws)
        m = 1
    if n > MAX_GRAM_SIZE:
        raise SizeLimitError("--queries", f"Gram size N*m = {n} exceeds the limit {MAX_GRAM_SIZE}")
    if heads is None:
        heads = default_head_count(len(laws), max(m, -(-n // len(laws))), dim)
    if n * heads > MAX_GRADIENTS:
        raise SizeLimitError("--heads", f"N*m*H = {n * heads} gradient evaluations exceed the limit {MAX_GRADIENTS}")

    from .. import kernel
    from ..decide.ntk import ntk_positive_definite

    result, last_error = None, None
    for scale in scales:
        try:
            result = ntk_positive_definite(laws, queries, heads=heads, seed=seed, key_dim=key_dim, scale=scale,
                                           reading=args.reading, ladder=ladder)
            break
        except DomainError as exc:
            last_error = exc
        except kernel.Rejected as exc:   # the instance is beyond what the kernel re-checks: an input limit
            raise SizeLimitError("SPEC", f"the kernel cannot re-check this instance: {exc}") from None
    if result is None:
        raise InputError("--scale", f"A q leaves the CGF domain at every scale tried ({last_error.problem})")
    if args.json:   # the file first: a reader that closes stdout early never costs it
        write_json(args.json, result.to_dict())
    out = human_stream(args.json)
    print(result.summary(400), file=out)
    f64 = result.evidence.get("float64", {})
    if f64.get("unavailable"):
        print(f"float64 (evidence): unavailable -- {f64['unavailable']}", file=out)
    elif f64:
        print(f"float64 (evidence): eigvalsh lambda_min/lambda_max = {f64['ratio']:.4e}, naive rule {f64['naive_rule']}, "
              f"matrix_rank {f64['matrix_rank']}/{f64['size']}, Cholesky {f64['cholesky']}"
              + (" -- UNDECIDED (ratio <= 1e-12)" if f64["undecided"] else ""), file=out)
    scope = result.evidence.get("scope", {})
    if args.reading == "per-token":
        print("note: per-token reading (the negative reading, docs/ntk.md): the verdict says nothing about CGF "
              "independence", file=out)
    elif scope and not scope.get("inside_lse_9_3_setting", True):
        print(f"note: outside the setting of the NTK theorem ({scope.get('why_outside')}; docs/ntk.md): PD still "
              "proves independence and an exact null vector still holds for every head law, but independence need "
              "not imply PD", file=out)
    return expect_code(result.verdict, args.expect)
