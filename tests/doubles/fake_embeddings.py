"""A local OpenAI-compatible embeddings endpoint (``POST /v1/embeddings`` on 127.0.0.1)
for the ``openai`` embedder's tests: a bag of hashed words, or a chosen way to fail."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from tests.doubles.json_handler import JsonHandler

DIM = 64
# How the endpoint answers: "ok"; "down" (503); "not_http" (bytes that are no HTTP reply);
# "rows_not_objects" (``data`` a list of lists); "too_few" (one row short); "not_json".
MODES = ("ok", "down", "not_http", "rows_not_objects", "too_few", "not_json")


def bag_of_words(text: str) -> list[float]:
    vector = [0.0] * DIM
    for word in text.lower().split():
        digest = hashlib.sha256(word.strip(".,?!").encode()).digest()
        vector[digest[0] % DIM] += 1.0
    if not any(vector):
        vector[0] = 1.0
    return vector


@dataclass
class EndpointState:
    mode: str = "ok"
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(JsonHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook
        state = self.server.state
        with state.lock:
            state.calls += 1
            mode = state.mode
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        texts = body["input"]
        if mode == "not_http":
            self.wfile.write(b"garbage\r\n\r\n")
            return
        if mode == "down":
            self._send(503, b'{"error": "loading the model"}')
            return
        rows: list[Any] = [{"index": i, "embedding": bag_of_words(t)} for i, t in enumerate(texts)]
        if mode == "rows_not_objects":
            rows = [row["embedding"] for row in rows]
        elif mode == "too_few":
            rows = rows[:-1]
        answer = b"{not json" if mode == "not_json" else json.dumps({"data": rows}).encode()
        self._send(200, answer)


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True  # server_close joins the handlers: no thread outlives a test
    state: EndpointState


@dataclass
class FakeEmbeddings:
    server: _Server
    state: EndpointState

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def fake_embeddings() -> Iterator[FakeEmbeddings]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.state = EndpointState()
    thread = threading.Thread(target=server.serve_forever, name="fake-embeddings", daemon=True)
    thread.start()
    try:
        yield FakeEmbeddings(server, server.state)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
