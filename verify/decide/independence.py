"""The sound three-way decision procedure for linear independence of CGFs modulo affine functions
(docs/paper2.md §5.3; claims N3-N6).

Polarity -- the two entry points ask opposite questions, so PROVED means different things:

* :func:`independent_mod_affine` asks "are the CGFs independent?": PROVED = independent,
  REFUTED = dependent (an exact relation exists).
* :func:`check_relation` asks "does this given relation hold?": PROVED = the relation holds (so the
  laws are *dependent*), REFUTED = it is certified false (which says nothing about independence).

Algorithm
---------
:func:`independent_mod_affine` (docs/independence.md, "The decision procedure"), cheapest first:

1. the exact structural screen without the lattice criterion (:func:`~verify.decide.relations.find_relation`):
   Diracs, translates / duplicates, Gaussian covariance rank; a relation found is verified exactly;
1b. every frequency rational (:mod:`verify.decide.exponent_lattice`; docs/independence.md, "The exponent
   lattice for rational families"): the exact exponent lattice decides in both directions.  It runs here
   for families with a cube, a mixture or laws of two kinds; families that are all discrete or all
   Gaussian / Laplace reach it after their own exact certificate (step 2) fails; ``lattice=False`` skips it;
2. a certificate: all laws discrete -> the modular Hessian / gradient certificate (about N / (rows per
   point) + 2 points, three primes at most); Gaussian / Laplace laws (and mixtures with separation 0) ->
   the exact rational one;
3. if that fails and some law is discrete: the lattice criterion (polynomial factoring over Q);
4. the ball design certificate at N + d + 11 (modulo constants N + 11) exact points, interval Cholesky of the
   preconditioned Gram up the precision ladder (O(points x N^2) ball operations per rung) for
   N <= ``MAX_BALL_LAWS`` = 64; beyond, the **square** design: N + 1 + d points of distinct orbits and one
   compiled ``arb_mat`` determinant per rung (:func:`~verify.decide.independence_certificates.square_design_certificate`);
5. a kernel search at 80 digits on two point sets (mpmath SVD for N <= 16, compiled inverse iteration
   beyond, within ``MAX_SEARCH_WORK`` CGF values), its candidate verified exactly;
6. otherwise INCONCLUSIVE.

:func:`check_relation` tests one given relation: exact identity first, then a certified witness.

Soundness
---------
``independent_mod_affine(dists, modulo="affine" | "constants") -> Result``:

* **REFUTED (dependent)** only with an exact relation sum c_i Lambda_i = <a, theta> + b, c != 0 (a = 0 modulo
  constants), re-proved exactly: the expanded polynomial identity prod P_i^{c_i} = C z^beta for discrete laws,
  the exponent-lattice identity (rational frequencies), or SymPy reducing the difference to 0.  Relations
  come from the exact structural screen (Diracs, translates, duplicates, Gaussian covariance rank, the
  lattice criteria) or from a high-precision kernel search.
* **PROVED (independent)** only with a full-column-rank certificate: the exponent matrix of rank N (kind
  ``independence-lattice``), the exact modular Hessian / gradient certificate (rational discrete laws), the
  exact rational Hessian / gradient certificate (Gaussian / Laplace), or the ball design matrix certified by
  interval Cholesky up the precision ladder.
* **INCONCLUSIVE** otherwise, with sigma_min/sigma_max and the precision in ``evidence``.  Float64 never decides.

The certificate in a PROVED Result is a non-zero N x N minor (modular / rational determinant, or a square
design determinant certified in the kernel's own balls; :mod:`verify.decide.independence_certificates`),
and every decided Result is re-checked by the kernel (:mod:`verify.kernel.lse`) before it is returned:
a verdict the kernel rejects is returned INCONCLUSIVE (:func:`self_checked`).  The lattice criterion's rank
and the S1 / S2 conditions are evidence; only relations re-proved exactly count.

Limits
------
At most ``MAX_LAWS`` = 512 laws, ``MAX_TOTAL_ATOMS`` = 20,000 atoms (the kernel's reader of the laws), ``MAX_POINTS`` = 2048 given points
(:class:`~verify.errors.SizeLimitError`); ladder rungs in [16, 4096] bits.  For N > ``MAX_BALL_LAWS`` = 64
(``method="auto"``) the square design is attempted only within the kernel's ball budget
(:mod:`verify.kernel.lse`: nc x sum_i (atoms_i or d) <= 20,000 for nc = N + 1 + d columns, at most 4096
atoms), else the Result is INCONCLUSIVE at once with that reason; the numerical relation search runs for
N <= 16, and beyond only when a point set costs at most ``MAX_SEARCH_WORK`` = 8,000 CGF values
(:func:`~verify.decide.relations.search_work`).  The exponent lattice applies within the limits of
:func:`verify.kernel._lattice.applicable` (d <= 16, exponent span <= 1024 in d = 1, <= 96 in d >= 2, a
factoring budget per law).

>>> from verify.laws import Discrete
>>> mu, nu = Discrete([[0], [1]]), Discrete([[0], [2]])
>>> independent_mod_affine([mu, nu]).verdict.value
'proved'
>>> r = independent_mod_affine([mu, nu, Discrete([[0], [1], [2], [3]])])
>>> r.verdict.value, r.certificate["c"]
('refuted', [1, 1, -1])
"""

