"""The precis: a bounded rendering of a scope's most important memories.

The precis is the text; MEMORY.md is the file that shows it (kept in step by
``core.memory_md_sync``). The store is the single source of truth; both are views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.memory_md_files import read_text
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Memory, PrecisInfo

TRUNCATION_MARK = "\n…(truncated)"
BLOCK_SEPARATOR = "\n\n"
SECTION_HEADING = "## Long-Term Memory"


@dataclass(frozen=True, slots=True)
class RenderedPrecis:
    text: str
    truncated: bool
    memory_ids: tuple[str, ...]


def precis_order(memory: Memory) -> tuple[int, float]:
    """List order: importance, then most recently updated, first."""
    return (-memory.importance, -memory.updated_at)


def render_precis(memories: Sequence[Memory], budget: int) -> RenderedPrecis:
    """``## title`` blocks within ``budget`` UTF-8 bytes, cut at a character boundary."""
    mark_bytes = len(TRUNCATION_MARK.encode("utf-8"))
    if budget < mark_bytes:
        raise ValueError(f"a precis budget must be at least {mark_bytes} bytes")
    blocks = [f"## {m.title}\n\n{m.content}" for m in memories]
    text = BLOCK_SEPARATOR.join(blocks)
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return RenderedPrecis(text, False, tuple(m.id for m in memories))
    kept = encoded[: budget - mark_bytes].decode("utf-8", errors="ignore").rstrip()
    included: list[str] = []
    offset = 0
    for memory, block in zip(memories, blocks, strict=True):
        if offset >= len(kept):
            break
        included.append(memory.id)
        offset += len(block) + len(BLOCK_SEPARATOR)
    return RenderedPrecis(kept + TRUNCATION_MARK, True, tuple(included))


def prompt_section(precis_text: str, nudge: str) -> str:
    """The ``## Long-Term Memory`` block for a system prompt, or "" when there is nothing."""
    if not precis_text.strip():
        return ""
    parts = [SECTION_HEADING, nudge.strip(), precis_text]
    return BLOCK_SEPARATOR.join(p for p in parts if p)


class PrecisManager:
    """Renders each scope's precis from the store."""

    def __init__(
        self,
        store: MemoryStore,
        path_for: Callable[[str], Path],
        budget: int,
        top_n: int,
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self.path_for = path_for
        self.budget = budget
        self.top_n = top_n
        self._clock = clock

    def candidates(self, project_id: str, include_global: bool = True) -> list[Memory]:
        """The top-N memories of the scope (plus global), in list order."""
        now = self._clock()
        found = self._store.top_memories(project_id, self.top_n, now)
        if include_global and project_id != GLOBAL_PROJECT_ID:
            found += self._store.top_memories(GLOBAL_PROJECT_ID, self.top_n, now)
            found.sort(key=precis_order)
        return found[: self.top_n]

    def compute(self, project_id: str, include_global: bool = True) -> PrecisInfo:
        """Render the scope's precis (the file always includes global)."""
        candidates = self.candidates(project_id, include_global)
        rendered = render_precis(candidates, self.budget)
        return PrecisInfo(
            project_id=project_id,
            text=rendered.text,
            bytes=len(rendered.text.encode("utf-8")),
            budget=self.budget,
            truncated=rendered.truncated,
            path=str(self.path_for(project_id)),
            memory_ids=rendered.memory_ids,
            candidate_ids=tuple(m.id for m in candidates),
            last_key=precis_order(candidates[-1]) if candidates else None,
            next_expiry=min(
                (m.expires_at for m in candidates if m.expires_at is not None), default=None
            ),
        )

    def read_file(self, project_id: str) -> str:
        """The MEMORY.md file as an outside reader sees it ("" when missing)."""
        return read_text(self.path_for(project_id))
