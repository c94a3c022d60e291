"""Laws of N3-N7 for the kernel: a strict reader of their SPEC entries and their CGFs (SymPy and arb).

A law is given as its SPEC entry (the SPEC format of docs/independence.md, as ``Distribution.to_dict()`` writes it); every
number is an exact number read by :func:`verify.kernel._read.num`.  :func:`read_laws` returns plain
dicts of Fractions and guarantees:

* ``discrete``: ``atoms`` (points, or numbers for d = 1) pairwise distinct, of one dimension; ``weights``
  (default uniform) all > 0 and summing to exactly 1;
* ``uniform_cube``: ``radius`` > 0, ``center`` (default 0 of dimension ``dim``, default 1);
* ``gaussian`` / ``laplace``: ``cov`` symmetric positive definite (exact LDL^T), ``mean`` (default 0);
* ``gaussian_mixture``: ``cov`` SPD, ``separation`` >= 0, ``direction`` != 0, ``center`` (default 0)
  (the law 1/2 N(c + a u/|u|, S) + 1/2 N(c - a u/|u|, S));
* every law has the same dimension 1..:data:`MAX_DIM`; at most :data:`MAX_LAWS` laws, :data:`MAX_ATOMS`
  atoms in all; every parameter has |value| <= :data:`MAX_MAGNITUDE`; unknown keys are rejected.

The CGF Lambda(theta) = log E exp(<theta, X>) of each family is written out here, independently of
:mod:`verify.laws`:

* discrete: log sum_k w_k exp(<x_k, theta>);  uniform cube: <c, theta> + sum_i log(sinh(r theta_i) / (r theta_i));
* gaussian: <m, theta> + theta^T S theta / 2;  laplace: <m, theta> - log(1 - theta^T S theta / 2)
  (domain theta^T S theta < 2);  mixture: <c, theta> + theta^T S theta / 2 + log cosh(a <u, theta> / |u|).

>>> law = read_laws([{"family": "discrete", "atoms": [[0], [1]]}])[0]
>>> law["weights"]
(Fraction(1, 2), Fraction(1, 2))
>>> read_laws([{"family": "gaussian", "cov": [[1]], "sigma": 1}])
Traceback (most recent call last):
...
verify.kernel._read.Rejected: parameters.laws[0]: unknown key(s) sigma
"""

from __future__ import annotations

from fractions import Fraction
from itertools import chain, repeat
from math import lcm
from operator import attrgetter, floordiv, is_, mul

import sympy
from flint import arb, ctx

from . import _read
from ._ball import ball, workprec
from ._read import Rejected

__all__ = ["MAX_LAWS", "MAX_DIM", "MAX_ATOMS", "MAX_MAGNITUDE", "FAMILIES", "read_laws", "read_law", "spd",
           "cgf_sympy", "cgf_ball", "in_domain"]

MAX_LAWS = 512
MAX_DIM = 16
MAX_ATOMS = 20_000          # atoms over all laws of one Result
MAX_MAGNITUDE = 10 ** 9     # |parameter|, as in verify.laws

_KEYS = {  # family: (required, optional)
    "discrete": (("family", "atoms"), ("weights",)),
    "uniform_cube": (("family", "radius"), ("center", "dim")),
    "laplace": (("family", "cov"), ("mean",)),
    "gaussian": (("family", "cov"), ("mean",)),
    "gaussian_mixture": (("family", "separation", "direction", "cov"), ("center",)),
}
FAMILIES = tuple(_KEYS)
# exact values of number texts already read: (atoms and other bounded parameters, weights).  A pure function
# of the text (keyed by the text, an int by (int, value)), so keeping it across Results changes no answer;
# cleared past MAX_MEMO.  The values of the first are interned (equal values are one object, _INTERN, keyed by
# numerator and denominator), so atoms read wholly from it are distinct exactly when their tuples of ids are.
_MEMO: tuple = ({}, {})
_INTERN: dict = {}
_NUM, _DEN = attrgetter("numerator"), attrgetter("denominator")
MAX_MEMO = 50_000


def _num(v, field, memo=None) -> Fraction:
    """An exact number with |value| <= MAX_MAGNITUDE.  ``memo`` (:data:`_MEMO`): an int or a short string
    already read and bounded is not read again (keyed by type and value, so True never stands for 1)."""
    key = _key(v) if memo is not None else None
    x = memo.get(key) if key is not None else None
    if x is None:
        x = _read.num(v, field)
        if abs(x) > MAX_MAGNITUDE:
            raise Rejected(f"{field}: |value| exceeds {MAX_MAGNITUDE}")
        if key is not None:
            memo[key] = x = _INTERN.setdefault((x.numerator, x.denominator), x) if memo is _MEMO[0] else x
    return x


