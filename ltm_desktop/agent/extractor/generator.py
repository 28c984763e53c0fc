"""The generator seam (messages in, text out) and its one implementation: any
OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp's server, vLLM, LM Studio,
OpenAI itself), over httpx2, the HTTP client the MCP SDK already brings in.

``timeout_s`` bounds the whole exchange, not only each read: the answer is read in
chunks against one deadline, so a server that trickles bytes cannot hold a run open.
"""

from __future__ import annotations

import ipaddress
import os
import time
from typing import Any, Protocol
from urllib.parse import urlsplit

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.seams import NO_EXTRACTOR, ExtractorOff
from ltm_desktop.core.settings.config import Settings

MAX_ANSWER_BYTES = 4 * 1024 * 1024
MAX_CONNECT_S = 10.0


class GenerationError(LtmError):
    """The endpoint gave no usable answer; the message says why, for the run's record."""


class Generator(Protocol):
    """Turns chat messages into the model's text."""

    @property
    def model(self) -> str: ...

    def generate(self, messages: list[dict[str, str]]) -> str: ...


class ChatCompletions:
    """``POST {base_url}/chat/completions`` (``base_url`` as the vendors give it, e.g.
    ``http://localhost:11434/v1`` for Ollama)."""

    def __init__(
        self, base_url: str, model: str, *, api_key: str | None = None, timeout_s: float = 60.0
    ) -> None:
        self.url = base_url.strip().rstrip("/") + "/chat/completions"
        self._model = model
        self._api_key = api_key
        self._timeout = timeout_s

    @property
    def model(self) -> str:
        return self._model

    def generate(self, messages: list[dict[str, str]]) -> str:
        import httpx2  # 65 ms to import: only when a model is really asked

        deadline = time.monotonic() + self._timeout
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        payload = {"model": self._model, "messages": messages, "temperature": 0, "stream": False}
        timeout = httpx2.Timeout(self._timeout, connect=min(self._timeout, MAX_CONNECT_S))
        try:
            with (
                httpx2.Client(timeout=timeout, trust_env=not _is_loopback(self.url)) as client,
                client.stream("POST", self.url, json=payload, headers=headers) as response,
            ):
                body = _read(response, deadline, self._timeout)
                status = response.status_code
        except httpx2.TimeoutException:
            raise GenerationError(self._too_slow()) from None
        except httpx2.ConnectError as exc:
            raise GenerationError(f"cannot connect to {self.url}: {_reason(exc)}") from None
        except httpx2.HTTPError as exc:
            raise GenerationError(f"the request to {self.url} failed: {_reason(exc)}") from None
        if status >= 400:
            excerpt = " ".join(body[:300].decode("utf-8", "replace").split())
            raise GenerationError(f"{self.url} answered HTTP {status}: {excerpt or '(no body)'}")
        return _content(body, self.url)

    def _too_slow(self) -> str:
        return f"the model did not answer within {self._timeout:g} s ({self.url})"


def _read(response: Any, deadline: float, timeout: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise GenerationError(f"the answer is larger than {MAX_ANSWER_BYTES // 2**20} MiB")
        if time.monotonic() > deadline:
            raise GenerationError(f"the model did not answer within {timeout:g} s")
    return b"".join(chunks)


def _content(body: bytes, url: str) -> str:
    import json

    try:
        data = json.loads(body)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        excerpt = " ".join(body[:200].decode("utf-8", "replace").split())
        raise GenerationError(
            f"{url} did not answer like a chat-completions endpoint "
            f"(no choices[0].message.content): {excerpt or '(empty)'}"
        ) from None
    if not isinstance(content, str):
        raise GenerationError(f"{url} answered without text (content is {type(content).__name__})")
    return content


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def _is_loopback(url: str) -> bool:
    """Proxy settings from the environment are for the outside world, not localhost."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def generator_from(settings: Settings) -> ChatCompletions:
    """The configured endpoint; ExtractorOff when none is, GenerationError when its key's
    environment variable is named but not set."""
    if not settings.extractor_configured:
        raise ExtractorOff(NO_EXTRACTOR)
    api_key = None
    if settings.extractor_api_key_env:
        api_key = os.environ.get(settings.extractor_api_key_env)
        if not api_key:
            raise GenerationError(
                f"the environment variable {settings.extractor_api_key_env} "
                "([extractor] api_key_env) is not set"
            )
    return ChatCompletions(
        settings.extractor_base_url,
        settings.extractor_model,
        api_key=api_key,
        timeout_s=settings.extractor_timeout_s,
    )
