"""Who is at the other end of a Unix socket, as the kernel tells it.

A client checks that the server runs as the same user before sending anything: a
socket path can be taken over by another local user, whose "server" would then read
what we send and answer whatever it likes.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
from pathlib import Path

_UCRED = struct.Struct("iII")  # Linux struct ucred: pid, uid, gid
_SOL_LOCAL = 0  # macOS/FreeBSD: SOL_LOCAL, LOCAL_PEERCRED and struct xucred
_LOCAL_PEERCRED = 1
_XUCRED_HEAD = struct.Struct("II")  # cr_version (XUCRED_VERSION = 0), cr_uid
_XUCRED_SIZE = 128  # larger than any xucred (version, uid, ngroups, 16 groups, pid)


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process that created the peer socket, or None where the OS cannot tell."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
        return int(_UCRED.unpack(raw)[1])
    if sys.platform == "darwin" or sys.platform.startswith("freebsd"):  # pragma: no cover
        try:
            raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE)
        except OSError:
            return None
        if len(raw) < _XUCRED_HEAD.size:
            return None
        version, uid = _XUCRED_HEAD.unpack_from(raw)
        return int(uid) if version == 0 else None
    return None  # pragma: no cover


def server_uid(sock: socket.socket, path: Path) -> int | None:
    """The uid the server at ``path`` runs as: the kernel's word, else the socket file's owner
    (None on Windows, where neither exists)."""
    uid = peer_uid(sock)
    if uid is not None:
        return uid
    try:  # pragma: no cover - platforms without peer credentials
        return os.stat(path).st_uid if hasattr(os, "getuid") else None
    except OSError:  # pragma: no cover
        return None
