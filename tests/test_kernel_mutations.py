"""Generic mutation of whole decided Results: every mutant must be rejected by the kernel.

Each kernel module's test file ``tests/test_kernel_<module>.py`` defines ``kernel_samples()`` (genuine
decided Result dicts, at least two per certificate kind with different parameters) and may define
``KERNEL_FREE_PATHS`` (regexes of paths, or of ``kind:path`` to free a path for one kind only, whose
change keeps the Result true and proved, each justified there).  For every sample this test applies, mechanically:

* flip the verdict; change the claim ID; remove the certificate; empty it; drop its kind;
* for each exact number in ``parameters``: change it, both keeping the old statement (caught by the
  instance tag) and re-deriving the statement from the new parameters (only the mathematics can catch it);
* swap in the statement of another sample; transplant the certificate of another sample of the same kind;
* for each list inside the certificate: drop its first element, duplicate its first element;
* for each exact number inside the certificate: change it.

A mutant that the kernel accepts is a failure unless its path matches ``KERNEL_FREE_PATHS``.
"""

import copy
import re
from fractions import Fraction

import pytest

from verify import kernel
from verify.kernel import _read as R

from kernel_samples import RESTATE, load_samples
from kernel_samples import is_exact_number as _is_num, parent_of as _get_parent, walk as _walk

MAX_SITES = 24          # per sample and per mutation family, evenly spread (keeps the test fast)


def _spread(items):
    if len(items) <= MAX_SITES:
        return items
    step = len(items) / MAX_SITES
    return [items[int(i * step)] for i in range(MAX_SITES)]


def _bump(v):
    q = Fraction(v) + 1 if not (isinstance(v, str) and "/" in v) else Fraction(v) * 2 + Fraction(1, 7)
    if isinstance(v, int):
        return int(q) if q.denominator == 1 else str(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _restated(r, label):
    """The statement of r re-derived from its (mutated) parameters: with the sample module's own
    ``restate`` (the kernel's statement function: text and tag) where it has one, else only the instance
    tag recomputed."""
    if label in RESTATE:
        try:
            return RESTATE[label](copy.deepcopy(r))["statement"]
        except Exception:   # the mutated parameters do not even make a statement: the tag-only form
            pass
    text = re.sub(r" \[instance sha256:[0-9a-f]{16}\]$", "", r["statement"])
    return R.bound_statement(text, r.get("parameters", {}), r.get("conventions", {}))


def _accepted(r):
    try:
        kernel.check(r, seconds=60)
    except kernel.Rejected:
        return False
    return True


SAMPLES = load_samples()
IDS = [s[0] for s in SAMPLES]


def test_every_kind_has_two_samples():
    by_kind = {}
    for _, r, _ in SAMPLES:
        by_kind.setdefault(r["certificate"]["kind"], []).append(r)
    missing = sorted(k for k in kernel.kinds() if len(by_kind.get(k, [])) < 2)
    assert not missing, f"kinds with fewer than two samples: {missing}"


@pytest.mark.parametrize("label, r, free", SAMPLES, ids=IDS)
def test_genuine_sample_accepted(label, r, free):
    kernel.check(r, seconds=60)


@pytest.mark.parametrize("label, r, free", SAMPLES, ids=IDS)
def test_whole_result_mutants_rejected(label, r, free):
    survivors = []

    kind = r["certificate"].get("kind")

    def expect_rejected(mutant, what, path=""):
        # a free path is a regex on the path, or on "kind:path" to free it for one kind only
        if path and any(p.search(path) or p.search(f"{kind}:{path}") for p in free):
            return
        if _accepted(mutant):
            survivors.append(what)

    m = copy.deepcopy(r)
    m["verdict"] = {"proved": "refuted", "refuted": "proved"}[r["verdict"]]
    expect_rejected(m, "verdict flipped")
    m = copy.deepcopy(r)
    m["claim"] = "N9" if r["claim"].startswith("T") else "T3"
    expect_rejected(m, "claim changed")
    for mutate, what in ((lambda c: None, "certificate removed"), (lambda c: {}, "certificate emptied"),
                         (lambda c: {k: v for k, v in c.items() if k != "kind"}, "kind dropped")):
        m = copy.deepcopy(r)
        new = mutate(m["certificate"])
        if new is None:
            del m["certificate"]
        else:
            m["certificate"] = new
        expect_rejected(m, what)

    nums = [(p, v) for p, v in _walk(r["parameters"], "parameters") if _is_num(v)]
    for path, v in _spread(nums):
        m = copy.deepcopy(r)
        parent, key = _get_parent(m, path)
        parent[key] = _bump(v)
        expect_rejected(m, f"{path} changed (statement kept)")
        m["statement"] = _restated(m, label)
        expect_rejected(m, f"{path} changed (statement re-derived)", path)

    lists = [(p, v) for p, v in _walk(r["certificate"], "certificate") if isinstance(v, list) and v]
    for path, v in _spread(lists):
        for op in ("drop", "duplicate"):
            m = copy.deepcopy(r)
            parent, key = _get_parent(m, path)
            parent[key] = v[1:] if op == "drop" else [copy.deepcopy(v[0])] + copy.deepcopy(v)
            expect_rejected(m, f"{path}: {op} first element", path)
    cnums = [(p, v) for p, v in _walk(r["certificate"], "certificate") if _is_num(v)]
    for path, v in _spread(cnums):
        m = copy.deepcopy(r)
        parent, key = _get_parent(m, path)
        parent[key] = _bump(v)
        expect_rejected(m, f"{path} changed", path)
    assert not survivors, f"{label}: mutants accepted: {survivors}"


def _partners():
    """For each sample: the next sample overall and the next sample of the same kind (cyclically)."""
    by_kind = {}
    for i, (_, r, _) in enumerate(SAMPLES):
        by_kind.setdefault(r["certificate"].get("kind"), []).append(i)
    out = []
    for i, (_, r, _) in enumerate(SAMPLES):
        same = by_kind[r["certificate"].get("kind")]
        j = same[(same.index(i) + 1) % len(same)]
        out.append((i, (i + 1) % len(SAMPLES), j))
    return out


@pytest.mark.parametrize("i, k, j", _partners(), ids=[IDS[i] for i, _, _ in _partners()])
def test_statements_and_certificates_do_not_transplant(i, k, j):
    la, a, _ = SAMPLES[i]
    survivors = []
    for other in {k, j} - {i}:
        lb, b, _ = SAMPLES[other]
        if a["statement"] != b["statement"]:
            m = copy.deepcopy(a)
            m["statement"] = b["statement"]
            if _accepted(m):
                survivors.append(f"statement of {lb}")
    lb, b, _ = SAMPLES[j]
    if j != i and R.digest(a["certificate"]) != R.digest(b["certificate"]):
        m = copy.deepcopy(a)
        m["certificate"] = copy.deepcopy(b["certificate"])
        if _accepted(m):
            survivors.append(f"certificate of {lb}")
    assert not survivors, f"{la}: accepted with {survivors}"
