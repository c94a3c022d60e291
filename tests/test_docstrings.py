"""Every decision-procedure and arithmetic module documents its method (mpmath's and Arb's style).

Each module of ``verify/decide/`` and ``verify/arith/`` (``__init__`` excepted) has a module docstring
with three sections, each a heading on its own line underlined by dashes:

* ``Algorithm``: what it does, step by step, with its cost;
* ``Soundness``: what a PROVED / REFUTED / True-False answer guarantees and what it rests on;
* ``Limits``: when it answers INCONCLUSIVE / None, its size limits and budgets, what it cannot decide.
"""

import importlib
import pkgutil
import re

import pytest

import verify.arith
import verify.decide

HEADINGS = ("Algorithm", "Soundness", "Limits")
PACKAGES = (verify.decide, verify.arith)
MODULES = sorted(f"{pkg.__name__}.{m.name}" for pkg in PACKAGES for m in pkgutil.iter_modules(pkg.__path__)
                 if m.name != "__init__")


def _has_heading(doc: str, name: str) -> bool:
    """``name`` alone on a line, the next line a row of dashes (at least as long as the name)."""
    pattern = rf"^[ \t]*{name}[ \t]*\n[ \t]*-{{{len(name)},}}[ \t]*$"
    return re.search(pattern, doc, flags=re.MULTILINE) is not None


def test_modules_found():
    names = {m.rsplit(".", 1)[1] for m in MODULES}
    assert {"casesplit", "emulation", "independence", "ntk", "mean_field"} <= names
    assert {"exact", "ball", "context", "evidence"} <= names


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_has_sections(name):
    doc = importlib.import_module(name).__doc__ or ""
    missing = [h for h in HEADINGS if not _has_heading(doc, h)]
    assert not missing, f"{name}: module docstring lacks the section(s) {', '.join(missing)}"


@pytest.mark.parametrize("name", MODULES)
def test_sections_in_order(name):
    doc = importlib.import_module(name).__doc__ or ""
    found = [re.search(rf"^[ \t]*{h}[ \t]*\n[ \t]*-+", doc, flags=re.MULTILINE) for h in HEADINGS]
    assert all(found), f"{name}: a section is missing"
    where = [m.start() for m in found]
    assert where == sorted(where), f"{name}: sections not in the order {', '.join(HEADINGS)}"


def test_heading_detection():
    assert _has_heading("x\n\nAlgorithm\n---------\ntext", "Algorithm")
    assert not _has_heading("**Algorithm.**  text", "Algorithm")
    assert not _has_heading("Algorithm\ntext", "Algorithm")
