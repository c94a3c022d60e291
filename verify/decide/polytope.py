"""Exact polyhedral cells in any input dimension: the search behind the ``emulation-polytope`` and
``regions-polytope`` kernel kinds (docs/regions.md, "Polyhedral cells in any dimension").

The search runs the kernel's own evaluators (:func:`verify.kernel.emulation.polytope_leaf`,
:func:`verify.kernel._cells.eval_maxout`) on a recording cell (:class:`SearchCell`, a subclass of the kernel's
:class:`verify.kernel._poly.PolyCell`), so it takes exactly the decisions the kernel will re-check, in the same
order, with the same cache rule.  Each decision gets an exact certificate or a split.

Algorithm
---------
1. Roots: the 3^d relatively open faces of the closed box (emulation) or the open box (region counts), built by
   :func:`verify.kernel._poly.roots`.  Each cell is processed depth-first.
2. A point: a Chebyshev-style LP (scipy ``linprog(method="highs")``: maximise t with g_i(x) >= t |g_i| and
   the equations of the cell); the float optimum's free coordinates (in the exact parametrisation of the
   equations) are rounded to rationals of growing denominators and the point is checked exactly.  When the
   optimum is t <= 0 the cell is empty: Motzkin multipliers are solved exactly on the LP's active constraints
   and checked exactly.  A parent's point is reused by the child that contains it.
3. A decision f at the cell's point p, s = sign f(p): s = 0 -- exact linear algebra: f is a combination of the
   equations (certificate) or f varies on the cell (split by f); s != 0 -- the exact box bound first, else the
   bound by one constraint of the cell and the box (exact; a constraint that the box minimiser of s f and the
   cell's point rule out exactly is skipped, the rest pass a float filter with a wide margin first; each
   constraint's outcome is remembered per box and s f, since it depends on nothing else), else an
   LP minimising s f over the closed cell; its active constraints give y, lambda solved exactly and checked
   (y >= 0, constant >= 0); a negative minimum or a failed rounding splits the cell by f.  Children inherit
   the parent's certificates (still valid: a child's constraints extend the parent's).  A split with
   f(p) > 0 does not restart: the evaluation goes on in the positive child, processed next anyway
   (:class:`SearchCell`; the same tree and entries as a restart).
4. A leaf whose evaluation completes is recorded with its point and entries; emulation compares the two
   sides on it (a difference: an exact witness, the cell's point), region counts record its pattern.
5. Region counts only (:func:`activation_search`; emulation trees are unaffected): the root is the open box
   alone; the pattern is evaluated by :func:`_eval_pattern` (the kernel's decisions, memoised per prefix
   pattern); a :class:`PointPool` of seeded exact box points lets a decision that changes sign at a pool point
   split the cell with no LP (that point, checked exactly, is the far child's point); a decision equal to one of
   the cell's constraints up to a positive factor gets its one-multiplier entry directly; HiGHS runs without
   presolve (``COUNT_PRESOLVE``).  When neither the box bound nor the pool nor the one-constraint bound
   settles a decision, a float active-set descent of s f from the cell's point (:func:`_descent_point`,
   ``DESCENT``) proposes a far-side point (small dyadic denominators, checked exactly) or ends at a float
   minimum of s f, which stands in for the sign LP's optimum (its working set proposes y, solved and checked
   exactly as the LP's duals are; :func:`_descended`); HiGHS runs only when the descent gives up.  A split
   with f(p) < 0 goes on in the negative child, the point's side (``RESUME_NEG``; the same tree).

Soundness
---------
Nothing float decides anything: every recorded leaf, emptiness and sign carries an exact certificate that
the kernel re-checks (``emulation-polytope``, ``regions-polytope``); a float LP only proposes.  When no exact
certificate is found (rounding failed twice) the run ends INCONCLUSIVE (:class:`Stuck`), never with a float
verdict.  The witness of a difference is the leaf's exact point, re-evaluated exactly by the caller.

Limits
------
Input dimension 1..6 (the kernel's :data:`verify.kernel._poly.MAX_POLY_DIM`); ``max_cells`` leaves and
``time_budget`` seconds: past either the result is partial (``complete`` false) with the finished roots and
an estimate (seeded Monte Carlo, evidence only) of the volume fraction covered by finished open leaves.
"""

from __future__ import annotations

import random
import threading
import time
from fractions import Fraction
from operator import mul

import numpy as np
from gmpy2 import mpq, to_binary
from scipy.optimize import linprog

from ..kernel import _cells as KC
from ..kernel import _poly as KP

__all__ = ["SearchCell", "Split", "Stuck", "search", "emulation_search", "activation_search", "prove_activation_count",
           "CONVENTIONS",
           "DEFAULT_MAX_CELLS", "DEFAULT_TIME_BUDGET", "MAX_DIM"]

DEFAULT_MAX_CELLS = 200_000
MAX_DIM = KP.MAX_POLY_DIM
DEFAULT_TIME_BUDGET = 600.0
RESUME_NEG = True    # region counts: a split with f(p) < 0 goes on in its negative child too (the same tree)
RESUME = True       # a split with f(p) > 0 goes on in its positive child (False: restart it; the same tree)
CHORDS = 0           # float chords tried from the cell's point before the bound / LP path (region counts; measured
                     # not to pay on the bench networks: their cost exceeds the LPs they save, so off)
COUNT_PRESOLVE = "off"   # HiGHS presolve for region counts (below)
ONE_MEMO = True      # the one-constraint bound remembers each constraint's outcome per box and decision (False:
                     # recomputed in every cell; the same entries)
DESCENT = True       # region counts: a float active-set descent proposes far-side points before the LP (_descent_point)
SMALL_POINTS = True  # region counts: far children's points rounded to small denominators (_small_far_point)
POOL = 1000          # seeded exact sample points of the box for region counts (PointPool; 0: none)
BOX_MEMO = True      # emulation: a form of constant sign on the closed face is signed from a memo per face (False:
                     # its value at the point and sign_certificate's box bound; the same entries)
POLY2 = True         # sign entries on 2-cells from their exact polygon where the LP's active set is forced (False:
                     # the LP path; the same entries)
LOW_DIM = True       # sign entries on cells of dimension 0 and 1 by exact elimination, no LP (False: the LP path;
                     # the same entries wherever the LP's active set is the one found here)
_Z = mpq(0)
_DENS = (2 ** 6, 2 ** 12, 2 ** 24, 2 ** 40)


class Split(Exception):
    """A decision whose sign is not constant on the cell: split it by ``form``."""

    def __init__(self, form, hint=None):
        super().__init__("split")
        self.form, self.hint = form, hint       # hint: a float minimiser, or an exact point (tuple) of the far side


class Stuck(Exception):
    """No exact certificate found for a float answer (the run ends INCONCLUSIVE)."""


def _s(q) -> str:
    return str(mpq(q))


def _unrolled_at(d: int):
    """``f(x)`` for forms of length d + 1 and points of length d, the sum written out (no slice, map or sum:
    a third of the time of the generic loop on mpq); the same exact value, an mpq."""
    fs, xs = ", ".join(f"f{k}" for k in range(d + 1)), ", ".join(f"x{k}" for k in range(d))
    body = " + ".join(["_Z + f0"] + [f"f{k + 1} * x{k}" for k in range(d)])
    ns = {"_Z": _Z}
    exec(f"def at(f, x):\n    {fs}, = f\n    {xs}, = x\n    return {body}\n", ns)
    return ns["at"]


_ATS = {d: _unrolled_at(d) for d in range(1, 7)}


def _at(f, x):
    fn = _ATS.get(len(x))
    if fn is not None and len(f) == len(x) + 1:
        return fn(f, x)
    return sum(map(mul, f[1:], x), _Z + f[0])


_solve = KP.solve


def _limit(x: float, den: int):
    """``mpq(Fraction(x).limit_denominator(den))`` without building Fractions: the closest rational to the
    float x with denominator <= den (the continued-fraction steps of :meth:`fractions.Fraction.limit_denominator`,
    the same tie rule), as an mpq."""
    n0, d0 = float(x).as_integer_ratio()
    if d0 <= den:
        return mpq(n0, d0)
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = n0, d0
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > den:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (den - q0) // q1
    x0 = mpq(n0, d0)
    b1, b2 = mpq(p0 + k * p1, q0 + k * q1), mpq(p1, q1)
    return b2 if abs(b2 - x0) <= abs(b1 - x0) else b1


def _sparse_json(pairs) -> list:
    return [[i, _s(q)] for i, q in pairs if q]


def _combination(E, f, d):
    """lambda with f == sum lambda_j E_j exactly (all d + 1 coefficients), or None."""
    if not E:
        return [] if not any(f) else None
    A = [[e[k] for e in E] for k in range(d + 1)]
    lam = _solve(A, list(f))
    return None if lam is None else list(enumerate(lam))


def rref_rows(M: list, ncols: int) -> list:
    """Reduce the rows ``M`` (lists of exact mpq, changed in place) to reduced row echelon form over their first
    ``ncols`` columns (later columns are carried along); returns the pivot columns (their number is the rank)."""
    m, piv, r = len(M), [], 0
    for c in range(ncols):
        k = next((i for i in range(r, m) if M[i][c]), None)
        if k is None:
            continue
        M[r], M[k] = M[k], M[r]
        inv = 1 / M[r][c]
        M[r] = [v * inv for v in M[r]]
        for i in range(m):
            if i != r and M[i][c]:
                t = M[i][c]
                M[i] = [a - t * w for a, w in zip(M[i], M[r])]
        piv.append(c)
        r += 1
        if r == m:
            break
    return piv


