"""The change feed on PostgreSQL: every write transaction ends with ``NOTIFY``, and a
listening connection wakes this process's consumers (``core.change_feed``).

``pg_notify`` is issued inside the write transaction, so the server delivers it only if
the transaction commits, and in commit order. Its payload is small: the writing process's
origin (a random hex token per ``PgDatabase``, so a process ignores its own commits, as
``data_version`` does) and the store's version after the commit.

The listener holds a connection of its own (a pooled one would be lent to others and
lose its ``LISTEN``), in autocommit, with TCP keepalives, on a thread that waits in
``Connection.notifies`` with a short timeout (it notices ``close`` within that). When the
connection is lost (the server restarted, the network went, ``pg_terminate_backend``) it
reconnects with back-off (never a busy loop) and then wakes its subscribers once more:
a commit made while nobody listened sent its ``NOTIFY`` to no one, and the consumers'
catch-up read of the audit history after the last event they saw finds it.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
from collections.abc import Callable

import psycopg

from ltm_desktop.core.change_feed import Wake, Wakers
from ltm_desktop.core.errors import LtmError
from ltm_desktop.postgres.conn import Conn

log = logging.getLogger(__name__)
CHANNEL = "ltm_changes"
LISTENER_NAME = "ltm-desktop-listen"  # its application_name, to tell it apart on the server
WAIT_S = 0.5  # one wait for notifications: how soon ``close`` is noticed
FIRST_RETRY_S = 0.25  # after a lost connection, doubling up to MAX_RETRY_S
MAX_RETRY_S = 5.0
_ORIGIN = re.compile(r"[0-9a-f]{16}")


def new_origin() -> str:
    """A process's name in its commits' notifications."""
    return secrets.token_hex(8)


def notify_call(origin: str, version: str) -> str:
    """The SQL expression, in a write transaction's first statements, that sends its
    ``NOTIFY`` (held by the server until the commit) with the store's version after it
    (``version``: the SQL naming that number)."""
    if not _ORIGIN.fullmatch(origin):  # spliced into SQL: only our own hex token
        raise ValueError("a notification's origin is 16 hex digits")
    return f"pg_notify('{CHANNEL}', '{origin} ' || {version})"


def foreign(payload: str, origin: str) -> bool:
    """Whether a notification came from another process than ``origin``'s."""
    return not payload.startswith(origin + " ")


def version_in(payload: str) -> int | None:
    """The store's version a notification carries (None: not one of ours)."""
    _, _, version = payload.partition(" ")
    return int(version) if version.isdigit() else None


class PgChangeFeed:
    """Wakes its subscribers when another process commits to the database (see the module)."""

    def __init__(
        self,
        connect: Callable[[], Conn],
        origin: str,
        display: str,
        heard: Callable[[int | None], None] | None = None,
    ) -> None:
        """``connect``: a new connection to the database (raising ``LtmError`` when it
        cannot, its message free of the password), bounded by a connect timeout.
        ``heard``: told the store's version after each commit notified (this process's
        too), and None whenever the listening connection is made or lost (commits
        meanwhile were not heard of); before the subscribers are woken."""
        self._connect = connect
        self._origin = origin
        self._display = display
        self._heard = heard or (lambda version: None)
        self._wakers = Wakers()
        self._stop = threading.Event()
        self.connected = threading.Event()  # set while listening (for tests and status)
        self._thread = threading.Thread(target=self._run, name="ltm-change-listen", daemon=True)
        self._thread.start()

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        return self._wakers.subscribe(wake)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(WAIT_S * 4)

    # -- the listener's thread ----------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._follow()
            except Exception:  # noqa: BLE001 - unforeseen: said, then tried again, never lost
                log.exception("the change listener failed; starting it again")
                self.connected.clear()
                self._stop.wait(MAX_RETRY_S)

    def _follow(self) -> None:
        delay = FIRST_RETRY_S
        failing = False  # said once per outage, not at every attempt
        while not self._stop.is_set():
            conn = self._open(quiet=failing)
            if conn is None:
                failing = True
                self._stop.wait(delay)
                delay = min(MAX_RETRY_S, delay * 2)
                continue
            if failing:
                log.info("listening for changes on %s again", self._display)
            failing, delay = False, FIRST_RETRY_S
            self._listen(conn)  # returns when the connection is lost or the feed closes
            self.connected.clear()
            if not self._stop.is_set():
                failing = True
                self._stop.wait(delay)

    def _open(self, *, quiet: bool) -> Conn | None:
        """A listening connection, or None (said once) when the server cannot be reached."""
        try:
            conn = self._connect()
        except LtmError as exc:
            if not quiet:
                log.warning("cannot listen for changes (retrying): %s", exc)
            return None
        try:
            conn.autocommit = True
            conn.execute(f"SET application_name = '{LISTENER_NAME}'")
            conn.execute(f"LISTEN {CHANNEL}")
            self._heard(None)  # what was committed before now was not heard of
        except psycopg.Error as exc:
            conn.close()
            if not quiet:
                log.warning("cannot listen for changes on %s (retrying): %s", self._display, exc)
            return None
        return conn

    def _listen(self, conn: Conn) -> None:
        """Wake the subscribers now (the catch-up: what was committed while nobody
        listened) and after every other process's commit, until the connection is lost."""
        self.connected.set()
        self._wakers.wake()
        try:
            while not self._stop.is_set():
                for notify in conn.notifies(timeout=WAIT_S):
                    self._heard(version_in(notify.payload))
                    if foreign(notify.payload, self._origin):
                        self._wakers.wake()
                    if self._stop.is_set():
                        break
        except psycopg.Error as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            log.warning(
                "lost the change listener's connection to %s (reconnecting): %s",
                self._display,
                first_line or type(exc).__name__,
            )
        finally:
            self._heard(None)
            conn.close()
