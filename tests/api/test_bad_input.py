"""Careless and hostile peers: every bad input gets a clear error and changes nothing."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.protocol import MAX_LINE_BYTES, RpcError, decode_line
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from tests.api.conftest import RawConnection, ServerFactory, wait_until

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"


def req(method: str, params: Any = None, **envelope: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    message.update(envelope)
    return message


RAW_LINES = [
    (b"{not json", -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "health"', -32700),
    (b"\xff\xfe\x00{}", -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "h\xc3ealth"}', -32700),
    (b"[" * 200_000, -32700),
    (b'{"a":' * 5_000 + b"1" + b"}" * 5_000, -32700),
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "health"}', -32700),
    (b'{"jsonrpc": "2.0", "id": 1e400, "method": "health"}', -32600),
    (b"42", -32600),
    (b'"health"', -32600),
    (b"null", -32600),
    (b"true", -32600),
    (b"[]", -32600),
]


@pytest.mark.parametrize(("line", "code"), RAW_LINES)
def test_malformed_lines(
    raw: RawConnection, service: MemoryService, line: bytes, code: int
) -> None:
    before = service.history.last_event_seq()
    raw.send(line + b"\n")
    reply = raw.reply()
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] is None
    assert reply["error"]["code"] == code
    assert "Traceback" not in reply["error"]["message"]
    assert raw.request(req("health"))["result"]["ok"] is True  # the connection still works
    assert service.history.last_event_seq() == before


ENVELOPES = [
    ({"id": 1, "method": "health"}, -32600, 1),
    ({"jsonrpc": "1.0", "id": 1, "method": "health"}, -32600, 1),
    ({"jsonrpc": "2.0", "id": 1}, -32600, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": ""}, -32600, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": 5}, -32600, 1),
    ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "health"}, -32600, None),
    ({"jsonrpc": "2.0", "id": True, "method": "health"}, -32600, None),
    ({"jsonrpc": "2.0", "id": 1, "method": "health", "extra": 1}, -32600, 1),
    (req("health", "params"), -32602, 7),
    (req("health", [1, 2]), -32602, 7),
    (req("memory.explode"), -32601, 7),
]


@pytest.mark.parametrize(("message", "code", "reply_id"), ENVELOPES)
def test_invalid_envelopes(
    raw: RawConnection, message: dict[str, Any], code: int, reply_id: Any
) -> None:
    reply = raw.request(message)
    assert reply["error"]["code"] == code
    assert reply["id"] == reply_id


BAD_PARAMS = [
    (req("health", {"verbose": True}), "verbose"),
    (req("memory.add", {"content": "x"}), "cwd"),
    (req("memory.add", {"cwd": CWD, "project_id": "global", "content": "x"}), "cwd"),
    (req("memory.add", {"cwd": "relative/dir", "content": "x"}), "cwd"),
    (req("memory.add", {"cwd": "", "content": "x"}), "cwd"),
    (req("memory.add", {"cwd": 5, "content": "x"}), "cwd"),
    (req("memory.add", {"project_id": "proj_nothex", "content": "x"}), "project_id"),
    (req("memory.add", {"cwd": CWD}), "content"),
    (req("memory.add", {"cwd": CWD, "content": ""}), "content"),
    (req("memory.add", {"cwd": CWD, "content": "   \n\t"}), "content"),
    (req("memory.add", {"cwd": CWD, "content": "bad \ud800 text"}), "content"),
    (req("memory.add", {"cwd": CWD, "content": "x", "title": "\udfff"}), "title"),
    (req("memory.add", {"cwd": CWD, "content": 12}), "content"),
    (req("memory.add", {"cwd": CWD, "content": "x", "category": "gossip"}), "category"),
    (req("memory.add", {"cwd": CWD, "content": "x", "importance": 11}), "importance"),
    (req("memory.add", {"cwd": CWD, "content": "x", "importance": True}), "importance"),
    (req("memory.add", {"cwd": CWD, "content": "x", "importance": 2.5}), "importance"),
    (req("memory.add", {"cwd": CWD, "content": "x", "tags": "a,b"}), "tags"),
    (req("memory.add", {"cwd": CWD, "content": "x", "ttl_days": -3}), "ttl_days"),
    (req("memory.add", {"cwd": CWD, "content": "x", "colour": "red"}), "colour"),
    (req("memory.get", {"id": 5}), "id"),
    (req("memory.get", {}), "id"),
    (req("memory.update", {"id": "mem_x", "signature": "forged"}), "signature"),
    (req("memory.search", {"cwd": CWD}), "query"),
    (req("memory.search", {"cwd": CWD, "query": "x", "limit": 101}), "limit"),
    (req("memory.search", {"cwd": CWD, "query": "x", "limit": 0}), "limit"),
    (req("memory.search", {"cwd": CWD, "query": "x", "limit": "5"}), "limit"),
    (req("memory.search", {"cwd": CWD, "query": "x", "include_global": "yes"}), "include_global"),
    (req("memory.list", {"cwd": CWD, "offset": -1}), "offset"),
    (req("memory.list", {"cwd": CWD, "offset": 2**63}), "offset"),
    (req("memory.add", {"cwd": CWD, "content": "x", "tags": {"a": 1}}), "tags"),
    (req("auth", {"token": "\ud800"}), "token"),
    (req("memory.list", {"cwd": CWD, "category": "nope"}), "category"),
    (req("recall", {"cwd": CWD, "query": "x", "kinds": ["dreams"]}), "kinds"),
    (req("recall", {"cwd": CWD, "query": "x", "kinds": "memory"}), "kinds"),
    (req("observe", {"cwd": CWD, "session_id": "s", "kind": "lunch"}), "kind"),
    (req("observe", {"cwd": CWD, "kind": "agent_end"}), "session_id"),
    (
        req("observe", {"cwd": CWD, "session_id": "s", "kind": "agent_end", "user_text": 3}),
        "user_text",
    ),
    (req("hello", {"client": "\ud800"}), "client"),
    (req("hello", {}), "client"),
    (req("project.resolve", {"cwd": "not/absolute"}), "cwd"),
    (req("stats", {}), "cwd"),
]


@pytest.mark.parametrize(("message", "param"), BAD_PARAMS)
def test_invalid_params_name_the_parameter(
    raw: RawConnection, service: MemoryService, message: dict[str, Any], param: str
) -> None:
    before = service.history.last_event_seq()
    reply = raw.request(message)
    assert reply["id"] == 7
    error = reply["error"]
    assert error["code"] == -32602, error
    assert param in error["message"]
    assert error["data"]["param"] == param
    assert service.history.last_event_seq() == before


def test_unknown_ids_are_not_found(raw: RawConnection) -> None:
    for method in (
        "memory.get",
        "memory.update",
        "memory.remove",
        "memory.restore",
        "memory.history",
    ):
        reply = raw.request(req(method, {"id": "mem_does_not_exist"}))
        assert reply["error"]["code"] == -32001, method


def test_notifications_get_no_response_and_pipelining_keeps_order(raw: RawConnection) -> None:
    lines = [
        {
            "jsonrpc": "2.0",
            "method": "memory.add",
            "params": {"cwd": CWD, "content": "from a notification"},
        },
        {"jsonrpc": "2.0", "id": "a", "method": "health"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "memory.search",
            "params": {"cwd": CWD, "query": "notification"},
        },
        {"jsonrpc": "2.0", "id": 3.5, "method": "nope"},
    ]
    raw.send(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    replies = [raw.reply() for _ in range(3)]
    assert [r["id"] for r in replies] == ["a", 2, 3.5]
    assert len(replies[1]["result"]["hits"]) == 1
    assert replies[2]["error"]["code"] == -32601


def test_batches(raw: RawConnection) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "health"},
        {"jsonrpc": "2.0", "method": "health"},
        {"jsonrpc": "2.0", "id": 2, "method": "nope"},
        5,
    ]
    replies = raw.request(batch)
    assert isinstance(replies, list)
    by_id = {r["id"]: r for r in replies}
    assert len(replies) == 3
    assert by_id[1]["result"]["ok"] is True
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[None]["error"]["code"] == -32600
    raw.send(json.dumps([{"jsonrpc": "2.0", "method": "health"}]).encode() + b"\n")
    assert raw.request(req("health"))["id"] == 7  # an all-notification batch gets no reply


def test_line_of_exactly_the_limit_is_served(raw: RawConnection) -> None:
    body = json.dumps(req("health")).encode()
    line = body[:-1] + b" " * (MAX_LINE_BYTES - len(body)) + b"}"
    assert len(line) == MAX_LINE_BYTES
    raw.send(line + b"\n")
    assert raw.reply()["result"]["ok"] is True


def test_oversized_line_is_refused_and_others_keep_working(
    raw: RawConnection, socket_path: Path
) -> None:
    other = RawConnection(socket_path)
    try:
        raw.send(
            b'{"jsonrpc": "2.0", "id": 1, "method": "health", "params": {"x": "'
            + b"a" * MAX_LINE_BYTES
            + b'"}}\n'
        )
        reply = raw.reply()
        assert reply["error"]["code"] == -32004
        assert raw.closed()
        assert other.request(req("health"))["result"]["ok"] is True
    finally:
        other.close()


def test_oversized_line_without_newline_is_refused(raw: RawConnection) -> None:
    try:
        raw.send(b"x" * (MAX_LINE_BYTES + 70_000))
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert raw.reply()["error"]["code"] == -32004
    assert raw.closed()


def test_large_observe_is_accepted_and_truncated(raw: RawConnection) -> None:
    transcript = "the user asked about flaky tests; " * 9_000  # ~300 KB
    reply = raw.request(
        req(
            "observe",
            {"cwd": CWD, "session_id": "s", "kind": "pre_compact", "messages_text": transcript},
        )
    )
    narrative = reply["result"]["observation"]["narrative"]
    assert 5_900 < len(narrative) <= 6_000
    assert narrative.endswith("…")


def test_idle_and_stalled_clients_are_timed_out(
    start_server: ServerFactory, short_dir: Path
) -> None:
    server = start_server(socket_path=short_dir / "t.sock", idle_timeout=0.3, line_timeout=0.3)
    path = short_dir / "t.sock"
    idle, stalled = RawConnection(path), RawConnection(path)
    try:
        stalled.send(b'{"jsonrpc": "2.0", "id": 1, "meth')
        assert idle.closed()
        assert stalled.closed()
        fresh = RawConnection(path)
        assert fresh.request(req("health"))["result"]["ok"] is True
        assert server.connected_clients() == 1
        fresh.close()
    finally:
        idle.close()
        stalled.close()


def test_connection_cap_answers_busy(start_server: ServerFactory, short_dir: Path) -> None:
    path = short_dir / "c.sock"
    server = start_server(socket_path=path, max_connections=64)
    held = [RawConnection(path) for _ in range(64)]
    try:
        for conn in held:  # all 64 are really served
            assert conn.request(req("health"))["result"]["ok"] is True
        extra = RawConnection(path)
        reply = extra.reply()
        assert reply["error"]["code"] == -32005
        assert extra.closed()
        extra.close()
        held.pop().close()
        wait_until(lambda: server.connected_clients() < 64)
        again = RawConnection(path)
        assert again.request(req("health"))["result"]["ok"] is True
        again.close()
    finally:
        for conn in held:
            conn.close()


def test_a_flood_of_connections_does_not_wedge_the_server(
    server: ServerThread, socket_path: Path
) -> None:
    flood = []
    for _ in range(300):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(socket_path))
        except OSError:
            sock.close()
            continue
        flood.append(sock)
    for sock in flood:
        sock.close()
    wait_until(lambda: server.connected_clients() == 0)
    fresh = RawConnection(socket_path)
    try:
        assert fresh.request(req("health"))["result"]["ok"] is True
    finally:
        fresh.close()


@pytest.mark.parametrize(
    ("line", "accepted"),
    [
        (b"[" * 64 + b"1" + b"]" * 64, True),  # 64 levels; the number inside adds none
        (b"[" * 64 + b"]" * 64, True),
        (b"[" * 65 + b"1" + b"]" * 65, False),
        (b'{"a":' * 64 + b'"x"' + b"}" * 64, True),
        (b'{"a":' * 65 + b"null" + b"}" * 65, False),
    ],
)
def test_nesting_limit_is_64_levels_of_objects_and_arrays(line: bytes, accepted: bool) -> None:
    if accepted:
        decode_line(line)
    else:
        with pytest.raises(RpcError, match="nested deeper than 64 levels"):
            decode_line(line)
