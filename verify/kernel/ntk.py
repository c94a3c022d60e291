"""N7 kinds: the V-block NTK Gram of exact laws, queries and head matrices (docs/paper2.md §9.2).

The instance (``parameters``): ``laws`` (SPEC entries, :func:`verify.kernel._laws.read_laws`), ``reading``
(``"shared"``: the ``queries`` q_1..q_m serve every law; ``"per-token"``: law i's queries are its own atoms,
all laws discrete), ``heads`` (H exact d x d matrices A_h) and an optional ``label``.  Rows are law-index
major, row r = (law i, query q).  The Gram is

    k[r, s] = (1/H) sum_h <grad Lambda_i(A_h q), grad Lambda_j(A_h q')>.

The statement (:func:`statement`) is always the positive claim "this Gram is positive definite"; the kind
fixes the verdict:

* ``ntk-cholesky`` (proved, certified): the Gram is rebuilt here in arb balls at ``precision_bits`` (a hint)
  from the exact inputs; ball Cholesky must succeed with every pivot certainly > 0, which proves every
  symmetric matrix in the balls, hence k, PD.  ``pivots`` and ``diagonal`` record the lower bounds of the
  pivots and of the diagonal entries rounded down to 32 bits; the check verifies ``value >= recorded >=
  value (1 - 2^-24)`` for each (they pin the instance: a changed input changes them).
* ``ntk-residual`` (proved, certified; up to MAX_RESIDUAL_ROWS rows, within RESIDUAL_LIMITS): the Gram is
  rebuilt in balls at ``precision_bits`` (a hint) as above; with u^2 = 2^-s, Kz = floor(mid(K) / u^2), an integer
  shift C and any integer matrix Z (here a fixed-point Cholesky factor of Kz - C I, :func:`_factor`), the residual
  R' = Kz - C I - Z Z^T is computed exactly, and for every symmetric A in the balls A - C u^2 I - (Z u)(Z u)^T has
  spectral radius at most n r + (n + max_i sum_j |R'_ij|) u^2 (r the largest radius); below C u^2, A is
  (Z u)(Z u)^T plus a positive definite matrix (:func:`_residual_pd`).  ``diagonal`` records the diagonal
  entries as for ``ntk-cholesky`` (they pin the instance).  It certifies only when the radii are well below the
  shift 8 (n + 2)^2 2^-prec max K_ii, i.e. at a precision of about log2 of the condition number plus 2 log2 n
  bits; otherwise it rejects, never refutes.
* ``ntk-null-vector`` (refuted, exact): ``null_space`` is a basis of the whole null space of k.  For every
  basis vector v the check proves, exactly, f_v(A) = sum_r v_r grad Lambda_(i_r)(A q_r) = 0 for *every*
  matrix A in the domain: the gradients are rational functions of the entries a of A and of y = e^(a/L)
  (one L for all exponents), and sum_r v_r grad Lambda_(i_r) is expanded over a common denominator with
  flint's exact multivariate polynomials and must vanish identically (a polynomial identity in free
  variables holds after any substitution; the denominators are non-zero analytic functions, so f_v = 0 on
  a dense subset of the connected domain, hence everywhere by continuity).  Then v^T k v = (1/H) sum_h
  |f_v(A_h)|^2 = 0: k is singular for this head set (and for every head law).  The vectors must be
  independent (exact rank), and the sub-Gram on the coordinates outside the pivots of their reduced row
  echelon form must pass ball Cholesky (``pivots``, ``diagonal`` as above; a single instance above MAX_ROWS
  rows: the residual bound of ``ntk-residual`` instead, ``diagonal`` only): so rank k = n - dim, and the basis
  spans the whole null space.
* ``ntk-instances`` (proved, certified): ``parameters.instances`` lists instances, each with
  ``gram`` = ``"PD"`` or ``"singular"`` (part of the statement); the certificate gives one sub-certificate
  per instance, checked as above with the polarity the parameters state.
* ``ntk-equivalence`` (proved, certified): ``parameters.rows`` lists shared-query instances, each with a
  ``modulo`` (``"constants"`` / ``"affine"``); the statement is "for each, the Gram is PD iff the CGFs are
  independent modulo ``modulo``".  Each row's sub-certificate is a PD or a null-space certificate as above,
  and the row is decided by docs/paper2.md §9.3: PD => no relation modulo constants (any m) nor modulo affine
  functions (m >= 2), since a relation gives the null vector c (x) e_1, resp. c (x) (e_1 - e_2); a null
  space valid for every A => dependence modulo affine functions when the m <= d queries are independent
  (A -> (A q_1..A q_m) is onto, separate the variables), modulo constants when m = 1.  Rows outside these
  cases are rejected.
* ``ntk-equivalence-counterexample`` (refuted, certified): one instance whose Gram is PD while an exact
  relation sum_i c_i grad Lambda_i = alpha holds identically (checked like a null vector, theta symbolic),
  alpha = 0 when modulo constants: that instance's equivalence fails.

Trusted: this module, :mod:`verify.kernel._laws` (law reader), python-flint (arb, fmpq_mpoly, exact fmpz_mat
products) and the facts quoted above (ball Cholesky; a symmetric matrix's spectral radius is at most its largest
absolute row sum; polynomial identities; the two directions of docs/paper2.md §9.3).  Bounds: the
``MAX_*`` constants, and a work budget per Result (reads, ball work, exact polynomial terms).
"""

from __future__ import annotations

from fractions import Fraction
from math import floor, isqrt, lcm

from flint import arb, arb_mat, ctx as _flint_ctx, fmpq, fmpq_mpoly_ctx, fmpz_mat

from . import Kind, _read as R
from ._ball import _dyadic, ball, bounds, workprec
from ._laws import in_domain, read_laws
from ._read import Rejected, tick

__all__ = ["KINDS", "CONVENTIONS", "statement", "gram_pivots", "gram_residual", "gram_fits", "record", "read_instance",
           "null_identity_holds", "MAX_ROWS", "MAX_HEADS"]

