"""What differs between the three agent CLIs: their own config, how each is run offline
for one turn, and where each puts our MCP tools' results.

Each CLI gets, before ``integrate``, the config a person would have (the model endpoint,
and for Gemini the auth type and the folder trusted). After ``integrate``, Codex's hooks
are trusted the way its ``/hooks`` screen does it: Codex's own app server lists them with
their hashes and writes the ``[hooks.state."…"] trusted_hash`` tables into config.toml.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.agent.hooks.events import NATIVE, PRE_COMPACT
from tests.e2e.harness import PROMPT, TIMEOUT, Sandbox

CLAUDE, CODEX, GEMINI = "claude-code", "codex", "gemini"
AGENTS = (CLAUDE, CODEX, GEMINI)
COMMANDS = {CLAUDE: "claude", CODEX: "codex", GEMINI: "gemini"}
CLIENT_NAMES = {CLAUDE: "claude-code", CODEX: "codex", GEMINI: "gemini-cli"}
# The hook events a one-turn run must fire: all that integrate registers but pre-compact
# (no compaction in one short turn; Gemini fires PreCompress anyway, see NOTES).
HOOK_EVENTS = {
    agent: [ours for ours, theirs in NATIVE[agent].items() if theirs and ours != PRE_COMPACT]
    for agent in AGENTS
}


@dataclass(frozen=True)
class Cli:
    agent: str
    sandbox: Sandbox
    model_url: str

    @property
    def settings_files(self) -> list[Path]:
        """The files ``integrate --scope user`` edits."""
        home = self.sandbox.home
        if self.agent == CLAUDE:
            return [home / ".claude" / "settings.json", home / ".claude.json"]
        if self.agent == CODEX:
            return [home / ".codex" / "config.toml"]
        return [home / ".gemini" / "settings.json"]

    @property
    def env(self) -> dict[str, str]:
        if self.agent == CLAUDE:
            return {
                "ANTHROPIC_BASE_URL": self.model_url,
                "ANTHROPIC_API_KEY": "sk-ant-e2e-fake",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_ERROR_REPORTING": "1",
                # `claude -p` waits for our MCP server before the turn: by default it goes on
                # without it after 5 s, and on a loaded machine (parallel tests) starting
                # Python and the MCP SDK can take longer: the model then had no memory tools.
                "MCP_CONNECTION_NONBLOCKING": "0",
                "MCP_CONNECT_TIMEOUT_MS": "120000",
            }
        if self.agent == CODEX:
            return {"E2E_FAKE_OPENAI_KEY": "sk-e2e-fake"}
        return {"GEMINI_API_KEY": "e2e-fake", "GOOGLE_GEMINI_BASE_URL": self.model_url}

    def configure(self) -> None:
        """The person's own config, as it is before they run ``integrate``."""
        home = self.sandbox.home
        if self.agent == CLAUDE:
            _write(
                home / ".claude" / "settings.json",
                '{\n  "includeCoAuthoredBy": false,\n  "cleanupPeriodDays": 30\n}\n',
            )
            _write(
                home / ".claude.json",
                '{\n  "hasCompletedOnboarding": true,\n  "numStartups": 3\n}\n',
            )
        elif self.agent == CODEX:
            _write(
                home / ".codex" / "config.toml",
                (
                    "# my Codex config\n"
                    'model = "gpt-e2e"\n'
                    'model_provider = "e2e"\n'
                    "\n"
                    "[model_providers.e2e]  # the fake model server\n"
                    'name = "e2e"\n'
                    f'base_url = "{self.model_url}/v1"\n'
                    'wire_api = "responses"\n'
                    'env_key = "E2E_FAKE_OPENAI_KEY"\n'
                ),
            )
        else:
            settings = {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            }
            _write(home / ".gemini" / "settings.json", json.dumps(settings, indent=2) + "\n")
            # What answering "Trust folder" writes (untrusted: no tools, no yolo).
            _write(
                home / ".gemini" / "trustedFolders.json",
                json.dumps({str(self.sandbox.project): "TRUST_FOLDER"}, indent=2),
            )

    def integrate(self, *extra: str) -> str:
        return self.sandbox.ltm("integrate", self.agent, "--scope", "user", *extra).stdout

    def trust_hooks(self) -> list[dict[str, Any]]:
        """Codex: trust our hooks as /hooks does (its app server writes the trust); the
        hooks as Codex lists them afterwards."""
        if self.agent != CODEX:
            return []
        with AppServer(self.sandbox) as server:
            listed = server.call("hooks/list", {"cwds": [str(self.sandbox.project)]})
            hooks = listed["data"][0]["hooks"]
            state = {hook["key"]: {"trusted_hash": hook["currentHash"]} for hook in hooks}
            server.call(
                "config/batchWrite",
                {"edits": [{"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}]},
            )
            again = server.call("hooks/list", {"cwds": [str(self.sandbox.project)]})
        return list(again["data"][0]["hooks"])

    def turn(self) -> subprocess.CompletedProcess[str]:
        """One non-interactive turn with PROMPT, our MCP tools allowed."""
        if self.agent == CLAUDE:
            allowed = "mcp__ltm-desktop__memory_write,mcp__ltm-desktop__memory_search"
            argv = ["claude", "-p", PROMPT, "--allowedTools", allowed]
        elif self.agent == CODEX:
            argv = ["codex", "exec", "--dangerously-bypass-approvals-and-sandbox", PROMPT]
        else:
            argv = ["gemini", "-p", PROMPT, "--yolo"]
        return self.sandbox.run(argv, self.env)

    def mcp_list(self) -> subprocess.CompletedProcess[str]:
        return self.sandbox.run([COMMANDS[self.agent], "mcp", "list"], self.env)


def tool_text(agent: str, text: str) -> str:
    """Our tool's own text within what the CLI sent the model: Codex puts a "Wall time"
    part before it, Gemini wraps it in <untrusted_context>."""
    if agent == CODEX and text.startswith("Wall time:"):
        return text.partition("Output:")[2]
    if agent == GEMINI:
        text = text.strip()
        opening, closing = "<untrusted_context>", "</untrusted_context>"
        if text.startswith(opening) and text.endswith(closing):
            return text[len(opening) : -len(closing)]
    return text


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class AppServer:
    """``codex app-server``: JSON-RPC over stdio, the interface Codex's own UIs use."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.process = subprocess.Popen(
            ["codex", "app-server"],
            cwd=sandbox.project,
            env=sandbox.env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def __enter__(self) -> AppServer:
        self.call("initialize", {"clientInfo": {"name": "ltm-desktop-e2e", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.close()
        self.process.stdout.close()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """The result of one request (notifications in between are skipped)."""
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        for line in self.process.stdout:  # ends when the server exits
            message = json.loads(line)
            if message.get("id") == self.next_id:
                assert "error" not in message, f"codex app-server {method}: {message['error']}"
                return message["result"]
        raise AssertionError(f"codex app-server exited before answering {method}")
