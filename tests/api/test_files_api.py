"""Memories that name their files, over a real socket: ``memory.add``/``update`` take
``files``, the stale list gives reasons, a search filters with ``file:``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.api.client import Client, InvalidParams
from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock

pytestmark = pytest.mark.every_backend


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "billing-api"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print()")
    return root


def test_add_update_and_show_files(client: Client, project_dir: Path) -> None:
    cwd = str(project_dir)
    added = client.call(
        "memory.add",
        {
            "cwd": cwd,
            "content": "Routing is in app.py",
            "files": [f"{cwd}/src/app.py", "docs/a.md"],
        },
    )
    memory = added["memory"]
    assert memory["files"] == ["src/app.py", "docs/a.md"]
    assert client.call("memory.get", {"id": memory["id"]})["memory"]["files"] == [
        "src/app.py",
        "docs/a.md",
    ]
    updated = client.call("memory.update", {"id": memory["id"], "files": [f"{cwd}/setup.cfg"]})
    assert updated["memory"]["files"] == ["setup.cfg"]
    plain = client.call("memory.add", {"cwd": cwd, "content": "No files here"})
    assert plain["memory"]["files"] == []
    by_client = client.memory_add("Set up in setup.py", cwd=cwd, files=["./setup.py"])
    assert by_client["memory"]["files"] == ["setup.py"]


def test_outside_the_project_is_refused_by_name(client: Client, project_dir: Path) -> None:
    with pytest.raises(InvalidParams) as caught:
        client.call(
            "memory.add", {"cwd": str(project_dir), "content": "x", "files": ["/etc/hosts"]}
        )
    assert caught.value.data == {"param": "files"}
    assert "/etc/hosts" in str(caught.value)
    assert "is outside the project" in str(caught.value)
    with pytest.raises(InvalidParams, match="files must be a list of paths"):
        client.call("memory.add", {"cwd": str(project_dir), "content": "x", "files": "a.py"})
    assert client.call("memory.list", {"cwd": str(project_dir)})["memories"] == []


def test_stale_reasons_and_file_search(
    client: Client, service: MemoryService, clock: FakeClock, project_dir: Path
) -> None:
    cwd = str(project_dir)
    added = client.call(
        "memory.add",
        {"cwd": cwd, "content": "Routing is in app.py", "importance": 8, "files": ["src/app.py"]},
    )["memory"]
    assert client.call("memory.stale", {"cwd": cwd}) == {"memories": [], "reasons": {}}
    hits = client.call("memory.search", {"cwd": cwd, "query": "file:src/app.py"})["hits"]
    assert [h["memory"]["id"] for h in hits] == [added["id"]]
    (project_dir / "src" / "app.py").unlink()
    clock.advance(61)
    stale = client.call("memory.stale", {"cwd": cwd})
    assert [m["id"] for m in stale["memories"]] == [added["id"]]
    assert stale["reasons"] == {added["id"]: ["a file it names no longer exists: src/app.py"]}


def test_a_lone_surrogate_in_a_path_is_invalid_params(client: Client, project_dir: Path) -> None:
    """As in content: a path that is no UTF-8 text is the caller's error, named."""
    cwd = str(project_dir)
    for files in (["\ud800"], [f"{cwd}/src/\udcff.py"]):
        with pytest.raises(InvalidParams, match="invalid Unicode") as caught:
            client.call("memory.add", {"cwd": cwd, "content": "Odd path", "files": files})
        assert caught.value.data == {"param": "files"}
    added = client.call("memory.add", {"cwd": cwd, "content": "Fine", "files": ["a.py"]})
    memory_id = added["memory"]["id"]
    with pytest.raises(InvalidParams, match="invalid Unicode"):
        client.call("memory.update", {"id": memory_id, "files": ["src/\ud800"]})
    assert client.call("memory.get", {"id": memory_id})["memory"]["files"] == ["a.py"]
    assert [m["id"] for m in client.call("memory.list", {"cwd": cwd})["memories"]] == [memory_id]
    with pytest.raises(InvalidParams, match="invalid Unicode") as caught:
        client.call("memory.search", {"cwd": cwd, "query": "file:\ud800 fine"})
    assert caught.value.data == {"param": "query"}
