"""A memory's ``tsvector``: the words SQLite's index holds, at positions that keep phrases
inside one column, within PostgreSQL's limits."""

from __future__ import annotations

import sqlite3
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltm_desktop.core.search.query import parse_query
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.fts import search as fts_search
from ltm_desktop.postgres.fts.document import (
    MAX_LEXEME_BYTES,
    MEMORY_DOCUMENT_SQL,
    document,
    lexeme,
    memory_document_params,
    words,
)
from ltm_desktop.store.fts.text import TOKENIZER, index_text

ALPHABET = (
    string.printable
    + "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßœÀÉÖÜŁłŚś"
    + "абвгдежзийклмнопрстуфхцчшщыьэюяАБВЁё"
    + "数据库连接池テストデプロイ배포마이그레이션"
)


@pytest.fixture(scope="module")
def fts5() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return conn


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=60))
def test_the_words_are_those_sqlites_index_holds(fts5: sqlite3.Connection, text: str) -> None:
    fts5.execute("DELETE FROM t")
    fts5.execute("INSERT INTO t (rowid, x) VALUES (1, ?)", (index_text(text),))
    held = [row[0] for row in fts5.execute("SELECT term FROM v ORDER BY offset")]
    assert words(text) == held


def matches(db: PgDatabase, vector: str, text: str) -> bool:
    query = fts_search.every_term(parse_query(text), 1)
    row = db.read(lambda c: c.execute("SELECT %s::tsvector @@ %s::tsquery", (vector, query)))
    found = row.fetchone()
    return bool(found and found[0])


def test_a_phrase_never_spans_two_columns(pg_db: PgDatabase) -> None:
    (vector,) = memory_document_params(
        "Deploy notes", "production runs nightly", ["ci"], project_pk=1
    )
    assert matches(pg_db, vector, '"notes production"') is False
    assert matches(pg_db, vector, '"deploy notes"') is True
    assert matches(pg_db, vector, '"production runs"') is True


def test_what_postgresql_cannot_hold_is_left_out_not_refused(pg_db: PgDatabase) -> None:
    """A word over 2046 bytes, a word's 257th place and places past 16383 would make the
    literal fail or be cut: the document is stored, the rest of it searchable."""
    huge = "x" * (MAX_LEXEME_BYTES + 1)
    content = f"{huge} after " + "again " * 300 + "word " * 17_000 + "tail end"
    (vector,) = memory_document_params("Title", content, ["tag"], project_pk=1)
    with pg_db.transaction() as conn:
        conn.execute("INSERT INTO projects (project_id, name, created_at) VALUES ('p', 'p', 0)")
        conn.execute(
            "INSERT INTO memories (id, project_pk, title, content, category, importance, "
            "signature, created_at, updated_at, source, search) VALUES ('m', 1, 'Title', %s, "
            f"'knowledge', 5, 's', 0, 0, 'a', {MEMORY_DOCUMENT_SQL})",
            (content, vector),
        )
    assert matches(pg_db, vector, "after again tail")
    assert matches(pg_db, vector, '"title"')
    assert not matches(pg_db, vector, "xxxx*")


def test_a_memorys_words_are_found_in_its_own_scope_only(pg_db: PgDatabase) -> None:
    (vector,) = memory_document_params("Deploy", "to production", [], project_pk=1)
    assert matches(pg_db, vector, "deploy* production")
    query = fts_search.every_term(parse_query("deploy* production"), 11)
    row = pg_db.read(lambda c: c.execute("SELECT %s::tsvector @@ %s::tsquery", (vector, query)))
    assert row.fetchone() == (False,)


def test_quotes_and_backslashes_are_literal(pg_db: PgDatabase) -> None:
    vector = document([("plain", "A")]) + " " + lexeme("it's\\") + ":9"
    row = pg_db.read(lambda c: c.execute("SELECT %s::tsvector", (vector,)).fetchone())
    assert row is not None
    assert "'it''s\\\\'" in row[0]


def test_cjk_characters_are_words_of_their_own() -> None:
    assert words("数据库连接池 é Straße") == ["数", "据", "库", "连", "接", "池", "e", "straße"]
