"""Softmax versus hardmax: the error E_lambda(s) = max s - <softmax(lambda s), s> (docs/paper1.md R2).

Three kinds of numbers, kept apart:

* **balls** (python-flint ``arb``, rigorous): :func:`softmax_error_ball`, :func:`sharp_constant`
  (W0((n-1)/e), principal Lambert W), :func:`star_point` (the maximiser s*), :func:`scalar_objective_ball`;
* **exact** rationals: :func:`star_point_rational` (a rational point next to s*, a re-checkable witness);
* **evidence** (mpmath / numpy floats, never a verdict): :func:`softmax_error_mp`, :func:`softmax_error_np`,
  :func:`softmax_error_grad_np` (for the local optimiser of the global search).

The sharp bound: 0 <= E_lambda(s) <= W0((n-1)/e)/lambda, with equality at s* = (u*/lambda, 0, ..., 0),
u* = 1 + W0((n-1)/e).  For n = 2 the constant is 0.278464542761...

Algorithm
---------
E_lambda(s) = sum_l a_l g_l / sum_l a_l with gaps g_l = max s - s_l >= 0 and a_l = exp(-lambda g_l), so no
exponential overflows; O(n) ball operations.  The argmax is decided exactly for rational s, or given as
``top`` for balls.  W0 is Arb's ``lambertw``.  The evidence search (:func:`search_softmax_error`) scores
float points in numpy, runs L-BFGS-B from the best, and re-scores the top candidates in mpmath.

Soundness
---------
The ball functions return enclosures (Arb's inclusion guarantee, docs/conventions.md section 2): a
comparison with a bound decides only when the balls separate.  Nothing in this module decides a verdict;
the T2 / T7 checks do (docs/softmax.md, sections T2 and T7).  The mpmath and numpy
functions are evidence only.

Limits
------
:func:`softmax_weights_ball` / :func:`softmax_error_ball` raise ``ValueError`` when ``top`` is not
certainly a maximum of ball entries.  The search is evidence: a finite set of float points
(``points`` = 3000 by default, at most ``max_rescored`` = 5000 re-scored) can miss the maximum.
:func:`decision_points_1d` works in input dimension 1, within the tracer's cell limit.

>>> from verify.arith.ball import workprec
>>> with workprec(128):
...     print(sharp_constant(2).str(12, radius=False))
0.278464542761
>>> with workprec(128):
...     e = softmax_error_ball([Fraction(1), Fraction(0)], 1)     # E = 1/(1 + e) for n = 2
...     print(e.str(10, radius=False))
0.2689414214
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence

import mpmath
from flint import arb

from ..arith.ball import ball_bounds, to_ball
from ..arith.ball import to_ball as _to_ball
from ..arith.evidence import mpf_from_fraction

__all__ = [
    "sharp_constant", "sharp_bound", "star_u", "star_point", "star_point_rational",
    "softmax_weights_ball", "softmax_error_ball", "scalar_objective_ball", "scalar_derivative_numerator_ball",
    "softmax_error_mp", "softmax_error_np", "softmax_error_grad_np", "softmax_average_ball",
    "lambert_w0_ball", "rational_inside", "search_softmax_error", "softmax_forward_ball",
    "decision_points_1d",
]


# -- balls -----------------------------------------------------------------------------------------

def lambert_w0_ball(x) -> arb:
    """Principal Lambert W of an exact rational or a ball x >= -1/e (rigorous enclosure)."""
    return to_ball(x).lambertw()


def sharp_constant(n: int) -> arb:
    """W0((n-1)/e) as a ball at the current precision (0 for n = 1)."""
    m = to_ball(n - 1)
    return (m / arb.const_e()).lambertw()


def sharp_bound(n: int, lam) -> arb:
    """W0((n-1)/e)/lambda as a ball."""
    return sharp_constant(n) / to_ball(lam)


def star_u(n: int) -> arb:
    """u* = 1 + W0((n-1)/e): the maximiser of E_1 along (u, 0, ..., 0)."""
    return 1 + sharp_constant(n)


def star_point(n: int, lam) -> tuple:
    """s* = (u*/lambda, 0, ..., 0) as balls (an irrational point, enclosed)."""
    return (star_u(n) / to_ball(lam),) + tuple(arb(0) for _ in range(n - 1))


def rational_inside(ball: arb) -> Fraction:
    """An exact rational in the ball (its midpoint, exactly)."""
    lo, hi = ball_bounds(ball)
    return (lo + hi) / 2


def star_point_rational(n: int, lam) -> tuple:
    """A rational point next to s*: (q, 0, ..., 0) with q the midpoint of the u*/lambda ball at the current
    precision; E at this point differs from E(s*) only at second order (s* is a critical point)."""
    q = rational_inside(star_u(n) / to_ball(lam))
    return (q,) + tuple(Fraction(0) for _ in range(n - 1))


def _top_and_gaps(s, top: Optional[int]):
    if top is None:
        # exact rationals: the argmax is decided exactly
        vals = [Fraction(v) for v in s]
        top = max(range(len(vals)), key=lambda i: (vals[i], -i))
        return top, [to_ball(vals[top] - v) for v in vals]
    balls = [to_ball(v) for v in s]
    gaps = [balls[top] - b for b in balls]
    for i, g in enumerate(gaps):
        if i != top and not g >= 0:
            raise ValueError(f"s: entry {top} is not certainly the maximum (entry {i} may exceed it)")
    gaps[top] = arb(0)
    return top, gaps


def softmax_weights_ball(s: Sequence, lam, top: Optional[int] = None) -> list:
    """softmax(lambda s) as balls.  ``s`` exact rationals (``top=None``) or balls with the index ``top``
    of a certain maximum.  Computed as exp(-lambda (s_top - s_l)) / sum, so no overflow."""
    top, gaps = _top_and_gaps(s, top)
    lam = to_ball(lam)
    a = [(-lam * g).exp() if i != top else arb(1) for i, g in enumerate(gaps)]
    z = sum(a[1:], a[0])
    return [ai / z for ai in a]


def softmax_error_ball(s: Sequence, lam, top: Optional[int] = None) -> arb:
    """E_lambda(s) = sum_l p_l (max s - s_l), rigorous (see :func:`softmax_weights_ball` for ``s``).

    Algorithm
    ---------
    Gaps to the top entry, a_l = exp(-lambda g_l) (a_top = 1), E = sum a_l g_l / sum a_l: O(n) balls.

    Soundness
    ---------
    The returned ball contains the exact E_lambda(s) (Arb enclosures from exact inputs); with rational
    ``s`` the argmax is exact.

    Limits
    ------
    ``ValueError`` when ``top`` is given and some other entry is not certainly below it.  The width of
    the ball is the only statement about accuracy: no comparison is made here.
    """
    top, gaps = _top_and_gaps(s, top)
    lam = to_ball(lam)
    a = [(-lam * g).exp() if i != top else arb(1) for i, g in enumerate(gaps)]
    z = sum(a[1:], a[0])
    num = arb(0)
    for ai, g in zip(a, gaps):
        num += ai * g
    return num / z


def softmax_average_ball(scores: Sequence, values: Sequence, lam) -> arb:
    """sum_l softmax(lambda scores)_l values_l for *ball* scores (no certain argmax needed):
    the weights are exp(lambda (scores_l - c)) / sum with c = the largest midpoint, which only
    re-centres the exponentials (an exact identity), so the enclosure stays rigorous.

    >>> from verify.arith.ball import workprec
    >>> with workprec(64):
    ...     print(softmax_average_ball([arb(0), arb(0)], [arb(1), arb(3)], 5).str(5, radius=False))
    2.0000
    """
    sc = [to_ball(v) for v in scores]
    vs = [to_ball(v) for v in values]
    lam = to_ball(lam)
    mids = [rational_inside(arb(x.mid())) for x in sc]
    c = to_ball(max(mids))      # exact rationals: a deterministic re-centring constant
    a = [(lam * (x - c)).exp() for x in sc]
    z = sum(a[1:], a[0])
    num = arb(0)
    for ai, v in zip(a, vs):
        num += ai * v
    return num / z


def scalar_objective_ball(A, m) -> arb:
    """g(A) = A ln(m/A) / (1 + A): the Jensen bound of lambda E in terms of A = sum_{l != top} a_l."""
    A, m = to_ball(A), to_ball(m)
    return A * (m / A).log() / (1 + A)


def scalar_derivative_numerator_ball(A, m) -> arb:
    """h(A) = ln(m/A) - 1 - A; g'(A) = h(A) / (1 + A)^2, and h is strictly decreasing."""
    A, m = to_ball(A), to_ball(m)
    return (m / A).log() - 1 - A


