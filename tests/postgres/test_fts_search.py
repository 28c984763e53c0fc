"""Search by words on PostgreSQL finds what SQLite finds: the same memories, in the same
stage, for every kind of query term, filter and scope, with the same snippets."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    GUI_ACTOR,
    Category,
    Memory,
    ObservationKind,
    SearchFilter,
)
from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.core.search.query import parse_query
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.fts import search as fts_search
from ltm_desktop.postgres.fts.document import (
    MEMORY_DOCUMENT_SQL,
    OBSERVATION_DOCUMENT_SQL,
    memory_document_params,
    observation_document_params,
)
from ltm_desktop.postgres.scopes import ScopeKeys
from ltm_desktop.store import open_store

NOW = 1_800_000_000.0
PROJECT = "proj_fts"
OTHER = "proj_other"

# (title, content, tags) of active memories of PROJECT; keys name them in the tests.
TEXTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "deploy": ("Deploys", "We deploy the app to production with ./scripts/deploy.sh", ()),
    "deployment": ("Release", "The deployment pipeline runs nightly and redeploys staging", ()),
    "deployed": ("Staging", "Everything deployed to staging is wiped on Sunday", ("ops",)),
    "runner": ("Tests", "The user prefers pytest as the test runner for this repository", ()),
    "sqlite": ("Node", "node:sqlite is experimental; use better-sqlite3 in the CLI", ()),
    "cpp": ("Engine", "The image resizer is written in C++ and built with CMake", ("cpp",)),
    "apostrophe": ("Env", "Don't commit .env files; they hold the user's secrets", ()),
    "emoji": ("Notes", "Release notes use 🚀 for features and 🐛 for fixes", ()),
    "migration": ("DB", "Database migrations live in db/migrations, run with alembic", ()),
    "zh": ("配置", "数据库连接池的大小设置为20，超时时间为30秒", ()),
    "ja": ("手順", "デプロイの前に必ずテストを実行すること", ()),
    "ko": ("배포", "데이터베이스마이그레이션은배포전에실행합니다", ()),
    "lease": ("Git", "Never push --force on shared branches; use git push --force-with-lease", ()),
    "version": ("Release", "The current release is v2.1.0, tagged from main", ("release",)),
    "scope": ("UI", "UI components come from the @scope/pkg package on the registry", ()),
    "path": ("Server", "The web server starts in src/app.py, which builds the Flask app", ()),
    "snake": ("Flags", "The flag helper is foo_bar in flags.py", ()),
    "issue": ("Flaky", "test_upload_retry is flaky on CI, tracked in issue #123", ()),
    "cafe": ("Café", "The café's Wi-Fi blocks port 22; use the résumé VPN", ()),
    "apps": ("Apps", "Both apps share one login; the app list lives in apps.toml", ()),
    "kube_title": ("Kubernetes", "Cluster notes for the team", ("infra",)),
    "kube_body": ("Misc", "Notes mention kubernetes once among other words here", ()),
    "kube_tag": ("Cluster", "How the cluster is upgraded", ("kubernetes",)),
    "nginx_one": ("Web", "nginx nginx nginx nginx nginx only", ()),
    "nginx_two": ("Proxy", "nginx reload needs sudo and some other words", ()),
    "nginx_three": ("TLS", "nginx reload after the certificate renewal", ()),
    "format": ("Style", "Formatting is done by ruff format; formats on save", ("style",)),
    "commit": ("Hooks", "Committed files are checked by pre-commit before every commit", ()),
    "numbers": ("Ports", "The API listens on 8080 and the admin on 9090", ()),
    "wifi": ("Wi-Fi", "The office wifi password rotates monthly", ()),
    "s3": ("Storage", "Backups go to s3 in eu-west-1, kept 30 days", ("s3",)),
    "deep": ("Deep", "A phrase deep in the text: " + "filler " * 60 + "needle in a haystack", ()),
}
# Memories that only some searches may see (key: (title, content, tags, what differs)).
REMOVED = ("Old deploy", "We used to deploy with Capistrano to production", ())
EXPIRED = ("Old deploy", "Deploy freeze for the holidays until January", ())
GLOBAL_TEXT = ("Global", "Always deploy from a clean checkout of main", ())
OTHER_TEXT = ("Other", "The other project deploys to production too", ())


def _memory(number: int, scope: str, text: tuple[str, str, tuple[str, ...]]) -> Memory:
    title, content, tags = text
    created = NOW - 86_400 * 10 + number
    return Memory(
        id=f"mem_{number:04d}",
        project_id=scope,
        title=title,
        content=content,
        category=Category.PREFERENCE if "user" in content else Category.KNOWLEDGE,
        importance=5,
        tags=tags,
        signature=f"sig{number}",
        created_at=created,
        updated_at=created,
        last_used_at=None,
        use_count=0,
        ttl_days=None,
        disabled=False,
        source=GUI_ACTOR if number % 2 else "agent",
        superseded_by=None,
    )


def corpus() -> dict[str, Memory]:
    memories = {key: _memory(i, PROJECT, text) for i, (key, text) in enumerate(TEXTS.items())}
    n = len(memories)
    memories["removed"] = replace(
        _memory(n, PROJECT, REMOVED), disabled=True, disabled_at=NOW - 100
    )
    memories["expired"] = replace(_memory(n + 1, PROJECT, EXPIRED), ttl_days=1)
    memories["global"] = _memory(n + 2, GLOBAL_PROJECT_ID, GLOBAL_TEXT)
    memories["other"] = _memory(n + 3, OTHER, OTHER_TEXT)
    return memories


_INSERT = (
    "INSERT INTO memories (id, project_pk, title, content, category, importance, tags, "
    "signature, created_at, updated_at, last_used_at, use_count, ttl_days, expires_at, "
    "disabled, disabled_at, source, token_count, files, search) "
    f"VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, '[]', "
    f"{MEMORY_DOCUMENT_SQL}) RETURNING pk"
)


def scope_pk(conn: Conn, project_id: str) -> int:
    row = conn.execute(
        "INSERT INTO projects (project_id, name, created_at) VALUES (%s, %s, 0) "
        "ON CONFLICT (project_id) DO UPDATE SET name = excluded.name RETURNING pk",
        (project_id, project_id),
    ).fetchone()
    assert row is not None
    return int(row[0])


def insert_pg(conn: Conn, memories: Sequence[Memory], tokens: bool = True) -> None:
    """The rows a write makes, written here with SQL (the write path is not under test)."""
    for m in memories:
        words = sorted(similarity_tokens(m.content))
        pk = scope_pk(conn, m.project_id)
        row = conn.execute(
            _INSERT,
            (
                m.id,
                pk,
                m.title,
                m.content,
                m.category.value,
                m.importance,
                json.dumps(list(m.tags)),
                m.signature,
                m.created_at,
                m.updated_at,
                m.last_used_at,
                m.use_count,
                m.ttl_days,
                m.expires_at,
                int(m.disabled),
                m.disabled_at,
                m.source,
                len(words),
                *memory_document_params(m.title, m.content, m.tags, project_pk=pk),
            ),
        ).fetchone()
        assert row is not None
        conn.execute(
            "INSERT INTO memory_tags (tag, memory_pk) SELECT unnest(%s::text[]), %s",
            (list(m.tags), row[0]),
        )
        conn.execute(
            "INSERT INTO memory_index (memory_pk, project_pk, seq, tokens) "
            "VALUES (%s, %s, nextval('memory_index_seq'), %s)",
            (row[0], pk, words if tokens else None),
        )


Engines = tuple[MemoryStore, PgDatabase, ScopeKeys]


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory, pg_server_url: str) -> Iterator[Engines]:
    """The same memories (and observations) in a SQLite store and in PostgreSQL, made
    once for the module: the tests only read."""
    memories = list(corpus().values())
    tmp_path = tmp_path_factory.mktemp("fts")
    store = open_store(tmp_path / "ltm.sqlite", tmp_path / "backups")
    with store.write() as txn:
        for m in memories:
            txn.insert_memory(m, similarity_tokens(m.content))
    with scratch_database(pg_server_url) as url:
        db = PgDatabase(url)
        with db.transaction() as conn:
            insert_pg(conn, memories)
        add_observations(store, db)
        yield store, db, ScopeKeys()
        db.close()
    store.close()


@contextmanager
def scratch_database(server: str) -> Iterator[str]:
    """A new, empty database on the test server (as ``pg_url``, for a whole module)."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"ltm_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    try:
        yield make_conninfo(server, dbname=name)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


