"""Editing JSON text in place: add or remove one member or item, leave every other byte.

``json`` can only rewrite a whole document, which would reformat a person's settings
file. This parser keeps where each value starts and ends, so an edit touches only the
text it adds or removes, indented like its neighbours. Comments (``//`` and ``/* */``,
which Gemini CLI's settings allow) are read as whitespace, and kept.
"""

from __future__ import annotations

import json
import json.decoder
import re
from dataclasses import dataclass, field
from typing import Any

_BLANK = re.compile(r"(?:[ \t\n\r]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


class JsonSyntaxError(ValueError):
    """Not JSON; the message says where."""


@dataclass(eq=False)
class Node:
    """A value's place in the text. A container's children are found when first asked
    for: settings files such as ``~/.claude.json`` hold megabytes of history that no
    edit looks into, and building nodes for all of it took seconds."""

    kind: str  # "object", "array" or "value"
    start: int
    end: int  # exclusive
    source: _Source | None = field(default=None, repr=False)
    _members: list[tuple[str, int, Node]] | None = field(default=None, repr=False)
    _items: list[Node] | None = field(default=None, repr=False)

    @property
    def members(self) -> list[tuple[str, int, Node]]:
        """An object's members: (key, where the key starts, value)."""
        if self._members is None:
            self._members = _members(self) if self.kind == "object" else []
        return self._members

    @property
    def items(self) -> list[Node]:
        if self._items is None:
            self._items = _items(self) if self.kind == "array" else []
        return self._items

    def member(self, key: str) -> Node | None:
        return next((value for name, _, value in self.members if name == key), None)


@dataclass(frozen=True, slots=True)
class _Source:
    """A parsed document: its text, and the same with comments blanked (for ``json``)."""

    text: str
    plain: str


def _skip(text: str, pos: int) -> int:
    """Past whitespace and comments (one regular expression: this runs between every
    two tokens, and a character at a time it was most of the time on a large file)."""
    pos = _BLANK.match(text, pos).end()  # type: ignore[union-attr]  # it matches ""
    if text.startswith("/*", pos):
        raise _fail(text, pos, "a comment is not closed")
    return pos


def _without_comments(text: str) -> str:
    """``text`` with each comment blanked (same length, line ends kept): for ``json``."""

    def blank(match: re.Match[str]) -> str:
        found = match.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return _STRING_OR_COMMENT.sub(blank, text)


without_comments = _without_comments  # for readers of JSON with comments (Gemini's settings)


def _fail(text: str, pos: int, what: str) -> JsonSyntaxError:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return JsonSyntaxError(f"{what} at line {line}, column {column}")


def _string(text: str, pos: int) -> tuple[str, int]:
    try:
        value, end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
    except json.JSONDecodeError as exc:
        raise _fail(text, pos, exc.msg) from None
    return value, end


def _refuse_constant(name: str) -> Any:
    raise JsonSyntaxError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _child(source: _Source, pos: int) -> Node:
    """The value at ``pos`` (after blanks): its end found by ``json``'s scanner, in C."""
    pos = _skip(source.text, pos)
    end = _DECODER.raw_decode(source.plain, pos)[1]
    kind = {"{": "object", "[": "array"}.get(source.text[pos], "value")
    return Node(kind, pos, end, source)


def _members(node: Node) -> list[tuple[str, int, Node]]:
    assert node.source is not None
    text = node.source.text
    members: list[tuple[str, int, Node]] = []
    pos = _skip(text, node.start + 1)
    if text[pos] == "}":
        return members
    keys = set()
    while True:
        pos = _skip(text, pos)
        key, after = _string(text, pos)
        if key in keys:  # parsers keep the last one; an edit, the first
            raise _fail(text, pos, f"the member {json.dumps(key)} appears twice")
        keys.add(key)
        colon = _skip(text, after)
        value = _child(node.source, colon + 1)
        members.append((key, pos, value))
        next_pos = _after_element(text, value.end, "}")
        if next_pos is None:
            return members
        pos = next_pos


def _items(node: Node) -> list[Node]:
    assert node.source is not None
    text = node.source.text
    items: list[Node] = []
    pos = _skip(text, node.start + 1)
    if text[pos] == "]":
        return items
    while True:
        item = _child(node.source, pos)
        items.append(item)
        next_pos = _after_element(text, item.end, "]")
        if next_pos is None:
            return items
        pos = next_pos


def _after_element(text: str, end: int, closer: str) -> int | None:
    """Where the next element starts after a ``,``; None when ``closer`` ends the container."""
    pos = _skip(text, end)
    if pos < len(text) and text[pos] == ",":
        return pos + 1
    if pos < len(text) and text[pos] == closer:
        return None
    raise _fail(text, pos, f"',' or '{closer}' is expected")


def _checked(text: str) -> str:
    """``text`` with its comments blanked, once ``json`` has read it whole (in C; the
    blanking only when it has comments, which a plain JSON file such as
    ``~/.claude.json`` never has)."""
    try:
        _DECODER.decode(text)
        return text
    except json.JSONDecodeError:
        plain = _without_comments(text)
    except RecursionError:
        raise _fail(text, 0, "nested too deeply") from None
    try:
        _DECODER.decode(plain)
    except json.JSONDecodeError as exc:
        what = "a comment is not closed" if plain.startswith("/*", exc.pos) else exc.msg
        raise _fail(text, exc.pos, what) from None
    except RecursionError:
        raise _fail(text, 0, "nested too deeply") from None
    return plain


_PARSED: dict[str, Node] = {}  # the last few texts parsed: an edit parses its text again


def parse(text: str) -> Node:
    """The document's root node; raises JsonSyntaxError for anything that is not JSON
    (and for a member written twice in an object an edit looks into)."""
    root = _PARSED.get(text)
    if root is None:
        root = _child(_Source(text, _checked(text)), 0)
        _ = root.members  # a member of the document written twice is refused here
        while len(_PARSED) >= 3:
            del _PARSED[next(iter(_PARSED))]
        _PARSED[text] = root
    return root


def forget() -> None:
    """Let go of the texts kept for ``parse`` (megabytes, for a large settings file)."""
    _PARSED.clear()


def value_of(text: str, node: Node) -> Any:
    return json.loads(_without_comments(text[node.start : node.end]))


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line ``pos`` is on."""
    line_start = text.rfind("\n", 0, pos) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


def indent_unit(text: str) -> str:
    """The document's indentation step (two spaces when it shows none)."""
    root = parse(text)
    children = [m[1] for m in root.members] or [i.start for i in root.items]
    if children and "\n" in text[root.start : children[0]]:
        found = _line_indent(text, children[0])
        if found:
            return found
    return "  "


def render(value: Any, indent: str, unit: str) -> str:
    """``value`` as JSON whose lines after the first start at ``indent``."""
    from ltm_desktop.agent.snippets import flat_string_lists

    text = flat_string_lists(json.dumps(value, indent=unit, ensure_ascii=False))
    return text.replace("\n", "\n" + indent)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _insert(
    text: str,
    container: Node,
    last_end: int | None,
    first: int | None,
    piece: str,
    compact: str,
    unit: str,
    closer: str,
) -> str:
    """Insert ``piece`` (a rendered member or item) as the container's last child."""
    base = _line_indent(text, container.start)
    if last_end is None or first is None:  # empty: {} or [] becomes multi-line
        inner = base + unit
        opener = text[container.start]
        new = f"{opener}\n{inner}{piece.replace(chr(10), chr(10) + inner)}\n{base}{closer}"
        return text[: container.start] + new + text[container.end :]
    multiline = "\n" in text[container.start : first]
    if multiline:
        inner = _line_indent(text, first)
        addition = f",\n{inner}{piece.replace(chr(10), chr(10) + inner)}"
    else:  # a one-line object or list stays on one line
        addition = f", {compact}"
    return text[:last_end] + addition + text[last_end:]


def add_member(text: str, obj: Node, key: str, value: Any) -> str:
    unit = indent_unit(text)
    name = json.dumps(key, ensure_ascii=False)
    piece = f"{name}: {render(value, '', unit)}"
    last = obj.members[-1][2].end if obj.members else None
    first = obj.members[0][1] if obj.members else None
    return _insert(text, obj, last, first, piece, f"{name}: {_compact(value)}", unit, "}")


def add_item(text: str, array: Node, value: Any) -> str:
    unit = indent_unit(text)
    last = array.items[-1].end if array.items else None
    first = array.items[0].start if array.items else None
    piece = render(value, "", unit)
    return _insert(text, array, last, first, piece, _compact(value), unit, "]")


def _remove(text: str, container: Node, starts: list[int], ends: list[int], index: int) -> str:
    empty = "{}" if container.kind == "object" else "[]"
    if len(starts) == 1:
        return text[: container.start] + empty + text[container.end :]
    if index == len(starts) - 1:  # the last: from the end of the one before it
        return text[: ends[index - 1]] + text[ends[index] :]
    return text[: starts[index]] + text[starts[index + 1] :]


def remove_member(text: str, obj: Node, key: str) -> str:
    index = next(i for i, (name, _, _) in enumerate(obj.members) if name == key)
    starts = [start for _, start, _ in obj.members]
    ends = [value.end for _, _, value in obj.members]
    return _remove(text, obj, starts, ends, index)


def remove_item(text: str, array: Node, index: int) -> str:
    return _remove(text, array, [i.start for i in array.items], [i.end for i in array.items], index)
