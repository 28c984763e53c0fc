"""Where the server listens and how clients find it: runtime dir, socket, endpoint file.

The runtime dir is private (0700, owned by us); a directory that is not is
never used. The endpoint file tells clients where the server of the default
data dir listens, so they need no configuration.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.files.private_dirs import check_private_dir
from ltm_desktop.core.settings.paths import APP_NAME, ENV_DATA_DIR, resolve_data_dir

ENV_SOCKET = "LTM_DESKTOP_SOCKET"
ENV_TCP = "LTM_DESKTOP_TCP"
SOCKET_NAME = "ltm.sock"
ENDPOINT_FILE = "endpoint.json"
MAX_UNIX_PATH = 104  # the smallest sun_path among supported platforms (macOS), minus NUL


class EndpointError(LtmError):
    """The endpoint cannot be used (bad address, unsafe directory, path too long)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a server listens: a Unix socket path and/or a loopback TCP address."""

    socket_path: Path | None = None
    tcp: tuple[str, int] | None = None

    def describe(self) -> str:
        parts = []
        if self.socket_path is not None:
            parts.append(f"unix:{self.socket_path}")
        if self.tcp is not None:
            parts.append(f"tcp:{self.tcp[0]}:{self.tcp[1]}")
        return " ".join(parts)


def _private_dir_ok(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if sys.platform == "win32":  # pragma: no cover - POSIX permissions do not apply
        return True
    return info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def _make_private_dir(path: Path) -> Path | None:
    """``path`` as a private dir, or None. A directory that already existed with looser
    permissions is not tightened and used: others may have put things in it."""
    try:
        path.mkdir(mode=0o700)  # never its parents: a missing XDG_RUNTIME_DIR is unusable
    except FileExistsError:
        pass
    except OSError:
        return None
    else:
        path.chmod(0o700)  # mkdir's mode is filtered through the umask
    return path if _private_dir_ok(path) else None


def runtime_dir() -> Path:
    """A private directory for sockets and tokens (platform runtime dir, else temp)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        preferred = Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
    found = _make_private_dir(preferred)
    if found is not None:
        return found
    uid = os.getuid() if hasattr(os, "getuid") else 0
    fallback = _make_private_dir(Path(tempfile.gettempdir()) / f"{APP_NAME}-{uid}")
    if fallback is None:
        raise EndpointError(
            f"no private runtime directory: {preferred} and the temp fallback are not usable "
            "(they must be directories owned by you with mode 0700); use --socket PATH"
        )
    return fallback


def default_socket_path(data_dir: Path, default_data_dir: Path) -> Path:
    """``ltm.sock`` for the default data dir, a name derived from any other one."""
    if data_dir.resolve() == default_data_dir.resolve():
        return runtime_dir() / SOCKET_NAME
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:10]
    return runtime_dir() / f"ltm-{digest}.sock"


def default_data_dir() -> Path:
    """The data dir used when neither --data-dir nor the environment says otherwise."""
    saved = os.environ.pop(ENV_DATA_DIR, None)
    try:
        return resolve_data_dir()
    finally:
        if saved is not None:
            os.environ[ENV_DATA_DIR] = saved


def socket_for(data_dir: str | os.PathLike[str] | None, explicit: str | None = None) -> Path:
    """--socket, else $LTM_DESKTOP_SOCKET, else the runtime dir's socket for this data dir."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    if os.environ.get(ENV_SOCKET):
        return Path(os.environ[ENV_SOCKET]).expanduser().absolute()
    return default_socket_path(resolve_data_dir(data_dir), default_data_dir())


def check_socket_dir(path: Path) -> None:
    """Refuse a socket whose directory someone else could write to: they could put their
    own server in its place (or take ours away). Raises UnsafePath."""
    check_private_dir(path.parent, "the socket's directory")


def check_socket_path(path: Path) -> Path:
    """A path the server may bind: short enough, in an existing directory only we control."""
    if len(os.fsencode(path)) > MAX_UNIX_PATH:
        raise EndpointError(
            f"the socket path is too long for a Unix socket ({len(str(path))} > {MAX_UNIX_PATH} "
            f"bytes): {path}; pass a shorter --socket PATH"
        )
    if not path.parent.is_dir():
        raise EndpointError(f"the socket's directory does not exist: {path.parent}")
    check_socket_dir(path)
    return path


def parse_tcp(value: str) -> tuple[str, int]:
    """``127.0.0.1:PORT`` (or ``[::1]:PORT``, ``localhost:PORT``); anything else is refused."""
    host, sep, port_text = value.strip().rpartition(":")
    if not sep or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise EndpointError(f"a TCP endpoint must be HOST:PORT with a loopback host; got {value!r}")
    host = host.strip("[]")
    if host == "localhost":
        host = "127.0.0.1"
    if not _is_loopback(host):
        raise EndpointError(
            f"TCP is loopback only (127.0.0.1 or ::1), not {host!r}: the API has no "
            "encryption and must never be reachable from other machines"
        )
    return host, int(port_text)


def _is_loopback(host: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def write_private_file(path: Path, text: str) -> None:
    """Create ``path`` readable by its owner only, then fill it."""
    path.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def publish_endpoint(endpoint: Endpoint, data_dir: Path, token_file: Path | None) -> Path:
    record: dict[str, Any] = {"pid": os.getpid(), "data_dir": str(data_dir)}
    if endpoint.socket_path is not None:
        record["socket"] = str(endpoint.socket_path)
    if endpoint.tcp is not None:
        record["tcp"] = f"{endpoint.tcp[0]}:{endpoint.tcp[1]}"
        record["token_file"] = str(token_file)
    path = runtime_dir() / ENDPOINT_FILE
    write_private_file(path, json.dumps(record, indent=2))
    return path


def read_endpoint_file() -> dict[str, Any] | None:
    try:
        data = json.loads((runtime_dir() / ENDPOINT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, EndpointError):
        return None
    return data if isinstance(data, dict) else None
