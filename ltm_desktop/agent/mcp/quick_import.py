"""Import the MCP SDK faster in a cold ``ltm-desktop mcp``, where that import is the start-up.

Nearly all of the SDK's import (about 0.45 s of one core) is pydantic building its
protocol types: hundreds of model classes, each compiled into a validator at class
creation, though one session uses a few dozen of them; and the cyclic garbage
collector, which runs over and over while those hundreds of thousands of objects are
made, none of them garbage. So, for the import only:

- pydantic's ``defer_build`` default is on: a model's validator is built when it is
  first used (the same validator, later), and the default is put back afterwards, so
  that models made later behave as before;
- the collector is off, and what the import made is then frozen out of its future
  passes (``gc.freeze``): it lives as long as the process.

Only the cold path uses this: the warm process (``mcp_zygote``) imports the SDK once and
builds its validators before it forks (``warm_up``). If pydantic no longer has the
setting this reaches for, the import is only slower, never different.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

DEFER_BUILD = "defer_build"


def _config_defaults() -> dict[str, Any] | None:
    """pydantic's defaults for every model's config, or None where it has none."""
    try:
        from pydantic._internal import _config
    except ImportError:  # pragma: no cover - another pydantic layout: import as is
        return None
    defaults = getattr(_config, "config_defaults", None)
    return defaults if isinstance(defaults, dict) and DEFER_BUILD in defaults else None


@contextmanager
def quick_import() -> Iterator[None]:
    """Import under this to defer pydantic's validators and pause the collector."""
    defaults = _config_defaults()
    before = defaults[DEFER_BUILD] if defaults is not None else None
    collecting = gc.isenabled()
    gc.disable()
    if defaults is not None:
        defaults[DEFER_BUILD] = True
    try:
        yield
    finally:
        if defaults is not None:
            defaults[DEFER_BUILD] = before
        gc.freeze()  # what was imported lives as long as the process: never scan it again
        if collecting:
            gc.enable()