Found = list[tuple[str, int]]  # (id, stage)


def both(
    engines: Engines,
    text: str,
    limit: int = 50,
    where: SearchFilter | None = None,
    scopes: Sequence[str] = (PROJECT, GLOBAL_PROJECT_ID),
    typing: bool = False,
) -> tuple[Found, Found]:
    store, db, keys = engines
    query = parse_query(text, typing=typing)
    sqlite = store.search_memories(scopes, query, limit, NOW, where)
    pg = db.read(
        lambda c: fts_search.search_memories(c, keys.pks(c, scopes), query, limit, NOW, where)
    )
    return ([(m.id, stage) for m, _, _, stage in sqlite], [(m.id, stage) for m, _, _, stage in pg])


def keyed(found: Found) -> set[tuple[str, int]]:
    by_id = {m.id: key for key, m in corpus().items()}
    return {(by_id[memory_id], stage) for memory_id, stage in found}


QUERIES = [
    # words and their forms
    "deploy",
    "deploying",
    "deployments",
    "redeploys",
    "deploy production",
    "how do we deploy the app to production?",
    "which test runner does the user prefer for this repo?",
    "where do the database migrations live?",
    "formatting",
    "committed",
    "app",
    "apps",
    "user",
    "the",
    # prefixes and phrases
    "deplo*",
    "migra*",
    "s*",
    '"test runner"',
    '"runner test"',
    '"deploy the app"',
    '"needle in a haystack"',
    '"wi fi"',
    # special tokens typed as they appear
    "--force-with-lease",
    "--force",
    "v2.1.0",
    "v2.1",
    "C++",
    "@scope/pkg",
    "src/app.py",
    "app.py",
    "foo_bar",
    "#123",
    "node:sqlite",
    "don't",
    "user's secrets",
    "🚀 release",
    "Wi-Fi",
    "8080",
    "s3",
    # accents, CJK
    "café",
    "cafe",
    "resume",
    "résumé",
    "数据库",
    "连接池",
    "超时",
    "テスト",
    "実行",
    "마이그레이션",
    "배포",
    "配置",
    # stages and exclusions
    "nginx reload certificate",
    "nginx reload",
    "nginx -certificate",
    "deploy -staging",
    "deploy -production -staging",
    "user -pytest",
    "kubernetes",
    "kubernetes cluster notes",
    "release tagged main fixes",
    # syntax that is text
    "deploy AND production",
    "NEAR production",
    "NOT deploy",
    "title:deploy",
    "(deploy",
    '"unbalanced',
    "x*",
    "-",
    "--",
]


