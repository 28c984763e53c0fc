"""A PostgreSQL database made for one benchmark run and dropped after it.

The benchmarks that compare the engines (``core_bench.py --database-url``,
``retrieval_bench.py --database-url``, ``scale/migrate_bench.py``) take a server's URL (a
superuser, or a role that may create databases), make a database of their own on it, and
drop it when they end, however they end (``WITH (FORCE)``: a connection left open by a
server process that failed is closed with it).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths, prepare_data_dir

_made = itertools.count()


def database_url(server: str, name: str) -> str:
    """``server``'s URL naming the database ``name`` instead (its query string kept)."""
    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


@contextmanager
def scratch_database(server: str, label: str) -> Iterator[str]:
    """The URL of a new, empty database on ``server``; dropped when the block ends."""
    import psycopg

    name = f"ltm_bench_{label}_{os.getpid()}_{int(time.time())}_{next(_made)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    try:
        yield database_url(server, name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def open_pg_service(
    url: str,
    data_dir: Path,
    *,
    search_cache: bool = True,
    embedder: Embedder | None = None,
) -> MemoryService:
    """A started service on the PostgreSQL database ``url`` (its schema made if it has
    none), its MEMORY.md files and backups in ``data_dir``: as ``open_bench_service``
    for SQLite."""
    from ltm_desktop.postgres import open_postgres_store

    paths = DataPaths(data_dir)
    prepare_data_dir(data_dir)
    store = open_postgres_store(url, backup_dir=paths.backup_dir)
    service = MemoryService(
        store, paths, search_cache_size=256 if search_cache else 0, embedder=embedder
    )
    service.start()
    return service
