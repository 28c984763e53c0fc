"""The offline outbox: writes kept durable on this machine while the shared database
(PostgreSQL) is unreachable, a read cache of the scopes used here, and their replay.

Imports the core and sqlite3 only (never PySide6, never psycopg): the composition root
(``app``) hands it a probe of the server and a store opener.
"""

from __future__ import annotations

from ltm_desktop.outbox.deferred import DeferredStore
from ltm_desktop.outbox.local import LocalOutbox

__all__ = ["DeferredStore", "LocalOutbox"]
