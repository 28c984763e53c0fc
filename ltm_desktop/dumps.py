"""The logical dump: a whole database as one JSONL file, for ``ltm-desktop backup`` of a
PostgreSQL store where no compatible ``pg_dump`` is found (or ``--logical`` asks for it),
and for ``restore`` into an empty PostgreSQL database.

It is the row stream ``engine.copying`` defines (the one ``migrate`` copies through),
written down: every table of ``TABLES`` with every key, so the audit history (each event's
seq, nonce, content hash and hash) verifies after a restore as it did before, and the
vectors as their stored bytes. One JSON value per line:

- a header: ``{"type": "header", "format": "ltm-desktop-dump", "format_version": 1,
  "app_version", "engine", "schema_version", "dumped_at", "source"}`` (the engine and
  schema version it was read from, for a person: the rows are engine-neutral; ``source``
  names the store, never a password);
- per table, in ``TABLES`` order, ``{"type": "table", "name", "columns", "rows"}``, then
  its rows, each a JSON array of ``columns``' values (bytes as ``{"base64": "..."}``);
- ``{"type": "end", "rows": {table: count}}``: a file cut short has none and is refused.

Nothing here talks to a database: a ``CopySource`` is written out (``write_dump``) and a
file is read back as one (``DumpRows``), checked whole before its first row is given.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ltm_desktop.core.errors import NotADatabase
from ltm_desktop.engine.copying import BATCH_ROWS, TABLES, CopySource, Row, Rows, Table

FORMAT_NAME = "ltm-desktop-dump"
FORMAT_VERSION = 2
# Tables a dump of an older format has none of (read as empty): projects' paths came in 2.
TABLES_SINCE = {"project_paths": 2}
SUFFIX = ".jsonl"
_BYTES = "base64"


def _encoded(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {_BYTES: base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _decoded(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) != {_BYTES} or not isinstance(value[_BYTES], str):
            raise ValueError("an object that is not {'base64': ...}")
        return base64.b64decode(value[_BYTES], validate=True)
    if isinstance(value, list):
        raise ValueError("a list inside a row")
    return value


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def write_dump(
    source: CopySource,
    out: TextIO,
    *,
    app_version: str,
    engine: str,
    schema_version: int,
    now: float,
) -> dict[str, int]:
    """Every table of ``source`` into ``out``; returns how many rows each had."""
    out.write(
        _line(
            {
                "type": "header",
                "format": FORMAT_NAME,
                "format_version": FORMAT_VERSION,
                "app_version": app_version,
                "engine": engine,
                "schema_version": schema_version,
                "dumped_at": now,
                "source": source.location,
            }
        )
    )
    counts: dict[str, int] = {}
    for table in TABLES:
        total = source.count(table)
        out.write(
            _line({"type": "table", "name": table.name, "columns": table.columns, "rows": total})
        )
        done = 0
        for batch in source.batches(table):
            out.writelines(_line([_encoded(value) for value in row]) for row in batch)
            done += len(batch)
        if done != total:  # the source's snapshot is one: this would be a bug
            raise RuntimeError(f"{table.name}: {done} rows read, {total} counted")
        counts[table.name] = done
    out.write(_line({"type": "end", "rows": counts}))
    return counts


def is_dump(path: Path) -> bool:
    """Whether ``path`` starts like a logical dump (a cheap look, not a check)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(4096)
        values = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(values, dict) and values.get("format") == FORMAT_NAME


def _readable(table: Table) -> set[tuple[str, ...]]:
    """The columns a dump's table may have: this version's, or a version's from before
    the table's added columns (read as NULL)."""
    return {table.columns, table.columns[: len(table.columns) - len(table.added)]}


@dataclass(frozen=True)
class DumpHeader:
    app_version: str
    schema_version: int
    dumped_at: float
    source: str


