"""Pieces of the MCP server that need no subprocess: roots and instructions."""

from __future__ import annotations

import pytest

from ltm_desktop.agent.access import Unavailable
from ltm_desktop.agent.mcp_server import FALLBACK_INSTRUCTIONS, instructions, path_of_root
from ltm_desktop.agent.toolbox import Toolbox
from tests.agent.test_fail_soft import RaisingAccess


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/me/src/shop", "/home/me/src/shop"),
        ("file:///home/me/My%20Project", "/home/me/My Project"),
        ("file:///C:/Users/me/app", "C:/Users/me/app"),
        ("https://example.com/repo", None),
        ("file://", None),
    ],
)
def test_roots_become_directories(uri: str, path: str | None) -> None:
    assert path_of_root(uri) == path


def test_instructions_without_memory_still_name_the_tools() -> None:
    toolbox = Toolbox(access=RaisingAccess(Unavailable("no database")))
    assert instructions(toolbox, "/home/me/src/app") == FALLBACK_INSTRUCTIONS
    everything = Toolbox(tools="all", access=RaisingAccess(Unavailable("no database")))
    text = instructions(everything, "/home/me/src/app")
    assert text.endswith("`memory_recall`, `memory_forget`.")
