"""``ltm-desktop --self-test``: prove that this installation (or frozen bundle) works.

Headless and self-contained: a temporary data dir and socket, the agent API started
and used through a real client, MEMORY.md rendered, the main window opened offscreen.
Nothing outside the temporary directory is read or written, except the PostgreSQL
database named by ``--database-url`` (never the environment's or the config file's: a
team's shared database is not a place for test memories by accident). An entry point (like
cli.py), so it may compose the store, the service, the server and the window.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ltm_desktop import __version__
from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.database_url import DatabaseUrl
from ltm_desktop.core.settings.launch import resolve_launch
from ltm_desktop.launching import OpenedService, open_launch

PROJECT_DIR = "/srv/self-test/shop"
CONTENT = "Deploy the shop with `make deploy` from the release branch"
QUERY = "how do we deploy the shop?"


class SelfTestFailed(Exception):
    """A step did not do what it should."""


class SelfTest:
    """The steps, in order; each returns a line saying what it saw, or raises."""

    def __init__(self, root: Path, database_url: str | None = None) -> None:
        self.root = root
        self.database_url = database_url
        # Unix socket paths are limited to ~100 bytes: short, beside the data dir.
        self.socket_path = root / "api.sock"
        self.opened: OpenedService | None = None
        self.api: ServerThread | None = None
        self.memory_id = ""
        self.project_id = ""

    def steps(self) -> list[tuple[str, Callable[[], str]]]:
        return [
            ("data", self.open_data),
            ("api", self.start_api),
            ("write", self.write),
            ("search", self.search),
            ("meaning", self.meaning),
            ("precis", self.precis),
            ("window", self.window),
        ]

    @property
    def service(self) -> MemoryService:
        assert self.opened is not None
        return self.opened.service

    def open_data(self) -> str:
        launch = resolve_launch(self.root / "data", self.root / "config.toml")
        url = None if self.database_url is None else DatabaseUrl.parse(self.database_url)
        self.opened = open_launch(replace(launch, database_url=url))
        service = self.service
        return f"{service.database.described} (schema v{service.database.schema_version})"

    def start_api(self) -> str:
        self.api = ServerThread(
            self.service, self.service.paths.data_dir, ServerOptions(socket_path=self.socket_path)
        )
        if not self.api.start():
            raise SelfTestFailed(f"the API server did not start: {self.api.error}")
        return str(self.api.endpoint)

    def client(self) -> Client:
        return Client(self.socket_path, client_name="self-test")

    def write(self) -> str:
        with self.client() as client:
            result = client.memory_add(CONTENT, cwd=PROJECT_DIR, tags=["self-test"])
        memory = result["memory"]
        self.memory_id, self.project_id = memory["id"], memory["project_id"]
        return f"memory.add over the socket -> {result['status']} {memory['id']}"

    def search(self) -> str:
        with self.client() as client:
            hits = client.memory_search(QUERY, cwd=PROJECT_DIR)
        if not hits or hits[0]["memory"]["id"] != self.memory_id:
            raise SelfTestFailed(f"memory.search {QUERY!r} did not find the memory: {hits!r}")
        return f"memory.search {QUERY!r} -> hits: {len(hits)}, {hits[0]['snippet']!r}"

    def meaning(self) -> str:
        """The static model loads from the installation (a bundle that lost it would
        otherwise search by words without a word said)."""
        status = self.service.search.check_embedder()
        if status.problem:
            raise SelfTestFailed(status.problem)
        return f"search by meaning with {status.model}"

    def precis(self) -> str:
        info = self.service.precis(self.project_id)
        if self.memory_id not in info.memory_ids or CONTENT not in info.text:
            raise SelfTestFailed("the rendered MEMORY.md does not contain the memory")
        if Path(info.path).read_text(encoding="utf-8") != info.text:
            raise SelfTestFailed(f"{info.path} differs from the rendered precis")
        return f"MEMORY.md rendered and written, {info.bytes} of {info.budget} bytes"

    def window(self) -> str:
        from ltm_desktop.gui.app import check_window

        return check_window(self.service, self.root / "gui-settings.ini")

    def close(self) -> None:
        if self.api is not None:
            self.api.stop()
        if self.opened is not None:
            self.opened.service.close()


def run(out: Callable[[str], None] = print, *, database_url: str | None = None) -> int:
    """Run every step; 0 if all passed, 1 at the first failure (with its traceback on
    stderr, unless it is a known error whose message says it all: e.g. a database server
    that cannot be reached). ``database_url``: run on that PostgreSQL database."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt is imported: no display needed
    frozen = "frozen (PyInstaller)" if getattr(sys, "frozen", False) else "not frozen"
    out(f"ltm-desktop {__version__} self-test")
    out(f"  Python {platform.python_version()} on {sys.platform}, {frozen}")
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="ltm-selftest-"))
    test = SelfTest(root, database_url)
    try:
        for name, step in test.steps():
            try:
                out(f"  ok   {name:<8}{step()}")
            except Exception as exc:
                out(f"  FAIL {name:<8}{type(exc).__name__}: {exc}")
                if not isinstance(exc, LtmError):
                    traceback.print_exc(file=sys.stderr)
                out("self-test FAILED")
                return 1
    finally:
        test.close()
        shutil.rmtree(root, ignore_errors=True)
    out(f"self-test passed in {time.monotonic() - started:.1f} s")
    return 0
