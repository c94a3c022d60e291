"""The case-split kernel (verify/kernel/casesplit.py): genuine Results accepted, forgeries and tampering rejected,
hostile certificates rejected fast.  Flat tests with exact expectations."""

import copy
import functools
import json
import re
import time
from fractions import Fraction as F

import pytest

from verify import kernel
from verify.kernel import Rejected, casesplit as K
from verify.objects.transformer import Attention, Head, Transformer

from kernel_samples import is_exact_number, walk


def _d(r):
    return json.loads(r.to_json())


@functools.lru_cache(maxsize=None)
def _samples():
    from verify.checks import t1_hardmax_max as t1, t3_onehot_gate as t3, t5_group_isolation as t5
    from verify.checks import t11_permutation_equivariance as t11

    def broken(WO, WK):
        return Transformer([Attention([Head([[0, 1, 0]], WK, [[1, 0, 0]], WO)])], coordinate_names=["z", "one", "out"])

    rs = [
        t1.check_hardmax_max(n_max=3, grid_step=13, random_cases=0),
        t1.check_hardmax_max(n_min=2, n_max=4, ties=["first"], grid_step=13, random_cases=0),
        t1._counterexample(broken([[0], [0], [2]], [[1, 0, 0]]), {"n_min": 1, "n_max": 3, "ties": ["average"]},
                           [F(1), F(2)], "average", "2 max"),
        t1._counterexample(broken([[0], [0], [1]], [[-1, 0, 0]]), {"n_min": 2, "n_max": 2, "ties": ["first"]},
                           [F(0), F(1)], "first", "min"),
        t1.check_tie_rule_independence([-1, 1], [0, 2]), t1.check_tie_rule_independence([1, 1], [1, 1]),
        t1.check_tie_rule_independence([1, 1], [0, 2]), t1.check_tie_rule_independence([2, 2, 1], [0, 3, 1]),
        t3.check_gate_identity(S=10), t3.check_gate_identity(S="1/3"),
        t3.check_gate_identity(S=2, points=[(2, 0), (-2, 1), ("1/3", 1)]),
        t3.check_gate_identity(S=10, points=[(0, 0)]),
        t3.check_gate_identity(S=10, points=[(11, 0)]), t3.check_gate_identity(S=10, points=[(1, "1/2")]),
        t5.check_group_isolation(M="601/100", C=3, groups=[0, 0, 1, 1], cases=0),
        t5.check_group_isolation(M=5, C=2, groups=[0, 1, 1, 0, 2], cases=0, ties=["first"]),
        t5.check_group_isolation(M="201/100", C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]]),
        t5.check_group_isolation(M="201/100", C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]]),
        t5.check_group_isolation(M=2, C=1, groups=[0, 0, 1, 1], values=[[-1, -1, 1, 0]], ties=["average"]),
        t5.check_group_isolation(M=2, C=1, groups=[1, 1, 0, 0], values=[[1, 0, -1, -1]], ties=["first"]),
        t11.check_permutation_equivariance(trials=2, n_max=3, E_max=2, depth_max=2),
        t11.check_permutation_equivariance(trials=3, seed=5, E_max=3, depth_max=2, H_max=1),
        t11.check_first_rule_ties(), t11.check_permutation_equivariance(trials=16, tie="first"),
        t11.check_positional_codes(), t11.check_positional_codes(tie="first"),
        t11.check_identical_tokens(trials=2, n=2), t11.check_identical_tokens(trials=2, n=3, seed=3),
        t11.check_softmax_equivariance_symbolic(n_max=1, trials=1, E=1, n_sublayers=1),
        t11.check_softmax_equivariance_symbolic(n_max=2, trials=1, seed=4, E=1, n_sublayers=1),
    ]
    return tuple(json.dumps(_d(r)) for r in rs)


def kernel_samples():
    """At least two genuine decided Results per casesplit kind, with different parameters."""
    return [json.loads(s) for s in _samples()]


