"""Where ltm-desktop keeps its files, and how callers override it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ltm_desktop.core.errors import UnsafePath
from ltm_desktop.core.files.private_dirs import check_own_dir, check_private_dir, make_missing_dirs

APP_NAME = "ltm-desktop"
ENV_DATA_DIR = "LTM_DESKTOP_DATA_DIR"
ENV_CONFIG = "LTM_DESKTOP_CONFIG"
DB_FILENAME = "ltm.sqlite"
CONFIG_FILENAME = "config.toml"


@dataclass(frozen=True, slots=True)
class DataPaths:
    """Every file of one data directory."""

    data_dir: Path

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_FILENAME

    @property
    def precis_dir(self) -> Path:
        return self.data_dir / "precis"

    @property
    def backup_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def machine_path(self) -> Path:
        """This machine's id and name (``core.actors``): a data dir stands for a machine."""
        return self.data_dir / "machine.json"

    def precis_path(self, project_id: str) -> Path:
        return self.precis_dir / project_id / "MEMORY.md"


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` wins, then ``$LTM_DESKTOP_DATA_DIR``, then the platform's data dir."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    from_env = os.environ.get(ENV_DATA_DIR, "").strip()
    if from_env:
        return Path(from_env).expanduser().absolute()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def prepare_data_dir(data_dir: Path) -> Path:
    """``data_dir``, created (with any missing parents) 0700 whatever the umask.

    An existing one must be ours and writable by us only, and its ``precis`` and
    ``backups`` must not be symlinks; otherwise UnsafePath says what to fix.
    """
    make_missing_dirs(data_dir)
    return check_data_dir(data_dir)


def data_dir_exists(data_dir: Path) -> bool:
    """Whether ``data_dir`` is there, without creating it: False when it is missing, True
    for anything in its place (``check_data_dir`` then says what is wrong with it); a
    path that cannot exist (a file as a parent) is UnsafePath."""
    try:
        os.lstat(data_dir)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise UnsafePath(f"the data dir {data_dir} cannot be used: {exc.strerror}") from None
    return True


def check_data_dir(data_dir: Path) -> Path:
    """``data_dir`` if it is safe to use as it is (``prepare_data_dir``'s checks, with
    nothing created); otherwise UnsafePath says what to fix."""
    check_private_dir(data_dir, "the data dir")
    paths = DataPaths(data_dir)
    for inside in (paths.precis_dir, paths.backup_dir):
        if os.path.lexists(inside):
            check_own_dir(inside, data_dir)
    return data_dir


def resolve_config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--config`` wins, then ``$LTM_DESKTOP_CONFIG``, then the platform's config dir."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    from_env = os.environ.get(ENV_CONFIG, "").strip()
    if from_env:
        return Path(from_env).expanduser().absolute()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / CONFIG_FILENAME
