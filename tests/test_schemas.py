"""The shipped JSON Schemas (verify/schemas/*.json, ``verify schema``) agree with the readers; unknown keys are
errors naming the nearest known key; JSON integer literals over 4300 digits are bad input (exit 2) naming their
place in every command that reads JSON."""

import ast
import copy
import json
import pathlib
import re
from fractions import Fraction

import pytest

from verify.cli import main
from verify.cli import independence_cmd, ntk_cmd
from verify.cli.common import MAX_JSON_INT_DIGITS, parse_json_text
from verify.cli.schema_cmd import ALIASES, KINDS, load_schema, schema_text
from verify.errors import InputError, InputTypeError
from verify.laws import Discrete, Distribution, distribution_from_dict
from verify.objects.maxout import MaxoutNetwork, parse_box
from verify.results import Result

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "verify" / "schemas"


# -- a validator for the subset of draft 2020-12 the shipped schemas use (jsonschema is optional) -----------
_TYPES = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
          "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
          "null": lambda v: v is None,
          "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}
_KNOWN = {"$schema", "$defs", "$ref", "title", "description", "type", "enum", "const", "properties", "required",
          "additionalProperties", "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
          "anyOf", "oneOf", "allOf", "if", "then"}


def subset_errors(v, s, root, path="$"):
    """Errors of instance ``v`` against schema ``s`` (keywords of :data:`_KNOWN` only)."""
    unknown = set(s) - _KNOWN
    assert not unknown, f"schema keyword(s) {unknown} not covered by the test's validator"
    if "$ref" in s:
        target = root
        for part in s["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return subset_errors(v, target, root, path)
    errs = []
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_TYPES[t](v) for t in types):
            return [f"{path}: not of type {types}"]
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{path}: not in {s['enum']}")
    if "const" in s and v != s["const"]:
        errs.append(f"{path}: not {s['const']!r}")
    if isinstance(v, str):
        if "pattern" in s and not re.search(s["pattern"], v):
            errs.append(f"{path}: does not match {s['pattern']}")
        if len(v) < s.get("minLength", 0):
            errs.append(f"{path}: too short")
        if len(v) > s.get("maxLength", len(v)):
            errs.append(f"{path}: too long")
    if _TYPES["number"](v):
        if "minimum" in s and v < s["minimum"] or "maximum" in s and v > s["maximum"]:
            errs.append(f"{path}: out of range")
    if isinstance(v, dict):
        props = s.get("properties", {})
        errs += [f"{path}: missing {k!r}" for k in s.get("required", []) if k not in v]
        for k, x in v.items():
            if k in props:
                errs += subset_errors(x, props[k], root, f"{path}.{k}")
            elif s.get("additionalProperties") is False:
                errs.append(f"{path}: unknown key {k!r}")
            elif isinstance(s.get("additionalProperties"), dict):
                errs += subset_errors(x, s["additionalProperties"], root, f"{path}.{k}")
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0) or len(v) > s.get("maxItems", len(v)):
            errs.append(f"{path}: {len(v)} items")
        if "items" in s:
            for i, x in enumerate(v):
                errs += subset_errors(x, s["items"], root, f"{path}[{i}]")
    for key, need in (("anyOf", lambda n: n >= 1), ("oneOf", lambda n: n == 1)):
        if key in s:
            ok = sum(not subset_errors(v, sub, root, path) for sub in s[key])
            if not need(ok):
                errs.append(f"{path}: {ok} alternatives of {key} match")
    for sub in s.get("allOf", []):
        errs += subset_errors(v, sub, root, path)
    if "if" in s and not subset_errors(v, s["if"], root, path):
        errs += subset_errors(v, s.get("then", {}), root, path)
    return errs


def _jsonschema_validator(kind):
    jsonschema = pytest.importorskip("jsonschema")
    schema = load_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


