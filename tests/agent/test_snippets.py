"""The "Connect an agent" snippets parse, name the real executable, and start a server."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest

from ltm_desktop.agent.snippets import SERVER_NAME, Snippet, agent_snippets, markdown
from tests.agent.mcp_client import EXECUTABLE, mcp_session

ROOT = Path(__file__).resolve().parents[2]
# The snippets and the toolbox example live in docs/agents.md (the README links there).
AGENTS_DOC = ROOT / "docs" / "agents.md"
README_COMMAND = ["/home/me/.local/bin/ltm-desktop"]  # where `pipx install` puts it
README_HOME = "/home/me"
AGENTS = ["Claude Code", "Claude Desktop", "Cursor", "VS Code", "Codex", "Gemini CLI"]


def server_command(snippet: Snippet) -> list[str]:
    """What the agent would run, read back from the snippet as the agent reads it."""
    if snippet.syntax == "sh":
        words = shlex.split(snippet.text)
        assert words[:3] == ["claude", "mcp", "add"]
        assert words[words.index("--") - 1] == SERVER_NAME
        return words[words.index("--") + 1 :]
    config: dict[str, Any]
    if snippet.syntax == "toml":
        config = tomllib.loads(snippet.text)["mcp_servers"][SERVER_NAME]
    else:
        parsed = json.loads(snippet.text)
        config = (parsed.get("mcpServers") or parsed["servers"])[SERVER_NAME]
        if "servers" in parsed:
            assert config["type"] == "stdio"
    return [config["command"], *config["args"]]


def test_one_snippet_per_agent_naming_the_installed_executable() -> None:
    snippets = agent_snippets()
    assert [s.agent for s in snippets] == AGENTS
    for snippet in snippets:
        command = server_command(snippet)
        assert Path(command[0]) == EXECUTABLE
        assert Path(command[0]).is_absolute()
        assert command[1] == "mcp"


def test_a_path_with_spaces_and_quotes_survives_every_format() -> None:
    odd = ['/Users/Jo "JJ" O\'Neil/My Apps/ltm-desktop']
    for snippet in agent_snippets(odd, home="/Users/Jo"):
        assert server_command(snippet)[0] == odd[0]


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(AGENTS)), ids=AGENTS)
def test_each_snippet_starts_a_working_server(index: int, tmp_path: Path) -> None:
    snippet = agent_snippets()[index]
    command = server_command(snippet)
    args = command[2:]  # after "mcp": what the snippet adds (Claude Desktop's --cwd)

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with mcp_session(tmp_path / "data", args, stderr=tmp_path / "e.txt") as session:
                names = [t.name for t in (await session.client.list_tools()).tools]
                assert names == ["memory_write", "memory_search"]

    anyio.run(scenario)


def test_the_docs_show_the_same_snippets() -> None:
    text = AGENTS_DOC.read_text(encoding="utf-8")
    expected = markdown(agent_snippets(README_COMMAND, home=README_HOME))
    assert expected in text, "docs/agents.md's agent snippets are out of date; paste:\n" + expected


def test_the_docs_toolbox_example_runs() -> None:
    text = AGENTS_DOC.read_text(encoding="utf-8")
    section = text[text.index("## In an agent framework") :]
    start = section.index("```python\n") + len("```python\n")
    code = section[start : section.index("\n```", start)]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/agents.md", "exec"), namespace)  # noqa: S102 - our own docs
    assert [t["name"] for t in namespace["tools"]][:2] == ["memory_write", "memory_search"]
    assert isinstance(json.loads(namespace["text"]), list)  # the text is the JSON array
