"""``verify maxout FILE [--slice I,J] [--fix I=V,...] [--box LO:HI,...] [--units original|normalised]
[--time-budget SECONDS] [--max-cells N] [--json OUT] [--tie average|first|both] [--S S] [--expect VERDICT]``: compile
a maxout network into a hardmax Transformer (construction R4, docs/paper1.md) and prove that it equals the
network on the whole box (claim T6; docs/regions.md).

FILE is a SPEC (exact numbers as strings; docs/paper1-objects.md, Command line)::

    {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]},
                {"W": [[["1", "-2"], ["-1", "1"]]], "b": [["0", "1/2"]]}],
     "readout": {"W": [["1"]], "b": ["0"]},            (optional)
     "box": [["0", "1"]]}

W[i][j] is the weight vector of piece j of unit i.  FILE may also be a trained network, ``.nnet``, ``.onnx`` or
``.npz`` (dispatched on the suffix; docs/regions.md, Real networks), and ``--slice`` / ``--fix`` keep some
inputs free and fix the others exactly (a 2-D slice of a 5-input network has an exact whole-box proof).
Prints the sizes (tokens, embedding, heads, sublayers, parameters vs the network's) and the verdict.  Exit 0
whatever the verdict (``--expect proved`` makes any other verdict exit 1), 2 on bad input: the table of
:mod:`verify.cli.conventions`.
Budgets, not caps: no depth, rank or width is refused beyond the network's own limits
(docs/paper1-objects.md); ``--time-budget`` and ``--max-cells`` (default 50,000 cells, at most 2,000,000) end a
long run in INCONCLUSIVE with the partial coverage (cells finished, fraction of the box), never a hang; the budget
counts the compile (its clock starts after FILE is read).  Exact proof for d <= 6 free inputs (d >= 3 by exact
polyhedral cells, docs/regions.md "Polyhedral cells in any dimension"; docs/conventions.md, Budgets and guards).
"""

from __future__ import annotations

HELP = "compile a maxout network to a hardmax Transformer and prove equality on the whole box (T6)"

EXIT_NOTES = ("exit status: 0 whenever a verdict is printed: PROVED (equal on the whole box), REFUTED (an exact "
              "witness where they differ) and INCONCLUSIVE (a budget ran out: the part proved; d > 6 free inputs: "
              "sampled evidence only) are all answers. With "
              "--expect VERDICT: 1 when the verdict is another (--expect proved is the former behaviour). SPEC "
              "format: docs/paper1-objects.md, Command line; the construction R4: docs/paper1.md.")

# the --max-cells default and bound (those of prove_emulation and the tracer; a test keeps them equal)
DEFAULT_CELLS = 50_000
MAX_CELLS = 2_000_000


def add_arguments(p):
    from .common import add_network_spec_arguments

    add_network_spec_arguments(p, f"(default {DEFAULT_CELLS}, at most {MAX_CELLS}): final cells of the "
                                  "decomposition before INCONCLUSIVE with the partial coverage")
    p.add_argument("--tie", choices=["average", "first", "both"], default="both",
                   help="hardmax tie rule(s) to prove (default both)")
    p.add_argument("--S", dest="S", default=None, metavar="S",
                   help="gate constant (exact number); default: the bound certified by exact interval propagation")
    p.add_argument("--json", metavar="OUT", help="write the Result (verdict, sizes, certificate) as canonical JSON "
                   "('-': to stdout, the other lines to stderr)")
    from .conventions import add_expect_argument

    add_expect_argument(p)


def format_sizes(compiled) -> list:
    """The lines printed for the sizes of a compiled network."""
    from ..arith.exact import fraction_str

    s = compiled.sizes()
    net = compiled.source
    box = ", ".join(f"[{fraction_str(lo)}, {fraction_str(hi)}]" for lo, hi in compiled.box)
    return [
        f"network: d = {net.input_dim}, widths {list(net.widths)}, rank k = {net.rank}, depth L = {net.depth}, "
        f"{net.parameter_count()} parameters{', affine read-out' if net.readout else ''}; box {box}",
        f"Transformer (R4, ours): tokens n = {s['tokens']}, embedding E = {s['embedding']}, sublayers D = "
        f"{s['sublayers']}, heads per layer {s['heads_per_layer']} (size 1), FFN widths {s['ffn_widths']}",
        f"non-zeros: W1 {s['W1_nonzeros']}, W2 {s['W2_nonzeros']}, attention {s['attention_nonzeros']}; total "
        f"{s['transformer_nonzeros']} (all entries {s['transformer_parameters']}) vs the network's "
        f"{s['network_parameters']} (ratio {float(s['nonzero_ratio']):.3g})",
        f"gate constant S = {fraction_str(compiled.S)} (certified bound on |pieces| over the box: "
        f"{fraction_str(compiled.S_bound_certified)})",
    ]


def run(args) -> int:
    import dataclasses

    import time

    from ..decide.emulation import compile_budget_result, prove_emulation
    from ..constructions.maxout_compiler import compile_maxout
    from ..errors import BudgetExhausted
    from ..arith.exact import parse_positive
    from .conventions import CellProgress
    from .common import parse_budgets, read_network_input
    from .conventions import check_json_path, expect_code, human_stream, write_json

    check_json_path(args.json)
    S = None if args.S is None else parse_positive(args.S, "--S")
    budget, max_cells = parse_budgets(args, DEFAULT_CELLS, MAX_CELLS)
    inp = read_network_input(args)
    net, box = inp.net, inp.box
    t0 = time.monotonic()           # --time-budget counts the compile too
    try:
        compiled = compile_maxout(net, box, S=S, deadline=None if budget is None else t0 + budget)
    except BudgetExhausted as exc:
        result = compile_budget_result(net, box, args.tie, "T6", exc.problem)
        if args.json:
            write_json(args.json, result.to_dict())
        print(result.summary(400), file=human_stream(args.json))
        return expect_code(result.verdict, args.expect)
    if budget is not None:          # what is left of it (a positive number: the decomposition then stops at once)
        budget = max(budget - (time.monotonic() - t0), 0.001)
    progress = CellProgress("verify maxout", quiet=args.quiet)
    try:
        result = prove_emulation(compiled, box, tie=args.tie, claim="T6", formula="R4", max_cells=max_cells,
                                 time_budget=budget, progress=progress)
    finally:
        progress.close()
    digest = result.evidence.get("transformer_sha256")
    result = dataclasses.replace(result, evidence={**result.evidence, "sizes": compiled.sizes(), "S": compiled.S,
                                                   "S_bound_certified": compiled.S_bound_certified})
    if args.json:   # the file first: a reader that closes stdout early never costs it
        write_json(args.json, result.to_dict())
    out = human_stream(args.json)
    if inp.slice_note:
        print(f"{inp.source}; {inp.slice_note}", file=out)
    for line in format_sizes(compiled):
        print(line, file=out)
    if digest:
        # the digest the statement shows: compare it with the sha256 of your own compile's recorded weights
        print(f"Transformer sha256:{digest} (canonical JSON of the recorded weights, embedding and read-out)", file=out)
    print(result.summary(400), file=out)      # the certificate's summary, else the evidence's (once)
    return expect_code(result.verdict, args.expect)