@pytest.mark.parametrize("text", QUERIES)
def test_the_same_memories_are_found_in_the_same_stage(engines: Engines, text: str) -> None:
    sqlite, pg = both(engines, text)
    assert keyed(pg) == keyed(sqlite)


@pytest.mark.parametrize("text", ["deplo", "migrat", "kube", "配", "nginx rel"])
def test_typing_makes_the_last_word_a_prefix_on_both(engines: Engines, text: str) -> None:
    sqlite, pg = both(engines, text, typing=True)
    assert keyed(pg) == keyed(sqlite)
    assert pg


@pytest.mark.parametrize(
    "where",
    [
        SearchFilter(category="preference"),
        SearchFilter(category="knowledge"),
        SearchFilter(tag="ops"),
        SearchFilter(tag="kubernetes"),
        SearchFilter(new_since=NOW - 86_400 * 11),
        SearchFilter(include_expired=True),
        SearchFilter(include_disabled=True),
        SearchFilter(include_disabled=True, include_expired=True, category="knowledge"),
    ],
)
@pytest.mark.parametrize("text", ["deploy", "user", "kubernetes", "deploy production -staging"])
def test_filters_narrow_and_widen_alike(engines: Engines, where: SearchFilter, text: str) -> None:
    sqlite, pg = both(engines, text, where=where)
    assert keyed(pg) == keyed(sqlite)


