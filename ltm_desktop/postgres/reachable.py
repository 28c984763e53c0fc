"""Whether a PostgreSQL server answers now: the offline outbox's probe.

A fresh connection each time (not the store's pool): a pool holding a broken connection
must not hide a server that is back, nor a live pooled one a server that is gone.
"""

from __future__ import annotations

import psycopg

from ltm_desktop.postgres.url import describe, scrubbed


def probe(conninfo: str, timeout_s: int = 2) -> str | None:
    """None when the server accepts a connection within ``timeout_s`` seconds and answers
    a query, else why not (no password in it)."""
    try:
        with psycopg.connect(
            conninfo, connect_timeout=max(1, timeout_s), application_name="ltm-desktop-probe"
        ) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        reason = " ".join(scrubbed(str(exc), conninfo).split())
        return f"cannot reach {describe(conninfo)}: {reason}"
    return None
