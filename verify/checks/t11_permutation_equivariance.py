"""T11: permutation equivariance without positional information (spec maxout R9).

For any composition of attention (softmax, or hardmax with ``average``) and FFN sublayers, T(X Pi) = T(X) Pi for
every permutation Pi of the tokens (columns).  For X = x 1^T all columns of T(X) are equal and each attention
sublayer acts as X -> X + sum_h W_O^h W_V^h X.

* hardmax: exact, on seeded random Transformers (E <= 6, n <= 5, H <= 2, <= 4 sublayers) and inputs with forced
  ties (repeated tokens and repeated key values), every permutation;
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

from ..constructions.maxout_compiler import compile_maxout
from ..engines.exact import fraction_str
from ..errors import InputError
from ..objects.maxout import MaxoutNetwork
from ..objects.ops import TIE_RULES
from ..objects.transformer import Attention, FeedForward, Head, Transformer
from ..results import Method, Result, Verdict

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


def check_permutation_equivariance(trials: int = 12, seed: int = 20260311, tie: str = "average", E_max: int = 6,
                                   n_max: int = 5, H_max: int = 2, depth_max: int = 4) -> Result:
    """Hardmax, exact: PROVED iff T(X Pi) = T(X) Pi for every permutation in every trial (random Transformers,
    inputs with forced ties); REFUTED with the exact instance otherwise (e.g. ``tie="first"`` may fail)."""
    for name, v, lo, hi in (("trials", trials, 1, 500), ("E_max", E_max, 1, 6), ("n_max", n_max, 1, 5),
                            ("H_max", H_max, 1, 2), ("depth_max", depth_max, 1, 4)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InputError(name, f"must be an integer in [{lo}, {hi}], got {v!r}")
    if tie not in TIE_RULES:
        raise InputError("tie", f"must be one of {', '.join(TIE_RULES)}, got {tie!r}")
    rng = random.Random(seed)
    checked = 0
    params = {"trials": trials, "tie": tie, "E_max": E_max, "n_max": n_max, "H_max": H_max, "depth_max": depth_max}
    for t in range(trials):
        E = rng.randint(1, E_max)
        n = 1 + t % n_max
        T = random_transformer(rng, E, rng.randint(1, depth_max), H_max)
        X = _random_input(rng, E, n, forced_ties=t % 2 == 0)
        Y = T.evaluate(X, tie=tie)
        for perm in _perms(n, rng):
            Yp = T.evaluate(permute_columns(X, perm), tie=tie)
            checked += 1
            if Yp != permute_columns(Y, perm):
                return Result("T11", STATEMENT, Verdict.REFUTED, Method.EXACT, parameters=params, seeds={"random": seed},
                              conventions={"attention": "hardmax", "tie_rule": tie},
                              certificate={"summary": f"trial {t}: permutation {list(perm)} breaks equivariance "
                                                      f"(tie rule {tie})",
                                           "witness": {"X": X, "perm": list(perm), "T_X": Y, "T_XPi": Yp,
                                                       "transformer": T.describe(dense=True)}})
    return Result("T11", STATEMENT, Verdict.PROVED, Method.EXACT, parameters=params, seeds={"random": seed},
                  conventions={"attention": "hardmax", "tie_rule": tie},
                  certificate={"summary": f"{trials} random Transformers, {checked} (input, permutation) pairs, "
                                          f"exact equality T(X Pi) = T(X) Pi (half the inputs with forced ties)",
                               "pairs_checked": checked})


def check_softmax_equivariance_symbolic(n_max: int = 3, trials: int = 3, seed: int = 20260312, E: int = 2,
                                        n_sublayers: int = 2) -> Result:
    """Softmax with a symbolic scale lambda and symbolic token entries: PROVED iff every difference
    T(X Pi) - T(X) Pi is identically zero (SymPy), for n = 1..n_max and every permutation."""
    import sympy

    for name, v, hi in (("n_max", n_max, 3), ("trials", trials, 10), ("E", E, 3), ("n_sublayers", n_sublayers, 3)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
            raise InputError(name, f"must be an integer in [1, {hi}], got {v!r}")
    rng = random.Random(seed)
    lam = sympy.Symbol("lambda", positive=True)
    checked = 0
    for t in range(trials):
        T = random_transformer(rng, E, n_sublayers, 1)
        for n in range(1, n_max + 1):
            X = tuple(tuple(sympy.Symbol(f"x{e}_{j}", real=True) for j in range(n)) for e in range(E))
            Y = T.evaluate(X, "softmax", scale=lam, backend="sympy")
            for perm in itertools.permutations(range(n)):
                Yp = T.evaluate(permute_columns(X, perm), "softmax", scale=lam, backend="sympy")
                want = permute_columns(Y, perm)
                for e in range(E):
                    for j in range(n):
                        a, b = Yp[e][j], want[e][j]
                        if a != b and sympy.simplify(a - b) != 0:
                            return Result("T11", STATEMENT, Verdict.INCONCLUSIVE, Method.EXACT,
                                          seeds={"random": seed},
                                          certificate={"summary": f"SymPy could not show T(X Pi) = T(X) Pi "
                                                                  f"(trial {t}, n = {n}, entry ({e}, {j}))"})
                checked += 1
    return Result("T11", STATEMENT, Verdict.PROVED, Method.EXACT, seeds={"random": seed},
                  parameters={"n_max": n_max, "trials": trials, "E": E, "n_sublayers": n_sublayers},
                  conventions={"attention": "softmax(lambda * score), lambda symbolic", "entries": "symbols"},
                  certificate={"summary": f"symbolic softmax: T(X Pi) - T(X) Pi is identically 0 for {checked} "
                                          f"(Transformer, n, permutation) cases, n <= {n_max}",
                               "cases": checked})


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
    X + sum_h W_O^h W_V^h X exactly."""
    if not isinstance(trials, int) or not 1 <= trials <= 200 or not isinstance(n, int) or not 1 <= n <= 8:
        raise InputError("trials", "need 1 <= trials <= 200 and 1 <= n <= 8")
    rng = random.Random(seed)
    checked = 0
    for t in range(trials):
        E = rng.randint(1, 6)
        T = random_transformer(rng, E, rng.randint(1, 4))
        x = [Fraction(rng.randint(-3, 3), rng.choice((1, 2))) for _ in range(E)]
        for tie in TIE_RULES:
            states = T.evaluate(tuple(tuple(v for _ in range(n)) for v in x), tie=tie, trace=True)
            for s, (sub, X, Y) in enumerate(zip(T.sublayers, states, states[1:])):
                if any(len(set(row)) != 1 for row in Y):
                    return Result("T11", STATEMENT, Verdict.REFUTED, Method.EXACT, seeds={"random": seed},
                                  certificate={"summary": f"trial {t}, sublayer {s}: columns differ for X = x 1^T"})
                if isinstance(sub, Attention):
                    col = [row[0] for row in X]
                    lin = list(col)
                    for h in sub.heads:
                        v = [sum((h.W_V[i][e] * col[e] for e in range(E)), Fraction(0)) for i in range(h.size)]
                        for e in range(E):
                            lin[e] += sum((h.W_O[e][i] * v[i] for i in range(h.size)), Fraction(0))
                    if [row[0] for row in Y] != lin:
                        return Result("T11", STATEMENT, Verdict.REFUTED, Method.EXACT, seeds={"random": seed},
                                      certificate={"summary": f"trial {t}, sublayer {s}: attention is not "
                                                              f"X + sum W_O W_V X on identical tokens"})
                checked += 1
    return Result("T11", "for X = x 1^T every column of T(X) is equal and each attention sublayer acts as "
                         "X + sum_h W_O W_V X", Verdict.PROVED, Method.EXACT, seeds={"random": seed},
                  parameters={"trials": trials, "n": n}, conventions={"tie_rules": list(TIE_RULES)},
                  certificate={"summary": f"{checked} sublayer applications on identical tokens, both tie rules, exact",
                               "sublayers_checked": checked})