# Mutations that keep the Result true and proved (the kernel re-derives everything from the parameters):
KERNEL_FREE_PATHS = [
    # exact instances of true theorems: any recorded Transformer / input / token is again equivariant
    # (average, softmax) or again has equal columns, and the kernel re-proves the edited instance
    r"^parameters\.instances\[",
    # witnesses of open conditions: a nearby point is again a counterexample (or again a passing point)
    r"^parameters\.points\[", r"^parameters\.values\[", r"^certificate\.z", r"^certificate\.X\[",
    r"^certificate\.transformer\.", r"^parameters\.(scores|values)\[", r"^parameters\.X\[",
    r"^parameters\.transformer\.", r"^parameters\.head\.",
    # scale parameters with slack: M larger, C smaller or S changed keep the theorem true and the certificate valid
    r"^parameters\.M$", r"^parameters\.C$", r"^parameters\.S$",
    # scopes a witness or an instance re-check still covers: a wider n range refuted by the same witness, more
    # tokens re-proved by the kernel (identical tokens, softmax n_max), a token moved to another group of the
    # given value vectors (the kernel re-evaluates them)
    r"^parameters\.n(_min|_max)?$", r"^parameters\.groups\[",
]


def _kind_of(r):
    return r["certificate"]["kind"]


def test_every_kind_has_two_samples_and_all_are_accepted():
    samples = kernel_samples()
    kinds = [_kind_of(r) for r in samples]
    assert sorted(set(kinds)) == sorted(K.KINDS)
    assert all(kinds.count(k) >= 2 for k in K.KINDS)
    for r in samples:
        assert kernel.check(r)


def test_summaries_are_exact():
    got = {(_kind_of(r), kernel.check(r)) for r in kernel_samples()}
    assert ("hardmax-max-tree",
            "hardmax-max-tree: n = 1..3, 13 leaves, average/first: out = max z at every leaf") in got
    assert ("hardmax-max-witness",
            "hardmax-max-witness: n = 2, average: the head gives out = ['4', '4'], max z = 2") in got
    assert ("group-isolation-tree", "group-isolation-tree: M - 2C = 1/100: 2 group trees, 6 leaves, average/first on "
                                    "[-C, C]^4") in got
    assert ("group-isolation-witness", "group-isolation-witness: first: token 3 does not get its group maximum at "
                                       "z = ['1', '0', '-1', '-1']") in got
    assert ("tie-rule-agree", "tie-rule-agree: average and first both give ['2', '2']") in got
    assert ("equivariance-instances", "equivariance-instances: 3 (instance, permutation) pairs, average: "
                                      "T(X Pi) = T(X) Pi exactly") in got
    assert ("softmax-equivariance-symbolic", "softmax-equivariance-symbolic: 3 (instance, n, permutation) cases: "
                                             "T(X Pi) = T(X) Pi identically (SymPy, Dummy symbols)") in got
    assert ("identical-tokens-instances", "identical-tokens-instances: 10 sublayer applications on identical tokens, "
                                          "both tie rules") in got
    assert ("gate-case-split",
            "gate-case-split: S = 1/3: 1 + 3 pieces tile [-S, S] for p = 0, 1; gate = p*u on each") in got


# -- generic tampering ------------------------------------------------------------------------------------
def _rejected(r):
    with pytest.raises(Rejected):
        kernel.check(r)


def _restate(r):
    """Re-derive the statement with the kernel's own function (an invalid parameter keeps the old one)."""
    try:
        r["statement"] = K.statement(_kind_of(r), r["parameters"], r.get("conventions", {}))
    except Rejected:
        pass
    return r


def _numbers(x, path):
    """The path of every number (int or exact-number string) inside x, in document order."""
    return (p for p, v in walk(x, path, sort_keys=False) if is_exact_number(v))


def _lists(x, path):
    """The path of every list inside x, in document order."""
    return (p for p, v in walk(x, path, sort_keys=False) if isinstance(v, list))


def _get(r, path):
    obj = r
    for part in re.findall(r"\.(\w+)|\[(\d+)\]", path):
        obj = obj[part[0]] if part[0] else obj[int(part[1])]
    return obj


def _set(r, path, fn):
    parts = re.findall(r"\.(\w+)|\[(\d+)\]", path)
    obj = r
    for part in parts[:-1]:
        obj = obj[part[0]] if part[0] else obj[int(part[1])]
    last = parts[-1][0] or int(parts[-1][1])
    obj[last] = fn(obj[last])