MAX_ROWS = 128            # n = rows of a Gram checked by ball Cholesky (every kind but ntk-residual)
MAX_RESIDUAL_ROWS = 256   # n = rows of an ntk-residual Gram
MAX_HEADS = 4096
MAX_EVALS = 40_000        # n * H gradient evaluations
MAX_EXPS = 400_000        # n * H * atoms exponentials
MAX_MUL = 4_000_000       # n^2 * H * d ball multiply-adds of the Gram product
MAX_BITS = 512            # bit size of every numerator / denominator of the inputs
MAX_PREC = 2048
MAX_WORK = 4_000_000      # estimated microseconds of ball arithmetic for all Grams of one Result (see _gram)
RESIDUAL_LIMITS = (80_000, 400_000, 40_000_000, 16_000_000)   # ntk-residual: MAX_EVALS, MAX_EXPS, MAX_MUL, MAX_WORK
RESIDUAL_BLOCK = 32       # panel width of the fixed-point factor (any width gives the same factor)
MAX_INSTANCES = 16
MAX_TERMS = 200_000       # term-count product allowed for one exact polynomial multiplication (~5 us each)
MAX_TOTAL_TERMS = 600_000 # ... and for all of them in one Result
MAX_EXACT_ATOMS = 256     # atoms of a discrete law in the exact null-vector check
MAX_READS = 20_000        # exact numbers of all instances of one Result (heads, atoms, queries)
TIGHT = Fraction(1, 2 ** 24)
CONVENTIONS = {"order": "law-index major: row r = (law i, query a), i*m + a (per-token: law i's atoms in order)",
               "V": "V = 0 at initialisation; only the V-block of the NTK is non-zero",
               "gram_entry": "k[(i,a),(j,b)] = (1/H) sum_h <grad Lambda_i(A_h q_a), grad Lambda_j(A_h q_b)>"}


# -- the instance ---------------------------------------------------------------------------------------------
def _small(x: Fraction, field: str) -> Fraction:
    if x.numerator.bit_length() > MAX_BITS or x.denominator.bit_length() > MAX_BITS:
        raise Rejected(f"{field}: more than {MAX_BITS} bits")
    return x


def _law_numbers(law):
    for key, v in law.items():
        if key in ("family", "dim"):
            continue
        stack = [v]
        while stack:
            x = stack.pop()
            if isinstance(x, tuple):
                stack.extend(x)
            else:
                yield key, x


_WORK: dict = {}   # work charged to the Result being checked (reset by statement() and by every kind's check)


def _reset():
    _WORK.update(reads=0, gram=0, terms=0)


def _charge(key, amount, limit):
    _WORK[key] += amount
    if _WORK[key] > limit:
        raise Rejected("certificate: more work than the kernel allows for one Result (too large)")


def read_instance(p, field="parameters", large=False) -> dict:
    """One instance of JSON-level parameters, read strictly (for the search side: work counters reset);
    ``large``: within the bounds of an ``ntk-residual`` Gram."""
    _reset()
    return _instance(p, field, large=large)


def gram_fits(n: int, H: int, d: int, atoms: int, large: bool):
    """None if a Gram of ``n`` rows, ``H`` heads in dimension ``d`` with at most ``atoms`` atoms per law is
    within the bounds of a ball-Cholesky kind (``large``: of ``ntk-residual``) -- rows, and the gradient
    evaluations, exponentials and Gram products they cost --, else the reason (also for the search side, which
    refuses such input before building the Gram)."""
    max_rows = MAX_RESIDUAL_ROWS if large else MAX_ROWS
    max_evals, max_exps, max_mul = RESIDUAL_LIMITS[:3] if large else (MAX_EVALS, MAX_EXPS, MAX_MUL)
    if not 1 <= n <= max_rows:
        return f"the Gram must have 1..{max_rows} rows"
    if n * H > max_evals or n * H * atoms > max_exps or n * n * H * d > max_mul:
        return f"Gram too large for the kernel ({n} rows, {H} heads, d = {d})"
    return None


def _within(inst, field, large) -> None:
    """Reject unless the instance's Gram is within the bounds of :func:`gram_fits`."""
    why = gram_fits(len(inst["rows"]), len(inst["heads"]), inst["d"],
                    max(len(law.get("atoms", (0,))) for law in inst["laws"]), large)
    if why:
        raise Rejected(f"{field}: {why}")


def _instance(p, field="parameters", extra=None, large=False) -> dict:
    """Read an instance strictly; returns ``{"laws", "rows": [(i, q)], "heads", "d", "m", "reading", ...}``.
    ``extra``: ``{key: choices}`` of further required string keys (returned under the same names); ``large``:
    the bounds of an ``ntk-residual`` Gram (MAX_RESIDUAL_ROWS, RESIDUAL_LIMITS) instead of MAX_ROWS and
    MAX_EVALS / MAX_EXPS / MAX_MUL."""
    extra = extra or {}
    max_rows = MAX_RESIDUAL_ROWS if large else MAX_ROWS
    R.obj(p, field, required=("laws", "reading", "heads") + tuple(extra), optional=("queries", "label"))
    sizes = [len(x.get("atoms", ())) if isinstance(x, dict) and isinstance(x.get("atoms"), list) else 1
             for x in R.lst(p["laws"], f"{field}.laws", 1, max_rows)]
    _charge("reads", sum(sizes), MAX_READS)
    _charge("reads", len(R.lst(p["heads"], f"{field}.heads", 1, MAX_HEADS)), MAX_READS)
    laws = read_laws(p["laws"], f"{field}.laws")
    d = laws[0]["dim"]
    for i, law in enumerate(laws):
        for key, x in _law_numbers(law):
            _small(x, f"{field}.laws[{i}].{key}")
    reading = R.string(p["reading"], f"{field}.reading", ("shared", "per-token"))
    if reading == "shared":
        qs = [tuple(_small(x, f"{field}.queries[{a}]") for x in R.vec(q, f"{field}.queries[{a}]", d))
              for a, q in enumerate(R.lst(p.get("queries"), f"{field}.queries", 1, max_rows))]
        rows = [(i, q) for i in range(len(laws)) for q in qs]
    else:
        if "queries" in p:
            raise Rejected(f"{field}.queries: the per-token reading takes each law's atoms as its queries")
        if any(law["family"] != "discrete" for law in laws):
            raise Rejected(f"{field}.laws: the per-token reading needs discrete laws")
        qs = None
        rows = [(i, a) for i, law in enumerate(laws) for a in law["atoms"]] if len(laws) <= max_rows else []
    if not 1 <= len(rows) <= max_rows:
        raise Rejected(f"{field}: the Gram must have 1..{max_rows} rows")
    heads = []
    for h, A in enumerate(R.lst(p["heads"], f"{field}.heads", 1, MAX_HEADS)):
        heads.append(tuple(tuple(_small(x, f"{field}.heads[{h}]") for x in row)
                           for row in R.mat(A, f"{field}.heads[{h}]", d, d)))
    _within({"rows": rows, "heads": heads, "d": d, "laws": laws}, field, large)
    n, H = len(rows), len(heads)
    _charge("reads", len({q for _, q in rows}) * H + H * d * d, MAX_READS)
    out = {"rows": rows, "heads": heads}
    thetas = _thetas(out)
    for i, q in rows:
        if laws[i]["family"] == "laplace":
            for h in range(H):
                tick()
                if not in_domain(laws[i], thetas[(q, h)]):
                    raise Rejected(f"{field}.heads[{h}]: A q lies outside the domain of law {i}")
    label = R.string(p.get("label", ""), f"{field}.label", max_len=200)
    out.update(laws=laws, d=d, n=n, reading=reading, label=label, m=len(qs) if qs else None, queries=qs,
               thetas=thetas)
    for key, choices in extra.items():
        out[key] = R.string(p[key], f"{field}.{key}", choices)
    return out


