"""A value echoed in an error message is cut short: a 100,000-character id is not sent back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import RawConnection

pytestmark = pytest.mark.every_backend

HUGE = "x" * 100_000
LIMIT = 300  # the whole message, prefix included


def req(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (req("memory.get", {"id": HUGE}), -32001),
        (req("memory.history", {"id": HUGE}), -32001),
        (req("memory.remove", {"id": HUGE}), -32001),
        (req("project.resolve", {"cwd": HUGE}), -32602),
        (req("memory.update", {"id": "mem_x", HUGE: 1}), -32602),
        (req("recall", {"cwd": "/srv/app", "query": "x", "kinds": [HUGE]}), -32602),
        ({"jsonrpc": "2.0", "id": 7, "method": "health", HUGE: 1}, -32600),
    ],
    ids=["get", "history", "remove", "cwd", "update-field", "kinds", "member"],
)
def test_echoed_values_are_cut_short(
    raw: RawConnection, message: dict[str, Any], code: int
) -> None:
    error = raw.request(message)["error"]
    assert error["code"] == code, error
    assert len(error["message"]) < LIMIT, error["message"][:LIMIT]
    assert "xxxxxxxxxx" in error["message"]  # still recognisable
    assert "100,000 characters" in error["message"] or "…" in error["message"]
