"""The one Gemini CLI setting a hook needs: when Gemini compresses its context.

Gemini CLI fires PreCompress before every model request and only then compares the
prompt with ``model.compressionThreshold`` (a share of its model's window, 0.5 unless set;
its own help suggests 0.2 or 0.3). The hook reads the threshold as Gemini does, from the
project's ``.gemini/settings.json`` or else the user's (JSON with comments), so that only a
request past it counts as a compaction.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from ltm_desktop.core.files.regular_files import open_regular

log = logging.getLogger("ltm_desktop.hooks")

DEFAULT_THRESHOLD = 0.5  # DEFAULT_COMPRESSION_THRESHOLD, Gemini CLI 0.61
WINDOW_TOKENS = 1_048_576  # tokenLimit() of Gemini's models
MAX_SETTINGS_BYTES = 1024 * 1024


def compression_tokens(cwd: str, home: Path | None = None) -> int:
    """The prompt size, in tokens, past which Gemini CLI compresses in ``cwd``."""
    places = [
        Path(cwd) / ".gemini" / "settings.json",
        (home or Path.home()) / ".gemini" / "settings.json",
    ]
    for path in places:
        threshold = _threshold(path)
        if threshold is not None:
            return int(threshold * WINDOW_TOKENS)
    return int(DEFAULT_THRESHOLD * WINDOW_TOKENS)


def _threshold(path: Path) -> float | None:
    """``model.compressionThreshold`` of one settings file; None when it sets none (or
    the file cannot be read: Gemini would not read it either)."""
    try:
        with os.fdopen(open_regular(path), "rb") as file:
            text = file.read(MAX_SETTINGS_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    from ltm_desktop.agent.integration.json_edit import without_comments

    try:
        settings = json.loads(without_comments(text))
    except (ValueError, RecursionError):
        log.info("Gemini settings %s cannot be read as JSON; its threshold is not used", path)
        return None
    model = settings.get("model") if isinstance(settings, dict) else None
    value = model.get("compressionThreshold") if isinstance(model, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1:
        return float(value)
    return None