def test_removed_and_expired_memories_only_when_asked(engines: Engines) -> None:
    assert {"removed", "expired"}.isdisjoint(key for key, _ in keyed(both(engines, "deploy")[1]))
    _, widened = both(engines, "deploy", where=SearchFilter(include_disabled=True))
    assert list(keyed(widened))
    assert widened[-1] == (corpus()["removed"].id, 0)  # after every active one
    _, expired = both(engines, "freeze", where=SearchFilter(include_expired=True))
    assert [memory_id for memory_id, _ in expired] == [corpus()["expired"].id]


@pytest.mark.parametrize(
    "scopes", [(PROJECT,), (GLOBAL_PROJECT_ID,), (PROJECT, GLOBAL_PROJECT_ID, OTHER), ("nope",)]
)
def test_only_the_scopes_asked_for(engines: Engines, scopes: tuple[str, ...]) -> None:
    sqlite, pg = both(engines, "deploy production", scopes=scopes)
    assert keyed(pg) == keyed(sqlite)
    assert pg == sorted(pg, key=lambda hit: (hit[1], scopes.index(corpus_scope(hit[0]))))


def corpus_scope(memory_id: str) -> str:
    return next(m.project_id for m in corpus().values() if m.id == memory_id)


@pytest.mark.parametrize(
    ("text", "limit"),
    [("nginx reload certificate", 1), ("nginx reload certificate", 2), ("deploy", 1)],
)
def test_a_later_stage_runs_only_while_too_few_were_found(
    engines: Engines, text: str, limit: int
) -> None:
    sqlite, pg = both(engines, text, limit=limit, scopes=(PROJECT,))
    assert [stage for _, stage in pg] == [stage for _, stage in sqlite]
    assert len(pg) == limit


def test_each_scope_gets_its_own_limit(engines: Engines) -> None:
    sqlite, pg = both(engines, "deploy", limit=2, scopes=(PROJECT, GLOBAL_PROJECT_ID))
    assert len(pg) == len(sqlite) == 3
    assert pg[-1] == (corpus()["global"].id, 0)


def ranked(engines: Engines, text: str) -> list[str]:
    by_id = {m.id: key for key, m in corpus().items()}
    return [by_id[memory_id] for memory_id, _ in both(engines, text, scopes=(PROJECT,))[1]]


def test_title_weighs_more_than_tags_and_tags_more_than_text(engines: Engines) -> None:
    assert ranked(engines, "kubernetes") == ["kube_title", "kube_tag", "kube_body"]


def test_more_terms_rank_first(engines: Engines) -> None:
    assert ranked(engines, "nginx reload certificate") == ["nginx_three", "nginx_two", "nginx_one"]


@pytest.mark.parametrize("text", ["deploying production", "数据库", "--force-with-lease", "café"])
def test_snippets_are_sqlites(engines: Engines, text: str) -> None:
    store, db, keys = engines
    query = parse_query(text)
    sqlite = store.search_memories([PROJECT], query, 50, NOW)
    pg = db.read(lambda c: fts_search.search_memories(c, keys.pks(c, [PROJECT]), query, 50, NOW))
    assert {m.id: s for m, _, s, _ in pg} == {m.id: s for m, _, s, _ in sqlite}
    assert all("**" in snippet for _, _, snippet, _ in pg)


def test_scores_are_higher_for_better_hits(engines: Engines) -> None:
    _, db, keys = engines
    query = parse_query("kubernetes")
    hits = db.read(lambda c: fts_search.search_memories(c, keys.pks(c, [PROJECT]), query, 9, NOW))
    scores = [score for _, score, _, _ in hits]
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] > 0