from __future__ import annotations

import contextlib
import gc
import time
from fractions import Fraction
from typing import Optional, Sequence

from .independence_certificates import (ball_design_certificate, design_points, square_design_certificate,
                                        square_design_points,
                                                  exact_rational_certificate, in_common_domain, kernel_ball,
                                                  kernel_exact, kernel_modular, modular_certificate,
                                                  rational_hessian_family)
from ..canonical import jsonable
from ..kernel import Rejected, check as kernel_check
from ..kernel._laws import MAX_ATOMS as KERNEL_ATOMS
from ..kernel.lse import CONVENTIONS, statement_batch_sized, statement_independence_sized, statement_relation
from ..kernel.lse import (MAX_BALL_ATOMS as KERNEL_BALL_ATOMS, MAX_BALL_LAWS as KERNEL_BALL_LAWS,
                          MAX_BALL_WORK as KERNEL_BALL_WORK)
from .exponent_lattice import exponent_lattice, lattice_affine_part
from .lattice import forget_integer_atoms, lattice_applicable, lattice_criterion, s1_direction, s2_holds
from .relations import (MAX_SEARCH_WORK, MAX_SVD_LAWS, Relation, _normalise as _normalised, find_relation,
                        numeric_relation_search, relation_expression, search_work, verify_relation)
from ..arith.ball import LADDER, decide_with_ladder, sign, to_ball
from ..arith.exact import fraction_str, parse_exact, parse_vector
from ..errors import InputError, InputTypeError, SizeLimitError
from ..laws import Distribution, distribution_from_dict
from ..results import CLAIM_ID_PATTERN, Method, Result, Verdict

__all__ = ["independent_mod_affine", "check_relation", "batch_result", "self_checked", "parse_laws", "MAX_LAWS", "MAX_POINTS", "MODULI"]

MAX_LAWS = 512
MAX_POINTS = 2048
MAX_TOTAL_ATOMS = KERNEL_ATOMS  # atoms summed over all discrete laws: every statement is built by the kernel's
#                                 reader of the laws (verify.kernel._laws.MAX_ATOMS = 20,000), so no more can be stated
MAX_BALL_LAWS = 64              # the ball design certificate (pure-Python arb loops) is used up to this N
MODULI = ("affine", "constants")


def parse_laws(dists, field: str = "dists", *, allow_float: bool = False) -> list:
    """Distribution objects or SPEC dicts -> list of laws of one dimension (errors name the field)."""
    if isinstance(dists, (str, bytes, dict)) or not hasattr(dists, "__iter__"):
        raise InputTypeError(field, f"expected a list of distributions, got {type(dists).__name__}")
    dists = list(dists)
    if not dists:
        raise InputError(field, "must contain at least one distribution")
    if len(dists) > MAX_LAWS:
        raise SizeLimitError(field, f"{len(dists)} laws exceed the limit {MAX_LAWS}")
    laws = []
    for i, d in enumerate(dists):
        if isinstance(d, Distribution):
            laws.append(d)
        elif isinstance(d, dict):
            laws.append(distribution_from_dict(d, f"{field}[{i}]", allow_float=allow_float))
        else:
            raise InputTypeError(f"{field}[{i}]", f"expected a distribution or a SPEC object, got {type(d).__name__}")
    dim = laws[0].dim
    for i, l in enumerate(laws):
        if l.dim != dim:
            raise InputError(f"{field}[{i}]", f"has dimension {l.dim}, {field}[0] has dimension {dim}")
    total = sum(len(l.atoms) for l in laws if l.family == "discrete")
    if total > MAX_TOTAL_ATOMS:
        raise SizeLimitError(field, f"{total} atoms in total exceed the limit {MAX_TOTAL_ATOMS}")
    return laws


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector for one decision (its state is restored after).  A decision
    makes no reference cycles, but it allocates some 10^4 short-lived containers while lists of 10^4 - 10^5
    integers are alive, which the collector would traverse again and again (about a tenth of the time for
    N = 200 discrete laws); memory is freed by reference counting as before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _statement(params: dict, laws) -> str:
    """The kernel's statement for these parameters (laws, modulo, label); ``laws`` are the parsed laws of
    ``params["laws"]`` (their number and dimension; the kernel's check reads the laws themselves)."""
    return statement_independence_sized(jsonable(params), jsonable(CONVENTIONS), len(laws), laws[0].dim)