def check_first_rule_ties(values=(0, 5)) -> Result:
    """T11.n1: hardmax ``first`` with tied keys and different values is not equivariant."""
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise InputError("values", "expected two values")
    v0, v1 = (Fraction(v) for v in values)
    # coordinates (key, value, one, out)
    T = Transformer([Attention([Head([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[0, 1, 0, 0]], [[0], [0], [0], [1]])])],
                    coordinate_names=["key", "value", "one", "out"])
    X = ((Fraction(1), Fraction(1)), (v0, v1), (Fraction(1), Fraction(1)), (Fraction(0), Fraction(0)))
    perm = (1, 0)
    statement = "hardmax attention with the first tie rule is permutation equivariant"
    Y = T.evaluate(X, tie="first")
    Yp = T.evaluate(permute_columns(X, perm), tie="first")
    want = permute_columns(Y, perm)
    if Yp == want:
        return Result("T11.n1", statement, Verdict.PROVED, Method.EXACT, parameters={"values": [v0, v1]},
                      certificate={"summary": "equivariant on this instance"})
    f = lambda row: "(" + ", ".join(fraction_str(v) for v in row) + ")"
    return Result("T11.n1", statement, Verdict.REFUTED, Method.EXACT, parameters={"values": [v0, v1]},
                  conventions={"tie_rule": "first"},
                  certificate={"summary": f"first rule: T(X) out = {f(Y[3])}, T(X Pi) out = {f(Yp[3])} != "
                                          f"T(X) Pi = {f(want[3])}",
                               "witness": {"X": X, "perm": list(perm), "T_X": Y, "T_XPi": Yp}})


def check_positional_codes(tie: str = "average") -> Result:
    """T11.n2: the R4 Transformer of O2 with its one-hot codes fixed to positions (a positional encoding):
    token contents x = 0 and x = 1 swapped give a different output, so the map content -> output is not
    equivariant (REFUTED by design)."""
    net = MaxoutNetwork([([[[2], [-1]], [[-3], [1]]], [["-1/2", "1/3"], [1, -2]]), ([[[1, -2], [-1, 1]]], [[0, "1/2"]])])
    c = compile_maxout(net, [[0, 1]], S=40)
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
    statement = "the R4 Transformer with one-hot codes fixed to positions is permutation equivariant in the token contents"
    params = {"contents": list(contents), "tie": tie, "code_rows": [names[i] for i in p_rows]}
    h = names.index("h_1")
    if Yp == want:
        return Result("T11.n2", statement, Verdict.PROVED, Method.EXACT, parameters=params,
                      certificate={"summary": "equivariant on this instance"})
    return Result("T11.n2", statement, Verdict.REFUTED, Method.EXACT, parameters=params,
                  certificate={"summary": f"contents (x_1, x_2) = (0, 1): h_1 = {fraction_str(Y[h][0])}; swapped: "
                                          f"h_1 = {fraction_str(Yp[h][0])} != {fraction_str(want[h][0])}",
                               "witness": {"X": X, "X_swapped_contents": Xp, "T_X": Y, "T_XPi": Yp}})
