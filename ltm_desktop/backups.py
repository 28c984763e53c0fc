"""Backups of a data dir's database: made (at the app's start when due, or asked for),
listed, checked and restored. Used by the commands, the app and ``status``; none of it
opens the service."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import NotADatabase
from ltm_desktop.core.files.atomic_files import check_replaceable
from ltm_desktop.core.settings.launch import Launch
from ltm_desktop.core.settings.paths import (
    DataPaths,
    prepare_data_dir,
    resolve_data_dir,
)
from ltm_desktop.store import backup


@dataclass(frozen=True)
class BackupMade:
    path: Path
    schema_version: int
    memories: int
    removed: tuple[Path, ...] = ()  # older automatic backups pruned to ``[backup] keep``


def backup_data_dir(
    data_dir: Path, *, keep: int, output: Path | None = None, now: float | None = None
) -> BackupMade:
    """An online, verified copy of the data dir's database: to ``output``, or into its
    ``backups/`` (keeping the newest ``keep``, default ``[backup] keep``). Safe while the
    app or a server runs."""
    paths = DataPaths(prepare_data_dir(data_dir))
    if not paths.db_path.exists():
        raise FileNotFoundError(2, "no database yet", str(paths.db_path))
    if output is not None:
        check_replaceable(output)  # the store renames its copy over it
    target = output or backup.new_backup_path(paths.backup_dir, time.time() if now is None else now)
    try:
        info = backup.backup_database(paths.db_path, target)
    except Exception:  # SQLite fails inside the copy on a damaged database: say what is wrong
        _refuse_unsound(paths.db_path)
        raise
    removed = () if output else tuple(backup.prune_backups(paths.backup_dir, keep))
    return BackupMade(info.path, info.schema_version, info.memories, removed)


def backup_launch(
    launch: Launch, output: Path | None = None, now: float | None = None
) -> BackupMade:
    """``backup_data_dir`` of the launch's data dir, keeping ``[backup] keep``."""
    return backup_data_dir(
        launch.data_dir, keep=launch.settings.backup_keep, output=output, now=now
    )


def _refuse_unsound(db_path: Path) -> None:
    """NotADatabase, saying what is wrong, if the database at ``db_path`` is not sound
    (checked read only); otherwise nothing, and the caller's error stands."""
    try:
        backup.check_database_file(db_path)
    except NotADatabase as exc:
        raise NotADatabase(f"cannot back up: {exc}") from None


def backup_if_due(launch: Launch, now: float | None = None) -> BackupMade | None:
    """The app's backup at start: made when the newest automatic backup is older than
    ``[backup] every_days`` (0: never), or there is none."""
    settings = launch.settings
    now = time.time() if now is None else now
    newest = last_backup(launch.data_dir)
    if settings.backup_every_days == 0:
        return None
    if newest is not None and now - newest.stat().st_mtime < settings.backup_every_days * 86_400:
        return None
    return backup_data_dir(launch.data_dir, keep=settings.backup_keep, now=now)


def last_backup(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The newest automatic backup of the data dir, if any."""
    found = backup.automatic_backups(DataPaths(resolve_data_dir(data_dir)).backup_dir)
    return found[0] if found else None


def check_backup_file(path: Path) -> tuple[int, int]:
    """(schema version, memories) of a database file; NotADatabase if it is not a sound one."""
    info = backup.check_database_file(path)
    return info.schema_version, info.memories


def restore_data_dir(
    data_dir: str | os.PathLike[str] | None, source: Path
) -> tuple[Path | None, int]:
    """Replace the data dir's database by ``source`` if it verifies (schema, integrity,
    audit chain, and the memories replayed from their history as ``verify`` does:
    ``backup.vet_restore``; a refusal changes nothing); returns where the current one was
    kept (None: there was none) and how many memories the restored one holds. The caller
    holds the data dir's server lock."""
    from ltm_desktop.core.history.verifying import check_replay

    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    restored = backup.restore_database(paths.db_path, source, paths.backup_dir, check_replay)
    return restored.aside, restored.info.memories
