"""Batch members decided without their own kernel re-check (``independent_mod_affine(self_check=False)``):
the N5 / N6 batch checks rely on the kernel's re-check of the batch Result, which re-checks every member
certificate.  Accepted: the same Results as with the member re-check; a forged member certificate: the
batch is INCONCLUSIVE with the kernel's reason."""

import dataclasses
import json

import pytest

import verify.checks.n5_discrete_laws as n5
import verify.checks.n6_iid_samples as n6
from verify import kernel
from verify.decide.independence import independent_mod_affine
from verify.errors import InputError
from verify.laws import Discrete


def _plain(r):
    d = json.loads(r.to_json())
    d.pop("timing", None)
    return d


def test_unchecked_member_is_the_checked_result_when_accepted():
    laws = [Discrete([[0], [1]]), Discrete([[0], [2]]), Discrete([[0], [1], [3]])]
    a, b = independent_mod_affine(laws), independent_mod_affine(laws, self_check=False)
    assert a.proved and _plain(a) == _plain(b)
    dep = laws + [Discrete([[5]])]                        # a Dirac: its CGF is linear
    a, b = independent_mod_affine(dep), independent_mod_affine(dep, self_check=False)
    assert a.refuted and _plain(a) == _plain(b)
    with pytest.raises(InputError, match="^self_check"):
        independent_mod_affine(laws, self_check=1)


def _forging(module, monkeypatch, trial):
    """Make ``module``'s independent_mod_affine return a forged certificate (wrong determinant) in one trial."""
    real, calls = module.independent_mod_affine, []

    def forged(*args, **kwargs):
        r = real(*args, **kwargs)
        calls.append(kwargs.get("self_check", True))
        if len(calls) == trial + 1 and r.proved:
            cert = dict(r.certificate)
            if "det" in cert:
                cert["det"] = (int(cert["det"]) + 1) % int(cert["prime"])
            else:
                pytest.skip("trial certificate has no determinant")
            r = dataclasses.replace(r, certificate=cert)
        return r

    monkeypatch.setattr(module, "independent_mod_affine", forged)
    return calls


def test_forged_member_certificate_makes_the_n6_batch_inconclusive(monkeypatch):
    assert n6.check_iid_samples(trials=3).proved
    calls = _forging(n6, monkeypatch, 1)
    r = n6.check_iid_samples(trials=3)
    assert calls == [False] * 3                      # the members skip their own re-check ...
    assert r.inconclusive and "det" in r.evidence["kernel_rejected"]["reason"]    # ... the batch's catches it


def test_forged_member_certificate_makes_the_n5_batch_inconclusive(monkeypatch):
    good = n5.check_criterion_agreement(families=4)
    assert good.proved
    kernel.check(json.loads(good.to_json()))
    calls = _forging(n5, monkeypatch, 0)
    r = n5.check_criterion_agreement(families=4)
    assert set(calls) == {False}
    assert r.inconclusive and "kernel_rejected" in r.evidence