def _key(v):
    """The memo key of a number text: the text for a string of at most 64 characters, (int, value) for an
    int (so True never stands for 1), else None."""
    t = type(v)
    return v if t is str and len(v) <= 64 else (int, v) if t is int else None


def _vec(v, field, n=None) -> tuple:
    xs = _read.lst(v, field, 1 if n is None else n, MAX_DIM if n is None else n)
    return tuple(_num(x, f"{field}[{i}]") for i, x in enumerate(xs))


def spd(S, field) -> None:
    """Reject unless the square matrix ``S`` (Fractions) is symmetric positive definite (exact LDL^T)."""
    n = len(S)
    if any(S[i][j] != S[j][i] for i in range(n) for j in range(i)):
        raise Rejected(f"{field}: not symmetric")
    A = [list(r) for r in S]
    for k in range(n):
        if A[k][k] <= 0:
            raise Rejected(f"{field}: not positive definite")
        for i in range(k + 1, n):
            f = A[i][k] / A[k][k]
            for j in range(k + 1, n):
                A[i][j] -= f * A[k][j]


def _cov(v, field) -> tuple:
    rows = _read.lst(v, field, 1, MAX_DIM)
    S = tuple(_vec(r, f"{field}[{i}]", len(rows)) for i, r in enumerate(rows))
    spd(S, field)
    return S


def _atom(a, field, n, memo) -> tuple:
    """One atom (a point, or a number for d = 1), of dimension ``n`` when given (one pass, read through
    ``memo``; the same checks and messages as :func:`_vec`)."""
    _read.tick()
    xs = _read.lst(a if isinstance(a, list) else [a], field, 1 if n is None else n, MAX_DIM if n is None else n)
    if all(type(x) is str for x in xs):            # the usual case: every coordinate read before
        hit = [memo.get(x) for x in xs]
        if None not in hit:
            return tuple(hit)
    return tuple([_num(x, f"{field}[{i}]", memo) for i, x in enumerate(xs)])


def _known_atoms(raw, memo):
    """The atoms of ``raw`` (a list of atoms) when every one is a list of one length 1..MAX_DIM of texts
    already in ``memo`` (so each was read and bounded before), else None (the caller reads them one by one)."""
    _read.tick()
    if set(map(type, raw)) != {list} or set(map(type, chain.from_iterable(raw))) != {str}:
        return None
    n = set(map(len, raw))
    if len(n) != 1 or not 1 <= min(n) <= MAX_DIM:
        return None
    A = tuple([tuple(map(memo.get, a)) for a in raw])
    return None if any(map(is_, chain.from_iterable(A), repeat(None))) else A


def _weights_ok(W, field) -> None:
    """Reject unless the weights ``W`` (Fractions) are all > 0 and sum to exactly 1."""
    dens = set(map(_DEN, W))
    if len(dens) <= 64:                # D = lcm of the denominators: sum w = 1 iff sum w D = D (integers)
        D = lcm(*dens)
        bad = min(map(_NUM, W)) <= 0 or sum(map(mul, map(_NUM, W), map(floordiv, repeat(D), map(_DEN, W)))) != D
    else:
        bad = any(w <= 0 for w in W) or sum(W) != 1
    if bad:
        raise Rejected(f"{field}.weights: not all > 0 or not summing to 1")


_DISCRETE_KEYS = frozenset({"family", "atoms", "weights"})


def _known_discrete(laws, field):
    """The law dicts of ``laws`` read in one pass over all of them when every entry is a discrete law (no
    other key) whose atoms are lists of one common length 1..MAX_DIM of texts all in the memo and whose weights
    (if given) are texts all in the weights memo -- so every number was read and bounded before -- and there are
    at most MAX_ATOMS atoms; else None (the caller reads law by law).  Repeated atoms and bad weights are
    rejected law by law, in order, with the messages of :func:`read_law`."""
    memo, wmemo = _MEMO
    _read.tick()
    if set(map(type, laws)) != {dict}:
        return None
    for d in laws:
        a, w = d.get("atoms"), d.get("weights", [])
        if (d.keys() - _DISCRETE_KEYS or type(d.get("family")) is not str or d["family"] != "discrete"
                or type(a) is not list or not a or type(w) is not list or ("weights" in d and len(w) != len(a))):
            return None
    atoms = list(chain.from_iterable([d["atoms"] for d in laws]))
    if len(atoms) > MAX_ATOMS or set(map(type, atoms)) != {list}:
        return None
    n = set(map(len, atoms))
    if len(n) != 1 or not 1 <= min(n) <= MAX_DIM:
        return None
    n = n.pop()
    coords = list(chain.from_iterable(atoms))
    wts = list(chain.from_iterable([d["weights"] for d in laws if "weights" in d]))
    if set(map(type, coords)) != {str} or (wts and set(map(type, wts)) != {str}):
        return None
    vals, wv = list(map(memo.get, coords)), list(map(wmemo.get, wts))
    if any(map(is_, vals, repeat(None))) or any(map(is_, wv, repeat(None))):
        return None
    T = list(zip(*[iter(vals)] * n))                       # the atoms, tuples of interned values
    I = list(zip(*[iter(list(map(id, vals)))] * n))       # their object ids: equal atoms have equal ids
    out, s, t = [], 0, 0
    for i, d in enumerate(laws):
        _read.tick()
        k = len(d["atoms"])
        if len(set(I[s:s + k])) != k:
            raise Rejected(f"{field}[{i}].atoms: repeated atom")
        A = tuple(T[s:s + k])
        s += k
        if "weights" in d:
            W = tuple(wv[t:t + k])
            t += k
        else:
            W = tuple(Fraction(1, k) for _ in A)
        _weights_ok(W, f"{field}[{i}]")
        out.append({"family": "discrete", "dim": n, "atoms": A, "weights": W})
    return out


