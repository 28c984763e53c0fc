"""Pieces of the MCP server that need no subprocess: roots and instructions."""

from __future__ import annotations

import io
import json

import pytest

from ltm_desktop.agent.access import Unavailable
from ltm_desktop.agent.mcp.server import FALLBACK_INSTRUCTIONS, instructions, path_of_root
from ltm_desktop.agent.mcp.stdin import DamagedRequests, RepairingReader, repair_line
from ltm_desktop.agent.tools.toolbox import Toolbox
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


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"q": "plain"}}\n',
        b'{"id": 2, "method": "m", "params": {"emoji": "\\ud83d\\ude00"}}\n',  # a pair
        b'{"id": 3, "method": "m", "params": {"text": "a \\\\ud800 backslash"}}\n',
        b"not json \\ud800\n",
    ],
    ids=["plain", "surrogate-pair", "escaped-backslash", "not-json"],
)
def test_sound_lines_pass_unchanged(line: bytes) -> None:
    damaged = DamagedRequests()
    assert repair_line(line, damaged) == line
    assert damaged.take(json.loads(line)["id"] if line.startswith(b"{") else None) is None


def test_a_lone_surrogate_becomes_a_replacement_character_and_its_request_is_noted() -> None:
    damaged = DamagedRequests()
    line = (
        b'{"jsonrpc": "2.0", "id": "7", "method": "tools/call", "params": {"name": "w", '
        b'"arguments": {"tags": ["ok", "x\\udc00"]}}}\n'
    )

    repaired = repair_line(line, damaged)

    assert json.loads(repaired)["params"]["arguments"]["tags"] == ["ok", "x\ufffd"]
    assert repaired.endswith(b"\n")
    assert damaged.take(7) is None  # the id 7 is not the id "7"
    assert damaged.take("7") == "tags[1]"
    assert damaged.take("7") is None  # answered once


def test_the_reader_passes_every_line_through_in_order() -> None:
    damaged = DamagedRequests()
    lines = [b'{"id": 1, "method": "a", "params": {"t": "\\ud800"}}\n', b"x" * 20000 + b"\n"]
    reader = io.BufferedReader(RepairingReader(io.BytesIO(b"".join(lines)), damaged))

    first, second, end = reader.readline(), reader.readline(), reader.readline()

    assert json.loads(first)["params"]["t"] == "\ufffd"
    assert second == lines[1]
    assert end == b""
    assert damaged.take(1) == "t"
