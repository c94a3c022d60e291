"""verify.recheck.ntk: accepts the N7 certificates, rejects every tampered number / dropped element."""

import copy
import importlib
import json
from fractions import Fraction as F

import pytest

from verify.checks.n7_ntk_gram import check_family_gram, check_oracle_gram, check_translates_singular
from verify.recheck import RecheckFailure, recheck
from verify.recheck.ntk import gradient_ball

SKIP = {"summary", "kind", "approx", "note", "reading", "argument", "mean_field_argument", "implies", "order",
        "why_outside", "ball_check"}


def _paths(obj, path=(), in_list=False):
    out = []
    if isinstance(obj, dict):
        for k in sorted(obj):
            if k not in SKIP:
                out += _paths(obj[k], path + (k,), in_list)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, path + (i,), True)
    elif in_list and not isinstance(obj, bool) and isinstance(obj, (int, str)):
        try:
            F(obj)
            out.append(path)
        except (ValueError, ZeroDivisionError):
            pass
    return out


def _get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


def _changed(v):
    q = 2 * F(v) + F(1, 7)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _rejected(d):
    with pytest.raises(Exception) as exc:
        recheck(d)
    assert isinstance(exc.value, (RecheckFailure, ValueError, TypeError, KeyError)), exc.value


@pytest.fixture(scope="module")
def cholesky_results():
    return [json.loads(r.to_json()) for r in (
        check_oracle_gram("translates-m1"),
        check_translates_singular(reading="per-token"),
        check_family_gram("F11", m=1, heads=5),
        check_family_gram("F8", m=2, heads=5),
        check_family_gram("F15", m=2, heads=5),
    )]


def test_cholesky_certificates_accepted(cholesky_results):
    for d in cholesky_results:
        assert d["certificate"]["kind"] == "ntk-cholesky"
        assert "PD by interval Cholesky" in recheck(d)


def test_cholesky_tampering_rejected(cholesky_results):
    for d in cholesky_results:
        paths = _paths(d["certificate"])
        step = max(1, len(paths) // 12)
        for p in paths[::step]:
            t = copy.deepcopy(d)
            parent = _get(t["certificate"], p[:-1])
            parent[p[-1]] = _changed(parent[p[-1]])
            _rejected(t)
        for key in ("heads", "laws", "pivot_lower_bounds", "diagonal_lower_bounds", "queries"):
            t = copy.deepcopy(d)
            lst = t["certificate"][key]
            if len(lst) >= 2:
                del lst[len(lst) // 2]
                _rejected(t)
        flipped = copy.deepcopy(d)
        flipped["verdict"] = "refuted" if d["verdict"] == "proved" else "proved"
        _rejected(flipped)


def test_recheck_gradients_match_the_distributions():
    from verify.objects.distributions import GaussianMixture, SymmetricLaplace, UniformCube
    from verify.engines.ball import workprec

    theta = [F(1, 3), F(-1, 1000)]
    for law in (UniformCube(F(3, 2), [1, 0]), SymmetricLaplace([[1, F(1, 5)], [F(1, 5), 1]], [0, 1]),
                GaussianMixture(2, [3, 4], [[1, 0], [0, 2]], [1, 1])):
        with workprec(200):
            a = law.grad_ball(tuple(theta))
        b = gradient_ball(law.to_dict(), theta, prec=200)
        for x, y in zip(a, b):
            assert abs(float((x - y).mid())) < 1e-50 and x.overlaps(y)


def _null_vector_result():
    d = json.loads(check_oracle_gram("translates-m2").to_json())
    assert d["certificate"]["kind"] == "ntk-null-vector"
    return d


def _dependence_rechecker_available():
    try:
        importlib.import_module("verify.recheck.dependence")
        return True
    except ModuleNotFoundError:
        return False


def test_null_vector_structure_checks():
    d = _null_vector_result()
    for mutate in (lambda c: c["null_vector"].__setitem__(1, "1"),
                   lambda c: c["relation"]["c"].__setitem__(0, "2"),
                   lambda c: c["relation"].__setitem__("alpha", ["0", "0"]) or c.__setitem__("m", 1),
                   lambda c: c.__setitem__("null_vector", ["0", "0", "0", "0"]),
                   lambda c: c["dependence_certificate"].__setitem__("kind", "independence-design")):
        t = copy.deepcopy(d)
        mutate(t["certificate"])
        _rejected(t)


@pytest.mark.skipif(not _dependence_rechecker_available(), reason="verify.recheck.dependence (H4) not written yet")
def test_null_vector_accepted_and_tampering_rejected():
    d = _null_vector_result()
    assert "null vector" in recheck(d)
    paths = _paths(d["certificate"])
    for p in paths[::max(1, len(paths) // 20)]:
        t = copy.deepcopy(d)
        parent = _get(t["certificate"], p[:-1])
        parent[p[-1]] = _changed(parent[p[-1]])
        _rejected(t)
