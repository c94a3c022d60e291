"""Re-checker for the N7 certificate kinds ``"ntk-cholesky"`` and ``"ntk-null-vector"``.

Independent of the search code (engines only).  Gradients of the five families are re-implemented
here from their closed forms (lse.md §6):

* discrete:  ∇Λ = Σ_k p_k x_k, p_k ∝ w_k e^{⟨θ,x_k⟩};   gaussian:  m + Σθ;
* laplace:   m + Σθ/(1 - θᵀΣθ/2) (domain θᵀΣθ < 2, checked exactly);
* uniform_cube: c_k + r coth(rθ_k) - 1/θ_k (= c_k at θ_k = 0; extra precision against cancellation);
* gaussian_mixture: c + Σθ + tanh(⟨m,θ⟩) m, m = a·u/|u|.

``ntk-cholesky``: the Gram (1/H) Σ_h G_h G_hᵀ is rebuilt from the recorded laws, queries and exact head
matrices at the recorded precision; interval Cholesky must succeed, and the recorded pivot lower bounds must
agree with the recomputed pivots (within 2^(-prec/2)).
``ntk-null-vector``: the relation Σ c_iΛ_i = ⟨α,θ⟩ is verified exactly here where the structure allows
(discrete laws: polynomial identity; Gaussians: Σ c_iΣ_i = 0; translation classes) and the embedded dependence
certificate is re-checked by its own re-checker (kind ``"dependence-relation"``); its laws and relation must be
the recorded ones, and the null vector must be the one the relation gives (v_(i,a) = c_i s_a with Σ_a s_a = 0 when α != 0; m = 1 needs α = 0).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, arb_mat

from ..engines.ball import ball_bounds, ball_cholesky, to_ball, workprec
from ..errors import InputError
from . import RecheckFailure
from ._laws import mat as _mat, q as _q, read_laws, vec as _vec   # shared exact readers

__all__ = ["recheck", "gradient_ball"]

MAX_SIZE = 400
MAX_HEADS = 4096


class _Law:
    """A law parsed from its SPEC dict, with a rigorous gradient."""

    def __init__(self, d: dict, field: str):
        if not isinstance(d, dict) or not isinstance(d.get("family"), str):
            raise RecheckFailure(f"{field}: not a law (needs 'family')")
        if d["family"] == "uniform_cube" and not isinstance(d.get("center"), list):
            raise RecheckFailure(f"{field}.center: missing")
        law = read_laws([d])[0]                      # the shared exact reader (validates every field)
        self.family = fam = law["family"]
        self.field = field
        self.dim = law["dim"]
        if fam == "discrete":
            self.atoms, self.weights = [list(a) for a in law["atoms"]], list(law["weights"])
            if len(set(law["atoms"])) != len(self.atoms):
                raise RecheckFailure(f"{field}.atoms: repeated atom")
        elif fam in ("gaussian", "laplace"):
            self.cov, self.mean = law["cov"], list(law["mean"])
        elif fam == "uniform_cube":
            self.radius, self.center = law["radius"], list(law["center"])
        else:  # gaussian_mixture
            self.cov, self.center = law["cov"], list(law["mean"])
            self.sep, self.direction = law["separation"], list(law["direction"])

    def gradient(self, theta: list) -> list:
        """∇Λ(θ) as balls at the current precision (θ exact)."""
        fam, d = self.family, self.dim
        if fam == "discrete":
            ex = [sum((to_ball(a[k]) * to_ball(theta[k]) for k in range(d)), arb(0)) + to_ball(w).log()
                  for a, w in zip(self.atoms, self.weights)]
            shift = max(ex, key=lambda z: float(z.mid())).mid()
            e = [(z - shift).exp() for z in ex]
            tot = sum(e, arb(0))
            return [sum((ek * to_ball(a[k]) for ek, a in zip(e, self.atoms)), arb(0)) / tot for k in range(d)]
        St = [sum((self.cov[i][j] * theta[j] for j in range(d)), Fraction(0)) for i in range(d)] \
            if fam in ("gaussian", "laplace", "gaussian_mixture") else None
        if fam == "gaussian":
            return [to_ball(self.mean[i] + St[i]) for i in range(d)]
        if fam == "laplace":
            q = sum((theta[i] * St[i] for i in range(d)), Fraction(0)) / 2
            if q >= 1:
                raise RecheckFailure(f"{self.field}: theta outside the Laplace domain (theta^T S theta >= 2)")
            return [to_ball(self.mean[i] + St[i] / (1 - q)) for i in range(d)]
        if fam == "uniform_cube":
            out = []
            for k in range(d):
                t = theta[k]
                if t == 0:
                    out.append(to_ball(self.center[k]))
                    continue
                u = self.radius * t
                extra = 2 * max(0, u.denominator.bit_length() - abs(u.numerator).bit_length() + 1) + 20
                from flint import ctx

                with workprec(int(ctx.prec) + extra):
                    ub = to_ball(u)
                    val = to_ball(self.center[k]) + to_ball(self.radius) * (ub.cosh() / ub.sinh()) - 1 / to_ball(t)
                out.append(+val)
            return out
        if fam == "gaussian_mixture":
            norm = sum((x * x for x in self.direction), Fraction(0))
            nb = to_ball(norm).sqrt()
            m = [to_ball(self.sep) * to_ball(x) / nb for x in self.direction]
            s = sum((m[k] * to_ball(theta[k]) for k in range(d)), arb(0))
            th = s.tanh()
            return [to_ball(self.center[i] + St[i]) + th * m[i] for i in range(d)]
        raise RecheckFailure(f"{self.field}: no gradient for family {fam!r}")  # pragma: no cover


def gradient_ball(law: dict, theta, prec: int = 128) -> list:
    """∇Λ at exact ``theta`` for a law given as its SPEC dict (rigorous balls).

    >>> g = gradient_ball({"family": "discrete", "atoms": [[0], [2]], "weights": ["1/2", "1/2"]}, [0])
    >>> g[0].contains(1)
    True
    """
    with workprec(prec):
        return _Law(law, "law").gradient([Fraction(t) for t in theta])


def _laws(cert) -> list:
    laws = cert.get("laws")
    if not isinstance(laws, list) or not laws:
        raise RecheckFailure("certificate.laws: missing or empty")
    out = [_Law(d, f"laws[{i}]") for i, d in enumerate(laws)]
    if len({law.dim for law in out}) != 1:
        raise RecheckFailure("certificate.laws: mixed dimensions")
    return out


def _expect_verdict(result: dict, cert: dict, pd: bool) -> None:
    """The verdict a certificate supports: the claim is "the Gram is PD" (``claim_form`` "PD", default) or
    "the Gram is singular" (``claim_form`` "singular")."""
    form = cert.get("claim_form", "PD")
    if form not in ("PD", "singular"):
        raise RecheckFailure(f"certificate.claim_form: {form!r} is not 'PD' or 'singular'")
    expected = "proved" if pd == (form == "PD") else "refuted"
    if result.get("verdict") != expected:
        raise RecheckFailure(f"verdict: this certificate supports '{expected}' for the claim form {form!r}")


def _recheck_cholesky(result: dict, cert: dict) -> str:
    _expect_verdict(result, cert, pd=True)
    laws = _laws(cert)
    d = laws[0].dim
    reading = cert.get("reading")
    if reading == "shared":
        qs = cert.get("queries")
        if not isinstance(qs, list) or not qs:
            raise RecheckFailure("certificate.queries: missing")
        qlists = [[_vec(q, f"queries[{a}]", d) for a, q in enumerate(qs)]] * len(laws)
    elif reading == "per-token":
        qs = cert.get("queries")
        if not isinstance(qs, list) or len(qs) != len(laws):
            raise RecheckFailure("certificate.queries: one list per law expected (per-token reading)")
        qlists = [[_vec(q, f"queries[{i}][{a}]", d) for a, q in enumerate(ql)] for i, ql in enumerate(qs)]
        for i, (law, ql) in enumerate(zip(laws, qlists)):
            if law.family != "discrete" or sorted(map(tuple, ql)) != sorted(map(tuple, law.atoms)):
                raise RecheckFailure(f"certificate.queries[{i}]: per-token queries must be the atoms of law {i}")
    else:
        raise RecheckFailure(f"certificate.reading: {reading!r} is not 'shared' or 'per-token'")
    heads = cert.get("heads")
    if not isinstance(heads, list) or not heads or len(heads) > MAX_HEADS:
        raise RecheckFailure("certificate.heads: missing, empty or too many")
    H = [_mat(A, f"heads[{h}]", d) for h, A in enumerate(heads)]
    n = sum(len(q) for q in qlists)
    if n > MAX_SIZE:
        raise RecheckFailure(f"Gram size {n} exceeds {MAX_SIZE}")
    prec = cert.get("precision_bits")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 16 <= prec <= 100_000:
        raise RecheckFailure("certificate.precision_bits: missing or out of range")
    recorded = cert.get("pivot_lower_bounds")
    if not isinstance(recorded, list) or len(recorded) != n:
        raise RecheckFailure(f"certificate.pivot_lower_bounds: expected {n} values")
    recorded = [_q(x, f"pivot_lower_bounds[{k}]") for k, x in enumerate(recorded)]
    diag = cert.get("diagonal_lower_bounds")
    if not isinstance(diag, list) or len(diag) != n:
        raise RecheckFailure(f"certificate.diagonal_lower_bounds: expected {n} values")
    diag = [_q(x, f"diagonal_lower_bounds[{k}]") for k, x in enumerate(diag)]
    with workprec(prec):
        rows = [[] for _ in range(n)]
        for A in H:
            r = 0
            for law, ql in zip(laws, qlists):
                for q in ql:
                    theta = [sum((A[i][j] * q[j] for j in range(d)), Fraction(0)) for i in range(d)]
                    rows[r].extend(law.gradient(theta))
                    r += 1
        F = arb_mat(rows)
        K = (F * F.transpose()) / len(H)
        entries = [[K[i, j] for j in range(n)] for i in range(n)]
        chol = ball_cholesky(entries)
    if not chol.positive_definite:
        raise RecheckFailure(f"interval Cholesky of the rebuilt Gram fails at pivot {chol.failed_at}")
    tol = Fraction(1, 2 ** (prec // 2))
    for k, (rec, piv) in enumerate(zip(recorded, chol.pivots)):
        lo, hi = ball_bounds(piv)
        if rec <= 0 or rec > hi or abs(rec - lo) > tol * (1 + abs(lo)):
            raise RecheckFailure(f"pivot {k}: recorded lower bound {float(rec):.6g} disagrees with the rebuilt "
                                 f"pivot [{float(lo):.6g}, {float(hi):.6g}]")
    for k, rec in enumerate(diag):
        lo, hi = ball_bounds(entries[k][k])
        if rec > hi or abs(rec - lo) > tol * (1 + abs(lo)):
            raise RecheckFailure(f"diagonal {k}: recorded lower bound {float(rec):.6g} disagrees with the rebuilt "
                                 f"entry [{float(lo):.6g}, {float(hi):.6g}]")
    return (f"ntk-cholesky: rebuilt {n}x{n} Gram ({len(H)} heads, {prec} bits) is PD by interval Cholesky; "
            f"{n} recorded pivots and diagonal entries agree")


def _lcm(a: int, b: int) -> int:
    from math import gcd

    return a * b // gcd(a, b)


def _verify_relation_exactly(laws: list, c: list, alpha: list):
    """Verify Σ c_iΛ_i = ⟨α,θ⟩ (β = 0 since every Λ_i(0) = 0) without the search code.

    Returns a one-line description when verified, None when this structure is not covered here (the embedded
    dependence certificate's own re-checker then decides); raises RecheckFailure when the identity is false.
    * all discrete: Π_{c_i>0} P_i^{c_i} = z^{Lα} Π_{c_i<0} P_i^{-c_i} for P_i(z) = Σ_k w_k z^{L x_k}, expanded (SymPy);
    * all Gaussian: Σ c_iΣ_i = 0 and α = Σ c_i m_i (iff);
    * otherwise: within every class of laws equal up to translation the c_i sum to 0, and α = Σ c_i location_i.
    """
    d = laws[0].dim
    fams = {law.family for law in laws}
    if fams == {"discrete"}:
        import sympy

        D = 1
        for x in c + alpha:
            D = _lcm(D, x.denominator)
        ci = [int(x * D) for x in c]
        ai = [x * D for x in alpha]
        L = 1
        for law in laws:
            for a in law.atoms:
                for x in a:
                    L = _lcm(L, x.denominator)
        for x in ai:
            L = _lcm(L, x.denominator)
        if sum(abs(x) for x in ci) > 40 or L > 10**4:
            return None
        z = sympy.symbols(f"z0:{d}")

        def poly(law):
            return sum(sympy.Rational(w.numerator, w.denominator) *
                       sympy.Mul(*[z[j] ** int(L * a[j]) for j in range(d)]) for a, w in zip(law.atoms, law.weights))

        lhs = sympy.Mul(*[poly(law) ** k for law, k in zip(laws, ci) if k > 0])
        rhs = sympy.Mul(*[z[j] ** int(L * ai[j]) for j in range(d)]) * \
            sympy.Mul(*[poly(law) ** (-k) for law, k in zip(laws, ci) if k < 0])
        if sympy.expand(lhs - rhs) != 0:
            raise RecheckFailure("relation: the polynomial identity prod P_i^c_i = z^(L alpha) fails")
        return "polynomial identity verified by expansion (SymPy)"
    if fams == {"gaussian"}:
        for r in range(d):
            for k in range(d):
                if sum((ci * law.cov[r][k] for ci, law in zip(c, laws)), Fraction(0)) != 0:
                    raise RecheckFailure("relation: sum c_i Sigma_i != 0")
        if [sum((ci * law.mean[k] for ci, law in zip(c, laws)), Fraction(0)) for k in range(d)] != list(alpha):
            raise RecheckFailure("relation: alpha != sum c_i m_i")
        return "sum c_i Sigma_i = 0 and alpha = sum c_i m_i (exact)"

    def key_and_location(law):
        if law.family == "uniform_cube":
            return ("cube", law.radius), law.center
        if law.family in ("laplace", "gaussian"):
            return (law.family, tuple(map(tuple, law.cov))), law.mean
        if law.family == "gaussian_mixture":
            norm = sum((x * x for x in law.direction), Fraction(0))
            mm = tuple(tuple(law.sep ** 2 * x * y / norm for y in law.direction) for x in law.direction)
            return ("mixture", tuple(map(tuple, law.cov)), mm), law.center
        if law.family == "discrete":
            base = law.atoms[0]
            shape = tuple(sorted((tuple(x - b for x, b in zip(a, base)), w) for a, w in zip(law.atoms, law.weights)))
            return ("discrete", shape), base
        return None, None

    sums, loc = {}, [Fraction(0)] * d
    for ci, law in zip(c, laws):
        key, location = key_and_location(law)
        if key is None:
            return None
        sums[key] = sums.get(key, Fraction(0)) + ci
        loc = [x + ci * y for x, y in zip(loc, location)]
    if any(v != 0 for v in sums.values()) or loc != list(alpha):
        return None
    return "coefficients sum to 0 within every translation class and alpha = sum c_i location_i (exact)"


def _recheck_null_vector(result: dict, cert: dict) -> str:
    from . import recheck as dispatch

    _expect_verdict(result, cert, pd=False)
    laws = _laws(cert)
    d = laws[0].dim
    m = cert.get("m")
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise RecheckFailure("certificate.m: must be a positive integer")
    rel = cert.get("relation")
    if not isinstance(rel, dict):
        raise RecheckFailure("certificate.relation: missing")
    c = _vec(rel.get("c"), "relation.c", len(laws))
    if not any(c):
        raise RecheckFailure("relation.c: the zero vector is not a relation")
    alpha = _vec(rel.get("alpha"), "relation.alpha", d) if rel.get("alpha") is not None else [Fraction(0)] * d
    modulo = cert.get("modulo")
    if modulo not in ("affine", "constants"):
        raise RecheckFailure("certificate.modulo: must be 'affine' or 'constants'")
    if (m == 1 or modulo == "constants") and any(alpha):
        raise RecheckFailure("relation.alpha: must be 0 modulo constants (m = 1)")
    if m == 1 and modulo != "constants":
        raise RecheckFailure("certificate.modulo: m = 1 needs a relation modulo constants")
    v = _vec(cert.get("null_vector"), "null_vector", len(laws) * m)
    if not any(v):
        raise RecheckFailure("null_vector: zero")
    # v_(i,a) = c_i s_a for one vector s
    i0 = next(i for i, x in enumerate(c) if x != 0)
    s = [v[i0 * m + a] / c[i0] for a in range(m)]
    for i in range(len(laws)):
        for a in range(m):
            if v[i * m + a] != c[i] * s[a]:
                raise RecheckFailure(f"null_vector[{i * m + a}]: not c_i * s_a for the relation c")
    if any(alpha) and sum(s) != 0:
        raise RecheckFailure("null_vector: the query weights must sum to 0 for an affine relation")
    dep = cert.get("dependence_certificate")
    if not isinstance(dep, dict) or dep.get("kind") != "dependence-relation":
        raise RecheckFailure("certificate.dependence_certificate: missing or not of kind 'dependence-relation'")
    dep_laws = dep.get("laws")
    if dep_laws is not None and dep_laws != cert.get("laws"):
        raise RecheckFailure("dependence_certificate.laws: differ from the certificate's laws")
    dep_rel = dep.get("relation", dep)
    dep_c = dep_rel.get("c", dep_rel.get("coefficients"))
    if dep_c is None:
        raise RecheckFailure("dependence_certificate: no relation coefficients")
    dep_c = [_q(x, "dependence_certificate.c") for x in dep_c]
    if len(dep_c) != len(c) or any(x * c[i0] != y * dep_c[i0] for x, y in zip(c, dep_c)):
        raise RecheckFailure("relation.c: not a multiple of the dependence certificate's relation")
    dep_a = dep_rel.get("a", dep_rel.get("alpha", dep_rel.get("affine")))
    if dep_a is not None:
        dep_a = [_q(x, "dependence_certificate.a") for x in dep_a]
        if any(x * c[i0] != y * dep_c[i0] for x, y in zip(alpha, dep_a)):
            raise RecheckFailure("relation.alpha: not the dependence certificate's linear part")
    ver = dep.get("verification")
    if isinstance(ver, dict) and ver.get("a_from_identity") is not None:
        a_id = _vec(ver["a_from_identity"], "dependence_certificate.verification.a_from_identity", d)
        if dep_a is None or list(a_id) != dep_a:
            raise RecheckFailure("dependence_certificate.verification.a_from_identity: differs from the relation's a")
    own = _verify_relation_exactly(laws, c, alpha)
    try:
        inner = dispatch({"claim": result.get("claim", "N7"), "verdict": "refuted", "certificate": dep,
                          "parameters": result.get("parameters", {})})
    except RecheckFailure as exc:
        if own is None or "is not installed" not in str(exc):
            raise
        inner = f"dependence re-checker not installed; relation verified here: {own}"
    else:
        if own is not None:
            inner += f"; also verified here: {own}"
    return (f"ntk-null-vector: relation c = {[str(x) for x in c]} re-checked ({inner}); null vector is "
            f"c_i * s_a with s = {[str(x) for x in s]}")


def recheck(result: dict) -> str:
    """Re-verify an N7 Result dict; returns a one-line summary or raises :class:`RecheckFailure`."""
    cert = result.get("certificate")
    if not isinstance(cert, dict):
        raise RecheckFailure("certificate: missing")
    try:
        if cert.get("kind") == "ntk-cholesky":
            return _recheck_cholesky(result, cert)
        if cert.get("kind") == "ntk-null-vector":
            return _recheck_null_vector(result, cert)
    except InputError as exc:
        raise RecheckFailure(str(exc)) from None
    raise RecheckFailure(f"certificate.kind: {cert.get('kind')!r} is not an N7 kind")
