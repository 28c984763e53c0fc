"""The README's two commands are real: CI runs exactly the test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S)
    assert first_block, "README must start with a code block of commands"
    return [line for line in first_block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    run, test = commands
    assert "pip install" in run
    assert "ltm-desktop" in run
    assert "pip install" in test
    assert "scripts/check.py" in test


def test_the_check_script_runs_lint_types_and_the_tests() -> None:
    script = (ROOT / "scripts" / "check.py").read_text(encoding="utf-8")
    for step in ('"ruff", "check"', '"ruff", "format", "--check"', '"mypy"', '"pytest"'):
        assert step in script


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()
    assert "set -euo pipefail" in ci
