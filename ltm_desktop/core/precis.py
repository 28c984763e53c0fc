"""MEMORY.md: a bounded, regenerated view of a scope's most important memories.

The store is the single source of truth; this file is only a view of it,
rewritten atomically (temp file + rename) so readers never see half a file.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.filelock import FileLock, make_private_dirs
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


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a reader sees the old or the new file, whole."""
    make_private_dirs(path.parent, within=path.parents[2])  # the data dir: precis/<scope>/
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".MEMORY.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class _Window:
    """The top-N a scope's precis was last rendered from."""

    ids: frozenset[str]
    last_key: tuple[int, float] | None  # precis_order of the N-th memory; None if fewer
    next_expiry: float | None  # after this, a member has silently left the top-N

    @classmethod
    def of(cls, info: PrecisInfo, top_n: int) -> _Window:
        full = len(info.candidate_ids) >= top_n
        return cls(frozenset(info.candidate_ids), info.last_key if full else None, info.next_expiry)

    def touched_by(self, changed: Sequence[Memory], now: float) -> bool:
        """Could these changed memories (or the passing of time) alter the top-N?"""
        if self.next_expiry is not None and now >= self.next_expiry:
            return True
        for memory in changed:
            if memory.id in self.ids:
                return True
            if not memory.disabled and (
                self.last_key is None or precis_order(memory) < self.last_key
            ):
                return True
        return False


class PrecisManager:
    """Renders each scope's precis and keeps its MEMORY.md file in step with the store."""

    def __init__(
        self,
        store: MemoryStore,
        path_for: Callable[[str], Path],
        budget: int,
        top_n: int,
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self._path_for = path_for
        self.budget = budget
        self.top_n = top_n
        self._clock = clock
        self._lock = threading.Lock()
        self._lock_path = Path(path_for(GLOBAL_PROJECT_ID)).parent.parent / ".lock"
        self._windows: dict[str, _Window] = {}
        self._seen_version: int | None = None

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
            path=str(self._path_for(project_id)),
            memory_ids=rendered.memory_ids,
            candidate_ids=tuple(m.id for m in candidates),
            last_key=precis_order(candidates[-1]) if candidates else None,
            next_expiry=min(
                (m.expires_at for m in candidates if m.expires_at is not None), default=None
            ),
        )

    def refresh(self, project_ids: Iterable[str], changed: Sequence[Memory] | None = None) -> None:
        """Re-render these scopes and rewrite the files whose text changed.

        Args:
            changed: the memories a write just touched; a scope is skipped when none
                of them is, or could enter, its current top-N (None: always render).

        Rendering and writing happen under a lock shared with other processes
        on the same data dir, so the file always ends up showing the newest
        state of the store, whichever process wrote last.
        """
        ids = list(project_ids)
        if not ids:
            return
        with self._lock:
            version = self._store.data_version()
            if version != self._seen_version:  # another process wrote: forget what we knew
                self._windows.clear()
                self._seen_version = version
            if changed is not None:
                now = self._clock()
                ids = [
                    i
                    for i in ids
                    if i not in self._windows or self._windows[i].touched_by(changed, now)
                ]
            if not ids:
                return
            with FileLock(self._lock_path):
                for project_id in ids:
                    info = self.compute(project_id)
                    self._windows[project_id] = _Window.of(info, self.top_n)
                    if self.read_file(project_id) != info.text or not Path(info.path).exists():
                        write_atomically(Path(info.path), info.text)

    def refresh_all(self) -> None:
        self.refresh(p.project_id for p in self._store.list_projects())

    def read_file(self, project_id: str) -> str:
        """The MEMORY.md file as an outside reader sees it ("" when missing)."""
        try:
            return self._path_for(project_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
