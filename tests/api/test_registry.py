"""The registry reads a handler's signature once, and checks every request against it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Self, TypedDict, Unpack

import pytest

from ltm_desktop.api.call import Call, Session
from ltm_desktop.api.methods import METHODS
from ltm_desktop.api.params import Between, Checked, Composite, invalid
from ltm_desktop.api.protocol import RpcError
from ltm_desktop.api.registry import Handler
from ltm_desktop.core.records import EDITABLE_FIELDS
from ltm_desktop.core.service import MemoryService

pytestmark = pytest.mark.every_backend


def call_of(service: MemoryService) -> Call:
    return Call(service, Session("unix"))


def error_of(handler: Handler, call: Call, params: dict[str, Any]) -> tuple[str, Any]:
    with pytest.raises(RpcError) as caught:
        handler(call, params)
    return caught.value.message, caught.value.data


def double(value: int, name: str) -> int:
    if value == 13:
        raise invalid(name, "must not be 13")
    return value * 2


@dataclass(frozen=True)
class Pair(Composite):
    wire_names = ("left", "right")

    left: Any
    right: Any

    @classmethod
    def from_params(cls, call: Call, params: Mapping[str, Any]) -> Self:
        if "left" not in params:
            raise invalid("left", "is required with right")
        return cls(params["left"], params.get("right"))


class Extras(TypedDict, total=False):
    colour: Any
    size: Any


def sample(
    call: Call,
    name: str,
    count: Annotated[int, Between(1, 9)] = 3,
    twice: Annotated[int, Checked(double)] | None = None,
    anything: Any = "default",
    flag: bool = False,
    words: list[str] | None = None,
    pair: Pair | None = None,
    **extras: Unpack[Extras],
) -> dict[str, Any]:
    return {
        "name": name,
        "count": count,
        "twice": twice,
        "anything": anything,
        "flag": flag,
        "words": words,
        "pair": pair,
        "extras": extras,
    }


def test_params_arrive_typed_with_the_defaults_of_the_signature(service: MemoryService) -> None:
    handler = Handler.of(sample)
    got = handler(call_of(service), {"name": "x", "twice": 4, "colour": None, "flag": None})
    assert got == {
        "name": "x",
        "count": 3,
        "twice": 8,
        "anything": "default",
        "flag": False,  # null counts as absent
        "words": None,
        "pair": None,  # neither of its params given
        "extras": {"colour": None},  # as sent, null included
    }
    got = handler(call_of(service), {"name": "x", "left": 1, "anything": [1], "words": ["a"]})
    assert (got["pair"], got["anything"], got["words"]) == (Pair(1, None), [1], ["a"])


BAD = [
    ({}, "invalid params: name is required", "name"),
    ({"name": None}, "invalid params: name must be a string, not null", "name"),
    ({"name": 5}, "invalid params: name must be a string, not a number (5)", "name"),
    ({"name": "x", "count": 10}, "invalid params: count must be between 1 and 9; got 10", "count"),
    (
        {"name": "x", "count": True},
        "invalid params: count must be an integer, not a boolean (true)",
        "count",
    ),
    ({"name": "x", "twice": 13}, "invalid params: twice must not be 13", "twice"),
    (
        {"name": "x", "flag": "yes"},
        "invalid params: flag must be true or false, not a string ('yes')",
        "flag",
    ),
    ({"name": "x", "words": [1]}, "invalid params: words must be a list of strings", "words"),
    ({"name": "x", "right": 1}, "invalid params: left is required with right", "left"),
    (
        {"name": "x", "zeta": 1, "alpha": 2},
        "invalid params: alpha is not a parameter of this method",
        "alpha",
    ),
    # the params of the signature are checked before the names it does not have
    ({"zeta": 1}, "invalid params: name is required", "name"),
]


@pytest.mark.parametrize(("params", "message", "param"), BAD)
def test_a_wrong_param_is_named(
    service: MemoryService, params: dict[str, Any], message: str, param: str
) -> None:
    assert error_of(Handler.of(sample), call_of(service), params) == (message, {"param": param})


def unannotated(call: Call, name) -> None:
    pass


def no_reader(call: Call, when: float) -> None:
    pass


def no_call(name: str) -> None:
    pass


def positional_only(call: Call, name: str, /) -> None:
    pass


def read_twice(call: Call, left: str, pair: Pair) -> None:
    pass


@pytest.mark.parametrize("handler", [unannotated, no_reader, no_call, positional_only, read_twice])
def test_a_signature_the_registry_cannot_read_fails_at_registration(handler: Any) -> None:
    with pytest.raises(TypeError):
        Handler.of(handler)


def test_the_table_says_what_the_dispatcher_needs() -> None:
    edits = set(EDITABLE_FIELDS)
    assert METHODS["memory.update"].handler.accepted == {"id", "expected_updated_at"} | edits
    approve = {"id", "expected_updated_at", "into_project_id"} | edits
    assert METHODS["inbox.approve"].handler.accepted == approve
    assert METHODS["memory.add"].handler.accepted >= {"cwd", "project_id", "content"}
    assert {n for n, m in METHODS.items() if m.at_once} == {
        "health",
        "hello",
        "auth",
        "memory.search",
    }
    assert {n for n, m in METHODS.items() if not m.gated} == {"health", "hello", "auth"}
    assert {n for n, m in METHODS.items() if m.writes} == {
        "memory.add",
        "memory.update",
        "memory.remove",
        "memory.restore",
        "memory.purge_expired",
        "observe",
        "forget",
        "inbox.approve",
        "inbox.reject",
        "inbox.reopen",
        "project.merge",
        "project.detach",
    }
