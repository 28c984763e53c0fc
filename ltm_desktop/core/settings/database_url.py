"""A PostgreSQL database URL, checked with the standard library and never printed whole.

psycopg is not imported here: settings are read by every hook, and a hook's start-up is
time an agent waits for. Credentials follow libpq (``~/.pgpass``, ``PGPASSWORD``, the
URL): nothing is read here, the URL is only kept and handed to libpq as it was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

from ltm_desktop.core.errors import BadDatabaseUrl

SCHEMES = ("postgresql", "postgres")
MAX_URL_CHARS = 2_000
_CONTROL = re.compile(r"[\x00-\x20\x7f]")  # whitespace or control characters anywhere
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """Where the PostgreSQL store is. Only ``conninfo`` holds the password, and it is
    left out of ``repr`` and ``str``: a URL in a log line or a traceback shows none."""

    conninfo: str = field(repr=False)  # the URL as given, for libpq
    hosts: tuple[str, ...]  # host names, addresses or socket directories ("/run/postgresql")
    ports: tuple[str, ...]  # one per host, or one for all; () for libpq's default
    dbname: str  # "" for libpq's default (the user's name)
    user: str  # "" for libpq's default (the login name)

    @classmethod
    def parse(cls, text: str, source: str = "the database URL") -> DatabaseUrl:
        """The URL ``text`` checked; ``source`` names where it came from in errors.

        Raises:
            BadDatabaseUrl: not a ``postgresql://`` URL ltm-desktop can use (the message
                says why and never repeats the URL, which may hold a password).
        """
        if not isinstance(text, str) or not text.strip():
            raise BadDatabaseUrl(f"{source} is empty")
        if len(text) > MAX_URL_CHARS:
            raise BadDatabaseUrl(f"{source} is longer than {MAX_URL_CHARS:,} characters")
        if _CONTROL.search(text):
            raise BadDatabaseUrl(f"{source} holds spaces or control characters")
        scheme = _SCHEME.match(text)
        name = scheme.group(1).lower() if scheme else ""
        if name.startswith("sqlite"):
            raise BadDatabaseUrl(
                f"{source} is an SQLite URL, but SQLite needs no URL: leave it unset and "
                "ltm-desktop uses the database in the data dir (--data-dir)"
            )
        if name not in SCHEMES or not text[len(name) + 1 :].startswith("//"):
            shown = f'"{name}:"' if name else "no scheme"
            raise BadDatabaseUrl(
                f"{source} must be a postgresql:// URL, e.g. "
                f"postgresql://user@host:5432/dbname (it has {shown})"
            )
        try:
            parts = urlsplit(text)
            query = dict(parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True))
        except ValueError:
            query = None
        if query is None or parts.fragment:
            raise BadDatabaseUrl(f"{source} is not a valid URL")
        user, hosts, ports = _netloc(parts.netloc, source)
        if query.get("host"):  # libpq: the query's host wins (a socket dir, usually)
            hosts = tuple(h for h in query["host"].split(","))
        if query.get("port"):
            ports = tuple(query["port"].split(","))
        for port in ports:
            if port:
                _check_port(port, source)
        if len(ports) > 1 and len(ports) != len(hosts):
            raise BadDatabaseUrl(f"{source} has {len(ports)} ports for {len(hosts)} hosts")
        if not any(hosts):
            raise BadDatabaseUrl(
                f"{source} names no host: add one (postgresql://user@host/dbname) or a "
                "socket directory (postgresql:///dbname?host=/run/postgresql)"
            )
        dbname = query.get("dbname") or unquote(parts.path[1:] if parts.path else "")
        if "/" in dbname:
            raise BadDatabaseUrl(f"{source} has a database name with '/' in it")
        return cls(
            conninfo=text,
            hosts=hosts,
            ports=ports,
            dbname=dbname,
            user=query.get("user") or user,
        )

    @property
    def display(self) -> str:
        """For people and logs: "PostgreSQL at db.example:5432/ltm"; a socket directory is
        shown as its path. Never the password, nor the user: the same database reached as
        another user is the same store (a server is recognised by this text)."""
        shared = self.ports[0] if len(self.ports) == 1 else ""
        places = []
        for index, host in enumerate(self.hosts):
            port = self.ports[index] if len(self.ports) == len(self.hosts) else shared
            shown = f"[{host}]" if ":" in host else host  # an IPv6 address
            places.append(f"{shown}:{port}" if port else shown)
        where = ",".join(places)
        return f"PostgreSQL at {where}/{self.dbname}"

    def __str__(self) -> str:
        return self.display


def _netloc(netloc: str, source: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The user, the hosts and the ports of ``user:password@host1:port1,host2:port2``
    (libpq's multi-host form, which urllib does not split). The password is dropped."""
    userinfo, _, hostlist = netloc.rpartition("@")
    user = unquote(userinfo.partition(":")[0])
    hosts: list[str] = []
    ports: list[str] = []
    for item in hostlist.split(",") if hostlist else []:
        if item.startswith("["):  # an IPv6 address: [::1]:5432
            address, bracket, rest = item[1:].partition("]")
            if not bracket or (rest and not rest.startswith(":")):
                raise BadDatabaseUrl(f"{source} has a malformed IPv6 address")
            host, port = address, rest[1:]
        else:
            host, _, port = item.partition(":")
        hosts.append(unquote(host))  # "%2Frun%2Fpostgresql" is a socket directory
        ports.append(port)  # "" for the default, kept in its place
    return user, tuple(hosts), tuple(ports) if any(ports) else ()


def _check_port(port: str, source: str) -> None:
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65_535):
        raise BadDatabaseUrl(f"{source} has a port that is not a number from 1 to 65535")