class DumpRows:
    """A logical dump file as a ``CopySource``, checked whole when it is opened: its
    header, every table in order with this version's columns, every row's width and
    values, each table's count, and the end line. ``NotADatabase`` says where it is not
    one (file and line), before anything is written anywhere."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offsets: dict[str, tuple[int, int]] = {}  # table -> (first row's offset, rows)
        self._missing: dict[str, int] = {}  # table -> its added columns the dump lacks
        try:
            with path.open("rb") as handle:
                self.header = self._check(handle)
        except OSError as exc:
            raise NotADatabase(f"cannot read {path}: {exc.strerror or exc}") from None

    @property
    def location(self) -> str:
        return str(self._path)

    def _refuse(self, line: int, why: str) -> NotADatabase:
        return NotADatabase(f"{self._path} line {line}: {why}")

    def _check(self, handle: BinaryIO) -> DumpHeader:
        lines = enumerate(iter(handle.readline, b""), start=1)
        number, header = self._read(next(lines, (1, b"")), dict, "is not a dump's header")
        if header.get("type") != "header" or header.get("format") != FORMAT_NAME:
            raise self._refuse(number, f"is not an {FORMAT_NAME} header")
        version = header.get("format_version")
        if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
            raise self._refuse(number, f"format_version {version!r} is not supported")
        absent: set[str] = set()
        for table in TABLES:
            if version < TABLES_SINCE.get(table.name, 1):
                absent.add(table.name)
                self._offsets[table.name] = (0, 0)
                continue
            number, line = self._read(next(lines, (number + 1, b"")), dict, "no table line")
            if line.get("type") != "table" or line.get("name") != table.name:
                raise self._refuse(number, f"the table {table.name} was expected here")
            columns = tuple(line.get("columns") or ())
            if columns not in _readable(table):
                raise self._refuse(number, f"{table.name} has other columns than this version's")
            self._missing[table.name] = len(table.columns) - len(columns)
            rows = line.get("rows")
            if type(rows) is not int or rows < 0:
                raise self._refuse(number, f"{table.name} has no row count")
            self._offsets[table.name] = (handle.tell(), rows)
            for _ in range(rows):
                number, row = self._read(next(lines, (number + 1, b"")), list, "not a row")
                self._row(table, row, number)
        number, end = self._read(next(lines, (number + 1, b"")), dict, "no end line")
        wanted = {n: rows for n, (_, rows) in self._offsets.items() if n not in absent}
        if end.get("type") != "end" or end.get("rows") != wanted:
            raise self._refuse(number, "the end line is missing or does not match the tables")
        if handle.readline():
            raise self._refuse(number + 1, "there is more after the end line")
        return DumpHeader(
            str(header.get("app_version", "")),
            int(header.get("schema_version") or 0),
            float(header.get("dumped_at") or 0),
            str(header.get("source", "")),
        )

    def _read(self, item: tuple[int, bytes], kind: type, missing: str) -> tuple[int, Any]:
        number, raw = item
        if not raw:
            raise self._refuse(number, f"the file ends early ({missing})")
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise self._refuse(number, "is not JSON") from None
        if not isinstance(value, kind):
            raise self._refuse(number, missing)
        return number, value

    def _row(self, table: Table, row: list[Any], number: int) -> Row:
        missing = self._missing.get(table.name, 0)
        if len(row) != len(table.columns) - missing:
            raise self._refuse(number, f"a row of {table.name} with {len(row)} values")
        try:
            return tuple(_decoded(value) for value in row) + (None,) * missing
        except ValueError as exc:
            raise self._refuse(number, f"a row of {table.name} holds {exc}") from None

    def count(self, table: Table) -> int:
        return self._offsets[table.name][1]

    def batches(self, table: Table) -> Iterator[Rows]:
        offset, rows = self._offsets[table.name]
        with self._path.open("rb") as handle:
            handle.seek(offset)
            batch: list[Row] = []
            for _ in range(rows):
                batch.append(self._row(table, json.loads(handle.readline()), 0))
                if len(batch) == BATCH_ROWS:
                    yield batch
                    batch = []
            if batch:
                yield batch

    def memories(self) -> int:
        return self._offsets["memories"][1]

    def close(self) -> None:
        """Nothing is held open between reads."""
