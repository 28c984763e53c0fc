"""Every memory tool, with good and bad arguments, over the socket and in-process."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.access import MemoryAccess
from ltm_desktop.agent.tools.handlers import SEARCH_META
from ltm_desktop.agent.tools.toolbox import Toolbox
from ltm_desktop.core.offline import NoOffline
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Category, MemoryDraft
from ltm_desktop.outbox import LocalOutbox
from tests.agent.conftest import CLIENT, CWD, OTHER, Memory

ID = re.compile(r"\b(mem_[0-9a-f]+)")


def first_id(text: str) -> str:
    found = ID.search(text)
    assert found, text
    return found.group(1)


def test_write_add_names_status_id_and_project(memory: Memory) -> None:
    project = memory.project()
    text = memory.run(
        "memory_write",
        action="add",
        content="Deploys to production need the VPN",
        title="Deploying",
        category="skill",
        importance=8,
        tags=["deploy", "VPN"],
        ttl_days=30,
    )
    assert text.startswith("created: saved as mem_")
    assert f'project "billing-api" ({project})' in text
    stored = memory.service.get(first_id(text))
    assert (stored.project_id, stored.title, stored.category) == (
        project,
        "Deploying",
        Category.SKILL,
    )
    assert (stored.importance, stored.tags, stored.ttl_days, stored.source) == (
        8,
        ("deploy", "vpn"),
        30,
        CLIENT,
    )
    assert memory.service.history.memory(stored.id)[0].actor == CLIENT
    assert memory.service.resolve_cwd(CWD).path == CWD  # the project is registered
    again = memory.run("memory_write", action="add", content="Deploys to production need the VPN")
    assert again.startswith(f"deduplicated: the same text is already stored as {stored.id}")


def test_write_add_that_supersedes_names_both(memory: Memory) -> None:
    old = first_id(
        memory.run(
            "memory_write",
            action="add",
            content="The staging database is reset every night at two o'clock sharp",
        )
    )
    text = memory.run(
        "memory_write",
        action="add",
        content="The staging database is reset every night at three o'clock sharp",
    )
    assert text.startswith("superseded: saved as mem_")
    assert f"replacing the near-duplicate {old}" in text
    assert memory.service.get(old).disabled


def test_write_update_changes_only_the_fields_given(memory: Memory) -> None:
    project = memory.project()
    original = memory.service.add(
        project, MemoryDraft("Tests run with make test", importance=4, tags=("ci",)), "gui"
    ).memory
    text = memory.run("memory_write", action="update", id=original.id, importance=9, tags=["ci"])
    assert (
        text == f'updated {original.id} in project "billing-api" ({project}): importance changed.'
    )
    after = memory.service.get(original.id)
    assert (after.importance, after.content, after.tags) == (9, original.content, ("ci",))
    event = memory.service.history.memory(original.id)[-1]
    assert (event.actor, event.before, event.after) == (
        CLIENT,
        {"importance": 4},
        {"importance": 9},
    )
    same = memory.run("memory_write", action="update", id=original.id, importance=9)
    assert "already had these values; nothing changed" in same


def test_write_remove_is_a_soft_delete(memory: Memory) -> None:
    project = memory.project()
    target = memory.service.add(project, MemoryDraft("Old build flag -O1"), "gui").memory
    text = memory.run("memory_write", action="remove", id=target.id)
    assert text.startswith(f'removed {target.id} ("Old build flag -O1") from project "billing-api"')
    assert memory.service.get(target.id).disabled
    assert memory.service.history.memory(target.id)[-1].actor == CLIENT
    assert not memory.service.restore(target.id, "gui").disabled  # recoverable


def test_write_refuses_other_projects_memories_by_name(memory: Memory) -> None:
    shop = memory.service.resolve_scope(cwd=OTHER, register=True)
    theirs = memory.service.add(shop, MemoryDraft("Shop uses Postgres 16"), "gui").memory
    for arguments in (
        {"action": "remove", "id": theirs.id},
        {"action": "update", "id": theirs.id, "importance": 1},
    ):
        reply = memory.tools.run("memory_write", arguments, CWD)
        assert reply.is_error
        assert f'{theirs.id} belongs to project "shop" ({shop})' in reply.text
    assert memory.service.get(theirs.id) == theirs


class EditsAfterReading:
    """An access through which the person edits a memory just after the tool read it."""

    def __init__(self, inner: MemoryAccess, edit: Callable[[], object]) -> None:
        self.inner, self.edit = inner, edit

    def describe(self) -> str:
        return self.inner.describe()

    def set_client(self, name: str) -> None:
        self.inner.set_client(name)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        result = self.inner.call(method, params)
        if method == "memory.get":
            self.edit()
        return result

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize("action", ["update", "remove"])
def test_write_never_overwrites_a_change_made_after_its_read(memory: Memory, action: str) -> None:
    """The tool reads a memory to check whose it is, then writes: a person's edit in
    between is a conflict the agent is told of, not a change it silently undoes."""
    project = memory.project()
    target = memory.service.add(project, MemoryDraft("Deploys run at noon"), "gui").memory

    def person_edits() -> None:
        memory.service.update(target.id, {"content": "Deploys run at 3 pm"}, "gui")

    access = memory.tools._access
    assert access is not None
    tools = Toolbox(tools="all", access=EditsAfterReading(access, person_edits))
    arguments: dict[str, Any] = {"action": action, "id": target.id}
    if action == "update":
        arguments["importance"] = 9
    reply = tools.run("memory_write", arguments, CWD)
    assert reply.is_error
    assert "changed" in reply.text.lower(), reply.text
    after = memory.service.get(target.id)
    assert (after.content, after.importance, after.disabled) == ("Deploys run at 3 pm", 0, False)


def test_search_returns_the_project_and_global_and_reinforces(memory: Memory) -> None:
    project = memory.project()
    mine = memory.service.add(
        project, MemoryDraft("Deploy with ./deploy.sh", tags=("ops",)), "gui"
    ).memory
    shared = memory.service.add(
        GLOBAL_PROJECT_ID, MemoryDraft("User wants deploy logs kept"), "gui"
    ).memory
    shop = memory.service.resolve_scope(cwd=OTHER, register=True)
    memory.service.add(shop, MemoryDraft("Shop deploy runs on Fridays"), "gui")
    reply = memory.tools.run("memory_search", {"query": "deploy"}, CWD)
    assert reply.meta == {
        SEARCH_META: {
            "project_id": project,
            "project": "billing-api",
            "scopes": [project, GLOBAL_PROJECT_ID],
            "query": "deploy",
            "count": 2,
        }
    }
    rows = memory.listing("memory_search", query="deploy", limit=10)
    assert {r["id"] for r in rows} == {mine.id, shared.id}
    assert set(rows[0]) == {
        "id",
        "title",
        "content",
        "category",
        "importance",
        "tags",
        "updated_at",
        "score",
        "matched",
    }
    assert {r["matched"] for r in rows} == {"words"}
    mine_row = next(r for r in rows if r["id"] == mine.id)
    assert (mine_row["content"], mine_row["tags"], mine_row["category"]) == (
        mine.content,
        ["ops"],
        "knowledge",
    )
    assert memory.service.get(mine.id).use_count == 2  # two searches found it
    assert memory.run("memory_search", query="kubernetes") == "[]"


def test_save_maps_type_to_category(memory: Memory) -> None:
    text = memory.run("memory_save", content="Always ask before force-pushing", type="workflow")
    assert text.startswith("created: saved as mem_")
    assert memory.service.get(first_id(text)).category is Category.SKILL
    plain = memory.run("memory_save", content="The API is versioned in the URL")
    assert memory.service.get(first_id(plain)).category is Category.KNOWLEDGE


def test_recall_merges_memories_and_observations(memory: Memory) -> None:
    project = memory.project()
    memory.service.add(project, MemoryDraft("Checkout uses the payment mock"), "gui")
    memory.service.observations.record(
        project, "agent_end", "s1", "claude-code", user_text="fix the checkout test"
    )
    rows = memory.listing("memory_recall", query="checkout", limit=10)
    assert {r["kind"] for r in rows} == {"memory", "observation"}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    observation = next(r for r in rows if r["kind"] == "observation")
    assert observation["id"].startswith("obs_")
    assert "fix the checkout test" in observation["text"]


def test_forget_own_and_global_refuses_other_projects(memory: Memory) -> None:
    project = memory.project()
    shop = memory.service.resolve_scope(cwd=OTHER, register=True)
    mine = memory.service.add(project, MemoryDraft("Uses Redis for sessions"), "gui").memory
    shared = memory.service.add(
        GLOBAL_PROJECT_ID, MemoryDraft("User likes short answers"), "gui"
    ).memory
    theirs = memory.service.add(shop, MemoryDraft("Shop caches with Varnish"), "gui").memory
    seen = memory.service.observations.record(
        project, "agent_end", "s1", "claude-code", user_text="sessions in Redis"
    )
    reply = memory.tools.run(
        "memory_forget",
        {"memoryIds": [mine.id, shared.id, theirs.id], "observationIds": [seen.id]},
        CWD,
    )
    assert not reply.is_error  # some were forgotten; the refusal is in the text
    assert f"forgot {mine.id}, {shared.id}, {seen.id}" in reply.text
    assert f"refused: {theirs.id} (the memory belongs to project 'shop' ({shop})" in reply.text
    assert memory.service.get(mine.id).disabled
    assert memory.service.get(shared.id).disabled
    assert not memory.service.get(theirs.id).disabled
    assert memory.service.observations.get(seen.id).disabled
    assert memory.service.history.memory(mine.id)[-1].actor == CLIENT
    only_theirs = memory.tools.run("memory_forget", {"memoryIds": [theirs.id]}, CWD)
    assert only_theirs.is_error
    again = memory.run("memory_forget", memoryIds=[mine.id])
    assert f"already forgotten before: {mine.id}" in again


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("memory_write", {}, "Invalid arguments for memory_write: `action` is required."),
        ("memory_write", {"action": "add"}, "`content` is required to add a memory"),
        (
            "memory_write",
            {"action": "delete", "id": "mem_1"},
            "`action` must be one of add, update, remove; got 'delete'",
        ),
        (
            "memory_write",
            {"action": "update", "id": "mem_1"},
            "update needs at least one field to change",
        ),
        ("memory_write", {"action": "remove"}, "`id` is required to remove a memory"),
        (
            "memory_write",
            {"action": "add", "content": "x", "id": "mem_1"},
            "`id` is for update and remove",
        ),
        (
            "memory_write",
            {"action": "remove", "id": "mem_1", "title": "t"},
            "remove takes only `id`, not `title`",
        ),
        (
            "memory_write",
            {"action": "add", "content": "x", "importance": 11},
            "`importance` must be a whole number from 0 to 10; got 11",
        ),
        (
            "memory_write",
            {"action": "add", "content": "x", "tags": "a,b"},
            "`tags` must be a list of strings; got 'a,b'",
        ),
        (
            "memory_write",
            {"action": "add", "content": "x", "colour": "red"},
            "unknown argument `colour`",
        ),
        (
            "memory_write",
            {"action": "add", "content": "   "},
            "Invalid arguments for memory_write: content must not be empty",
        ),
        (
            "memory_write",
            {"action": "add", "content": "x" * 20_001},
            "`content` may have at most 20,000 characters; got 20,001",
        ),
        (
            "memory_write",
            {"action": "update", "id": "mem_nope", "importance": 3},
            "memory_write: no memory has the id",
        ),
        ("memory_search", {}, "Invalid arguments for memory_search: `query` is required."),
        (
            "memory_search",
            {"query": "x", "limit": 21},
            "`limit` must be a whole number from 1 to 20; got 21",
        ),
        ("memory_search", {"query": 5}, "`query` must be a string; got 5"),
        ("memory_search", ["x"], "the arguments must be a JSON object"),
        ("memory_save", {"content": "x", "type": "poem"}, "`type` must be one of"),
        (
            "memory_recall",
            {"query": "x", "limit": 0},
            "`limit` must be a whole number from 1 to 20; got 0",
        ),
        ("memory_forget", {}, "give `memoryIds` and/or `observationIds`"),
        ("memory_forget", {"memoryIds": "mem_1"}, "`memoryIds` must be a list of strings"),
        (
            "memory_delete",
            {},
            "Unknown tool 'memory_delete'; the memory tools here are memory_write",
        ),
    ],
)
def test_bad_arguments_get_one_line_and_change_nothing(
    memory: Memory, tool: str, arguments: object, message: str
) -> None:
    before = memory.service.history.last_event_seq()
    reply = memory.tools.run(tool, arguments, CWD)
    assert reply.is_error
    assert message in reply.text
    assert "\n" not in reply.text
    assert memory.service.history.last_event_seq() == before
    assert memory.run("memory_search", query="anything")  # still serving


def test_arguments_sent_as_json_text_are_read(memory: Memory) -> None:
    text = memory.run(
        "memory_write", action="add", content="Use uv", tags='["python"]', importance="7"
    )
    stored = memory.service.get(first_id(text))
    assert (stored.tags, stored.importance) == (("python",), 7)


def test_a_relative_working_directory_is_refused(memory: Memory) -> None:
    reply = memory.tools.run("memory_search", {"query": "x"}, "src/app")
    assert reply.is_error
    assert "absolute path" in reply.text


@pytest.mark.parametrize("tool", ["memory_search", "memory_recall"])
def test_a_huge_query_is_read_as_the_search_reads_it_through_either_access(
    memory: Memory, tool: str
) -> None:
    """One limit everywhere: through a server, a 1.4 MB query was refused as too large
    (its request line), in process it was cut to what the search reads and answered."""
    project = memory.project()
    found = memory.service.add(project, MemoryDraft("Deploys need the VPN"), "gui").memory
    query = "vpn deploys " + "x" * 1_400_000
    rows = memory.listing(tool, query=query)
    assert [row["id"] for row in rows] == [found.id]
    reply = memory.tools.run(tool, {"query": query}, CWD)
    assert reply.meta is not None
    assert len(reply.meta[SEARCH_META]["query"]) == 500


def test_a_search_answered_offline_says_so(memory: Memory, tmp_path: Path) -> None:
    """The database server away: memory_search answers from this machine's read cache,
    and the agent is told the memories may be out of date (after the array, and in meta)."""
    down = "cannot reach PostgreSQL at db.example:5432/ltm: connection refused"
    project = memory.project()
    kept = memory.service.add(project, MemoryDraft("Deploys need the VPN"), "gui").memory
    box = LocalOutbox(tmp_path, lambda: down)
    memory.service.offline = box
    try:
        box.seen(project)
        box.mirror.replace(project, [kept], memory.service.now())  # mirrored while online
        box.unreachable(down)
        reply = memory.tools.run("memory_search", {"query": "VPN deploys"}, CWD)
        assert not reply.is_error, reply.text
        rows, note = reply.text.split("\n", 1)
        assert [r["id"] for r in json.loads(rows)] == [kept.id]
        assert note.startswith("(Note: offline: answered from this machine's read cache")
        assert reply.meta is not None
        assert reply.meta[SEARCH_META]["stale"] is True
    finally:
        memory.service.offline = NoOffline()
        box.close()
