"""Our hooks and MCP server in Codex's ``config.toml``, through tomlkit (which keeps the
user's comments and layout; tomllib cannot write).

Besides one array of tables per event, ``[hooks]`` holds Codex's own trust records:
``[hooks.state."FILE:EVENT:GROUP:HANDLER"]`` with the ``trusted_hash`` of the hook the
person trusted in ``/hooks`` (FILE: this config's path; EVENT: the event in snake case;
GROUP and HANDLER: positions in that event's list). A record names a hook by where it
stands, so removing a group of ours takes its records along, and the person's groups
after it, which move up, keep their trust under their new position (Codex hashes a
hook's content, not its place).

At the top level, ``mcp_optional_startup_grace_ms`` (how long Codex waits for MCP servers
before a turn) is raised to ``CODEX_STARTUP_GRACE_MS`` when the person has not set it, so
that a cold start on a busy machine still brings the memory tools; uninstall takes it
out again: only the line that carries its comment, so a person's own setting stays.
"""

from __future__ import annotations

import os
import re
from typing import Any

import tomlkit
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Item, Table

from ltm_desktop.agent.integration.entries import (
    CODEX_STARTUP_GRACE_MS,
    SERVER_NAME,
    is_our_group,
)
from ltm_desktop.agent.integration.json_config import ConfigRefused

STATE = "state"  # hooks.state: Codex's trust records, not an event
GRACE = "mcp_optional_startup_grace_ms"
GRACE_MARK = "set by ltm-desktop integrate"  # its line's comment: ours, not the person's
Hooks = Table | OutOfOrderTableProxy  # [hooks], in one piece or in several
Moves = dict[int, int | None]  # a group's old position -> its new one (None: removed)


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


def _hooks_table(doc: tomlkit.TOMLDocument, where: str, create: bool) -> Hooks | None:
    hooks = doc.get("hooks")
    if hooks is None and create:
        doc["hooks"] = tomlkit.table(is_super_table=True)
        hooks = doc["hooks"]
    if hooks is not None and not isinstance(hooks, (Table, OutOfOrderTableProxy)):
        raise ConfigRefused(f"hooks in {where} is not a table")
    return hooks


def _events(hooks: Hooks, event: str, where: str) -> AoT | None:
    entries = hooks.get(event)
    if entries is not None and not isinstance(entries, AoT):
        raise ConfigRefused(f"hooks.{event} in {where} is not an array of tables")
    return entries


def _drop_ours(entries: AoT) -> Moves:
    """Remove our groups from ``entries``; where each group went."""
    values = [_plain(t) for t in entries]
    moves: Moves = {}
    for index in reversed(range(len(values))):
        if is_our_group(values[index]):
            del entries[index]
            moves[index] = None
    kept = [index for index in range(len(values)) if index not in moves]
    moves.update({old: new for new, old in enumerate(kept)})
    return moves


