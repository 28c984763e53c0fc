"""Typed errors shared by every layer.

``LtmError`` subclasses are *known* errors: their message is written for the
person or agent that caused them and may be shown as is. Anything else that
escapes the core is a bug.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltm_desktop.core.records import Memory

ECHO_LIMIT = 80


def clipped(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def echoed(value: object, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for values echoed in messages.

    A caller may send a 100,000-character id; its error message must stay one line.
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LtmError(Exception):
    """Base class of every error the core raises on purpose."""


class UnsafePath(LtmError):
    """A file or directory could be read or replaced by someone else (or points out of
    ours through a symlink); it is refused, never used or "fixed" behind the owner's back."""


class InvalidInput(LtmError, ValueError):
    """A caller passed a value the core cannot accept.

    Attributes:
        field: the name of the offending parameter, when there is one.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(LtmError, LookupError):
    """No memory, observation or project has the given id."""


class ConflictReason(StrEnum):
    """Why a write was refused, for programs (the API sends the value as ``reason``)."""

    STALE = "stale"  # the caller's version is not the stored one
    REMOVED = "removed"  # the memory is in the trash
    ACTIVE = "active"  # the memory is not in the trash (an erase)
    DUPLICATE = "duplicate"  # another active memory of the scope has the content
    NOT_EXTRACTED = "not_extracted"  # a memory no extraction added (the inbox's undo)
    ALREADY_ACTIVE = "already_active"
    ALREADY_REMOVED = "already_removed"
    ALREADY_PROPOSED = "already_proposed"
    ALREADY_APPROVED = "already_approved"
    ALREADY_REJECTED = "already_rejected"
    ALREADY_REVIEWED = "already_reviewed"
    ALREADY_UNREVIEWED = "already_unreviewed"

    @classmethod
    def already(cls, state: str) -> ConflictReason:
        """The item is already in ``state`` (``active``, ``removed``, a proposal's state)."""
        return cls(f"already_{state}")

    @property
    def is_already(self) -> bool:
        """Another writer did what was asked: nothing is lost by not writing."""
        return self.value.startswith("already_")


class Conflict(LtmError):
    """The write would break a rule, e.g. duplicate another active memory.

    Attributes:
        other_id: the other memory involved (the one that already has the content).
        reason: why, for programs (None for conflicts of other writes).
        current: the memory as it is stored now, so the caller can show or retry.
    """

    def __init__(
        self,
        message: str,
        other_id: str | None = None,
        *,
        reason: ConflictReason | None = None,
        current: Memory | None = None,
    ) -> None:
        super().__init__(message)
        self.other_id = other_id
        self.reason = reason
        self.current = current


class StaleEdit(Conflict):
    """The memory changed after the caller read it (its ``updated_at`` moved); nothing
    was written."""


class StorageError(LtmError):
    """The database cannot be used (corrupt, locked, full, unreadable)."""


class DatabaseBusy(StorageError):
    """Another process held the database locked past the wait: trying again may work."""


class DatabaseTooNew(StorageError):
    """The database was written by a newer ltm-desktop; it is left untouched."""


class NotADatabase(StorageError):
    """The file is not an SQLite database or is corrupt; it is never overwritten."""


class SearchIndexDamaged(StorageError):
    """A search (full-text) index is damaged: searches of its scope fail until it is
    rebuilt from the rows, which ``ltm-desktop verify --repair`` does."""


class DatabaseReplaced(StorageError):
    """The database file (or its WAL) was removed or replaced while open: what the store
    writes would go to a file nobody can find again, so it writes nothing until a restart."""


class DatabaseReadOnly(StorageError):
    """The database or its directory cannot be written; refused at start instead of
    failing every write later."""


class ConfigError(LtmError):
    """A config file is malformed; the message names the file and the key."""


class BadDatabaseUrl(ConfigError):
    """The database URL (``--database-url``, ``$LTM_DESKTOP_DATABASE_URL`` or ``[store]
    url``) cannot be used. Refused rather than falling back to SQLite: memories written
    into a local file instead of the shared server would be split without anyone
    noticing. The message never holds the URL's password."""


class ObservationOff(LtmError):
    """Observations of this kind are turned off in the settings (``[observe]``)."""


class MemoryDisabled(LtmError):
    """Long-term memory is switched off in the settings; nothing is read or written."""


class BackendNotImplemented(LtmError):
    """The configured ``[memory] backend`` exists only as a placeholder: it answers
    ``health`` and refuses everything else, changing nothing."""


class EmbedderUnavailable(LtmError):
    """The embedder cannot make vectors (model missing or broken, endpoint down): the
    service searches by words only and says so in its status; never raised to a caller."""


class DatabaseUnreachable(StorageError):
    """The database server cannot be reached (down, refusing, too slow to answer, or the
    credentials are refused): nothing was written; agents go on without memory."""