def read_law(d, field: str, memo=None) -> dict:
    """One SPEC entry -> ``{"family", "dim", ...}`` with exact fields (see the module docstring).
    ``memo``: the pair (atoms, weights) of numbers already read (:func:`read_laws` passes :data:`_MEMO`)."""
    fam = _read.string(_read.obj(d, field, ("family",), tuple(d) if isinstance(d, dict) else ())["family"],
                       f"{field}.family", FAMILIES)
    _read.obj(d, field, *_KEYS[fam])
    if fam == "discrete":
        memo, wmemo = ({}, {}) if memo is None else memo     # atoms (bounded) and weights are read apart
        raw = _read.lst(d["atoms"], f"{field}.atoms", 1, MAX_ATOMS)
        A = _known_atoms(raw, memo) if memo is _MEMO[0] else None
        if A is not None:              # interned values: equal atoms are equal tuples of objects
            if len({tuple(map(id, a)) for a in A}) != len(A):
                raise Rejected(f"{field}.atoms: repeated atom")
        else:
            A = []
            for k, a in enumerate(raw):
                A.append(_atom(a, f"{field}.atoms[{k}]", len(A[0]) if A else None, memo))
            A = tuple(A)
            if len({tuple([(x.numerator, x.denominator) for x in a]) for a in A}) != len(A):   # Fractions are
                raise Rejected(f"{field}.atoms: repeated atom")                                 # in lowest terms
        if "weights" not in d:
            W = tuple(Fraction(1, len(A)) for _ in A)
        else:
            raw = _read.lst(d["weights"], f"{field}.weights", len(A), len(A))
            W = tuple(map(wmemo.get, raw)) if set(map(type, raw)) == {str} else (None,)
            if any(map(is_, W, repeat(None))):
                W = tuple(_weight(w, f"{field}.weights[{k}]", wmemo) for k, w in enumerate(raw))
        _weights_ok(W, field)
        return {"family": fam, "dim": len(A[0]), "atoms": A, "weights": W}
    if fam == "uniform_cube":
        r = _num(d["radius"], f"{field}.radius")
        if r <= 0:
            raise Rejected(f"{field}.radius: must be > 0")
        n = _read.integer(d.get("dim", len(d["center"]) if isinstance(d.get("center"), list) else 1),
                          f"{field}.dim", 1, MAX_DIM)
        c = _vec(d["center"], f"{field}.center", n) if "center" in d else (Fraction(0),) * n
        return {"family": fam, "dim": n, "radius": r, "center": c}
    S = _cov(d["cov"], f"{field}.cov")
    n = len(S)
    loc = "center" if fam == "gaussian_mixture" else "mean"
    m = _vec(d[loc], f"{field}.{loc}", n) if loc in d else (Fraction(0),) * n
    law = {"family": fam, "dim": n, "cov": S, "mean": m}
    if fam == "gaussian_mixture":
        a, u = _num(d["separation"], f"{field}.separation"), _vec(d["direction"], f"{field}.direction", n)
        if a < 0 or not any(u):
            raise Rejected(f"{field}: separation < 0 or zero direction")
        law.update(separation=a, direction=u)
    return law


def _weight(v, field, memo) -> Fraction:
    """A weight: any exact number (no magnitude bound), read through ``memo``."""
    key = _key(v)
    x = memo.get(key) if key is not None else None
    if x is None:
        x = _read.num(v, field)
        if key is not None:
            memo[key] = x
    return x