def _snake(event: str) -> str:
    """Codex's name for an event in its trust records (``UserPromptSubmit``:
    ``user_prompt_submit``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def _same_file(named: str, config: str) -> bool:
    return named == config or os.path.realpath(named) == os.path.realpath(config)


def _follow_moves(hooks: Hooks, event: str, moves: Moves, config: str) -> None:
    """Codex's trust records for ``event``'s groups in this file, after ``moves``: those
    of a removed group go, those of a moved group are renamed (and so keep their trust)."""
    state = hooks.get(STATE)
    if not isinstance(state, Table) or all(old == new for old, new in moves.items()):
        return
    renamed: dict[str, Any] = {}
    for key in list(state.keys()):
        named, name, group, handler = (key.rsplit(":", 3) + ["", "", ""])[:4]
        if name != _snake(event) or not group.isdigit() or not _same_file(named, config):
            continue
        if int(group) not in moves or moves[int(group)] == int(group):
            continue
        record = state[key]
        del state[key]
        new = moves[int(group)]
        if new is not None:
            renamed[f"{named}:{name}:{new}:{handler}"] = record
    for key, record in renamed.items():
        state[key] = record
    if not state:
        del hooks[STATE]


def _check_ours(doc: tomlkit.TOMLDocument, wanted: dict[str, list[Any]], where: str) -> None:
    """Refuse an edit that did not come out as meant: ``wanted`` (event -> our groups;
    none elsewhere) read back from the text. tomlkit edits a copy, not the file, of an
    event's tables written in two places (``[[hooks.Stop]]`` again after ``[tui]``)."""
    hooks = _plain(tomlkit.parse(tomlkit.dumps(doc))).get("hooks", {})
    for event in set(hooks) | set(wanted):
        groups = hooks.get(event) if event != STATE else None
        ours = [g for g in groups if is_our_group(g)] if isinstance(groups, list) else []
        if ours != wanted.get(event, []):
            raise ConfigRefused(
                f"{where} cannot be edited safely: its [[hooks.{event}]] tables are not all "
                "in one place; put them together and run this again"
            )


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
        _follow_moves(hooks, event, _drop_ours(entries), where)
        entries.append(_table(group))
    _check_ours(doc, {event: [group] for event, group in groups.items()}, where)
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
    if GRACE not in doc:  # the person's own value stays
        grace = tomlkit.integer(CODEX_STARTUP_GRACE_MS)
        grace.comment(GRACE_MARK)  # what uninstall takes out, and nothing else
        doc[GRACE] = grace
    return tomlkit.dumps(doc)


def remove(text: str, where: str) -> str:
    doc = _parse(text, where)
    hooks = _hooks_table(doc, where, create=False)
    if hooks is not None:
        for event in list(hooks.keys()):
            entries = hooks.get(event)
            if not isinstance(entries, AoT):
                continue  # hooks.state, or something else that holds none of ours
            _follow_moves(hooks, event, _drop_ours(entries), where)
            if not len(entries):
                del hooks[event]
        if not hooks:
            del doc["hooks"]
    _check_ours(doc, {}, where)
    servers = doc.get("mcp_servers")
    if isinstance(servers, Table) and SERVER_NAME in servers:
        del servers[SERVER_NAME]
        if not servers:
            del doc["mcp_servers"]
    grace = doc.item(GRACE) if GRACE in doc else None
    if isinstance(grace, Item) and GRACE_MARK in grace.trivia.comment:
        del doc[GRACE]
    after = tomlkit.dumps(doc)
    if after.startswith("\n") and not text.startswith("\n"):  # the key's line was first
        after = after[1:]
    return _ending_kept(text, _blank_lines_kept(text, after))


def _ending_kept(before: str, after: str) -> str:
    """``after`` ending in the line ends ``before`` ends in: the blank line install put
    before our first table stays behind at the end when the tables after it go."""
    if not after.strip():
        return after
    return after.rstrip("\r\n") + before[len(before.rstrip("\r\n")) :]


_TABLE_HEADER = re.compile(r"\[[^\[].*")


def _blank_lines_kept(before: str, after: str) -> str:
    """``after`` with a blank line given back before each ``[table]`` header that had one
    in ``before``: tomlkit keeps that line with the table above it, so cutting out our
    tables just above ``[hooks.state]`` (where Codex puts it) took its blank line along."""
    had: dict[str, bool] = {}
    previous: str | None = None  # the line before; None: the start of the file
    for line in before.splitlines():
        header = line.strip()
        if _TABLE_HEADER.fullmatch(header):  # a header written twice: left as it is
            had[header] = header not in had and previous is not None and not previous.strip()
        previous = line
    lines = after.splitlines(keepends=True)
    for index in reversed(range(1, len(lines))):
        header = lines[index].strip()
        if had.get(header) and lines[index - 1].strip() and _TABLE_HEADER.fullmatch(header):
            lines.insert(index, lines[index][len(lines[index].rstrip("\r\n")) :])
    return "".join(lines)


def check(text: str, where: str) -> None:
    _parse(text, where)
