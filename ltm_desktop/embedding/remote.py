"""``openai``: any OpenAI-compatible embeddings endpoint (Ollama, llama.cpp, vLLM...).

Fail-open: an endpoint that is down, slow or answers nonsense turns semantic search
off for a while (one log line, a status note) and search goes on by words; it is
tried again after ``COOL_DOWN`` seconds. Writes never wait for it: new memories get
their vectors from the background backfill.
"""

from __future__ import annotations

import json
import logging
import math
import struct
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence

from ltm_desktop.core.errors import EmbedderUnavailable

log = logging.getLogger(__name__)
TIMEOUT = 2.0  # seconds; a search waits this long at most before answering by words
COOL_DOWN = 30.0
FLOOR = 0.45  # cosine similarity: sentence-embedding models score unrelated texts lower


class RemoteEmbedder:
    """POST {endpoint}/embeddings {"model", "input"}; the answer's ``data[i].embedding``."""

    inline = False
    floor = FLOOR

    def __init__(self, endpoint: str, model: str, api_key: str = "") -> None:
        self._url = endpoint.rstrip("/") + "/embeddings"
        self._name = model
        self._api_key = api_key
        self.model = f"openai:{model}@{endpoint.rstrip('/')}"
        self._lock = threading.Lock()
        self._problem: str | None = None
        self._retry_at = 0.0

    def problem(self) -> str | None:
        return self._problem

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        if not texts:
            return []
        with self._lock:
            if self._problem is not None and time.monotonic() < self._retry_at:
                raise EmbedderUnavailable(self._problem)
        try:
            vectors = self._request(list(texts))
        except Exception as exc:  # noqa: BLE001 - whatever the endpoint answers (not HTTP,
            # rows that are not objects...) is an endpoint that does not work: words only
            self._fail(exc)
            raise EmbedderUnavailable(str(self._problem)) from exc
        with self._lock:
            if self._problem is not None:
                log.info("the embeddings endpoint %s answers again", self._url)
            self._problem = None
        return vectors

    def _request(self, texts: list[str]) -> list[bytes]:
        body = json.dumps({"model": self._name, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self._url, body, headers, method="POST")
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310
            answer = json.loads(response.read())
        rows = sorted(answer["data"], key=lambda row: row.get("index", 0))
        if len(rows) != len(texts):
            raise ValueError(f"{len(rows)} embeddings for {len(texts)} texts")
        out = []
        for row in rows:
            values = [float(v) for v in row["embedding"]]
            norm = math.sqrt(sum(v * v for v in values))
            if not values or not math.isfinite(norm) or norm == 0:
                raise ValueError("an embedding that is empty or not finite")
            out.append(struct.pack(f"<{len(values)}f", *(v / norm for v in values)))
        return out

    def _fail(self, exc: BaseException) -> None:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        with self._lock:
            first = self._problem is None
            self._problem = (
                f"semantic search is off: the embeddings endpoint {self._url} failed "
                f"({type(exc).__name__}: {reason}); searching by words only, trying again "
                f"in {COOL_DOWN:.0f} s"
            )
            self._retry_at = time.monotonic() + COOL_DOWN
        if first:
            log.warning("%s", self._problem)