def read_laws(laws, field: str = "parameters.laws") -> list:
    """A non-empty list of SPEC entries of one dimension -> list of law dicts (see :func:`read_law`).
    Each distinct number text is parsed once (:data:`_MEMO`, kept across calls: the statement and the check
    of a Result read the same laws)."""
    out = []
    atoms = 0
    if len(_MEMO[0]) + len(_MEMO[1]) > MAX_MEMO:
        _MEMO[0].clear()
        _MEMO[1].clear()
        _INTERN.clear()
    known = _known_discrete(_read.lst(laws, field, 1, MAX_LAWS), field)
    if known is not None:
        return known
    for i, d in enumerate(laws):
        _read.tick()
        law = read_law(d, f"{field}[{i}]", _MEMO)
        atoms += len(law.get("atoms", ()))
        if atoms > MAX_ATOMS:
            raise Rejected(f"{field}: more than {MAX_ATOMS} atoms in all")
        if out and law["dim"] != out[0]["dim"]:
            raise Rejected(f"{field}[{i}]: dimension {law['dim']} differs from {field}[0] ({out[0]['dim']})")
        out.append(law)
    return out


def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _quad(S, t) -> Fraction:
    return sum((S[i][j] * t[i] * t[j] for i in range(len(t)) for j in range(len(t))), Fraction(0))


def in_domain(law, t) -> bool:
    """True iff the CGF of ``law`` is finite at the exact point ``t`` (only the Laplace domain is bounded)."""
    return law["family"] != "laplace" or _quad(law["cov"], t) < 2


def cgf_sympy(law, th):
    """Lambda as a SymPy expression in the symbols ``th`` (a sequence of length ``law["dim"]``)."""
    def R(x):
        return sympy.Rational(x.numerator, x.denominator)

    def lin(v):
        return sympy.Add(*[R(x) * t for x, t in zip(v, th)])

    fam = law["family"]
    if fam == "discrete":
        return sympy.log(sympy.Add(*[R(w) * sympy.exp(lin(a)) for a, w in zip(law["atoms"], law["weights"])]))
    if fam == "uniform_cube":
        r = R(law["radius"])
        return lin(law["center"]) + sympy.Add(*[sympy.log(sympy.sinh(r * t) / (r * t)) for t in th])
    n = law["dim"]
    quad = sympy.Add(*[R(law["cov"][i][j]) * th[i] * th[j] for i in range(n) for j in range(n)]) / 2
    if fam == "gaussian":
        return lin(law["mean"]) + quad
    if fam == "laplace":
        return lin(law["mean"]) - sympy.log(1 - quad)
    u = law["direction"]
    return lin(law["mean"]) + quad + sympy.log(sympy.cosh(R(law["separation"]) * lin(u) / sympy.sqrt(R(_dot(u, u)))))


def cgf_ball(law, t) -> arb:
    """Lambda(t) as an arb ball (containing the exact value) at the current precision; ``t`` exact
    rationals; rejects a point outside the Laplace domain."""
    fam = law["family"]
    if fam == "discrete":
        s = [_dot(a, t) for a in law["atoms"]]
        m = max(s)
        return ball(m) + sum((ball(w) * ball(x - m).exp() for x, w in zip(s, law["weights"])), arb(0)).log()
    if fam == "uniform_cube":
        out = ball(_dot(law["center"], t))
        prec = int(ctx.prec)
        for x in t:
            u = abs(law["radius"] * x)
            if 0 < u < Fraction(1, 2 ** (prec // 2 + 1)):
                # log(sinh u / u) = sum_k c_k u^2k, |c_k| = 2 zeta(2k) / (2k pi^2k): the terms from k = 3 on sum
                # to at most u^6 / 1000 for |u| <= 1/2 (c_1 = 1/6, c_2 = -1/180); relative error < 2^-prec here
                out += ball(u * u / 6 - u ** 4 / 180) + ball(u ** 6 / 1000) * arb(0, 1)
            elif u:  # log(sinh u / u) loses about 2 log2(1/u) bits for small u: work with that many more
                extra = 0 if u >= 1 else 2 * (u.denominator.bit_length() - u.numerator.bit_length() + 1) + 16
                with workprec(prec + extra):
                    ub = ball(u)
                    out += (ub.sinh() / ub).log()
        return out
    if not in_domain(law, t):
        raise Rejected("point: outside the Laplace domain")
    lin, half = _dot(law["mean"], t), _quad(law["cov"], t) / 2
    if fam == "gaussian":
        return ball(lin + half)
    if fam == "laplace":
        return ball(lin) - ball(1 - half).log()
    u = law["direction"]
    k = (ball(law["separation"] ** 2) / ball(_dot(u, u))).sqrt()
    return ball(lin + half) + (k * ball(_dot(u, t))).cosh().log()