def self_checked(result: Result) -> Result:
    """``result`` if the kernel accepts it (or it is undecided); otherwise the same Result made
    INCONCLUSIVE, with the kernel's reason in the evidence (the kernel is the judge of every verdict)."""
    if result.verdict is Verdict.INCONCLUSIVE:
        return result
    try:
        kernel_check(result.to_dict())      # the JSON data of result.to_json(), without the text round trip
        return result
    except Rejected as exc:
        ev = dict(result.evidence or {})
        ev["kernel_rejected"] = {"verdict": result.verdict.value, "reason": str(exc)[:500],
                                 "certificate": result.certificate}
        return Result(result.claim, result.statement, Verdict.INCONCLUSIVE, result.method,
                      certificate={"summary": f"undecided: the kernel rejected the {result.verdict.value} "
                                              f"certificate ({str(exc)[:200]})"},
                      parameters=result.parameters, conventions=result.conventions, seeds=result.seeds,
                      evidence=ev, timing=result.timing)


def relation_certificate(rel: Relation) -> dict:
    """The body {c, a, C} of a ``dependence-relation`` certificate."""
    return {"c": [int(x) for x in rel.c], "a": [fraction_str(Fraction(x)) for x in rel.a],
            "C": fraction_str(Fraction(rel.C))}


def design_certificate(laws, modulo: str, info: dict):
    """The body of an ``independence-design`` certificate for a certified search ``info`` (None if no
    kernel certificate could be built)."""
    variant = info["variant"]
    if info.get("square") and info.get("det"):       # square_design_certificate: the minor is the design
        return {"variant": "design-ball", "points": [[fraction_str(Fraction(x)) for x in t] for t in info["points"]],
                "det": info["det"]}
    if variant.endswith("modp"):
        return kernel_modular(laws, info)
    if variant.endswith("exact"):
        return kernel_exact(laws, modulo, [tuple(Fraction(x) for x in t) for t in info["points"]])
    return kernel_ball(laws, modulo, [tuple(Fraction(x) for x in t) for t in info["points"]])


def _points(points, laws, field="points") -> list:
    if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
        raise InputTypeError(field, f"expected a list of points, got {type(points).__name__}")
    pts = list(points)
    if len(pts) > MAX_POINTS:
        raise SizeLimitError(field, f"{len(pts)} points exceed the limit {MAX_POINTS}")
    out = []
    for k, t in enumerate(pts):
        t = parse_vector(t, f"{field}[{k}]", dim=laws[0].dim)
        if not in_common_domain(laws, t):
            raise InputError(f"{field}[{k}]", "lies outside the common CGF domain U")
        out.append(t)
    return out


def _unchecked(result: Result) -> Result:
    """``result`` as it is (``self_check=False``: a batch member whose batch Result the kernel re-checks)."""
    return result


def _relation_result(claim, laws, modulo, rel: Relation, details, params, conventions, seeds, evidence,
                     checked=self_checked):
    cert = {"kind": "dependence-relation",
            "summary": f"exact relation {rel.text()} ({rel.source}; verified by {details.get('method')})",
            **relation_certificate(rel)}
    evidence = {**evidence, "relation": {**rel.to_dict(), "verification": details}}
    return checked(Result(claim, _statement(params, laws), Verdict.REFUTED, Method.EXACT, certificate=cert,
                               parameters=params, conventions=conventions, seeds=seeds, evidence=evidence))


def _lattice_step(claim, laws, modulo, params, conventions, seeds, evidence, refuted_by, t0, checked=self_checked):
    """Step 0: the exponent lattice (:mod:`verify.decide.exponent_lattice`); None when it does not apply
    or its verdict was not confirmed (the attempt is recorded in ``evidence["exponent_lattice"]``)."""
    lat = exponent_lattice(laws, modulo)
    if not lat["applicable"]:
        evidence["exponent_lattice"] = lat
        return None
    evidence["exponent_lattice"] = {k: v for k, v in lat.items() if k not in ("certificate", "relation")}
    if not lat["independent"]:
        rel = lat["relation"]
        return refuted_by(_normalised(Relation(rel["c"], rel["a"], rel["C"], "exponent-lattice")),
                          "lattice_relation_unverified")
    N = len(laws)
    nb, nf = lat["base_sizes"]
    cert = {"kind": "independence-lattice",
            "summary": f"exponent-lattice certificate: {lat['rows']} x {N} exponent matrix of rank {N} over Q "
                       f"({nb} irreducible factors of the exponential polynomials in t = e^(theta/{lat['D']}), "
                       f"{nf} of the rational parts)", **lat["certificate"]}
    r = checked(Result(claim, _statement(params, laws), Verdict.PROVED, Method.EXACT, certificate=cert,
                            parameters=params, conventions=conventions, seeds=seeds, evidence=evidence
                            ).with_timing(seconds=round(time.perf_counter() - t0, 4)))
    return r if r.verdict is Verdict.PROVED else None


