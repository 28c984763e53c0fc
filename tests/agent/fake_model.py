"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 (a random port).

It answers ``POST /v1/chat/completions`` with whatever the test set (a reply text, an
HTTP status, or no answer until released) and keeps every request body it received.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from ltm_desktop.core.settings.config import Settings
from tests.doubles.json_handler import JsonHandler


@dataclass
class Behaviour:
    reply: str = "[]"
    status: int = 200
    raw_body: bytes | None = None  # sent as is instead of a chat-completions answer
    hold: bool = False  # answer only once released (a model slower than the timeout)
    received: list[bytes] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)


class _Handler(JsonHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook
        behaviour = self.server.behaviour
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        behaviour.received.append(body)
        behaviour.headers.append(dict(self.headers))
        behaviour.arrived.set()
        if behaviour.hold:
            behaviour.release.wait(30)
        if self.path != "/v1/chat/completions":
            self._send(404, b'{"error": "not found"}')
            return
        if behaviour.raw_body is not None:
            self._send(behaviour.status, behaviour.raw_body)
            return
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": behaviour.reply}}],
        }
        self._send(behaviour.status, json.dumps(answer).encode())


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    behaviour: Behaviour


@dataclass
class FakeModel:
    server: _Server
    behaviour: Behaviour
    thread: threading.Thread

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "extractor_base_url": self.base_url,
            "extractor_model": "fake-model",
            "extractor_timeout_s": 10.0,
        }
        return Settings(**{**values, **overrides})

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(body) for body in self.behaviour.received]

    def received_text(self) -> str:
        return b"\n".join(self.behaviour.received).decode("utf-8")


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.behaviour = Behaviour()
    thread = threading.Thread(
        target=server.serve_forever, args=(0.02,), name="fake-model", daemon=True
    )
    thread.start()
    try:
        yield FakeModel(server, server.behaviour, thread)
    finally:
        server.behaviour.release.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def refused_url() -> str:
    """A loopback URL where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
