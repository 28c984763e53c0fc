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

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WHITESPACE = " \t\n\r"
_LITERALS = {"true": True, "false": False, "null": None}
_STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


class JsonSyntaxError(ValueError):
    """Not JSON; the message says where."""


@dataclass
class Node:
    kind: str  # "object", "array" or "value"
    start: int
    end: int  # exclusive
    members: list[tuple[str, int, Node]] = field(default_factory=list)  # key, key start, value
    items: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        return next((value for name, _, value in self.members if name == key), None)


def _skip(text: str, pos: int) -> int:
    """Past whitespace and comments."""
    while pos < len(text):
        if text[pos] in _WHITESPACE:
            pos += 1
        elif text.startswith("//", pos):
            line_end = text.find("\n", pos)
            pos = len(text) if line_end < 0 else line_end + 1
        elif text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise _fail(text, pos, "a comment is not closed")
            pos = end + 2
        else:
            break
    return pos


def _without_comments(text: str) -> str:
    """``text`` with each comment blanked (same length, line ends kept): for ``json``."""

    def blank(match: re.Match[str]) -> str:
        found = match.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return _STRING_OR_COMMENT.sub(blank, text)


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


def _value(text: str, pos: int, depth: int) -> Node:
    if depth > 200:
        raise _fail(text, pos, "nested too deeply")
    pos = _skip(text, pos)
    if pos >= len(text):
        raise _fail(text, pos, "a value is missing")
    char = text[pos]
    if char == "{":
        return _object(text, pos, depth)
    if char == "[":
        return _array(text, pos, depth)
    if char == '"':
        return Node("value", pos, _string(text, pos)[1])
    for word in _LITERALS:
        if text.startswith(word, pos):
            return Node("value", pos, pos + len(word))
    number = _NUMBER.match(text, pos)
    if number:
        return Node("value", pos, number.end())
    raise _fail(text, pos, f"unexpected {char!r}")


def _object(text: str, start: int, depth: int) -> Node:
    node = Node("object", start, start)
    pos = _skip(text, start + 1)
    if pos < len(text) and text[pos] == "}":
        node.end = pos + 1
        return node
    while True:
        pos = _skip(text, pos)
        if pos >= len(text) or text[pos] != '"':
            raise _fail(text, pos, "a member name (in double quotes) is expected")
        key, after = _string(text, pos)
        if node.member(key) is not None:  # parsers keep the last one; an edit, the first
            raise _fail(text, pos, f"the member {json.dumps(key)} appears twice")
        colon = _skip(text, after)
        if colon >= len(text) or text[colon] != ":":
            raise _fail(text, colon, "':' is expected")
        value = _value(text, colon + 1, depth + 1)
        node.members.append((key, pos, value))
        next_pos = _after_element(text, value.end, "}")
        if next_pos is None:
            node.end = _skip(text, value.end) + 1
            return node
        pos = next_pos


def _array(text: str, start: int, depth: int) -> Node:
    node = Node("array", start, start)
    pos = _skip(text, start + 1)
    if pos < len(text) and text[pos] == "]":
        node.end = pos + 1
        return node
    while True:
        item = _value(text, pos, depth + 1)
        node.items.append(item)
        next_pos = _after_element(text, item.end, "]")
        if next_pos is None:
            node.end = _skip(text, item.end) + 1
            return node
        pos = next_pos


def _after_element(text: str, end: int, closer: str) -> int | None:
    """Where the next element starts after a ``,``; None when ``closer`` ends the container."""
    pos = _skip(text, end)
    if pos < len(text) and text[pos] == ",":
        return pos + 1
    if pos < len(text) and text[pos] == closer:
        return None
    raise _fail(text, pos, f"',' or '{closer}' is expected")


def parse(text: str) -> Node:
    """The document's root node; raises JsonSyntaxError for anything that is not JSON."""
    root = _value(text, 0, 0)
    rest = _skip(text, root.end)
    if rest != len(text):
        raise _fail(text, rest, "text after the end of the document")
    json.loads(_without_comments(text))  # the scanner checks structure; this, every value
    return root


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


def _insert(text: str, container: Node, last_end: int | None, first: int | None, piece: str,
            compact: str, unit: str, closer: str) -> str:  # fmt: skip
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
