"""Tool definitions in the shapes agent frameworks register them in.

- ``openai``: Chat Completions ``tools`` entries (``{"type": "function", "function": ...}``)
- ``anthropic``: Messages API ``tools`` entries (``name``, ``description``, ``input_schema``)
- ``mcp``: MCP ``tools/list`` entries (``inputSchema``, ``annotations``)
- ``json``: the catalogue itself (name, title, description, parameters, annotations)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ltm_desktop.agent.tools.catalogue import ToolSpec

FORMATS = ("json", "openai", "anthropic", "mcp")


def _openai(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.schema},
    }


def _anthropic(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.schema}


def _mcp(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "inputSchema": spec.schema,
        "annotations": {"title": spec.title, **spec.hints.as_mcp()},
    }


def _json(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "parameters": spec.schema,
        "annotations": spec.hints.as_mcp(),
    }


RENDERERS = {"json": _json, "openai": _openai, "anthropic": _anthropic, "mcp": _mcp}


def render(specs: Sequence[ToolSpec], fmt: str) -> list[dict[str, Any]]:
    """The definitions of ``specs`` in format ``fmt``; ValueError for an unknown format."""
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown format {fmt!r}; the formats are {', '.join(FORMATS)}")
    return [renderer(spec) for spec in specs]
