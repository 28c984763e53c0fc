"""Every API method through the real client, against a real server."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path

import pytest

from ltm_desktop.api.client import (
    Client,
    ConflictError,
    InvalidParams,
    MethodNotFound,
    NotFoundError,
)
from ltm_desktop.api.methods import Dispatcher
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
MEMORY_KEYS = {
    "id",
    "project_id",
    "title",
    "content",
    "category",
    "importance",
    "tags",
    "created_at",
    "updated_at",
    "last_used_at",
    "use_count",
    "ttl_days",
    "disabled",
    "source",
    "superseded_by",
    "review_state",
    "provenance",
    "files",
    "flagged",
}


def test_health(client: Client, service: MemoryService) -> None:
    health = client.health()
    assert health["ok"] is True
    assert health["protocol"] == 1
    assert health["schema_version"] == service.store.schema_version
    assert health["db_path"] == service.store.location
    assert health["semantic_search"] == {
        "model": None,  # the API tests' service searches by words only
        "with_vectors": 0,
        "memories": 0,
        "backfilling": False,
        "problem": None,
    }


def test_hello_names_the_actor(socket_path: Path) -> None:
    with Client(socket_path, client_name="claude-code") as named:
        added = named.memory_add("Named agent wrote this", cwd=CWD)
        assert added["memory"]["source"] == "claude-code"
        assert named.memory_history(added["memory"]["id"])[0]["actor"] == "claude-code"


def test_clients_that_never_say_hello_are_agent(raw: object, service: MemoryService) -> None:
    reply = raw.request(  # type: ignore[attr-defined]
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "memory.add",
            "params": {"cwd": CWD, "content": "anonymous"},
        }
    )
    assert reply["result"]["memory"]["source"] == "agent"


def test_project_resolve_and_list(client: Client) -> None:
    resolved = client.project_resolve(CWD + "/")
    expected = "proj_" + hashlib.sha256(CWD.encode()).hexdigest()[:16]
    scopes = resolved.pop("scopes", None)  # the project, then its person's and team's globals
    assert resolved == {"project_id": expected, "path": CWD, "name": "shop"}
    assert scopes is not None
    assert scopes[0] == expected
    assert scopes[-1] == "global"
    client.memory_add("Shop uses Stripe for payments", cwd=CWD)
    projects = {p["project_id"]: p for p in client.project_list()}
    assert projects[expected]["active"] == 1
    assert projects[expected]["path"] == CWD
    assert "global" in projects


def test_memory_add_statuses_and_fields(client: Client) -> None:
    first = client.memory_add(
        "Deploy with ./deploy.sh --prod after the smoke tests pass on staging",
        cwd=CWD,
        title="Deploying",
        category="skill",
        importance=8,
        tags=["Deploy"],
        ttl_days=30,
    )
    memory = first["memory"]
    assert first["status"] == "created"
    assert set(memory) == MEMORY_KEYS
    assert (memory["title"], memory["category"], memory["importance"]) == ("Deploying", "skill", 8)
    assert (memory["tags"], memory["ttl_days"]) == (["deploy"], 30)
    assert ISO.match(memory["created_at"])
    assert memory["last_used_at"] is None
    again = client.memory_add(
        "deploy with ./deploy.sh --prod after the smoke tests pass on STAGING", cwd=CWD
    )
    assert again["status"] == "deduplicated"
    assert again["memory"]["id"] == memory["id"]
    assert again["memory"]["use_count"] == 1
    newer = client.memory_add(
        "Deploy with ./deploy.sh --prod after the smoke tests pass on staging today", cwd=CWD
    )
    assert newer["status"] == "superseded"
    assert newer["superseded_id"] == memory["id"]
    assert client.memory_get(memory["id"])["superseded_by"] == newer["memory"]["id"]
    restored = client.memory_restore(memory["id"])
    assert restored["superseded_by"] is None
    assert restored["disabled"] is False


def test_get_update_remove_restore(client: Client) -> None:
    memory = client.memory_add("Cache TTL is five minutes", cwd=CWD)["memory"]
    assert client.memory_get(memory["id"]) == memory
    updated = client.memory_update(memory["id"], importance=9, tags=["cache"])
    assert (updated["importance"], updated["tags"], updated["content"]) == (
        9,
        ["cache"],
        memory["content"],
    )
    removed = client.memory_remove(memory["id"])
    assert removed["disabled"] is True
    assert client.memory_search("cache", cwd=CWD) == []
    assert client.memory_restore(memory["id"])["disabled"] is False
    with pytest.raises(NotFoundError):
        client.memory_get("mem_missing")


def test_update_conflict(client: Client) -> None:
    a = client.memory_add("alpha fact one", cwd=CWD)["memory"]
    b = client.memory_add("something else entirely", cwd=CWD)["memory"]
    with pytest.raises(ConflictError) as info:
        client.memory_update(b["id"], content="ALPHA fact one")
    assert info.value.code == -32003
    assert info.value.data == {"other_id": a["id"], "reason": "duplicate", "memory": b}


@pytest.mark.real_engines  # the double makes no snippets
def test_search_reinforces_and_scopes(client: Client) -> None:
    mine = client.memory_add("Kafka topics use dotted names", cwd=CWD)["memory"]
    glob = client.memory_add("User prefers kafka over rabbitmq", project_id="global")["memory"]
    client.memory_add("Kafka retention is 7 days", cwd="/elsewhere")
    hits = client.memory_search("kafka", cwd=CWD)
    assert {h["memory"]["id"] for h in hits} == {mine["id"], glob["id"]}
    assert all(h["score"] > 0 and "**" in h["snippet"] for h in hits)
    assert {h["matched"] for h in hits} == {"words"}
    assert client.memory_get(mine["id"])["use_count"] == 1
    only = client.memory_search("kafka", cwd=CWD, include_global=False, limit=1)
    assert [h["memory"]["id"] for h in only] == [mine["id"]]


def test_list_with_total(client: Client) -> None:
    for i in range(7):
        client.memory_add(f"list item {i} word{i}x", cwd=CWD, category="task" if i < 3 else None)
    page = client.memory_list(cwd=CWD, limit=5)
    assert (len(page["memories"]), page["total"]) == (5, 7)
    assert client.memory_list(cwd=CWD, offset=5)["total"] == 7
    assert client.memory_list(cwd=CWD, category="task")["total"] == 3
    victim = page["memories"][0]["id"]
    client.memory_remove(victim)
    assert client.memory_list(cwd=CWD)["total"] == 6
    assert client.memory_list(cwd=CWD, include_disabled=True)["total"] == 7


def test_history_events(client: Client) -> None:
    memory = client.memory_add("history subject", cwd=CWD, importance=2)["memory"]
    client.memory_update(memory["id"], importance=7)
    events = client.memory_history(memory["id"])
    assert [e["action"] for e in events] == ["created", "updated"]
    created = events[0]["after"]
    assert events[0]["before"] is None
    assert created is not None
    assert created["content"] == "history subject"
    assert (events[1]["before"], events[1]["after"]) == ({"importance": 2}, {"importance": 7})
    assert ISO.match(events[1]["at"])
    assert events[1]["actor"] == "test-agent"
    with pytest.raises(NotFoundError) as info:
        client.memory_history("mem_nope")
    assert info.value.code == -32001


def test_stale_and_purge_expired(client: Client, clock: FakeClock) -> None:
    stale = client.memory_add("obscure detail", cwd=CWD, importance=0)["memory"]
    client.memory_add("short lived", cwd=CWD, ttl_days=1)
    clock.advance(days=61)
    assert [m["id"] for m in client.memory_stale(cwd=CWD)] == [stale["id"]]
    assert client.memory_purge_expired(cwd=CWD) == 1
    assert client.memory_purge_expired() == 0


def test_observe_and_recall(client: Client) -> None:
    big = "transcript line about the checkout bug\n" * 8000  # ~300 KB
    observation = client.observe("pre_compact", "sess-9", cwd=CWD, messages_text=big)
    assert observation is not None
    assert observation["kind"] == "pre_compact"
    assert len(observation["narrative"]) == 6000
    client.observe("agent_end", "sess-9", cwd=CWD, user_text="fix checkout", assistant_text="done")
    client.memory_add("Checkout uses the payment mock in tests", cwd=CWD)
    hits = client.recall("checkout", cwd=CWD, limit=10)
    assert {h["kind"] for h in hits} == {"memory", "observation"}
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    only = client.recall("checkout", cwd=CWD, kinds=["observation"])
    assert all(h["kind"] == "observation" and "observation" in h for h in only)


def test_precis_and_prompt_section(client: Client, service: MemoryService) -> None:
    assert client.prompt_section(cwd=CWD) == ""
    memory = client.memory_add(
        "Run make test before pushing", cwd=CWD, title="Tests", importance=8
    )["memory"]
    client.memory_add("Answer in British English", project_id="global", title="Language")
    precis = client.precis_get(cwd=CWD)
    assert (
        precis["text"]
        == "## Tests\n\nRun make test before pushing\n\n## Language\n\nAnswer in British English"
    )
    assert (precis["bytes"], precis["budget"], precis["truncated"]) == (
        len(precis["text"].encode()),
        5120,
        False,
    )
    assert precis["memory_ids"][0] == memory["id"]
    assert service.memory_md.flush()  # a global write reaches project files in the background
    assert Path(precis["path"]).read_text() == precis["text"]
    own = client.precis_get(cwd=CWD, include_global=False)
    assert own["text"] == "## Tests\n\nRun make test before pushing"
    section = client.prompt_section(cwd=CWD)
    assert section.startswith("## Long-Term Memory\n\n")
    assert section.endswith(precis["text"])


def test_stats(client: Client) -> None:
    client.memory_add("one counted", cwd=CWD)
    assert client.stats(cwd=CWD) == {
        "project_id": client.project_resolve(CWD)["project_id"],
        "active": 1,
        "disabled": 0,
        "expired": 0,
        "stale": 0,
        "observations": 0,
    }


def test_events_subscribe_streams_changes(socket_path: Path, client: Client) -> None:
    with Client(socket_path, client_name="watcher") as watcher:
        assert watcher.events_subscribe() == {"subscribed": True}
        memory = client.memory_add("watched memory", cwd=CWD)["memory"]
        event = watcher.next_event(timeout=10)
        assert event is not None
        assert event["method"] == "memory.changed"
        assert event["params"] == {
            "id": memory["id"],
            "project_id": memory["project_id"],
            "action": "created",
            "actor": "test-agent",
        }
        client.memory_remove(memory["id"])
        assert watcher.next_event(timeout=10)["params"]["action"] == "removed"  # type: ignore[index]


def test_unknown_method(client: Client) -> None:
    with pytest.raises(MethodNotFound):
        client.call("memory.explode")


def test_client_reconnects_after_the_server_dropped_it(
    start_server: object, service: MemoryService, short_dir: Path
) -> None:
    server: ServerThread = start_server(idle_timeout=0.2)  # type: ignore[operator]
    assert server.server.endpoint is not None
    with Client(server.server.endpoint.socket_path) as c:
        c.health()
        sock = c._sock
        assert sock is not None
        sock.settimeout(5)
        assert sock.recv(1) == b""  # the server closed the idle connection
        assert c.health()["ok"] is True  # transparently reconnected


def test_invalid_params_name_the_parameter(client: Client) -> None:
    with pytest.raises(InvalidParams, match="importance"):
        client.memory_add("x", cwd=CWD, importance=11)


def test_auth_is_not_needed_on_the_unix_socket(client: Client) -> None:
    assert client.call("auth", {"token": "anything"}) == {"ok": True, "required": False}


def test_a_failed_add_does_not_register_the_project(client: Client) -> None:
    with pytest.raises(InvalidParams):
        client.memory_add("   ", cwd="/home/dev/src/never-written")
    assert "never-written" not in {p["name"] for p in client.project_list()}


def test_supersede_events_name_both_sides(socket_path: Path, client: Client) -> None:
    old = client.memory_add("alpha beta gamma delta epsilon zeta eta theta", cwd=CWD)["memory"]
    with Client(socket_path, client_name="watcher") as watcher:
        watcher.events_subscribe()
        new = client.memory_add("alpha beta gamma delta epsilon zeta eta theta iota", cwd=CWD)
        events = {watcher.next_event(timeout=10)["params"]["id"]: None for _ in range(2)}  # type: ignore[index]
        assert set(events) == {old["id"], new["memory"]["id"]}
    history = client.memory_history(new["memory"]["id"])
    assert history[0]["action"] == "created"


def test_recall_reinforces_only_what_it_returns(client: Client) -> None:
    ids = [
        client.memory_add(f"recall target number {i} zz{i}", cwd=CWD)["memory"]["id"]
        for i in range(4)
    ]
    hits = client.recall("recall target", cwd=CWD, limit=2, kinds=["memory"])
    returned = {h["memory"]["id"] for h in hits}
    assert len(returned) == 2
    for memory_id in ids:
        assert client.memory_get(memory_id)["use_count"] == (1 if memory_id in returned else 0)


def test_iso_timestamps_match_datetime() -> None:
    import random
    from datetime import UTC, datetime

    from ltm_desktop.api.serialize import iso

    rng = random.Random(7)
    for timestamp in [0.0, 1.0005, 1796051516.9536233, *(rng.uniform(0, 4e9) for _ in range(2000))]:
        moment = datetime.fromtimestamp(timestamp, UTC)
        assert (
            iso(timestamp)
            == moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        )
    assert iso(None) is None


def test_a_repeated_search_is_answered_without_the_thread_pool(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search asked again, with nothing written since, skips the thread hop; anything
    that needs the database to search again still goes to the pool."""
    threads: list[tuple[str, bool]] = []
    dispatch = Dispatcher.dispatch

    def recording(self: Dispatcher, request: object, session: object, **kwargs: bool) -> object:
        try:
            return dispatch(self, request, session, **kwargs)  # type: ignore[arg-type]
        finally:
            threads.append((threading.current_thread().name, kwargs.get("inline", False)))

    monkeypatch.setattr(Dispatcher, "dispatch", recording)

    def searched_on_the_pool() -> bool:
        threads.clear()
        client.memory_search("pgbouncer", project_id=project)
        return threads[-1][0].startswith("ltm-api_")  # ThreadPoolExecutor's names

    project = client.project_resolve("/srv/inline")["project_id"]
    added = client.memory_add("pgbouncer runs in transaction mode", project_id=project)
    assert searched_on_the_pool()  # first time: searched on the pool
    assert not searched_on_the_pool()  # again: answered at once
    [hit] = client.memory_search("pgbouncer", project_id=project)
    assert hit["memory"]["use_count"] == 3  # every answer reinforces, cached or not
    client.memory_update(added["memory"]["id"], importance=8)
    assert searched_on_the_pool()  # a write since: searched again
    threads.clear()
    with pytest.raises(InvalidParams, match="limit"):
        client.memory_search("pgbouncer", project_id=project, limit=0)
    assert [inline for _, inline in threads] == [True]  # bad params are refused at once
    client.memory_search("pgbouncer", cwd="/srv/inline")  # cached under the same project
    threads.clear()
    client.memory_search("pgbouncer", cwd="/srv/inline")
    assert threads[-1][0].startswith("ltm-api_")  # a cwd is resolved off the event loop