# -- the documents: from the docs, the tests' fixtures, the examples and the package's own writers -----------
def _doc_specs():
    """The SPEC examples printed in the commands' help and in docs/independence.md."""
    from verify.cli import maxout_cmd

    text = maxout_cmd.__doc__
    block = text[text.index("{\"layers\""):text.index("W[i][j]")].replace("(optional)", "")
    maxout = [json.loads(block)]
    text = independence_cmd.__doc__
    indep = [json.loads(text[text.index("{\"modulo\""):text.index("Optional keys")])]
    md = (ROOT / "docs" / "independence.md").read_text()
    indep.append(json.loads(re.search(r"SPEC: `(\{.*?\})`", md, re.S).group(1)))
    md = (ROOT / "docs" / "ntk.md").read_text()
    queries = [json.loads(re.search(r"list of query tokens with exact numbers \(`(\[.*?\])`\)", md, re.S).group(1))]
    return maxout, indep, queries


def _example_objects():
    """Networks, laws and query lists the scripts in examples/ build (only their imports, definitions and
    assignments that call no check or decision are run; a one-argument function is called with 2)."""
    nets, law_lists, queries = [], [], []
    for path in sorted((ROOT / "examples").glob("*.py")):
        tree = ast.parse(path.read_text())
        # the checks and decisions the scripts run are not needed here: leave out the assignments calling them
        heavy = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
                 and (n.module or "").startswith(("verify.checks", "verify.decide")) for a in n.names}
        keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))
                or isinstance(n, ast.Assign) and not any(isinstance(x, ast.Name) and x.id in heavy
                                                         for x in ast.walk(n))]
        ns = {}
        exec(compile(ast.Module(keep, []), str(path), "exec"), ns)
        for name, v in ns.items():
            if callable(v) and getattr(v, "__module__", None) is None and not isinstance(v, type):
                try:
                    v = v(2)
                except TypeError:
                    continue
            if isinstance(v, MaxoutNetwork):
                nets.append(v)
            elif isinstance(v, list) and v and all(isinstance(c, tuple) and isinstance(c[-1], list) for c in v):
                law_lists += [c[-1] for c in v if all(isinstance(x, Distribution) for x in c[-1])]
            elif isinstance(v, Distribution):
                law_lists.append([v])
            elif name == "queries":
                queries.append(v)
    return nets, law_lists, queries


def _fixtures():
    from test_bad_input import DIST_OK, NET_OK
    from test_cli_maxout import O2
    from test_ntk_cli import SPEC as NTK_SPEC
    from test_regions_cli import D2

    return [NET_OK, O2, D2], [DIST_OK, NTK_SPEC]


def _json(x):
    return json.loads(json.dumps(x))


@pytest.fixture(scope="module")
def corpus():
    from verify.constructions.reference_networks import abs_network, o2_network, random_maxout
    from verify.laws.oracle_families import __dict__ as oracle

    doc_nets, doc_laws, doc_queries = _doc_specs()
    ex_nets, ex_laws, ex_queries = _example_objects()
    fx_nets, fx_laws = _fixtures()
    assert ex_nets and ex_laws and ex_queries, "the examples no longer build networks, laws and queries"
    nets = [n for n in [abs_network(), o2_network(), random_maxout(3, 2, 3, 2, 3)] + ex_nets]
    maxout = doc_nets + fx_nets + [dict(n.to_dict(), box=[["0", "1"]] * n.input_dim) for n in nets]
    maxout.append(dict(o2_network().to_dict(), box=[[0, 1]], readout=None))
    laws = [law for ls in ex_laws for law in ls]
    laws += [v for v in oracle.values() if isinstance(v, Distribution)]
    laws += [distribution_from_dict({"family": "uniform_cube", "radius": 1, "dim": 3}),
             distribution_from_dict({"family": "discrete", "atoms": [0, "1/2", 1], "weights": None})]
    indep = doc_laws + fx_laws + [{"distributions": [law.to_dict()]} for law in laws]
    indep.append({"distributions": [Discrete([[0], [1]]).to_dict()], "modulo": "constants", "points": [["1/3"]],
                  "ladder": [64, 128], "seed": 7, "box": "1/2", "claim": "N3"})
    ntk_specs = [{k: v for k, v in d.items() if k in ("distributions", "modulo")} for d in indep]
    queries = doc_queries + ex_queries + [[[1, "1/2"], ["-3/10", 1]], [["1e-3"]]]
    return {"maxout": [_json(d) for d in maxout], "independence": [_json(d) for d in indep],
            "ntk": [_json(d) for d in ntk_specs + queries]}


