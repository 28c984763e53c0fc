"""Our hooks and MCP server in Codex's ``config.toml``, through tomlkit (which keeps the
user's comments and layout; tomllib cannot write)."""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Table

from ltm_desktop.agent.integration.entries import SERVER_NAME, is_our_group
from ltm_desktop.agent.integration.json_config import ConfigRefused


def _parse(text: str, where: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigRefused(f"{where} is not valid TOML ({exc})") from None


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _table(value: dict[str, Any]) -> Table:
    table = tomlkit.table()
    for key, item in value.items():
        if isinstance(item, list) and item and all(isinstance(i, dict) for i in item):
            array = tomlkit.aot()
            for entry in item:
                array.append(_table(entry))
            table[key] = array
        else:
            table[key] = item
    return table


def _hooks_table(doc: tomlkit.TOMLDocument, where: str, create: bool) -> Table | None:
    hooks = doc.get("hooks")
    if hooks is None and create:
        doc["hooks"] = tomlkit.table(is_super_table=True)
        hooks = doc["hooks"]
    if hooks is not None and not isinstance(hooks, Table):
        raise ConfigRefused(f"hooks in {where} is not a table")
    return hooks


def _events(hooks: Table, event: str, where: str) -> AoT | None:
    entries = hooks.get(event)
    if entries is not None and not isinstance(entries, AoT):
        raise ConfigRefused(f"hooks.{event} in {where} is not an array of tables")
    return entries


def add(text: str, groups: dict[str, dict[str, Any]], entry: dict[str, Any], where: str) -> str:
    doc = _parse(text, where)
    for event, group in groups.items():
        hooks = _hooks_table(doc, where, create=True)
        assert hooks is not None
        entries = _events(hooks, event, where)
        if entries is None:
            hooks[event] = tomlkit.aot()
            entries = hooks[event]
        values = [_plain(t) for t in entries]
        if group in values and sum(map(is_our_group, values)) == 1:
            continue
        for index in reversed(range(len(values))):
            if is_our_group(values[index]):
                del entries[index]
        entries.append(_table(group))
    servers = doc.get("mcp_servers")
    if servers is None:
        doc["mcp_servers"] = tomlkit.table(is_super_table=True)
        servers = doc["mcp_servers"]
    if not isinstance(servers, Table):
        raise ConfigRefused(f"mcp_servers in {where} is not a table")
    if _plain(servers.get(SERVER_NAME)) != entry:
        if SERVER_NAME in servers:
            del servers[SERVER_NAME]
        servers[SERVER_NAME] = _table(entry)
    return tomlkit.dumps(doc)


def remove(text: str, where: str) -> str:
    doc = _parse(text, where)
    hooks = _hooks_table(doc, where, create=False)
    if hooks is not None:
        for event in list(hooks.keys()):
            entries = _events(hooks, event, where)
            if entries is None:
                continue
            values = [_plain(t) for t in entries]
            for index in reversed(range(len(values))):
                if is_our_group(values[index]):
                    del entries[index]
            if not len(entries):
                del hooks[event]
        if not hooks:
            del doc["hooks"]
    servers = doc.get("mcp_servers")
    if isinstance(servers, Table) and SERVER_NAME in servers:
        del servers[SERVER_NAME]
        if not servers:
            del doc["mcp_servers"]
    return tomlkit.dumps(doc)


def check(text: str, where: str) -> None:
    _parse(text, where)
