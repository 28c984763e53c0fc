"""One fake model server on 127.0.0.1 speaking the three agents' model APIs, scripted.

The real agent CLIs talk to it instead of Anthropic, OpenAI or Google: the Anthropic
Messages API (Claude Code), the OpenAI Responses API (Codex) and the Gemini API (Gemini
CLI), streamed or not, as far as one scripted turn needs. Every turn is the same script:

1. call ``memory_write`` (add SEED_WRITE),
2. once its result is in the conversation, call ``memory_search`` (query ``release``),
3. once that result is in too, answer with FINAL_TEXT.

The step is chosen from what the request holds (which tool results are present), never
from counting requests: the CLIs also send side requests (titles, quota and next-speaker
checks, routing) that have no memory tools; those get a short plain answer. Every request
is kept, with its body, for the tests' assertions.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

WRITE = "memory_write"
SEARCH = "memory_search"
WRITE_ARGS: dict[str, Any] = {
    "action": "add",
    "title": "Deploys go through make release",
    "content": "Deploy this project with `make release`; never push images by hand.",
    "category": "knowledge",  # memory_write's categories; a decision is knowledge
}
SEARCH_ARGS: dict[str, Any] = {"query": "release"}
FINAL_TEXT = "Noted: deploys go through make release."
SIDE_TEXT = "Memory check"  # titles, summaries and other side requests


@dataclass(frozen=True)
class Recorded:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def as_dict(self) -> dict[str, Any]:
        body = self.json
        return {
            "method": self.method,
            "path": self.path,
            "body": body if body is not None else self.body.decode("utf-8", "replace"),
        }


@dataclass
class Turn:
    """What one model request shows of the scripted turn."""

    tools: list[str]  # every tool name offered
    calls: dict[str, str]  # call id -> tool name, of the calls made so far
    results: dict[str, str]  # tool name -> its result's text, for results sent back

    def tool(self, wanted: str) -> str | None:
        """The agent's name for our MCP tool ``wanted`` (each agent prefixes its own way)."""
        for name in self.tools:
            prefixed = "ltm" in name and name.endswith(("__" + wanted, "_" + wanted, "." + wanted))
            if name == wanted or prefixed:
                return name
        return None

    def step(self) -> tuple[str, dict[str, Any]] | str:
        """The next tool call (name, arguments), or the text to answer."""
        write, search = self.tool(WRITE), self.tool(SEARCH)
        if write is None or search is None:
            return SIDE_TEXT
        if not any(n.endswith(WRITE) for n in self.results):
            return write, WRITE_ARGS
        if not any(n.endswith(SEARCH) for n in self.results):
            return search, SEARCH_ARGS
        return FINAL_TEXT


