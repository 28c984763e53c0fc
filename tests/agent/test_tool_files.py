"""The tools take and show ``files`` (over the socket and in-process)."""

from __future__ import annotations

import json

from ltm_desktop.agent.tools.catalogue import BY_NAME
from tests.agent.conftest import CWD, Memory
from tests.agent.test_tools import first_id


def test_schemas_offer_files() -> None:
    for name in ("memory_write", "memory_save"):
        files = BY_NAME[name].schema["properties"]["files"]
        assert files["type"] == "array"
        assert files["items"]["type"] == "string"


def test_write_save_and_search_with_files(memory: Memory) -> None:
    text = memory.run(
        "memory_write",
        action="add",
        content="Routing lives in the app module",
        files=[f"{CWD}/src/app.py", "src/routes.py"],
    )
    stored = memory.service.get(first_id(text))
    assert stored.files == ("src/app.py", "src/routes.py")
    saved = memory.run("memory_save", content="Payments retry thrice", files=["pay.py"])
    assert memory.service.get(first_id(saved)).files == ("pay.py",)
    memory.run("memory_write", action="update", id=stored.id, files=["src/main.py"])
    assert memory.service.get(stored.id).files == ("src/main.py",)
    [row] = json.loads(memory.run("memory_search", query="file:src/main.py"))
    assert (row["id"], row["files"]) == (stored.id, ["src/main.py"])


def test_a_file_outside_the_project_is_refused(memory: Memory) -> None:
    reply = memory.tools.run(
        "memory_write", {"action": "add", "content": "x", "files": ["/etc/hosts"]}, CWD
    )
    assert reply.is_error
    assert "'/etc/hosts' is outside the project" in reply.text
    assert memory.service.count_memories(memory.project()) == 0
