"""The oracle families of docs/paper2.md §6.7 through the three-way decision procedure.

Algorithm
---------
:func:`decide_oracle_case` runs :func:`verify.decide.independence.independent_mod_affine` on
the laws of an oracle case (:func:`verify.laws.oracle_families.oracle_case`) with the case's reading (modulo
affine functions or constants).  For a dependent case whose spec table states a relation, that relation is
re-verified exactly as well (:func:`verify.decide.relations.verify_relation`).

Soundness
---------
The verdict is the decision procedure's own (kernel-checked) verdict; the table relation is
evidence about the table of docs/paper2.md §6.7, except that a table relation which fails exact verification
makes the Result INCONCLUSIVE (the table and the procedure disagree, so nothing is claimed).

Limits
------
Those of :func:`~verify.decide.independence.independent_mod_affine`.  An unknown case or a table relation
with a non-zero constant b raises :class:`~verify.errors.InputError`; with ``modulo`` overriding the case's
reading the table relation is not checked.
"""

from __future__ import annotations

from fractions import Fraction

from ..arith.ball import LADDER
from ..errors import InputError
from ..laws.oracle_families import ORACLE_IDS, oracle_case
from ..results import Result, Verdict
from .independence import independent_mod_affine
from .relations import Relation, verify_relation

__all__ = ["decide_oracle_case"]


def _proportional(u, v) -> bool:
    """u = s v for some rational s != 0."""
    k = next((i for i, x in enumerate(v) if x), None)
    if k is None or not u[k]:
        return False
    s = Fraction(u[k]) / Fraction(v[k])
    return all(Fraction(x) == s * Fraction(y) for x, y in zip(u, v))


def decide_oracle_case(case: str, claim: str, seed: int = 0, ladder=LADDER, modulo=None) -> Result:
    """Decide the oracle case ``case`` (``F1`` .. ``F25``, variants ``F11c``, ``F18g`` ...) for ``claim``;
    ``modulo`` overrides the case's reading (the table relation is then not checked)."""
    if case not in ORACLE_IDS:
        raise InputError("case", f"unknown oracle case {case!r}; known: {', '.join(ORACLE_IDS)}")
    oc = oracle_case(case)
    if modulo is not None and modulo not in ("affine", "constants"):
        raise InputError("modulo", f"must be 'affine' or 'constants', got {modulo!r}")
    mod = modulo or oc.modulo
    r = independent_mod_affine(oc.laws, mod, claim=claim, seed=seed, box=oc.box, ladder=ladder,
                               label=f"oracle case {case}")
    extra = {"oracle_case": case, "table_verdict": oc.expected if mod == oc.modulo else "not in the table",
             "description": oc.description}     # evidence: the parameters are what is claimed (laws, modulo)
    cert = dict(r.certificate)
    if oc.relation is not None and mod == oc.modulo:
        if oc.constant not in (None, 0):          # b = log C with C = e^b: only b = 0 occurs in the table
            raise InputError("case", f"{case}: a non-zero rational constant b is not supported")
        rel = Relation(tuple(oc.relation), tuple(oc.affine), Fraction(1), "spec table")
        ok, details = verify_relation(oc.laws, rel)
        extra["table_relation"] = {**rel.to_dict(), "verified": ok, "verification": details}
        if r.refuted:
            found = r.certificate
            extra["found_relation_matches_table"] = _proportional([int(x) for x in found["c"]], oc.relation)
        if not ok:
            cert["summary"] = "table relation failed exact verification: " + str(cert.get("summary"))
            return Result(r.claim, r.statement, Verdict.INCONCLUSIVE, r.method,
                          certificate={"summary": cert["summary"]}, parameters=r.parameters,
                          conventions=r.conventions, seeds=r.seeds, evidence={**r.evidence, **extra}, timing=r.timing)
    return Result(r.claim, r.statement, r.verdict, r.method, certificate=cert, parameters=r.parameters,
                  conventions=r.conventions, seeds=r.seeds, evidence={**r.evidence, **extra}, timing=r.timing)