def _parametrise(E, d):
    """(free coordinates, x(free values)) solving the equations exactly, or None if they are inconsistent."""
    if not E:
        return list(range(d)), lambda z: list(z)
    M = [[mpq(c) for c in e[1:]] + [-mpq(e[0])] for e in E]
    m = len(M)
    piv = rref_rows(M, d)
    r = len(piv)
    if any(M[i][d] for i in range(r, m)):
        return None
    free = [c for c in range(d) if c not in piv]
    rows = M[:r]

    def x_of(z):
        x = [_Z] * d
        for c, v in zip(free, z):
            x[c] = v
        for row, c in zip(rows, piv):
            x[c] = row[d] - sum((row[f] * x[f] for f in free), _Z)
        return x

    return free, x_of


try:        # HiGHS through scipy's own binding, without linprog's input checks (3x less overhead per small LP)
    from scipy.optimize._highspy import _core as _hs
except ImportError:     # pragma: no cover - another scipy layout: linprog below
    _hs = None


_local = threading.local()
if _hs is not None:
    _COLWISE = int(_hs.MatrixFormat.kColwise)
    _MINIMIZE = int(_hs.ObjSense.kMinimize)
    _kOPT = _hs.HighsModelStatus.kOptimal


def _highs():
    """One HiGHS instance per thread, cleared before each model (creating one costs ~0.5 ms, more than a small
    LP's solve)."""
    h = getattr(_local, "highs", None)
    if h is None:
        h = _local.highs = _hs._Highs()
        h.setOptionValue("output_flag", False)
        _local.presolve_set = "choose"
    else:
        h.clearModel()
    want = getattr(_local, "presolve", "choose")
    if want != _local.presolve_set:
        h.setOptionValue("presolve", want)
        _local.presolve_set = want
    return h


def _lp(c, A_ub, b_ub, A_eq=None, b_eq=None, ub_last=None):
    """min c x subject to A_ub x <= b_ub, A_eq x = b_eq, x free (the last variable <= ub_last if given), by HiGHS:
    ``(ok, value, x, duals of the A_ub rows)`` (duals <= 0, as linprog's marginals).  Floats: a proposal only."""
    n = len(c)
    if A_ub is None:
        A_ub, b_ub = np.zeros((0, n)), np.zeros(0)
    if getattr(_local, "opt", None) is not None:
        out = _descended(c, A_ub, b_ub) if A_eq is None and ub_last is None else None
        _local.opt = None
        if out is not None:
            return out
    if _hs is None:
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                      bounds=[(None, None)] * (n - 1) + [(None, ub_last)], method="highs")
        if res.status != 0:
            return False, None, None, None
        return True, res.fun, res.x, np.asarray(res.ineqlin.marginals)
    M = A_ub if A_eq is None else np.vstack([A_ub, A_eq])
    m = M.shape[0]
    free, up, cont = _col_consts(n)
    if ub_last is not None:
        up = up.copy()
        up[-1] = ub_last
    nb = len(b_ub)
    if b_eq is None:
        row_lo, row_up = _neg_inf(nb), np.asarray(b_ub, dtype=float)
    else:
        row_lo = np.concatenate([_neg_inf(nb), b_eq])
        row_up = np.concatenate([b_ub, b_eq])
    MT = M.T
    nz = MT != 0
    cols, index = np.nonzero(nz)                   # column-wise: column of each non-zero, its row
    start = np.searchsorted(cols, np.arange(n)).astype(np.int32)
    h = _highs()
    # the flat overload of passModel (the same model as a HighsLp with these fields, without building one):
    # columns, rows, non-zeros, column-wise format (column starts without the end), minimise, offset 0, costs,
    # bounds, matrix, every column continuous
    h.passModel(n, m, len(index), _COLWISE, _MINIMIZE, 0.0, np.asarray(c, dtype=float), free, up,
                row_lo, row_up, start, index.astype(np.int32), MT[nz], cont)
    h.run()
    if h.getModelStatus() != _kOPT:
        return False, None, None, None
    sol = h.getSolution()
    return True, h.getObjectiveValue(), np.array(sol.col_value), np.array(sol.row_dual)[:nb]


_CONSTS: dict = {}


def _col_consts(n):
    """(-inf, +inf, 0) arrays of length n, shared (HiGHS copies what it reads; never written here)."""
    out = _CONSTS.get(n)
    if out is None:
        out = _CONSTS[n] = (np.full(n, -np.inf), np.full(n, np.inf), np.zeros(n, dtype=np.int32))
    return out


def _neg_inf(m):
    out = _CONSTS.get(-1 - m)
    if out is None:
        out = _CONSTS[-1 - m] = np.full(m, -np.inf)
    return out

_FLOATS: dict = {}          # affine form (tuple of mpq) -> its float row (cleared by each search)


def _frow(g):
    """The float row of an affine form (correctly rounded coefficients), cached."""
    r = _FLOATS.get(g)
    if r is None:
        r = _FLOATS[g] = [float(c) for c in g]
    return r


_GMATS: dict = {}            # id(G) -> (G, its float rows as one array) (cleared by each search, and when large)


def _gmat(G):
    """The float rows (:func:`_frow`) of the constraint list G as one array, cached by the identity of the list
    (the search never mutates a list G: a child gets a new one), so a cell's LPs and float filters share it."""
    hit = _GMATS.get(id(G))
    if hit is not None and hit[0] is G:
        return hit[1]
    if len(_GMATS) >= 256:
        _GMATS.clear()
    M = np.array([_frow(g) for g in G])
    _GMATS[id(G)] = (G, M)
    return M


def _lp_arrays(E, G, d):
    if G:
        Gf = _gmat(G)
        Gl, G0 = Gf[:, 1:], Gf[:, 0]
    else:
        Gl, G0 = np.zeros((0, d)), np.zeros(0)
    El = np.array([[float(c) for c in e[1:]] for e in E]) if E else None
    E0 = np.array([-float(e[0]) for e in E]) if E else None
    return Gl, G0, El, E0


def _motzkin(E, G, y_float, d):
    """Exact Motzkin multipliers on the LP's active constraints: (y, lambda) with sum y g + sum l e a constant
    <= 0 and sum y = 1, or None."""
    act = [i for i, v in enumerate(y_float) if v > 1e-12]
    if not act:
        return None
    A = [[G[i][k] for i in act] + [e[k] for e in E] for k in range(1, d + 1)]
    A.append([mpq(1)] * len(act) + [_Z] * len(E))
    u = _solve(A, [_Z] * d + [mpq(1)])
    if u is None:
        return None
    y = list(zip(act, u[:len(act)]))
    lam = list(enumerate(u[len(act):]))
    if any(q < 0 for _, q in y):
        return None
    c = sum((q * G[i][0] for i, q in y), _Z) + sum((q * E[j][0] for j, q in lam), _Z)
    if c > 0:
        return None
    return {"y": _sparse_json(y), "l": _sparse_json(lam)}


def find_point(E, G, d):
    """An exact point of {e = 0, g > 0} (a tuple of mpq) or ``{"y", "l"}`` Motzkin multipliers proving the
    cell empty; :class:`Stuck` when neither is found exactly."""
    par = _parametrise(E, d)
    if par is None:                       # inconsistent equations: l with sum l e = -1
        A = [[e[k] for e in E] for k in range(d + 1)]
        lam = _solve(A, [mpq(-1)] + [_Z] * d)
        if lam is None:
            raise Stuck("inconsistent equations without an exact combination")
        return {"y": [], "l": _sparse_json(enumerate(lam))}
    free, x_of = par
    Gl, G0, El, E0 = _lp_arrays(E, G, d)
    norms = np.linalg.norm(Gl, axis=1) if len(G) else np.zeros(0)
    A_ub = np.hstack([-Gl, norms[:, None]]) if len(G) else None
    c = np.zeros(d + 1)
    c[-1] = -1.0
    A_eq = np.hstack([El, np.zeros((len(E), 1))]) if E else None
    ok, fun, xv, duals = _lp(c, A_ub, G0, A_eq, E0, ub_last=1.0)
    if not ok:
        raise Stuck("point LP: no optimum")
    t = -fun
    if t > 1e-12:
        xs = xv[:d]
        for den in _DENS:
            z = [_limit(xs[k], den) for k in free]
            x = x_of(z)
            if all(_at(g, x) > 0 for g in G):
                return tuple(x)
        x = x_of([mpq(Fraction(float(xs[k]))) for k in free])
        if all(_at(g, x) > 0 for g in G):
            return tuple(x)
    y = -duals if len(G) else np.zeros(0)
    cert = _motzkin(E, G, y, d)
    if cert is None:
        raise Stuck(f"cell with Chebyshev radius {t:.3g}: no exact point and no exact Motzkin certificate")
    return cert


def _box_value(sf, bounds):
    c = sf[0]
    for k, (lo, hi, fixed) in enumerate(bounds):
        a = sf[k + 1]
        if a:
            c += a * (fixed if fixed is not None else (lo if a > 0 else hi))
    return c


def _float_bounds(bounds, fs):
    """The float data :func:`_may_bound` reads: the bounds as floats, max(|lo|, |hi|) per coordinate, and
    |s f_0| + sum |s f_j| max(|lo_j|, |hi_j|) (the part of M that does not depend on g)."""
    fb = [(float(lo), float(hi), None if fixed is None else float(fixed)) for lo, hi, fixed in bounds]
    bm = [max(abs(lo), abs(hi)) for lo, hi, _ in fb]
    return fb, bm, abs(fs[0]) + sum(abs(u) * b for u, b in zip(fs[1:], bm))