def _bump(v):
    return v + 1 if isinstance(v, int) else str(F(v) + 1)


def _spread(paths, k=8):
    """At most k of the paths, evenly spaced (keeps the test fast; tests/test_kernel_mutations.py does all)."""
    paths = list(paths)
    return paths if len(paths) <= k else [paths[i * len(paths) // k] for i in range(k)]


def _free(path):
    return any(re.search(p, path) for p in KERNEL_FREE_PATHS)


def test_flip_verdict_and_remove_certificate():
    for r in kernel_samples():
        flipped = dict(r, verdict="refuted" if r["verdict"] == "proved" else "proved")
        _rejected(flipped)
        _rejected({k: v for k, v in r.items() if k != "certificate"})
        _rejected(dict(r, certificate={}))
        _rejected(dict(r, certificate={"kind": _kind_of(r)}) if len(r["certificate"]) > 2 else dict(r, claim="T4"))
        _rejected(dict(r, certificate=dict(r["certificate"], extra=1)))


def test_parameter_numbers_changed_and_statement_rederived():
    survivors = []
    for r in kernel_samples():
        for path in _spread(_numbers(r["parameters"], ".parameters")):
            m = copy.deepcopy(r)
            _set(m, path, _bump)
            _restate(m)
            try:
                kernel.check(m)
            except Rejected:
                continue
            if not _free(path[1:]):
                survivors.append((_kind_of(r), path))
    assert survivors == []


def test_certificate_numbers_and_lists():
    survivors = []
    for r in kernel_samples():
        for path in _spread(_numbers(r["certificate"], ".certificate"), 16):
            m = copy.deepcopy(r)
            _set(m, path, _bump)
            try:
                kernel.check(m)
            except Rejected:
                continue
            if not _free(path[1:]):
                survivors.append((_kind_of(r), "num", path))
        for path in _spread(_lists(r["certificate"], ".certificate"), 8):
            n = len(_get(r, path))
            for i in range(n) if n <= 3 else (0, n // 2, n - 1):
                for op in ("drop", "dup"):
                    m = copy.deepcopy(r)
                    _set(m, path, lambda xs: xs[:i] + xs[i + 1:] if op == "drop" else xs[:i + 1] + xs[i:])
                    try:
                        kernel.check(m)
                    except Rejected:
                        continue
                    if not _free(path[1:]):
                        survivors.append((_kind_of(r), op, path, i))
    assert survivors == []


def test_statements_swapped_and_certificates_transplanted():
    samples = kernel_samples()
    for a in samples:
        for b in samples:
            if a is b:
                continue
            if a["statement"] != b["statement"]:
                _rejected(dict(a, statement=b["statement"]))
            if _kind_of(a) == _kind_of(b) and a["certificate"] != b["certificate"] and \
                    a["parameters"] != b["parameters"]:
                m = dict(a, certificate=b["certificate"])
                if _kind_of(a) in ("equivariance-counterexample",):
                    continue        # a counterexample is a counterexample wherever it is read (same n: same claim)
                _rejected(m)


# -- issue 11 forgeries and unsound paths, one each ------------------------------------------------------
def _sample(kind, i=0):
    return copy.deepcopy([r for r in kernel_samples() if _kind_of(r) == kind][i])


def test_t1_statement_must_name_the_n_range():
    r = _sample("hardmax-max-tree")
    m = copy.deepcopy(r)
    m["parameters"]["n_max"] = 9
    m["certificate"]["trees"].append([[]])
    with pytest.raises(Rejected, match="n_max: expected an integer in \\[1, 8\\]"):
        kernel.check(_restate(m))
    _rejected(dict(r, statement=r["statement"].replace("for n = 1..3 and every z in Q^n", "for all z in Q^n")))
    r["parameters"]["n_max"] = 4                       # claim n = 1..4 with the trees of 1..3
    _rejected(_restate(r))


def test_t1_tree_incomplete_or_undecided_leaf_rejected():
    r = _sample("hardmax-max-tree")
    tree = r["certificate"]["trees"][2]
    assert tree[0] == [0, 1]
    m = copy.deepcopy(r)
    m["certificate"]["trees"][2] = tree[:-1]          # a leaf missing
    _rejected(m)
    m = copy.deepcopy(r)
    m["certificate"]["trees"][2] = [[0, 1], [], [], []]   # z_2 never compared: the argmax is not decided
    with pytest.raises(Rejected, match="argmax set is not decided"):
        kernel.check(m)
    m["certificate"]["trees"][2] = [[1, 0], [], [], []]
    with pytest.raises(Rejected, match="expected a pair a < b"):
        kernel.check(m)


def test_t1_witness_must_be_a_counterexample():
    r = _sample("hardmax-max-witness", 1)              # the min head, z = (0, 1)
    r["certificate"]["z"] = [1, 1]
    with pytest.raises(Rejected, match="not a counterexample"):
        kernel.check(r)


def test_t3_pieces_must_tile_and_signs_are_rederived():
    r = _sample("gate-case-split")
    pieces = r["certificate"]["pieces"]
    m = copy.deepcopy(r)
    m["certificate"]["pieces"] = [p for p in pieces if p[1:3] != ["0", "0"]]    # the point 0 missing for p = 1
    with pytest.raises(Rejected, match="do not tile"):
        kernel.check(m)
    m["certificate"]["pieces"] = [[0, -10, 10, True, True], [1, -10, 0, True, True], [1, 0, 10, False, True]]
    with pytest.raises(Rejected, match="changes sign"):                          # [-S, 0] mixes ReLU signs
        kernel.check(m)
    m["certificate"]["pieces"] = [[0, -11, 11, True, True]] + pieces[1:]         # beyond [-S, S]
    with pytest.raises(Rejected, match="changes sign|do not tile"):
        kernel.check(m)
    m["certificate"]["pieces"] = pieces + [[0, 0, 0, True, True]]                # 0 covered twice for p = 0
    with pytest.raises(Rejected, match="do not tile"):
        kernel.check(m)
    assert K._affine_sign(1, 0, 0, 1, False, True) == 1 and K._affine_sign(1, 0, 0, 1, True, True) is None
    assert K._affine_sign(0, 0, -1, 1, False, False) == 0 and K._affine_sign(-1, 0, -1, 0, True, False) == 1


def test_t3_witness_and_points_rechecked():
    r = _sample("gate-witness")
    r["parameters"]["points"] = [[10, 0]]
    with pytest.raises(Rejected, match="equals p\\*u at every point"):
        kernel.check(_restate(r))
    p = _sample("gate-points")
    p["parameters"]["points"].append([3, 0])
    with pytest.raises(Rejected, match="differs"):
        kernel.check(_restate(p))


def test_t5_box_needs_M_above_2C_and_group_trees():
    r = _sample("group-isolation-tree")
    m = copy.deepcopy(r)
    m["parameters"]["M"] = 6                            # M = 2C: in-group vs out-group undecided
    with pytest.raises(Rejected, match="argmax set is not decided"):
        kernel.check(_restate(m))
    m = copy.deepcopy(r)
    m["certificate"]["trees"][0] = [[0, 2], [], [], []]  # compares tokens of different groups
    with pytest.raises(Rejected, match="expected a pair"):
        kernel.check(m)
    m = copy.deepcopy(r)
    m["parameters"]["values"] = [[0, 0, 0, 0]]           # a tree does not prove an instance statement
    _rejected(_restate(m))


def test_t5_witness_in_scope_and_failing():
    r = _sample("group-isolation-witness")
    m = copy.deepcopy(r)
    m["certificate"]["z"] = [-1, -1, 1, "1/2"]           # not one of the given vectors
    with pytest.raises(Rejected, match="scope"):
        kernel.check(m)
    m["parameters"]["M"] = "201/100"                     # the control: no failure
    m["certificate"]["z"] = [-1, -1, 1, 0]
    with pytest.raises(Rejected, match="group maxima there"):
        kernel.check(_restate(m))


def test_t11_first_rule_and_instances():
    c = _sample("equivariance-counterexample")
    m = copy.deepcopy(c)
    m["parameters"]["tie"] = "average"                   # the average rule is equivariant: no counterexample
    with pytest.raises(Rejected, match="not a counterexample"):
        kernel.check(_restate(m))
    m = copy.deepcopy(c)
    m["certificate"]["perm"] = [0, 1]
    with pytest.raises(Rejected, match="not a counterexample"):
        kernel.check(m)
    m["certificate"]["perm"] = [1, 1]
    with pytest.raises(Rejected, match="not a permutation"):
        kernel.check(m)
    i = _sample("equivariance-instances")
    i["parameters"]["instances"].append({"transformer": c["certificate"]["transformer"], "X": c["certificate"]["X"]})
    assert kernel.check(_restate(i)).startswith("equivariance-instances: ")    # the T11.n1 instance, average
    i["parameters"]["tie"] = "first"                     # the first rule breaks its tie
    with pytest.raises(Rejected, match="T\\(X Pi\\) != T\\(X\\) Pi"):
        kernel.check(_restate(i))
    n2 = _sample("content-equivariance-counterexample")
    n2["parameters"]["content_rows"] = list(range(len(n2["parameters"]["X"])))   # permute every row: equivariant
    with pytest.raises(Rejected, match="read rows agree"):
        kernel.check(_restate(n2))


def test_t11_identical_tokens_rechecked():
    r = _sample("identical-tokens-instances")
    x = r["parameters"]["instances"][0]
    x["x"] = x["x"] + [0]                                # wrong dimension for the weights
    _rejected(_restate(r))


def test_softmax_symbolic_number_bound():
    r = _sample("softmax-equivariance-symbolic")
    ffn = {"ffn": {"W1": [[10 ** 6]], "b1": ["-1/1000000"], "W2": [[1]], "b2": [0]}}
    r["parameters"]["instances"][0]["transformer"]["sublayers"] = [ffn]
    assert kernel.check(_restate(r)).startswith("softmax-equivariance-symbolic: ")      # 10^6: at the bound
    ffn["ffn"]["W1"] = [[10 ** 6 + 1]]
    with pytest.raises(Rejected, match="symbolic bounds"):
        kernel.check(_restate(r))
    ffn["ffn"]["W1"], ffn["ffn"]["b1"] = [[1]], ["1/1000001"]
    with pytest.raises(Rejected, match="symbolic bounds"):
        kernel.check(_restate(r))


def test_softmax_symbolic_bounds():
    r = _sample("softmax-equivariance-symbolic")
    m = copy.deepcopy(r)
    m["parameters"]["n_max"] = 4
    _rejected(_restate(m))
    m = copy.deepcopy(r)
    sub = m["parameters"]["instances"][0]["transformer"]["sublayers"]
    m["parameters"]["instances"][0]["transformer"]["sublayers"] = sub * 4
    with pytest.raises(Rejected, match="symbolic bounds"):
        kernel.check(_restate(m))


def test_evaluator_decisions():
    dec = K._Facts(3, [(0, 1, 1)])
    z = [K._z(a) for a in range(3)]
    assert dec.sign(z[0] - z[1]) == 1 and dec.sign(z[1] - z[0]) == -1 and dec.sign(z[0] - z[2]) is None
    assert dec.sign(z[0] + z[1]) is None and dec.sign(K._Lin({}, F(-1, 2))) == -1
    assert [dec.sign(x) for x in (-2, 0, F(1, 3))] == [-1, 0, 1]
    assert K._q(F(2 ** 128 - 1), "x", 128) == 2 ** 128 - 1 and K._q(F(1, 2 ** 128 - 1), "x", 128) == F(1, 2 ** 128 - 1)
    for bad in (F(2 ** 128), F(1, 2 ** 128), F(-(2 ** 128))):
        with pytest.raises(Rejected, match="more than 128 bits"):
            K._q(bad, "x", 128)
    box = K._Facts(2, [(0, 1, 0)], C=F(1))
    assert box.sign(z[0] - z[1]) == 0 and box.sign(z[0] + 3) == 1 and box.sign(z[0] - 1) is None
    assert box.sign(2 * z[0] - 2 * z[1] + 1) == 1
    with pytest.raises(Rejected, match="product of two symbolic"):
        z[0] * z[1]
    assert K._argmax([F(1), F(3), F(3)], K._Exact()) == [1, 2]
    assert K._evaluate([("ffn", ([[1]], [F(-1)], [[2]], [0]))], [[F(3), F(0)]], "first") == [[F(7), F(0)]]


# -- hostile certificates ---------------------------------------------------------------------------------
def _timed(r, seconds=10):
    """The kernel answers (accepts or rejects) within ``seconds`` of CPU time (the test machine is shared: wall
    time is bounded only loosely); the certificate is about 1 MB or less."""
    try:
        assert len(json.dumps(r)) < 1_300_000
    except RecursionError:       # deep nesting: about 200 KB
        pass
    t, cpu = time.monotonic(), time.process_time()
    try:
        kernel.check(r)
        accepted = True
    except Rejected:
        accepted = False
    wall, cpu = time.monotonic() - t, time.process_time() - cpu
    print(f"hostile {r['certificate'].get('kind')}: {'accepted' if accepted else 'rejected'} in {cpu:.2f} s CPU "
          f"({wall:.2f} s wall)")
    assert cpu < seconds and wall < 6 * seconds
    return accepted


def test_hostile_trees():
    t1 = _sample("hardmax-max-tree")
    t1["certificate"]["trees"][2] = [[0, 1]] * 150_000 + [[]]          # a path far beyond the depth bound
    assert not _timed(t1)
    t1["certificate"]["trees"][2] = [[0, 1], [], [], []] + [[]] * 250_000   # trailing junk
    assert not _timed(t1)
    from verify.decide.casesplit import scan_tree
    big = _sample("hardmax-max-tree")
    big["parameters"] = {"n_min": 8, "n_max": 8, "ties": ["average", "first"]}
    tree = scan_tree(list(range(8)))
    big["certificate"]["trees"] = [tree]                                # genuine: 2187 leaves
    assert _timed(_restate(big))
    two = _sample("group-isolation-tree")
    two["parameters"]["groups"] = [0] * 8 + [1] * 8
    two["certificate"]["trees"] = [tree, scan_tree(list(range(8, 16)))]    # 2 x 2187 leaves: over the bound
    with pytest.raises(Rejected, match="more than 4000 leaves"):
        kernel.check(_restate(two))
    t5 = _sample("group-isolation-tree")
    t5["parameters"]["groups"] = [0] * 16
    t5["parameters"]["M"] = "9" * 5000
    t5["certificate"]["trees"] = [scan_tree(list(range(8)))[:-1] + [[]] * 8]   # one tree; 16 tokens; huge M
    assert not _timed(_restate(t5))


def test_hostile_numbers_and_nesting():
    g = _sample("gate-case-split")
    g["certificate"]["pieces"] = [[0, "9" * 5000, "9" * 5000, True, True]] * 60
    assert not _timed(g)
    g["certificate"]["pieces"] = [[0, "1" + "0" * 6000, 1, True, True]]
    assert not _timed(g)
    p = _sample("gate-points")
    p["parameters"]["points"] = [["9" * 4000, 1]] * 200 + [["-" + "7" * 4000, 1]] * 50
    assert _timed(_restate(p))
    c = _sample("equivariance-counterexample")
    nest = []
    for _ in range(100_000):
        nest = [nest]
    c["certificate"]["X"] = nest
    assert not _timed(c)


def test_hostile_instances():
    i = _sample("equivariance-instances")
    E = 5
    W = [["9" * 38] * E] * 16
    head = {"W_Q": W, "W_K": W, "W_V": W, "W_O": [["7" * 38] * 16] * E}
    T = {"sublayers": [{"attention": [head] * 4}] * 16}
    i["parameters"]["instances"] = [{"transformer": T, "X": [[1, 2, 3, 4, 5]] * E}]          # 2.6e7 work units
    with pytest.raises(Rejected, match="work bound"):
        kernel.check(_restate(i))
    T = {"sublayers": [{"attention": [{"W_Q": [[1] * E], "W_K": [[1] * E], "W_V": [[1] * E], "W_O": [[1]] * E}] * 2},
                       {"ffn": {"W1": [[1] * E] * 8, "b1": [-1] * 8, "W2": [[1] * 8] * E, "b2": [0] * E}}] * 3}
    i["parameters"]["instances"] = [{"transformer": T, "X": [[j % 3 for j in range(5)]] * E}]   # 1.2e6: near the bound
    assert _timed(_restate(i))
    big = copy.deepcopy(i)
    big["parameters"]["instances"][0]["X"][0][0] = "1" * 200                                  # > 128 bits
    with pytest.raises(Rejected, match="more than 128 bits"):
        kernel.check(_restate(big))
    s = _sample("softmax-equivariance-symbolic")
    s["parameters"]["instances"][0]["transformer"]["sublayers"][0] = {"ffn": {"W1": [["9" * 30]], "b1": [0],
                                                                              "W2": [[0]], "b2": [0]}}
    with pytest.raises(Rejected, match="symbolic bounds"):
        kernel.check(_restate(s))
    d = _sample("identical-tokens-instances")
    d["parameters"]["instances"] = [{"transformer": T, "x": [1, 2, 3, 4, 5]}] * 256
    with pytest.raises(Rejected, match="work bound"):
        kernel.check(_restate(d))
    d["parameters"]["instances"] = d["parameters"]["instances"][:3]        # near the bound
    assert _timed(_restate(d))


# -- readers and bounds -----------------------------------------------------------------------------------
def _edit(kind, fn, i=0, restate=True):
    r = _sample(kind, i)
    fn(r)
    return _restate(r) if restate else r


@pytest.mark.parametrize("kind, fn, message", [
    ("hardmax-max-tree", lambda r: r["parameters"].update(ties=["first", "first"]), "repeated"),
    ("hardmax-max-tree", lambda r: r["parameters"].update(ties=["last"]), "is not one of"),
    ("hardmax-max-tree", lambda r: r["parameters"].update(n_min=0), "n_min"),
    ("hardmax-max-tree", lambda r: r["certificate"]["trees"][0].append([]), "after the end"),
    ("hardmax-max-tree", lambda r: r["certificate"]["trees"][1].__setitem__(0, [0, 1, 2]), "expected 2..2"),
    ("hardmax-max-tree", lambda r: r["certificate"]["trees"].pop(), "expected 3..3"),
    ("hardmax-max-witness", lambda r: r["certificate"].update(z=[]), "outside"),
    ("hardmax-max-witness", lambda r: r["certificate"].update(tie="first"), "is not one of"),
    ("tie-rule-agree", lambda r: r["parameters"].update(scores=[], values=[]), "no token"),
    ("gate-case-split", lambda r: r["parameters"].update(S=0), "must be > 0"),
    ("gate-case-split", lambda r: r["certificate"]["pieces"].__setitem__(0, [2, -10, 10, True, True]), "0, 1"),
    ("gate-case-split", lambda r: r["certificate"]["pieces"].__setitem__(0, [0, 10, -10, True, True]), "empty"),
    ("gate-case-split", lambda r: r["certificate"]["pieces"].__setitem__(0, [0, 1, 1, True, False]), "empty"),
    ("gate-case-split", lambda r: r["certificate"]["pieces"].__setitem__(0, [0, -10, 10, True, False]), "reach S"),
    ("group-isolation-tree", lambda r: r["parameters"].update(groups=[0, 0, 2, 2]), "numbered"),
    ("group-isolation-tree", lambda r: r["parameters"].update(C=-1), "C >= 0"),
    ("group-isolation-tree", lambda r: r["parameters"].update(M=0), "M > 0"),
    ("group-isolation-tree", lambda r: r["parameters"].update(groups=[0] * 17), "at most 16"),
    ("group-isolation-instances", lambda r: r["parameters"]["values"][0].__setitem__(0, -2), "exceeds C"),
    ("group-isolation-instances", lambda r: r["parameters"].pop("values"), "values"),
    ("group-isolation-witness", lambda r: r["certificate"].update(z=[-1, -1, 1, 2]), "scope"),
    ("equivariance-counterexample", lambda r: r["parameters"].update(n=3), "expected n = 3"),
    ("equivariance-counterexample", lambda r: r["certificate"]["transformer"]["sublayers"].__setitem__(
        0, {"attention": [], "ffn": {}}), "expected {"),
    ("equivariance-counterexample", lambda r: r["certificate"]["transformer"]["sublayers"].__setitem__(
        0, {"attention": [{"W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "W_O": [[1]]}]}), "expected 4..4"),
    ("content-equivariance-counterexample", lambda r: r["parameters"].update(read_rows=[99]), "read_rows"),
    ("content-equivariance-counterexample", lambda r: r["certificate"].update(perm=[0]), "perm"),
    ("identical-tokens-instances", lambda r: r["parameters"].update(n=9), "n"),
    ("softmax-equivariance-symbolic", lambda r: r["parameters"]["instances"][0].update(E=4), "E"),
    ("softmax-equivariance-symbolic", lambda r: r["parameters"].update(instances=r["parameters"]["instances"] * 11),
     "instances"),
])
def test_readers_and_bounds_reject(kind, fn, message):
    with pytest.raises(Rejected, match=re.escape(message)):
        kernel.check(_edit(kind, fn))


def test_identical_tokens_and_softmax_detect_a_difference(monkeypatch):
    # the checks compare: a kernel evaluator that breaks symmetry is caught (the comparison is not vacuous)
    r = _sample("identical-tokens-instances")
    real = K._attention
    monkeypatch.setattr(K, "_attention", lambda X, *a, **k: [[x + j for j, x in enumerate(row)]
                                                            for row in real(X, *a, **k)])
    with pytest.raises(Rejected, match="unequal columns"):
        kernel.check(r)
    monkeypatch.setattr(K, "_attention", real)
    s = _sample("softmax-equivariance-symbolic", 1)
    real_sym = K._sym_eval
    monkeypatch.setattr(K, "_sym_eval", lambda T, X, lam, relu: [[x + j for j, x in enumerate(row)]
                                                               for row in real_sym(T, X, lam, relu)])
    with pytest.raises(Rejected, match="not the same expression"):
        kernel.check(s)
    i = _sample("equivariance-instances")
    monkeypatch.setattr(K, "_attention", lambda X, *a, **k: [[x + j for j, x in enumerate(row)]
                                                            for row in real(X, *a, **k)])
    with pytest.raises(Rejected, match="T\\(X Pi\\) != T\\(X\\) Pi"):
        kernel.check(i)


def test_a_wrong_head_is_caught_at_every_stage(monkeypatch):
    # the O1 and R4' heads are kernel constants; patched, the tree checks must reject (outputs are compared)
    t1 = _sample("hardmax-max-tree")
    monkeypatch.setattr(K, "o1_head", lambda: ([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [2]]))
    with pytest.raises(Rejected, match="output is not max_l z_l"):
        kernel.check(t1)
    monkeypatch.setattr(K, "o1_head", lambda: ([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[1], [0], [1]]))
    with pytest.raises(Rejected, match="coordinate changed"):
        kernel.check(t1)
    t5 = _sample("group-isolation-tree")
    real = K.group_head

    def doubled(M, groups):
        WQ, WK, WV, WO = real(M, groups)
        return WQ, WK, [[2 * x for x in r] for r in WV], WO

    monkeypatch.setattr(K, "group_head", doubled)
    with pytest.raises(Rejected, match="does not get its group maximum"):
        kernel.check(t5)

    def leaky(M, groups):
        WQ, WK, WV, WO = real(M, groups)
        return WQ, WK, WV, [[1] + r[1:] if e == 0 else r for e, r in enumerate(WO)]

    monkeypatch.setattr(K, "group_head", leaky)
    with pytest.raises(Rejected, match="does not get its group maximum"):
        kernel.check(t5)
    with pytest.raises(Rejected, match="the head fails at z"):
        kernel.check(_sample("group-isolation-instances"))


def test_one_token_instances_accepted():
    r = _sample("identical-tokens-instances")
    r["parameters"]["n"] = 1
    assert kernel.check(_restate(r)).startswith("identical-tokens-instances: ")
