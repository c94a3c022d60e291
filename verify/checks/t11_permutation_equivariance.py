"""T11: permutation equivariance without positional information (docs/paper1.md R9).

For any composition of attention (softmax, or hardmax with ``average``) and FFN sublayers, T(X Pi) = T(X) Pi for
every permutation Pi of the tokens (columns).  For X = x 1^T all columns of T(X) are equal and each attention
sublayer acts as X -> X + sum_h W_O^h W_V^h X.

* hardmax ``average``: exact, on seeded random Transformers (E <= 6, n <= 5, H <= 2, <= 4 sublayers) and inputs
  with forced ties (repeated tokens and repeated key values), every permutation.  PROVED means: for exactly these
  recorded instances (their weights and inputs are the Result's parameters; the kernel re-evaluates every
  permutation).  Sampling never proves the universal claim;
* hardmax ``first``: the universal claim is REFUTED by an exact counterexample (sampled, else T11.n1);
* softmax, n <= 3: symbolic (SymPy) -- token entries are symbols, the difference T(X Pi) - T(X) Pi must be
  identically 0;
* softmax, larger n: 50-digit mpmath evidence only (INCONCLUSIVE, with ``criterion_met`` stating whether the
  maximal difference stayed below 10^-40).

Negative cases: T11.n1, hardmax ``first`` at ties (tokens (key 1, value 0), (key 1, value 5), constant query:
T(X) = (0, 0) but T(X Pi) = (5, 5)); T11.n2, one-hot positional codes (R4) fixed to positions break equivariance.

>>> check_first_rule_ties().certificate["summary"]
'first rule: T(X) out = (0, 0), T(X Pi) out = (5, 5) != T(X) Pi = (0, 0)'
>>> check_permutation_equivariance(trials=2).verdict.value
'proved'
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from ..canonical import jsonable
from ..constructions.maxout_compiler import compile_maxout
from ..constructions.reference_networks import o2_network
from ..decide.casesplit import MPQ_TOKENS
from ..arith.exact import fraction_str, parse_exact
from ..errors import InputError
from ..kernel import casesplit as K
from ..objects.transformer import TIE_RULES
from ..objects.transformer import Attention, FeedForward, Head, Transformer
from ..results import Method, Result, Verdict, kernel_checked as _self_checked

__all__ = ["check_permutation_equivariance", "check_softmax_equivariance_symbolic",
           "check_softmax_equivariance_evidence", "check_identical_tokens", "check_first_rule_ties",
           "check_positional_codes", "random_transformer", "permute_columns"]

STATEMENT = "T(X Pi) = T(X) Pi for every permutation Pi of the tokens (no positional information)"
EVIDENCE_TOLERANCE = "1e-40"


def permute_columns(X, perm) -> tuple:
    """(X Pi)[:, j] = X[:, perm[j]]."""
    return tuple(tuple(row[p] for p in perm) for row in X)


def _num(rng):
    return Fraction(rng.randint(-4, 4), rng.choice((1, 2)))


def random_transformer(rng: random.Random, E: int, n_sublayers: int, max_heads: int = 2) -> Transformer:
    """Random rational Transformer: sublayers alternate attention / FFN (random start), heads of size 1-2,
    FFN widths 1-4, entries k/2 with |k| <= 4."""
    subs = []
    start = rng.randint(0, 1)
    for s in range(n_sublayers):
        if (s + start) % 2 == 0:
            heads = []
            for _ in range(rng.randint(1, max_heads)):
                m = rng.randint(1, 2)
                mat = lambda r, c: [[_num(rng) for _ in range(c)] for _ in range(r)]
                heads.append(Head(mat(m, E), mat(m, E), mat(m, E), mat(E, m)))
            subs.append(Attention(heads))
        else:
            r = rng.randint(1, 4)
            subs.append(FeedForward([[_num(rng) for _ in range(E)] for _ in range(r)], [_num(rng) for _ in range(r)],
                                    [[_num(rng) for _ in range(r)] for _ in range(E)], [_num(rng) for _ in range(E)]))
    return Transformer(subs)


def _random_input(rng, E, n, forced_ties: bool):
    cols = [[Fraction(rng.randint(-3, 3), rng.choice((1, 2))) for _ in range(E)] for _ in range(n)]
    if forced_ties and n >= 2:
        cols[1] = list(cols[0])                      # a repeated token
        if n >= 3:
            cols[2][0] = cols[0][0]                  # a repeated coordinate
    return tuple(tuple(c[e] for c in cols) for e in range(E))


def _perms(n, rng, limit=120):
    perms = list(itertools.permutations(range(n)))
    return perms if len(perms) <= limit else rng.sample(perms, limit)


def transformer_json(T: Transformer) -> dict:
    """The exact weights of T in the kernel's format (:func:`verify.kernel.casesplit._transformer`)."""
    subs = []
    for sub in T.sublayers:
        if isinstance(sub, Attention):
            subs.append({"attention": [{"W_Q": h.W_Q, "W_K": h.W_K, "W_V": h.W_V, "W_O": h.W_O} for h in sub.heads]})
        else:
            subs.append({"ffn": {"W1": sub.W1, "b1": sub.b1, "W2": sub.W2, "b2": sub.b2}})
    return jsonable({"sublayers": subs})




