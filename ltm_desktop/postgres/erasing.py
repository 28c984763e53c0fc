"""Physical deletion of an erased memory (the only one), and of a proposal copied from it.

The row goes with its tags, files, token set and vector (``ON DELETE CASCADE``) and its
search document (a column of the row). What stays is a note that its pk was erased
(``memory_index_erased``: no text), so every process's vector snapshots drop it. The dead
row versions stay in the table's pages until VACUUM (``PostgresStore.scrub``) makes their
space reusable; VACUUM does not overwrite them, and the server's WAL and any base backup
or replica keep what they kept (docs/privacy.md says so).
"""

from __future__ import annotations

from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.vectors import record_erased


def trashed_ids(conn: Conn, project_pk: int) -> list[str]:
    rows = conn.execute(
        "SELECT id FROM memories WHERE project_pk = %s AND disabled = 1 ORDER BY pk",
        (project_pk,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def erase_memory(conn: Conn, pk: int, project_pk: int) -> None:
    record_erased(conn, pk, project_pk)  # first: the cascade would drop its index row unseen
    conn.execute("DELETE FROM memories WHERE pk = %s", (pk,))


def approved_into(conn: Conn, memory_id: str) -> list[str]:
    rows = conn.execute("SELECT id FROM proposals WHERE memory_id = %s", (memory_id,)).fetchall()
    return [str(row[0]) for row in rows]


def erase_proposal(conn: Conn, proposal_id: str) -> None:
    conn.execute("DELETE FROM proposals WHERE id = %s", (proposal_id,))
