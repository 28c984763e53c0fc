"""``ltm-desktop migrate``: a data dir's database to PostgreSQL and back, on a real server.

The round trip is checked through the stores' own reads (every memory, every version,
every audit event), the vectors' stored bytes, searches, and ``verify`` on each end.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.cli import main
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store
from tests.console import CONSOLE_SCRIPT, assert_one_error_line
from tests.doubles.embedders import WordHashEmbedder
from tests.pg_server import fresh_database

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
    "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu cargo pytest "
    "ruff mypy docker kubernetes postgres sqlite redis kafka nginx"
).split()
PASSWORD_MARK = "pw-never-shown-7f3a"


def migrate(data_dir: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real console script."""
    return subprocess.run(
        [CONSOLE_SCRIPT, "migrate", *args, "--data-dir", str(data_dir), "--config", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """Searches by words only: the command's backfill then keeps the copied vectors (a
    test model's) instead of embedding everything again with the shipped one."""
    path = tmp_path / "config.toml"
    path.write_text('[search]\nembedder = "none"\n', encoding="utf-8")
    return path


def fill(data_dir: Path) -> tuple[str, list[str]]:
    """A data dir with removed, superseded, edited and erased memories, tags, files,
    observations, a proposal, runs and vectors; (its project, every memory id written)."""
    paths = DataPaths(data_dir)
    data_dir.mkdir(parents=True)
    service = MemoryService(
        open_store(paths.db_path, paths.backup_dir), paths, embedder=WordHashEmbedder()
    )
    service.start()
    try:
        project = service.resolve_scope(cwd=str(data_dir), register=True)
        rng = random.Random(7)
        ids = []
        for i in range(40):
            text = " ".join(rng.sample(WORDS, 8))
            draft = MemoryDraft(
                content=f"{text} note{i}",
                title=f"Note {i} {text.split()[0]}",
                tags=(f"t{i % 3}", "ops"),
                files=("src/app.py",) if i % 5 == 0 else (),
            )
            ids.append(service.add(project, draft, "cli").memory.id)
        ids.append(
            service.add(GLOBAL_PROJECT_ID, MemoryDraft(content="Tabs over spaces"), "cli").memory.id
        )
        service.remove(ids[0], "cli")
        service.remove(ids[1], "cli")
        service.eraser.erase(ids[1], "cli")
        service.update(ids[2], {"content": "changed: release with make release via docker"}, "cli")
        again = service.get(ids[5])
        added = service.add(
            project, MemoryDraft(content=again.content + " today", title=again.title), "cli"
        )
        assert added.status == "superseded"
        ids.append(added.memory.id)

        def provenance(agent: str) -> Provenance:
            return Provenance(
                run_id=new_run_id(service.now()),
                agent=agent,
                session_id="s1",
                source="/tmp/t.jsonl",
                model="llama3",
                extracted_at=service.now(),
            )

        entries = [{"title": "Lint", "content": "Run ruff check before committing"}]
        service.inbox.store_extraction(
            project, entries, provenance("claude-code"), review=True, started_at=service.now()
        )
        service.inbox.record_failed_extraction(
            project, provenance("codex"), "timeout", started_at=service.now()
        )
        service.observations.record(
            project,
            "agent_end",
            "sess-1",
            "claude-code",
            user_text="how to deploy?",
            assistant_text="with make deploy from main",
        )
        assert service.integrity.verify(quick=False).problems == ()
    finally:
        service.close()
    return project, ids


@contextmanager
def opened(data_dir: Path | None = None, url: str | None = None) -> Iterator[MemoryStore]:
    if url is not None:
        from ltm_desktop.postgres import open_postgres_store

        store: MemoryStore = open_postgres_store(url, backup_dir=Path("/nonexistent"), create=False)
    else:
        assert data_dir is not None
        paths = DataPaths(data_dir)
        store = open_store(paths.db_path, paths.backup_dir, create=False)
    try:
        yield store
    finally:
        store.close()


def contents(store: MemoryStore, ids: list[str]) -> dict[str, Any]:
    """What a person or an agent can read of the memories and their history."""
    return {
        "memories": sorted(store.get_memories(ids), key=lambda memory: memory.id),
        "histories": [store.memory_history(memory_id) for memory_id in ids],
        "events": store.events_after(0, 100_000),
        "projects": store.list_projects(),
        "paths": [store.project_paths(p.project_id) for p in store.list_projects()],
    }


def sqlite_vectors(data_dir: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(DataPaths(data_dir).db_path) as conn:
        return conn.execute(
            "SELECT memory_pk, model, vector FROM memory_index WHERE vector IS NOT NULL "
            "ORDER BY memory_pk"
        ).fetchall()


def pg_vectors(url: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT i.memory_pk, v.name, i.vector FROM memory_index AS i "
            "JOIN vector_models AS v ON v.pk = i.model_pk ORDER BY i.memory_pk"
        ).fetchall()
    return [(pk, name, bytes(vector)) for pk, name, vector in rows]


def found(store: MemoryStore, project: str, words: str) -> set[str]:
    from ltm_desktop.core.search.query import parse_query

    hits = store.search_memories([project], parse_query(words), 50, 1e12)
    return {hit[0].id for hit in hits}


@pytest.mark.slow
def test_a_data_dir_goes_to_postgresql_and_back_unchanged(
    tmp_path: Path, config: Path, pg_url: str
) -> None:
    source = tmp_path / "source"
    project, ids = fill(source)

    there = migrate(source, config, "--to", pg_url)
    assert there.returncode == 0, there.stderr
    assert "memories: 41 of 41" in there.stdout
    assert ": 0 problem(s)" in there.stdout
    back = tmp_path / "back"
    assert (
        main(["migrate", "--from", pg_url, "--data-dir", str(back), "--config", str(config)]) == 0
    )

    with opened(source) as sqlite, opened(url=pg_url) as pg, opened(back) as again:
        before = contents(sqlite, ids)
        assert len(before["memories"]) == len(ids) - 1  # the erased one is gone
        assert [p.path for paths in before["paths"] for p in paths] == [str(source)]
        assert any(
            e.after == {"erased_at": e.after["erased_at"], "erased_by": "cli"}
            for e in before["events"]
            if e.after and "erased_at" in e.after
        )
        assert contents(pg, ids) == before
        assert contents(again, ids) == before
        assert pg.verify(quick=False).problems == ()
        assert again.verify(quick=False).problems == ()
        assert sqlite.verify(quick=False).head == pg.verify(quick=False).head
        for words in ("docker", "ruff mypy", "release", "tabs"):
            scope = GLOBAL_PROJECT_ID if words == "tabs" else project
            assert found(pg, scope, words) == found(sqlite, scope, words) != set()
            assert found(again, scope, words) == found(sqlite, scope, words)
    assert pg_vectors(pg_url) == sqlite_vectors(source) == sqlite_vectors(back)


@pytest.mark.slow
def test_a_target_that_holds_data_is_refused_and_left_as_it_was(
    tmp_path: Path, config: Path, pg_url: str
) -> None:
    source = tmp_path / "source"
    fill(source)
    assert migrate(source, config, "--to", pg_url).returncode == 0
    with opened(url=pg_url) as pg:
        events = pg.events_after(0, 100_000)

    again = migrate(source, config, "--to", pg_url)
    assert_one_error_line(again, "is not empty", "memories", "nothing was changed")
    assert "dev@" not in again.stderr + again.stdout
    with opened(url=pg_url) as pg:
        assert pg.events_after(0, 100_000) == events

    into_source = migrate(source, config, "--from", pg_url)
    assert_one_error_line(into_source, "already has a database", "--data-dir")


@pytest.mark.slow
def test_bad_urls_unreachable_servers_and_foreign_databases_are_one_line_each(
    tmp_path: Path, config: Path, pg_server_url: str
) -> None:
    source = tmp_path / "source"
    fill(source)
    unreachable = f"postgresql://ltm:{PASSWORD_MARK}@127.0.0.1:1/ltm"
    for args, expected in (
        (("--to", unreachable), "cannot reach PostgreSQL at 127.0.0.1:1/ltm"),
        (("--to", f"mysql://ltm:{PASSWORD_MARK}@host/db"), "--to must be a postgresql:// URL"),
        (("--from", f"postgresql://ltm:{PASSWORD_MARK}@[bad/db"), "--from is not a valid URL"),
        (("--from", unreachable), "cannot reach PostgreSQL at 127.0.0.1:1/ltm"),
    ):
        result = (
            migrate(tmp_path / "new", config, *args)
            if args[0] == "--from"
            else migrate(source, config, *args)
        )
        assert_one_error_line(result, expected)
        assert PASSWORD_MARK not in result.stderr + result.stdout
    assert not (tmp_path / "new" / "ltm.sqlite").exists()

    with fresh_database(pg_server_url) as foreign:
        import psycopg

        with psycopg.connect(foreign, autocommit=True) as conn:
            conn.execute("CREATE TABLE invoices (id int)")
        assert_one_error_line(migrate(source, config, "--to", foreign), "other tables")
        assert_one_error_line(migrate(tmp_path / "new", config, "--from", foreign), "other tables")
    with fresh_database(pg_server_url) as empty:
        result = migrate(tmp_path / "new", config, "--from", empty)
        assert_one_error_line(result, "no ltm-desktop database")
    assert not (tmp_path / "new" / "ltm.sqlite").exists()