def _may_bound(fs, fg, fbd, d) -> bool:
    """False only if every breakpoint a of :func:`_one_constraint` gives a box bound of s f - a g below
    -1e-9 (1 + M) in floats, M bounding the magnitudes of its terms (|s f_k| + |a g_k| times the largest
    |bound|; computed as (|s f_0| + sum |s f_j| b_j) + a (|g_0| + sum |g_j| b_j), the same sum regrouped): the
    rounding error of these few operations, a's own included, is below 1e-14 M, so the exact bound is < 0 too
    and the exact loop would find nothing for g (a speed filter: it never changes the entry).  ``fbd`` is
    :func:`_float_bounds`."""
    fb, bm, sfm = fbd
    sgm = abs(fg[0]) + sum(abs(v) * b for v, b in zip(fg[1:], bm))
    fs0, g0, fl, gl = fs[0], fg[0], fs[1:], fg[1:]
    for k in range(d):
        gk = gl[k]
        if not gk:
            continue
        a = fl[k] / gk
        if a <= 0:
            continue
        c = fs0 - a * g0
        for (lo, hi, fixed), u, v in zip(fb, fl, gl):
            r = u - a * v
            c += r * (fixed if fixed is not None else (lo if r > 0 else hi))
        if c >= -1e-9 * (1 + sfm + a * sgm):
            return True
    return False


_OC: dict = {}          # the outcomes of _one_g for one box: tuple(s f) -> {g: None or (a, s f - a g)}
_OC_BOUNDS = [None]     # the bounds those outcomes are for (cleared when they change)
_MISS = object()


def _one_constraint(G, bounds, sf, d, p=None):
    """Exact and LP-free: ``s f = a g + (box constraints) + c`` with one constraint g of the cell beyond the box
    (a >= 0 maximising the box bound; the bound is concave in a, so its breakpoints suffice).  The entry, or
    None: the first g of G (after the box's own constraints) that admits such an a.  ``p``: a point of the cell
    with s f(p) > 0 (the cell's point), used by an exact skip test.

    Whether g admits an a, and which, depends on g, s f and the box only (the skip tests only skip constraints
    that admit none), so the outcome of each g is remembered per box and s f (``_OC``): cells of one root share
    most of their constraints and decisions; the entry is built from the outcome and g's index in this cell."""
    nb = 2 * sum(1 for b in bounds if b[2] is None)
    if nb >= len(G):
        return None
    if _OC_BOUNDS[0] is not bounds or len(_OC) > 100_000 or not ONE_MEMO:
        _OC.clear()
        _OC_BOUNDS[0] = bounds
    sfk = tuple(sf)
    memo = _OC.get(sfk)
    if memo is None:
        memo = _OC[sfk] = {}
    ctx = None
    for i in range(nb, len(G)):
        g = G[i]
        out = memo.get(g, _MISS)
        if out is _MISS:
            if ctx is None:
                # x*: a point of the closed face where s f takes its box bound c0 (< 0 here)
                xs = [fixed if fixed is not None else (lo if a > 0 else hi) for a, (lo, hi, fixed) in zip(sf[1:], bounds)]
                ctx = [xs, _at(sf, xs), _at(sf, p) if p is not None else None, None, None]
            out = memo[g] = _one_g(g, sf, bounds, d, p, ctx)
        if out is not None:
            a, r = out
            y = [(i, a)]
            for k, (lo, hi, fixed) in enumerate(bounds):
                if fixed is None and r[k + 1]:
                    j = 2 * sum(1 for b in bounds[:k] if b[2] is None)
                    y.append((j, r[k + 1]) if r[k + 1] > 0 else (j + 1, -r[k + 1]))
            lam = []
            ne = 0
            for k, (lo, hi, fixed) in enumerate(bounds):
                if fixed is not None:
                    if r[k + 1]:
                        lam.append((ne, r[k + 1]))
                    ne += 1
            return {"y": _sparse_json(sorted(y)), "l": _sparse_json(lam)}
    return None


def _one_g(g, sf, bounds, d, p, ctx):
    """``(a, s f - a g)`` for the smallest breakpoint a >= 0 whose box bound of s f - a g is >= 0, or None.
    ``ctx``: ``[x*, c0, s f(p) or None, float data]`` shared by the constraints of one call."""
    xs, c0, fp = ctx[0], ctx[1], ctx[2]
    # For every a >= 0 the box bound of s f - a g is at most s f(x*) - a g(x*) = c0 - a g(x*), so a g with
    # g(x*) >= 0 (exactly) gives no bound >= 0 and the exact loop below would find nothing for it: skipped (exact,
    # so the same outcome).  With p: a bound >= 0 needs a g(x*) <= c0 and a g(p) <= s f(p) (g(p) > 0), i.e.
    # c0 / g(x*) <= a <= s f(p) / g(p); when c0 g(p) < s f(p) g(x*) (both sides multiplied by g(x*) g(p) < 0) no
    # a >= 0 works: skipped too.
    gx = _at(g, xs)
    if gx >= 0:
        return None
    if fp is not None and c0 * _at(g, p) < fp * gx:
        return None
    if ctx[3] is None:
        fs = [float(c) for c in sf]
        ctx[3], ctx[4] = fs, _float_bounds(bounds, fs)
    if not _may_bound(ctx[3], _frow(g), ctx[4], d):
        return None             # no multiplier of g gives a box bound >= 0 (float test with a wide margin)
    alphas = {sf[k] / g[k] for k in range(1, d + 1) if g[k] and sf[k] / g[k] > 0}
    for a in sorted(alphas):
        r = [u - a * v for u, v in zip(sf, g)]
        if _box_value(r, bounds) >= 0:
            return a, r
    return None


_LINES: dict = {}       # id(E) -> (E, data of _low_dim_data) for cells of dimension 0 and 1 (E is held, so its id
                        # is not reused while the entry lives; cleared when large)


def _inverse(A):
    """The exact inverse of the square matrix A (rows), or None when it is singular."""
    n = len(A)
    cols = []
    for k in range(n):
        u = _solve(A, [mpq(1) if i == k else _Z for i in range(n)])
        if u is None:
            return None
        cols.append(u)
    return [[cols[k][i] for k in range(n)] for i in range(n)]          # row i of A^-1


def _low_dim_data(E, d):
    """For d equations: (None, P, A_P^-1) with P = all coordinates; for d - 1: (w, P, A_P^-1), w spanning the
    line {E_lin x = 0} and P d - 1 coordinates whose rows of A = E_lin^T are independent; None otherwise."""
    hit = _LINES.get(id(E))
    if hit is not None and hit[0] is E:
        return hit[1]
    A = [[e[k] for e in E] for k in range(1, d + 1)]
    data = None
    if len(E) == d:
        inv = _inverse(A)
        if inv is not None:
            data = (None, list(range(d)), inv)
    else:
        par = _parametrise(E, d)
        if par is not None and len(par[0]) == 1:
            x_of = par[1]
            w = [a - b for a, b in zip(x_of([mpq(1)]), x_of([_Z]))]
            for skip in range(d):
                P = [k for k in range(d) if k != skip]
                inv = _inverse([A[k] for k in P])
                if inv is not None:
                    data = (w, P, inv)
                    break
    if len(_LINES) > 10_000:
        _LINES.clear()
    _LINES[id(E)] = (E, data)
    return data


def _lam(data, r):
    _, P, inv = data
    rp = [r[k] for k in P]
    return [sum((a * b for a, b in zip(row, rp)), _Z) for row in inv]


def _low_dim_entry(E, G, sf, d, p):
    """The entry of s f > 0 on a cell of dimension 0 or 1 (d or d - 1 independent equations) without an LP, or
    None (then the LP path runs).  A point: s f - s f(p) vanishes on {E = 0}, so it is sum lambda e (the unique
    solution; what the LP path's elimination gives when no inequality is active).  A segment {p + t w}: s f
    changes along w by a = s f . w per unit; if a = 0, lambda alone as for a point; otherwise its minimum on the
    closed segment is at the end where the first constraint g_i reaches 0 moving against a's sign, and
    s f = y g_i + sum lambda e + c with y = (s f . u) / (g_i . u) > 0 and c = s f at that end (the unique
    solution, so the one of the LP path's elimination with the active set {i}).  lambda from the inverse of d - 1
    independent rows of E's linear parts (cached per equation list).  A tie between two constraints at that
    end, c < 0 or any other case: None (the LP path, with its split hint, decides)."""
    data = _low_dim_data(E, d)
    if data is None:
        return None
    rhs = sf[1:]
    w = data[0]
    a = _Z if w is None else sum((c * t for c, t in zip(rhs, w)), _Z)
    if not a:
        u = _lam(data, rhs)
        rest = sf[0] - sum((q * e[0] for q, e in zip(u, E)), _Z)
        return {"y": [], "l": _sparse_json(enumerate(u))} if rest >= 0 else None
    best, tie, bi, bgu = None, False, -1, None
    for i, g in enumerate(G):
        gu = sum((c * t for c, t in zip(g[1:], w)), _Z)
        if a > 0:
            gu = -gu                # moving along u = -w
        if gu >= 0:
            continue
        t = _at(g, p) / -gu
        if best is None or t < best:
            best, tie, bi, bgu = t, False, i, gu
        elif t == best:
            tie = True
    if best is None or tie:
        return None
    g = G[bi]
    y = (-a if a > 0 else a) / bgu          # (s f . u) / (g . u), u = -w when a > 0
    if y <= 0:
        return None
    u = _lam(data, [c - y * b for c, b in zip(rhs, g[1:])])
    rest = sf[0] - y * g[0] - sum((q * e[0] for q, e in zip(u, E)), _Z)
    if rest < 0:
        return None
    return {"y": _sparse_json([(bi, y)]), "l": _sparse_json(enumerate(u))}


