"""Find the toolkit's audits: the package ``verify.proofs`` (``proofs/<paper>/<id>_<slug>.py`` in the checkout).

The audits live at the top of the source checkout, in ``proofs/``, and are installed as the sub-package
``verify.proofs`` (``package_dir`` in ``setup.py``): a wheel holds ``verify/proofs/``, an editable install maps
``verify.proofs`` to the checkout's ``proofs/``.  When ``verify`` is imported straight from a checkout
(``PYTHONPATH`` or the current directory), :func:`audit_package` loads the checkout's ``proofs/`` under the name
``verify.proofs`` itself.  A top-level module called ``proofs`` is never imported: another project's
``proofs`` package on ``sys.path`` is not the toolkit's.

:func:`load_audits_from` reads a project's own audit modules (a folder, a ``.py`` file or a dotted module name).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from pathlib import Path

from ..claims import CLAIMS, claim_ids
from .spec import Audit, AuditError

__all__ = ["audit_modules", "audit_package", "audit_package_dir", "audits_of_module", "import_audit_file",
           "load_audits", "load_audits_from",
           "select_audits", "AUDIT_MODULE_NAME", "AUDIT_PACKAGE"]

AUDIT_MODULE_NAME = re.compile(r"^(t|n)(\d+)_[a-z0-9_]+$")
AUDIT_PACKAGE = "verify.proofs"


def _checkout_proofs() -> Path | None:
    """``proofs/`` beside ``verify/`` when ``verify`` is imported from a source checkout, else None."""
    root = Path(__file__).resolve().parent.parent.parent  # verify/audit/discovery.py -> the checkout
    folder = root / "proofs"
    if (folder / "__init__.py").is_file() and (folder / "maxout").is_dir() and (root / "setup.cfg").is_file():
        return folder
    return None


def audit_package():
    """The toolkit's audit package, imported as ``verify.proofs`` (see the module docstring)."""
    module = sys.modules.get(AUDIT_PACKAGE)
    if module is not None:
        return module
    try:
        return importlib.import_module(AUDIT_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != AUDIT_PACKAGE:
            raise
    folder = _checkout_proofs()
    if folder is None:
        raise AuditError(f"the audit package {AUDIT_PACKAGE} is not installed (reinstall the toolkit)")
    module = _exec_file_as(AUDIT_PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)])
    setattr(sys.modules[__name__.split(".", 1)[0]], "proofs", module)
    return module


def audit_package_dir() -> Path:
    """The folder holding the toolkit's audit modules (``proofs/`` of a checkout, ``verify/proofs/`` of a wheel)."""
    return Path(list(audit_package().__path__)[0]).resolve()


def audit_modules() -> list:
    """Dotted names of every audit module under ``verify.proofs``, in catalogue order."""
    package = audit_package()
    names = []
    for info in pkgutil.walk_packages(package.__path__, prefix=AUDIT_PACKAGE + "."):
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
    """The ``AUDITS`` of one toolkit audit module (``verify.proofs.maxout.t3_onehot_gate``): each audit must
    belong to the claim that the module's name starts with."""
    if module_name == AUDIT_PACKAGE or module_name.startswith(AUDIT_PACKAGE + "."):
        audit_package()
    module = importlib.import_module(module_name)
    return _audits_in(module, module_name, claim_from_name=True)


def _audits_in(module, label: str, claim_from_name: bool) -> list:
    audits = getattr(module, "AUDITS", None)
    if audits is None:
        raise AuditError(f"{label}: defines no AUDITS list")
    cid = None
    leaf = label.rsplit(".", 1)[-1]
    if claim_from_name and AUDIT_MODULE_NAME.match(leaf):
        cid = leaf.split("_", 1)[0].upper()
    out = []
    for a in audits:
        if not isinstance(a, Audit):
            raise AuditError(f"{label}: AUDITS holds {type(a).__name__}, not Audit")
        if cid is not None and a.claim != cid:
            raise AuditError(f"{label}: audit {a.id} belongs to claim {a.claim}, module is for {cid}")
        out.append(a)
    return out


def load_audits() -> list:
    """All the toolkit's audits, in catalogue order; audit IDs are unique."""
    seen = {}
    out = []
    for name in audit_modules():
        for a in audits_of_module(name):
            if a.id in seen:
                raise AuditError(f"duplicate audit id {a.id} in {name} and {seen[a.id]}")
            seen[a.id] = name
            out.append(a)
    return out


