"""``ltm-desktop integrate``: on temp homes with the user's own settings in place, run twice,
then ``--uninstall``; what is not ours is never touched, byte for byte."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.agent.hook_process import EXECUTABLE, payload
from tests.console import assert_one_error_line

CLAUDE_SETTINGS = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}
        ]
    },
    "env": {"GREETING": "h\\u00e9llo"}
}
"""
CLAUDE_STATE = '{"numStartups": 12, "mcpServers": {"other": {"command": "npx", "args": ["-y", "x"]}}, "projects": {}}'
CODEX_CONFIG = """# my Codex settings
model = "gpt-5-codex"   # the best one

[projects."/home/me/src/shop"]
trust_level = "trusted"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send done"
"""
GEMINI_SETTINGS = '{\n  "theme": "Dracula",\n  "mcpServers": {}\n}\n'
FILES = {
    "claude-code": {".claude/settings.json": CLAUDE_SETTINGS, ".claude.json": CLAUDE_STATE},
    "codex": {".codex/config.toml": CODEX_CONFIG},
    "gemini": {".gemini/settings.json": GEMINI_SETTINGS},
}


def integrate(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    env["HOME"] = str(home)
    return subprocess.run(
        [str(EXECUTABLE), "integrate", *args],
        capture_output=True, text=True, env=env, cwd=cwd or home, timeout=60,
    )  # fmt: skip


def snapshot(home: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and ".bak" not in p.name
    }


def only_insertions(before: str, after: str) -> bool:
    """Whether ``after`` is ``before`` with text inserted and nothing else changed."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return all(tag in ("equal", "insert") for tag, *_ in matcher.get_opcodes())


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for files in FILES.values():
        for name, text in files.items():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text(text, encoding="utf-8")
    return home


def our_commands(agent: str, home: Path) -> list[str]:
    if agent == "codex":
        config = tomllib.loads((home / ".codex/config.toml").read_text())
    else:
        name = ".claude/settings.json" if agent == "claude-code" else ".gemini/settings.json"
        config = json.loads((home / name).read_text())
    return [
        handler["command"]
        for groups in config["hooks"].values()
        for group in groups
        for handler in group["hooks"]
        if " hook " in handler["command"]
    ]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_install_twice_then_uninstall_restores_every_byte(agent: str, home: Path) -> None:
    original = snapshot(home)
    first = integrate(home, agent)
    assert first.returncode == 0, first.stderr
    installed = snapshot(home)
    for name, text in FILES[agent].items():
        after = installed[name].decode()
        assert after != text
        assert only_insertions(text, after), name
    commands = our_commands(agent, home)
    events = 4 if agent == "codex" else 5
    assert len(commands) == events
    assert all(shlex.split(c)[0] == str(EXECUTABLE) for c in commands)  # absolute path
    assert len(list(home.rglob("*.ltm-desktop-*.bak"))) == len(FILES[agent])

    second = integrate(home, agent)
    assert second.returncode == 0, second.stderr
    assert "already as it should be" in second.stdout
    assert snapshot(home) == installed
    assert len(list(home.rglob("*.ltm-desktop-*.bak"))) == len(FILES[agent])

    removed = integrate(home, agent, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert snapshot(home) == original


def test_the_mcp_server_is_registered_like_the_connect_snippets(home: Path) -> None:
    assert integrate(home, "claude-code").returncode == 0
    state = json.loads((home / ".claude.json").read_text())
    assert state["numStartups"] == 12
    assert state["mcpServers"]["other"] == {"command": "npx", "args": ["-y", "x"]}
    assert state["mcpServers"]["ltm-desktop"] == {
        "type": "stdio", "command": str(EXECUTABLE), "args": ["mcp"]
    }  # fmt: skip
    assert integrate(home, "codex").returncode == 0
    codex = tomllib.loads((home / ".codex/config.toml").read_text())
    assert codex["mcp_servers"]["ltm-desktop"] == {"command": str(EXECUTABLE), "args": ["mcp"]}
    assert codex["mcp_servers"]["github"]["command"] == "npx"
    assert codex["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"


def test_files_it_creates_are_removed_again(tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    for agent in ("claude-code", "codex", "gemini"):
        assert integrate(home, agent).returncode == 0
    assert (home / ".claude/settings.json").exists()
    assert (home / ".claude.json").exists()
    for agent in ("claude-code", "codex", "gemini"):
        assert integrate(home, agent, "--uninstall").returncode == 0
    assert snapshot(home) == {}


def test_uninstall_after_the_user_edited_removes_only_ours(home: Path) -> None:
    assert integrate(home, "claude-code").returncode == 0
    settings = home / ".claude/settings.json"
    edited = settings.read_text().replace(
        '"model": "opus",', '"model": "opus",\n    "theme": "dark",'
    )
    settings.write_text(edited)
    assert integrate(home, "claude-code", "--uninstall").returncode == 0
    assert settings.read_text() == CLAUDE_SETTINGS.replace(
        '"model": "opus",', '"model": "opus",\n    "theme": "dark",'
    )
    assert not (home / ".claude.json").read_text().count("ltm-desktop")


def test_dry_run_prints_the_diff_and_changes_nothing(home: Path) -> None:
    before = snapshot(home)
    done = integrate(home, "gemini", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"--- {home / '.gemini/settings.json'}")
    assert f'"command": "{EXECUTABLE} hook gemini session-start"' in done.stdout
    assert all(line[:1] in "-+ @" for line in done.stdout.splitlines())
    assert snapshot(home) == before
    assert not list(home.rglob("*.bak"))


def test_project_scope_and_global_options_reach_the_commands(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    data = tmp_path / "data"
    done = integrate(
        home, "claude-code", "--scope", "project", "--data-dir", str(data), cwd=project
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [str(EXECUTABLE), "--data-dir", str(data), "hook",
                                    "claude-code", "session-start"]  # fmt: skip
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["ltm-desktop"]["args"] == ["--data-dir", str(data), "mcp"]


def test_the_registered_commands_run(home: Path, tmp_path: Path) -> None:
    assert integrate(home, "codex").returncode == 0
    for command in our_commands("codex", home):
        event = shlex.split(command)[-1]
        done = subprocess.run(shlex.split(command), input=payload("codex", event, tmp_path),
                              capture_output=True, timeout=20)  # fmt: skip
        assert done.returncode == 0
        assert json.loads(done.stdout) == {}  # no database yet: the valid empty result


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (".gemini/settings.json", '{\n  // my theme\n  "theme": "x"\n}\n', "is not valid JSON"),
        (".claude/settings.json", '{"hooks": [1, 2]}', '"hooks" in'),
        (".codex/config.toml", "model = [unclosed\n", "is not valid TOML"),
    ],
)
def test_refuses_an_unparseable_file_and_changes_nothing(
    home: Path, name: str, text: str, expected: str
) -> None:
    (home / name).write_text(text)
    before = snapshot(home)
    agent = {".gemini": "gemini", ".claude": "claude-code", ".codex": "codex"}[name.split("/")[0]]
    done = integrate(home, agent)
    assert_one_error_line(done, str(home / name), expected)
    assert snapshot(home) == before
    assert not list(home.rglob("*.bak"))


def test_refuses_what_cannot_be_written(home: Path) -> None:
    settings = home / ".gemini/settings.json"
    settings.unlink()
    settings.mkdir()  # a directory where the file should be
    done = integrate(home, "gemini")
    assert_one_error_line(done, str(settings), "is a directory")
    blocked = home / "blocked"
    blocked.mkdir()
    (blocked / ".claude").write_text("a file where a directory should be")
    before = snapshot(blocked)
    done = integrate(blocked, "claude-code")
    assert_one_error_line(done, "cannot be written")
    assert snapshot(blocked) == before


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
@pytest.mark.parametrize("had_settings", [False, True])
def test_uninstalling_from_a_project_leaves_it_as_it_was(
    home: Path, tmp_path: Path, agent: str, had_settings: bool
) -> None:
    """No backup files or empty folders are left behind to be committed by mistake."""
    project = tmp_path / "shop"
    project.mkdir()
    (project / "README.md").write_text("# shop\n")
    if had_settings:
        name = {"claude-code": ".claude/settings.json", "codex": ".codex/config.toml",
                "gemini": ".gemini/settings.json"}[agent]  # fmt: skip
        (project / name).parent.mkdir()
        (project / name).write_text('model = "x"\n' if agent == "codex" else '{"a": 1}\n')
    before = {
        str(p.relative_to(project)): p.read_bytes() for p in project.rglob("*") if p.is_file()
    }
    folders = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_dir())
    assert integrate(home, agent, "--scope", "project", cwd=project).returncode == 0
    assert list(project.rglob("*.bak")) == [] or had_settings  # install backs up what it changes

    done = integrate(home, agent, "--scope", "project", "--uninstall", cwd=project)

    assert done.returncode == 0, done.stderr
    after = {str(p.relative_to(project)): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_dir()) == folders