# -- observations ------------------------------------------------------------------------

OBSERVATIONS = [
    ("Deployed the billing service", "Ran ./deploy.sh; production healthy after v2.1.0"),
    ("Fixed flaky test", "test_upload_retry needed a longer timeout on CI"),
    ("Migrations", "Added a migration for the invoices table; alembic upgrade head"),
    ("数据库", "连接池的大小设置为20"),
    ("Forgotten deploy", "This one was forgotten and must not be found"),
]


def add_observations(store: MemoryStore, db: PgDatabase) -> None:
    for number, (title, narrative) in enumerate(OBSERVATIONS):
        payload = ObservationPayload(ObservationKind.AGENT_END, "s1", title, narrative)
        scope = OTHER if number == 1 else PROJECT
        made = store.add_observation(scope, payload, "agent", NOW + number)
        with db.transaction() as conn:
            conn.execute(
                "INSERT INTO observations (id, project_pk, session_id, kind, title, narrative, "
                f"created_at, source, search) VALUES (%s, %s, 's1', 'agent_end', %s, %s, %s, "
                f"'agent', {OBSERVATION_DOCUMENT_SQL})",
                (
                    made.id,
                    scope_pk(conn, scope),
                    title,
                    narrative,
                    NOW + number,
                    *observation_document_params(title, narrative),
                ),
            )
        if title.startswith("Forgotten"):
            store.forget_observation(made.id, "gui", NOW + 10)
            with db.transaction() as conn:
                conn.execute("UPDATE observations SET disabled = 1 WHERE id = %s", (made.id,))


@pytest.mark.parametrize(
    "text",
    [
        "deploy",
        "v2.1.0",
        "flaky test",
        "alembic migration",
        "数据库",
        "连接池",
        "deploy timeout",
        "x",
    ],
)
@pytest.mark.parametrize("scopes", [(PROJECT,), (PROJECT, OTHER)])
def test_observations_are_found_alike(engines: Engines, text: str, scopes: tuple[str, ...]) -> None:
    store, db, keys = engines
    query = parse_query(text)
    sqlite = store.search_observations(scopes, query, 10)
    pg = db.read(lambda c: fts_search.search_observations(c, keys.pks(c, scopes), query, 10))
    assert {o.id: s for o, _, s in pg} == {o.id: s for o, _, s in sqlite}
    assert all(not o.disabled for o, _, _ in pg)


_VOCABULARY = sorted(
    {w for title, content, tags in TEXTS.values() for w in f"{title} {content}".split()}
    | {"deplo", "migr", "kube", "nginx", "数据", "テ", "-", "--", "*", '"', "AND", "NOT"}
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(_VOCABULARY), st.sampled_from(["", "-", "*", '"'])),
        min_size=1,
        max_size=5,
    ),
    typing=st.booleans(),
)
def test_any_query_finds_the_same_memories(
    engines: Engines, pieces: list[tuple[str, str]], typing: bool
) -> None:
    """Property: words of the corpus, cut, negated, starred or quoted in any mix."""
    text = " ".join(
        f"-{word}" if mark == "-" else f"{word}*" if mark == "*" else f'"{word}' if mark else word
        for word, mark in pieces
    )
    sqlite, pg = both(engines, text, typing=typing)
    assert keyed(pg) == keyed(sqlite)


def test_a_negated_term_leaves_the_order_and_scores_alone(engines: Engines) -> None:
    """ts_rank scores an ``&`` by its terms' distances, a ``!`` term's too: every hit
    scored 0 until hits were scored by the positive terms alone."""
    _, db, keys = engines

    def scored(text: str) -> list[tuple[str, float]]:
        query = parse_query(text)
        hits = db.read(
            lambda c: fts_search.search_memories(c, keys.pks(c, [PROJECT]), query, 9, NOW)
        )
        return [(m.id, score) for m, score, _, _ in hits]

    assert scored("kubernetes -nginx") == scored("kubernetes")
    assert all(score > 0 for _, score in scored("deploy -staging -nginx"))
