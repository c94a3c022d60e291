"""One helper of the bench scripts that compare today's code with a git revision's, side by side in one run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_at(rev: str, path: str, name: str, package: str):
    """The module ``path`` (relative to the repository) as it was at the git revision ``rev`` (read with
    ``git show``), registered as the module ``name`` of ``package`` so that its relative imports resolve."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True,
                         check=True).stdout
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    mod.__package__ = package
    sys.modules[name] = mod
    exec(compile(src, f"{rev}:{path}", "exec"), mod.__dict__)
    return mod
