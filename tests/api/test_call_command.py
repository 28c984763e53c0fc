"""``ltm-desktop call``: results on stdout, errors (and their data) on stderr."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from tests.console import CONSOLE_SCRIPT

pytestmark = pytest.mark.every_backend


def call(
    socket_path: Path, method: str, params: dict[str, object]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONSOLE_SCRIPT, "call", method, json.dumps(params), "--socket", str(socket_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_conflict_shows_the_current_memory_to_retry_from(
    socket_path: Path, client: Client
) -> None:
    memory = client.memory_add("deploy on Tuesdays", cwd="/srv/app")["memory"]
    seen = memory["updated_at"]
    client.memory_update(memory["id"], content="NEVER deploy on Tuesdays")

    done = call(
        socket_path,
        "memory.update",
        {"id": memory["id"], "content": "deploy on Wednesdays", "expected_updated_at": seen},
    )

    assert done.returncode == 1
    assert done.stdout == ""
    first, _, rest = done.stderr.partition("\n")
    assert first.startswith("ltm-desktop: error -32003: conflict: ")
    data = json.loads(rest)
    assert data["reason"] == "stale"
    assert data["memory"]["content"] == "NEVER deploy on Tuesdays"
    assert client.memory_get(memory["id"])["content"] == "NEVER deploy on Tuesdays"