# -- evidence ----------------------------------------------------------------------------------------

def softmax_error_mp(s: Sequence, lam) -> mpmath.mpf:
    """E_lambda(s) in mpmath at the current precision (evidence only).  Entries: Fraction, int or mpf."""
    vals = [mpf_from_fraction(v) if isinstance(v, (Fraction, int)) else mpmath.mpf(v) for v in s]
    lam = mpf_from_fraction(lam) if isinstance(lam, (Fraction, int)) else mpmath.mpf(lam)
    top = max(vals)
    a = [mpmath.exp(-lam * (top - v)) for v in vals]
    z = mpmath.fsum(a)
    return mpmath.fsum(ai * (top - v) for ai, v in zip(a, vals)) / z


def softmax_error_np(S, lam: float):
    """E_lambda for every row of the float array S (evidence only; numerically stable)."""
    import numpy as np

    S = np.asarray(S, dtype=float)
    top = S.max(axis=1, keepdims=True)
    g = top - S
    a = np.exp(-lam * g)
    return (a * g).sum(axis=1) / a.sum(axis=1)


def softmax_error_grad_np(s, lam: float):
    """(E_lambda(s), gradient) for one float vector (evidence; for a local optimiser).

    With p = softmax(lambda s) and mean = <p, s>: d<p,s>/ds_k = p_k (1 + lambda (s_k - mean)),
    and d max s / ds is the indicator of the (first) argmax.
    """
    import numpy as np

    s = np.asarray(s, dtype=float)
    k = int(np.argmax(s))
    a = np.exp(lam * (s - s[k]))
    p = a / a.sum()
    mean = float(p @ s)
    grad = -p * (1 + lam * (s - mean))
    grad[k] += 1.0
    return s[k] - mean, grad


