"""The cold start's quick import: validators deferred, never different, and nothing left
changed for what is imported later (in a process of its own, as ``ltm-desktop mcp`` is)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import gc, json
    from pydantic import BaseModel, ValidationError
    from ltm_desktop.agent.mcp.quick_import import quick_import

    with quick_import():
        during = not gc.isenabled()

        class Imported(BaseModel):
            name: str
            count: int = 0

    class Later(BaseModel):
        name: str

    deferred = not Imported.__pydantic_complete__
    value = Imported.model_validate({"name": "a", "count": "3"}).model_dump()
    try:
        Imported.model_validate({"count": "x"})
        errors = []
    except ValidationError as exc:
        errors = sorted(e["type"] for e in exc.errors())
    print(json.dumps({
        "gc_off_during": during,
        "gc_on_after": gc.isenabled(),
        "deferred": deferred,
        "built_on_use": Imported.__pydantic_complete__,
        "later_built_at_once": Later.__pydantic_complete__,
        "value": value,
        "errors": errors,
    }))
    """
)


def test_models_imported_quickly_validate_as_before_and_later_ones_are_unchanged() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=60
    )
    facts = json.loads(done.stdout)
    assert facts == {
        "gc_off_during": True,
        "gc_on_after": True,
        "deferred": True,
        "built_on_use": True,
        "later_built_at_once": True,
        "value": {"name": "a", "count": 3},
        "errors": ["int_parsing", "missing"],
    }


def test_the_sdk_imported_quickly_still_validates_a_request() -> None:
    script = textwrap.dedent(
        """
        from ltm_desktop.agent.mcp.quick_import import quick_import
        with quick_import():
            import mcp_types as types
            from mcp.server.mcpserver import MCPServer
        request = types.jsonrpc_message_adapter.validate_json(
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
        )
        print(type(request).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "JSONRPCRequest"