@pytest.fixture(scope="module")
def results():
    """Result and audit documents written by the package's own writers (fast checks only)."""
    from verify.audit.runner import AuditOutcome, audit_report_dict
    from verify.checks.t10_linear_regions import check_region_count
    from verify.constructions.reference_networks import o2_network
    from verify.decide.independence import independent_mod_affine
    from verify.laws import Gaussian
    from verify.results import Method, Verdict

    from verify.checks.t6_maxout_emulation import check_maxout_emulation

    rs = [check_region_count(o2_network(), [[0, 1]]),
          independent_mod_affine([Gaussian([[1]]), Gaussian([[4]], [1])]),
          Result("N8", "an evidence-only statement", Verdict.INCONCLUSIVE, Method.EVIDENCE,
                 evidence={"summary": "numbers", "x": Fraction(1, 3)}),
          check_maxout_emulation("O2")]
    outcomes = [AuditOutcome("T10/o2", "T10", rs[0].verdict, rs[0], None, 0.5),
                AuditOutcome("N3/g", "N3", Verdict.PROVED, None, "ValueError: boom", 0.1)]
    return [_json(r.to_dict()) for r in rs], [_json(audit_report_dict(outcomes))]


# -- the readers (what the commands do after parsing) ----------------------------------------------------------
def read_maxout(doc):
    net = MaxoutNetwork.from_dict(doc)
    parse_box(doc, dim=net.input_dim)


def read_independence(doc):
    independence_cmd.parse_spec(doc)


def read_ntk(doc):
    if isinstance(doc, list):
        ntk_cmd.parse_queries(doc, len(doc[0]) if doc and isinstance(doc[0], list) else 1)
    else:
        ntk_cmd.parse_spec(doc)


READERS = {"maxout": read_maxout, "independence": read_independence, "ntk": read_ntk}

NET = {"layers": [{"W": [[["2"], ["-1"]], [["-3"], ["1"]]], "b": [["-1/2", "1/3"], ["1", "-2"]]}],
       "readout": {"W": [["1", "1"]], "b": ["0"]}, "box": [["0", "1"]]}
LAWS = {"distributions": [{"family": "discrete", "atoms": [[0], [1]], "weights": ["1/2", "1/2"]},
                          {"family": "gaussian", "cov": [[1]], "mean": [0]}]}


def _rename(doc, path, new):
    d = copy.deepcopy(doc)
    *head, last = path
    target = d
    for p in head:
        target = target[p]
    target[new] = target.pop(last)
    return d


def _set(doc, path, value):
    d = copy.deepcopy(doc)
    *head, last = path
    target = d
    for p in head:
        target = target[p]
    target[last] = value
    return d


# invalid documents: (kind, document, the field the reader names, the nearest known key it suggests or None)
TYPOS = [
    ("maxout", _rename(NET, ["readout"], "read_out"), "SPEC.read_out", "readout"),
    ("maxout", _set(NET, ["layers", 0, "bias"], [["0", "0"], ["0", "0"]]), "layers[0].bias", "b"),
    ("maxout", _rename(NET, ["layers", 0, "b"], "bias"), "layers[0].bias", "b"),
    ("maxout", _rename(NET, ["layers", 0, "W"], "w"), "layers[0].w", "W"),
    ("maxout", _rename(NET, ["readout", "b"], "bias"), "readout.bias", "b"),
    ("maxout", _rename(NET, ["box"], "Box"), "SPEC.Box", "box"),
    ("maxout", _set(NET, ["comment"], "x"), "SPEC.comment", None),
    ("independence", _rename(LAWS, ["distributions"], "distribution"), "SPEC.distribution", "distributions"),
    ("independence", _set(LAWS, ["modulus"], "affine"), "SPEC.modulus", "modulo"),
    ("independence", _rename(LAWS, ["distributions", 1, "mean"], "maen"), "distributions[1].maen", "mean"),
    ("independence", _rename(LAWS, ["distributions", 0, "weights"], "weight"), "distributions[0].weight",
     "weights"),
    ("independence", _set(LAWS, ["distributions", 0, "family"], ["discrete"]), "distributions[0].family", None),
    ("independence", _set(LAWS, ["distributions", 0, "family"], "Discrete"), "distributions[0].family",
     "discrete"),
    ("ntk", _set(LAWS, ["seed"], 3), "SPEC.seed", None),
    ("ntk", _rename(LAWS, ["distributions", 1, "cov"], "covariance"), "distributions[1].covariance", "cov"),
]
# invalid documents the schema and the reader both refuse (no particular message)
INVALID = [
    ("maxout", {"layers": NET["layers"]}),
    ("maxout", _set(NET, ["layers"], [])),
    ("maxout", _set(NET, ["box"], [["0", "1", "2"]])),
    ("maxout", _set(NET, ["layers", 0, "W", 0, 0, 0], "two")),
    ("maxout", _set(NET, ["layers", 0, "W", 0, 0, 0], True)),
    ("maxout", _set(NET, ["readout"], [["1", "1"], ["0"]])),
    ("independence", {"modulo": "affine"}),
    ("independence", _set(LAWS, ["modulo"], "quadratic")),
    ("independence", _set(LAWS, ["seed"], -1)),
    ("independence", _set(LAWS, ["ladder"], [])),
    ("independence", _set(LAWS, ["distributions", 0, "atoms"], [])),
    ("independence", _set(LAWS, ["distributions", 1, "cov"], "1")),
    ("independence", _set(LAWS, ["distributions", 0, "family"], "poisson")),
    ("ntk", []),
    ("ntk", [["x"]]),
    ("ntk", {"modulo": "affine"}),
]


