"""``integrate`` on a large ``~/.claude.json`` (Claude Code keeps each project's prompt
history in it: 18 MB is real). It took about a second per MB: the JSON editor built a
node for every value, a dozen times over, and the diff ran difflib over every line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ltm_desktop.agent.integrate import Change, apply, plan
from ltm_desktop.agent.integration.json_config import ConfigRefused

COMMAND = ["/opt/ltm/bin/ltm-desktop"]
WORDS = "why does the checkout test fail on CI again after the refactor".split()


def claude_state(megabytes: int) -> str:
    """A ``~/.claude.json`` of about ``megabytes`` MB, laid out as Claude Code writes it."""
    history = [{"display": " ".join(WORDS[i % 7 :] * 3), "pastedContents": {}} for i in range(100)]
    project = {
        "allowedTools": [],
        "history": history,
        "mcpServers": {},
        "hasTrustDialogAccepted": True,
        "lastSessionId": "0f3c",
    }
    size = len(json.dumps(project, indent=2))
    count = megabytes * 1_000_000 // size
    projects = {f"/home/me/src/project-{n}": project for n in range(count)}
    return json.dumps({"numStartups": 300, "projects": projects, "userID": "f" * 64}, indent=2)


@pytest.mark.slow
def test_an_18_mb_claude_json_is_planned_diffed_written_and_given_back(tmp_path: Path) -> None:
    """How long it takes is bench/integrate_bench.py's (0.35 s here, 12.9 s before)."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    state = claude_state(18)
    (home / ".claude.json").write_text(state)

    planned = plan("claude-code", command=COMMAND, home=home)
    diff = planned.diff()
    apply(planned)
    installed = json.loads((home / ".claude.json").read_text())
    removed = plan("claude-code", uninstall=True, command=COMMAND, home=home)
    apply(removed)

    assert len(state) > 18_000_000
    assert diff.count("\n+") > 10
    assert "ltm-desktop" in installed["mcpServers"]
    assert installed["projects"] == json.loads(state)["projects"]
    assert (home / ".claude.json").read_text() == state


def test_a_member_written_twice_where_an_edit_looks_is_refused_by_name(tmp_path: Path) -> None:
    """Objects inside the document are read when an edit first looks into them: the
    refusal must still name the file, not escape as a traceback."""
    settings = tmp_path / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"Stop": [], "Stop": []}}')
    with pytest.raises(ConfigRefused, match=r"settings.json is not valid JSON .*appears twice"):
        plan("claude-code", command=COMMAND, home=tmp_path)


LINES = st.lists(st.sampled_from(["a\n", "b\n", "{\n", "}\n", "  x\n"]), max_size=40)


def patched(before: str, diff: str) -> str:
    """``before`` with the unified ``diff`` applied; every context and removed line, and
    every hunk's place on both sides, checked on the way."""
    lines = [line if line.endswith("\n") else line + "\n" for line in before.splitlines(True)]
    out: list[str] = []
    pos = 0
    for line in diff.splitlines(True)[2:]:
        header = re.fullmatch(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n", line)
        if header:
            old_start, old_length = int(header[1]), int(header[2] or 1)
            new_start, new_length = int(header[3]), int(header[4] or 1)
            begin = old_start - 1 if old_length else old_start
            out += lines[pos:begin]
            pos = begin
            assert len(out) == (new_start - 1 if new_length else new_start)
        elif line[0] in " -":
            assert lines[pos] == line[1:]
            pos += 1
            out += [line[1:]] if line[0] == " " else []
        else:
            assert line[0] == "+"
            out.append(line[1:])
    return "".join(out + lines[pos:])


@given(LINES, LINES, st.booleans())
def test_the_diff_applied_to_the_file_gives_the_new_file(
    before: list[str], after: list[str], last_line_ends: bool
) -> None:
    old = "".join(before) if last_line_ends else "".join(before).rstrip("\n")
    new = "".join(after)
    diff = Change(Path("/home/me/.gemini/settings.json"), old, new).diff()
    expected = "".join(
        line if line.endswith("\n") else line + "\n" for line in new.splitlines(True)
    )
    assert patched(old, diff) == expected
