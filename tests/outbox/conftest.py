"""A PostgreSQL server of the test's own that it may stop and start (an outage)."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import pg_cluster
from tests.pg_server import _check_driver, unavailable


@pytest.fixture
def stoppable_pg() -> Iterator[pg_cluster.Cluster]:
    """A throwaway cluster (``halt()`` stops it keeping its data, ``resume()`` starts it
    again on the same port); removed after the test. Never the shared dev server."""
    _check_driver()
    directory = Path(tempfile.gettempdir()) / f"ltm-outage-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        cluster = pg_cluster.start_cluster(directory)
    except pg_cluster.NotInstalled as exc:
        unavailable(str(exc))
    except pg_cluster.ClusterError as exc:
        pytest.fail(f"the test cluster did not start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """Unix socket paths must be short; pytest's tmp_path can be too long."""
    path = Path(tempfile.mkdtemp(prefix="ltm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
