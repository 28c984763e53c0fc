"""The connect dialog shows each agent's MCP snippet, from the same source as the README."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.agent.snippets import agent_snippets
from ltm_desktop.core.service import MemoryService
from tests.agent.mcp_client import EXECUTABLE
from tests.gui.conftest import FakeApi, WindowFactory


def test_one_tab_per_agent_with_the_installed_path(
    make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, api=FakeApi())
    dialog = window.show_connect()
    data_dir = str(Path(service.paths.data_dir).resolve())  # not the default data dir
    expected = agent_snippets(data_dir=data_dir)
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert tabs == [s.agent for s in expected] + ["Socket API"]
    texts = [box.toPlainText() for box in dialog.boxes]
    assert texts[: len(expected)] == [s.text for s in expected]
    assert all(str(EXECUTABLE) in text for text in texts[: len(expected)])
    assert all(data_dir in text for text in texts[: len(expected)])
    dialog.close()


def test_install_from_the_dialog_shows_the_diff_before_writing(
    make_window: WindowFactory,
    service: MemoryService,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    config = home / ".codex" / "config.toml"
    original = '# mine\nmodel = "gpt-5-codex"\n'
    config.write_text(original)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    window = make_window(service, api=FakeApi())
    dialog = window.show_connect()
    assert sorted(dialog.integrate_rows) == ["claude-code", "codex", "gemini"]
    row = dialog.integrate_rows["codex"]
    with qtbot.waitSignal(row.previewed) as shown:
        row.install_button.click()
    preview = shown.args[0]
    assert f"{EXECUTABLE} hook codex session-start" in preview.diff.toPlainText()
    assert config.read_text() == original  # nothing written before Apply
    with qtbot.waitSignal(preview.applied):
        preview.apply_button.click()
    assert "hook codex stop" in config.read_text()
    assert config.read_text().startswith(original)
    assert f"updated {config}" in row.result.text()
    row.install_button.click()  # a second time: nothing to change, no preview
    assert row.result.text() == "Nothing to change: already set up."
    with qtbot.waitSignal(row.previewed) as shown:
        row.remove_button.click()
    with qtbot.waitSignal(shown.args[0].applied):
        shown.args[0].apply_button.click()
    assert config.read_text() == original
    dialog.close()


def test_a_refusal_is_shown_and_nothing_changes(
    make_window: WindowFactory,
    service: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    broken = home / ".gemini" / "settings.json"
    broken.write_text("{ not json")
    monkeypatch.setenv("HOME", str(home))
    window = make_window(service, api=FakeApi())
    dialog = window.show_connect()
    row = dialog.integrate_rows["gemini"]
    row.install_button.click()
    assert row.result.text().startswith(f"Nothing was changed: {broken} is not valid JSON")
    assert row.dialog is None
    assert broken.read_text() == "{ not json"
    dialog.close()
