"""``ltm-desktop integrate``: on temp homes with the user's own settings in place, run twice,
then ``--uninstall``; what is not ours is never touched, byte for byte."""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.hooks.events import EVENTS
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
# Codex 0.171's session-end.command.input schema: every field it requires
CODEX_SESSION_END = json.dumps(
    {
        "session_id": "019add38-07f3-7e93-ae71-3e0095eb0315",
        "cwd": "/tmp",
        "hook_event_name": "SessionEnd",
        "reason": "other",
        "transcript_path": None,
    }
).encode()
GEMINI_SETTINGS = '{\n  "theme": "Dracula",\n  "mcpServers": {}\n}\n'
FILES = {
    "claude-code": {".claude/settings.json": CLAUDE_SETTINGS, ".claude.json": CLAUDE_STATE},
    "codex": {".codex/config.toml": CODEX_CONFIG},
    "gemini": {".gemini/settings.json": GEMINI_SETTINGS},
}


def integrate(
    home: Path, *args: str, cwd: Path | None = None, on_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The real ``integrate``, with ``HOME`` at ``home`` and PATH the system's folders
    after ``on_path`` (``EXECUTABLE.parent``: this installation is on PATH)."""
    env = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    env["HOME"] = str(home)
    env["PATH"] = os.pathsep.join([*([str(on_path)] if on_path else []), "/usr/bin", "/bin"])
    return subprocess.run(
        [str(EXECUTABLE), "integrate", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or home,
        timeout=60,
    )


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


def json_without_comments(text: str) -> str:
    return re.sub(
        r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S
    )


def our_commands(agent: str, home: Path) -> list[str]:
    if agent == "codex":
        config = tomllib.loads((home / ".codex/config.toml").read_text())
    else:
        name = ".claude/settings.json" if agent == "claude-code" else ".gemini/settings.json"
        config = json.loads((home / name).read_text())
    return our_commands_in(config)


def our_commands_in(config: dict[str, Any]) -> list[str]:
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
    assert len(commands) == 5  # Codex has SessionEnd too since 0.171
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
        "type": "stdio",
        "command": str(EXECUTABLE),
        "args": ["mcp", "--instructions", "brief"],
    }
    assert integrate(home, "codex").returncode == 0
    codex = tomllib.loads((home / ".codex/config.toml").read_text())
    assert codex["mcp_servers"]["ltm-desktop"] == {
        "command": str(EXECUTABLE),
        "args": ["mcp", "--instructions", "brief"],
        "startup_timeout_sec": 20,
    }
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


def test_uninstall_after_a_second_install_over_an_edited_entry_removes_ours(home: Path) -> None:
    """The second install's backup held the first install's entries: uninstall restored
    it, and said it had removed them."""
    assert integrate(home, "claude-code").returncode == 0
    for backup in home.rglob("*.ltm-desktop-*.bak"):  # made a day earlier
        backup.rename(
            backup.with_name(
                backup.name.split(".ltm-desktop-")[0] + ".ltm-desktop-20000101-000000.bak"
            )
        )
    settings = home / ".claude/settings.json"
    settings.write_text(settings.read_text().replace('"timeout": ', '"timeout": 1', 1))
    assert integrate(home, "claude-code").returncode == 0
    assert integrate(home, "claude-code", "--uninstall").returncode == 0
    assert settings.read_text() == CLAUDE_SETTINGS


def test_uninstall_takes_ours_out_of_a_group_the_person_shares(home: Path) -> None:
    assert integrate(home, "claude-code").returncode == 0
    settings = home / ".claude/settings.json"
    config = json.loads(settings.read_text())
    ours = config["hooks"]["SessionStart"][0]["hooks"]
    ours.append({"type": "command", "command": "mine.sh"})
    settings.write_text(json.dumps(config, indent=4))
    assert integrate(home, "claude-code", "--uninstall").returncode == 0
    left = json.loads(settings.read_text())
    assert left["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": "mine.sh"}]}]
    assert "ltm-desktop" not in settings.read_text()
    assert left["hooks"]["Stop"] == json.loads(CLAUDE_SETTINGS)["hooks"]["Stop"]


def test_gemini_settings_with_comments_are_edited_and_given_back(home: Path) -> None:
    """Gemini CLI reads comments in its settings.json; integrate refused such a file."""
    settings = home / ".gemini/settings.json"
    commented = (
        '{\n  // my theme, chosen with care\n  "theme": "Dracula", /* "quotes" inside */\n'
        '  "mcpServers": {},\n  "docs": "https://example.com//path"\n}\n'
    )
    settings.write_text(commented)
    done = integrate(home, "gemini")
    assert done.returncode == 0, done.stderr
    installed = settings.read_text()
    assert only_insertions(commented, installed)
    assert len(our_commands_in(json.loads(json_without_comments(installed)))) == 5
    assert integrate(home, "gemini", "--uninstall").returncode == 0
    assert settings.read_text() == commented


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_crlf_files_keep_crlf_line_ends(agent: str, home: Path) -> None:
    for name, text in FILES[agent].items():
        (home / name).write_bytes(text.replace("\n", "\r\n").encode())
    original = snapshot(home)
    assert integrate(home, agent).returncode == 0
    for name in FILES[agent]:
        data = (home / name).read_bytes()
        if b"\n" in original[name]:
            assert data.count(b"\n") == data.count(b"\r\n"), name  # no bare LF added
    assert integrate(home, agent, "--uninstall").returncode == 0
    assert snapshot(home) == original


def gemini_settings_moved_to(home: Path, name: str) -> tuple[Path, Path]:
    """Dotfiles: Gemini's settings moved to ``~/dotfiles/NAME`` and linked back; (the
    link, the file it names)."""
    dotfiles = home / "dotfiles" / name
    dotfiles.parent.mkdir()
    link = home / ".gemini/settings.json"
    dotfiles.write_text(link.read_text())
    link.unlink()
    link.symlink_to(dotfiles)
    return link, dotfiles


def test_a_symlinked_settings_file_is_edited_where_it_points(home: Path) -> None:
    """Dotfiles: the link stays a link, and the file it names gets our entries."""
    link, dotfiles = gemini_settings_moved_to(home, "gemini.json")
    assert integrate(home, "gemini").returncode == 0
    assert link.is_symlink()
    assert "ltm-desktop" in dotfiles.read_text()
    assert integrate(home, "gemini", "--uninstall").returncode == 0
    assert link.is_symlink()
    assert dotfiles.read_text() == GEMINI_SETTINGS


def test_a_symlinked_file_that_held_only_ours_is_emptied_not_deleted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    target = home / "dotfiles" / "gemini.json"
    target.parent.mkdir(parents=True)
    target.write_text("")
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").symlink_to(target)
    assert integrate(home, "gemini").returncode == 0
    assert integrate(home, "gemini", "--uninstall").returncode == 0
    assert (home / ".gemini/settings.json").is_symlink()
    assert json.loads(target.read_text()) == {}


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
    assert shlex.split(command) == [
        str(EXECUTABLE),
        "--data-dir",
        str(data),
        "hook",
        "claude-code",
        "session-start",
    ]
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["ltm-desktop"]["args"] == [
        "--data-dir",
        str(data),
        "mcp",
        "--instructions",
        "brief",
    ]


def test_the_registered_commands_run(home: Path, tmp_path: Path) -> None:
    assert integrate(home, "codex").returncode == 0
    commands = our_commands("codex", home)
    assert sorted(shlex.split(c)[-1] for c in commands) == sorted(EVENTS)
    for command in commands:
        event = shlex.split(command)[-1]
        stdin = CODEX_SESSION_END if event == "session-end" else payload("codex", event, tmp_path)
        done = subprocess.run(shlex.split(command), input=stdin, capture_output=True, timeout=20)
        assert done.returncode == 0
        assert json.loads(done.stdout) == {}  # no database yet: the valid empty result


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (".gemini/settings.json", '{\n  /* never closed\n  "theme": "x"\n}\n', "is not valid JSON"),
        (".claude/settings.json", '{"hooks": [1, 2]}', '"hooks" in'),
        (".codex/config.toml", "model = [unclosed\n", "is not valid TOML"),
        # parsers keep the last "hooks"; ours would go into the first, and never run
        (".claude/settings.json", '{"hooks": {"Stop": []}, "hooks": {}}', '"hooks" appears twice'),
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
        name = {
            "claude-code": ".claude/settings.json",
            "codex": ".codex/config.toml",
            "gemini": ".gemini/settings.json",
        }[agent]
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


def test_a_loop_of_links_is_refused_by_name(home: Path) -> None:
    link = home / ".gemini/settings.json"
    link.unlink()
    link.symlink_to("settings.json")
    done = integrate(home, "gemini")
    assert_one_error_line(done, str(link), "cannot be read")


def test_backups_of_a_file_with_glob_characters_in_its_name_are_found(home: Path) -> None:
    _, target = gemini_settings_moved_to(home, "gemini[work].json")
    assert integrate(home, "gemini").returncode == 0
    assert integrate(home, "gemini", "--uninstall").returncode == 0
    assert target.read_text() == GEMINI_SETTINGS  # its backup's bytes, given back


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_a_server_entry_from_before_instructions_brief_is_updated_and_removed(
    agent: str, home: Path
) -> None:
    """Entries written before ``--instructions brief`` was added are ours all the same."""
    assert integrate(home, agent).returncode == 0
    for name in FILES[agent]:
        path = home / name
        path.write_text(path.read_text().replace(', "--instructions", "brief"', ""))
    assert "--instructions" not in "".join((home / n).read_text() for n in FILES[agent])

    assert integrate(home, agent).returncode == 0
    assert "--instructions" in "".join((home / n).read_text() for n in FILES[agent])
    for name in FILES[agent]:
        path = home / name
        path.write_text(path.read_text().replace(', "--instructions", "brief"', ""))
    assert integrate(home, agent, "--uninstall").returncode == 0
    assert "ltm-desktop" not in "".join((home / n).read_text() for n in FILES[agent])


def test_the_connect_snippets_keep_the_full_instructions() -> None:
    """An MCP-only client has no session-start hook to give it MEMORY.md."""
    from ltm_desktop.agent.snippets import stdio_server

    assert stdio_server(["ltm-desktop"])["args"] == ["mcp"]


def test_the_gemini_note_says_hooks_are_on_by_default(home: Path) -> None:
    """Gemini CLI 0.61: hooksConfig.enabled defaults to true (its settings schema)."""
    done = integrate(home, "gemini")
    assert done.returncode == 0, done.stderr
    assert "restart it (hooks are on unless" in done.stdout.splitlines()[-1]
