"""One process's data dir and settings, resolved once at its entry point.

Every entry point (the app, ``serve``, ``mcp``, a hook, each command) turns its
``--data-dir``, ``--config`` and ``--database-url`` (or the environment, or the platform's
defaults) into one ``Launch`` before anything else and passes that down: the config file
is read once and every part of the process agrees on where the data lives.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.settings.config import Settings, load_settings
from ltm_desktop.core.settings.database_url import DatabaseUrl
from ltm_desktop.core.settings.paths import DataPaths, resolve_config_path, resolve_data_dir

ENV_DATABASE_URL = "LTM_DESKTOP_DATABASE_URL"


@dataclass(frozen=True, slots=True)
class Launch:
    """Where the data and the config are, the settings read from it and what was wrong
    with them (shown as warnings: a bad config file never stops a process), and the
    PostgreSQL database when one is named (None: SQLite in the data dir)."""

    data_dir: Path
    config_path: Path
    settings: Settings
    config_problems: tuple[str, ...] = ()
    database_url: DatabaseUrl | None = None

    @property
    def paths(self) -> DataPaths:
        return DataPaths(self.data_dir)

    @property
    def store_location(self) -> str:
        """The store as its ``location`` (and the API's ``health``) names it: the
        redacted URL, or the SQLite file. How a server of the same store is recognised."""
        if self.database_url is not None:
            return self.database_url.display
        return str(self.paths.db_path)


def resolve_launch(
    data_dir: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    database_url: str | None = None,
) -> Launch:
    """``--data-dir``, ``--config`` and ``--database-url`` (None: ``$LTM_DESKTOP_DATA_DIR``,
    ``$LTM_DESKTOP_CONFIG`` and ``$LTM_DESKTOP_DATABASE_URL``, then the platform's
    directories and the config file's ``[store] url``), resolved and read once.

    Raises:
        BadDatabaseUrl: the URL that wins cannot be used. A bad ``[store] url`` is refused
            too, not warned about: falling back to SQLite would split the memories.
    """
    config_path = resolve_config_path(config)
    settings, problems = load_settings(config_path)
    return Launch(
        resolve_data_dir(data_dir),
        config_path,
        settings,
        tuple(problems),
        chosen_database_url(database_url, settings, config_path),
    )


def env_database_location() -> str:
    """``$LTM_DESKTOP_DATABASE_URL``'s store as a server names it, "" when unset: what
    two processes reading one config file may still disagree on (``mcp``'s hand-over).

    Raises:
        BadDatabaseUrl: the variable's URL cannot be used.
    """
    from_env = os.environ.get(ENV_DATABASE_URL)
    return DatabaseUrl.parse(from_env, f"${ENV_DATABASE_URL}").display if from_env else ""


def chosen_database_url(
    option: str | None, settings: Settings, config_path: Path
) -> DatabaseUrl | None:
    """The option, else the environment variable, else ``[store] url``; None: SQLite."""
    if option is not None:
        return DatabaseUrl.parse(option, "--database-url")
    from_env = os.environ.get(ENV_DATABASE_URL)
    if from_env:  # set but empty: unset, as for the other variables
        return DatabaseUrl.parse(from_env, f"${ENV_DATABASE_URL}")
    if settings.store_url:
        return DatabaseUrl.parse(settings.store_url, f"{config_path}: [store] url")
    return None
