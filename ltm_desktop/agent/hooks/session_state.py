"""A session's small state between hook runs: turns counted, the last prompt, a stop seen,
and how far the session has been told of the memory's changes (an audit sequence number).

One file per agent session in ``<runtime dir>/hooks/`` (private, 0700, cleared at
reboot on most systems), a few hundred bytes, named by a hash of the session id.
``session-end`` removes it; files untouched for a week are pruned at session start.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ltm_desktop.core.files.atomic_files import replacing
from ltm_desktop.core.observations import USER_TEXT_LIMIT

STALE_SECONDS = 7 * 24 * 3600
SUFFIX = ".json"


@dataclass(slots=True)
class SessionState:
    turns: int = 0  # user prompts seen
    last_prompt: str = ""  # cut to what an agent_end observation keeps
    stopped: bool = False  # a stop was recorded since the last prompt
    # the audit head when the memory was last injected (session start, then each turn's
    # changes); None: never told, so no changes are owed
    seen_seq: int | None = None


def _seq(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def state_dir() -> Path:
    """``<runtime dir>/hooks``, private; raises EndpointError/OSError when unusable."""
    from ltm_desktop.api.runtime import runtime_dir

    path = runtime_dir() / "hooks"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


class SessionStates:
    """The state files of one agent's sessions in ``directory``."""

    def __init__(self, directory: Path, agent: str) -> None:
        self.directory = directory
        self.agent = agent

    def path(self, session_id: str) -> Path:
        digest = hashlib.sha256(session_id.encode("utf-8", errors="replace")).hexdigest()[:24]
        return self.directory / f"{self.agent}-{digest}{SUFFIX}"

    def load(self, session_id: str) -> SessionState:
        """The session's state; a new one when there is none or it cannot be read."""
        try:
            data = json.loads(self.path(session_id).read_text(encoding="utf-8"))
            return SessionState(
                turns=int(data.get("turns", 0)),
                last_prompt=str(data.get("last_prompt", ""))[:USER_TEXT_LIMIT],
                stopped=bool(data.get("stopped", False)),
                seen_seq=_seq(data.get("seen_seq")),
            )
        except (OSError, ValueError, TypeError, AttributeError):
            return SessionState()

    def save(self, session_id: str, state: SessionState) -> None:
        """Written whole (a temp file renamed over the old one), owner-only."""
        # not synced: a turn count lost to a power cut costs nothing, a sync every turn does
        with replacing(self.path(session_id), prefix=".tmp-", suffix=SUFFIX, durable=False) as file:
            json.dump(asdict(state), file, ensure_ascii=False)

    def remove(self, session_id: str) -> None:
        try:
            self.path(session_id).unlink()
        except FileNotFoundError:
            pass

    def prune(self, max_age: float = STALE_SECONDS) -> int:
        """Remove every state file (any agent's) untouched for ``max_age`` seconds."""
        cutoff = time.time() - max_age
        removed = 0
        for entry in os.scandir(self.directory):
            if not entry.name.endswith(SUFFIX):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
        return removed
