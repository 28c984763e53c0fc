"""Changing one key of the config file, keeping everything else the person wrote.

tomlkit keeps comments, order and layout; the file is replaced atomically (a reader
sees the old file or the new one, whole), and a file that is not valid TOML is never
rewritten: the person's text is not ours to lose. Nor is anything but a regular file
read: a FIFO would wait for a writer, /dev/zero never ends.
"""

from __future__ import annotations

import os
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from ltm_desktop.core.errors import ConfigError, InvalidInput
from ltm_desktop.core.files.atomic_files import replace_text
from ltm_desktop.core.files.regular_files import NotRegularFile, open_regular
from ltm_desktop.core.settings.config import CONFIG_KEYS

ConfigValue = bool | int | float | str


def set_config_value(path: Path, section: str, name: str, value: ConfigValue) -> None:
    """Set ``[section] name = value`` in ``path`` (created, with its directory, if missing).

    Raises:
        InvalidInput: not a known key, or a value of the wrong type.
        ConfigError: the file cannot be read, is not a regular file or is not valid TOML
            (it is left as it is).
        OSError: the file cannot be written (it is left as it was).
    """
    key = next((k for k in CONFIG_KEYS if (k.section, k.name) == (section, name)), None)
    if key is None:
        raise InvalidInput(f"[{section}] {name} is not a setting", "name")
    if key.kind is bool and not isinstance(value, bool):
        raise InvalidInput(f"[{section}] {name} must be true or false", "value")
    text = _read(path)
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: is not valid TOML ({exc}); it was not changed") from None
    table = document.get(section)
    if table is None:
        table = tomlkit.table()
        document.add(section, table)
    elif not isinstance(table, dict):
        raise ConfigError(f"{path}: [{section}] is not a table; it was not changed")
    table[name] = value
    _replace(path, tomlkit.dumps(document))


def _read(path: Path) -> str:
    """The file's text, "" if there is none; a file that is not a regular one is refused
    before it is opened."""
    try:
        with os.fdopen(open_regular(path), "rb") as file:
            return file.read().decode("utf-8")
    except FileNotFoundError:
        return ""
    except NotRegularFile as exc:
        raise ConfigError(f"{path}: is {exc.strerror}; it was not changed") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc}); it was not changed") from None


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    replace_text(path, text, prefix=f".{path.name}.", mode=mode)