def _apply(A, q) -> tuple:
    return tuple(sum((a * x for a, x in zip(row, q)), Fraction(0)) for row in A)


def _text(inst) -> str:
    N, H, d = len(inst["laws"]), len(inst["heads"]), inst["d"]
    lab = f" ({inst['label']})" if inst["label"] else ""
    queries = (f"the {inst['m']} shared queries q_a" if inst["reading"] == "shared" else
               "each law's own atoms as its queries (per-token reading)")
    return (f"The V-block NTK Gram{lab} k[(i,a),(j,b)] = (1/H) sum_h <grad Lambda_i(A_h q_a), grad Lambda_j(A_h q_b)> "
            f"of the {N} laws, {queries} and the H = {H} exact head matrices A_h of the parameters (d = {d}, "
            f"{inst['n']} x {inst['n']}) is positive definite")


def _instances_text(insts, label) -> str:
    pd = [str(k + 1) for k, x in enumerate(insts) if x["gram"] == "PD"]
    sg = [str(k + 1) for k, x in enumerate(insts) if x["gram"] == "singular"]
    return (f"For these {len(insts)} instances{' (' + label + ')' if label else ''} of the V-block NTK Gram (laws, "
            f"queries and exact head matrices in parameters.instances), each certified: the Gram of instance(s) "
            f"{', '.join(pd) or 'none'} is positive definite and the Gram of instance(s) {', '.join(sg) or 'none'} "
            f"is singular")


def _equivalence_text(rows, label) -> str:
    by = {mod: [str(k + 1) for k, x in enumerate(rows) if x["modulo"] == mod] for mod in ("constants", "affine")}
    return (f"For these {len(rows)} instances{' (' + label + ')' if label else ''} of the V-block NTK Gram (laws, "
            f"shared queries and exact head matrices in parameters.rows), each certified: the Gram of each instance "
            f"is positive definite if and only if the CGFs of its laws are linearly independent modulo constants "
            f"(instance(s) {', '.join(by['constants']) or 'none'}) / modulo affine functions (instance(s) "
            f"{', '.join(by['affine']) or 'none'})")


def _read(parameters):
    """(instance, list of instances or ("rows", list), statement text) of JSON-level parameters."""
    if isinstance(parameters, dict) and "rows" in parameters:
        R.obj(parameters, "parameters", required=("rows",), optional=("label",))
        rows = [_instance(p, f"parameters.rows[{k}]", {"modulo": ("constants", "affine")})
                for k, p in enumerate(R.lst(parameters["rows"], "parameters.rows", 1, MAX_ROWS))]
        label = R.string(parameters.get("label", ""), "parameters.label", max_len=200)
        return ("rows", rows), _equivalence_text(rows, label)
    if isinstance(parameters, dict) and "instances" in parameters:
        R.obj(parameters, "parameters", required=("instances",), optional=("label",))
        insts = [_instance(p, f"parameters.instances[{k}]", {"gram": ("PD", "singular")})
                 for k, p in enumerate(R.lst(parameters["instances"], "parameters.instances", 1, MAX_INSTANCES))]
        label = R.string(parameters.get("label", ""), "parameters.label", max_len=200)
        return insts, _instances_text(insts, label)
    inst = _instance(parameters, large=True)     # each kind bounds its own Gram (_single)
    return inst, _text(inst)


def statement(parameters: dict, conventions: dict) -> str:
    """The statement bound to these JSON-level parameters and conventions (the search side calls this)."""
    _reset()
    return R.bound_statement(_read(parameters)[1], parameters, conventions)


def _expect(result):
    """Read the parameters; reject unless conventions and statement are the ones they determine."""
    _reset()
    if result.get("conventions") != CONVENTIONS:
        raise Rejected("conventions: expected the N7 Gram conventions (verify.kernel.ntk.CONVENTIONS)")
    inst, text = _read(result["parameters"])
    R.expect_statement(result, text)
    return inst