_KV = Transformer([Attention([Head([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[0, 1, 0, 0]], [[0], [0], [0], [1]])])],
                  coordinate_names=["key", "value", "one", "out"])


def _counterexample(claim, tie, T, X, perm, summary, evidence=None, seeds=None) -> Result:
    """REFUTED: "every hardmax (tie) Transformer is equivariant on n-token inputs", with the exact witness."""
    params = {"tie": tie, "n": len(X[0])}
    return _self_checked(Result(
        claim, K.statement("equivariance-counterexample", jsonable(params), {}), Verdict.REFUTED, Method.EXACT,
        parameters=params, seeds=seeds or {}, evidence=evidence or {},
        certificate={"kind": "equivariance-counterexample", "transformer": transformer_json(T), "X": jsonable(X),
                     "perm": list(perm), "summary": summary}))


def _first_rule_witness(v0=Fraction(0), v1=Fraction(5)):
    """The T11.n1 instance: keys (1, 1), values (v0, v1), constant query, the swap."""
    X = ((Fraction(1), Fraction(1)), (v0, v1), (Fraction(1), Fraction(1)), (Fraction(0), Fraction(0)))
    return _KV, X, (1, 0)


def check_permutation_equivariance(trials: int = 12, seed: int = 20260311, tie: str = "average", E_max: int = 6,
                                   n_max: int = 5, H_max: int = 2, depth_max: int = 4) -> Result:
    """Hardmax, exact, on seeded random Transformers (inputs with forced ties).

    ``average``: PROVED for exactly the recorded instances -- the statement is "for each of these Transformers and
    inputs X, T(X Pi) = T(X) Pi for every permutation", and the kernel re-evaluates every permutation of every
    instance (kind ``equivariance-instances``); sampling never proves the universal claim.
    ``first``: the universal claim is REFUTED by an exact counterexample (kind ``equivariance-counterexample``):
    a sampled one if the samples contain one, else the T11.n1 instance -- so the verdict does not depend on the
    seed."""
    for name, v, lo, hi in (("trials", trials, 1, 64), ("E_max", E_max, 1, 6), ("n_max", n_max, 1, 5),
                            ("H_max", H_max, 1, 2), ("depth_max", depth_max, 1, 4)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    if tie not in TIE_RULES:
        raise InputError("tie", f"must be one of {', '.join(TIE_RULES)}, got {tie!r}")
    rng = random.Random(seed)
    checked, instances = 0, []
    sampling = {"trials": trials, "E_max": E_max, "n_max": n_max, "H_max": H_max, "depth_max": depth_max}
    for t in range(trials):
        E = rng.randint(1, E_max)
        n = 1 + t % n_max
        T = random_transformer(rng, E, rng.randint(1, depth_max), H_max)
        X = _random_input(rng, E, n, forced_ties=t % 2 == 0)
        Xq = tuple(tuple(MPQ_TOKENS.convert(v) for v in row) for row in X)   # the same exact values, in mpq
        Y = T.evaluate(Xq, tie=tie, ops=MPQ_TOKENS)
        instances.append({"transformer": transformer_json(T), "X": jsonable(X)})
        for perm in itertools.permutations(range(n)):
            Yp = T.evaluate(permute_columns(Xq, perm), tie=tie, ops=MPQ_TOKENS)
            checked += 1
            if Yp != permute_columns(Y, perm):
                return _counterexample("T11", tie, T, X, perm, f"trial {t}: permutation {list(perm)} breaks "
                                       f"equivariance (tie rule {tie})", sampling, {"random": seed})
    if tie == "first":
        T, X, perm = _first_rule_witness()
        return _counterexample("T11", tie, T, X, perm, f"no sampled counterexample among {trials} trials; the T11.n1 "
                               "instance (keys (1, 1), values (0, 5), the swap) is one", sampling, {"random": seed})
    params = {"tie": tie, "instances": instances}
    return _self_checked(Result(
        "T11", K.statement("equivariance-instances", jsonable(params), {}), Verdict.PROVED, Method.EXACT,
        parameters=params, seeds={"random": seed},
        evidence={"sampling": sampling, "pairs_checked": checked,
                  "summary": f"{trials} recorded random Transformers, {checked} (input, permutation) pairs, exact "
                             "(half the inputs with forced ties); a statement about these instances only"},
        certificate={"kind": "equivariance-instances"}))


def check_softmax_equivariance_symbolic(n_max: int = 3, trials: int = 3, seed: int = 20260312, E: int = 2,
                                        n_sublayers: int = 2) -> Result:
    """Softmax with a symbolic scale lambda and symbolic token entries: PROVED for the recorded Transformers
    (kind ``softmax-equivariance-symbolic``) iff, for n = 1..n_max and every permutation, T(X Pi) and T(X) Pi are
    the same SymPy expression -- the kernel rebuilds both with Dummy symbols and an uninterpreted ReLU."""
    for name, v, hi in (("n_max", n_max, 3), ("trials", trials, 10), ("E", E, 3), ("n_sublayers", n_sublayers, 3)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
            raise InputError(name, f"must be an integer in [1, {hi}], got {v!r}")
    rng = random.Random(seed)
    instances = [{"E": E, "transformer": transformer_json(random_transformer(rng, E, n_sublayers, 1))}
                 for _ in range(trials)]
    params = {"n_max": n_max, "instances": instances}
    return _self_checked(Result(
        "T11", K.statement("softmax-equivariance-symbolic", jsonable(params), {}), Verdict.PROVED, Method.EXACT,
        parameters=params, seeds={"random": seed},
        evidence={"summary": f"symbolic softmax: T(X Pi) = T(X) Pi identically for {trials} recorded Transformers, "
                             f"n <= {n_max}, every permutation"},
        certificate={"kind": "softmax-equivariance-symbolic"}))


def check_softmax_equivariance_evidence(n: int = 5, trials: int = 3, seed: int = 20260313, scale="3",
                                        dps: int = 50, E: int = 4, n_sublayers: int = 3) -> Result:
    """Softmax beyond the symbolic range: 50-digit evaluation (evidence only, INCONCLUSIVE); the evidence
    records the maximal |T(X Pi) - T(X) Pi| and ``criterion_met`` (below 10^-40)."""
    import mpmath

    for name, v, lo, hi in (("n", n, 1, 8), ("trials", trials, 1, 20), ("E", E, 1, 6), ("n_sublayers", n_sublayers, 1, 4),
                            ("dps", dps, 30, 200)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    rng = random.Random(seed)
    worst = mpmath.mpf(0)
    pairs = 0
    with mpmath.workdps(dps):
        for t in range(trials):
            T = random_transformer(rng, E, n_sublayers, 2)
            X = _random_input(rng, E, n, forced_ties=True)
            Y = T.evaluate(X, "softmax", scale=scale, backend="mpmath", dps=dps)
            for perm in _perms(n, rng, limit=24):
                Yp = T.evaluate(permute_columns(X, perm), "softmax", scale=scale, backend="mpmath", dps=dps)
                want = permute_columns(Y, perm)
                for e in range(E):
                    for j in range(n):
                        worst = max(worst, abs(Yp[e][j] - want[e][j]))
                pairs += 1
        met = bool(worst < mpmath.mpf(EVIDENCE_TOLERANCE))
        worst_s = mpmath.nstr(worst, 5)
    return Result("T11", STATEMENT, Verdict.INCONCLUSIVE, Method.EVIDENCE, seeds={"random": seed},
                  parameters={"n": n, "trials": trials, "scale": scale, "dps": dps, "E": E, "n_sublayers": n_sublayers},
                  conventions={"attention": "softmax(scale * score)", "backend": "mpmath"},
                  certificate={"summary": f"evidence only: max |T(X Pi) - T(X) Pi| = {worst_s} over {pairs} pairs "
                                          f"at {dps} digits (criterion < {EVIDENCE_TOLERANCE}: {met})",
                               "criterion": f"max |T(X Pi) - T(X) Pi| < {EVIDENCE_TOLERANCE}", "criterion_met": met},
                  evidence={"max_abs_difference": worst_s, "pairs": pairs, "criterion": f"< {EVIDENCE_TOLERANCE}",
                            "criterion_met": met})


def check_identical_tokens(trials: int = 10, seed: int = 20260314, n: int = 4) -> Result:
    """X = x 1^T: every column of T(X) is equal (hardmax, both tie rules) and each attention sublayer equals
    X + sum_h W_O^h W_V^h X exactly -- PROVED for the recorded (Transformer, x) instances only (kind
    ``identical-tokens-instances``, re-evaluated by the kernel)."""
    if not isinstance(trials, int) or not 1 <= trials <= 200 or not isinstance(n, int) or not 1 <= n <= 8:
        raise InputError("trials", "need 1 <= trials <= 200 and 1 <= n <= 8")
    rng = random.Random(seed)
    instances = []
    for t in range(trials):
        E = rng.randint(1, 6)
        T = random_transformer(rng, E, rng.randint(1, 4))
        x = [Fraction(rng.randint(-3, 3), rng.choice((1, 2))) for _ in range(E)]
        instances.append({"transformer": transformer_json(T), "x": jsonable(x)})
    params = {"n": n, "instances": instances}
    return _self_checked(Result(
        "T11", K.statement("identical-tokens-instances", jsonable(params), {}), Verdict.PROVED, Method.EXACT,
        parameters=params, seeds={"random": seed},
        evidence={"summary": f"{trials} recorded Transformers on identical tokens (n = {n}), both tie rules, exact"},
        certificate={"kind": "identical-tokens-instances"}))


def check_first_rule_ties(values=(0, 5)) -> Result:
    """T11.n1: hardmax ``first`` with tied keys (1, 1) and the given values, constant query, the swap: REFUTED
    ("every hardmax first Transformer is equivariant on 2-token inputs") when the values differ; otherwise
    this instance is no counterexample and the check is INCONCLUSIVE (it never proves the universal claim)."""
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise InputError("values", "expected two values")
    v0, v1 = (parse_exact(v, f"values[{i}]") for i, v in enumerate(values))
    T, X, perm = _first_rule_witness(v0, v1)
    Y = T.evaluate(X, tie="first")
    Yp = T.evaluate(permute_columns(X, perm), tie="first")
    want = permute_columns(Y, perm)
    f = lambda row: "(" + ", ".join(fraction_str(v) for v in row) + ")"
    if Yp == want:
        params = {"tie": "first", "n": 2}
        return Result("T11.n1", K.statement("equivariance-counterexample", jsonable(params), {}), Verdict.INCONCLUSIVE,
                      Method.EXACT, parameters=params, evidence={"values": [v0, v1]},
                      certificate={"summary": f"values {f((v0, v1))}: this instance is equivariant, so it is no "
                                              "counterexample (and proves nothing universal)"})
    return _counterexample("T11.n1", "first", T, X, perm, f"first rule: T(X) out = {f(Y[3])}, T(X Pi) out = "
                           f"{f(Yp[3])} != T(X) Pi = {f(want[3])}")


def check_positional_codes(tie: str = "average") -> Result:
    """T11.n2: the R4 Transformer of O2 with its one-hot codes fixed to positions (a positional encoding):
    token contents x = 0 and x = 1 swapped give a different output, so the map content -> output is not
    equivariant (REFUTED by design)."""
    c = compile_maxout(o2_network(), [[0, 1]], S=40)
    T = c.transformer
    names = list(T.coordinate_names)
    p_rows = [i for i, nm in enumerate(names) if nm.startswith("p_")]
    contents = (Fraction(0), Fraction(1))

    def with_codes(order):
        X = [list(r) for r in c.embed([0])]
        h = names.index("h_1")
        for j, idx in enumerate(order):
            X[h][j] = contents[idx]
        return tuple(tuple(r) for r in X)     # codes p stay e_j at position j

    X = with_codes((0, 1))
    Xp = with_codes((1, 0))
    Y = T.evaluate(X, tie=tie)
    Yp = T.evaluate(Xp, tie=tie)
    want = permute_columns(Y, (1, 0))
    h = names.index("h_1")
    params = {"transformer": transformer_json(T), "X": jsonable(X), "tie": tie, "content_rows": [h],
              "read_rows": [h]}
    statement = K.statement("content-equivariance-counterexample", jsonable(params), {})
    if Yp == want or Yp[h] == want[h]:
        return Result("T11.n2", statement, Verdict.INCONCLUSIVE, Method.EXACT, parameters=params,
                      certificate={"summary": "equivariant on this instance"})
    return _self_checked(Result(
        "T11.n2", statement, Verdict.REFUTED, Method.EXACT, parameters=params,
        evidence={"code_rows": [names[i] for i in p_rows], "contents": list(contents)},
        certificate={"kind": "content-equivariance-counterexample", "perm": [1, 0],
                     "summary": f"contents (x_1, x_2) = (0, 1): h_1 = {fraction_str(Y[h][0])}; swapped: "
                                f"h_1 = {fraction_str(Yp[h][0])} != {fraction_str(want[h][0])}"}))