def sign_certificate(E, G, bounds, f, s, d, p=None):
    """The sign entry of :meth:`verify.kernel._poly.PolyCell.certify` for s f > 0 on the cell, or
    :class:`Split` when the float LP finds s f < 0 somewhere (or no exact certificate is found)."""
    sf = [s * c for c in f]
    c0 = sf[0]
    for k, (lo, hi, fixed) in enumerate(bounds):
        a = sf[k + 1]
        c0 += a * (fixed if fixed is not None else (lo if a > 0 else hi))
    if c0 >= 0:
        return "box"
    one = _one_constraint(G, bounds, sf, d, p)
    if one is not None:
        return one
    if LOW_DIM and len(E) >= d - 1 and p is not None:
        low = _low_dim_entry(E, G, sf, d, p)
        if low is not None:
            return low
    if POLY2 and p is not None and len(E) == d - 2:
        ent = _polygon_entry(E, G, bounds, sf, d)
        if ent is not None:
            return ent
    Gl, G0, El, E0 = _lp_arrays(E, G, d)
    obj = np.array([float(c) for c in sf[1:]])
    ok, fun, xv, duals = _lp(obj, -Gl, G0, El, E0)
    if not ok:
        raise Stuck("sign LP: no optimum")
    if float(sf[0]) + fun < -1e-9:
        raise Split(tuple(f), xv)
    y = -duals
    act = [i for i, v in enumerate(y) if v > 1e-12]
    out = _active_entry(E, G, sf, act, d)
    if out is not None:
        return out[0]
    raise Split(tuple(f))


def _active_entry(E, G, sf, act, d):
    """The LP path's elimination: y on the constraints ``act`` and lambda on E with s f's linear part exactly
    their combination (one solution, free unknowns 0): ``(entry, y values)`` when y >= 0 and the rest is >= 0,
    else None."""
    A = [[G[i][k] for i in act] + [e[k] for e in E] for k in range(1, d + 1)]
    u = (_solve3(A, sf[1:]) if d == 3 and len(act) + len(E) == 3 else _solve(A, sf[1:])) if (act or E) else None
    if u is not None:
        yy = list(zip(act, u[:len(act)]))
        lam = list(enumerate(u[len(act):]))
        rest = sf[0] - sum((q * G[i][0] for i, q in yy), _Z) - sum((q * E[j][0] for j, q in lam), _Z)
        if all(q >= 0 for _, q in yy) and rest >= 0:
            return {"y": _sparse_json(yy), "l": _sparse_json(lam)}, [q for _, q in yy]
    return None


def _solve3(A, b):
    """:func:`_solve` of a 3 x 3 system by Cramer's rule when A is nonsingular (the unique solution, so the one
    _solve gives), else _solve itself."""
    (a, b_, c), (d, e, f), (g, h, i) = A
    ei_fh, fg_di, dh_eg = e * i - f * h, f * g - d * i, d * h - e * g
    det = mpq(a * ei_fh + b_ * fg_di + c * dh_eg)
    if not det:
        return _solve(A, b)
    x, y, z = b
    u0 = x * ei_fh + y * (c * h - b_ * i) + z * (b_ * f - c * e)
    u1 = x * fg_di + y * (a * i - c * g) + z * (c * d - a * f)
    u2 = x * dh_eg + y * (b_ * g - a * h) + z * (a * e - b_ * d)
    return [u0 / det, u1 / det, u2 / det]


_POLYS: dict = {}       # (id(E), id(G)) -> (E, G, the closed 2-cell's polygon) (cleared by search)
_MARGIN = 1e-5          # POLY2's separations (relative to the forms' sizes) that leave HiGHS one active set


def _polygon(E, G, bounds, d):
    """The closed 2-cell {E = 0, G >= 0} in coordinates z of its plane: ``(x0, w1, w2, vertices z, their active
    sets)`` with x = x0 + z1 w1 + z2 w2 (z: two free coordinates of the equations), the vertices in order (exact
    clipping of the box rectangle of the free coordinates by every g) and for each the indices of the g that
    are 0 there (None when another g is within the margin of 0), or None (not a 2-cell, or a degenerate
    polygon)."""
    hit = _POLYS.get((id(E), id(G)))
    if hit is not None and hit[0] is E and hit[1] is G:
        return hit[2]
    out = None
    par = _parametrise(E, d)
    if par is not None and len(par[0]) == 2:
        (k1, k2), x_of = par
        x0 = x_of([_Z, _Z])
        w1 = [a - b for a, b in zip(x_of([mpq(1), _Z]), x0)]
        w2 = [a - b for a, b in zip(x_of([_Z, mpq(1)]), x0)]
        gz = [(_at(g, x0), sum((a * b for a, b in zip(g[1:], w1)), _Z), sum((a * b for a, b in zip(g[1:], w2)), _Z))
              for g in G]
        (lo1, hi1, _), (lo2, hi2, _) = bounds[k1], bounds[k2]
        poly = [(mpq(lo1), mpq(lo2)), (mpq(hi1), mpq(lo2)), (mpq(hi1), mpq(hi2)), (mpq(lo1), mpq(hi2))]
        for a0, a1, a2 in gz:
            vals = [a0 + a1 * z1 + a2 * z2 for z1, z2 in poly]
            if all(v >= 0 for v in vals):
                continue
            new, n = [], len(poly)
            for i in range(n):
                vc, vn = vals[i], vals[(i + 1) % n]
                if vc >= 0:
                    new.append(poly[i])
                if (vc > 0 and vn < 0) or (vc < 0 and vn > 0):
                    t = vc / (vc - vn)
                    (p1, p2), (q1, q2) = poly[i], poly[(i + 1) % n]
                    new.append((p1 + t * (q1 - p1), p2 + t * (q2 - p2)))
            poly = new
            if len(poly) < 3:
                break
        if len(poly) >= 3:
            # per vertex: the constraints exactly 0 there, or None when another one is nearly 0 (within the
            # margin: HiGHS's tolerances might count it active)
            tol = [_MARGIN * (1.0 + max(abs(float(c)) for c in g)) for g in G]
            acts = []
            for z1, z2 in poly:
                act = []
                for i, (a0, a1, a2) in enumerate(gz):
                    v = a0 + a1 * z1 + a2 * z2
                    if not v:
                        act.append(i)
                    elif float(v) <= tol[i]:
                        act = None
                        break
                acts.append(act)
            out = (x0, w1, w2, poly, acts)
    if len(_POLYS) > 10_000:
        _POLYS.clear()
    _POLYS[(id(E), id(G))] = (E, G, out)
    return out


def _polygon_entry(E, G, bounds, sf, d):
    """The entry of s f > 0 on a 2-cell without an LP, or None (the LP path decides).  s f is smallest on the
    closed polygon at a vertex; when that vertex v is the only minimiser by a margin, exactly two constraints
    g_i, g_j (i < j) are 0 there, every other g is clearly positive and the exact y_i, y_j of s f = y_i g_i +
    y_j g_j + sum lambda e + c are clearly positive, the optimum of the LP path is v with the unique dual (y_i,
    y_j), so its active set is {i, j} and its elimination (:func:`_active_entry`, the same code) gives this
    entry."""
    poly = _polygon(E, G, bounds, d)
    if poly is None:
        return None
    x0, w1, w2, verts, acts = poly
    c0 = _at(sf, x0)
    c1 = sum((a * b for a, b in zip(sf[1:], w1)), _Z)
    c2 = sum((a * b for a, b in zip(sf[1:], w2)), _Z)
    vals = [c0 + c1 * z1 + c2 * z2 for z1, z2 in verts]
    k = min(range(len(vals)), key=vals.__getitem__)
    lo = vals[k]
    if lo <= 0:
        return None
    act = acts[k]
    if act is None or len(act) != 2:
        return None
    scale = 1.0 + max(abs(float(c)) for c in sf)
    if float(min(v for i, v in enumerate(vals) if i != k) - lo) <= _MARGIN * scale:
        return None
    out = _active_entry(E, G, sf, act, d)
    if out is None or any(float(q) <= _MARGIN * scale for q in out[1]):
        return None
    return out[0]


_BOXED: dict = {}        # bytes norm key -> its _box_sign on the face _BOXED_BOUNDS[0] (cleared when it changes)
_BOXED_BOUNDS = [None]


def _box_sign(f, bk, bounds) -> int:
    """1 (-1) when f > 0 (< 0) on the whole closed face ``bounds`` (its minimum, maximum over the face), else 0;
    bk: the bytes key of f's norm key (a positive multiple of f, so the same answer), under which it is kept."""
    if _BOXED_BOUNDS[0] is not bounds or len(_BOXED) > 200_000:
        _BOXED.clear()
        _BOXED_BOUNDS[0] = bounds
    s = _BOXED.get(bk)
    if s is None:               # the box bounds of f and of -f (:func:`_box_value`, the minimum over the face)
        s = _BOXED[bk] = 1 if _box_value(f, bounds) > 0 else -1 if _box_value([-a for a in f], bounds) > 0 else 0
    return s


_FORMS: dict = {}        # a shared value key -> (its values, form, norm key, bytes key) (SearchCell.decide; cleared by
                         # search)
_SKEYS: dict = {}        # id(f) -> (f, norm key, bytes key) of a form tuple signed before (f held, so its id is not
                         # reused while the entry lives; SearchCell.sign; cleared by search)
_NEGS: dict = {}         # a key -> its negation (one tuple per key, so its hash is computed once; cleared by search)


def _neg(key) -> tuple:
    out = _NEGS.get(key)
    if out is None:
        out = _NEGS[key] = tuple([-c for c in key])
    return out


def _norm_key(f) -> tuple:
    """:func:`verify.kernel._poly.norm_key` (the same tuple), built from a list."""
    a = next(c for c in f[1:] if c)
    if a < 0:
        a = -a
    return tuple([c / a for c in f])


def _value_key(vals):
    """:func:`verify.kernel._poly.value_key` (the same key), built from a list."""
    v0 = vals[0]
    a = next((v - v0 for v in vals[1:] if v != v0), None)
    if a is None:
        return (v0 > 0) - (v0 < 0)
    if a < 0:
        a = -a
    return tuple([v / a for v in vals])


