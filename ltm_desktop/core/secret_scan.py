"""Finding credentials already stored: memories written before the secrets rule, or
while ``[privacy] secrets = "allow"``. A person reviews the list, then edits, or
removes and erases (``core.erasing``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.records import ListQuery, Memory
from ltm_desktop.core.screening import SCREENED_FIELDS, position
from ltm_desktop.core.secrets import find_secrets


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


def every_memory(
    scopes: Iterable[str], page: Callable[[str, ListQuery], list[Memory]]
) -> Iterator[Memory]:
    """Every memory of the scopes, the trash and expired ones too, a page at a time."""
    for project_id in scopes:
        offset = 0
        while True:
            query = ListQuery(
                include_disabled=True,
                include_expired=True,
                order_by="created_at",
                descending=False,
                limit=MAX_PAGE,
                offset=offset,
            )
            found = page(project_id, query)
            yield from found
            if len(found) < MAX_PAGE:
                break
            offset += MAX_PAGE
