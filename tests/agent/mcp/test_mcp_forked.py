"""The memory opened by a forked process (``mcp_forked``) answers as when opened here.

Each scenario runs in a fresh interpreter (``python -c``): forking a test worker with its
threads would test the worker, not ``ltm-desktop mcp``, which forks before any thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.launching import open_service

pytestmark = pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork")
CWD = "/home/dev/src/billing-api"

SCENARIO = """
import json, os, sys
from ltm_desktop.agent.mcp.forked import ForkedOpening
from ltm_desktop.agent.tools.toolbox import Toolbox

data_dir, config, cwd = sys.argv[1], sys.argv[2] or None, sys.argv[3]
opening = ForkedOpening.start(data_dir, config, "mcp-client")
forked = Toolbox(data_dir=data_dir, config=config, tools="all", opener=opening.open)
forked.set_client_name("test-agent")
steps = [
    ("memory_write", {"action": "add", "content": "Deploys need the VPN, always"}),
    ("memory_search", {"query": "VPN deploys"}),
    ("memory_write", {"action": "remove", "id": "mem_nope"}),
    ("memory_recall", {"query": "deploys"}),
]
replies = [forked.run(name, arguments, cwd) for name, arguments in steps]
described = forked.access().describe() if not replies[0].is_error else ""
here = [m for m in ("ltm_desktop.store", "ltm_desktop.core.service", "sqlite3")
        if m in sys.modules]
forked.close()
opening.close()
try:
    os.waitpid(-1, os.WNOHANG)
    child_left = True
except ChildProcessError:
    child_left = False
in_process = Toolbox(data_dir=data_dir, config=config, tools="all")
in_process.set_client_name("test-agent")
again = [in_process.run(name, arguments, cwd) for name, arguments in steps[1:]]
in_process.close()
print(json.dumps({
    "forked": [[r.text, r.is_error] for r in replies],
    "in_process": [[r.text, r.is_error] for r in again],
    "described": described,
    "imported_here": here,
    "child_left": child_left,
}))
"""


def scenario(data_dir: Path, config: Path | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO, str(data_dir), str(config or ""), CWD],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def unscored(text: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in hit.items() if k != "score"} for hit in json.loads(text)]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    open_service(path).service.close()
    return path


@pytest.mark.slow
def test_the_forked_memory_answers_as_the_memory_opened_here(data_dir: Path) -> None:
    found = scenario(data_dir)
    added, searched, refused, recalled = found["forked"]
    assert not added[1], added
    assert "Deploys need the VPN" in searched[0]
    assert refused[1]  # the API's error for an unknown id, carried back as text
    assert not recalled[1], recalled
    # the same answers, word for word but for the scores (each search reinforces its hits)
    again_searched, again_refused, again_recalled = found["in_process"]
    assert again_refused == refused
    assert unscored(again_searched[0]) == unscored(searched[0])
    assert unscored(again_recalled[0]) == unscored(recalled[0])
    assert found["described"].startswith("database ")
    # the store was opened in the other process, which has ended and been waited for
    assert found["imported_here"] == []
    assert found["child_left"] is False
    opened = open_service(data_dir)
    try:
        [memory] = opened.service.list_memories(opened.service.resolve_scope(cwd=CWD))
        assert memory.source == "test-agent"  # the name set before the memory was open
    finally:
        opened.service.close()


def test_a_memory_switched_off_says_so_through_the_fork(data_dir: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[memory]\nenabled = false\n")
    found = scenario(data_dir, config)
    disabled = ["Long-term memory is disabled", True]
    assert found["forked"] == [disabled] * 4
    assert found["in_process"] == [disabled] * 3


def test_a_memory_that_cannot_be_opened_fails_as_it_would_here(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    found = scenario(not_a_dir)
    assert all(is_error for _, is_error in found["forked"])
    assert found["forked"][1:] == found["in_process"]  # later calls open it here: the same
    assert found["forked"][0][0] == found["in_process"][0][0]
    assert found["child_left"] is False


class _Recorder:
    def __init__(self, fails: bool = False) -> None:
        self.projects: list[str] = []
        self.fails = fails

    def warm(self, project_id: str) -> None:
        self.projects.append(project_id)
        if self.fails:
            raise RuntimeError("the model is missing")


def test_the_memorys_process_warms_the_projects_search(tmp_path: Path) -> None:
    """Once it has answered the first call, the child loads what a search by meaning of
    the agent's project needs (``search.warm``), so that the next search does not wait."""
    from ltm_desktop.agent.connect import open_access
    from ltm_desktop.agent.mcp.forked import _warm
    from ltm_desktop.core import rules
    from ltm_desktop.core.records import GLOBAL_PROJECT_ID

    access = open_access(tmp_path / "data", None, "mcp-client")
    try:
        service = access.service  # type: ignore[attr-defined]
        recorder = _Recorder()
        service.search = recorder
        _warm(access, CWD)
        _warm(access, None)
        assert recorder.projects == [rules.project_id_for_cwd(CWD), GLOBAL_PROJECT_ID]
        service.search = _Recorder(fails=True)
        _warm(access, CWD)  # a search then loads what it needs, as before: no error here
    finally:
        access.close()
    _warm(object(), CWD)  # type: ignore[arg-type]  # a socket's access has nothing to warm
