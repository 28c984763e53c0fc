"""Our hooks and MCP server in a JSON settings file (Claude Code, Gemini CLI), edited in
place: what is not ours keeps its bytes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ltm_desktop.agent.integration import json_edit
from ltm_desktop.agent.integration.entries import SERVER_NAME, is_our_command, is_our_group
from ltm_desktop.core.errors import LtmError

EMPTY = "{}\n"


class ConfigRefused(LtmError):
    """A config file cannot be changed safely; the message names it and says why."""


Edit = TypeVar("Edit", bound=Callable[..., str])


def _refusing(edit: Edit) -> Edit:
    """``edit`` raising ConfigRefused for text that is not JSON: an object an edit looks
    into (``"hooks"``) is read only then, so a member written twice in it is found then."""

    @functools.wraps(edit)
    def refusing(text: str, *args: Any) -> str:
        try:
            return edit(text, *args)
        except json_edit.JsonSyntaxError as exc:
            raise ConfigRefused(f"{args[-1]} is not valid JSON ({exc})") from None

    return cast(Edit, refusing)


def _root(text: str, where: str) -> json_edit.Node:
    try:
        root = json_edit.parse(text)
    except json_edit.JsonSyntaxError as exc:
        raise ConfigRefused(f"{where} is not valid JSON ({exc})") from None
    if root.kind != "object":
        raise ConfigRefused(f"{where} does not hold a JSON object")
    return root


def _object(text: str, node: json_edit.Node | None, where: str) -> json_edit.Node | None:
    if node is not None and node.kind != "object":
        raise ConfigRefused(f"{where} is not a JSON object")
    return node


@_refusing
def add_hooks(text: str, groups: dict[str, dict[str, Any]], where: str) -> str:
    """``text`` with one group of ours under each event of ``groups`` (and no stale one)."""
    text = text if text.strip() else EMPTY
    for event, group in groups.items():
        root = _root(text, where)
        hooks = _object(text, root.member("hooks"), f'"hooks" in {where}')
        if hooks is None:
            text = json_edit.add_member(text, root, "hooks", {event: [group]})
            continue
        entries = hooks.member(event)
        if entries is None:
            text = json_edit.add_member(text, hooks, event, [group])
            continue
        if entries.kind != "array":
            raise ConfigRefused(f'"hooks"."{event}" in {where} is not a list')
        values = [json_edit.value_of(text, item) for item in entries.items]
        if group in values and sum(map(is_our_group, values)) == 1:
            continue  # already there, exactly
        text = _drop_ours(text, where, event)
        root = _root(text, where)
        hooks = root.member("hooks")
        entries = hooks.member(event) if hooks is not None else None
        if hooks is not None and entries is not None:
            text = json_edit.add_item(text, entries, group)
        elif hooks is not None:
            text = json_edit.add_member(text, hooks, event, [group])
    return text


def _drop_ours(text: str, where: str, event: str) -> str:
    """Remove our groups under ``event``, and our handlers from groups the person shares
    with their own (one at a time: offsets change)."""
    while True:
        hooks = _root(text, where).member("hooks")
        entries = hooks.member(event) if hooks is not None else None
        if entries is None or entries.kind != "array":
            return text
        ours = [
            i
            for i, item in enumerate(entries.items)
            if is_our_group(json_edit.value_of(text, item))
        ]
        if ours:
            text = json_edit.remove_item(text, entries, ours[0])
            continue
        handler = _our_handler_in_shared_group(text, entries)
        if handler is None:
            return text
        text = json_edit.remove_item(text, *handler)


def _our_handler_in_shared_group(
    text: str, entries: json_edit.Node
) -> tuple[json_edit.Node, int] | None:
    """(a group's ``hooks`` array, the index of our handler in it), for the first group
    that holds one of ours beside handlers of the person's own."""
    for group in entries.items:
        handlers = group.member("hooks") if group.kind == "object" else None
        if handlers is None or handlers.kind != "array":
            continue
        for index, item in enumerate(handlers.items):
            value = json_edit.value_of(text, item)
            if isinstance(value, dict) and is_our_command(value.get("command")):
                return handlers, index
    return None


@_refusing
def remove_hooks(text: str, where: str) -> str:
    """``text`` without any group of ours; events and ``hooks`` left empty go too."""
    root = _root(text, where)
    hooks = _object(text, root.member("hooks"), f'"hooks" in {where}')
    if hooks is None:
        return text
    for event in [name for name, _, _ in hooks.members]:
        before = text
        text = _drop_ours(text, where, event)
        if text == before:
            continue
        hooks = _root(text, where).member("hooks")
        assert hooks is not None
        entries = hooks.member(event)
        if entries is not None and entries.kind == "array" and not entries.items:
            text = json_edit.remove_member(text, hooks, event)
    root = _root(text, where)
    hooks = root.member("hooks")
    if hooks is not None and hooks.kind == "object" and not hooks.members:
        text = json_edit.remove_member(text, root, "hooks")
    return text


@_refusing
def add_server(text: str, key: str, entry: dict[str, Any], where: str) -> str:
    """``text`` with ``key``.ltm-desktop = ``entry`` (replaced if it differs)."""
    text = text if text.strip() else EMPTY
    root = _root(text, where)
    servers = _object(text, root.member(key), f'"{key}" in {where}')
    if servers is None:
        return json_edit.add_member(text, root, key, {SERVER_NAME: entry})
    current = servers.member(SERVER_NAME)
    if current is not None:
        if json_edit.value_of(text, current) == entry:
            return text
        text = json_edit.remove_member(text, servers, SERVER_NAME)
        servers = _root(text, where).member(key)
        assert servers is not None
    return json_edit.add_member(text, servers, SERVER_NAME, entry)


@_refusing
def remove_server(text: str, key: str, where: str) -> str:
    root = _root(text, where)
    servers = _object(text, root.member(key), f'"{key}" in {where}')
    if servers is None or servers.member(SERVER_NAME) is None:
        return text
    text = json_edit.remove_member(text, servers, SERVER_NAME)
    root = _root(text, where)
    servers = root.member(key)
    if servers is not None and not servers.members:
        text = json_edit.remove_member(text, root, key)
    return text


def check(text: str, where: str) -> None:
    """Refuse now what an edit would refuse later."""
    if text.strip():
        _root(text, where)
