"""``pg_dump`` of an ltm-desktop database, for ``ltm-desktop backup`` with a database URL.

The ``pg_dump`` on ``PATH`` is used when its major version is at least the server's
(pg_dump refuses a newer server; an older one it dumps). It writes PostgreSQL's custom
format to a private temporary file beside the target; ``pg_restore --list`` (the one
beside it, when there is one) reads the archive back, and only then is it renamed into
place.

The password never reaches a command line (which ``ps`` shows every user) and is never
printed: pg_dump gets the connection string without it, and the password in a passfile
of its own (``PGPASSFILE``, mode 0600, in a 0700 directory, removed when pg_dump ends;
``PGPASSWORD`` is not passed on, as libpq's documentation advises against it). A URL with
no password leaves libpq's own ways (``~/.pgpass``, ``PGPASSWORD``) as they are. Whatever
pg_dump says on failure is scrubbed of the password before it is shown.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from ltm_desktop.core.errors import StorageError
from ltm_desktop.postgres.url import describe, scrubbed

_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?")
VERSION_TIMEOUT_S = 10
CONNECT_TIMEOUT_S = 10
ARCHIVE_MAGIC = b"PGDMP"  # the first bytes of a custom-format archive


@dataclass(frozen=True)
class PgDump:
    path: Path
    version: str  # "15.18"
    major: int


@dataclass(frozen=True)
class PgDumpChoice:
    """The pg_dump to use (None: none fits), and why not when none does."""

    tool: PgDump | None
    why_not: str = ""


def _version_of(path: str) -> PgDump | None:
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = _VERSION.search(done.stdout)
    if done.returncode != 0 or found is None:
        return None
    major = int(found.group(1))
    minor = found.group(2)
    return PgDump(Path(path), f"{major}.{minor}" if minor else str(major), major)


def find_pg_dump(server_version: int) -> PgDumpChoice:
    """The ``pg_dump`` on ``PATH`` if it can dump a server of ``server_version`` (150004
    for 15.4): its major version at least the server's."""
    server_major = server_version // 10_000
    found = shutil.which("pg_dump")
    if found is None:
        return PgDumpChoice(None, "no pg_dump on PATH")
    tool = _version_of(found)
    if tool is None:
        return PgDumpChoice(None, f"{found} did not say its version")
    if tool.major < server_major:
        return PgDumpChoice(
            None, f"{found} is version {tool.version}, older than the server's {server_major}"
        )
    return PgDumpChoice(tool)


def archive_kind(path: Path) -> bool:
    """Whether ``path`` is a pg_dump custom-format archive (by its first bytes)."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(ARCHIVE_MAGIC)) == ARCHIVE_MAGIC
    except OSError:
        return False


def _passfile_line(password: str) -> str:
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    return f"*:*:*:*:{escaped}\n"


def _environment(passfile: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if passfile is not None:
        env.pop("PGPASSWORD", None)  # it would win over the passfile
        env["PGPASSFILE"] = str(passfile)
    return env


def run_pg_dump(tool: PgDump, conninfo: str, target: Path) -> None:
    """pg_dump's custom-format archive of the database ``conninfo`` names, at ``target``
    (replaced whole, or left as it was when anything fails).

    Raises:
        StorageError: pg_dump failed (its message, without the password), or its archive
            does not read back.
    """
    parts = {k: v for k, v in conninfo_to_dict(conninfo).items() if v is not None}
    password = parts.pop("password", None)
    parts.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
    without_password = make_conninfo("", **parts)
    where = describe(conninfo)
    with tempfile.TemporaryDirectory(prefix=".ltm-pgdump-", dir=target.parent) as private:
        os.chmod(private, 0o700)
        passfile = None
        if password:
            passfile = Path(private) / "passfile"
            fd = os.open(passfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(_passfile_line(str(password)))
        archive = Path(private) / "archive"
        command = [
            str(tool.path),
            "--format=custom",
            "--no-password",  # never a prompt: a missing password is an error
            f"--file={archive}",
            f"--dbname={without_password}",
        ]
        _run(command, passfile, conninfo, f"pg_dump {tool.version} could not dump {where}")
        os.chmod(archive, 0o600)
        restore = tool.path.parent / "pg_restore"
        if restore.is_file():
            _run(
                [str(restore), "--list", str(archive)],
                None,
                conninfo,
                f"the archive pg_dump made of {where} does not read back",
            )
        os.replace(archive, target)


def _run(command: list[str], passfile: Path | None, conninfo: str, failed: str) -> None:
    try:
        done = subprocess.run(
            command,
            env=_environment(passfile),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise StorageError(f"{failed}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        said = " ".join(done.stderr.split()) or f"exit status {done.returncode}"
        raise StorageError(f"{failed}: {scrubbed(said, conninfo)}")
