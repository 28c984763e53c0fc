"""One spelling per git remote: the identity of every clone of one repository.

``git@github.com:acme/shop.git``, ``https://github.com/acme/shop``,
``ssh://git@github.com/acme/shop.git`` and ``https://user:token@github.com/acme/shop.git/``
are all ``github.com/acme/shop``: the scheme goes, the user and any credentials go (a token
is never kept), the host is lower-cased, a default port goes (a non-default one stays, as
``host:port``), and so do a query, a fragment, repeated, leading and trailing slashes and one
trailing ``.git``. The path keeps its case (many hosts are case-sensitive).

A remote that is a local path (``/srv/git/shop.git``, ``file://``, ``../shop``) names a
directory of one machine, not a repository every machine shares: it has no identity here.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# Default ports by scheme: such a port is the same repository without it.
_DEFAULT_PORTS = {"ssh": 22, "git+ssh": 22, "ssh+git": 22, "git": 9418, "http": 80, "https": 443}
_SCHEMES = frozenset(_DEFAULT_PORTS)
# scp-like syntax: [user@]host:path, where no slash comes before the first colon
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>\[[^\]/]+\]|[^:/\[\]]+):(?P<path>.*)$")
_HOST = re.compile(r"^[A-Za-z0-9._~-]+$")


def normalize_remote_url(url: str) -> str | None:
    """``host[:port]/path`` for a remote URL, or None when it names no shared repository
    (a local path, an unknown scheme, no host, no path)."""
    text = url.strip()
    if not text or any(c.isspace() or ord(c) < 32 for c in text):
        return None
    if "://" in text:
        return _from_url(text)
    match = _SCP.match(text)
    if match is None or len(match["host"]) == 1:  # "C:\\repo" is a Windows path
        return None
    host = match["host"].strip("[]")
    return _joined(host, None, match["path"])


def _from_url(text: str) -> str | None:
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # a malformed port or IPv6 address
        return None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES or not parts.hostname:
        return None
    if port == _DEFAULT_PORTS[scheme]:
        port = None
    return _joined(parts.hostname, port, parts.path)


def _joined(host: str, port: int | None, path: str) -> str | None:
    host = host.lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    elif not _HOST.match(host):
        return None
    segments = [s for s in path.split("/") if s]
    if segments and segments[-1].endswith(".git"):
        segments[-1] = segments[-1][: -len(".git")]
        if not segments[-1]:
            segments.pop()
    if not segments:
        return None
    where = host if port is None else f"{host}:{port}"
    return where + "/" + "/".join(segments)
