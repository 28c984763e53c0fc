"""A small HTTP caller over a real loopback socket (stdlib http.client), for the HTTP API."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case


@dataclass
class HttpCaller:
    host: str
    port: int
    token: str

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        token: str | None = "",
    ) -> Answer:
        """``token``: "" sends the right one, None none, any other text that text."""
        sent = {} if token is None else {"Authorization": f"Bearer {token or self.token}"}
        if body is not None:
            raw = json.dumps(body).encode()
        if raw is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request(method, path, body=raw, headers=sent)
            response = conn.getresponse()
            data = response.read()
            got = {name.lower(): value for name, value in response.getheaders()}
        finally:
            conn.close()
        parsed = json.loads(data) if got.get("content-type") == "application/json" else data
        return Answer(response.status, parsed, got)

    def get(self, route: str, **query: Any) -> Answer:
        suffix = f"?{urlencode(query)}" if query else ""
        return self.request("GET", f"/api/memory/{route}{suffix}")

    def post(self, route: str, body: Any) -> Answer:
        return self.request("POST", f"/api/memory/{route}", body)
