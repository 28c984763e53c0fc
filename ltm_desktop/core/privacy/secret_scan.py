"""Finding credentials already stored: memories written before the secrets rule, or
while ``[privacy] secrets = "allow"``. A person reviews the list, then edits, or
removes and erases (``core.erasing``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ltm_desktop.core.privacy.screening import SCREENED_FIELDS, position
from ltm_desktop.core.privacy.secrets import find_secrets
from ltm_desktop.core.records import Memory
from ltm_desktop.core.transfer.exporting import iter_memories

if TYPE_CHECKING:
    from ltm_desktop.core.service import MemoryService


@dataclass(frozen=True, slots=True)
class SecretHit:
    """Where a stored memory holds a credential (the credential itself is not kept)."""

    memory: Memory
    field: str
    kind: str
    line: int
    column: int

    def describe(self) -> str:
        return f"{self.field}, line {self.line}, column {self.column}: {self.kind}"


def scan(memories: Iterable[Memory]) -> Iterator[SecretHit]:
    """The first credential of each field of each memory."""
    for memory in memories:
        for field in SCREENED_FIELDS:
            value = getattr(memory, field)
            texts = value if isinstance(value, tuple) else (value,)
            for text in texts:
                found = find_secrets(text)
                if found:
                    yield SecretHit(memory, field, found[0].kind, *position(text, found[0].start))
                    break


def find_stored(service: MemoryService) -> list[SecretHit]:
    """Every stored memory (trash and expired included) holding a credential, scope by
    scope. It reads every memory: run it off the UI thread."""
    scopes = [project.project_id for project, _ in service.projects()]
    return list(scan(m for p in scopes for m in iter_memories(service, p, include_removed=True)))