def _text_of(value: Any) -> str:
    """A tool result's text: a string, or the text parts of a content list, joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text_of(part) for part in value)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "result", "response"):
            if key in value:
                return _text_of(value[key])
        return json.dumps(value)
    return "" if value is None else str(value)


# --- Anthropic Messages API (Claude Code) -------------------------------------------


def anthropic_turn(body: dict[str, Any]) -> Turn:
    tools = [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for message in body.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                calls[block.get("id", "")] = block.get("name", "")
            elif block.get("type") == "tool_result":
                name = calls.get(block.get("tool_use_id", ""), "?")
                results[name] = _text_of(block.get("content"))
    return Turn(tools, calls, results)


def _sse(event: str | None, data: dict[str, Any]) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def anthropic_reply(body: dict[str, Any], number: int) -> tuple[str, bytes]:
    """(content type, body) answering one Messages request."""
    step = anthropic_turn(body).step()
    model = body.get("model", "claude-fake")
    if isinstance(step, str):
        block: dict[str, Any] = {"type": "text", "text": step}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": step[0], "input": step[1]}
        stop = "tool_use"
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    message = {
        "id": f"msg_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return "application/json", json.dumps(message).encode()
    start = {**message, "content": [], "stop_reason": None}
    empty = {**block, "text": ""} if block["type"] == "text" else {**block, "input": {}}
    delta = (
        {"type": "text_delta", "text": block["text"]}
        if block["type"] == "text"
        else {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    )
    events = [
        _sse("message_start", {"type": "message_start", "message": start}),
        _sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": empty},
        ),
        _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        ),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return "text/event-stream", b"".join(events)


# --- OpenAI Responses API (Codex) ---------------------------------------------------


def _tool_names(tools: Any) -> Iterator[str]:
    """Tool names of a Responses tools list; a namespace's (Codex puts each MCP server's
    tools in one, ``mcp__ltm_desktop``) as ``namespace.name``."""
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            for name in _tool_names(tool.get("tools")):
                yield f"{tool.get('name')}.{name}"
        elif isinstance(tool.get("name"), str):
            yield tool["name"]


def responses_turn(body: dict[str, Any]) -> Turn:
    tools = list(_tool_names(body.get("tools")))
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            name = str(item.get("name", ""))
            if item.get("namespace"):
                name = f"{item['namespace']}.{name}"
            calls[item.get("call_id", "")] = name
        elif kind in ("function_call_output", "custom_tool_call_output"):
            results[calls.get(item.get("call_id", ""), "?")] = _text_of(item.get("output"))
    return Turn(tools, calls, results)


def responses_reply(body: dict[str, Any], number: int) -> tuple[str, bytes]:
    step = responses_turn(body).step()
    rid = f"resp_{number:04d}"
    if isinstance(step, str):
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{number:04d}",
            "status": "completed",
            "content": [{"type": "output_text", "text": step, "annotations": []}],
        }
    else:
        namespace, _, name = step[0].rpartition(".")
        item = {
            "type": "function_call",
            "id": f"fc_{number:04d}",
            "call_id": f"call_{number:04d}",
            "name": name,
            "arguments": json.dumps(step[1]),
            "status": "completed",
        }
        if namespace:
            item["namespace"] = namespace
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 120,
    }
    response = {
        "id": rid,
        "object": "response",
        "status": "in_progress",
        "model": body.get("model", "fake"),
        "output": [],
    }
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    if not body.get("stream"):
        return "application/json", json.dumps(done).encode()
    events = [
        _sse("response.created", {"type": "response.created", "response": response}),
        _sse(
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        ),
        _sse(
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        _sse("response.completed", {"type": "response.completed", "response": done}),
    ]
    return "text/event-stream", b"".join(events)


# --- Gemini API (Gemini CLI) --------------------------------------------------------


def gemini_turn(body: dict[str, Any]) -> Turn:
    tools = [
        str(decl.get("name", ""))
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for decl in tool.get("functionDeclarations") or []
        if isinstance(decl, dict)
    ]
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for content in body.get("contents") or []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if not isinstance(part, dict):
                continue
            if "functionCall" in part:
                call = part["functionCall"]
                calls[call.get("id") or call.get("name", "")] = call.get("name", "")
            if "functionResponse" in part:
                response = part["functionResponse"]
                results[response.get("name", "?")] = _text_of(response.get("response"))
    return Turn(tools, calls, results)


def _fill(schema: Any) -> Any:
    """A value matching a JSON schema, for the CLI's structured side requests."""
    if not isinstance(schema, dict):
        return "x"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {key: _fill(value) for key, value in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "x"


def _side_json(body: dict[str, Any]) -> str:
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    value = _fill(schema) if schema else {}
    if isinstance(value, dict):
        if "next_speaker" in value:
            value["next_speaker"] = "user"
        if "model_choice" in value:
            value["model_choice"] = "flash"
    return json.dumps(value)


def gemini_reply(body: dict[str, Any], stream: bool) -> tuple[str, bytes]:
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        part: dict[str, Any] = {"text": _side_json(body)}
    else:
        step = gemini_turn(body).step()
        part = (
            {"text": step}
            if isinstance(step, str)
            else {"functionCall": {"name": step[0], "args": step[1]}}
        )
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 20,
            "totalTokenCount": 120,
        },
        "modelVersion": "gemini-fake",
    }
    if not stream:
        return "application/json", json.dumps(chunk).encode()
    return "text/event-stream", _sse(None, chunk)


# --- the server ---------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        """Quiet: the recorded requests say what happened."""

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        recorded = Recorded(self.command, self.path, dict(self.headers), body)
        with self.server.lock:
            self.server.recorded.append(recorded)
            number = len(self.server.recorded)
        status, kind, payload = route(recorded, number)
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle  # noqa: N815


def route(request: Recorded, number: int) -> tuple[int, str, bytes]:
    """(status, content type, body) for any request a CLI sends."""
    path = urlsplit(request.path).path
    body = request.json if isinstance(request.json, dict) else {}
    if path.endswith("/messages/count_tokens"):
        return 200, "application/json", b'{"input_tokens": 100}'
    if path.endswith("/messages"):
        return 200, *anthropic_reply(body, number)
    if path.endswith("/responses"):
        return 200, *responses_reply(body, number)
    if path.endswith(":streamGenerateContent"):
        return 200, *gemini_reply(body, stream=True)
    if path.endswith(":generateContent"):
        return 200, *gemini_reply(body, stream=False)
    if path.endswith(":countTokens"):
        return 200, "application/json", b'{"totalTokens": 100}'
    if path.endswith("/models") and request.method == "GET":
        return 200, "application/json", b'{"data": [], "models": []}'
    return 404, "application/json", b'{"error": {"message": "not faked"}}'


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.recorded: list[Recorded] = []


@dataclass
class FakeModels:
    """The running server; ``requests`` are every request received, in order."""

    server: _Server = field(default_factory=_Server)
    thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def requests(self) -> list[Recorded]:
        with self.server.lock:
            return list(self.server.recorded)

    def start(self) -> FakeModels:
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(0.05,), name="fake-models", daemon=True
        )
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self.thread is not None:
            self.thread.join(10)


def turn_of(request: Recorded) -> Turn | None:
    """The scripted turn as this request shows it; None for a request of no model API."""
    body = request.json
    if not isinstance(body, dict):
        return None
    path = urlsplit(request.path).path
    if path.endswith("/messages"):
        return anthropic_turn(body)
    if path.endswith("/responses"):
        return responses_turn(body)
    if path.endswith((":streamGenerateContent", ":generateContent")):
        return gemini_turn(body)
    return None


def turn_requests(requests: list[Recorded]) -> list[tuple[Recorded, Turn]]:
    """The requests of the scripted turn itself (those offering both memory tools)."""
    found = []
    for request in requests:
        turn = turn_of(request)
        if turn is not None and turn.tool(WRITE) and turn.tool(SEARCH):
            found.append((request, turn))
    return found
