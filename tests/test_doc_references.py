"""Every reference to the project's documents resolves inside the repository (paper 1 and the claim catalogue).

* every ``docs/<name>.md`` named in verify/, proofs/, docs/ or README.md exists;
* every "docs/claims.md <ID>" names a section ``## <ID>`` of docs/claims.md;
* every "docs/paper1.md <tag>" names a label of docs/paper1.md (a heading, or a row of its §1 table);
* nothing cites the reconstruction notes outside the repository, paper 1's tags through the old "spec maxout"
  form, or a ``claims.md`` / ``maxout.md`` without the ``docs/`` prefix;
* the background of every T claim in ``verify.claims`` (printed by ``verify claims --long``) is a resolving
  docs/paper1.md reference.

The references to paper 2 (docs/paper2.md and its labels) are checked by tests/test_doc_references_paper2.py.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from verify.claims import CLAIMS, claim_ids

ROOT = pathlib.Path(__file__).resolve().parent.parent
SELF = pathlib.Path(__file__).resolve()


def _sources():
    """(relative path, text) of every file whose references must resolve."""
    paths = sorted((ROOT / "verify").rglob("*.py")) + sorted((ROOT / "proofs").rglob("*.py"))
    paths += sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in paths]


SOURCES = _sources()
TESTS = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
         for p in sorted((ROOT / "tests").rglob("*.py")) if p.resolve() != SELF]


def _norm(tag: str) -> str:
    return tag.replace("\u2032", "'")


def claims_headings() -> set:
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    return set(re.findall(r"^## ([TN]\d+)\s*$", text, flags=re.M))


def paper1_labels() -> set:
    text = (ROOT / "docs" / "paper1.md").read_text(encoding="utf-8")
    labels = {_norm(m.rstrip(":")) for m in re.findall(r"^#{2,6}\s+(\S+)", text, flags=re.M)}
    labels |= set(re.findall(r"^\|\s*(B\d+)\s*\|", text, flags=re.M))
    return labels


_TAG = r"(?:§\d+(?:\.\d+)?|[RBO]\d+[s'\u2032]?)(?!\w)"
PAPER1_REF = re.compile(r"docs/paper1\.md((?:,?\s+(?:and\s+|to\s+)?" + _TAG + r")+)")
CLAIMS_REF = re.compile(r"docs/claims\.md((?:,?\s+(?:and\s+)?[TN]\d+(?:\.n\d*)?(?!\w))+)")

OLD_FORMS = [
    re.compile(r"shared/spec(?!/lse\.md)"),      # paper 2 notes: tests/test_doc_references_paper2.py
    re.compile(r"\b[Ss]pec maxout\b"),
    re.compile(r"\b[Ss]pec (?:R\d|O\d|§|tags)"),
    re.compile(r"\bmaxout (?:R\d|O\d|§\d)"),
    re.compile(r"(?<!docs/)\bclaims\.md"),
    re.compile(r"(?<!docs/)\bmaxout\.md"),
]


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def test_the_catalogue_has_a_section_per_claim():
    assert claims_headings() == set(claim_ids())
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    order = re.findall(r"^## ([TN]\d+)\s*$", text, flags=re.M)
    assert order == claim_ids()


def test_paper1_labels_cover_the_tags_of_the_code():
    labels = paper1_labels()
    expected = {f"R{i}" for i in range(1, 10)} | {"R3s", "R4'"} | {f"O{i}" for i in range(1, 9)}
    expected |= {f"§2.{i}" for i in range(1, 7)} | {f"B{i}" for i in range(1, 9)} | {"§6"}
    assert expected <= labels, sorted(expected - labels)


def test_every_named_doc_exists():
    missing = []
    for rel, text in SOURCES:
        for m in re.finditer(r"\bdocs/([A-Za-z0-9_.-]+?)\.md\b", text):
            name = m.group(1)
            if not (ROOT / "docs" / f"{name}.md").is_file():
                missing.append(f"{rel}:{_line(text, m.start())}: docs/{name}.md")
    assert not missing, "\n".join(missing)


def test_claim_references_resolve():
    ids, bad = claims_headings(), []
    for rel, text in SOURCES:
        for m in CLAIMS_REF.finditer(text):
            for cid in re.findall(r"[TN]\d+", m.group(1)):
                if cid not in ids:
                    bad.append(f"{rel}:{_line(text, m.start())}: docs/claims.md {cid}")
    assert not bad, "\n".join(bad)


def test_paper1_references_resolve():
    labels, bad, seen = paper1_labels(), [], 0
    for rel, text in SOURCES:
        for m in PAPER1_REF.finditer(text):
            for tag in re.findall(_TAG, m.group(1)):
                seen += 1
                if _norm(tag) not in labels:
                    bad.append(f"{rel}:{_line(text, m.start())}: docs/paper1.md {tag}")
    assert not bad, "\n".join(bad)
    assert seen >= 40          # the code does cite paper 1 by label


@pytest.mark.parametrize("rel, text", SOURCES + TESTS, ids=[r for r, _ in SOURCES + TESTS])
def test_no_reference_outside_the_repository(rel, text):
    bad = []
    for pattern in OLD_FORMS:
        for m in pattern.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            line = text[line_start:line_end if line_end >= 0 else None]
            bad.append(f"{rel}:{_line(text, m.start())}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_claim_sources_are_repository_references():
    labels = paper1_labels()
    for cid in claim_ids():
        if not cid.startswith("T"):
            continue
        source = CLAIMS[cid].source
        assert source.startswith("docs/paper1.md "), (cid, source)
        tags = re.findall(_TAG, source[len("docs/paper1.md"):])
        assert tags and all(_norm(t) in labels for t in tags), (cid, source)
    for cid in claim_ids():            # paper 2's sections are resolved by tests/test_doc_references_paper2.py
        assert cid.startswith("T") or CLAIMS[cid].source.startswith("docs/paper2.md §"), (cid, CLAIMS[cid].source)


@pytest.mark.slow                  # loads every audit module (about 6 s)
def test_claims_long_prints_repository_references(capsys):
    from verify.cli import main

    assert main(["claims", "--long"]) == 0
    out = capsys.readouterr().out
    assert "docs/paper1.md R1, O1" in out and "docs/paper1.md R4', O7" in out
    assert "shared/spec" not in out and "maxout R" not in out
