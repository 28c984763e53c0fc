"""``ltm-desktop install-desktop-entry``: the menu entry and icons for this user (Linux).

Copies the packaged desktop entry to ``$XDG_DATA_HOME/applications/`` (with ``Exec``
pointing at this installation's ``ltm-desktop``) and the icons into the user's
``hicolor`` icon theme; ``--uninstall`` removes exactly those files.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ltm_desktop.core.files.atomic_files import replace_bytes
from ltm_desktop.core.files.private_dirs import make_missing_dirs
from ltm_desktop.resources import (
    APP_ID,
    DESKTOP_ENTRY,
    ICON_SIZES,
    icon_png_path,
    icon_svg_path,
    resource,
)

UNSUPPORTED = (
    "install-desktop-entry is for Linux (and other freedesktop.org desktops); on macOS and "
    "Windows use the standalone app (see packaging/README.md)"
)
# Characters that make an Exec argument need quoting (Desktop Entry spec, "The Exec key").
_RESERVED = re.compile(r"[\s\"'\\><~|&;$*?#()`]")


def data_home() -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not absolute."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def launcher() -> list[str]:
    """The command that starts this installation of ltm-desktop."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: the executable itself
        return [os.path.abspath(sys.executable)]
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.stem == "ltm-desktop" and argv0.is_file():
        return [os.path.abspath(argv0)]
    beside = Path(sys.executable).parent / "ltm-desktop"  # the venv's console script
    if beside.is_file():
        return [os.path.abspath(beside)]
    found = shutil.which("ltm-desktop")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "ltm_desktop"]


def exec_value(argv: list[str]) -> str:
    """``argv`` as a desktop entry ``Exec`` value: quoted, then string-escaped."""
    parts = []
    for arg in argv:
        arg = arg.replace("%", "%%")
        if _RESERVED.search(arg):
            arg = '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'
        parts.append(arg)
    return " ".join(parts).replace("\\", "\\\\")


def render_entry(argv: list[str]) -> str:
    """The packaged desktop entry with ``Exec`` (and ``TryExec``) for ``argv``."""
    lines = []
    for line in resource(DESKTOP_ENTRY).read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_value(argv)}"
            if len(argv) == 1:
                lines.append(f"TryExec={exec_value(argv)}")  # hidden once uninstalled
        lines.append(line)
    return "\n".join(lines) + "\n"


def targets(home: Path) -> list[tuple[str | None, Path]]:
    """(packaged icon, destination) for every file this command manages; None = the entry."""
    hicolor = home / "icons" / "hicolor"
    files: list[tuple[str | None, Path]] = [(None, home / "applications" / DESKTOP_ENTRY)]
    for size in ICON_SIZES:
        files.append((icon_png_path(size), hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png"))
    files.append((icon_svg_path(), hicolor / "scalable" / "apps" / f"{APP_ID}.svg"))
    return files


def install(
    argv: list[str] | None = None, *, home: Path | None = None, out: Callable[[str], None] = print
) -> int:
    home = home or data_home()
    argv = argv or launcher()
    for source, target in targets(home):
        make_missing_dirs(target.parent)  # 0700 whatever the umask (it may be 000)
        data = render_entry(argv).encode() if source is None else resource(source).read_bytes()
        replace_bytes(target, data, mode=0o644)
        out(f"installed {target}")
    # Icon themes notice new icons by the theme directory's mtime (as xdg-icon-resource does).
    os.utime(home / "icons" / "hicolor")
    out(f"Exec={exec_value(argv)}")
    out('"ltm-desktop" is now in your applications menu; `--uninstall` removes it.')
    return 0


def uninstall(*, home: Path | None = None, out: Callable[[str], None] = print) -> int:
    home = home or data_home()
    for _, target in targets(home):
        if target.exists():
            target.unlink()
            out(f"removed {target}")
        else:
            out(f"not present: {target}")
    if (home / "icons" / "hicolor").is_dir():
        os.utime(home / "icons" / "hicolor")
    return 0


def supported() -> bool:
    return sys.platform not in ("darwin", "win32", "cygwin")
