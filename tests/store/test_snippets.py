"""Snippets show the matched words in context, for every kind of query term."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltm_desktop.core.search.query import parse_query
from ltm_desktop.core.service import MemoryService
from ltm_desktop.engine.phrases import term_phrases
from ltm_desktop.engine.snippets import make_snippet
from tests.conftest import FakeClock, make_draft


def snippet(text: str, query: str, size: int = 24) -> str:
    terms = [term_phrases(term) for term in parse_query(query).positive]
    return make_snippet(text, terms, size)


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        (
            "Deployments to production happen weekly.",
            "deploying",
            "**Deployments** to production happen weekly.",
        ),
        ("We ship apps and an app.", "app", "We ship **apps** and an **app**."),
        ("Use node:sqlite here", '"node sqlite"', "Use **node:sqlite** here"),
        ("Le café est fermé", "cafe", "Le **café** est fermé"),
        ("数据库连接池的大小", "数据库", "**数据库**连接池的大小"),
        ("Configure the pipeline", "config*", "**Configure** the pipeline"),
        ("nothing matches in the content", "title-only", "nothing matches in the content"),
        # only Latin letters lose their marks, as in the index: パ is not ハ, й is not и
        ("ハスの池とパスワード", "パス", "ハスの池と**パス**ワード"),
        ("йога и иога", "йога", "**йога** и иога"),
        # accents typed as combining marks (text pasted from macOS)
        ("re\u0301sume\u0301 and cafe\u0301", "resume cafe", "**résumé** and **café**"),
    ],
)
def test_matched_words_are_marked(text: str, query: str, expected: str) -> None:
    assert snippet(text, query) == expected


def test_a_long_text_is_cut_around_the_hits() -> None:
    words = [f"w{i}" for i in range(100)]
    words[60] = "kubernetes"
    got = snippet(" ".join(words), "kubernetes", size=9)
    assert got == "…w56 w57 w58 w59 **kubernetes** w61 w62 w63 w64…"


def test_the_window_prefers_more_different_terms() -> None:
    text = "redis " + " ".join(["x"] * 40) + " redis and kafka together " + " ".join(["y"] * 40)
    got = snippet(text, "redis kafka", size=8)
    assert "**redis** and **kafka**" in got
    assert got.startswith("…")
    assert got.endswith("…")


def test_a_phrase_longer_than_the_window_is_shown_from_its_start() -> None:
    phrase = "生产环境的数据库连接池最大连接数必须设置为二十否则高峰期会出现超时错误"
    text = "项目背景介绍。" * 40 + phrase + "项目背景介绍。" * 40
    got = snippet(text, phrase, size=24)
    assert got.startswith("…**生产环境")
    assert got.endswith("…")


def test_many_hits_in_a_long_text_stay_cheap() -> None:
    """The window is found in one pass: 20,000 one-character hits take well under a
    second (quadratic scanning took minutes)."""
    got = snippet("数" * 20_000, "数")
    assert got == "**" + "数" * 24 + "**…"  # touching hits are marked as one


def test_no_hit_shows_the_beginning() -> None:
    got = snippet(" ".join(f"w{i}" for i in range(50)), "absent", size=5)
    assert got == "w0 w1 w2 w3 w4…"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.characters(blacklist_characters="*…"), max_size=300),
    query=st.text(max_size=40),
)
def test_any_text_and_query_give_an_excerpt_of_the_text(text: str, query: str) -> None:
    got = snippet(text, query, size=6)
    assert got.replace("**", "").strip("…").strip() in unicodedata.normalize("NFC", text)


def test_search_hits_carry_snippets_of_their_content(service: MemoryService, project: str) -> None:
    service.add(
        project,
        make_draft("Run alembic upgrade head after pulling", title="Database migrations"),
        "a",
    )
    [hit] = service.search.query(project, "alembic")
    assert hit.snippet == "Run **alembic** upgrade head after pulling"
    [by_title] = service.search.query(project, "migrations")
    assert by_title.snippet == "Run alembic upgrade head after pulling"  # hit in the title


def test_expired_memories_ranked_first_do_not_hide_the_active_one(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    """Expired memories stay indexed until purged; more of them than the search first
    ranks must not leave the active match out."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()
    for n in range(30):  # distinct texts, so that none supersedes another
        text = f"zeppelin zeppelin {words[n % 12]} {words[n // 12]} {n}"
        service.add(project, make_draft(text, title="Zeppelin", ttl_days=1), "a")
    assert service.count_memories(project) >= 20  # more than one ranked window (1 + 8)
    active = service.add(project, make_draft("one mention of a zeppelin somewhere"), "a").memory
    clock.advance(days=2)
    assert [h.memory.id for h in service.search.query(project, "zeppelin", limit=1)] == [active.id]


def test_a_query_typed_with_combining_accents_finds_the_word(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("Update the résumé template"), "a").memory
    [hit] = service.search.query(project, "re\u0301sume\u0301")  # NFD, as pasted on macOS
    assert hit.memory.id == memory.id
    assert "**résumé**" in hit.snippet
