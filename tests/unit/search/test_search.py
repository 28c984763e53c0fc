"""Search that people and agents can use: any input, natural language, word forms, CJK."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.search.query import parse_query, word_root
from ltm_desktop.core.service import MemoryService
from ltm_desktop.store.fts.query import match_all, match_any, match_two
from ltm_desktop.store.fts.text import TOKENIZER
from tests.conftest import FakeClock, make_draft

CORPUS = {
    "deploy": "We deploy the app to production with ./scripts/deploy.sh every Tuesday",
    "runner": "The user prefers pytest as the test runner for this repository",
    "sqlite": "node:sqlite is experimental; use better-sqlite3 in the CLI",
    "cpp": "The engine is written in C++ and built with CMake",
    "apostrophe": "Don't commit .env files; they hold the user's secrets",
    "emoji": "Release notes use 🚀 for features and 🐛 for fixes",
    "migration": "Database migrations live in db/migrations and run with alembic upgrade head",
    "zh": "数据库连接池的大小设置为20，超时时间为30秒",
    "ja": "デプロイの前に必ずテストを実行すること",
    "ko": "데이터베이스마이그레이션은배포전에실행합니다",
}


@pytest.fixture
def ids(service: MemoryService, project: str) -> dict[str, str]:
    return {
        key: service.add(project, make_draft(text), "agent").memory.id
        for key, text in CORPUS.items()
    }


def found(service: MemoryService, project: str, query: str, **kwargs: object) -> list[str]:
    return [hit.memory.id for hit in service.search.query(project, query, **kwargs)]  # type: ignore[arg-type]


HOSTILE = [
    '"',
    '""',
    '"unbalanced',
    "-",
    "--",
    "-deploy",
    ":",
    "col:",
    "title:deploy",
    "*",
    "**",
    "deplo*",
    "(",
    ")",
    "((deploy",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b)",
    "deploy AND",
    "OR deploy",
    "NOT deploy",
    "a NEAR/2 b",
    "C++",
    "node:sqlite",
    "don't",
    "user's",
    "🚀",
    "🚀🐛",
    "^deploy",
    "{title}:x",
    "deploy + test",
    "\\",
    "'",
    "''",
    "%",
    "_",
    "[x]",
    "\t",
    "   ",
    "",
    "\u200b",
    "x" * 5000,
    "\x01\x02",
    "\ud800",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_any_input_is_accepted(
    service: MemoryService, project: str, ids: dict[str, str], query: str
) -> None:
    hits = service.search.query(project, query, limit=10)
    assert isinstance(hits, list)


@pytest.mark.parametrize("query", ["", "   ", "\n\t", None, 42])
def test_empty_queries_return_nothing(
    service: MemoryService, project: str, ids: dict[str, str], query: object
) -> None:
    assert service.search.query(project, query) == []


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("C++", "cpp"),
        ("node:sqlite", "sqlite"),
        ("don't", "apostrophe"),
        ("user's secrets", "apostrophe"),
        ("🚀 release", "emoji"),
        ('"test runner"', "runner"),
        ("NEAR production", "deploy"),
        ("deploy AND production", "deploy"),
    ],
)
def test_special_characters_search_as_text(
    service: MemoryService, project: str, ids: dict[str, str], query: str, key: str
) -> None:
    assert found(service, project, query)[0] == ids[key]


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("how do we deploy the app to production?", "deploy"),
        ("which test runner does the user prefer for this repo?", "runner"),
        ("where do the database migrations live?", "migration"),
    ],
)
def test_natural_language_questions_find_the_memory(
    service: MemoryService, project: str, ids: dict[str, str], query: str, key: str
) -> None:
    assert found(service, project, query)[0] == ids[key]


@pytest.mark.parametrize("query", ["deploying", "deployment", "deployed", "deploys"])
def test_word_forms_match(
    service: MemoryService, project: str, ids: dict[str, str], query: str
) -> None:
    assert ids["deploy"] in found(service, project, query)


@pytest.mark.parametrize("query", ["migr*", "alemb*", "prod*", "pytes*"])
def test_prefixes_match(
    service: MemoryService, project: str, ids: dict[str, str], query: str
) -> None:
    assert found(service, project, query)


def test_typing_treats_the_last_word_as_a_prefix(
    service: MemoryService, project: str, ids: dict[str, str]
) -> None:
    assert found(service, project, "ale") == []
    assert found(service, project, "ale", typing=True) == [ids["migration"]]


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("数据库", "zh"),
        ("连接", "zh"),
        ("超时时间", "zh"),
        ("テスト", "ja"),
        ("実行", "ja"),
        ("마이그레이션", "ko"),
        ("배포", "ko"),
    ],
)
def test_cjk_words_inside_longer_runs(
    service: MemoryService, project: str, ids: dict[str, str], query: str, key: str
) -> None:
    hits = service.search.query(project, query)
    assert [h.memory.id for h in hits] == [ids[key]]
    assert f"**{query}**" in hits[0].snippet


def test_exclusion(service: MemoryService, project: str, ids: dict[str, str]) -> None:
    assert ids["runner"] in found(service, project, "user")
    assert ids["runner"] not in found(service, project, "user -pytest")


def test_hits_have_score_and_marked_snippet(
    service: MemoryService, project: str, ids: dict[str, str]
) -> None:
    [hit] = service.search.query(project, "alembic")
    assert hit.score > 0
    assert "**alembic**" in hit.snippet


def test_title_weighs_more_than_content(service: MemoryService, project: str) -> None:
    body = service.add(
        project,
        make_draft("Notes mention kubernetes once among other words here", title="Misc"),
        "a",
    )
    title = service.add(
        project, make_draft("Cluster notes and other words here too", title="Kubernetes"), "a"
    )
    assert found(service, project, "kubernetes") == [title.memory.id, body.memory.id]


def test_full_matches_rank_before_partial_ones(service: MemoryService, project: str) -> None:
    partial = service.add(project, make_draft("redis redis redis redis cache"), "a").memory.id
    full = service.add(
        project, make_draft("redis sentinel failover configuration and more words"), "a"
    ).memory.id
    assert found(service, project, "redis sentinel") == [full, partial]


def test_scope_covers_project_and_global_only(service: MemoryService, project: str) -> None:
    other = service.resolve_scope(cwd="/home/dev/src/other", register=True)
    mine = service.add(project, make_draft("kafka topic naming uses dots"), "a").memory.id
    glob = service.add(
        GLOBAL_PROJECT_ID, make_draft("kafka consumers must be idempotent"), "a"
    ).memory.id
    service.add(other, make_draft("kafka retention is seven days"), "a")
    assert set(found(service, project, "kafka")) == {mine, glob}
    assert found(service, project, "kafka", include_global=False) == [mine]
    assert found(service, GLOBAL_PROJECT_ID, "kafka") == [glob]


def test_disabled_and_expired_never_appear(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    removed = service.add(project, make_draft("grafana dashboard one"), "a").memory
    service.remove(removed.id, "gui")
    service.add(project, make_draft("grafana dashboard two", ttl_days=1), "a")
    kept = service.add(project, make_draft("grafana alerts three"), "a").memory
    clock.advance(days=2)
    assert found(service, project, "grafana") == [kept.id]


def test_limit_is_respected_and_validated(service: MemoryService, project: str) -> None:
    for i in range(12):
        service.add(project, make_draft(f"pagination item {i} with filler{i}"), "a")
    assert len(service.search.query(project, "pagination", limit=10)) == 10
    assert len(service.search.query(project, "pagination")) == 5
    for bad in (0, 101, -1, "5", True):
        with pytest.raises(ValueError, match="limit"):
            service.search.query(project, "pagination", limit=bad)


def test_agent_search_reinforces_but_browsing_does_not(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("terraform state lives in s3"), "a").memory
    service.search.query(project, "terraform")
    assert service.get(memory.id).use_count == 0
    [hit] = service.search.query(project, "terraform", reinforce=True)
    stored = service.get(memory.id)
    assert hit.memory.use_count == stored.use_count == 1
    assert stored.last_used_at is not None
    assert [e.action for e in service.history.memory(memory.id)] == [
        "created"
    ]  # not an audit event


def test_word_root() -> None:
    assert word_root("deploying") == word_root("deployment") == word_root("deployed") == "deploy"
    assert word_root("app") == "app"
    assert word_root("v2.1") == "v2.1"
    assert word_root("formatting") == word_root("formats") == "format"  # doubled consonant
    assert word_root("committed") == "commit"


SPECIAL = {
    "--force-with-lease": "Never push --force on shared branches; use git push --force-with-lease",
    "v2.1.0": "The current release is v2.1.0, tagged from main",
    "C++": "The image resizer is written in C++ and built with CMake",
    "@scope/pkg": "UI components come from the @scope/pkg package on the internal registry",
    "src/app.py": "The web server starts in src/app.py, which builds the Flask app",
    "foo_bar": "The flag helper is foo_bar in flags.py",
    "#123": "test_upload_retry is flaky on CI, tracked in issue #123",
}


@pytest.mark.parametrize("query", sorted(SPECIAL))
def test_options_versions_paths_packages_and_code_tokens_find_their_memory(
    service: MemoryService, project: str, query: str
) -> None:
    """Typed as they appear in the text: an option is not an exclusion, punctuation joins."""
    ids = {
        key: service.add(project, make_draft(text), "a").memory.id for key, text in SPECIAL.items()
    }
    for i in range(20):  # neighbours sharing the plain words
        service.add(
            project, make_draft(f"force push release scope package app flag issue {i}"), "a"
        )
    assert service.search.query(project, query)[0].memory.id == ids[query]


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_compiled_queries_never_raise_in_fts5(text: str) -> None:
    """Property: for any string, the compiled MATCH expressions are valid FTS5, both on a
    scope's own table and on the shared (scope-filtered) observation table."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE m USING fts5(title, content, tags, tokenize='{TOKENIZER}')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE o USING fts5(title, narrative, scope, tokenize='{TOKENIZER}')"
        )
        conn.execute("INSERT INTO m VALUES ('a b', 'deploy the app', '')")
        conn.execute("INSERT INTO o VALUES ('a b', 'deploy the app', 's1')")
        for typing in (False, True):
            query = parse_query(text, typing=typing)
            if query.is_empty:
                continue
            for match in (match_all(query), match_any(query), match_two(query)):
                conn.execute("SELECT rowid FROM m WHERE m MATCH ?", (match,)).fetchall()
            for match in (match_all(query, [1, 2]), match_any(query, [1])):
                conn.execute("SELECT rowid FROM o WHERE o MATCH ?", (match,)).fetchall()
    finally:
        conn.close()


def test_service_search_never_raises(
    service: MemoryService, project: str, ids: dict[str, str]
) -> None:
    """Property: any text, through the real service and database, returns a list."""

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=60), st.booleans())
    def check(text: str, typing: bool) -> None:
        hits = service.search.query(project, text, limit=10, typing=typing)
        assert all(hit.memory.project_id in (project, GLOBAL_PROJECT_ID) for hit in hits)

    check()


def test_two_of_three_terms_rank_before_one(service: MemoryService, project: str) -> None:
    one = service.add(project, make_draft("nginx nginx nginx nginx nginx only"), "a").memory.id
    two = service.add(
        project, make_draft("nginx reload needs sudo and some other words"), "a"
    ).memory.id
    assert found(service, project, "nginx reload certificate", limit=10) == [two, one]
