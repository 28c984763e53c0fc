"""The switches in the window: a bad config file's warning bar, the memory-off bar and its
button, and the settings view (which writes the config file, keeping its comments)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.settings.config import load_settings
from ltm_desktop.gui.window.switches_bar import SettingsDialog
from ltm_desktop.launching import OpenedService, open_service
from tests.gui.conftest import WindowFactory, click

CONFIG = """\
# my settings
[memory]
enabled = false   # off while I travel
backend = "cloud"
colour = "blue"

[observe]
agent_end = false
"""


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[OpenedService]:
    """The app's own composition: the service opened from a data dir and a config file."""
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    result = open_service(tmp_path / "data", config)
    yield result
    result.service.close()


def test_bad_config_shows_a_warning_bar_and_defaults(
    opened: OpenedService, make_window: WindowFactory
) -> None:
    service = opened.service
    assert service.settings.memory_backend == "sqlite"  # the default for the bad key
    window = make_window(service)
    bar = window.switches.config_warning
    assert bar.isVisible()
    text = bar.label.text()
    config = str(opened.config_path)
    wrong = f'{config}: [memory] backend must be one of "sqlite", "agentmemory"'
    assert html.escape(wrong) in text
    assert html.escape(f"{config}: unknown key [memory] colour ignored") in text
    click(bar, "Dismiss")
    assert bar.isHidden()


def test_memory_off_bar_turns_memory_back_on(
    opened: OpenedService, make_window: WindowFactory, qtbot: QtBot
) -> None:
    service = opened.service
    window = make_window(service)
    bar = window.switches.memory_off
    assert bar.isVisible()
    assert "Long-term memory is off" in bar.label.text()
    click(bar, "Turn memory on")
    qtbot.waitUntil(lambda: service.switches.enabled, timeout=5000)
    qtbot.waitUntil(bar.isHidden, timeout=5000)
    text = opened.config_path.read_text()
    assert "enabled = true   # off while I travel" in text  # tomlkit kept the comment
    assert text.startswith("# my settings\n")
    assert load_settings(opened.config_path)[0].memory_enabled is True
    assert not list(opened.config_path.parent.glob(".config.toml.*"))  # no temp file left


def test_turning_on_fails_clearly_when_the_file_cannot_be_written(
    opened: OpenedService, make_window: WindowFactory, qtbot: QtBot
) -> None:
    opened.config_path.write_text("[memory\nenabled = false\n")  # broken since the start
    window = make_window(opened.service)
    bar = window.switches.memory_off
    click(bar, "Turn memory on")
    qtbot.waitUntil(lambda: "could not be turned on" in bar.label.text(), timeout=5000)
    assert "is not valid TOML" in bar.label.text()
    assert opened.service.switches.enabled is False
    assert opened.config_path.read_text() == "[memory\nenabled = false\n"  # untouched


def test_settings_view_shows_and_switches(
    opened: OpenedService, make_window: WindowFactory, qtbot: QtBot
) -> None:
    service = opened.service
    window = make_window(service)
    window.settings_action.trigger()
    [dialog] = window.findChildren(SettingsDialog)
    assert dialog.isVisible()
    assert dialog.backend.text() == "sqlite"
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert labels.count("off") == 1  # [observe] agent_end
    assert labels.count("on") == 1  # [observe] pre_compact
    assert str(opened.config_path) in labels
    assert not dialog.enabled.isChecked()
    dialog.enabled.setChecked(True)
    qtbot.waitUntil(lambda: service.switches.enabled, timeout=5000)
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Saved to"), timeout=5000)
    dialog.enabled.setChecked(False)
    qtbot.waitUntil(lambda: not service.switches.enabled, timeout=5000)
    qtbot.waitUntil(lambda: dialog.enabled.isEnabled(), timeout=5000)
    assert load_settings(opened.config_path)[0].memory_enabled is False
    dialog.reject()
    qtbot.waitUntil(window.switches.memory_off.isVisible, timeout=5000)


def test_placeholder_backend_is_shown(
    tmp_path: Path, make_window: WindowFactory, qtbot: QtBot
) -> None:
    config = tmp_path / "agentmemory.toml"
    config.write_text('[memory]\nbackend = "agentmemory"\n')
    opened = open_service(tmp_path / "data2", config)
    try:
        window = make_window(opened.service)
        bar = window.switches.memory_off
        assert bar.isVisible()
        assert "The memory backend <code>agentmemory</code> is not implemented" in bar.label.text()
        assert bar.buttons == []
        window.settings_action.trigger()
        [dialog] = window.findChildren(SettingsDialog)
        assert dialog.backend.text().startswith("agentmemory at http://127.0.0.1:3111")
        dialog.reject()
    finally:
        window.close()
        window.shutdown()
        opened.service.close()
