"""``memory.erase`` and ``memory.empty_trash`` over a real socket."""

from __future__ import annotations

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.api.client_errors import ConflictError, NotFoundError
from ltm_desktop.core.records import GLOBAL_PROJECT_ID


def test_erase_over_the_socket(client: Client) -> None:
    memory = client.memory_add("Old staging host was vm-12", project_id=GLOBAL_PROJECT_ID)
    memory_id = memory["memory"]["id"]
    with pytest.raises(ConflictError, match="remove it first") as info:
        client.call("memory.erase", {"id": memory_id})
    assert info.value.reason == "active"
    client.memory_remove(memory_id)
    done = client.call("memory.erase", {"id": memory_id})
    assert done["erased"] == [memory_id]
    assert done["scrubbed"] is True
    assert "backups taken before still hold it" in done["note"]
    history = client.memory_history(memory_id)
    assert [e["action"] for e in history] == ["created", "removed", "erased"]
    assert all(e["before"] is None for e in history)
    with pytest.raises(NotFoundError):
        client.memory_get(memory_id)


def test_empty_trash_over_the_socket(client: Client) -> None:
    ids = []
    for text in ("Old staging host was vm-12", "The admin lived at /admin-old"):
        ids.append(client.memory_add(text, project_id=GLOBAL_PROJECT_ID)["memory"]["id"])
        client.memory_remove(ids[-1])
    done = client.call("memory.empty_trash", {"project_id": GLOBAL_PROJECT_ID})
    assert sorted(done["erased"]) == sorted(ids)
    assert client.call("memory.empty_trash", {"project_id": GLOBAL_PROJECT_ID})["erased"] == []
