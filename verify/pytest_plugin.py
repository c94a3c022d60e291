"""pytest plugin (entry point ``pytest11: verify``): every audit in ``proofs/`` is one test item.

``pytest proofs/`` collects ``proofs/<paper>/<id>_<slug>.py`` modules and runs each entry of their
``AUDITS`` list; a failure names the claim, the expected and actual verdicts and the certificate
summary.  Every decided (PROVED/REFUTED) audit Result is also re-checked by the kernel
(:func:`verify.kernel.check`, from its JSON): an audit whose verdict is right but whose certificate the
kernel rejects fails.  ``--audit-quick`` keeps only the quick audits.

For hand-written proof checks, :func:`assert_verdict` does the same (verdict, then kernel)::

    from verify.pytest_plugin import assert_verdict
    assert_verdict(verify.prove_emulation(net, box), "proved")
"""

from __future__ import annotations

import importlib
import os

import pytest

from .audit.discovery import AUDIT_MODULE_NAME

__all__ = ["assert_verdict", "kernel_check", "AuditMiss"]


class AuditMiss(AssertionError):
    pass


def assert_verdict(result, expected) -> None:
    """Assert ``result.verdict == expected`` with a message naming claim, verdicts and certificate; a
    decided Result must moreover be accepted by the kernel (:func:`kernel_check`)."""
    from .results import Verdict

    expected = Verdict(expected)
    if result.verdict is not expected:
        raise AuditMiss(
            f"claim {result.claim}: expected {expected.value}, got {result.verdict.value} "
            f"({result.method.value}); certificate: {result.certificate.get('summary', '(no summary)')}"
        )
    kernel_check(result)


def kernel_check(result) -> None:
    """Re-check a decided Result with the kernel from its JSON (as ``verify check`` would); raise
    :class:`AuditMiss` naming the reason if the kernel rejects it.  INCONCLUSIVE: nothing to check."""
    import json

    from . import kernel

    if result.verdict.value == "inconclusive":
        return
    try:
        kernel.check(json.loads(result.to_json()))
    except kernel.Rejected as exc:
        raise AuditMiss(f"claim {result.claim}: {result.verdict.value}, but the kernel rejects the Result: {exc}") \
            from None


def pytest_addoption(parser):
    group = parser.getgroup("verify")
    group.addoption("--audit-quick", action="store_true", default=False,
                    help="collect only the quick audits from proofs/")


def _dotted_name(path: str) -> str:
    path = os.path.abspath(path)
    folder, leaf = os.path.split(path)
    parts = [os.path.splitext(leaf)[0]]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.append(pkg)
    return ".".join(reversed(parts))


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".py" or not AUDIT_MODULE_NAME.match(file_path.stem):
        return None
    dotted = _dotted_name(str(file_path))
    if not dotted.startswith("proofs."):
        return None
    return AuditModule.from_parent(parent, path=file_path, dotted=dotted)


class AuditModule(pytest.File):
    def __init__(self, *args, dotted: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.dotted = dotted

    def collect(self):
        from .audit.discovery import audits_of_module

        quick_only = self.config.getoption("--audit-quick")
        for audit in audits_of_module(self.dotted):
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
