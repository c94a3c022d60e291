"""Find the audits declared in the ``proofs`` package (``proofs/<paper>/<id>_<slug>.py``)."""

from __future__ import annotations

import importlib
import pkgutil
import re

from ..claims import CLAIMS, claim_ids
from .spec import Audit, AuditError

__all__ = ["audit_modules", "load_audits", "select_audits", "AUDIT_MODULE_NAME"]

AUDIT_MODULE_NAME = re.compile(r"^(t|n)(\d+)_[a-z0-9_]+$")


def audit_modules() -> list:
    """Dotted names of every audit module under ``proofs``, in catalogue order."""
    import proofs

    names = []
    for info in pkgutil.walk_packages(proofs.__path__, prefix="proofs."):
        leaf = info.name.rsplit(".", 1)[-1]
        if not info.ispkg and AUDIT_MODULE_NAME.match(leaf):
            names.append(info.name)
    order = {cid: i for i, cid in enumerate(claim_ids())}

    def key(name):
        leaf = name.rsplit(".", 1)[-1]
        cid = leaf.split("_", 1)[0].upper()
        return (order.get(cid, len(order)), name)

    return sorted(names, key=key)


def audits_of_module(module_name: str) -> list:
    module = importlib.import_module(module_name)
    audits = getattr(module, "AUDITS", None)
    if audits is None:
        raise AuditError(f"{module_name}: defines no AUDITS list")
    leaf = module_name.rsplit(".", 1)[-1]
    cid = leaf.split("_", 1)[0].upper()
    out = []
    for a in audits:
        if not isinstance(a, Audit):
            raise AuditError(f"{module_name}: AUDITS holds {type(a).__name__}, not Audit")
        if a.claim != cid:
            raise AuditError(f"{module_name}: audit {a.id} belongs to claim {a.claim}, module is for {cid}")
        out.append(a)
    return out


def load_audits() -> list:
    """All audits, in catalogue order; audit IDs are unique."""
    seen = {}
    out = []
    for name in audit_modules():
        for a in audits_of_module(name):
            if a.id in seen:
                raise AuditError(f"duplicate audit id {a.id} in {name} and {seen[a.id]}")
            seen[a.id] = name
            out.append(a)
    return out


def select_audits(audits: list, ids=None, quick: bool = False) -> list:
    """Filter by claim IDs (``T6``) or audit IDs (``T6/o2-s40``) and by ``quick``."""
    chosen = audits
    if ids:
        wanted = []
        for raw in ids:
            token = raw.strip()
            if "/" in token:
                claim, _, rest = token.partition("/")
                token = claim.upper() + "/" + rest
            else:
                token = token.upper()
            base = token.split("/", 1)[0]
            if base not in CLAIMS:
                raise ValueError(f"IDS: unknown claim {raw!r}; known: {', '.join(claim_ids())}")
            wanted.append(token)
        chosen = [a for a in chosen if any(a.id == w or a.claim == w for w in wanted)]
        for w in wanted:
            if "/" in w and not any(a.id == w for a in audits):
                raise ValueError(f"IDS: no audit named {w!r}")
    if quick:
        chosen = [a for a in chosen if a.quick]
    return chosen