# -- gradients in balls ---------------------------------------------------------------------------------------
def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _grad_ball(law, t, tb) -> list:
    """grad Lambda(t) as balls at the current precision (t exact inside the domain, tb its balls)."""
    fam, d = law["family"], law["dim"]
    if fam == "discrete":   # softmax of the <x_k, t>, shifted by an exact number (the largest midpoint)
        X, logw = law["balls"]
        ex = [sum((x[k] * tb[k] for k in range(d)), lw) for x, lw in zip(X, logw)]
        top = max(ex, key=lambda z: z.mid()).mid()
        e = [(z - top).exp() for z in ex]
        tot = sum(e, arb(0))
        return [sum((ek * x[k] for ek, x in zip(e, X)), arb(0)) / tot for k in range(d)]
    if fam == "uniform_cube":
        out = []
        for k in range(d):
            u = law["radius"] * t[k]
            if u == 0:
                out.append(ball(law["center"][k]))
                continue
            au = abs(u)   # r coth(u) - 1/t = r (coth u - 1/u) loses about 2 log2(1/|u|) bits for small u
            extra = 0 if au >= 1 else 2 * (au.denominator.bit_length() - au.numerator.bit_length() + 1) + 20
            with workprec(int(_flint_ctx.prec) + extra):   # extra <= ~3100: inputs have <= 512 bits
                ub = ball(u)
                val = ball(law["center"][k]) + ball(law["radius"]) * (ub.cosh() / ub.sinh() - 1 / ub)
            out.append(+val)
        return out
    S, m = law["balls"]
    St = [sum((S[i][j] * tb[j] for j in range(d)), arb(0)) for i in range(d)]
    if fam == "gaussian":
        return [m[i] + St[i] for i in range(d)]
    if fam == "laplace":    # 1 - t^T S t / 2 > 0 was checked exactly (read_instance)
        den = 1 - sum((tb[i] * St[i] for i in range(d)), arb(0)) / 2
        return [m[i] + St[i] / den for i in range(d)]
    u = law["direction"]
    mu = [ball(law["separation"]) * ball(x) / ball(_dot(u, u)).sqrt() for x in u]
    th = sum((mu[k] * tb[k] for k in range(d)), arb(0)).tanh()
    return [m[i] + St[i] + th * mu[i] for i in range(d)]


def _law_balls(law):
    """The law's numbers as balls at the current precision (discrete: atoms and log-weights)."""
    if law["family"] == "discrete":
        return [[ball(x) for x in a] for a in law["atoms"]], [ball(w).log() for w in law["weights"]]
    if law["family"] == "uniform_cube":
        return None
    return [[ball(x) for x in row] for row in law["cov"]], [ball(x) for x in law["mean"]]


def _thetas(inst) -> dict:
    """A_h q exactly for every distinct query q and head h: {(q, h): theta}."""
    out = {}
    for _, q in inst["rows"]:
        if (q, 0) not in out:
            for h, A in enumerate(inst["heads"]):
                tick()
                out[(q, h)] = _apply(A, q)
    return out


