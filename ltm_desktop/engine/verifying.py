"""What ``verify`` checks alike on every engine: the audit chain followed over rows, and
the memories whose JSON columns do not decode (which reads tolerate, so only this tells).
Each engine reads the rows its own way (SQLite's ``store.audit``, PostgreSQL's
``postgres.verify``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ltm_desktop.engine.chain import Broken, check_event
from ltm_desktop.engine.rows import bad_json_columns

QUICK_EVENTS = 1_000  # the quick check follows the chain over the newest events only
NAMED_ROWS = 20  # damaged rows named one by one; the rest are counted
JSON_SHAPES = {"tags": "a list of strings", "files": "a list of strings", "provenance": "an object"}


def follow_chain(rows: Iterable[Sequence[Any]], previous: str) -> tuple[Broken | None, str]:
    """(the first broken event or None, the last good hash) of the events ``rows`` (seq,
    at, memory_id, project_pk, actor, action, before, after, nonce, content_hash, hash, and
    person, machine, machine_id where the schema has them),
    in seq order, the first linked to ``previous``."""
    for row in rows:
        broken = check_event(row, previous)
        if broken is not None:
            return Broken(int(row[0]), str(row[2]), str(row[5]), broken), previous
        previous = str(row[10])
    return None, previous


def json_problems(rows: Iterable[Sequence[Any]]) -> list[str]:
    """Sentences naming the memories among ``rows`` (id, tags, files, provenance) whose
    JSON columns do not decode (read as empty): the first ``NAMED_ROWS``, then a count."""
    problems = []
    damaged = 0
    for memory_id, tags, files, provenance in rows:
        bad = bad_json_columns(tags, files, provenance)
        if not bad:
            continue
        damaged += 1
        if damaged <= NAMED_ROWS:
            problems += [
                f"memory {memory_id} has a {column} column that is not valid JSON "
                f"({JSON_SHAPES[column]}); it reads as empty"
                for column in bad
            ]
    if damaged > NAMED_ROWS:
        problems.append(f"... and {damaged - NAMED_ROWS:,} more memories with such columns")
    return problems