def _value_bkey(vals):
    """The key of :func:`_value_key` with each value written as its exact bytes (``gmpy2.to_binary``, which
    encodes numerator and denominator: equal keys exactly when the values are equal): a dict key that hashes in
    about a quarter of the time of a tuple of fresh mpq (an mpq's hash inverts its denominator modulo 2^61 - 1).
    Only :meth:`SearchCell.decide`'s value cache takes it; that cache only saves work (a miss asks ``sign``,
    whose cache has the same answer), so its keys change nothing but time."""
    k = _value_key(vals)
    return k if type(k) is int else tuple(map(to_binary, k))


class SearchCell(KP.PolyCell):
    """The kernel's cell with ``certify`` replaced by the search: it records one entry per certified decision
    (inherited entries of the parent first) and raises :class:`Split` when a decision varies on the cell.

    With a ``branch`` callback, a decision f that varies on the cell with f(p) > 0 does not abort the
    evaluation: ``branch(cell, f, hint)`` records the split by h = f / |first coefficient| and queues the
    children {h < 0} and {h = 0}, and the cell becomes its child {h > 0} (the constraint h appended to G, the
    point p kept) and goes on.  That child is the one the depth-first search processes next, and an evaluation
    from scratch would take the same decisions with the same entries up to f (same point, same inherited
    entries), so the tree and its entries are exactly those of a restart; only the repeated prefix is saved."""

    __slots__ = ("inherited", "found", "branch", "node", "pool", "pidx")

    def __init__(self, E, G, p, bounds, inherited, branch=None, node=None, pool=None, pidx=None):
        # the kernel's constructor without its point checks: every point the search puts in a cell was checked
        # exactly when it was made (the root's centre, the parent's point on its own side of the split, points
        # tested by _inside, find_point's), and the kernel checks it again
        d = len(p)
        self.ambient, self.E, self.G, self.p, self.bounds, self.field = d, E, G, tuple(p), bounds, "search"
        # the vertices feed decide() only, which region counts (a pool) do not call (_eval_pattern decides);
        # otherwise the kernel's shared frame 0, e_1, ..., e_d (its evaluator shares work between such cells)
        self.vertices = None if pool is not None else KP._frame(d)
        self.dim = d if not E else None
        self.signs, self.pos, self.cache = [], 0, {}
        self.inherited, self.found, self.branch, self.node = inherited, {}, branch, node
        self.vcache = {}
        self.pool, self.pidx = pool, pidx

    def form(self, vals) -> tuple:
        """:meth:`verify.kernel._poly.PolyCell.form` (the same tuple), built from a list."""
        v0 = vals[0]
        return (v0, *[v - v0 for v in vals[1:]])

    def decide(self, vals, f=None, vkey=None) -> int:
        """:meth:`verify.kernel._poly.PolyCell.decide` (the same decisions, keys and cache), with the key and
        the form built from lists."""
        if vkey is None:
            k = _value_bkey(vals)
            if type(k) is int:
                return k
            s = self.vcache.get(k)
            if s is None:
                s = self.vcache[k] = self.sign(self.form(vals))
            return s
        if type(vkey) is int:
            return vkey
        s = self.vcache.get(vkey)
        if s is None:
            # a key of the kernel's evaluator, shared between cells with its values: their form, norm key and
            # bytes key are remembered with them (the same values object, held here, so the same form)
            fk = _FORMS.get(vkey)
            if fk is None or fk[0] is not vals:
                if len(_FORMS) > 100_000:
                    _FORMS.clear()
                f = self.form(vals)
                a = next(c for c in f[1:] if c)
                if a < 0:
                    a = -a
                key = tuple([c / a for c in f])
                fk = _FORMS[vkey] = (vals, f, key, tuple([to_binary(c) for c in key]))
            s = self.vcache[vkey] = self._sign_fk(fk[1], fk[2], fk[3])
        return s

    def sign(self, f) -> int:
        """:meth:`verify.kernel._poly.PolyCell.sign` (the same signs, entries and order).  Its cache, the
        inherited and the found entries are keyed by the norm key written as exact bytes (``to_binary``, as
        :func:`_value_bkey`; equal exactly when the norm keys are equal, and cheaper to hash than fresh mpq), in
        every cell of an emulation search (every decision there comes through here); region counts
        (:meth:`_sign_keyed`, whose keys are shared tuples with their hashes cached) key them by the tuple."""
        if type(f) is tuple:        # a form the kernel's eval_maxout shares between cells: its keys once
            hit = _SKEYS.get(id(f))
            if hit is not None and hit[0] is f:
                return self._sign_fk(f, hit[1], hit[2])
        f0 = f
        f = tuple(f)
        a = next((c for c in f[1:] if c), None)
        if a is None:
            return (f[0] > 0) - (f[0] < 0)
        if a < 0:
            a = -a
        key = tuple([c / a for c in f])     # KP.norm_key(f)
        bk = tuple([to_binary(c) for c in key])
        if f is f0:
            if len(_SKEYS) > 100_000:
                _SKEYS.clear()
            _SKEYS[id(f)] = (f, key, bk)
        return self._sign_fk(f, key, bk)

    def _sign_fk(self, f, key, bk) -> int:
        """:meth:`sign` of the tuple f with its norm key and the key's bytes key.  A form of constant sign s on
        the closed face (``_box_sign``, remembered per face) gets s and the entry "box" without its value at the
        point or a look-up of the inherited entries: what ``_certify`` records for it (sign_certificate's box
        bound comes first, and an inherited entry of that key was made the same way)."""
        s = self.cache.get(bk)
        if s is None:
            if BOX_MEMO and self.pool is None:
                s = _box_sign(f, bk, self.bounds)
                if s:
                    self.found[bk] = "box"
                    self.signs.append("box")
                    self.pos += 1
                    self.cache[bk] = s
                    return s
            v = _at(f, self.p)
            s = (v > 0) - (v < 0)
            self._certify(f, s, key, bk)
            self.cache[bk] = s
        return s

    def _sign_keyed(self, f, key, v=None) -> int:
        s = self.cache.get(key)
        if s is None:
            if v is None:
                v = _at(f, self.p)
            s = (v > 0) - (v < 0)
            self._certify(f, s, key)
            self.cache[key] = s
        return s

    def _own_constraint(self, f, s, key):
        """Region counts: s f a positive multiple of a constraint g_i of the cell (a split's own half-space) gets
        the entry y_i = s f_k / g_ik directly (exact; what the one-constraint bound finds when g_i comes first)."""
        sk = key if s > 0 else _neg(key)
        G = self.G
        i = len(G) - 1              # the last index of sk in G (what {g: i for i, g in enumerate(G)} gives)
        while i >= 0 and G[i] != sk:
            i -= 1
        if i < 0:
            return None
        k = next(j for j in range(1, len(f)) if f[j])
        return {"y": _sparse_json([(i, s * f[k] / self.G[i][k])]), "l": []}

    def certify(self, f, s) -> None:
        key = _norm_key(f)
        self._certify(tuple(f), s, key, tuple([to_binary(c) for c in key]))     # keyed as sign keys it

    def _certify(self, f, s, key, dk=None) -> None:
        """Certify s = sign f on the cell (key: f's norm key; dk: the key of the entry dicts, default key)."""
        if dk is None:
            dk = key
        hit = self.inherited.get(dk)
        if hit is not None:
            entry = hit
        elif s == 0:
            lam = _combination(self.E, f, self.ambient)
            if lam is None:
                raise Split(tuple(f))
            entry = {"l": _sparse_json(lam)}
        elif self.pool is not None and (entry := self._own_constraint(f, s, key)) is not None:
            pass
        else:
            try:
                q = None if self.pool is None else self.pool.opposite(self, f, s)
                if q is not None:
                    raise Split(tuple(f), q)
                entry = sign_certificate(self.E, self.G, self.bounds, f, s, self.ambient, self.p)
            except Split as sp:
                if self.branch is None or (s < 0 and (self.pool is None or not RESUME_NEG)):
                    raise
                if s < 0:
                    # region counts: the cell becomes its child {h < 0}, the side of its point (search())
                    self.node = self.branch(self, key, sp.hint, side=-1)
                    self.G = self.G + [_neg(key)]
                    entry = self._own_constraint(f, s, key)
                    self.found[dk] = entry
                    self.signs.append(entry)
                    self.pos += 1
                    return
                self.node = self.branch(self, key, sp.hint)
                self.G = self.G + [key]
                entry = sign_certificate(self.E, self.G, self.bounds, f, s, self.ambient, self.p)
        self.found[dk] = entry
        self.signs.append(entry)
        self.pos += 1


