"""Writing what a file holds: one transaction per file, and the rules for what lands.

Drafts (from Markdown sources) take the normal add: a text already active is a
deduplication, a near twin is superseded, and the new memory's ``source`` is ``import``.

Records (from our JSONL export) are stored as they were, ids and timestamps included, so
export -> import into an empty data dir gives the same memories. When they collide:

1. A memory with the record's id is already there, in the same scope with the same text:
   the record is skipped (importing a file twice changes nothing).
2. A memory with the record's id is already there otherwise: the record is stored under a
   new id (every other field kept); the file's ``superseded_by`` links follow it.
3. The record is active and an active memory of its scope has the same text: skipped
   (a scope keeps one active memory per text).

Every memory written has an audit event (``imported`` for records, ``created`` for drafts)
naming the file it came from.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ltm_desktop.core import rules, writing
from ltm_desktop.core.backend import AuditEntry, MemoryStore, WriteTxn
from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.history.auditing import memory_snapshot
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen, SecretRefused
from ltm_desktop.core.records import AddResult, AddStatus, AuditAction, ChangeEvent, Memory, Project
from ltm_desktop.core.rules import content_signature, similarity_tokens
from ltm_desktop.core.transfer.parsed import Entry, ParsedFile, describe_entry

IMPORT_SOURCE = "import"


@dataclass(slots=True)
class ImportReport:
    """What importing one file did (or, for a dry run, would do)."""

    path: str
    format: str
    dry_run: bool
    created: list[dict[str, Any]] = field(default_factory=list)
    deduplicated: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)  # file id -> id given

    def summary(self) -> str:
        verb = "would import" if self.dry_run else "imported"
        parts = [f"{len(self.created)} created", f"{len(self.deduplicated)} deduplicated"]
        parts += [f"{len(self.superseded)} superseded", f"{len(self.skipped)} skipped"]
        renamed = f", {len(self.renamed)} given new ids" if self.renamed else ""
        return f"{self.path} ({self.format}): {verb} {', '.join(parts)}{renamed}"


class _DryRun(Exception):
    """Raised inside the transaction of a dry run so that nothing is committed."""


def _exists(txn: WriteTxn, memory_id: str) -> Memory | None:
    try:
        return txn.get_memory(memory_id)
    except NotFound:
        return None


def _collisions(txn: WriteTxn, records: Sequence[Memory], now: float) -> dict[str, str]:
    """Rule 2: file id -> new id, for the ids already taken by another memory."""
    renamed: dict[str, str] = {}
    for record in records:
        there = _exists(txn, record.id)
        if there is not None and (there.project_id, there.signature) != (
            record.project_id,
            record.signature,
        ):
            renamed[record.id] = writing.new_memory_id(now)
    return renamed


def restore_record(
    txn: WriteTxn,
    record: Memory,
    renamed: dict[str, str],
    actor: str,
    now: float,
    note: dict[str, Any],
    screen: Screen,
) -> tuple[Memory | None, str]:
    """Store one exported record by the rules above: (the memory stored or None, why).
    ``screen`` as in ``writing.add_memory`` (a redacted record gets its new signature)."""
    screened = screen.memory(record)
    if screened.content != record.content:
        screened = replace(screened, signature=content_signature(screened.content))
    record = screened
    new_id = renamed.get(record.id, record.id)
    if new_id == record.id and _exists(txn, record.id) is not None:
        return None, "already there (same id, same scope and text)"
    if not record.disabled:
        twin = txn.find_active(record.project_id, record.signature)
        if twin is not None:
            return None, f"an active memory ({twin.id}) of the scope has the same text"
    superseded_by = record.superseded_by
    memory = replace(
        writing.flag_instructions(record),
        id=new_id,
        superseded_by=None if superseded_by is None else renamed.get(superseded_by, superseded_by),
    )
    txn.insert_memory(memory, similarity_tokens(memory.content))
    after = memory_snapshot(memory) | note
    txn.record(
        AuditEntry(now, memory.id, memory.project_id, actor, AuditAction.IMPORTED, None, after)
    )
    return memory, "imported"


@contextmanager
def _named_line(path: str, line: int) -> Iterator[None]:
    """A secret refused in a file names the file and its line, where a person can fix it."""
    try:
        yield
    except SecretRefused as exc:
        raise InvalidInput(f"{path} line {line}: {exc}", exc.field) from None


class Importer:
    """Writing parsed import files: ``MemoryService.importer``."""

    def __init__(self, store: MemoryStore, kernel: WriteKernel, screen: Screen) -> None:
        self.store = store
        self._kernel = kernel
        self.screen = screen

    def import_parsed(
        self,
        parsed: ParsedFile,
        project_id: str | None,
        actor: str,
        *,
        dry_run: bool = False,
    ) -> ImportReport:
        """Write a parsed file in one transaction (a dry run rolls it back and reports).

        Args:
            project_id: the scope of every entry (None: the scope the file gives each).
        """
        actor = rules.check_actor(actor)
        if project_id is not None:
            project_id = rules.check_project_id(project_id)
        for entry in parsed.entries:
            if project_id is None and entry.project_id is None:
                raise InvalidInput(
                    f"{parsed.path} line {entry.line}: no project given; use --project or --cwd",
                    "project_id",
                )
        report = ImportReport(parsed.path, parsed.format, dry_run)
        try:
            with self._kernel.write() as write:
                changed, events = write.changed, write.events
                self._import_entries(write.txn, parsed, project_id, actor, report, changed, events)
                if dry_run:
                    raise _DryRun
                for project in parsed.projects if project_id is None else ():
                    write.then(functools.partial(self._register, project))
        except _DryRun:
            pass
        return report

    def _register(self, project: Project) -> None:
        self.store.ensure_project(project.project_id, project.path, project.name)

    def _import_entries(
        self,
        txn: WriteTxn,
        parsed: ParsedFile,
        project_id: str | None,
        actor: str,
        report: ImportReport,
        changed: list[Memory],
        events: list[ChangeEvent],
    ) -> None:
        now = self._kernel.now()
        records = [
            replace(e.record, project_id=project_id or e.record.project_id)
            for e in parsed.entries
            if e.record is not None
        ]
        report.renamed = _collisions(txn, records, now)
        by_line = iter(records)
        for entry in parsed.entries:
            with _named_line(parsed.path, entry.line):
                record = next(by_line) if entry.record is not None else None
                self._import_entry(
                    txn, parsed, entry, record, project_id, actor, now, report, changed, events
                )

    def _import_entry(
        self,
        txn: WriteTxn,
        parsed: ParsedFile,
        entry: Entry,
        record: Memory | None,
        project_id: str | None,
        actor: str,
        now: float,
        report: ImportReport,
        changed: list[Memory],
        events: list[ChangeEvent],
    ) -> None:
        note = {"imported_from": parsed.path, "line": entry.line}
        shown = describe_entry(entry)
        if record is not None:
            memory, why = restore_record(txn, record, report.renamed, actor, now, note, self.screen)
            if memory is None:
                report.skipped.append(shown | {"reason": why})
                return
            report.created.append(shown | {"id": memory.id})
            changed.append(memory)
            events.append(ChangeEvent(memory.id, memory.project_id, "imported", actor, now))
            return
        assert entry.draft is not None
        origin = writing.Origin(source=IMPORT_SOURCE, note=note)
        scope = project_id or entry.project_id
        assert scope is not None
        result = writing.add_memory(txn, scope, entry.draft, actor, now, origin, screen=self.screen)
        self._add_outcome(txn, entry, result, report, changed, events, actor, now)

    @staticmethod
    def _add_outcome(
        txn: WriteTxn,
        entry: Entry,
        result: AddResult,
        report: ImportReport,
        changed: list[Memory],
        events: list[ChangeEvent],
        actor: str,
        now: float,
    ) -> None:
        shown = describe_entry(entry) | {"id": result.memory.id}
        memory = result.memory
        changed.append(memory)
        if result.status is AddStatus.DEDUPLICATED:
            report.deduplicated.append(shown)
            events.append(ChangeEvent(memory.id, memory.project_id, "deduplicated", actor, now))
            return
        report.created.append(shown)
        events.append(ChangeEvent(memory.id, memory.project_id, "created", actor, now))
        if result.superseded_id is not None:
            report.superseded.append(shown | {"superseded": result.superseded_id})
            old = txn.get_memory(result.superseded_id)
            changed.append(old)
            events.append(ChangeEvent(old.id, old.project_id, "superseded", actor, now))
