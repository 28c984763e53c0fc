"""expected_updated_at over real sockets: two agents never silently overwrite each other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client, ConflictError, InvalidParams
from tests.api.conftest import RawConnection

pytestmark = pytest.mark.every_backend
CWD = "/home/dev/src/shop"


@pytest.fixture
def other(socket_path: Path) -> Iterator[Client]:
    with Client(socket_path, client_name="other-agent") as c:
        yield c


def test_the_second_writer_of_a_version_gets_a_conflict_with_the_current_record(
    client: Client, other: Client
) -> None:
    read = client.memory_add("Deploys need two approvals", cwd=CWD)["memory"]
    theirs = other.memory_update(read["id"], importance=9, expected_updated_at=read["updated_at"])
    assert theirs["updated_at"] != read["updated_at"]
    with pytest.raises(ConflictError) as info:
        client.memory_update(read["id"], importance=1, expected_updated_at=read["updated_at"])
    assert info.value.code == -32003
    assert info.value.data == {"reason": "stale", "memory": theirs}
    assert (info.value.reason, info.value.current) == ("stale", theirs)
    assert client.memory_get(read["id"]) == theirs
    events = client.memory_history(read["id"])
    assert [(e["actor"], e["action"]) for e in events] == [
        ("test-agent", "created"),
        ("other-agent", "updated"),
    ]
    retried = client.memory_update(
        read["id"], importance=1, expected_updated_at=info.value.current["updated_at"]
    )
    assert retried["importance"] == 1


@pytest.mark.parametrize("check", [True, False])
def test_updating_a_memory_another_client_removed_is_a_conflict(
    client: Client, other: Client, check: bool
) -> None:
    read = client.memory_add("Feature flags live in LaunchDarkly", cwd=CWD)["memory"]
    removed = other.memory_remove(read["id"], expected_updated_at=read["updated_at"])
    expected = read["updated_at"] if check else None
    with pytest.raises(ConflictError) as info:
        client.memory_update(read["id"], content="Flags moved", expected_updated_at=expected)
    assert info.value.data == {"reason": "removed", "memory": removed}
    assert client.memory_get(read["id"]) == removed
    restored = client.memory_restore(read["id"], expected_updated_at=read["updated_at"])
    assert client.memory_update(read["id"], content="Flags moved")["content"] == "Flags moved"
    assert restored["disabled"] is False


def test_remove_and_restore_refuse_a_stale_version(client: Client, other: Client) -> None:
    read = client.memory_add("Backups run at two", cwd=CWD)["memory"]
    newer = other.memory_update(read["id"], content="Backups run at three")
    with pytest.raises(ConflictError) as info:
        client.memory_remove(read["id"], expected_updated_at=read["updated_at"])
    assert info.value.data == {"reason": "stale", "memory": newer}
    assert client.memory_get(read["id"])["disabled"] is False
    removed = client.memory_remove(read["id"], expected_updated_at=newer["updated_at"])
    with pytest.raises(ConflictError) as info:
        client.memory_remove(read["id"], expected_updated_at=newer["updated_at"])
    assert info.value.data == {"reason": "already_removed", "memory": removed}
    with pytest.raises(ConflictError) as info:
        client.memory_restore(read["id"], expected_updated_at=read["updated_at"])
    assert info.value.reason == "stale"
    assert (
        client.memory_restore(read["id"], expected_updated_at=newer["updated_at"])["disabled"]
        is False
    )


def test_searching_does_not_make_a_read_stale(client: Client, other: Client) -> None:
    read = client.memory_add("Kafka topics use dotted names", cwd=CWD)["memory"]
    other.memory_search("kafka", cwd=CWD)
    assert client.memory_get(read["id"])["use_count"] == 1
    updated = client.memory_update(read["id"], importance=8, expected_updated_at=read["updated_at"])
    assert updated["importance"] == 8


def test_one_millisecond_off_is_a_conflict(client: Client) -> None:
    read = client.memory_add("Exact versions only", cwd=CWD)["memory"]
    stamp = read["updated_at"]
    millis = int(stamp[20:23])
    off = f"{stamp[:20]}{(millis + 1) % 1000:03d}Z" if millis < 999 else f"{stamp[:20]}998Z"
    with pytest.raises(ConflictError) as info:
        client.memory_update(read["id"], importance=1, expected_updated_at=off)
    assert info.value.reason == "stale"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (1800000000.5, "must be a string, not a number (1800000000.5)"),
        ("2026-11-30T15:56:59Z", "exactly as the API returned it"),
        ("2026-02-30T15:56:59.843Z", "exactly as the API returned it"),
    ],
)
def test_a_malformed_expected_updated_at_is_invalid_params(
    client: Client, value: object, problem: str
) -> None:
    read = client.memory_add("Versions are strings", cwd=CWD)["memory"]
    for method in ("memory.update", "memory.remove", "memory.restore"):
        with pytest.raises(InvalidParams) as info:
            client.call(method, {"id": read["id"], "expected_updated_at": value})
        assert info.value.data == {"param": "expected_updated_at"}
        assert problem in str(info.value)
    assert client.memory_get(read["id"]) == read


def test_null_expected_updated_at_means_no_check(client: Client, raw: RawConnection) -> None:
    read = client.memory_add("Null means absent", cwd=CWD)["memory"]
    client.memory_update(read["id"], importance=2)
    reply = raw.request(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "memory.update",
            "params": {"id": read["id"], "importance": 3, "expected_updated_at": None},
        }
    )
    assert reply["result"]["memory"]["importance"] == 3
