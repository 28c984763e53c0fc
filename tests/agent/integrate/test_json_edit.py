"""The in-place JSON editor: an edit adds or removes its own text, nothing else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ltm_desktop.agent.integration import json_edit
from ltm_desktop.agent.integration.json_edit import (
    JsonSyntaxError,
    add_item,
    add_member,
    parse,
    remove_item,
    remove_member,
    value_of,
)

DOCUMENTS = [
    "{}",
    "{}\n",
    '{"theme": "Dracula"}',
    '{\n  "a": 1\n}\n',
    '{\n    "a": [1, 2],\n    "b": {"c": null}\n}\n',
    '{\n\t"tabs": true,\n\t"x": "\\u00e9 \\" ]}"\n}',
    '  {  "spaced" :  [ ] , "n": -1.5e3 }  ',
]
VALUE = {"hooks": [{"type": "command", "command": "x y", "timeout": 5}], "args": ["mcp"]}


@pytest.mark.parametrize("text", DOCUMENTS)
def test_adding_then_removing_a_member_gives_the_same_bytes(text: str) -> None:
    added = add_member(text, parse(text), "ltm-desktop", VALUE)
    assert json.loads(added) == {**json.loads(text), "ltm-desktop": VALUE}
    assert remove_member(added, parse(added), "ltm-desktop") == text


@pytest.mark.parametrize(
    "text", ['{"l": []}', '{\n  "l": [\n    1\n  ]\n}', '{"l": [1, {"k": 2}]}']
)
def test_adding_then_removing_an_item_gives_the_same_bytes(text: str) -> None:
    array = parse(text).member("l")
    assert array is not None
    added = add_item(text, array, VALUE)
    values = json.loads(added)["l"]
    assert values[-1] == VALUE
    again = parse(added).member("l")
    assert again is not None
    assert remove_item(added, again, len(values) - 1) == text


def test_new_members_follow_the_documents_indentation() -> None:
    text = '{\n    "a": 1\n}\n'
    added = add_member(text, parse(text), "b", {"c": [1]})
    assert (
        added == '{\n    "a": 1,\n    "b": {\n        "c": [\n            1\n        ]\n    }\n}\n'
    )
    one_line = '{"a": 1}'
    assert add_member(one_line, parse(one_line), "b", {"c": ["x"]}) == '{"a": 1, "b": {"c": ["x"]}}'


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        '{"a": 1,}',
        "{'a': 1}",
        '{"a": 1} x',
        "/* never closed\n{}",
        '{"a": tru}',
        "[1 2]",
        '{"a": NaN}',
        "[-Infinity]",
        '{"a": 1, "a": 2}',
        "[" * 100_000,
    ],
)
def test_not_json_is_refused(text: str) -> None:
    with pytest.raises(JsonSyntaxError):
        parse(text)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=4), JSON, max_size=4), st.sampled_from([None, 2, 4]))
def test_any_object_round_trips(document: dict[str, object], indent: int | None) -> None:
    text = json.dumps(document, indent=indent)
    key = "\u2603 ours"
    added = add_member(text, parse(text), key, VALUE)
    assert json.loads(added) == {**document, key: VALUE}
    assert remove_member(added, parse(added), key) == text
    assert json_edit.value_of(added, parse(added).member(key) or parse("0")) == VALUE


def test_comments_are_whitespace_and_stay() -> None:
    text = '// settings\n{\n  "a": "x//y", /* "b": 2 */\n  "c": [1, // one\n 2]\n}\n'
    root = parse(text)
    assert [name for name, _, _ in root.members] == ["a", "c"]
    assert value_of(text, root.members[1][2]) == [1, 2]
    added = add_member(text, root, "d", 3)
    assert added.startswith('// settings\n{\n  "a": "x//y", /* "b": 2 */')
    assert value_of(added, parse(added).members[-1][2]) == 3
