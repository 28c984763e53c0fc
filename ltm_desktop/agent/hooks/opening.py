"""The memory a hook uses: the running app's server if one serves the data dir, else the
database opened here briefly; never a database created by a hook."""

from __future__ import annotations

import os

from ltm_desktop.agent.access import MemoryAccess, Unavailable
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.paths import DataPaths, resolve_data_dir

CALL_TIMEOUT = 0.7  # seconds a server may take to answer (then the database is used)
BUSY_TIMEOUT_MS = 300  # a write waits this long for another process's lock, then fails


def open_memory(
    data_dir: str | os.PathLike[str] | None, config: str | os.PathLike[str] | None, client: str
) -> MemoryAccess:
    """Raises Unavailable when there is no server and no usable database."""
    from ltm_desktop.agent.connect import find_server

    path = resolve_data_dir(data_dir)
    found = find_server(path, client, timeout=CALL_TIMEOUT)
    if found is not None:
        return found
    db_path = DataPaths(path).db_path
    if not db_path.exists():
        raise Unavailable(
            f"no database at {db_path} and no ltm-desktop serving it; a hook never creates "
            "one (start ltm-desktop once, or pass the right --data-dir)"
        )
    from ltm_desktop.agent.direct_access import DirectAccess
    from ltm_desktop.app import open_service_briefly

    try:
        opened = open_service_briefly(path, config, busy_timeout_ms=BUSY_TIMEOUT_MS)
    except LtmError as exc:
        raise Unavailable(str(exc)) from exc
    return DirectAccess(opened.service, client)
