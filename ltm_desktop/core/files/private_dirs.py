"""Directories only their owner can change: created 0700, checked the way ssh checks ~/.ssh.

Another local user who can write to a directory on the way to our files could swap
them (or the sockets and locks in them) for their own, and a symlink inside the data
dir would send our writes somewhere else. Such paths are refused with a message that
names the path and the fix; they are never used, nor "fixed" behind the owner's back.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from ltm_desktop.core.errors import UnsafePath

POSIX = sys.platform != "win32"


def check_own_dir(path: Path, within: Path) -> None:
    """Refuse ``path`` (inside ``within``) unless it is a real directory owned by us."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafePath(
            f"{path} is a symbolic link; ltm-desktop does not follow links inside {within}. "
            "Replace it with a real directory"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{path} is in the way: it is not a directory")
    if POSIX and info.st_uid != os.getuid():
        raise UnsafePath(
            f"{path} belongs to another user (uid {info.st_uid}); ltm-desktop only writes "
            f"into its own directories. Remove it or run `chown -R {os.getuid()} {path}`"
        )


def make_private_dirs(path: Path, *, within: Path) -> None:
    """Create the missing directories from ``within`` (which must exist) down to ``path``.

    New directories get mode 0700 whatever the umask. Every existing one below
    ``within`` must be a real directory owned by us; a symlink is refused, so that
    nothing is written outside ``within``. Raises UnsafePath.
    """
    try:
        relative = Path(path).relative_to(within)
    except ValueError:
        raise UnsafePath(f"{path} is not inside {within}") from None
    if ".." in relative.parts:
        raise UnsafePath(f"{path} leaves {within} through '..'")
    current = Path(within)
    for part in relative.parts:
        current = current / part
        try:
            os.mkdir(current, 0o700)
        except FileExistsError:
            check_own_dir(current, within)
        else:
            os.chmod(current, 0o700)  # mkdir's mode is filtered through the umask


def make_missing_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents, each 0700 whatever the umask; directories
    that already exist are left as they are."""
    existing = Path(path)
    while not os.path.lexists(existing) and existing.parent != existing:
        existing = existing.parent
    make_private_dirs(path, within=existing)


def check_private_dir(path: Path, what: str) -> None:
    """Refuse ``path`` unless only we can change what is in it.

    It must be an existing directory owned by us and not writable by group or others;
    a directory above it that anyone may write to must have the sticky bit (like
    ``/tmp``), or someone else could rename ours away and put theirs in its place.
    """
    if not POSIX:  # pragma: no cover - Windows ACLs are not POSIX modes
        return
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(real)
    except OSError as exc:
        raise UnsafePath(f"{what} {path} cannot be used: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{what} {path} is not a directory")
    if info.st_uid != os.getuid():
        raise UnsafePath(
            f"{what} {path} belongs to another user (uid {info.st_uid}), who controls "
            "what is in it; use a directory of your own"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        who = {0o002: "others", 0o020: "group"}.get(mode & 0o022, "group and others")
        raise UnsafePath(
            f"{what} {path} is writable by {who} (mode {mode:04o}), so another user could "
            f"replace what is in it; run `chmod 700 {path}` or choose another directory"
        )
    for parent in real.parents:
        try:
            above = os.stat(parent)
        except OSError:
            continue
        if above.st_mode & stat.S_IWOTH and not above.st_mode & stat.S_ISVTX:
            raise UnsafePath(
                f"{what} {path} is inside {parent}, which anyone can write to (mode "
                f"{stat.S_IMODE(above.st_mode):04o}, no sticky bit), so another user could "
                f"swap it for their own; run `chmod o-w {parent}` or choose another directory"
            )