def _candidate_points(n: int, lam: float, count: int, rng):
    """Random and adversarial float points for the global search (evidence), about ``count`` in all:
    a third Gaussian / uniform at the scales 1/lambda .. 10/lambda, a third near s* (perturbed,
    permuted, shifted by a common constant), a third structured (two-level vectors (u, 0, .., 0) and
    (u, .., u, 0, .., 0), near-ties, one far-away entry)."""
    import numpy as np

    per = max(1, count // 3)
    rows = []
    scales = np.array([0.1, 1.0, 3.0, 10.0]) / lam
    k = per // 2
    rows.append(rng.normal(size=(k, n)) * scales[rng.integers(0, 4, size=(k, 1))])
    rows.append(rng.uniform(0, 1, size=(per - k, n)) * (rng.uniform(0, 5, size=(per - k, 1)) / lam))
    # around s*
    ustar = 1.0 + float(mpmath.lambertw((n - 1) / mpmath.e).real)
    base = np.zeros((per, n))
    base[:, 0] = ustar / lam
    noise = rng.normal(size=(per, n)) * (10.0 ** rng.uniform(-8, -1, size=(per, 1))) / lam
    pts = base + noise
    for i in range(per):
        rng.shuffle(pts[i])
    pts += rng.uniform(-100, 100, size=(per, 1))          # common shift: E is shift invariant
    rows.append(pts)
    # structured
    rest = count - 2 * per
    st = np.zeros((max(rest, 0), n))
    for i in range(st.shape[0]):
        kind = i % 4
        u = rng.uniform(0, 4) / lam
        if kind == 0:                                     # (u, 0, ..., 0)
            st[i, 0] = u
        elif kind == 1:                                   # j entries at u, the rest at 0
            j = int(rng.integers(1, n)) if n > 1 else 1
            st[i, :j] = u
        elif kind == 2:                                   # near-tie at the top
            st[i, 0] = u
            st[i, 1] = u * (1 - 10.0 ** rng.uniform(-6, 0))
        else:                                             # one entry far below the others
            st[i, 0] = u
            st[i, -1] = -rng.uniform(5, 50) / lam
    rows.append(st)
    return np.vstack(rows)


def search_softmax_error(n: int, lam, points: int = 3000, seed: int = 0, local_starts: int = 4,
                         rescore: int = 20, rescore_above: Optional[float] = None, dps: int = 50,
                         max_rescored: int = 5000) -> dict:
    """Global search for large E_lambda (EVIDENCE ONLY; never decides a verdict).

    ``points`` random + adversarial float points (:func:`_candidate_points`), then L-BFGS-B from the
    ``local_starts`` best points (analytic gradient, on u = lambda s so the scale is O(1)).  The
    ``rescore`` largest candidates, and every point whose float value is >= ``rescore_above``, are
    re-evaluated at ``dps`` digits from their exact binary values (at most ``max_rescored``).
    Returns the float values, the re-scored (value, exact point) pairs and the largest float value
    among the points that were not re-scored.

    Algorithm
    ---------
    Candidates, float64 values, ``local_starts`` L-BFGS-B runs (at most 200 iterations each), then
    mpmath re-scoring at ``dps`` digits of the chosen points taken at their exact binary values.

    Soundness
    ---------
    None: evidence only.  A large value found is a candidate for an exact witness that the caller
    re-evaluates with balls; no value found is a proof of nothing.

    Limits
    ------
    Needs numpy and scipy; λ is used as a float.  A finite sample: the maximiser can be missed, and
    only the re-scored points have more than float64 accuracy.
    """
    import numpy as np
    from scipy.optimize import minimize

    lam_f = float(Fraction(lam))
    rng = np.random.default_rng(seed)
    P = _candidate_points(n, lam_f, points, rng)
    vals = softmax_error_np(P, lam_f)
    order = np.argsort(-vals, kind="stable")
    optimised = []
    for idx in order[:local_starts]:
        def f(u):
            e, g = softmax_error_grad_np(u, 1.0)
            return -e, -g
        res = minimize(f, P[idx] * lam_f, jac=True, method="L-BFGS-B",
                       options={"maxiter": 200, "gtol": 1e-14, "ftol": 1e-16})
        optimised.append(res.x / lam_f)
    if optimised:
        P = np.vstack([P, np.array(optimised)])
        vals = np.concatenate([vals, softmax_error_np(np.array(optimised), lam_f)])
    order = np.argsort(-vals, kind="stable")
    chosen = int(min(rescore, len(order)))
    if rescore_above is not None:
        chosen = max(chosen, int((vals >= rescore_above).sum()))
    chosen = min(chosen, max_rescored, len(order))
    top = order[:chosen]
    with mpmath.workdps(dps):
        scored = []
        for idx in top:
            pt = [Fraction(float(v)) for v in P[idx]]
            scored.append((softmax_error_mp(pt, Fraction(lam)), pt, int(idx)))
    rest = order[chosen:]
    return {
        "points": int(P.shape[0]),
        "random_and_adversarial": int(points),
        "local_optimiser_runs": len(optimised),
        "float_values": vals,
        "rescored": scored,
        "max_float_not_rescored": float(vals[rest[0]]) if len(rest) else None,
    }


# -- an independent rigorous softmax forward pass (cross-check of Transformer.evaluate) ----------------

def softmax_forward_ball(transformer, X, lam) -> tuple:
    """Rigorous softmax forward pass written from the sublayer formulas alone (docs/paper1.md §2.2), used to
    cross-check ``Transformer.evaluate(..., attention="softmax")``: reads only the public weights
    (FFN ``W1, b1, W2, b2``; heads ``W_Q, W_K, W_V, W_O``).  X: E rows of n exact numbers or balls;
    call inside ``workprec``.  Returns E rows of balls.

    >>> from verify.arith.ball import workprec
    >>> from verify.objects.transformer import Attention, Head, Transformer
    >>> T = Transformer([Attention([Head([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])])])
    >>> with workprec(64):
    ...     print(softmax_forward_ball(T, [[0, 0], [1, 1], [0, 0]], 3)[2][0].str(5, radius=False))
    0
    """
    balls = {}

    def to_ball(q):         # each weight object converted once per pass (the same ball at the same precision)
        hit = balls.get(id(q))
        if hit is None or hit[0] is not q:
            hit = balls[id(q)] = (q, _to_ball(q))
        return hit[1]

    rows = [[_to_ball(v) for v in row] for row in X]
    E, n = len(rows), len(rows[0])
    lam = _to_ball(lam)
    zero = arb(0)
    for sub in transformer.sublayers:
        cols = [[rows[e][j] for e in range(E)] for j in range(n)]
        if hasattr(sub, "W1"):
            new_cols = []
            for x in cols:
                act = []
                for w, b in zip(sub.W1, sub.b1):
                    t = to_ball(b)
                    for c, v in zip(w, x):
                        if c:
                            t += to_ball(c) * v
                    act.append(t.max(zero))
                y = []
                for e in range(E):
                    t = x[e] + to_ball(sub.b2[e])
                    for c, a in zip(sub.W2[e], act):
                        if c:
                            t += to_ball(c) * a
                    y.append(t)
                new_cols.append(y)
        else:
            new_cols = [list(x) for x in cols]
            for head in sub.heads:
                def lin(M, x):
                    out = []
                    for r in M:
                        t = zero
                        for c, v in zip(r, x):
                            if c:
                                t += to_ball(c) * v
                        out.append(t)
                    return out
                qs = [lin(head.W_Q, x) for x in cols]
                ks = [lin(head.W_K, x) for x in cols]
                vs = [lin(head.W_V, x) for x in cols]
                for j in range(n):
                    scores = [sum((a * b for a, b in zip(ks[l], qs[j])), zero) for l in range(n)]
                    m = len(vs[0])
                    avg = [softmax_average_ball(scores, [vs[l][t] for l in range(n)], lam) for t in range(m)]
                    for e in range(E):
                        t = zero
                        for c, a in zip(head.W_O[e], avg):
                            if c:
                                t += to_ball(c) * a
                        new_cols[j][e] = new_cols[j][e] + t
        rows = [[new_cols[j][e] for j in range(n)] for e in range(E)]
    return tuple(tuple(r) for r in rows)


def decision_points_1d(net, lo, hi) -> list:
    """Exact points of [lo, hi] where some decision of the maxout network (an argmax of a unit at any
    layer) changes: the vertices of the exact cells of :func:`verify.decide.tracer.trace`, interior
    points only, sorted.  These are the near-tie points around which softmax errors peak.

    >>> from verify.objects.maxout import MaxoutNetwork
    >>> decision_points_1d(MaxoutNetwork([([[[1], [-1]]], [[0, 0]])]), -1, 1)
    [Fraction(0, 1)]
    """
    from .geometry import box_cell, to_fraction
    from .tracer import trace

    cells = trace([lambda x, ops: net.evaluate(x, ops)], [box_cell([(lo, hi)])], closed=False)
    pts = set()
    for c in cells:
        for v in c.cell.vertices:
            q = to_fraction(v[0])
            if lo < q < hi:
                pts.add(q)
    return sorted(pts)