class PointPool:
    """Seeded exact sample points of the open box (region counts only): a cell keeps the indices of the points
    that floats place inside it, and a decision f with s f(p) > 0 at the cell's point whose sign is -s at one of
    them (checked exactly: the point strictly inside the cell, s f < 0 there) splits the cell with no LP; that
    point is the far child's point.  Floats only choose the candidate; a failed exact check falls back to the
    usual bound / LP path.  Deterministic (seeded), so the same inputs give the same tree."""

    def __init__(self, bx, n, seed=0):
        d = len(bx)
        rng = random.Random(seed)
        m, b = 2 ** 13, 12            # odd numerators 2k + 1 < 2^13: never on the box's boundary
        bits = rng.getrandbits
        rs = [bits(b * d) for _ in range(n)]
        # the 12-bit fields of each draw, lowest first (the same numbers as a loop over them), by numpy: the
        # draw split into 60-bit words (5 fields each, exact in uint64)
        cols = []
        for w in range(0, d, 5):
            word = np.array([(r >> (b * w)) & (2 ** 60 - 1) for r in rs], dtype=np.uint64)
            for j in range(w, min(d, w + 5)):
                cols.append((word >> np.uint64(b * (j - w))) & np.uint64(4095))
        steps = 2 * np.stack(cols, axis=1).astype(np.int64) + 1 if n else np.zeros((0, d), dtype=np.int64)
        self.steps = steps
        self.bx, self.m = bx, m
        lo = np.array([float(a) for a, _ in bx])
        wd = np.array([float(b - a) for a, b in bx])
        self.F = lo + wd * (steps.astype(float).reshape(n, d) / m)
        self.exact = {}
        self.scale = 1.0 + float(max(max(abs(a), abs(b)) for a, b in bx))

    def point(self, i):
        q = self.exact.get(i)
        if q is None:
            q = self.exact[i] = tuple(a + (b - a) * mpq(int(k), self.m) for (a, b), k in zip(self.bx, self.steps[i]))
        return q

    def values(self, idx, h):
        """The float values of h at the cell's pool points and the margin.  ``idx`` is ``(indices, their rows of
        F)``: each cell keeps its own rows (gathered once, at its split) instead of gathering them per decision."""
        hf = _frow(h)
        return idx[1] @ np.array(hf[1:]) + hf[0], 1e-9 * self.scale * (1.0 + sum(map(abs, hf)))

    def root(self):
        return np.arange(len(self.F)), self.F

    def split(self, idx, h):
        """The indices (float-classified, margin 1e-9) on the sides h > 0 and h < 0."""
        if idx is None or not len(idx[0]):
            return idx, idx
        v, tol = self.values(idx, h)
        pos, neg = v > tol, v < -tol
        return (idx[0][pos], idx[1][pos]), (idx[0][neg], idx[1][neg])

    def opposite(self, cell, f, s):
        """An exact point of the cell with s f < 0 (a pool point, else one on the chord from the cell's point
        along -s grad f), or None (then the bound / LP path decides)."""
        sf = None
        if DESCENT and not cell.E:
            # the exact bounds first: when they certify s f > 0 no point has s f < 0 (sign_certificate finds the
            # same entry), so the pool and the descent are skipped
            sf = [s * c for c in f]
            if _box_value(sf, cell.bounds) >= 0:
                return None
        idx = cell.pidx
        if idx is not None and len(idx[0]):
            v, tol = self.values(idx, f)
            v = s * v
            j = int(np.argmin(v))
            if v[j] < -tol:
                q = self.point(int(idx[0][j]))
                # a pool point is strictly inside the box (odd numerators over 2^13): with the open box's root
                # (sf set, DESCENT) only the rows after the box's 2 d need the exact test
                if s * _at(f, q) < 0 and (all(_at(g, q) > 0 for g in cell.G[2 * cell.ambient:]) if sf is not None
                                          else _inside(cell.E, cell.G, q)):
                    return q
        if sf is not None:
            if _one_constraint(cell.G, cell.bounds, sf, cell.ambient, cell.p) is not None:
                return None
            q = _descent_point(cell, f, s)
            if q is not None:
                return q
        return _chord_point(cell, f, s)


def _descent_point(cell, f, s):
    """An exact point of the cell (no equations) with s f < 0, proposed by a float active-set descent of s f
    from the cell's point p, or None (then the sign LP decides).

    Algorithm: x = p; repeat: the direction is -grad(s f) projected onto the hyperplanes of the working set W
    (constraints met so far); a step along it stops at the first constraint it meets (added to W) or, when s f
    reaches 0 before, the point x_b midway between that zero and the blocking constraint is pulled towards p,
    x = x_b + l (p - x_b) with l half the largest l keeping s f < 0 (p is strictly inside, so x is strictly
    inside the closed cell's interior whenever x_b is in the closed cell), rounded to small dyadic denominators
    and checked exactly.  With a zero projected direction the least-squares multipliers of W decide: all >= 0
    means x minimises s f on the cell (with s f(x) > 0 there: no point; None), else the most negative one
    leaves W.
    Soundness: floats only propose; the point returned satisfies g(q) > 0 for every constraint and s f(q) < 0
    exactly, so it lies in the cell on the far side of f (Lemma 1 for that child).
    Limits: at most 4 d + 4 steps; degenerate or ill-conditioned cells return None, and the LP runs."""
    G = cell.G
    d = cell.ambient
    bounds = cell.bounds
    nb = 2 * d                      # G starts with the open box's rows x_k - lo_k, hi_k - x_k (_open_box_root)
    if len(bounds) != d or any(b[2] is not None for b in bounds) or len(G) < nb:
        return None
    lin = _FLIN[d]
    hit = _DROWS.get(id(G))
    if hit is not None and hit[0] is G:
        rows = hit[1]
    else:
        if len(_DROWS) >= 256:
            _DROWS.clear()
        rows = [_frow(g) for g in G[nb:]]
        _DROWS[id(G)] = (G, rows)
    fl = _frow(f)
    c = fl[1:] if s > 0 else [-v for v in fl[1:]]
    c0 = s * fl[0]
    pf = [float(v) for v in cell.p]
    fb = _FBOX[0]                   # one tuple, read once (consistent under threads)
    if fb is None or fb[0] is not bounds:
        fb = _FBOX[0] = (bounds, [float(b[0]) for b in bounds], [float(b[1]) for b in bounds])
    lo, hi = fb[1], fb[2]
    x = pf
    val = vp = c0 + s * lin(fl, x)
    if not vp > 0:
        return None
    scale = 1e-12 * (1.0 + max(map(abs, c)))
    gx = [r[0] + lin(r, x) for r in rows]
    W: list = []                    # indices into G
    Q: list = []                    # an orthonormal basis of the normals of W (Gram-Schmidt)
    m = len(rows)
    rng_d, rng_m = range(d), range(m)

    def normal(i):
        if i >= nb:
            return rows[i - nb][1:]
        e = [0.0] * d
        e[i >> 1] = 1.0 if i % 2 == 0 else -1.0
        return e

    dirn = [-v for v in c]
    for _ in range(4 * d + 4):
        if max(map(abs, dirn)) <= scale:
            if not W:
                return None
            N = np.array([normal(i) for i in W])
            try:
                lam = np.linalg.solve(N @ N.T, N @ np.array(c))
            except np.linalg.LinAlgError:
                return None
            j = int(np.argmin(lam))
            if lam[j] >= -1e-12:
                # a float minimum of s f on the cell (s f > 0 there): the sign LP that follows gets it (_lp)
                _local.opt = (G, fl, s, W, lam, x)
                return None
            W.pop(j)
            Q = []
            for i in W:
                _gs_add(Q, normal(i))
            dirn = [-v for v in c]
            for qv in Q:
                t = sum(map(mul, dirn, qv))
                dirn = [a - t * b for a, b in zip(dirn, qv)]
            continue
        cw = sum(map(mul, c, dirn))
        if not cw < 0:
            return None
        k, tmax = -1, float("inf")
        for kk in rng_d:                # the box rows: g = x_k - lo_k (w = dirn_k), hi_k - x_k (w = -dirn_k)
            w = dirn[kk]
            if w < 0:
                i = 2 * kk
                if i not in W:
                    t = (x[kk] - lo[kk]) / -w
                    if t < tmax:
                        k, tmax = i, max(t, 0.0)
            elif w > 0:
                i = 2 * kk + 1
                if i not in W:
                    t = (hi[kk] - x[kk]) / w
                    if t < tmax:
                        k, tmax = i, max(t, 0.0)
        gw = [lin(r, dirn) for r in rows]
        for i, w, v in zip(rng_m, gw, gx):
            if w < 0:
                t = v / -w if v > 0 else 0.0
                if t < tmax and i + nb not in W:
                    k, tmax = i + nb, t
        t0 = -val / cw
        if t0 < tmax:
            t1 = (t0 + tmax) / 2 if k >= 0 else 2 * t0
            vb = val + t1 * cw
            if not vb < 0:
                return None
            lam = 0.5 * -vb / (vp - vb)
            xq = [a + t1 * w + lam * (pp - a - t1 * w) for a, w, pp in zip(x, dirn, pf)]
            for bits in (10, 20, 30, 44):
                sc = 2 ** bits
                q = tuple([mpq(round(v * sc), sc) for v in xq])
                # exact: strictly inside the box (its rows by comparison), the other rows of G and s f < 0
                if (s * _at(f, q) < 0 and all(b[0] < v < b[1] for b, v in zip(bounds, q))
                        and all(_at(g, q) > 0 for g in G[nb:])):
                    return q
            return None
        if k < 0 or len(W) >= d:
            return None
        x = [a + tmax * w for a, w in zip(x, dirn)]
        gx = [a + tmax * w for a, w in zip(gx, gw)]
        val = val + tmax * cw
        W.append(k)
        qv = _gs_add(Q, normal(k))
        if qv is None:
            return None
        t = sum(map(mul, dirn, qv))
        dirn = [a - t * b for a, b in zip(dirn, qv)]
    return None


_FBOX = [None]       # (bounds, their float lo, hi) of the last box (_descent_point; cleared by search)
_DROWS: dict = {}    # id(G) -> (G, the float rows of G after the box's) for _descent_point (cleared by search)
# _local.opt: the last float optimum of _descent_point in this thread, (G, float f, s, W, multipliers, point)


