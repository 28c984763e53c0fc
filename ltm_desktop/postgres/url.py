"""What may be said about a connection string: where it points, never its password."""

from __future__ import annotations

from psycopg.conninfo import conninfo_to_dict

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.database_url import DatabaseUrl


def _parts(conninfo: str) -> dict[str, object]:
    try:
        return dict(conninfo_to_dict(conninfo))
    except Exception:  # a malformed string: say nothing of it  # noqa: BLE001
        return {}


def describe(conninfo: str) -> str:
    """Where it points, e.g. "PostgreSQL at host:port/dbname": for a URL exactly as its
    ``DatabaseUrl`` says it (how a running server's store is told from another's)."""
    if "://" in conninfo:
        try:
            return DatabaseUrl.parse(conninfo).display
        except LtmError:
            pass
    parts = _parts(conninfo)
    host = str(parts.get("host") or parts.get("hostaddr") or "localhost")
    port = parts.get("port")
    where = f"{host}:{port}" if port else host
    dbname = parts.get("dbname") or parts.get("user") or ""
    return f"PostgreSQL at {where}/{dbname}"


def scrubbed(text: str, conninfo: str) -> str:
    """``text`` (a driver's message) with the password, and the connection string that
    holds it, replaced: a message may end up in a log or on a screen."""
    password = _parts(conninfo).get("password")
    if conninfo and conninfo in text:
        text = text.replace(conninfo, describe(conninfo))
    if isinstance(password, str) and password:
        text = text.replace(password, "***")
    return text
