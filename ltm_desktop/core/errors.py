"""Typed errors shared by every layer.

``LtmError`` subclasses are *known* errors: their message is written for the
person or agent that caused them and may be shown as is. Anything else that
escapes the core is a bug.
"""

from __future__ import annotations


class LtmError(Exception):
    """Base class of every error the core raises on purpose."""


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


class Conflict(LtmError):
    """The write would break a rule, e.g. duplicate another active memory."""

    def __init__(self, message: str, other_id: str | None = None) -> None:
        super().__init__(message)
        self.other_id = other_id


class StaleEdit(Conflict):
    """The memory changed after the caller read it; nothing was written."""


class StorageError(LtmError):
    """The database cannot be used (corrupt, locked, full, unreadable)."""


class DatabaseTooNew(StorageError):
    """The database was written by a newer ltm-desktop; it is left untouched."""


class NotADatabase(StorageError):
    """The file is not an SQLite database or is corrupt; it is never overwritten."""


class ConfigError(LtmError):
    """A config file is malformed; the message names the file and the key."""


class MemoryDisabled(LtmError):
    """Long-term memory is switched off in the settings; nothing is read or written."""
