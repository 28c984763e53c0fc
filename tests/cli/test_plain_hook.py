"""A plain ``hook`` command line is read without building every command's parser, and
read exactly as that parser reads it; anything else is left to the parser."""

from __future__ import annotations

import pytest

from ltm_desktop.agent.commands import plain_hook
from ltm_desktop.cli import build_parser
from ltm_desktop.cli_parser import parse

PLAIN = [
    ["hook", "claude-code", "session-start"],
    ["--data-dir", "/d", "hook", "codex", "stop"],
    ["hook", "gemini", "user-prompt", "--data-dir", "/d", "--config", "/c.toml"],
    ["--data-dir=/a", "-v", "hook", "generic", "pre-compact", "--data-dir=/b"],
    ["--config", "/c", "--verbose", "hook", "x", "y", "-v"],
    ["--data-dir=", "hook", "", "session-end"],
]
LEFT_TO_THE_PARSER = [
    [],
    ["status"],
    ["hook", "claude-code"],
    ["hook", "claude-code", "session-start", "extra"],
    ["hook", "-h"],
    ["--data", "/d", "hook", "codex", "stop"],  # an abbreviation: argparse's to expand
    ["--data-dir", "-x", "hook", "codex", "stop"],
    ["--data-dir"],
    ["hook", "codex", "--", "stop"],
    ["--verbose=1", "hook", "codex", "stop"],
    ["codex", "hook", "stop"],
]


@pytest.mark.parametrize("words", PLAIN)
def test_a_plain_hook_reads_as_the_parser_reads_it(words: list[str]) -> None:
    quick = plain_hook(words)
    assert quick is not None
    full = parse(build_parser(), words)
    for name in ("command", "agent", "event", "data_dir", "config", "verbose", "self_test"):
        assert getattr(quick, name) == getattr(full, name), name


@pytest.mark.parametrize("words", LEFT_TO_THE_PARSER)
def test_anything_else_is_left_to_the_parser(words: list[str]) -> None:
    assert plain_hook(words) is None
