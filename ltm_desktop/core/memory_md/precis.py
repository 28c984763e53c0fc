"""The precis: a bounded rendering of a scope's most important memories.

The precis is the text; MEMORY.md is the file that shows it (kept in step by
``core.memory_md_sync``). The store is the single source of truth; both are views.
Each memory is one ``## title`` block whose text cannot break out of it
(``core.safe_markdown``); memories flagged as instructions to the model
(``core.injection``) stay out until a person approves them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.memory_md.block import heading, render_block
from ltm_desktop.core.memory_md.files import read_text
from ltm_desktop.core.memory_md.safe_markdown import open_fence
from ltm_desktop.core.privacy.injection import is_flagged
from ltm_desktop.core.projects.ambient import AmbientScopes
from ltm_desktop.core.ranking import MAX_BOOST, effective_importance, precis_key
from ltm_desktop.core.records import Memory, PrecisInfo
from ltm_desktop.core.rules import MAX_IMPORTANCE

__all__ = ["heading", "render_block"]  # core.memory_block's, shared with core.injection

TRUNCATION_MARK = "\n…(truncated)"
BLOCK_SEPARATOR = "\n\n"
SECTION_HEADING = "## Long-Term Memory"
# Levels per read of the precis's candidates: a level at least MAX_BOOST below the N-th
# found cannot reach it, so reading that many at a time rarely reads one not needed.
LEVELS_PER_READ = math.ceil(MAX_BOOST)


@dataclass(frozen=True, slots=True)
class RenderedPrecis:
    text: str
    truncated: bool
    memory_ids: tuple[str, ...]


def _cut(text: str, budget: int) -> str:
    """``text`` cut to ``budget`` UTF-8 bytes at a character boundary, a fence left open by
    the cut closed within the budget."""
    kept = text.encode("utf-8")[:budget].decode("utf-8", errors="ignore").rstrip()
    fence = open_fence(kept)
    while fence is not None:
        room = budget - len(fence.encode()) - 1
        kept = kept.encode("utf-8")[:room].decode("utf-8", errors="ignore").rstrip()
        fence = open_fence(kept)
        if fence is None or len((kept + "\n" + fence).encode()) <= budget:
            return kept if fence is None else f"{kept}\n{fence}"
    return kept


def render_precis(memories: Sequence[Memory], budget: int) -> RenderedPrecis:
    """``## title`` blocks within ``budget`` UTF-8 bytes, cut at a character boundary."""
    mark_bytes = len(TRUNCATION_MARK.encode("utf-8"))
    if budget < mark_bytes:
        raise ValueError(f"a precis budget must be at least {mark_bytes} bytes")
    blocks = [render_block(m) for m in memories]
    text = BLOCK_SEPARATOR.join(blocks)
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return RenderedPrecis(text, False, tuple(m.id for m in memories))
    kept = _cut(text, budget - mark_bytes)
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
        include_flagged: bool = False,
        ambient: AmbientScopes | None = None,
    ) -> None:
        """``include_flagged``: ``[privacy] flagged_in_precis``; ``ambient``: the scopes
        every precis includes besides its own (default: ``global``)."""
        self._store = store
        self.ambient = ambient or AmbientScopes.shared()
        self.include_flagged = include_flagged
        self.path_for = path_for
        self.budget = budget
        self.top_n = top_n
        self._clock = clock

    def candidates(
        self, project_id: str, include_global: bool = True, now: float | None = None
    ) -> list[Memory]:
        """The top-N memories of the scope (plus global) in precis order (core.ranking).

        Importance levels are read from the top down, each level's best by use then by
        update, ``LEVELS_PER_READ`` levels of every scope in one read; a level whose best
        cannot reach the N-th found so far (reinforcement adds less than MAX_BOOST) ends the
        search, so the top-N is exact.
        """
        now = self._clock() if now is None else now
        scopes = self.ambient.with_ambient(project_id, include_global)
        found: list[Memory] = []
        for top_level in range(MAX_IMPORTANCE, -1, -LEVELS_PER_READ):
            if len(found) >= self.top_n:
                found.sort(key=lambda m: precis_key(m, now))
                del found[self.top_n :]
                if effective_importance(found[-1], now) >= top_level + MAX_BOOST:
                    break
            levels = range(top_level, max(top_level - LEVELS_PER_READ, -1), -1)
            top = self._store.top_memories(scopes, levels, self.top_n, now)
            found += top if self.include_flagged else [m for m in top if not is_flagged(m)]
        found.sort(key=lambda m: precis_key(m, now))
        return found[: self.top_n]

    def compute(self, project_id: str, include_global: bool = True) -> PrecisInfo:
        """Render the scope's precis (the file always includes global)."""
        now = self._clock()
        candidates = self.candidates(project_id, include_global, now)
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
            last=candidates[-1] if candidates else None,
            next_expiry=min(
                (m.expires_at for m in candidates if m.expires_at is not None), default=None
            ),
        )

    def read_file(self, project_id: str) -> str:
        """The MEMORY.md file as an outside reader sees it ("" when missing)."""
        return read_text(self.path_for(project_id))