def _gram(inst, prec, rows=None, residual=False) -> list:
    """The Gram (or its principal sub-matrix on ``rows``) as a symmetric list of lists of balls; the work
    charged includes the ball Cholesky that follows (``residual``: the fixed-point factor and its exact
    residual of :func:`_residual_pd` instead, against the larger budget RESIDUAL_LIMITS[3])."""
    rows = list(range(inst["n"])) if rows is None else rows
    laws, H, n, d = inst["laws"], len(inst["heads"]), len(rows), inst["d"]
    atoms = max(len(laws[inst["rows"][r][0]].get("atoms", ())) for r in rows) if rows else 0
    # measured: an exp ~ 4 + p/32 us, a ball product in arb_mat ~ 0.05 + p/2400 us, a Python-level ball op ~ 3 us
    gram = n * H * (atoms * (128 + prec) // 32 + 5 * d) + n * n * H * d * (120 + prec) // 2400
    if residual:       # measured: ~ 2 us per entry in Python, an fmpz multiply-add ~ (2 + p/64) ns, n^3/2 of them
        _charge("gram", gram + 2 * n * n + n ** 3 * (128 + prec) // 128000, RESIDUAL_LIMITS[3])
    else:
        _charge("gram", gram + n ** 3 * (3000 + prec) // 6000, MAX_WORK)
    with workprec(prec):
        thetas, tballs, lballs, F = inst["thetas"], {}, {}, []
        for r in rows:
            i, q = inst["rows"][r]
            if i not in lballs:
                lballs[i] = dict(laws[i], balls=_law_balls(laws[i]))
            feat = []
            for h in range(H):
                tick()
                if (q, h) not in tballs:
                    tballs[(q, h)] = [ball(x) for x in thetas[(q, h)]]
                feat.extend(_grad_ball(lballs[i], thetas[(q, h)], tballs[(q, h)]))
            F.append(feat)
        if not F:
            return []
        M = arb_mat(F)
        K = (M * M.transpose()) / H
        return [[K[min(r, c), max(r, c)] for c in range(len(rows))] for r in range(len(rows))]


def _pivots(G) -> list:
    """Ball Cholesky pivots of G (every one certainly > 0), or None when a pivot is not certainly > 0."""
    n = len(G)
    L = [[arb(0)] * n for _ in range(n)]
    piv = []
    for j in range(n):
        tick()
        s = G[j][j] - sum((L[j][k] * L[j][k] for k in range(j)), arb(0))
        if not s > 0:
            return None
        piv.append(s)
        L[j][j] = s.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (G[i][j] - sum((L[i][k] * L[j][k] for k in range(j)), arb(0))) / L[j][j]
    return piv


def record(p: arb) -> Fraction:
    """The recorded form of a pivot: its lower bound rounded down to 32 significant bits."""
    lo = bounds(p)[0]
    unit = Fraction(2) ** (lo.numerator.bit_length() - lo.denominator.bit_length() - 32)
    return floor(lo / unit) * unit


def gram_pivots(parameters: dict, prec: int, rows=None):
    """``{"pivots", "diagonal"}`` records of the (sub-)Gram of a JSON-level instance at ``prec`` bits, or None
    when ball Cholesky fails (for the search side; work counters reset)."""
    inst = read_instance(parameters)
    with workprec(prec):
        G = _gram(inst, prec, rows)
        piv = _pivots(G)
        return None if piv is None else {"pivots": [record(p) for p in piv],
                                         "diagonal": [record(G[k][k]) for k in range(len(G))]}


def _check_pivots(inst, cert, field, rows=None, residual=False) -> list:
    """The (sub-)Gram on ``rows`` rebuilt at ``precision_bits`` is certified PD -- by ball Cholesky, or
    (``residual``) by the residual bound of :func:`_residual_pd` -- and the recorded ``pivots`` (ball Cholesky
    only) and ``diagonal`` are the tight records (:func:`record`) of its pivots and diagonal entries (they pin
    the instance).  Returns the recorded pivots (None for the residual bound)."""
    prec = R.integer(cert["precision_bits"], f"{field}.precision_bits", 16, MAX_PREC)
    n = inst["n"] if rows is None else len(rows)
    keys = ("diagonal",) if residual else ("pivots", "diagonal")
    rec = {key: R.vec(cert[key], f"{field}.{key}", n) for key in keys}
    with workprec(prec):
        G = _gram(inst, prec, rows, residual=residual)
        balls = {"diagonal": [G[k][k] for k in range(n)]}
        if residual and not _residual_pd(G, prec):
            raise Rejected(f"{field}: the exact residual bound does not certify the rebuilt Gram PD at {prec} bits")
        if not residual:
            balls["pivots"] = _pivots(G)
            if balls["pivots"] is None:
                raise Rejected(f"{field}: ball Cholesky of the rebuilt Gram does not certify PD at {prec} bits")
        for key in keys:
            for k, (p, r) in enumerate(zip(balls[key], rec[key])):
                lo = bounds(p)[0]
                if not (0 < r <= lo and r >= lo * (1 - TIGHT)):
                    raise Rejected(f"{field}.{key}[{k}]: {float(r):.6g} is not the rebuilt lower bound {float(lo):.6g}")
    return rec.get("pivots")


# -- the residual certificate -----------------------------------------------------------------------------------
def _fixed(x: arb, s: int) -> int:
    """floor(mid(x) 2^s), exactly (the midpoint is a dyadic number)."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e) + s
    return m << e if e >= 0 else m >> -e          # Python's >> rounds towards -infinity


def _factor(A, n):
    """An integer lower-triangular Z with Z Z^T close to the integer matrix A (rows of Python ints): a
    left-looking Cholesky by panels of RESIDUAL_BLOCK columns, integer square roots for the pivots and
    round-to-nearest divisions below them; None when a pivot is not > 0.  Z is not trusted: whatever it is,
    :func:`_residual_pd` computes A - Z Z^T exactly, and only whether its bound passes depends on Z."""
    Z = [[] for _ in range(n)]                     # Z[i] = [Z_i0, ..., Z_i,j-1] so far
    for j0 in range(0, n, RESIDUAL_BLOCK):
        j1 = min(n, j0 + RESIDUAL_BLOCK)
        b, r = j1 - j0, n - j0
        S = [A[j0 + rr][j0:j0 + min(b, rr + 1)] for rr in range(r)]          # the panel's lower part
        if j0:                                                               # minus the factored columns
            W = (fmpz_mat([Z[i][:j0] for i in range(j0, n)])
                 * fmpz_mat([Z[i][:j0] for i in range(j0, j1)]).transpose()).entries()
            S = [[x - int(W[rr * b + c]) for c, x in enumerate(row)] for rr, row in enumerate(S)]
        P = fmpz_mat(r, b)                         # Z[j0:, j0:j1]
        for c in range(b):
            tick()
            j = j0 + c
            d = [int(v) for v in (P * fmpz_mat(b, 1, Z[j][j0:] + [0] * (b - c))).entries()] if c else [0] * r
            sjj = S[c][c] - d[c]
            if not sjj > 0:
                return None
            z = isqrt(sjj)
            P[c, c] = z
            Z[j].append(z)
            for rr in range(c + 1, r):
                q = (2 * (S[rr][c] - d[rr]) + z) // (2 * z)                  # round((S - d) / z)
                P[rr, c] = q
                Z[j0 + rr].append(q)
    return Z


def _residual_pd(G, prec) -> bool:
    """True if every symmetric matrix inside the symmetric ball matrix G is positive definite, by the exact
    residual of a fixed-point Cholesky factor (False: undecided).

    With s = 2 (prec + 8) - log2 max_i mid G_ii and u^2 = 2^-s: Kz_ij = floor(mid(G_ij) 2^s) for i >= j,
    mirrored (only the lower triangle of G is read), C = floor(8 (n + 2)^2 max_i Kz_ii 2^-prec), Z = :func:`_factor` of Kz - C I (any integer matrix would
    do), R' = Kz - C I - Z Z^T exactly (one fmpz_mat product) and r the largest radius of G.  For every
    symmetric A inside the balls of the lower triangle, A - C u^2 I - (Z u)(Z u)^T = (A - mid G) + (mid G - Kz u^2) + R' u^2 entry for
    entry, with |A_ij - mid G_ij| <= r and 0 <= mid G_ij - Kz_ij u^2 < u^2: a symmetric matrix whose spectral
    radius is at most its largest absolute row sum, at most n r + (n + max_i sum_j |R'_ij|) u^2.  When that is
    < C u^2, S = A - (Z u)(Z u)^T is positive definite, so A = (Z u)(Z u)^T + S is positive definite.

    Fails (False) when a pivot of the factor is not > 0 (lambda_min(K) below about C u^2) or when the radii are
    not well below the shift C u^2 ~ 8 (n + 2)^2 2^-prec max K_ii: a Gram built at too low a precision."""
    n = len(G)
    if not n or not all(G[i][j].is_finite() for i in range(n) for j in range(i + 1)):
        return False
    top = max(_dyadic(G[i][i].mid()) for i in range(n))
    if not top > 0:
        return False
    s = 2 * (prec + 8) - (top.numerator.bit_length() - top.denominator.bit_length())
    A = [[_fixed(G[max(i, j)][min(i, j)], s) for j in range(n)] for i in range(n)]    # the lower triangle, mirrored
    C = (8 * (n + 2) ** 2 * max(A[i][i] for i in range(n))) >> prec
    for i in range(n):
        A[i][i] -= C
    Z = _factor(A, n)
    if Z is None:
        return False
    ZM = fmpz_mat([z + [0] * (n - len(z)) for z in Z])
    R_ = (fmpz_mat(A) - ZM * ZM.transpose()).entries()
    worst = max(sum(abs(int(R_[i * n + j])) for j in range(n)) for i in range(n))
    rad = max(_dyadic(G[i][j].rad()) for i in range(n) for j in range(i + 1))
    return (worst + n) + n * rad * Fraction(2) ** s < C       # the bound above, in units of u^2 = 2^-s (exact)


def gram_residual(parameters: dict, prec: int, rows=None):
    """``{"diagonal"}`` records of the (sub-)Gram of a JSON-level instance (within the ``ntk-residual``
    bounds) at ``prec`` bits, or None when :func:`_residual_pd` does not certify it (for the search side)."""
    inst = read_instance(parameters, large=True)
    with workprec(prec):
        G = _gram(inst, prec, rows, residual=True)
        if not _residual_pd(G, prec):
            return None
        return {"diagonal": [record(G[k][k]) for k in range(len(G))]}


def _check_residual(inst, cert, field, top=()) -> str:
    _keys(cert, field, top, ("precision_bits", "diagonal"))
    _check_pivots(inst, cert, field, residual=True)
    return (f"{inst['n']}x{inst['n']} Gram ({len(inst['heads'])} heads) PD by the exact residual of a fixed-point "
            f"Cholesky factor at {cert['precision_bits']} bits")


# -- exact null vectors -----------------------------------------------------------------------------------------
def _rref(vs) -> list:
    """Pivot columns of the reduced row echelon form; rejects dependent vectors."""
    rows, piv = [list(v) for v in vs], []
    for r in range(len(rows)):
        tick()
        c = next((c for c in range(len(rows[r])) if rows[r][c] != 0), None)
        if c is None:
            raise Rejected("certificate.null_space: the vectors are linearly dependent (or zero)")
        piv.append(c)
        for s in range(r + 1, len(rows)):
            f = rows[s][c] / rows[r][c]
            if f:
                rows[s] = [x - f * y for x, y in zip(rows[s], rows[r])]
    return piv


def _mul(a, b):
    if len(a) * len(b) > MAX_TERMS:
        raise Rejected("certificate.null_space: the exact identity is too large for the kernel")
    _charge("terms", len(a) * len(b), MAX_TOTAL_TERMS)
    tick()
    return a * b


class _Ring:
    """Variables a_(k,c) (the entries of A) and y_(k,c) = e^(a_(k,c)/L) for k, c < d."""

    def __init__(self, d, L):
        self.d, self.L = d, L
        self.ctx = fmpq_mpoly_ctx.get((("a", d * d), ("y", d * d)), "lex")
        self.gens = self.ctx.gens()

    def const(self, x):
        return self.ctx.from_dict({(0,) * (2 * self.d * self.d): fmpq(x.numerator, x.denominator)})

    def theta(self, q, k):
        """theta_k = (A q)_k = sum_c a_(k,c) q_c."""
        return sum((self.gens[k * self.d + c] * _q(x) for c, x in enumerate(q) if x), self.const(Fraction(0)))

    def exps(self, w, q) -> list:
        """Exponents of e^(<w, A q>) = prod y_(k,c)^(L w_k q_c) (over the y variables)."""
        d = self.d
        es = [self.L * w[k] * q[c] for k in range(d) for c in range(d)]
        if any(e.denominator != 1 for e in es):   # pragma: no cover - L is the lcm of these denominators
            raise Rejected("kernel: exponent not integral")
        return [0] * (d * d) + [int(e) for e in es]

    def laurent(self, es, coeffs) -> object:
        """sum_k coeffs[k] y^(es[k] - min es) (componentwise minimum: no negative exponent), built in one go."""
        low = [min(e[j] for e in es) for j in range(len(es[0]))]
        terms = {tuple(x - y for x, y in zip(e, low)): c for e, c in zip(es, coeffs)}
        if len(terms) != len(es):   # pragma: no cover - distinct atoms (and Y != 1) give distinct exponents
            raise Rejected("kernel: repeated exponent")
        _charge("terms", len(terms), MAX_TOTAL_TERMS)
        return self.ctx.from_dict({k: _q(c) for k, c in terms.items() if c})

    def ratio(self, w, q, sign):
        """(Y + sign, Y - sign) for Y = e^(<w, A q>), as polynomials (both multiplied by the same monomial)."""
        es = [self.exps(w, q), [0] * len(self.gens)]
        return self.laurent(es, [1, sign]), self.laurent(es, [1, -sign])


def _q(x: Fraction):
    return fmpq(x.numerator, x.denominator)


def _exponent_coeffs(law, q):
    """The rationals w_k q_c whose multiples L w_k q_c must be integers (exponentials of this row)."""
    fam = law["family"]
    if fam == "discrete":
        ws = law["atoms"]
    elif fam == "uniform_cube":
        ws = [tuple(2 * law["radius"] if j == k else Fraction(0) for j in range(law["dim"]))
              for k in range(law["dim"])]
    elif fam == "gaussian_mixture":
        ws = [tuple(2 * _kappa(law) * x for x in law["direction"])]
    else:
        ws = []
    return [w[k] * x for w in ws for k in range(len(w)) for x in q]


def _kappa(law) -> Fraction:
    """a / |u| of a mixture, which must be rational here."""
    u2 = _dot(law["direction"], law["direction"])
    num, den = _isqrt(u2.numerator), _isqrt(u2.denominator)
    if num is None or den is None:
        raise Rejected("certificate.null_space: a mixture with irrational |u| is not supported by the exact check")
    return law["separation"] * den / num


def _isqrt(n):
    r = isqrt(n)
    return r if r * r == n else None


def _grad_exact(ring, law, q) -> list:
    """grad Lambda(A q) as [(numerator, denominator)] of polynomials in (a, y), one pair per coordinate."""
    fam, d = law["family"], law["dim"]
    C, one = ring.const, ring.const(Fraction(1))
    if not any(q):   # theta = 0 for every A: the gradient is the mean
        if fam == "discrete":
            mean = [sum((w * x[k] for x, w in zip(law["atoms"], law["weights"])), Fraction(0)) for k in range(d)]
        else:
            mean = law["center"] if fam == "uniform_cube" else law["mean"]
        return [(C(x), one) for x in mean]
    th = [ring.theta(q, k) for k in range(d)]
    if fam == "discrete":
        es = [ring.exps(x, q) for x in law["atoms"]]
        Z = ring.laurent(es, law["weights"])
        return [(ring.laurent(es, [w * x[k] for w, x in zip(law["weights"], law["atoms"])]), Z) for k in range(d)]
    if fam == "uniform_cube":   # c_k + r coth(r theta_k) - 1/theta_k, coth(r theta) = (Y + 1)/(Y - 1), Y = e^(2 r theta)
        r, c, out = law["radius"], law["center"], []
        for k in range(d):
            P, M = ring.ratio([2 * r if j == k else Fraction(0) for j in range(d)], q, 1)
            out.append((_mul(_mul(C(c[k]), th[k]) - one, M) + _mul(th[k] * _q(r), P), _mul(th[k], M)))
        return out
    S, m = law["cov"], law["mean"]
    St = [sum((th[j] * _q(S[k][j]) for j in range(d)), C(Fraction(0))) for k in range(d)]
    if fam == "gaussian":
        return [(C(m[k]) + St[k], one) for k in range(d)]
    if fam == "laplace":   # m + S theta / (1 - theta^T S theta / 2)
        D = one - sum((_mul(th[k], St[k]) for k in range(d)), C(Fraction(0))) * fmpq(1, 2)
        return [(_mul(C(m[k]), D) + St[k], D) for k in range(d)]
    kap = _kappa(law)      # mixture: m + S theta + tanh(kappa <u, theta>) kappa u, tanh = (Y - 1)/(Y + 1)
    T = ring.ratio([2 * kap * x for x in law["direction"]], q, -1)
    return [(_mul(C(m[k]) + St[k], T[1]) + T[0] * _q(kap * law["direction"][k]), T[1]) for k in range(d)]


def null_identity_holds(inst, v, const=None) -> bool:
    """True iff sum_r v_r grad Lambda_(i_r)(A q_r) - const vanishes identically in A (see the module docstring;
    ``const``: a constant vector, default 0).  For the search side: work counters reset."""
    _reset()
    return _identity(inst, v, const)


def _identity(inst, v, const=None) -> bool:
    laws, d = inst["laws"], inst["d"]
    terms = [(x, inst["rows"][r]) for r, x in enumerate(v) if x]
    if any(len(laws[i].get("atoms", ())) > MAX_EXACT_ATOMS for _, (i, _) in terms):
        raise Rejected(f"certificate.null_space: more than {MAX_EXACT_ATOMS} atoms for the exact check")
    coeffs = [w for _, (i, q) in terms for w in _exponent_coeffs(laws[i], q)]
    L = 1
    for w in coeffs:
        L = lcm(L, w.denominator)
    if any(abs(L * w) > 2 ** 40 for w in coeffs):
        raise Rejected("certificate.null_space: exponents too large for the exact check")
    ring = _Ring(d, L)
    grads = [(x, _grad_exact(ring, laws[i], q)) for x, (i, q) in terms]
    for k in range(d):
        tick()
        fr = [(x, g[k]) for x, g in grads]
        pre = [ring.const(Fraction(1))]
        for _, (_, D) in fr:
            pre.append(_mul(pre[-1], D))
        total, suf = -pre[-1] * _q(const[k] if const else Fraction(0)), ring.const(Fraction(1))
        for t in range(len(fr) - 1, -1, -1):
            x, (N, D) = fr[t]
            total += _mul(_mul(N, pre[t]), suf) * fmpq(x.numerator, x.denominator)
            suf = _mul(suf, D)
        if not total.is_zero():
            return False
    return True


# -- the checks -------------------------------------------------------------------------------------------------
def _keys(cert, field, top, keys):
    """Strict keys; a top-level certificate has ``kind`` and may have a display-only ``summary`` string."""
    R.obj(cert, field, required=top + keys, optional=("summary",) if top else ())
    R.string(cert.get("summary", ""), f"{field}.summary", max_len=2000)


def _check_pd(inst, cert, field, top=()) -> str:
    _keys(cert, field, top, ("precision_bits", "pivots", "diagonal"))
    low = min(_check_pivots(inst, cert, field))
    return f"{inst['n']}x{inst['n']} Gram ({len(inst['heads'])} heads) PD by ball Cholesky; smallest pivot >= {float(low):.4g}"


def _check_null(inst, cert, field, top=()) -> str:
    """Up to MAX_ROWS rows the complement of the null space passes ball Cholesky (``pivots``, ``diagonal``);
    above (a single instance, up to MAX_RESIDUAL_ROWS rows) the residual bound of :func:`_residual_pd`
    (``diagonal`` only)."""
    n = inst["n"]
    large = n > MAX_ROWS
    _keys(cert, field, top, ("null_space", "precision_bits", "diagonal") + (() if large else ("pivots",)))
    if not large:
        _within(inst, "parameters", False)
    vs = [[_small(x, f"{field}.null_space[{j}]") for x in R.vec(v, f"{field}.null_space[{j}]", n)]
          for j, v in enumerate(R.lst(cert["null_space"], f"{field}.null_space", 1, n))]
    piv = _rref(vs)
    for j, v in enumerate(vs):
        if not _identity(inst, v):
            raise Rejected(f"{field}.null_space[{j}]: sum_r v_r grad Lambda(A q_r) does not vanish identically")
    rest = sorted(set(range(n)) - set(piv))
    _check_pivots(inst, cert, field, rest, residual=large)
    return (f"{n}x{n} Gram singular: exact null space of dimension {len(vs)} (null for every head matrix); "
            f"the other {len(rest)} coordinates are PD{' (exact residual bound)' if large else ''}, so this is "
            f"the whole null space")


def _single(check, large=False):
    """A single-instance kind: the statement reader admits the larger ``ntk-residual`` bounds, so every other
    kind re-applies its own (``large=False``) before its check."""
    def run(result):
        inst = _expect(result)
        if not isinstance(inst, dict):
            raise Rejected("parameters: a single-instance kind takes one instance (laws, reading, queries, heads)")
        _within(inst, "parameters", large)
        return check(inst, result["certificate"], "certificate", ("kind",))
    return run


def _check_instances(result) -> str:
    insts = _expect(result)
    if not isinstance(insts, list):
        raise Rejected("parameters: the ntk-instances kind needs parameters.instances")
    cert = result["certificate"]
    _keys(cert, "certificate", ("kind",), ("instances",))
    subs = R.lst(cert["instances"], "certificate.instances", len(insts), len(insts))
    for k, (inst, sub) in enumerate(zip(insts, subs)):
        (_check_pd if inst["gram"] == "PD" else _check_null)(inst, sub, f"certificate.instances[{k}]")
    return f"{len(insts)} instances, each certified as stated"


# -- Gram PD <=> independence (docs/paper2.md §9.3), instance by instance -----------------------------------
def _rank(vs) -> int:
    rows, rank = [list(v) for v in vs], 0
    for c in range(len(rows[0]) if rows else 0):
        p = next((r for r in range(rank, len(rows)) if rows[r][c] != 0), None)
        if p is None:
            continue
        rows[rank], rows[p] = rows[p], rows[rank]
        for r in range(rank + 1, len(rows)):
            f = rows[r][c] / rows[rank][c]
            rows[r] = [x - f * y for x, y in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _equivalence_rows(result) -> list:
    got = _expect(result)
    if not isinstance(got, tuple):
        raise Rejected("parameters: an equivalence kind needs parameters.rows")
    rows = got[1]
    for k, x in enumerate(rows):
        if x["reading"] != "shared":
            raise Rejected(f"parameters.rows[{k}].reading: the equivalence is stated for shared queries")
    return rows


def _check_equivalence(result) -> str:
    """Each row: a PD certificate (then no relation modulo constants, nor modulo affine functions when m >= 2:
    a relation gives the null vector c (x) e_1, resp. c (x) (e_1 - e_2), docs/paper2.md §9.3), or an exact null space
    (null for every A; with m <= d independent queries, (A q_1..A q_m) covers an open set, so separating the
    variables gives sum_i v_(i,a) Lambda_i affine for some a with v_(.,a) != 0, and constant when m = 1)."""
    rows = _equivalence_rows(result)
    cert = result["certificate"]
    _keys(cert, "certificate", ("kind",), ("rows",))
    subs = R.lst(cert["rows"], "certificate.rows", len(rows), len(rows))
    pd = 0
    for k, (x, sub) in enumerate(zip(rows, subs)):
        field, m = f"certificate.rows[{k}]", x["m"]
        if isinstance(sub, dict) and "null_space" in sub:
            if _rank(x["queries"]) != m or m > x["d"] or (m >= 2 and x["modulo"] != "affine"):
                raise Rejected(f"{field}: a null space proves dependence modulo affine functions only for m <= d "
                               f"independent queries (modulo constants only for m = 1)")
            _check_null(x, sub, field)
        else:
            if m == 1 and x["modulo"] != "constants":
                raise Rejected(f"{field}: a PD Gram with m = 1 does not exclude an affine relation")
            _check_pd(x, sub, field)
            pd += 1
    return f"{len(rows)} instances: {pd} PD and independent, {len(rows) - pd} singular and dependent"


def _check_counterexample(result) -> str:
    """The one instance of the parameters has a PD Gram (ball Cholesky) while its CGFs satisfy an exact relation
    modulo its ``modulo``: sum_i c_i grad Lambda_i(theta) = alpha identically (c != 0; alpha = 0 modulo
    constants), so sum_i c_i Lambda_i = <alpha, theta> (every Lambda_i(0) = 0).  Its equivalence fails."""
    rows = _equivalence_rows(result)
    if len(rows) != 1:
        raise Rejected("parameters.rows: a counterexample Result states its one instance")
    x, cert = rows[0], result["certificate"]
    _keys(cert, "certificate", ("kind",), ("precision_bits", "pivots", "diagonal", "relation"))
    rel = R.obj(cert["relation"], "certificate.relation", required=("c", "alpha"))
    c = [_small(v, "certificate.relation.c") for v in R.vec(rel["c"], "certificate.relation.c", len(x["laws"]))]
    alpha = [_small(v, "certificate.relation.alpha") for v in R.vec(rel["alpha"], "certificate.relation.alpha", x["d"])]
    if not any(c) or (x["modulo"] == "constants" and any(alpha)):
        raise Rejected("certificate.relation: c = 0, or an affine relation where the instance is modulo constants")
    e1 = tuple(Fraction(int(j == 0)) for j in range(x["d"]))
    if not _identity({"laws": x["laws"], "d": x["d"], "rows": [(i, e1) for i in range(len(c))]}, c, alpha):
        raise Rejected("certificate.relation: sum_i c_i grad Lambda_i - alpha does not vanish identically")
    _check_pd(x, {k: cert[k] for k in ("precision_bits", "pivots", "diagonal")}, "certificate")
    return f"the Gram is PD while the CGFs satisfy an exact relation modulo {x['modulo']}"


_N7 = frozenset({"N7"})
KINDS = {
    "ntk-cholesky": Kind(_N7, "proved", frozenset({"certified"}), _single(_check_pd)),
    "ntk-residual": Kind(_N7, "proved", frozenset({"certified"}), _single(_check_residual, large=True)),
    "ntk-null-vector": Kind(_N7, "refuted", frozenset({"exact"}), _single(_check_null, large=True)),
    "ntk-instances": Kind(_N7, "proved", frozenset({"certified"}), _check_instances),
    "ntk-equivalence": Kind(_N7, "proved", frozenset({"certified"}), _check_equivalence),
    "ntk-equivalence-counterexample": Kind(_N7, "refuted", frozenset({"certified"}), _check_counterexample),
}
_reset()
