"""``ltm-desktop serve --http``: the real console script, its startup line, the documented
curl examples run over a real loopback socket, refused binds, signals and the switch."""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ltm_desktop.api import runtime
from tests.api.http_calls import Answer, HttpCaller
from tests.conftest import ProcessEnv
from tests.console import CONSOLE_SCRIPT, assert_one_error_line

pytestmark = pytest.mark.every_backend

DOCS = Path(__file__).resolve().parents[3] / "docs" / "http.md"
STARTED = re.compile(r"http:127\.0\.0\.1:(\d+)")


class Served:
    """A running ``serve --http`` process and a caller for its HTTP API."""

    def __init__(
        self, data_dir: Path, sock: Path, *extra: str, env: dict[str, str] | None = None
    ) -> None:
        self.process = subprocess.Popen(
            [CONSOLE_SCRIPT, "--data-dir", str(data_dir), "serve", "--socket", str(sock), *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        self.line = self.process.stdout.readline()
        found = STARTED.search(self.line)
        assert found, (self.line, self.process.stderr and self.process.stderr.read())
        self.port = int(found.group(1))
        self.token_file = runtime.runtime_dir() / f"http-{self.port}.token"
        self.api = HttpCaller("127.0.0.1", self.port, self.token_file.read_text())

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=30)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def serve_http(tmp_path: Path, short_dir: Path, process_env: ProcessEnv) -> Iterator[Any]:
    """``serve --http`` on SQLite, and on PostgreSQL with its URL in the environment."""
    started: list[Served] = []
    env = process_env(tmp_path / "data")

    def start(*extra: str) -> Served:
        served = Served(tmp_path / "data", short_dir / "s.sock", *extra, env=env)
        started.append(served)
        return served

    yield start
    for served in started:
        served.close()


# -- the documented examples -------------------------------------------------


def documented_examples() -> list[tuple[str, Any]]:
    """Each ``curl`` block of docs/http.md with the JSON answer shown after it."""
    blocks = re.findall(r"```(\w+)\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    examples = []
    for (lang, body), (next_lang, answer) in zip(blocks, blocks[1:], strict=False):
        if lang == "sh" and body.startswith("curl "):
            assert next_lang == "json", body
            examples.append((body, json.loads(answer)))
    return examples


def run_curl(command: str, env: dict[str, str]) -> Answer:
    """The request a ``curl`` line of the docs sends, sent over a real socket.

    The flags the docs use are the only ones understood; any other fails the test, so
    the docs cannot show a request this test does not make.
    """
    assert not re.search(r"'[^']*\$[^']*'", command), "no variables inside single quotes"
    words = [
        re.sub(r"\$(\w+)", lambda m: env[m.group(1)], word)
        for word in shlex.split(command.replace("\\\n", " "))
    ]
    assert words[0] == "curl"
    method, url, data, headers = None, "", None, {}
    args = iter(words[1:])
    for word in args:
        if word == "-s":
            continue
        if word == "-H":
            name, _, value = next(args).partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-d":
            data = next(args).encode()
        elif word == "-X":
            method = next(args)
        elif word.startswith("http://"):
            url = word
        else:
            raise AssertionError(f"the docs' curl uses {word!r}, which this test does not run")
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.request(method or ("POST" if data else "GET"), target, body=data, headers=headers)
        response = conn.getresponse()
        return Answer(response.status, json.loads(response.read()))
    finally:
        conn.close()


def shape(value: Any) -> Any:
    """The keys and value types of a JSON value (ids, times and scores vary by run)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


@pytest.mark.slow
def test_the_documented_examples_run_against_a_real_server(serve_http: Any) -> None:
    served = serve_http("--http", "127.0.0.1:0")
    assert served.token_file.stat().st_mode & 0o777 == 0o600
    setup = re.search(r'TOKEN=\$\(cat "(.*)"\)', DOCS.read_text(encoding="utf-8"))
    assert setup is not None
    env = {"PORT": str(served.port), "TOKEN": served.api.token}
    known = {**os.environ, **env}
    documented_path = re.sub(r"\$(\w+)", lambda m: known[m.group(1)], setup[1])
    assert Path(documented_path) == served.token_file

    examples = documented_examples()
    routes = {route for c, _ in examples for route in re.findall(r"/api/memory/(\w+)", c)}
    assert routes == {"health", "recall", "remember", "forget", "stats", "history"}
    for command, documented in examples:
        answer = run_curl(command, env)
        if "error" in documented:
            assert answer.body == documented, command
        else:
            assert answer.status == 200, (command, answer.body)
            assert shape(answer.body) == shape(documented), command
        if "memory" in answer.body and "status" in answer.body:
            env["MEMORY_ID"] = answer.body["memory"]["id"]
    assert "MEMORY_ID" in env  # the forget example used what remember answered

    assert served.stop() == 0
    assert not served.token_file.exists()


# -- starting and stopping ---------------------------------------------------


def test_config_starts_it_and_sigint_stops_it(serve_http: Any, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[http]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    served = serve_http("--config", str(config))
    assert "unix:" in served.line
    assert served.api.get("health").body["ok"] is True
    assert served.stop(signal.SIGINT) == 0
    assert not served.token_file.exists()


@pytest.mark.parametrize("address", ["0.0.0.0:0", "192.168.1.10:8765", "example.com:80", "[::]:0"])
def test_a_non_loopback_bind_is_refused(tmp_path: Path, short_dir: Path, address: str) -> None:
    result = subprocess.run(
        [
            CONSOLE_SCRIPT,
            "--data-dir",
            str(tmp_path / "data"),
            "serve",
            "--socket",
            str(short_dir / "s.sock"),
            "--http",
            address,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_one_error_line(result, "cannot serve HTTP", "loopback")
    assert "serving" not in result.stdout
    assert not list(runtime.runtime_dir().glob("http-*.token"))
    assert not (short_dir / "s.sock").exists()


def test_http_with_several_workers_is_refused(tmp_path: Path, short_dir: Path) -> None:
    result = subprocess.run(
        [
            CONSOLE_SCRIPT,
            "--data-dir",
            str(tmp_path / "data"),
            "serve",
            "--socket",
            str(short_dir / "s.sock"),
            "--workers",
            "2",
            "--http",
            "127.0.0.1:0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_one_error_line(result, "--workers 1")


def test_memory_switched_off_in_the_config(serve_http: Any, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[memory]\nenabled = false\n", encoding="utf-8")
    served = serve_http("--config", str(config), "--http", "127.0.0.1:0")
    health = served.api.get("health")
    assert (health.status, health.body["enabled"]) == (200, False)
    for answer in (
        served.api.get("recall", cwd="/srv/app", q="anything"),
        served.api.get("stats", cwd="/srv/app"),
        served.api.post("remember", {"cwd": "/srv/app", "content": "not kept"}),
        served.api.post("forget", {"cwd": "/srv/app", "memoryIds": ["mem_1"]}),
    ):
        assert answer.status == 503
        assert answer.body == {"error": "ltm_disabled", "detail": answer.body["detail"]}
    assert served.stop() == 0


@pytest.mark.parametrize(
    ("listen", "workers", "warning"),
    [
        ("0.0.0.0:80", "1", "the HTTP API is not served ([http] listen): cannot serve"),
        ("127.0.0.1:0", "2", "the HTTP API ([http] listen) is not served with --workers 2"),
    ],
    ids=["bad-listen", "several-workers"],
)
def test_an_http_listen_in_the_config_that_cannot_be_served_is_a_warning(
    tmp_path: Path, short_dir: Path, listen: str, workers: str, warning: str
) -> None:
    """A config file never stops the server (the app warns the same way)."""
    config = tmp_path / "config.toml"
    config.write_text(f'[http]\nlisten = "{listen}"\n', encoding="utf-8")
    process = subprocess.Popen(
        [
            CONSOLE_SCRIPT,
            "--data-dir",
            str(tmp_path / "data"),
            "--config",
            str(config),
            "serve",
            "--socket",
            str(short_dir / "s.sock"),
            "--workers",
            workers,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "unix:" in line
        assert "http://" not in line
        assert (short_dir / "s.sock").exists()
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert f"ltm-desktop: warning: {warning}" in errors
    assert "warning: warning" not in errors
    assert "Traceback" not in errors
    assert not list(runtime.runtime_dir().glob("http-*.token"))
