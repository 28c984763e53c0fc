"""One process's data dir and settings, resolved once at its entry point.

Every entry point (the app, ``serve``, ``mcp``, a hook, each command) turns its
``--data-dir`` and ``--config`` (or the environment, or the platform's defaults) into one
``Launch`` before anything else and passes that down: the config file is read once and
every part of the process agrees on where the data lives.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.settings.config import Settings, load_settings
from ltm_desktop.core.settings.paths import DataPaths, resolve_config_path, resolve_data_dir


@dataclass(frozen=True, slots=True)
class Launch:
    """Where the data and the config are, the settings read from it and what was wrong
    with them (shown as warnings: a bad config file never stops a process)."""

    data_dir: Path
    config_path: Path
    settings: Settings
    config_problems: tuple[str, ...] = ()

    @property
    def paths(self) -> DataPaths:
        return DataPaths(self.data_dir)


def resolve_launch(
    data_dir: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
) -> Launch:
    """``--data-dir`` and ``--config`` (None: ``$LTM_DESKTOP_DATA_DIR`` and
    ``$LTM_DESKTOP_CONFIG``, then the platform's directories), resolved and read once."""
    config_path = resolve_config_path(config)
    settings, problems = load_settings(config_path)
    return Launch(resolve_data_dir(data_dir), config_path, settings, tuple(problems))