def _package_name(path: Path) -> tuple:
    """(dotted module name, folder to put on ``sys.path``) of a ``.py`` file, walking up its packages."""
    folder, parts = path.parent, [path.stem]
    while (folder / "__init__.py").is_file():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)), folder


def import_audit_file(path) -> object:
    """Import a project's audit module from its file: inside a package by its dotted name (the package's
    parent folder goes on ``sys.path``), a lone file under a private module name."""
    path = Path(path).resolve()
    if not path.is_file() or path.suffix != ".py":
        raise AuditError(f"{path}: not a Python file")
    dotted, base = _package_name(path)
    if "." in dotted:
        loaded = sys.modules.get(dotted)
        if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
            return loaded
        if str(base) not in sys.path:
            sys.path.insert(0, str(base))
        module = importlib.import_module(dotted)
        if Path(module.__file__).resolve() != path:
            raise AuditError(f"{path}: the name {dotted} imports another file ({module.__file__})")
        return module
    name = "verify_user_audits." + re.sub(r"\W", "_", str(path.with_suffix("")).strip(os.sep))
    if name in sys.modules:
        return sys.modules[name]
    return _exec_file_as(name, path)


def _exec_file_as(name: str, path, **spec_kw) -> object:
    """Import the file ``path`` as the module ``name`` (registered in ``sys.modules``; removed again if it fails)."""
    spec = importlib.util.spec_from_file_location(name, path, **spec_kw)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_audits_from(target) -> list:
    """A project's own audits: ``target`` is a folder (every ``*.py`` below it whose name does not start
    with ``_`` or ``test_`` and that defines ``AUDITS``), a ``.py`` file or a dotted module name (each must
    define ``AUDITS``).  Audit IDs are unique; the order is the files' sorted order."""
    text = os.fspath(target)
    path = Path(text)
    if path.is_dir():
        modules = []
        for file in sorted(path.rglob("*.py")):
            if file.name.startswith(("_", "test_")) or any(p.startswith(".") for p in file.relative_to(path).parts):
                continue
            module = import_audit_file(file)
            if hasattr(module, "AUDITS"):
                modules.append((module, str(file)))
        if not modules:
            raise AuditError(f"{text}: no module below this folder defines AUDITS")
    elif path.suffix == ".py" or os.sep in text:
        modules = [(import_audit_file(path), text)]
    else:
        if text == AUDIT_PACKAGE or text.startswith(AUDIT_PACKAGE + "."):
            audit_package()
        try:
            modules = [(importlib.import_module(text), text)]
        except ModuleNotFoundError as exc:
            raise AuditError(f"{text}: no such file, folder or module ({exc})") from None
    seen = {}
    out = []
    for module, label in modules:
        for a in _audits_in(module, label, claim_from_name=False):
            if a.id in seen:
                raise AuditError(f"duplicate audit id {a.id} in {label} and {seen[a.id]}")
            seen[a.id] = label
            out.append(a)
    return out


def select_audits(audits: list, ids=None, quick: bool = False) -> list:
    """Filter by claim IDs (``T6``) or audit IDs (``T6/o2-s40``) and by ``quick``.  Both are matched in any
    case, like claim IDs (an exact match of an audit name wins; a name that matches several audits once case is
    ignored is an error)."""
    chosen = audits
    if ids:
        by_fold: dict = {}
        for a in audits:
            by_fold.setdefault(a.id.casefold(), []).append(a.id)
        wanted = []
        for raw in ids:
            token = raw.strip()
            base = token.split("/", 1)[0].upper()
            if base not in CLAIMS:
                raise ValueError(f"IDS: unknown claim {raw!r}; known: {', '.join(claim_ids())}")
            if "/" in token:
                matches = by_fold.get(token.casefold(), [])
                if token not in matches and len(matches) > 1:
                    raise ValueError(f"IDS: {raw!r} matches several audits: {', '.join(sorted(matches))}")
                if not matches:
                    raise ValueError(f"IDS: no audit named {raw!r}")
                token = token if token in matches else matches[0]
            else:
                token = base
            wanted.append(token)
        chosen = [a for a in chosen if any(a.id == w or a.claim == w for w in wanted)]
    if quick:
        chosen = [a for a in chosen if a.quick]
    return chosen
