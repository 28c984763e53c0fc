"""The offline outbox: writes kept durable on this machine while the shared database
(PostgreSQL) is unreachable, a read cache of the scopes used here, and their replay.

Imports the core and its own files in ``store.outbox`` only (never PySide6, never
psycopg): the composition root (``app``) hands it a probe of the server and a store opener.
"""

from __future__ import annotations

from ltm_desktop.outbox.deferred import DeferredStore
from ltm_desktop.outbox.local import LocalOutbox
from ltm_desktop.store.outbox.journal import peek

__all__ = ["DeferredStore", "LocalOutbox", "peek"]