def independent_mod_affine(dists, modulo: str = "affine", claim: str = "N3", points=None,
                           ladder: Sequence[int] = LADDER, seed: int = 0, box=None,
                           method: str = "auto", search: bool = True, label: Optional[str] = None,
                           lattice: bool = True, self_check: bool = True) -> Result:
    """Decide whether the CGFs of ``dists`` are linearly independent modulo affine functions
    (``modulo='constants'``: modulo constants).  See the module docstring.

    Polarity: PROVED = **independent**, REFUTED = **dependent** (with the exact relation in the
    certificate), INCONCLUSIVE = undecided.  (Opposite to :func:`check_relation`, where PROVED means a
    relation holds.)

    ``points``: exact rational points for the ball design certificate (forces ``method='design'``);
    ``ladder``: precisions in bits for the ball certificate (e.g. ``(53,)`` for double precision);
    ``method``: ``auto`` (screen, then the cheapest exact certificate, then the ball design) or ``design``;
    ``box``: half-width of the box the automatic design points are drawn from (default 1);
    ``search``: run the numerical kernel search when no certificate succeeds;
    ``label``: a short name shown at the start of the statement (e.g. the oracle case);
    ``lattice``: use the exact exponent lattice (step 0) when every frequency is rational;
    ``self_check``: re-check a decided Result with the kernel before returning it (the default).  Only a
    caller that puts the Result into a batch (:func:`batch_result`, whose Result the kernel re-checks with
    every member certificate) may pass ``False``: the decided Result is then returned *unchecked* and must not
    be reported on its own.

    The parameters are the laws, the modulus and the label only (what is claimed); the search settings
    go to ``evidence["search"]``.  Every decided Result is re-checked by the kernel before it is returned.

    Algorithm
    ---------
    Steps 1-6 of the module docstring; ``method="design"`` (or ``points``) skips the exact certificates and
    goes to the ball design.

    Soundness
    ---------
    PROVED: a full-column-rank certificate (a non-zero minor) the kernel accepted; REFUTED: an exact
    relation re-proved by polynomial expansion or SymPy and accepted by the kernel.  A search or float
    result never decides.

    Limits
    ------
    INCONCLUSIVE when no relation is verified and no certificate succeeds (the ball design up to the top
    of ``ladder``, 512 bits by default), or when the kernel rejects a found certificate.  Sizes: see the
    module docstring.
    """
    with _collector_paused():
        t0 = time.perf_counter()
        if not isinstance(claim, str) or not CLAIM_ID_PATTERN.match(claim):
            raise InputError("claim", f"must be a catalogue ID such as 'N3' or 'N5.n', got {claim!r}")
        if modulo not in MODULI:
            raise InputError("modulo", f"must be one of {', '.join(MODULI)}, got {modulo!r}")
        if method not in ("auto", "design"):
            raise InputError("method", f"must be 'auto' or 'design', got {method!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise InputError("seed", f"must be an integer in [0, 2^63), got {seed!r}")
        if not isinstance(self_check, bool):
            raise InputError("self_check", f"must be True or False, got {self_check!r}")
        checked = self_checked if self_check else _unchecked
        ladder = tuple(ladder)
        if not ladder or any(isinstance(p, bool) or not isinstance(p, int) or not 16 <= p <= 4096 for p in ladder):
            raise InputError("ladder", f"must be a non-empty list of precisions in [16, 4096] bits, got {ladder!r}")
        laws = parse_laws(dists)
        forget_integer_atoms()
        if box is not None:
            box = parse_exact(box, "box")
            if box <= 0:
                raise InputError("box", f"must be > 0, got {fraction_str(box)}")
        pts = _points(points, laws) if points is not None else None
        if pts is not None:
            method = "design"
            need = len(laws) + 1 + (laws[0].dim if modulo == "affine" else 0)
            if len(pts) < need:
                raise InputError("points", f"{len(pts)} points give fewer rows than the {need} columns of the design "
                                           "matrix (need at least N + d + 1, modulo constants N + 1)")
        N, d = len(laws), laws[0].dim
        params = {"laws": [l.to_dict() for l in laws], "modulo": modulo, **({"label": label} if label else {})}
        conventions = dict(CONVENTIONS)
        seeds = {"points": seed}
        evidence: dict = {"search": {"method": method, "ladder": list(ladder),
                                     **({"box": box} if box is not None else {}),
                                     **({"points": [list(t) for t in pts]} if pts is not None else {})}}

        def refuted_by(rel, unverified_key):
            """The REFUTED Result if ``rel`` is verified exactly; else None, with the attempt in ``evidence``."""
            ok, details = verify_relation(laws, rel)
            if ok:
                return _relation_result(claim, laws, modulo, rel, details, params, conventions, seeds,
                                        evidence, checked).with_timing(seconds=round(time.perf_counter() - t0, 4))
            evidence[unverified_key] = {"relation": rel.to_dict(), **details}
            return None

        # 1. structural screen (exact).  The cheap part (Diracs, translates, Gaussian rank) runs first; the
        # lattice criterion (polynomial factoring) runs only if no certificate proves independence.
        def screen(lattice):
            rel = find_relation(laws, modulo, lattice=lattice)
            return None if rel is None else refuted_by(rel, "screen_relation_unverified")

        found = screen(lattice=False)
        if found is not None:
            return found
        own_exact = all(l.family == "discrete" for l in laws) or rational_hessian_family(laws)
        lattice_done = False
        if method == "auto" and lattice and not own_exact:
            lattice_done = True
            found = _lattice_step(claim, laws, modulo, params, conventions, seeds, evidence, refuted_by, t0, checked)
            if found is not None:
                return found
        all_discrete = all(l.family == "discrete" for l in laws)
        if all_discrete:
            evidence["S2"] = s2_holds(laws)
            v = s1_direction(laws) if N <= 16 else None
            evidence["S1_direction"] = list(v) if v is not None else None

        # 2. certificate
        cert_info = None
        if method == "auto" and all_discrete:
            cert_info = modular_certificate(laws, modulo, seed=seed)
            m = Method.EXACT
        elif method == "auto" and rational_hessian_family(laws):
            per = d * (d + 1) // 2 if modulo == "affine" else d
            cert_info = exact_rational_certificate(laws, modulo, design_points(laws, -(-N // per) + 2, seed, box))
            m = Method.EXACT
        if (cert_info is None or not cert_info["certified"]) and any(l.family == "discrete" for l in laws):
            found = screen(lattice=True)
            if found is not None:
                return found
        if (cert_info is None or not cert_info["certified"]) and method == "auto" and lattice and not lattice_done:
            found = _lattice_step(claim, laws, modulo, params, conventions, seeds, evidence, refuted_by, t0, checked)
            if found is not None:
                return found
        if cert_info is None or not cert_info["certified"]:
            if cert_info is not None:
                evidence["exact_certificate_attempt"] = cert_info
            if N > MAX_BALL_LAWS and method == "auto" and pts is None:
                cert_info = _square_design(laws, modulo, seed, box, ladder)
            else:
                if pts is None:
                    pts = design_points(laws, N + d + 11 if modulo == "affine" else N + 11, seed, box)
                cert_info = ball_design_certificate(laws, modulo, pts, ladder)
            m = Method.CERTIFIED
        if cert_info["certified"]:
            body = design_certificate(laws, modulo, cert_info)
            if body is None:
                cert_info = {**cert_info, "certified": False, "reason": "no kernel certificate (minor) could be built"}
        if cert_info["certified"]:
            variant = cert_info["variant"]
            rank_txt = (f"rank {cert_info['rank']} = N modulo p = {cert_info['prime']}" if variant.endswith("modp")
                        else f"rank {cert_info['rank']} = N over Q" if variant.endswith("exact")
                        else f"square determinant certified at {cert_info['precision_bits']} bits"
                        if cert_info.get("square")
                        else f"preconditioned interval Cholesky succeeded at {cert_info['precision_bits']} bits")
            cert = {"kind": "independence-design",
                    "summary": f"{variant} certificate: {cert_info['rows']}x{cert_info['columns']} matrix at "
                               f"{len(cert_info.get('points', cert_info.get('z_points', [])))} points, {rank_txt}; "
                               f"non-zero {N}x{N} minor" if variant != "design-ball" else
                               f"design-ball certificate: square {len(body['points'])}x{len(body['points'])} design "
                               f"matrix with certified non-zero determinant ({rank_txt} on "
                               f"{cert_info['rows']} rows)", **body}
            evidence["search_certificate"] = {k: v for k, v in cert_info.items() if k not in ("entries", "certified")}
            return checked(Result(claim, _statement(params, laws), Verdict.PROVED, m, certificate=cert,
                                       parameters=params, conventions=conventions, seeds=seeds, evidence=evidence
                                       ).with_timing(seconds=round(time.perf_counter() - t0, 4)))
        evidence["design_certificate"] = {k: v for k, v in cert_info.items() if k not in ("entries",)}
        if any(l.family == "discrete" for l in laws):
            if all_discrete:
                why = lattice_applicable(laws)
                if why is None:
                    crit = lattice_criterion(laws)
                    evidence["lattice_criterion"] = {"rank": crit.rank, "laws": N, "factors": list(crit.factors),
                                                     "multiplicities": [list(r) for r in crit.multiplicities]}
                else:
                    evidence["lattice_criterion"] = {"applicable": False, "reason": why}

        # 3. numerical kernel search + exact verification
        if search and (N <= MAX_SVD_LAWS or search_work(laws, N + d + 11) <= MAX_SEARCH_WORK):
            sets = [design_points(laws, N + d + 11, seed + 1000 + k, box) for k in range(2)]
            cand = numeric_relation_search(laws, modulo, sets)
            if cand is not None:
                found = refuted_by(cand, "numeric_candidate_unverified")
                if found is not None:
                    return found

        # 4. inconclusive
        evidence["sigma_min_over_sigma_max"] = cert_info.get("sigma_ratio_evidence")
        evidence["precision_bits"] = cert_info.get("precision_bits")
        cert = {"summary": "undecided: no exact relation found and " + _uncertified_text(cert_info)}
        return Result(claim, _statement(params, laws), Verdict.INCONCLUSIVE, Method.CERTIFIED, certificate=cert,
                      parameters=params, conventions=conventions, seeds=seeds, evidence=evidence
                      ).with_timing(seconds=round(time.perf_counter() - t0, 4))


def _square_design(laws, modulo, seed, box, ladder) -> dict:
    """The square design certificate for N > ``MAX_BALL_LAWS`` (two seeded point sets), or the reason it is
    not attempted: the kernel re-checks a design-ball minor only within its budget (``KERNEL_BALL_WORK``
    points x laws x (d or atoms), ``KERNEL_BALL_LAWS`` laws, ``KERNEL_BALL_ATOMS`` atoms), so a larger one
    ends INCONCLUSIVE at once."""
    N, d = len(laws), laws[0].dim
    nc = N + 1 + (d if modulo == "affine" else 0)
    cost = nc * sum(len(l.atoms) if l.family == "discrete" else d for l in laws)
    atoms = sum(len(l.atoms) for l in laws if l.family == "discrete")
    if N > KERNEL_BALL_LAWS or atoms > KERNEL_BALL_ATOMS or cost > KERNEL_BALL_WORK:
        return {"certified": False, "variant": "design-ball", "precision_bits": None,
                "reason": f"the square design ({nc} points x {N} laws, work {cost}, {atoms} atoms) exceeds the "
                          f"kernel's ball budget ({KERNEL_BALL_LAWS} laws, {KERNEL_BALL_ATOMS} atoms, work "
                          f"{KERNEL_BALL_WORK}): not attempted"}
    info = None
    for k in range(2):
        try:
            pts = square_design_points(laws, nc, seed + k, box)
        except InputError as exc:          # no nc points of distinct orbits in U: undecided, not bad input
            return {"certified": False, "variant": "design-ball", "precision_bits": None, "reason": str(exc)}
        info = square_design_certificate(laws, modulo, pts, ladder)
        info["attempt"] = k + 1
        if info["certified"]:
            break
    return info


def _uncertified_text(info: dict) -> str:
    """Why the design certificate did not decide, with the precision and the sigma ratio when known."""
    bits, ratio = info.get("precision_bits"), info.get("sigma_ratio_evidence")
    if bits is None:
        return f"no design certificate was computed ({info.get('reason', 'not attempted')})"
    return (f"the design matrix was not certified full rank up to {bits} bits"
            + (f" (sigma_min/sigma_max ~ {ratio})" if ratio is not None else ""))


def check_relation(dists, c, a=None, C=1, claim: str = "N3", ladder: Sequence[int] = LADDER, point=None) -> Result:
    """Is sum c_i Lambda_i = <a, theta> + log C on U (``a=None``: is sum c_i Lambda_i affine)?

    Polarity: PROVED = **the relation holds** (the laws are dependent), REFUTED = **the relation is false**
    (this c is not a relation; the laws may still be dependent), INCONCLUSIVE = undecided.  (Opposite to
    :func:`independent_mod_affine`, where PROVED means independent.)

    PROVED (kernel kind ``relation-identity``) when the identity is re-proved exactly (expanded polynomial
    identity / SymPy).  REFUTED (``relation-witness``) when it is certified false: the second difference
    F(t+h) - 2F(t) + F(t-h) of F = sum c_i Lambda_i (or, with ``a``, the value F(t) - <a, t> - log C) is an
    arb ball excluding 0 at exact points of U.  ``c`` may be rational, e.g. ``(1, 0, -2,
    "1.00000000000000000001")``; ``ladder`` is kept for compatibility (the kernel's ladder is used).

    Algorithm
    ---------
    1. Scale c to coprime integers (c' = s c, s > 0).
    2. Exact test: all laws discrete -> the expanded polynomial identity (degree <= 3000); every frequency
       of the laws with c_i != 0 rational -> the exponent-lattice identity
       (:func:`~verify.decide.exponent_lattice.lattice_affine_part`: the column combination vanishes, a and
       C computed; with ``a`` given they must match); otherwise, only when ``a`` is given and s is an
       integer -> :func:`~verify.decide.relations.verify_relation` (SymPy).
    3. Else a witness, in the kernel's own CGF balls (:mod:`verify.kernel._laws`) at its ladder
       (128, 512, 2048 bits): at 4 seeded design points (or ``point``), the second differences of
       F = sum c_i Lambda_i with steps e_i / 4 and (e_i + e_k) / 4, and with ``a`` the value
       F(t) - <a, t> - log C; the first ball that excludes 0 with radius < 2^-18 |midpoint| refutes.

    Soundness
    ---------
    PROVED: the identity re-proved exactly (kind ``relation-identity``).  REFUTED: F is not affine (a
    second difference is certainly non-zero) or not equal to <a, t> + log C at a point (kind
    ``relation-witness``), resting on the kernel's ball enclosures.  Both are re-checked by the kernel.

    Limits
    ------
    INCONCLUSIVE when neither succeeds.  Without ``a`` a PROVED also needs C^(1/s) to be rational; for
    non-discrete laws with an irrational frequency, a PROVED needs ``a`` and an integer scaling s, otherwise
    only REFUTED or INCONCLUSIVE can come out.  A relation with a tiny non-zero defect may need more than 2048 bits.

    >>> from verify.laws.oracle_families import oracle_case
    >>> check_relation(oracle_case("F5").laws, (1, 0, -2, 1)).verdict.value
    'proved'
    >>> check_relation(oracle_case("F5").laws, (1, 0, -2, "1.00000000000000000001")).verdict.value
    'refuted'
    """
    from flint import arb

    from .independence_certificates import _dyadic_str
    from .lattice import verify_polynomial_relation
    from ..arith.exact import integer_normalise
    from ..kernel import _laws as KL, lse as KLSE
    from ..kernel._ball import ball, workprec

    laws = parse_laws(dists)
    n, d = len(laws), laws[0].dim
    cq = parse_vector(c, "c", dim=n)
    if not any(cq):
        raise InputError("c", "must be non-zero")
    aq = parse_vector(a, "a", dim=d) if a is not None else None
    Cq = parse_exact(C, "C")
    if Cq <= 0:
        raise InputError("C", f"must be > 0, got {fraction_str(Cq)}")
    params = {"laws": [l.to_dict() for l in laws], "c": list(cq),
              **({"a": list(aq), "C": Cq} if aq is not None else {})}
    conventions = dict(CONVENTIONS)
    statement = statement_relation(jsonable(params), jsonable(conventions))
    details: dict = {}
    # scale c to coprime integers: c' = s c, a' = s a, C' = C^s (s > 0)
    ci = integer_normalise(cq)
    k = next(i for i, x in enumerate(cq) if x)
    s = Fraction(ci[k]) / cq[k]
    if s < 0:
        ci = tuple(-x for x in ci)
        s = -s
    exact_ok, found = None, None
    try:
        if all(l.family == "discrete" for l in laws):
            pr = verify_polynomial_relation(laws, ci)
            details = {"method": "polynomial-identity", "holds": pr.holds, "C": pr.constant, "a": pr.affine}
            exact_ok = pr.holds
            if pr.holds:
                found = ([x / s for x in pr.affine], Fraction(pr.constant))   # for c: a = a'/s, C = C'^(1/s)
                if aq is not None:
                    exact_ok = (pr.affine == tuple(s * x for x in aq) and s.denominator == 1
                                and pr.constant == Cq ** int(s))
        elif lattice_affine_part(laws, ci) is not None:
            lat = lattice_affine_part(laws, ci)          # every frequency of the support rational: exact
            details = {"method": "exponent-lattice", "holds": lat is not False}
            exact_ok = lat is not False
            if lat is not False:
                a_, C_ = lat
                details.update(a=list(a_), C=C_)
                found = ([x / s for x in a_], None if _rational_root(C_, s) is None else _rational_root(C_, s))
                if aq is not None:        # sum c'_i Lambda_i = s <a, theta> + s log C  <=>  C'^den(s) = C^num(s)
                    exact_ok = (tuple(a_) == tuple(s * x for x in aq)
                                and C_ ** s.denominator == Cq ** s.numerator)
        elif aq is not None and s.denominator == 1:
            ok, details = verify_relation(laws, Relation(tuple(ci), tuple(s * x for x in aq), Cq ** int(s), "given"))
            exact_ok = True if ok else None
    except SizeLimitError as exc:
        details = {"skipped": str(exc)}
    if all(l.family == "discrete" for l in laws) and lattice_applicable(laws) is None:
        crit = lattice_criterion(laws)
        details["multiplicity_residuals"] = [sum((cq[i] * crit.multiplicities[i][p] for i in range(n)), Fraction(0))
                                             for p in range(len(crit.factors))]
        details["factors"] = list(crit.factors)
    evidence = {"exact_check": details}
    if exact_ok:
        cert = {"kind": "relation-identity", "summary": f"identity verified exactly ({details.get('method')})"}
        if aq is None:
            a_, C_ = found
            root = None if C_ is None else (_rational_root(C_, s) if details.get("method") != "exponent-lattice"
                                            else C_)
            if root is None:
                exact_ok = None
            else:
                cert.update(a=[fraction_str(x) for x in a_], C=fraction_str(root))
        if exact_ok:
            return self_checked(Result(claim, statement, Verdict.PROVED, Method.EXACT, certificate=cert,
                                       parameters=params, conventions=conventions, evidence=evidence))
    # a certified witness that the identity (or affinity) fails, computed with the kernel's own enclosures
    klaws = KL.read_laws(jsonable(params["laws"]))
    pts = design_points(laws, 4, seed=7) if point is None else [parse_vector(point, "point", dim=d)]
    steps = [tuple(Fraction(1, 4) if j in (i, k) else Fraction(0) for j in range(d)) for i in range(d)
             for k in range(i, d)]

    def F(t):
        if not all(KL.in_domain(l, t) for l in klaws):
            return None
        return sum((ball(x) * KL.cgf_ball(l, t) for x, l in zip(cq, klaws) if x), arb(0))

    for bits in KLSE.LADDER:
        with workprec(bits):
            for t in pts:
                cands = [(None, None)] if aq is not None else []
                cands += [(h, None) for h in steps]
                for h, _ in cands:
                    if h is None:
                        v = F(t)
                        if v is None:
                            continue
                        v = v - ball(sum((x * y for x, y in zip(aq, t)), Fraction(0))) - ball(Cq).log()
                    else:
                        vals = [F(tuple(x + e * y for x, y in zip(t, h))) for e in (1, 0, -1)]
                        if None in vals:
                            continue
                        v = vals[0] - 2 * vals[1] + vals[2]
                    if v.is_finite() and v.mid() != 0 and bool(v.rad() * 2 ** 18 < abs(v.mid())):
                        cert = {"kind": "relation-witness", "point": [fraction_str(x) for x in t],
                                **({"step": [fraction_str(x) for x in h]} if h is not None else {}),
                                "value": _dyadic_str(v),
                                "summary": f"{'second difference' if h else 'value'} of sum c_i Lambda_i at theta = "
                                           f"{[fraction_str(x) for x in t]} is {v.str(5, radius=True)} != 0 "
                                           f"(certified at {bits} bits), so the identity fails; exact identity "
                                           f"{'fails' if exact_ok is False else 'not verified'}"}
                        return self_checked(Result(claim, statement, Verdict.REFUTED, Method.CERTIFIED,
                                                   certificate=cert, parameters=params, conventions=conventions,
                                                   evidence=evidence))
    return Result(claim, statement, Verdict.INCONCLUSIVE, Method.CERTIFIED,
                  certificate={"summary": "neither verified exactly nor certified false"},
                  parameters=params, conventions=conventions, evidence=evidence)


def _rational_root(C: Fraction, s: Fraction):
    """C^(1/s) when it is rational (s = p/q > 0: C^(q/p)), else None."""
    import gmpy2

    C = Fraction(C) ** s.denominator
    k = s.numerator
    r = []
    for x in (C.numerator, C.denominator):
        root, exact = gmpy2.iroot(gmpy2.mpz(x), k)
        if not exact:
            return None
        r.append(int(root))
    return Fraction(r[0], r[1])


def _body(cert: dict) -> dict:
    return {k: v for k, v in cert.items() if k not in ("kind", "summary")}


def batch_result(claim: str, results: Sequence[Result], summary: str, label: Optional[str] = None,
                 expected: Optional[Sequence[str]] = None, seeds=None, evidence=None) -> Result:
    """One Result for many families decided by :func:`independent_mod_affine` (same modulo).

    ``expected=None``: PROVED (kind ``independence-batch``) when every family is PROVED independent;
    REFUTED (``dependence-batch``: "at least one family is independent" is false) when every family is
    REFUTED.  With ``expected`` (``"independent"`` / ``"dependent"`` per family): PROVED when every family
    is decided as expected.  Otherwise INCONCLUSIVE (the counts are in the evidence).

    Algorithm
    ---------
    Counts the verdicts of ``results`` and, when decided, concatenates their certificate bodies.

    Soundness
    ---------
    Rests on the member Results (each kernel-checked) and on the kernel's re-check of the batch
    certificate (:func:`self_checked`).

    Limits
    ------
    INCONCLUSIVE as soon as one family is undecided or decided against ``expected``; every Result must
    share the same ``modulo``.
    """
    modulo = results[0].parameters["modulo"]
    families = [r.parameters["laws"] for r in results]
    verdicts = [r.verdict.value for r in results]
    counts = {v: verdicts.count(v) for v in ("proved", "refuted", "inconclusive")}
    evidence = {**(evidence or {}), "counts": counts}
    seeds = dict(seeds or {})
    conventions = dict(CONVENTIONS)
    if expected is None and counts["refuted"] == len(results):
        params = {"families": families, "modulo": modulo, **({"label": label} if label else {})}
        return self_checked(Result(claim, statement_batch_sized(jsonable(params), jsonable(conventions), proved=False),
                                   Verdict.REFUTED, Method.EXACT,
                                   certificate={"kind": "dependence-batch", "summary": summary,
                                                "certificates": [_body(r.certificate) for r in results]},
                                   parameters=params, conventions=conventions, seeds=seeds, evidence=evidence))
    params = {"families": families, "modulo": modulo, **({"expected": list(expected)} if expected is not None else {}),
              **({"label": label} if label else {})}
    statement = statement_batch_sized(jsonable(params), jsonable(conventions), proved=True)
    want = list(expected) if expected is not None else ["independent"] * len(results)
    ok = all((v == "proved") == (e == "independent") and v != "inconclusive" for v, e in zip(verdicts, want))
    if not ok:
        return Result(claim, statement, Verdict.INCONCLUSIVE, Method.CERTIFIED,
                      certificate={"summary": f"undecided: {counts} (not every family decided as stated); " + summary},
                      parameters=params, conventions=conventions, seeds=seeds, evidence=evidence)
    exact = all(r.method is Method.EXACT for r in results)
    return self_checked(Result(claim, statement, Verdict.PROVED, Method.EXACT if exact else Method.CERTIFIED,
                               certificate={"kind": "independence-batch", "summary": summary,
                                            "certificates": [_body(r.certificate) for r in results]},
                               parameters=params, conventions=conventions, seeds=seeds, evidence=evidence))
