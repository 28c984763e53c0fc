"""``ltm-desktop tools`` and the Python API: definitions from the one catalogue."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from ltm_desktop.agent.tools import toolbox
from ltm_desktop.agent.tools.arguments import check_arguments
from ltm_desktop.agent.tools.catalogue import CATALOGUE, DEFAULT_TOOLS
from tests.agent.mcp_client import EXECUTABLE

GOOD: dict[str, dict[str, Any]] = {
    "memory_write": {
        "action": "add",
        "content": "x",
        "tags": ["a"],
        "importance": 3,
        "ttl_days": 0,
    },
    "memory_search": {"query": "x", "limit": 20},
    "memory_save": {"content": "x", "type": "decision"},
    "memory_recall": {"query": "x"},
    "memory_forget": {"memoryIds": ["mem_1"], "observationIds": []},
}


def tools_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXECUTABLE, "tools", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_default_definitions_are_the_two_default_tools() -> None:
    done = tools_command()
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [t["name"] for t in listed] == list(DEFAULT_TOOLS)
    assert set(listed[0]) == {"name", "title", "description", "parameters", "annotations"}


@pytest.mark.parametrize(
    ("fmt", "schema_key"),
    [("openai", "parameters"), ("anthropic", "input_schema"), ("mcp", "inputSchema")],
)
def test_every_format_carries_every_tool_and_its_schema(fmt: str, schema_key: str) -> None:
    done = tools_command("--format", fmt, "--tools", "all")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    if fmt == "openai":
        assert {t["type"] for t in listed} == {"function"}
        listed = [t["function"] for t in listed]
    assert [t["name"] for t in listed] == [spec.name for spec in CATALOGUE]
    for entry, spec in zip(listed, CATALOGUE, strict=True):
        assert entry[schema_key] == spec.schema
        assert entry["description"] == spec.description
    if fmt == "mcp":
        assert listed[1]["annotations"]["readOnlyHint"] is True


def test_a_tool_list_picks_tools() -> None:
    listed = json.loads(tools_command("--tools", "memory_recall,memory_save").stdout)
    assert [t["name"] for t in listed] == ["memory_recall", "memory_save"]


@pytest.mark.parametrize("command", ["tools", "mcp"])
@pytest.mark.parametrize("value", ["memory_nope", ",", "all,memory_search"])
def test_a_bad_tool_list_is_a_usage_error(command: str, value: str) -> None:
    done = subprocess.run(
        [EXECUTABLE, command, "--tools", value],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"ltm-desktop {command}: error: argument --tools:" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("spec", CATALOGUE, ids=lambda s: s.name)
def test_schemas_are_valid_and_agree_with_the_argument_checker(spec: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(spec.schema)
    jsonschema.validate(GOOD[spec.name], spec.schema)
    assert check_arguments(spec.schema, GOOD[spec.name]) == GOOD[spec.name]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**GOOD[spec.name], "surprise": 1}, spec.schema)


@pytest.fixture
def default_toolbox() -> Iterator[None]:
    yield
    if toolbox._default is not None:  # the process-wide toolbox: closed here, not at exit
        toolbox._default.close()
        toolbox._default = None


def test_the_python_api_executes_any_tool(default_toolbox: None) -> None:
    assert [d["name"] for d in toolbox.definitions("anthropic", "all")] == [
        s.name for s in CATALOGUE
    ]
    saved = toolbox.execute("memory_save", {"content": "Lint with ruff"}, "/home/dev/src/app")
    assert saved.startswith("created: saved as mem_")
    found = toolbox.execute("memory_search", {"query": "ruff"}, "/home/dev/src/app")
    assert '"Lint with ruff"' in found
    assert toolbox.execute("memory_search", {}, "/home/dev/src/app").startswith("Invalid arguments")
