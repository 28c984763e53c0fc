"""Stored text is clean: no control characters or bidi overrides, nothing invisible-only,
and the same text in NFC or NFD is one text."""

from __future__ import annotations

import unicodedata

import pytest

from ltm_desktop.core import rules
from ltm_desktop.core.clean_text import clean_text, is_invisible
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AddStatus, MemoryDraft
from ltm_desktop.core.service import MemoryService


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("red\x1b[31malert\x07", "red[31malert"),  # ESC and BEL
        ("back\x08\x08space", "backspace"),
        ("C1\x85\x9b here", "C1 here"),
        ("admin\u202e\u2066txt.exe\u2069", "admintxt.exe"),  # bidi override and isolate
        ("line one\r\nline two\rline three", "line one\nline two\nline three"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        ("family: 👨\u200d👩\u200d👧", "family: 👨\u200d👩\u200d👧"),  # joiners are kept
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


@pytest.mark.parametrize("text", ["\u200b", "\u200b\u200c\u200d \ufeff", "\u2060\u00ad", "\u3164"])
def test_invisible_only_text(text: str) -> None:
    assert is_invisible(text)


def test_every_stored_field_is_cleaned(service: MemoryService) -> None:
    draft = MemoryDraft(
        "Deploy\x1b[2J with \u202emake\u202c deploy\x07",
        title="Deploy\x08 \u2067how\u2069",
        tags=["ci\x1b", "re\u202elease"],
    )
    memory = service.add(GLOBAL_PROJECT_ID, draft, "agent").memory
    assert memory.content == "Deploy[2J with make deploy"
    assert memory.title == "Deploy how"
    assert memory.tags == ("ci", "release")
    edited = service.update(memory.id, {"content": "Now\x1b with \u2066tabs\u2069"}, "gui")
    assert edited.content == "Now with tabs"


@pytest.mark.parametrize("field", ["content", "tags"])
def test_zero_width_only_text_is_refused(service: MemoryService, field: str) -> None:
    values: dict[str, object] = {"content": "ok", field: "\u200b\u200d\u2060"}
    if field == "tags":
        values["tags"] = ["\u200b\u200d"]
    with pytest.raises(InvalidInput, match="visible text") as info:
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(**values), "agent")  # type: ignore[arg-type]
    assert info.value.field == field
    assert service.count_memories(GLOBAL_PROJECT_ID) == 0


def test_nfc_and_nfd_texts_deduplicate(service: MemoryService) -> None:
    text = "Le café est servi à l'équipe à midi"
    composed = unicodedata.normalize("NFC", text)
    decomposed = unicodedata.normalize("NFD", text)
    assert composed != decomposed
    assert rules.content_signature(composed) == rules.content_signature(decomposed)
    first = service.add(GLOBAL_PROJECT_ID, MemoryDraft(composed), "agent")
    second = service.add(GLOBAL_PROJECT_ID, MemoryDraft(decomposed), "agent")
    assert second.status is AddStatus.DEDUPLICATED
    assert second.memory.id == first.memory.id
    assert service.count_memories(GLOBAL_PROJECT_ID) == 1


def test_a_zero_width_only_title_is_a_missing_title(service: MemoryService) -> None:
    added = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Ship it", title="\u200b\u200d"), "agent")
    assert added.memory.title == "Ship it"
    with pytest.raises(InvalidInput, match="title must not be empty"):
        service.update(added.memory.id, {"title": "\u200b\u2060"}, "gui")