def _descended(c, A_ub, b_ub):
    """The answer of :func:`_lp` for the sign LP min c x, A_ub x <= b_ub, when it is the problem whose float
    optimum :func:`_descent_point` has just found (the same objective and constraint rows, compared as
    floats), else None.  Duals are -multipliers on the working set, 0 elsewhere (as HiGHS's)."""
    opt, _local.opt = getattr(_local, "opt", None), None
    if opt is None:
        return None
    G, fl, s, W, lam, x = opt
    if len(G) != len(b_ub) or len(c) != len(fl) - 1:
        return None
    M = _gmat(G)
    if not (np.array_equal(c, s * np.array(fl[1:])) and np.array_equal(A_ub, -M[:, 1:]) and
            np.array_equal(b_ub, M[:, 0])):
        return None
    duals = np.zeros(len(G))
    duals[W] = -lam
    xv = np.array(x)
    return True, float(c @ xv), xv, duals


def _gs_add(Q, n):
    """Append to the orthonormal list Q the normalised part of n orthogonal to Q (floats); that vector, or None
    when n is (nearly) in the span of Q."""
    n = list(n)
    for qv in Q:
        t = sum(map(mul, n, qv))
        n = [a - t * b for a, b in zip(n, qv)]
    nn = sum(map(mul, n, n))
    if not nn > 1e-24:
        return None
    r = nn ** -0.5
    qv = [a * r for a in n]
    Q.append(qv)
    return qv


def _float_lin(d: int):
    """The linear part sum f_{k+1} x_k of a float form at a float point, written out for dimension d."""
    body = " + ".join([f"f[{k + 1}] * x[{k}]" for k in range(d)]) or "0.0"
    ns: dict = {}
    exec(f"def lin(f, x):\n    return {body}\n", ns)
    return ns["lin"]


_FLIN = {d: _float_lin(d) for d in range(1, 7)}


def _chord_point(cell, f, s):
    """From the cell's point p along w = -s grad f (rounded to rationals): the float chord {p + t w} of the cell
    ends at t_max; if s f reaches 0 at t0 < t_max, the exact point p + t w with t rational in (t0, t_max) is
    checked exactly (strictly inside, s f < 0) and returned; else None.  Floats only propose."""
    if cell.E or not CHORDS:
        return None
    p, G = cell.p, cell.G
    fl = _frow(f)
    pf = np.array([float(c) for c in p])
    Gf = np.array([_frow(g) for g in G])
    gp = Gf[:, 0] + Gf[:, 1:] @ pf
    fp = s * (fl[0] + float(np.dot(fl[1:], pf)))
    if fp <= 0:
        return None
    direction = -s * np.array(fl[1:])
    for _ in range(CHORDS):
        w = [mpq(int(c), 64) for c in np.rint(direction * 64)]
        if not any(w):
            return None
        wf = np.array([float(c) for c in w])
        gw = Gf[:, 1:] @ wf
        fw = s * float(np.dot(fl[1:], wf))
        neg = gw < 0
        if fw >= 0 or not neg.any():
            return None
        r = np.where(neg, -gp / np.where(neg, gw, -1.0), np.inf)
        k = int(np.argmin(r))
        t_max, t0 = float(r[k]), -fp / fw
        if t0 < t_max * (1 - 1e-9):
            t = _limit(t0 + (t_max - t0) / 2, 2 ** 24)
            q = tuple(a + t * b for a, b in zip(p, w))
            if s * _at(f, q) < 0 and _inside(cell.E, G, q):
                return q
            return None
        n = Gf[k, 1:]                   # blocked by g_k: slide along its hyperplane
        direction = wf - (wf @ n) / (n @ n) * n
        m = np.abs(direction).max()
        if not m > 1e-12:
            return None
        direction = direction / m
    return None


def _inside(E, G, x) -> bool:
    return all(_at(g, x) > 0 for g in G) and all(_at(e, x) == 0 for e in E)


def _child_points(E, G, p, h, v, hint, d, lower=True, small=False) -> list:
    """Exact points of the children {h > 0}, {h < 0}, {h = 0} of the cell (None where the LP must search): the
    parent's point p goes to its own child; with a float point ``hint`` on the other side of h (the sign LP's
    minimiser, moved exactly onto the cell's equations) the segment from p gives the zero point and a point
    beyond it; with h(p) = 0, p +- eps w along a direction w of the equations' solution set.

    ``small`` (region counts): the far point is first sought among small-denominator roundings of the float
    point of that segment (each checked exactly: strictly inside the cell, strictly beyond h), so that points,
    and every exact evaluation at them later, stay short; the exact segment point is the fallback."""
    out = [None, None, None]
    out[0 if v > 0 else 1 if v < 0 else 2] = p
    par = _parametrise(E, d)
    if par is None:
        return out
    free, x_of = par
    if v == 0:
        base = x_of([p[k] for k in free])
        best = None
        for j, k in enumerate(free):
            z = [p[c] for c in free]
            z[j] += 1
            w = [a - b for a, b in zip(x_of(z), base)]
            hw = sum((c * t for c, t in zip(h[1:], w)), _Z)
            if hw and (best is None or abs(hw) > abs(best[0])):
                best = (hw, w)
        if best is None:
            return out
        hw, w = best
        eps = mpq(1)
        for _ in range(64):
            a = tuple(c + eps * t for c, t in zip(p, w))
            b = tuple(c - eps * t for c, t in zip(p, w))
            if _inside(E, G, a) and _inside(E, G, b):
                out[0], out[1] = (a, b) if hw > 0 else (b, a)
                return out
            eps /= 4
        return out
    if hint is None:
        return out
    for den in _DENS[1:]:
        q = x_of([_limit(hint[k], den) for k in free])
        hq = _at(h, q)
        if (hq > 0) == (v > 0) or hq == 0:
            continue
        t0 = v / (v - hq)                     # h(p + t0 (q - p)) = 0
        if small and not lower:
            o = _small_far_point(E, G, p, q, h, v, t0, free, x_of)
            if o is not None:
                out[1 if v > 0 else 0] = o
                return out
        for t1 in (t0 + (1 - t0) / 2, t0 + (1 - t0) / 8):
            o = tuple(a + t1 * (b - a) for a, b in zip(p, q))
            if _inside(E, G, o):
                out[1 if v > 0 else 0] = o
                break
        if lower:
            z = tuple(a + t0 * (b - a) for a, b in zip(p, q))
            if _inside(E, G, z):
                out[2] = z
        return out
    return out


def _small_far_point(E, G, p, q, h, v, t0, free, x_of):
    """A point with small denominators (``_DENS``) near p + t (q - p), t = t0 + (1 - t0) / 2 or t0 + (1 - t0) / 8
    (floats), strictly inside the cell {E = 0, G > 0} and with h of the sign opposite to v (exact checks), or
    None.  Floats only propose."""
    pf = [float(c) for c in p]
    qf = [float(c) for c in q]
    tf = float(t0)
    for t1 in (tf + (1 - tf) / 2, tf + (1 - tf) / 8):
        of = [a + t1 * (b - a) for a, b in zip(pf, qf)]
        for den in _DENS:
            o = x_of([_limit(of[k], den) for k in free])
            ho = _at(h, o)
            if (ho < 0 if v > 0 else ho > 0) and _inside(E, G, o):
                return tuple(o)
    return None


def _volume_fraction(trees, root_cells, bx, points: int = 2000, seed: int = 0) -> float:
    """Estimate (seeded Monte Carlo, evidence only) of the fraction of the box covered by finished open leaves."""
    i_open = (3 ** len(bx) - 1) // 2 if len(root_cells) > 1 else 0
    tree = trees[i_open]
    rng = random.Random(seed)
    lo = [float(a) for a, _ in bx]
    hi = [float(b) for _, b in bx]
    hit = 0
    for _ in range(points):
        x = [rng.uniform(a, b) for a, b in zip(lo, hi)]
        node = tree
        while node is not None and "split" in node:
            h = node["_h"]
            v = h[0] + sum(c * t for c, t in zip(h[1:], x))
            node = node["children"][0 if v > 0 else 1]
        hit += node is not None and ("point" in node or "empty" in node)
    return hit / points


def _clear_search_memos() -> None:
    """Empty the memos one search fills, at its start and at its end (the float rows ``_FLOATS`` are emptied
    at the start only, as before: LPs after a search still use them)."""
    _GMATS.clear()
    _OC.clear()
    _OC_BOUNDS[0] = None
    _NEGS.clear()
    _FORMS.clear()
    _DROWS.clear()
    _FBOX[0] = None
    _local.opt = None
    _LINES.clear()
    _SKEYS.clear()
    _BOXED.clear()
    _BOXED_BOUNDS[0] = None
    _POLYS.clear()