@pytest.mark.parametrize("kind", [*KINDS, *ALIASES])
def test_every_kind_loads_and_is_printed_sorted(kind, capsys):
    schema = load_schema(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert main(["schema", kind]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == schema and out == schema_text(kind)
    assert out == json.dumps(json.loads(out), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_shipped_files_are_the_kinds():
    assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(KINDS)
    for p in SCHEMAS.glob("*.json"):
        json.loads(p.read_text())


def test_schema_list_and_unknown_kind(capsys):
    assert main(["schema", "--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == [*KINDS, *ALIASES]
    assert main(["schema", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nope'" in err and all(k in err for k in KINDS)
    assert main(["schema"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_shared_definitions_agree_and_limits_are_the_modules():
    from verify.decide.independence import MAX_LAWS
    from verify.decide.ntk_gram import MAX_GRAM_SIZE
    from verify.laws.models import MAX_ATOMS, MAX_DIM
    from verify.objects import maxout as M

    ind, ntk, audit, result = (load_schema(k) for k in ("independence", "ntk", "audit", "result"))
    for name in ("exactNumber", "vector", "matrix", "law", "discrete", "uniform_cube", "laplace",
                 "gaussian_mixture", "gaussian"):
        assert ind["$defs"][name] == ntk["$defs"][name], name
    body = {k: v for k, v in result.items() if k not in ("$schema", "title", "description")}
    assert audit["$defs"]["result"] == body
    from verify import kernel

    assert set(result["properties"]) == set(kernel._TOP) and result["additionalProperties"] is False
    mx = load_schema("maxout")
    assert mx["properties"]["layers"]["maxItems"] == M.MAX_DEPTH
    assert mx["$defs"]["layer"]["properties"]["W"]["maxItems"] == M.MAX_WIDTH
    assert mx["$defs"]["layer"]["properties"]["W"]["items"]["maxItems"] == M.MAX_RANK
    assert mx["$defs"]["box"]["maxItems"] == M.MAX_BOX_DIM
    assert mx["$defs"]["affine_readout"]["properties"]["W"]["maxItems"] == M.MAX_OUTPUT_DIM
    assert set(mx["properties"]) == set(M.SPEC_KEYS) and set(mx["$defs"]["layer"]["properties"]) == set(M.AFFINE_KEYS)
    assert ind["properties"]["distributions"]["maxItems"] == MAX_LAWS
    assert set(ind["properties"]) == independence_cmd._KEYS
    assert ntk["$defs"]["spec"]["properties"]["distributions"]["maxItems"] == ntk_cmd.MAX_LAWS
    assert set(ntk["$defs"]["spec"]["properties"]) == set(ntk_cmd.SPEC_KEYS)
    assert ntk["$defs"]["queries"]["maxItems"] == MAX_GRAM_SIZE
    assert ind["$defs"]["discrete"]["properties"]["atoms"]["maxItems"] == MAX_ATOMS
    assert ind["$defs"]["vector"]["maxItems"] == MAX_DIM
    from verify.laws.spec import _KEYS as FAMILY_KEYS

    for fam, (req, opt) in FAMILY_KEYS.items():
        d = ind["$defs"][fam]
        assert set(d["properties"]) == req | opt | {"family"} and set(d["required"]) == req | {"family"}, fam


def _agreement(corpus, results, errors_of):
    """Every valid document passes both the reader and the schema; every invalid one fails both."""
    for kind, docs in corpus.items():
        for doc in docs:
            READERS[kind](doc)
            assert not errors_of(kind, doc), (kind, doc, errors_of(kind, doc))
    result_docs, audit_docs = results
    for doc in result_docs:
        Result.from_dict(doc)
        assert not errors_of("result", doc), errors_of("result", doc)
    for doc in audit_docs:
        assert not errors_of("audit", doc), errors_of("audit", doc)
    for kind, doc, *_ in TYPOS + INVALID:
        with pytest.raises((InputError, InputTypeError)):
            READERS[kind](doc)
        assert errors_of(kind, doc), (kind, doc)
    bad_results = [_set(result_docs[0], ["verdict"], "yes"), _set(result_docs[2], ["verdict"], "proved"),
                   {k: v for k, v in result_docs[0].items() if k != "claim"},
                   _set(result_docs[0], ["certificate"], {"summary": "trust me"}),
                   _set(result_docs[0], ["lable"], "mine"), _set(result_docs[0], ["label"], ""),
                   _set(result_docs[0], ["label"], "x" * 81)]
    for doc in bad_results:
        assert errors_of("result", doc), doc
    assert not errors_of("result", _set(result_docs[0], ["label"], "Lemma 4.2")), "a user label is allowed"
    assert errors_of("audit", _set(audit_docs[0], ["audits", 0, "actual"], "maybe"))
    assert errors_of("audit", _set(audit_docs[0], ["audits", 0, "result"], bad_results[1]))


def test_schemas_agree_with_the_readers(corpus, results):
    # the shipped schemas checked with the test's own validator of the draft 2020-12 keywords they use
    def errors_of(kind, doc):
        schema = load_schema(kind)
        return subset_errors(doc, schema, schema)

    _agreement(corpus, results, errors_of)


def test_schemas_agree_with_the_readers_jsonschema(corpus, results):
    validators = {kind: _jsonschema_validator(kind) for kind in KINDS}
    _agreement(corpus, results, lambda kind, doc: list(validators[kind].iter_errors(doc)))


# -- unknown keys: the Python API and the CLI ------------------------------------------------------------------
@pytest.mark.parametrize("kind, doc, field, near", TYPOS, ids=[t[2] for t in TYPOS])
def test_typos_name_the_key_and_the_nearest_known_one(kind, doc, field, near):
    with pytest.raises((InputError, InputTypeError)) as exc:
        READERS[kind](doc)
    assert exc.value.field == field
    if near is not None:
        assert f"did you mean {near!r}?" in exc.value.problem


def test_python_api_refuses_the_typos():
    with pytest.raises(InputError, match=r"^SPEC\.read_out: unknown key; did you mean 'readout'\?"):
        MaxoutNetwork.from_dict(_rename(NET, ["readout"], "read_out"))
    with pytest.raises(InputError, match=r"^layers\[0\]\.bias: unknown key; did you mean 'b'\?"):
        MaxoutNetwork.from_dict(_set(NET, ["layers", 0, "bias"], [["0", "0"], ["0", "0"]]))
    with pytest.raises(InputError, match=r"^distribution\.maen: unknown key; did you mean 'mean'\?"):
        distribution_from_dict({"family": "gaussian", "cov": [[1]], "maen": [0]})


def _write(tmp_path, name, doc):
    f = tmp_path / name
    f.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(f)


@pytest.mark.parametrize("command", ["maxout", "regions"])
@pytest.mark.parametrize("doc, needle", [
    (_rename(NET, ["readout"], "read_out"), "SPEC.read_out: unknown key; did you mean 'readout'?"),
    (_set(NET, ["layers", 0, "bias"], [["0", "0"], ["0", "0"]]), "layers[0].bias: unknown key; did you mean 'b'?"),
])
def test_cli_typos_exit_2_with_one_line(tmp_path, capsys, command, doc, needle):
    assert main([command, _write(tmp_path, "spec.json", doc)]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and needle in err and "PROVED" not in out


def test_cli_typos_independence_and_ntk(tmp_path, capsys):
    q = _write(tmp_path, "q.json", [[1]])
    assert main(["independence", _write(tmp_path, "s.json", _set(LAWS, ["modulus"], "affine"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SPEC.modulus: unknown key; did you mean 'modulo'?" in err
    assert main(["ntk", _write(tmp_path, "s.json", _set(LAWS, ["seed"], 3)), "--queries", q]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SPEC.seed: unknown key" in err
    fam = _set(LAWS, ["distributions", 0, "family"], ["discrete"])
    for argv in (["independence", _write(tmp_path, "f.json", fam)], ["ntk", str(tmp_path / "f.json"), "--queries", q]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "distributions[0].family: expected a string" in err


# -- JSON integer literals over Python's 4300-digit limit; repeated keys -----------------------------------------
BIG = "7" * (MAX_JSON_INT_DIGITS + 1)


def test_digit_limit_is_pythons_and_the_limit_itself_is_read():
    assert MAX_JSON_INT_DIGITS == 4300
    n = parse_json_text("[" + "7" * 4300 + ", -" + "7" * 4300 + "]")
    assert n[0] == int("7" * 4300) and n[1] == -n[0]
    with pytest.raises(InputError, match=r"^json\[1\]\.a: integer literal of 4301 digits exceeds the JSON limit"):
        parse_json_text('[0, {"a": -' + BIG + "}]")
    with pytest.raises(InputError, match=r"^json\.x: key 'y' occurs twice"):
        parse_json_text('{"x": {"y": 1, "y": 2}}')


def _big(doc, path):
    """``doc`` as JSON text with the number at ``path`` replaced by a 4301-digit integer literal."""
    return json.dumps(_set(doc, path, "@BIG@")).replace('"@BIG@"', BIG)


def test_huge_integer_literal_exits_2_in_every_command(tmp_path, capsys):
    spec = _write(tmp_path, "net.json", _big(NET, ["layers", 0, "W", 1, 0, 0]))
    laws = _write(tmp_path, "laws.json", _big(LAWS, ["distributions", 0, "atoms", 1, 0]))
    ok_laws = _write(tmp_path, "ok.json", LAWS)
    queries = _write(tmp_path, "q.json", "[[" + BIG + "]]")
    cert = _write(tmp_path, "cert.json", _big({"claim": "T10", "statement": "s", "verdict": "proved",
                                               "method": "exact", "certificate": {"kind": "regions-count", "n": 0}},
                                              ["certificate", "n"]))
    cases = [(["maxout", spec], "SPEC.layers[0].W[1][0][0]"), (["regions", spec], "SPEC.layers[0].W[1][0][0]"),
             (["independence", laws], "SPEC.distributions[0].atoms[1][0]"),
             (["ntk", laws, "--queries", queries], "SPEC.distributions[0].atoms[1][0]"),
             (["ntk", ok_laws, "--queries", queries], "--queries[0][0]"),
             (["check", cert], "CERT.certificate.n")]
    for argv, field in cases:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and err.startswith(f"error: {field}: integer literal of 4301 digits"), (argv, err)
        assert "internal error" not in err and "as a string" in err


def test_repeated_key_exits_2(tmp_path, capsys):
    text = json.dumps(NET)[:-1] + ', "box": [["0", "2"]]}'
    assert main(["maxout", _write(tmp_path, "dup.json", text)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SPEC: key 'box' occurs twice" in err


def test_ntk_queries_beyond_the_kernels_bit_size_exit_2(tmp_path, capsys):
    laws = _write(tmp_path, "laws.json", {"distributions": [{"family": "discrete", "atoms": [[0], [1]]}]})
    for q in ("[[" + "7" * 4300 + "]]", '[["1e400"]]', '[["1/' + "3" * 200 + '"]]'):
        assert main(["ntk", laws, "--queries", _write(tmp_path, "q.json", q)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: queries[0][0]: numerator or denominator of ")
        assert "bits exceeds the limit 512 of the kernel's re-check" in err
