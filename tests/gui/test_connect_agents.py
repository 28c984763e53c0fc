"""The connect dialog shows each agent's MCP snippet, from the same source as the README."""

from __future__ import annotations

from ltm_desktop.agent.snippets import agent_snippets
from ltm_desktop.core.service import MemoryService
from tests.agent.mcp_client import EXECUTABLE
from tests.gui.conftest import FakeApi, WindowFactory


def test_one_tab_per_agent_with_the_installed_path(
    make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, api=FakeApi())
    dialog = window.show_connect()
    expected = agent_snippets()
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert tabs == [s.agent for s in expected] + ["Socket API"]
    texts = [box.toPlainText() for box in dialog.boxes]
    assert texts[: len(expected)] == [s.text for s in expected]
    assert all(str(EXECUTABLE) in text for text in texts[: len(expected)])
    dialog.close()