def search(root_cells, leaf_fn, *, lower: bool, max_cells: int, time_budget: float, bx, pool=0):
    """Process every root's split tree depth-first.  ``leaf_fn(cell)`` returns None to accept the leaf or a
    value that stops the search (a difference).  Returns ``{"trees", "complete", "stopped", "leaves", "roots_done",
    "stop", "volume_estimate"}``."""
    d = len(bx)
    t0 = time.monotonic()
    _FLOATS.clear()
    _clear_search_memos()
    trees, leaves, stop, stopped, roots_done = [], 0, None, None, 0
    for r, (E0, G0, bounds) in enumerate(root_cells):
        root = {}
        trees.append(root)
        if stop is not None or stopped is not None:
            continue
        centre = tuple(fixed if fixed is not None else (lo + hi) / 2 for lo, hi, fixed in bounds)
        pp = PointPool(bx, pool) if pool and not E0 else None
        # region counts (a pool) solve their small LPs without HiGHS's presolve (less fixed cost per LP; it may
        # pick another optimum among degenerate ones, hence other points, never another verdict: every answer
        # is checked exactly); emulation keeps the default, so its trees stay as they were
        _local.presolve = COUNT_PRESOLVE if pp is not None else "choose"
        stack = [(root, E0, G0, centre, {}, None if pp is None else pp.root())]

        def branch(cell, h, hint, push_pos=False, side=1):
            """Record the split of ``cell.node`` by h and queue its children (the positive one too when the
            evaluation was aborted); returns the positive child's node.  ``side=-1`` (region counts, the cell's
            point on the side h < 0): the positive child is queued instead and the negative child's node is
            returned (the cell goes on there)."""
            node, E, G, p = cell.node, cell.E, cell.G, cell.p
            v = _at(h, p)
            kids = [{}, {}, {} if lower else None]
            node["split"] = [_s(c) for c in h]
            node["children"] = kids
            node["_h"] = [float(c) for c in h]
            inh = {**cell.inherited, **cell.found}
            neg = tuple(-c for c in h)
            if isinstance(hint, tuple):         # an exact point of the far side (the point pool's)
                pts = [p, hint, None] if v > 0 else [hint, p, None]
            else:
                pts = _child_points(E, G, p, h, v, hint, d, lower, pp is not None and SMALL_POINTS)
            ipos, ineg = (None, None) if pp is None else pp.split(cell.pidx, h)
            if lower:
                stack.append((kids[2], E + [h], G, pts[2], inh, None))
            if side < 0:
                stack.append((kids[0], E, G + [h], pts[0], inh, ipos))
                cell.pidx = ineg
                return kids[1]
            stack.append((kids[1], E, G + [neg], pts[1], inh, ineg))
            if push_pos:
                stack.append((kids[0], E, G + [h], pts[0], inh, ipos))
            else:
                cell.pidx = ipos
            return kids[0]

        while stack:
            if leaves >= max_cells:
                stopped = f"max_cells = {max_cells} leaves reached"
                break
            if time.monotonic() - t0 > time_budget:
                stopped = f"time_budget = {time_budget} s spent"
                break
            node, E, G, p, inherited, pidx = stack.pop()
            if p is None:
                p = find_point(E, G, d)
                if isinstance(p, dict):
                    node["empty"] = p
                    continue
            cell = SearchCell(E, G, p, bounds, inherited, branch if RESUME else None, node, pp, pidx)
            try:
                out = leaf_fn(cell)
            except Split as sp:
                branch(cell, _norm_key(sp.form), sp.hint, True)
                continue
            node = cell.node
            node["point"] = [_s(c) for c in p]
            node["signs"] = cell.signs
            leaves += 1
            if out is not None:
                stop = (out, p, cell)
                break
        else:
            roots_done += 1
            continue
        if stop is not None:
            break
    _local.presolve = "choose"
    _clear_search_memos()
    complete = stop is None and stopped is None
    info = {"trees": trees, "complete": complete, "stopped": stopped, "leaves": leaves, "roots": len(root_cells),
            "roots_done": roots_done, "stop": stop, "seconds": time.monotonic() - t0}
    if stopped is not None:
        info["volume_estimate"] = _volume_fraction(trees, root_cells, bx)
    return info


def strip(trees) -> list:
    """The trees without the search's private keys (what the certificate records)."""
    out = []
    for t in trees:
        out.append(_strip(t))
    return out


def _strip(node):
    if node is None:
        return None
    stack, root = [(node, None, None)], None
    while stack:
        n, parent, k = stack.pop()
        c = None if n is None else {key: v for key, v in n.items() if key not in ("_h", "children")}
        if n is not None and "children" in n:
            c["children"] = [None, None, None]
            for i, ch in enumerate(n["children"]):
                stack.append((ch, c, i))
        if parent is None:
            root = c
        else:
            parent["children"][k] = c
    return root


def emulation_search(params: dict, *, max_cells: int = DEFAULT_MAX_CELLS, time_budget: float = DEFAULT_TIME_BUDGET):
    """The split trees of an ``emulation-polytope`` certificate for the kernel parameters ``params`` (network,
    transformer, box, tie): the search dict of :func:`search`; ``stop`` is ``((output, rule), point, cell)`` at
    the first leaf where the two sides differ."""
    from ..kernel import emulation as KE

    _, net, T, bx, rules, _, _ = KE._read_params(params)
    root_cells = KP.roots(bx)
    return search(root_cells, lambda cell: KE.polytope_leaf(net, T, rules, cell), lower=True,
                  max_cells=max_cells, time_budget=time_budget, bx=bx)


def activation_search(network: dict, bx, *, max_cells: int = DEFAULT_MAX_CELLS,
                      time_budget: float = DEFAULT_TIME_BUDGET):
    """The split tree of a ``regions-polytope`` certificate (the open box only, zero children dropped) and the
    set of activation patterns of its leaves."""
    net = KC.read_maxout(network, "network")
    bxq = [(mpq(lo), mpq(hi)) for lo, hi in bx]
    patterns = []
    memo: dict = {}

    def leaf(cell):
        patterns.append(_eval_pattern(net, cell, memo))
        return None

    info = search([_open_box_root(bxq)], leaf, lower=False, max_cells=max_cells, time_budget=time_budget, bx=bxq,
                  pool=POOL)
    info["patterns"] = patterns
    return info


def _open_box_root(bx) -> tuple:
    """:func:`verify.kernel._poly.interior_root` (the same ``(E, G, bounds)``) without building the other
    3^d - 1 faces."""
    d = len(bx)
    if not 1 <= d <= MAX_DIM:
        return KP.interior_root(bx)         # the kernel's error
    G, bounds = [], []
    for k, (lo, hi) in enumerate(bx):
        lo, hi = mpq(lo), mpq(hi)
        unit = [_Z] * d
        unit[k] = mpq(1)
        G.append(tuple([-lo] + unit))
        G.append(tuple([hi] + [-a for a in unit]))
        bounds.append((lo, hi, None))
    return [], G, bounds


def _eval_pattern(net: dict, cell, memo: dict) -> tuple:
    """The pattern of :func:`verify.kernel._cells.eval_maxout` (the same decisions, forms and order), with each
    layer's pieces and their differences (and the differences' keys) computed once per pattern of the layers
    before it (``memo``) instead of once per cell."""
    d = cell.ambient
    prefix = ()
    for li, (W, b) in enumerate(net["layers"]):
        units = memo.get(prefix)
        if units is None:
            h = memo.get(("h", prefix))
            if h is None:
                h = KC.identity(d)
            units = memo[prefix] = [([KC.add(KC._comb(zip(w, h), d), KC.const(bij, d)) for w, bij in zip(Wi, bi)],
                                     {}) for Wi, bi in zip(W, b)]
        pat = []
        for pieces, diffs in units:
            best = [0]
            for j in range(1, len(pieces)):
                dk = diffs.get((j, best[0]))
                if dk is None:
                    f = KC.sub(pieces[j], pieces[best[0]])
                    dk = diffs[(j, best[0])] = (f, KP.norm_key(f) if any(f[1:]) else None)
                f, key = dk
                s = (f[0] > 0) - (f[0] < 0) if key is None else cell._sign_keyed(f, key)
                if s > 0:
                    best = [j]
                elif s == 0:
                    best.append(j)
            pat.append(tuple(best))
        pat = tuple(pat)
        nxt = prefix + (pat,)
        if li + 1 < len(net["layers"]) and ("h", nxt) not in memo:
            memo[("h", nxt)] = [pieces[bp[0]] for (pieces, _), bp in zip(units, pat)]
        prefix = nxt
    return prefix


CONVENTIONS = {"region": "activation regions = maximal open sets with constant argmax sets (exact polyhedral cells of "
                         "the open box; the dropped cells lie in finitely many hyperplanes, a set of measure zero)"}


def prove_activation_count(network: dict, bx, expected=None, *, claim: str = "T10", max_cells: int = DEFAULT_MAX_CELLS,
                           time_budget: float = DEFAULT_TIME_BUDGET):
    """A Result (kernel kinds ``regions-polytope`` / ``regions-polytope-miscount``): PROVED iff the SPEC
    ``network`` has exactly ``expected`` activation regions on the box (``None``: the count found), REFUTED
    otherwise; INCONCLUSIVE when a budget runs out (partial coverage as evidence) or when no exact certificate
    is found.  ``bx``: exact ``[(lo, hi)]``, lo < hi."""
    from ..canonical import jsonable
    from ..kernel import regions as KR
    from ..results import Method, Result, Verdict

    if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool) or expected < 0):
        from ..errors import InputError

        raise InputError("expected", f"must be a non-negative integer, got {expected!r}")
    params = {"network": jsonable(network), "box": jsonable([[lo, hi] for lo, hi in bx]), "kind": "activation"}
    conv = dict(CONVENTIONS)

    def inconclusive(summary, **ev):
        return Result(claim, "exact activation region count on the box (polyhedral cells)", Verdict.INCONCLUSIVE,
                      Method.EXACT, certificate={"summary": summary}, parameters={**params, "count": expected},
                      conventions=conv, evidence=ev)

    try:
        info = activation_search(network, bx, max_cells=max_cells, time_budget=time_budget)
    except Stuck as exc:
        return inconclusive(f"polyhedral cells: {exc}")
    if not info["complete"]:
        return inconclusive(f"budget: {info['stopped']}; about {info['volume_estimate']:.1%} of the volume in "
                            f"finished cells (estimate, evidence only)", cells=info["leaves"],
                            volume_fraction_estimate=info["volume_estimate"],
                            patterns_so_far=len(set(info["patterns"])))
    n = len(set(info["patterns"]))
    ok = expected is None or expected == n
    params["count"] = n if expected is None else expected
    params = jsonable(params)
    cert = {"kind": "regions-polytope" if ok else "regions-polytope-miscount", "roots": strip(info["trees"])}
    return Result(claim, KR.statement("polytope", params, conv), Verdict.PROVED if ok else Verdict.REFUTED,
                  Method.EXACT, certificate=cert, parameters=params, conventions=conv,
                  evidence={"summary": f"{n} activation regions ({info['leaves']} open cells), claimed "
                                       f"{params['count']}", "activation_regions": n, "cells": info["leaves"]})
