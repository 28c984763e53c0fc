"""The memory model's rules: project ids, signatures, similarity, validation."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.observations import build_observation
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.search.retrieval import check_limit


def sha16(text: str) -> str:
    return "proj_" + hashlib.sha256(text.encode()).hexdigest()[:16]


def test_project_id_is_sha256_prefix_of_normalized_path() -> None:
    assert rules.project_id_for_cwd("/nowhere/repo") == sha16("/nowhere/repo")


@pytest.mark.parametrize(
    "variant",
    [
        "/nowhere/repo/",
        "/nowhere//repo",
        "/nowhere/./repo",
        "/nowhere/x/../repo",
        " /nowhere/repo",
        "//nowhere/repo",
        "///nowhere/repo",
    ],
)
def test_project_id_normalizes_equivalent_spellings(variant: str) -> None:
    assert rules.project_id_for_cwd(variant) == sha16("/nowhere/repo")


@pytest.mark.parametrize(
    ("cwd", "windows", "project_id"),
    [
        ("/home/me/src/app", False, "proj_0af20a5227190839"),
        ("/home/me/src/app/", False, "proj_0af20a5227190839"),
        ("/", False, "proj_8a5edab282632443"),
        ("/srv/a b/c", False, "proj_1113be318526e748"),
        ("/nowhere/é/repo", False, "proj_ccb9e544dc43fd94"),
        (r"C:\Users\Me\src", True, "proj_aa98ec13c74120c2"),
    ],
)
def test_ids_of_ordinary_paths_never_change(cwd: str, windows: bool, project_id: str) -> None:
    """Ids computed by earlier versions: a project must not lose its memories on upgrade."""
    assert rules.project_id_for_cwd(cwd, windows=windows) == project_id


def test_a_leading_double_slash_is_the_root() -> None:
    assert rules.normalize_cwd("//nowhere/x") == "/nowhere/x"
    assert rules.normalize_cwd("//") == "/"


def test_a_trailing_space_is_part_of_the_name(tmp_path: Path) -> None:
    assert rules.normalize_cwd("/nowhere/repo ") == "/nowhere/repo "
    assert rules.project_id_for_cwd("/nowhere/repo ") != rules.project_id_for_cwd("/nowhere/repo")
    (tmp_path / "repo ").mkdir()
    (tmp_path / "repo").mkdir()
    spaced, plain = str(tmp_path / "repo "), str(tmp_path / "repo")
    assert rules.normalize_cwd(spaced) == spaced
    assert rules.project_id_for_cwd(spaced) != rules.project_id_for_cwd(plain)


def test_a_long_relative_cwd_is_not_echoed_whole() -> None:
    with pytest.raises(InvalidInput) as info:
        rules.normalize_cwd("x" * 100_000)
    assert len(str(info.value)) < 200
    assert "100,000 characters" in str(info.value)


def test_project_id_resolves_symlinks_of_existing_paths(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert rules.project_id_for_cwd(str(link)) == rules.project_id_for_cwd(str(real))


def test_windows_paths_are_lower_cased() -> None:
    upper = rules.project_id_for_cwd(r"C:\Users\Dev\Repo", windows=True)
    lower = rules.project_id_for_cwd(r"c:\users\dev\repo", windows=True)
    assert upper == lower == sha16(r"c:\users\dev\repo")


@pytest.mark.parametrize("bad", ["", "   ", "\t\n", "relative/path", "./repo", None, 42])
def test_bad_cwd_is_rejected_with_a_clear_error(bad: object) -> None:
    with pytest.raises(InvalidInput) as info:
        rules.project_id_for_cwd(bad)
    assert info.value.field == "cwd"
    assert "cwd" in str(info.value)


@pytest.mark.parametrize("good", ["global", "proj_0123456789abcdef"])
def test_project_id_format_accepted(good: str) -> None:
    assert rules.check_project_id(good) == good


@pytest.mark.parametrize("bad", ["", "GLOBAL", "proj_123", "proj_0123456789ABCDEF", "../etc", 5])
def test_project_id_format_rejected(bad: object) -> None:
    with pytest.raises(InvalidInput, match="project_id"):
        rules.check_project_id(bad)


def test_signature_ignores_case_and_whitespace() -> None:
    a = rules.content_signature("  Use   pytest\nfor TESTS ")
    b = rules.content_signature("use pytest for tests")
    assert a == b == hashlib.sha256(b"use pytest for tests").hexdigest()
    assert a != rules.content_signature("use pytest for test")


def test_similarity_tokens_are_nfc_lowercase_and_longer_than_two() -> None:
    decomposed = "Cafe\u0301 is an OK place to sit"
    tokens = rules.similarity_tokens(decomposed)
    assert tokens == {"caf\u00e9", "place", "sit"}


def test_jaccard() -> None:
    a = frozenset({"one", "two", "three", "four"})
    assert rules.jaccard(a, a) == 1.0
    assert rules.jaccard(a, frozenset({"one", "two", "five", "six"})) == pytest.approx(2 / 6)
    assert rules.jaccard(frozenset(), frozenset()) == 0.0


def test_derived_title_uses_first_line_without_markdown() -> None:
    assert rules.derive_title("\n\n# Deploy notes\nmore") == "Deploy notes"
    long = "word " * 40
    title = rules.derive_title(long)
    assert len(title) <= rules.DERIVED_TITLE_CHARS
    assert title.endswith("…")


def test_validate_draft_fills_title_and_normalizes_tags() -> None:
    draft = rules.validate_draft(
        MemoryDraft("  Deploys run on Fridays  ", tags=["CI", " ci ", "Release Train"])
    )
    assert draft.title == "Deploys run on Fridays"
    assert draft.content == "Deploys run on Fridays"
    assert draft.tags == ("ci", "release-train")


@pytest.mark.parametrize(
    ("draft", "field"),
    [
        (MemoryDraft(""), "content"),
        (MemoryDraft("   \n"), "content"),
        (MemoryDraft("x" * (rules.MAX_CONTENT_CHARS + 1)), "content"),
        (MemoryDraft("bad \ud800 surrogate"), "content"),
        (MemoryDraft("nul \x00 byte"), "content"),
        (MemoryDraft("ok", category="opinion"), "category"),
        (MemoryDraft("ok", importance=11), "importance"),
        (MemoryDraft("ok", importance=-1), "importance"),
        (MemoryDraft("ok", importance=True), "importance"),
        (MemoryDraft("ok", importance="5"), "importance"),  # type: ignore[arg-type]
        (MemoryDraft("ok", tags="one,two"), "tags"),  # type: ignore[arg-type]
        (MemoryDraft("ok", tags=[1]), "tags"),  # type: ignore[list-item]
        (MemoryDraft("ok", tags=["x" * 41]), "tags"),
        (MemoryDraft("ok", tags=[f"t{i}" for i in range(21)]), "tags"),
        (MemoryDraft("ok", ttl_days=-1), "ttl_days"),
        (MemoryDraft("ok", ttl_days=1.5), "ttl_days"),  # type: ignore[arg-type]
        (MemoryDraft("ok", title="t" * 201), "title"),
    ],
)
def test_invalid_drafts_name_the_field(draft: MemoryDraft, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        rules.validate_draft(draft)
    assert info.value.field == field
    assert field.split("_")[0] in str(info.value)


def test_validate_changes_rejects_unknown_and_blank_title() -> None:
    with pytest.raises(InvalidInput, match="signature"):
        rules.validate_changes({"signature": "x"})
    with pytest.raises(InvalidInput, match="title"):
        rules.validate_changes({"title": "  "})
    assert rules.validate_changes({"ttl_days": None, "importance": 3}) == {
        "ttl_days": None,
        "importance": 3,
    }


def test_actor_is_kept_short_and_printable() -> None:
    assert rules.check_actor(" claude-code\x07 ") == "claude-code"
    assert len(rules.check_actor("a" * 500)) == rules.MAX_ACTOR_CHARS
    with pytest.raises(InvalidInput):
        rules.check_actor("\x07\x08")


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (lambda v: rules.check_category(v), None, "got null"),
        (lambda v: rules.check_category(v), True, "got true"),
        (lambda v: rules.check_category(v), "gossip", "got 'gossip'"),
        (lambda v: check_limit(v, 5), False, "got false"),
        (lambda v: check_limit(v, 5), 2.5, "got 2.5"),
        (lambda v: build_observation(v, "s"), ["agent_end"], "got a list"),
        (lambda v: build_observation(v, "s"), {"k": 1}, "got an object"),
    ],
)
def test_messages_show_values_as_json_writes_them(
    check: Callable[[object], object], value: object, expected: str
) -> None:
    """Agents in any language read these: null and true, never Python's None and True."""
    with pytest.raises(InvalidInput) as info:
        check(value)
    assert str(info.value).endswith(expected)


@pytest.mark.parametrize("ttl_days", [0, None])
def test_a_ttl_of_zero_means_never_expires(ttl_days: int | None) -> None:
    """As the first design says: 0 is "never", stored as no TTL at all."""
    assert rules.validate_draft(MemoryDraft("ok", ttl_days=ttl_days)).ttl_days is None
    assert rules.validate_changes({"ttl_days": ttl_days}) == {"ttl_days": None}


def test_a_draft_without_importance_gets_the_configured_default() -> None:
    assert rules.validate_draft(MemoryDraft("ok")).importance == 0
    assert rules.validate_draft(MemoryDraft("ok"), default_importance=4).importance == 4
    assert rules.validate_draft(MemoryDraft("ok", importance=7), 4).importance == 7
