"""The memory a hook uses: the running app's server if one serves the data dir, else the
database opened here briefly; never a database created by a hook."""

from __future__ import annotations

import os

from ltm_desktop.agent.access import MemoryAccess, Unavailable
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.paths import resolve_data_dir

CALL_TIMEOUT = 0.7  # seconds a server may take to answer (then the database is used)
BUSY_TIMEOUT_MS = 300  # a write waits this long for another process's lock, then fails


def open_memory(
    data_dir: str | os.PathLike[str] | None, config: str | os.PathLike[str] | None, client: str
) -> MemoryAccess:
    """Raises Unavailable when there is no server and no usable store. The database URL
    comes from the environment or the config file (a hook has no option)."""
    from ltm_desktop.agent.connect import find_server
    from ltm_desktop.core.settings.launch import resolve_launch

    try:
        launch = resolve_launch(resolve_data_dir(data_dir), config)
    except LtmError as exc:  # a bad database URL: fail open, as for a missing database
        raise Unavailable(str(exc)) from exc
    found = find_server(
        launch.data_dir, client, timeout=CALL_TIMEOUT, location=launch.store_location
    )
    if found is not None:
        return found
    db_path = launch.paths.db_path
    if launch.database_url is None and not db_path.exists():
        raise Unavailable(
            f"no database at {db_path} and no ltm-desktop serving it; a hook never creates "
            "one (start ltm-desktop once, or pass the right --data-dir)"
        )
    from ltm_desktop.agent.direct_access import DirectAccess
    from ltm_desktop.launching import open_launch_briefly

    try:
        opened = open_launch_briefly(launch, busy_timeout_ms=BUSY_TIMEOUT_MS)
    except LtmError as exc:
        raise Unavailable(str(exc)) from exc
    return DirectAccess(opened.service, client)
