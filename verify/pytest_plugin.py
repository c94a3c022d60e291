"""pytest plugin (entry point ``pytest11: verify``): audits as test items, and :func:`assert_verdict`.

Harmless by default: in any project it only adds its options, its ini keys and the ``assert_verdict`` fixture;
it collects nothing and imports no audit module unless asked.

* ``--verify-audits`` (or the ini key ``verify_audits = true``, which the toolkit's own ``setup.cfg`` sets)
  collects the toolkit's audits, the modules ``t<k>_*.py`` / ``n<k>_*.py`` of the audit package ``verify.proofs``
  (``proofs/`` of the checkout): every entry of their ``AUDITS`` list is one test item.  With the option the audit
  package is added to what pytest collects when no argument covers it; the ini key alone collects the audit
  files that the collection reaches (``testpaths = tests proofs`` in the toolkit's checkout).
* ``verify_audit_modules`` (ini, one entry per line: a ``.py`` file relative to the rootdir, or a dotted module
  name) registers a project's own audit modules, each defining ``AUDITS`` (a list of
  :class:`verify.audit.spec.Audit`).  They are collected when no command-line path is given or when a path
  given covers them.
* ``--audit-quick`` keeps only the quick audits.

A failing audit item names the claim, the expected and actual verdicts and the certificate summary.  Every
decided (PROVED/REFUTED) audit Result is also re-checked by the kernel (:func:`verify.kernel.check`, from its
JSON): an audit whose verdict is right but whose certificate the kernel rejects fails.  See docs/reports.md.

For hand-written proof checks, :func:`assert_verdict` does the same (verdict, then kernel)::

    from verify.pytest_plugin import assert_verdict
    assert_verdict(verify.prove_emulation(net, box), "proved")
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["assert_verdict", "kernel_check", "AuditMiss"]

_VERDICT_NAMES = ("PROVED", "REFUTED", "INCONCLUSIVE")
_STATE = pytest.StashKey()


class AuditMiss(AssertionError):
    """An audit or :func:`assert_verdict` found another verdict than expected, or the kernel rejected it."""


def _expected_verdict(expected):
    from .results import Verdict

    if isinstance(expected, Verdict):
        return expected
    if isinstance(expected, str):
        try:
            return Verdict(expected.strip().lower())
        except ValueError:
            pass
    raise ValueError(f"assert_verdict: expected verdict {expected!r} is not one of "
                     f"{', '.join(_VERDICT_NAMES)} (any case, or a verify.Verdict)") from None


def assert_verdict(result, expected) -> None:
    """Assert ``result.verdict == expected`` (``"PROVED"``, ``"proved"`` or ``Verdict.PROVED``); a decided Result
    must moreover be accepted by the kernel (:func:`kernel_check`).  A miss raises :class:`AuditMiss` naming
    the expected and actual verdicts, the claim, the statement and the certificate summary."""
    __tracebackhide__ = True
    from .results import Result

    want = _expected_verdict(expected)
    if not isinstance(result, Result):
        raise TypeError(f"assert_verdict: expected a verify.Result, got {type(result).__name__}")
    if result.verdict is not want:
        summary = result.certificate.get("summary", "(no summary)") if result.certificate else "(no certificate)"
        raise AuditMiss(
            f"expected {want.value.upper()}, got {result.verdict.value.upper()} ({result.method.value})\n"
            f"  claim:     {result.claim}\n"
            f"  statement: {result.statement}\n"
            f"  summary:   {summary}"
        )
    kernel_check(result)


def kernel_check(result) -> None:
    """Re-check a decided Result with the kernel from its JSON (as ``verify check`` would); raise
    :class:`AuditMiss` naming the reason if the kernel rejects it.  INCONCLUSIVE: nothing to check."""
    __tracebackhide__ = True
    import json

    from . import kernel

    if result.verdict.value == "inconclusive":
        return
    try:
        kernel.check(json.loads(result.to_json()))
    except kernel.Rejected as exc:
        raise AuditMiss(f"claim {result.claim}: {result.verdict.value}, but the kernel rejects the Result: {exc}") \
            from None


@pytest.fixture(name="assert_verdict")
def _assert_verdict_fixture():
    """:func:`verify.pytest_plugin.assert_verdict` as a fixture."""
    return assert_verdict


def pytest_addoption(parser):
    group = parser.getgroup("verify")
    group.addoption("--verify-audits", action="store_true", default=False,
                    help="collect the toolkit's own audits (the package verify.proofs) as test items")
    group.addoption("--audit-quick", action="store_true", default=False,
                    help="collect only the quick audits")
    parser.addini("verify_audits", type="bool", default=False,
                  help="collect the toolkit's audit files that the collection reaches (verify's own checkout)")
    parser.addini("verify_audit_modules", type="linelist", default=[],
                  help="a project's own audit modules (.py files relative to the rootdir, or dotted names), "
                       "each defining AUDITS")


class _State:
    def __init__(self, toolkit: bool, registered: dict):
        self.toolkit = toolkit          # collect the toolkit's audit files
        self.registered = registered    # resolved path -> entry as written, a project's own audit modules
        self._audit_dir = None

    def audit_dir(self) -> Path:
        if self._audit_dir is None:
            from .audit.discovery import audit_package_dir

            self._audit_dir = audit_package_dir()
        return self._audit_dir


def _resolve_entry(entry: str, rootpath: Path) -> Path:
    if entry.endswith(".py") or "/" in entry or os.sep in entry:
        return (rootpath / entry).resolve()
    import importlib.util

    try:
        spec = importlib.util.find_spec(entry)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise pytest.UsageError(f"verify_audit_modules: {entry!r} is neither a .py file nor an importable module")
    return Path(spec.origin).resolve()


def _covered(path: Path, args: list, invocation_dir: Path) -> bool:
    for arg in args:
        target = (invocation_dir / str(arg).split("::", 1)[0]).resolve()
        if path == target or target in path.parents:
            return True
    return False


def pytest_configure(config):
    toolkit = bool(config.getoption("--verify-audits") or config.getini("verify_audits"))
    registered = {}
    for entry in config.getini("verify_audit_modules"):
        path = _resolve_entry(entry.strip(), config.rootpath)
        if not path.is_file():
            raise pytest.UsageError(f"verify_audit_modules: {entry!r}: no such file ({path})")
        registered[path] = entry.strip()
    state = _State(toolkit, registered)
    config.stash[_STATE] = state
    if toolkit or registered:
        config.addinivalue_line("markers", "slow: an audit that is not in the quick subset")
    args = getattr(config, "args", None)
    if not isinstance(args, list):
        return
    invocation_dir = Path(config.invocation_params.dir)
    if config.getoption("--verify-audits") and not _covered(state.audit_dir(), args, invocation_dir):
        args.append(str(state.audit_dir()))
    source = getattr(config, "args_source", None)
    explicit = source is not None and source.name == "ARGS"
    if not explicit:
        for path in registered:
            if not _covered(path, args, invocation_dir):
                args.append(str(path))


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".py":
        return None
    state = parent.config.stash.get(_STATE, None)
    if state is None:
        return None
    path = Path(file_path).resolve()
    if path in state.registered:
        return AuditModule.from_parent(parent, path=file_path, dotted=None)
    if not state.toolkit:
        return None
    from .audit.discovery import AUDIT_MODULE_NAME, AUDIT_PACKAGE

    if not AUDIT_MODULE_NAME.match(file_path.stem):
        return None
    audit_dir = state.audit_dir()
    if audit_dir not in path.parents:
        return None
    dotted = ".".join((AUDIT_PACKAGE,) + path.relative_to(audit_dir).with_suffix("").parts)
    return AuditModule.from_parent(parent, path=file_path, dotted=dotted)


class AuditModule(pytest.File):
    """One audit module: the toolkit's (``dotted`` is its name under ``verify.proofs``) or a project's own
    (``dotted`` is None: imported from its file)."""

    def __init__(self, *args, dotted, **kwargs):
        super().__init__(*args, **kwargs)
        self.dotted = dotted

    def _audits(self) -> list:
        from .audit import discovery

        if self.dotted is not None:
            return discovery.audits_of_module(self.dotted)
        return discovery.load_audits_from(self.path)

    def collect(self):
        quick_only = self.config.getoption("--audit-quick")
        for audit in self._audits():
            if quick_only and not audit.quick:
                continue
            item = AuditItem.from_parent(self, name=audit.name, audit=audit)
            if not audit.quick:
                item.add_marker(pytest.mark.slow)
            yield item


class AuditItem(pytest.Item):
    def __init__(self, *args, audit, **kwargs):
        super().__init__(*args, **kwargs)
        self.audit = audit

    def runtest(self):
        from .audit.runner import run_audit

        outcome = run_audit(self.audit)
        self.user_properties.append(("verdict", outcome.actual))
        if not outcome.met:
            raise AuditMiss(outcome.message())
        kernel_check(outcome.result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AuditMiss):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"audit {self.audit.id} (expect {self.audit.expected.value})"
