"""One real turn of Claude Code, Codex and Gemini CLI against the fake model server.

The model's script: write a memory with ``memory_write``, find it with ``memory_search``,
answer. What must hold for each agent (issue #28): its MCP connection works; the seeded
memory reaches the model once, from the session-start hook; the write is stored and
attributed to the agent; the search result the model gets is a JSON array; the stop hook
records the turn titled by the user's prompt; no hook fails; and uninstalling gives the
agent its settings back.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.hooks.events import NATIVE
from ltm_desktop.agent.integration.toml_config import GRACE
from tests.e2e.clis import AGENTS, CLAUDE, CLIENT_NAMES, CODEX, GEMINI, HOOK_EVENTS, tool_text
from tests.e2e.conftest import Run, new_cli, snapshot
from tests.e2e.fake_models import FINAL_TEXT, SEARCH, WRITE, WRITE_ARGS, turn_requests
from tests.e2e.harness import MARKER, PROMPT, closed_port

SERVER = "ltm-desktop"


def test_the_turn_completes_with_the_scripted_answer(run: Run) -> None:
    assert run.done.returncode == 0, f"stdout:\n{run.done.stdout}\nstderr:\n{run.done.stderr}"
    assert FINAL_TEXT in run.done.stdout
    steps = turn_requests(run.requests)
    assert len(steps) >= 3, [r.path for r in run.requests]


def test_the_mcp_server_is_connected(run: Run) -> None:
    listing = run.mcp_list.stdout + run.mcp_list.stderr
    assert run.mcp_list.returncode == 0, listing
    line = next((ln for ln in listing.splitlines() if SERVER in ln), None)
    assert line is not None, listing
    if run.agent in (CLAUDE, GEMINI):  # both check the server's health when listing
        assert "Connected" in line, listing
    _, turn = turn_requests(run.requests)[0]  # Codex lists config only: the tools show it
    assert turn.tool(WRITE) is not None, turn.tools
    assert turn.tool(SEARCH) is not None, turn.tools


def test_the_seeded_memory_reaches_the_model_exactly_once(run: Run) -> None:
    first, _ = turn_requests(run.requests)[0]
    hook_output = next(e["stdout"] for e in run.hook_events if e["event"] == "session-start")
    assert MARKER in hook_output  # the session-start hook brought it
    body = first.body.decode("utf-8")
    where = [body[max(0, m.start() - 160) : m.start()] for m in re.finditer(MARKER, body)]
    assert len(where) == 1, "the marker follows each of:\n" + "\n---\n".join(where)


def test_the_written_memory_is_stored_as_the_agents(run: Run) -> None:
    rows = run.sandbox.query(
        "SELECT title, content, source FROM memories WHERE title = ?", WRITE_ARGS["title"]
    )
    assert [(r["content"], r["source"]) for r in rows] == [
        (WRITE_ARGS["content"], CLIENT_NAMES[run.agent])
    ]


def test_the_search_result_is_a_json_array(run: Run) -> None:
    _, last = turn_requests(run.requests)[-1]
    result = next(text for name, text in last.results.items() if name.endswith(SEARCH))
    hits = json.loads(tool_text(run.agent, result))
    assert isinstance(hits, list)
    assert WRITE_ARGS["title"] in [hit.get("title") for hit in hits]


def test_the_turn_is_recorded_titled_by_the_prompt(run: Run) -> None:
    rows = run.sandbox.query("SELECT title, source FROM observations WHERE kind = 'agent_end'")
    assert [(r["title"], r["source"]) for r in rows] == [(PROMPT, CLIENT_NAMES[run.agent])]


def test_the_hooks_ran_without_a_failure(run: Run) -> None:
    events = [e["event"] for e in run.hook_events]
    for event in HOOK_EVENTS[run.agent]:
        assert event in events, events
    for ran in run.hook_events:
        assert ran["argv"][-1] == "rc=0", ran
        assert ran["stderr"] == "", ran
        json.loads(ran["stdout"] or "{}")  # the agent's documented result, or nothing
    log = run.sandbox.hook_log()
    assert "failed open" not in log, log
    assert "no result within the deadline" not in log, log
    said = (run.done.stdout + run.done.stderr).splitlines()
    complaints = [
        ln
        for ln in said
        if re.search(r"hook", ln, re.I)
        and re.search(r"error|fail|block|invalid|timed? ?out", ln, re.I)
    ]
    assert complaints == [], complaints


def test_uninstall_after_the_run_leaves_the_agents_own_state(run: Run) -> None:
    """The files as the CLI left them (its own state written: Codex's trust tables,
    ~/.claude.json's counters), minus our entries; nothing else changed."""
    run.cli.integrate("--uninstall")
    for path, after_run in run.after_run.items():
        assert after_run is not None
        before = run.before_install[path]
        expected = without_ours(path, after_run, before, str(run.sandbox.wrapper))
        assert path.exists(), f"{path} was removed"
        assert parse(path, path.read_bytes()) == expected, path
        assert SERVER not in path.read_text("utf-8"), path.read_text("utf-8")


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_right_after_install_gives_back_the_same_bytes(
    agent: str, agent_bin: Path, tmp_path: Path
) -> None:
    cli = new_cli(agent, tmp_path, agent_bin, f"http://127.0.0.1:{closed_port()}")  # no CLI runs
    before = snapshot(cli.settings_files)
    cli.integrate()
    assert snapshot(cli.settings_files) != before
    cli.integrate("--uninstall")
    assert snapshot(cli.settings_files) == before


# --- our entries, cut out of a settings file's data ---------------------------------


def parse(path: Path, data: bytes) -> Any:
    text = data.decode("utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def _ours(group: Any, wrapper: str) -> bool:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(handlers, list) or not handlers:
        return False
    return all(wrapper in str(h.get("command", "")) for h in handlers)


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def without_ours(path: Path, after_run: bytes, before: bytes | None, wrapper: str) -> Any:
    """The file's data with our hook groups and MCP server removed (and the trust Codex
    keeps for those hooks, and the start-up grace install raised), and the tables install
    created, once empty, removed too."""
    data = parse(path, after_run)
    old = parse(path, before) if before is not None else {}
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        state = hooks.get("state") if path.suffix == ".toml" else None
        for event, groups in list(hooks.items()):
            if event == "state" and state is not None or not isinstance(groups, list):
                continue
            for index, group in enumerate(groups):
                if _ours(group, wrapper) and isinstance(state, dict):
                    for handler in range(len(group["hooks"])):
                        state.pop(f"{path}:{_snake(event)}:{index}:{handler}", None)
            hooks[event] = [g for g in groups if not _ours(g, wrapper)]
            if not hooks[event] and event not in old.get("hooks", {}):
                del hooks[event]
        if state == {} and "state" not in old.get("hooks", {}):
            del hooks["state"]
        if not hooks and "hooks" not in old:
            del data["hooks"]
    if GRACE in data and GRACE not in old:  # Codex: raised for a cold start (toml_config)
        del data[GRACE]
    for key in ("mcpServers", "mcp_servers"):
        servers = data.get(key)
        if isinstance(servers, dict):
            servers.pop(SERVER, None)
            if not servers and key not in old:
                del data[key]
    return data


@pytest.mark.parametrize("run", [CODEX], indirect=True)  # only Codex asks to trust hooks
def test_codex_trusts_our_hooks_the_way_its_hooks_screen_does(run: Run) -> None:
    registered = [theirs for theirs in NATIVE[CODEX].values() if theirs]
    trust = {hook["eventName"]: hook["trustStatus"] for hook in run.trusted}
    assert trust == {name[0].lower() + name[1:]: "trusted" for name in registered}
