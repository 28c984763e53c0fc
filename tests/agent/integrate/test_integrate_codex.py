"""``integrate codex`` beside what Codex 0.171 writes into its own ``config.toml``.

When the person trusts hooks in ``/hooks``, Codex adds a ``[hooks.state."KEY"]`` table per
hook, ``KEY`` being ``FILE:EVENT:GROUP:HANDLER`` (the config's path, the event in snake
case, the group's and the handler's positions) and ``trusted_hash`` the ``sha256:`` of the
hook's content; it puts them after the hook tables, a blank line before each, and other
settings after them (``[tui]``). ``codex_trusts_every_hook`` writes them in that form, as
captured from the real CLI.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.agent.integrate.test_integrate import CODEX_CONFIG, integrate
from tests.console import assert_one_error_line

TUI = "\n[tui]\nscreen_reader_detection_done = true\n"


def snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def content_hash(handler: Mapping[str, object]) -> str:
    """A stand-in for Codex's hash of a hook's content (its position plays no part)."""
    return "sha256:" + hashlib.sha256(str(sorted(handler.items())).encode()).hexdigest()


def trust_records(config: Path) -> dict[str, str]:
    """KEY -> trusted_hash, for every hook in ``config``, as Codex names them."""
    hooks = tomllib.loads(config.read_text())["hooks"]
    return {
        f"{config}:{snake(event)}:{group_index}:{handler_index}": content_hash(handler)
        for event, groups in hooks.items()
        if event != "state"
        for group_index, group in enumerate(groups)
        for handler_index, handler in enumerate(group["hooks"])
    }


def state_text(records: dict[str, str]) -> str:
    tables = "".join(f'\n[hooks.state."{k}"]\ntrusted_hash = "{v}"\n' for k, v in records.items())
    return "\n[hooks.state]\n" + tables


def codex_trusts_every_hook(config: Path, tui: bool = True) -> str:
    """What ``Trust all and continue`` in Codex makes of ``config``: the records right
    after the last hook table, ``[tui]`` at the end (not from ``codex app-server``'s
    ``config/batchWrite``: ``tui`` False); the text written."""
    lines = config.read_text().splitlines(True)
    last = max(i for i, line in enumerate(lines) if line.startswith("[[hooks."))
    end = next((i for i in range(last + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    while not lines[end - 1].strip():
        end -= 1
    records = state_text(trust_records(config))
    text = "".join(lines[:end]) + records + "".join(lines[end:]) + (TUI if tui else "")
    config.write_text(text)
    return text


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex/config.toml").write_text(CODEX_CONFIG)
    return home


def test_uninstall_after_codex_trusted_the_hooks_leaves_its_file_minus_ours(
    codex_home: Path,
) -> None:
    """It stopped at "hooks.state ... is not an array of tables", removing nothing."""
    config = codex_home / ".codex/config.toml"
    assert integrate(codex_home, "codex").returncode == 0
    codex_trusts_every_hook(config)
    user_hook = {"type": "command", "command": "notify-send done"}

    done = integrate(codex_home, "codex", "--uninstall")

    assert done.returncode == 0, done.stderr
    kept = {f"{config}:stop:0:0": content_hash(user_hook)}
    assert config.read_text() == CODEX_CONFIG + state_text(kept) + TUI


def test_a_config_of_the_persons_tables_only_comes_back_byte_for_byte(codex_home: Path) -> None:
    """As the end-to-end run had Codex write it (``codex app-server``): its records
    between our hook tables and our server. Install put a blank line before our tables;
    it stayed behind at the end of the file."""
    config = codex_home / ".codex/config.toml"
    original = '# my Codex config\nmodel = "gpt-e2e"\n\n[model_providers.e2e]\nname = "e2e"\n'
    config.write_text(original)
    assert integrate(codex_home, "codex").returncode == 0
    trusted = codex_trusts_every_hook(config, tui=False)
    assert trusted.index("[hooks.state]") < trusted.index("[mcp_servers.ltm-desktop]")

    assert integrate(codex_home, "codex", "--uninstall").returncode == 0

    assert config.read_text() == original


def test_the_persons_hooks_after_ours_keep_their_trust_when_ours_go(codex_home: Path) -> None:
    """Trust records name a hook by its position: the person's hook after ours moves up
    one place, and its record with it."""
    config = codex_home / ".codex/config.toml"
    assert integrate(codex_home, "codex").returncode == 0
    later = {"type": "command", "command": "echo after-ours"}
    text = config.read_text()
    at = text.index("[[hooks.SessionStart]]")  # just after our Stop group
    config.write_text(
        text[:at] + '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\n'
        'command = "echo after-ours"\n' + text[at:]
    )
    codex_trusts_every_hook(config)
    assert f"{config}:stop:2:0" in config.read_text()

    assert integrate(codex_home, "codex", "--uninstall").returncode == 0

    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert state == {
        f"{config}:stop:0:0": {
            "trusted_hash": content_hash({"type": "command", "command": "notify-send done"})
        },
        f"{config}:stop:1:0": {"trusted_hash": content_hash(later)},
    }
    assert "ltm-desktop" not in config.read_text()


def test_install_beside_trust_records_keeps_them_or_drops_ours_that_changed(
    codex_home: Path, tmp_path: Path
) -> None:
    config = codex_home / ".codex/config.toml"
    assert integrate(codex_home, "codex").returncode == 0
    trusted = codex_trusts_every_hook(config)

    again = integrate(codex_home, "codex")
    assert again.returncode == 0, again.stderr
    assert config.read_text() == trusted

    changed = integrate(codex_home, "codex", "--data-dir", str(tmp_path / "data"))
    assert changed.returncode == 0, changed.stderr
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert list(state) == [f"{config}:stop:0:0"]  # ours changed: Codex asks again


def test_hook_tables_of_one_event_in_two_places_are_refused_unchanged(codex_home: Path) -> None:
    """tomlkit edits a copy of such tables: ours would stay while their trust went."""
    config = codex_home / ".codex/config.toml"
    assert integrate(codex_home, "codex").returncode == 0
    codex_trusts_every_hook(config)
    split = config.read_text() + '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = "mine"\n'
    config.write_text(split)

    done = integrate(codex_home, "codex", "--uninstall")

    assert_one_error_line(done, str(config), "[[hooks.Stop]] tables are not all in one place")
    assert config.read_text() == split


@pytest.mark.parametrize("own", [None, 1500, 5000])
def test_the_mcp_start_up_grace_is_raised_unless_the_person_set_one(
    own: int | None, codex_home: Path
) -> None:
    """Codex 0.171 starts a turn without an MCP server's tools once its grace (about 1 s)
    is over; a cold ``ltm-desktop mcp`` takes 3-4 s on a busy machine."""
    home = codex_home
    config = home / ".codex" / "config.toml"
    text = CODEX_CONFIG if own is None else f"mcp_optional_startup_grace_ms = {own}\n{CODEX_CONFIG}"
    config.write_text(text)
    done = integrate(home, "codex")
    assert done.returncode == 0, done.stderr
    settings = tomllib.loads(config.read_text())
    assert settings["mcp_optional_startup_grace_ms"] == (own or 5000)
    codex_trusts_every_hook(config)  # the file changes after install: entries are cut out
    done = integrate(home, "codex", "--uninstall")
    assert done.returncode == 0, done.stderr
    after = tomllib.loads(config.read_text())
    assert after.get("mcp_optional_startup_grace_ms") == own
    assert "ltm-desktop" not in after.get("mcp_servers", {})
