"""examples/agent_loop.py, offline: the whole cycle of an agent with long-term memory."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from ltm_desktop.agent.nudge import Nudge
from ltm_desktop.agent.tools.catalogue import CATALOGUE
from ltm_desktop.agent.tools.toolbox import Toolbox
from ltm_desktop.launching import open_service

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_loop.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_loop", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_the_cycle(tmp_path: Path) -> None:
    example = load_example()
    cwd = str(tmp_path / "shop")
    model = example.ScriptedModel()
    with Toolbox(data_dir=tmp_path / "data", client_name="example-agent", tools="all") as memory:
        loop = example.AgentLoop(memory, cwd, model, nudge=Nudge(2, "Save it with memory_write."))
        answers = loop.run()
    assert answers[-1] == "Run ./scripts/deploy.sh, from the release branch only."
    # the tools come from the catalogue
    assert all(call.tools == [spec.name for spec in CATALOGUE] for call in model.calls)
    turn1, turn2, turn3, turn3_after_tool, turn4 = model.calls
    # written in turn 3, in the system prompt of turn 4 (re-read every turn)
    assert "./scripts/deploy.sh" not in turn3.system
    assert "## Long-Term Memory" in turn4.system
    assert "./scripts/deploy.sh" in turn4.system
    # the nudge every 2 turns, on a copy: shown, never stored, never accumulated
    nudged = ["Save it with memory_write." in str(c.messages[-1]["content"]) for c in model.calls]
    assert nudged == [False, True, False, False, True]
    assert all(str(m["content"]).count("memory_write.") <= 1 for m in turn4.messages)
    assert not any("Save it with" in str(m["content"]) for m in loop.messages)
    opened = open_service(tmp_path / "data")
    try:
        service = opened.service
        project = service.resolve_scope(cwd=cwd)
        [saved] = service.list_memories(project)
        assert saved.content == "Deploy with ./scripts/deploy.sh from the release branch only."
        assert saved.source == "example-agent"
        kinds = [o.kind.value for o in service.observations.page(project)]
        assert sorted(kinds) == ["agent_end"] * 4 + ["pre_compact"]
    finally:
        opened.service.close()


def test_runs_as_a_script_offline(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--data-dir",
            str(tmp_path / "data"),
            "--cwd",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "model: Run ./scripts/deploy.sh, from the release branch only." in done.stdout
