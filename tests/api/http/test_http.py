"""The HTTP API over a real loopback socket: every route, good and bad input, errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop import __version__
from ltm_desktop.api.client import Client
from ltm_desktop.api.http.options import HttpOptions
from ltm_desktop.api.http.routes import MAX_BODY_BYTES
from ltm_desktop.api.http.server import HttpServer
from ltm_desktop.api.protocol import MAX_LINE_BYTES
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.api.http_calls import HttpCaller
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
OTHER = "/home/dev/src/billing"
HttpFactory = Callable[..., HttpServer]


@pytest.fixture
def start_http(service: MemoryService) -> Iterator[HttpFactory]:
    started: list[HttpServer] = []

    def factory(svc: MemoryService | None = None, **options: Any) -> HttpServer:
        web = HttpServer(svc or service, HttpOptions(("127.0.0.1", 0), **options))
        started.append(web)
        web.start()
        return web

    yield factory
    for web in started:
        web.stop()


def caller(web: HttpServer) -> HttpCaller:
    assert web.address is not None
    assert web.token_file is not None
    return HttpCaller(*web.address, web.token_file.read_text())


@pytest.fixture
def api(start_http: HttpFactory) -> HttpCaller:
    return caller(start_http())


def remember(api: HttpCaller, content: str, cwd: str = CWD, **fields: Any) -> str:
    answer = api.post("remember", {"cwd": cwd, "content": content, **fields})
    assert answer.status == 200, answer.body
    return str(answer.body["memory"]["id"])


# -- the routes ------------------------------------------------------------


def test_health_names_the_backend_and_version(api: HttpCaller) -> None:
    answer = api.get("health")
    assert answer.status == 200
    assert answer.body == {
        "ok": True,
        "enabled": True,
        "backend": "sqlite",
        "version": __version__,
        "problems": [],
    }


def test_remember_then_recall_stats_and_forget(api: HttpCaller, service: MemoryService) -> None:
    answer = api.post(
        "remember",
        {
            "cwd": CWD,
            "content": "Checkout uses the payment mock in tests",
            "type": "knowledge",
            "concepts": ["payments", "testing"],
        },
    )
    assert answer.status == 200
    assert answer.body["status"] == "created"
    memory_id = answer.body["memory"]["id"]
    stored = service.get(memory_id)
    assert stored.tags == ("payments", "testing")
    assert stored.project_id == service.resolve_scope(cwd=CWD)
    assert service.history.memory(memory_id)[-1].actor == "http"

    hits = api.get("recall", cwd=CWD, q="payment mock", limit=3).body["hits"]
    assert [h["memory"]["id"] for h in hits] == [memory_id]
    stats = api.get("stats", cwd=CWD).body
    assert (stats["active"], stats["observations"]) == (1, 0)

    forgotten = api.post("forget", {"cwd": CWD, "memoryIds": [memory_id]})
    assert forgotten.status == 200
    assert forgotten.body["forgotten"] == {"memories": [memory_id], "observations": []}
    assert api.get("recall", cwd=CWD, q="payment mock").body["hits"] == []
    assert api.get("stats", cwd=CWD).body["active"] == 0
    assert service.get(memory_id).disabled is True


def test_history_names_the_agent_and_filters_by_person(
    api: HttpCaller, service: MemoryService
) -> None:
    remember(api, "Deploys go out on Thursdays")
    events = api.get("history", cwd=CWD).body["events"]
    assert [(e["actor"], e["action"]) for e in events] == [("http", "created")]
    assert {"person", "machine", "machine_id"} <= set(events[0])
    assert api.get("history", cwd=CWD, agent="codex").body["events"] == []
    assert api.get("history", cwd=CWD, person="nobody@nowhere").body["events"] == []
    assert api.get("history", cwd=CWD, limit="1").status == 200


def test_forget_is_limited_to_the_project(api: HttpCaller, service: MemoryService) -> None:
    theirs = remember(api, "Billing runs on Fridays", cwd=OTHER)
    answer = api.post("forget", {"cwd": CWD, "memoryIds": [theirs], "observationIds": ["obs_x"]})
    assert answer.status == 200
    refused = {r["id"]: r["reason"] for r in answer.body["refused"]}
    assert "'billing'" in refused[theirs]
    assert refused["obs_x"] == "no observation has this id"
    assert service.get(theirs).disabled is False


def test_remember_takes_files_and_the_designs_memory_types(
    api: HttpCaller, service: MemoryService
) -> None:
    answer = api.post(
        "remember",
        {
            "cwd": CWD,
            "content": "Start in app.py",
            "type": "decision",
            "files": ["src/app.py", f"{CWD}/docs/setup.md"],
        },
    )
    assert answer.status == 200, answer.body
    assert answer.body["memory"]["files"] == ["src/app.py", "docs/setup.md"]
    assert answer.body["memory"]["category"] == "knowledge"
    stored = service.get(answer.body["memory"]["id"])
    assert stored.files == ("src/app.py", "docs/setup.md")
    todo = api.post("remember", {"cwd": CWD, "content": "Rotate the key", "type": "todo"})
    assert todo.body["memory"]["category"] == "task"

    outside = api.post("remember", {"cwd": CWD, "content": "Elsewhere", "files": ["/etc/hosts"]})
    assert outside.status == 400
    assert outside.body["field"] == "files"
    unknown = api.post("remember", {"cwd": CWD, "content": "Odd", "type": "gossip"})
    assert unknown.status == 400
    assert unknown.body["field"] == "type"
    surrogate = api.post("remember", {"cwd": CWD, "content": "Odd", "files": ["\ud800"]})
    assert surrogate.status == 400
    assert surrogate.body["field"] == "files"
    assert service.count_memories(service.resolve_scope(cwd=CWD)) == 2


# -- bad input -------------------------------------------------------------

GETS = [
    ("recall", {"q": "x"}, "cwd"),
    ("recall", {"cwd": CWD}, "q"),
    ("recall", {"cwd": CWD, "q": "x", "limit": "ten"}, "limit"),
    ("recall", {"cwd": CWD, "q": "x", "limit": "0"}, "limit"),
    ("recall", {"cwd": CWD, "q": "x", "query": "y"}, "query"),
    ("stats", {}, "cwd"),
    ("stats", {"cwd": CWD, "project_id": "global"}, "project_id"),
    ("health", {"verbose": "1"}, "verbose"),
    ("history", {}, "cwd"),
    ("history", {"cwd": CWD, "limit": "0"}, "limit"),
    ("history", {"cwd": CWD, "agent": ""}, "agent"),
]
POSTS = [
    ("remember", {"content": "x"}, "cwd"),
    ("remember", {"cwd": 5, "content": "x"}, "cwd"),
    ("remember", {"cwd": CWD}, "content"),
    ("remember", {"cwd": CWD, "content": 5}, "content"),
    ("remember", {"cwd": CWD, "content": "x", "type": "bogus"}, "type"),
    ("remember", {"cwd": CWD, "content": "x", "concepts": "payments"}, "concepts"),
    ("remember", {"cwd": CWD, "content": "x", "files": "src/app.py"}, "files"),
    ("remember", {"cwd": CWD, "content": "x", "files": [1]}, "files"),
    ("remember", {"cwd": CWD, "content": "x", "title": "t"}, "title"),
    ("forget", {"memoryIds": ["mem_1"]}, "cwd"),
    ("forget", {"cwd": CWD}, "memoryIds"),
    ("forget", {"cwd": CWD, "memoryIds": "mem_1"}, "memoryIds"),
    ("forget", {"cwd": CWD, "observationIds": [1]}, "observationIds"),
]


@pytest.mark.parametrize(("route", "query", "name"), GETS)
def test_bad_query_names_the_field(
    api: HttpCaller, route: str, query: dict[str, str], name: str
) -> None:
    answer = api.get(route, **query)
    assert answer.status == 400
    assert answer.body["error"] == "invalid_input"
    assert answer.body["field"] == name
    assert answer.body["detail"].startswith(name)


@pytest.mark.parametrize(("route", "body", "name"), POSTS)
def test_bad_body_names_the_field_and_stores_nothing(
    api: HttpCaller, service: MemoryService, route: str, body: dict[str, Any], name: str
) -> None:
    answer = api.post(route, body)
    assert answer.status == 400
    assert answer.body["error"] == "invalid_input"
    assert answer.body["field"] == name
    assert name in answer.body["detail"]
    assert service.stats(service.resolve_scope(cwd=CWD)).active == 0


def test_a_repeated_query_parameter_is_refused(api: HttpCaller) -> None:
    answer = api.request("GET", f"/api/memory/recall?cwd={CWD}&q=a&q=b")
    assert answer.status == 400
    assert answer.body["field"] == "q"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "empty"),
        (b"{not json", "parse error"),
        (b"[1, 2]", "not a list"),
        (b'"text"', "not a string"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"cwd": NaN}', "NaN"),
    ],
)
def test_a_body_that_is_not_a_json_object_is_refused(
    api: HttpCaller, raw: bytes, problem: str
) -> None:
    answer = api.request("POST", "/api/memory/remember", raw=raw)
    assert answer.status == 400
    assert answer.body["error"] == "invalid_json"
    assert problem in answer.body["detail"]


def test_a_body_over_the_socket_limit_is_refused(api: HttpCaller, service: MemoryService) -> None:
    assert MAX_BODY_BYTES == MAX_LINE_BYTES
    content = "x" * MAX_BODY_BYTES
    answer = api.post("remember", {"cwd": CWD, "content": content})
    assert answer.status == 413
    assert answer.body["error"] == "too_large"
    assert service.stats(service.resolve_scope(cwd=CWD)).active == 0


def test_a_chunked_body_over_the_limit_is_refused(api: HttpCaller) -> None:
    """No Content-Length to trust: the limit counts what arrives."""
    conn = socket.create_connection((api.host, api.port), timeout=30)
    with conn:
        head = (
            f"POST /api/memory/remember HTTP/1.1\r\nHost: {api.host}:{api.port}\r\n"
            f"Authorization: Bearer {api.token}\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        conn.sendall(head.encode())
        chunk = b"x" * 65536
        try:
            for _ in range(MAX_BODY_BYTES // len(chunk) + 2):
                conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before we finished: what it should do
        reply = b""
        while b"\r\n\r\n" not in reply:
            data = conn.recv(65536)
            if not data:
                break
            reply += data
    assert reply.startswith(b"HTTP/1.1 413 ")


def test_unknown_route_and_wrong_method(api: HttpCaller) -> None:
    missing = api.request("GET", "/api/memory/everything")
    assert (missing.status, missing.body["error"]) == (404, "not_found")
    wrong = api.request("POST", "/api/memory/stats", {"cwd": CWD})
    assert (wrong.status, wrong.body["error"]) == (405, "method_not_allowed")
    assert "GET" in wrong.headers["allow"]
    assert api.request("DELETE", "/api/memory/remember").status == 405


# -- who may call ----------------------------------------------------------


@pytest.mark.parametrize("token", [None, "wrong", "x" * 43])
def test_a_missing_or_wrong_token_is_refused(api: HttpCaller, token: str | None) -> None:
    for path in ("/api/memory/health", "/api/memory/nothing-here"):
        answer = api.request("GET", path, token=token)
        assert answer.status == 401
        assert answer.body["error"] == "unauthorized"
        assert answer.headers["www-authenticate"] == "Bearer"


def test_another_scheme_is_refused(api: HttpCaller) -> None:
    answer = api.request(
        "GET", "/api/memory/health", token=None, headers={"Authorization": api.token}
    )
    assert answer.status == 401


def test_a_foreign_host_is_refused(api: HttpCaller) -> None:
    for host in ("evil.example", f"evil.example:{api.port}", f"127.0.0.1:{api.port + 1}"):
        answer = api.request("GET", "/api/memory/health", headers={"Host": host})
        assert answer.status == 421
        assert answer.body["error"] == "forbidden_host"
    ok = api.request("GET", "/api/memory/health", headers={"Host": f"localhost:{api.port}"})
    assert ok.status == 200


def test_a_browser_origin_not_allowed_is_refused(api: HttpCaller) -> None:
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{api.port}"):
        answer = api.request("GET", "/api/memory/health", headers={"Origin": origin})
        assert answer.status == 403
        assert answer.body["error"] == "forbidden_origin"


def test_an_allowed_origin_gets_cors_and_still_needs_the_token(start_http: HttpFactory) -> None:
    origin = "chrome-extension://abcdefghijklmnop"
    api = caller(start_http(allowed_origins=(origin,)))
    answer = api.request("GET", "/api/memory/health", headers={"Origin": origin})
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == origin
    preflight = api.request(
        "OPTIONS",
        "/api/memory/remember",
        token=None,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.status == 200
    assert "POST" in preflight.headers["access-control-allow-methods"]
    bare = api.request("GET", "/api/memory/health", token=None, headers={"Origin": origin})
    assert bare.status == 401
    other = api.request("GET", "/api/memory/health", headers={"Origin": "http://evil.example"})
    assert other.status == 403


# -- states and faults -----------------------------------------------------


def test_disabled_memory_answers_503_except_health(
    make_service: ServiceFactory, start_http: HttpFactory, tmp_path: Any
) -> None:
    svc = make_service(tmp_path / "off", settings=Settings(memory_enabled=False))
    api = caller(start_http(svc))
    health = api.get("health")
    assert health.status == 200
    assert health.body["enabled"] is False
    for answer in (
        api.get("recall", cwd=CWD, q="x"),
        api.get("stats", cwd=CWD),
        api.post("remember", {"cwd": CWD, "content": "kept out"}),
        api.post("forget", {"cwd": CWD, "memoryIds": ["mem_1"]}),
    ):
        assert answer.status == 503
        assert answer.body["error"] == "ltm_disabled"
    assert svc.stats(svc.resolve_scope(cwd=CWD)).active == 0


@pytest.mark.sqlite_only  # removes SQLite's database file under the service
def test_a_store_fault_is_a_clear_500_without_a_traceback(
    api: HttpCaller, service: MemoryService
) -> None:
    remember(api, "Written before the fault")
    service.paths.db_path.unlink()  # the database removed under the running service
    answer = api.post("remember", {"cwd": CWD, "content": "Never acknowledged"})
    assert answer.status == 500
    assert answer.body["error"] == "internal_error"
    assert "Traceback" not in json.dumps(answer.body)
    assert answer.body["detail"]


def test_a_stalled_client_blocks_neither_http_nor_the_socket(
    api: HttpCaller, client: Client
) -> None:
    stalled = socket.create_connection((api.host, api.port), timeout=30)
    with stalled:
        stalled.sendall(b"POST /api/memory/remember HTTP/1.1\r\nHost: x\r\nContent-Length: 99")
        assert api.get("health").status == 200
        assert client.health()["ok"] is True


def test_the_token_file_is_private_and_removed_at_stop(start_http: HttpFactory) -> None:
    web = start_http()
    assert web.token_file is not None
    assert web.address is not None
    assert web.token_file.name == f"http-{web.address[1]}.token"
    assert web.token_file.stat().st_mode & 0o777 == 0o600
    again = start_http()
    assert again.token_file is not None
    assert again.token_file.read_text() != web.token_file.read_text()  # fresh per start
    web.stop()
    assert not web.token_file.exists()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(web.address, timeout=5).close()


def test_the_app_starts_it_from_the_config_and_warns_when_it_cannot(
    make_service: ServiceFactory, tmp_path: Any
) -> None:
    from ltm_desktop.desktop import start_http

    warnings: list[str] = []
    on = make_service(tmp_path / "on", settings=Settings(http_listen="127.0.0.1:0"))
    web = start_http(on, warnings.extend)
    assert web is not None
    try:
        assert caller(web).get("health").status == 200
    finally:
        web.stop()
    assert start_http(make_service(tmp_path / "off"), warnings.extend) is None
    assert warnings == []
    foreign = make_service(tmp_path / "lan", settings=Settings(http_listen="0.0.0.0:0"))
    assert start_http(foreign, warnings.extend) is None
    assert len(warnings) == 1
    assert "loopback" in warnings[0]


STANDALONE = """
import sys
from pathlib import Path
from ltm_desktop.api.http.options import HttpOptions
from ltm_desktop.api.http.server import HttpServer
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.service import MemoryService
from ltm_desktop.store import open_store
from tests.api.http_calls import HttpCaller

paths = DataPaths(Path(sys.argv[1]))
service = MemoryService(open_store(paths.db_path, paths.backup_dir), paths)
service.start()
web = HttpServer(service, HttpOptions(("127.0.0.1", 0)))
web.start()
api = HttpCaller(*web.address, web.token_file.read_text())
print(api.post("remember", {"cwd": "/srv/app", "content": "Stands alone"}).status)
web.stop()
service.close()
"""


def test_the_server_needs_nothing_else_imported(tmp_path: Any) -> None:
    """The socket methods register themselves when ``api.methods`` is imported; the HTTP
    server alone (without the socket server) answered "method not found"."""
    root = Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, "-c", STANDALONE, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
    )
    assert result.stdout.strip() == "200", result.stderr
