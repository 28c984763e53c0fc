"""Checking a tool's arguments against its JSON Schema, with one line per mistake.

Only the schema features the catalogue uses are understood (flat objects of strings,
integers and lists of strings, enums, bounds). Models sometimes send a number or a list
as JSON text ("5", '["a"]'); such a value is read as what it says.
"""

from __future__ import annotations

import json
from typing import Any

from ltm_desktop.agent.tools.handlers import BadArguments
from ltm_desktop.core.rules import shown


def check_arguments(schema: dict[str, Any], arguments: object) -> dict[str, Any]:
    """The arguments to run with (null values dropped); BadArguments names the first fault."""
    if not isinstance(arguments, dict):
        raise BadArguments(f"the arguments must be a JSON object, not {shown(arguments)}")
    properties: dict[str, Any] = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise BadArguments(
            f"unknown argument `{unknown[0]}`; the arguments are {', '.join(properties)}"
        )
    checked: dict[str, Any] = {}
    for name, value in arguments.items():
        if value is not None:  # a null is an argument left out
            checked[name] = _value(name, properties[name], value)
    for name in schema.get("required", []):
        if name not in checked:
            raise BadArguments(f"`{name}` is required")
    return checked


def _decoded(kind: str, value: Any) -> Any:
    if kind in ("integer", "array") and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _value(name: str, schema: dict[str, Any], value: Any) -> Any:
    kind = schema["type"]
    value = _decoded(kind, value)
    if kind == "string":
        if not isinstance(value, str):
            raise BadArguments(f"`{name}` must be a string; got {shown(value)}")
        if "enum" in schema and value not in schema["enum"]:
            raise BadArguments(
                f"`{name}` must be one of {', '.join(schema['enum'])}; got {shown(value)}"
            )
        limit = schema.get("maxLength")
        if limit is not None and len(value) > limit:
            raise BadArguments(
                f"`{name}` may have at most {limit:,} characters; got {len(value):,}"
            )
        return value
    if kind == "integer":
        low, high = schema["minimum"], schema["maximum"]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadArguments(
                f"`{name}` must be a whole number from {low} to {high}; got {shown(value)}"
            )
        return value
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BadArguments(f"`{name}` must be a list of strings; got {shown(value)}")
    limit = schema.get("maxItems")
    if limit is not None and len(value) > limit:
        raise BadArguments(f"`{name}` may have at most {limit} items; got {len(value)}")
    return value
