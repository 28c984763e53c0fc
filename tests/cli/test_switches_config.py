"""``[memory] backend`` and friends in the config file: bad values named with their file,
defaults used for them; writing one key keeps the rest of the file; ``status`` shows the
switches (the real console script)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ltm_desktop.core.errors import ConfigError, InvalidInput
from ltm_desktop.core.settings.config import Settings, load_settings
from ltm_desktop.core.settings.config_file import set_config_value
from tests.fifo import call_beside_fifo

EXECUTABLE = Path(sys.executable).with_name("ltm-desktop")


def test_backend_and_url_are_read(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[memory]\nbackend = "agentmemory"\nagentmemory_url = "http://10.0.0.2:3111"\n')
    settings, problems = load_settings(path)
    assert (settings.memory_backend, settings.agentmemory_url, problems) == (
        "agentmemory",
        "http://10.0.0.2:3111",
        [],
    )
    assert Settings().memory_backend == "sqlite"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[memory]\nbackend = "postgres"\n',
            '[memory] backend must be one of "sqlite", "agentmemory"',
        ),
        ("[memory]\nbackend = 3\n", "[memory] backend must be a string"),
        ("[memory]\nenabled = 1\n", "[memory] enabled must be true or false"),
        ("[memory]\nbakend = 'sqlite'\n", "unknown key [memory] bakend ignored"),
        ("[memmory]\nenabled = false\n", "unknown section [memmory] ignored"),
    ],
)
def test_bad_values_name_key_and_file_and_keep_defaults(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text + "[stale]\nage_days = 5\n")
    settings, problems = load_settings(path)
    assert problems == [p for p in problems if p.startswith(f"{path}: ")]
    assert any(message in p for p in problems), problems
    assert (settings.memory_backend, settings.memory_enabled) == ("sqlite", True)
    assert settings.stale_age_days == 5  # the good keys still count


def test_set_config_value_keeps_comments_and_layout(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    original = '# mine\n[search]\nembedder = "none"  # offline\n\n[memory]\nenabled = true\n'
    path.write_text(original)
    path.chmod(0o640)
    set_config_value(path, "memory", "enabled", False)
    assert path.read_text() == original.replace("enabled = true", "enabled = false")
    assert path.stat().st_mode & 0o777 == 0o640
    set_config_value(path, "observe", "agent_end", False)  # a new table at the end
    settings, problems = load_settings(path)
    assert (settings.memory_enabled, settings.observe_agent_end, problems) == (False, False, [])
    assert path.read_text().startswith(original.replace("enabled = true", "enabled = false"))


def test_set_config_value_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    set_config_value(path, "memory", "enabled", False)
    assert load_settings(path)[0].memory_enabled is False
    assert path.stat().st_mode & 0o777 == 0o600


def test_set_config_value_refuses_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[memory\nenabled = false\n")
    with pytest.raises(ConfigError, match=f"{path}: is not valid TOML"):
        set_config_value(path, "memory", "enabled", True)
    assert path.read_text() == "[memory\nenabled = false\n"
    with pytest.raises(InvalidInput, match="is not a setting"):
        set_config_value(path, "memory", "colour", "blue")
    with pytest.raises(InvalidInput, match="must be true or false"):
        set_config_value(path, "memory", "enabled", "yes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def _status(tmp_path: Path, config: str, *extra: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "config.toml"
    path.write_text(config)
    args = [str(EXECUTABLE), "--data-dir", str(tmp_path / "data"), "--config", str(path)]
    return subprocess.run(
        [*args, "status", *extra], capture_output=True, text=True, timeout=60, env=dict(os.environ)
    )


def test_status_shows_the_switches(tmp_path: Path) -> None:
    done = _status(
        tmp_path,
        '[memory]\nenabled = false\nbackend = "agentmemory"\n[observe]\npre_compact = false\n',
    )
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stdout.splitlines() if x.startswith("memory:")]
    assert line == (
        "memory:    DISABLED ([memory] enabled = false); backend agentmemory at "
        "http://127.0.0.1:3111 (not implemented: agents get an error); "
        "observe agent_end on, pre_compact off"
    )
    done = _status(tmp_path, "[memory]\nbackend = 'x'\nenabled = 2\n", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["switches"] == {
        "memory_enabled": True,
        "backend": "sqlite",
        "agentmemory_url": "http://127.0.0.1:3111",
        "observe_agent_end": True,
        "observe_pre_compact": True,
    }
    assert len(report["config_problems"]) == 2
    assert "[memory] backend must be one of" in done.stderr  # and said on stderr
    assert "Traceback" not in done.stderr


def test_set_config_value_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    """Reading a FIFO waits for a writer (the switch bar's worker hung). Anything but a
    regular file (/dev/zero never ends) is refused by the same check; the FIFO stays."""
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    waited, outcome = call_beside_fifo(
        lambda: set_config_value(path, "memory", "enabled", False), path, os.O_WRONLY
    )
    assert not waited, "still waiting for a writer after 5 s"
    assert isinstance(outcome, ConfigError)
    assert f"{path}: is not a regular file but a FIFO; it was not changed" in str(outcome)
    assert stat.S_ISFIFO(path.stat().st_mode)
