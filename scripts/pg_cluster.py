"""A throwaway PostgreSQL cluster for the tests and for developers (standard library only).

    python3 scripts/pg_cluster.py start [--dir DIR]   # initdb + start on a free port
    python3 scripts/pg_cluster.py url [--dir DIR]     # the URL, password included
    python3 scripts/pg_cluster.py stop [--dir DIR]    # stop the server, remove DIR

The PostgreSQL engine is tested against a real server, never a mock: CI (.ci/run) and
tests/pg_server.py start one with this script. The cluster listens on 127.0.0.1 only, on a
free port, with its unix socket inside DIR; password authentication (scram-sha-256) for a
superuser role whose password is generated here and printed by ``url`` only, so that a
test can check that nothing else ever shows it. ``fsync`` is off: the data of a test
cluster need not survive a power cut, and syncing would make each test slower.

PostgreSQL refuses to run as root, so as root the server runs as a system user
(``ltmpg``, created if missing, else ``nobody``) that owns DIR.

As a module: ``start_cluster(Path(...))`` returns a ``Cluster`` (``.url``, ``.stop()``);
``open_cluster(Path(...))`` finds one started earlier; ``NotInstalled`` says that
PostgreSQL is missing, any other ``ClusterError`` that it failed.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

ROLE = "ltm"
SERVER_USER = "ltmpg"
HOST = "127.0.0.1"
INSTALL_ROOT = Path("/usr/lib/postgresql")  # Debian's: VERSION/bin/initdb, off PATH
STATE_FILE = "cluster.json"  # port, role, password: readable by whoever started it only
START_TIMEOUT = 60  # seconds pg_ctl waits for the server; a loaded 2-core machine needs ~5
LOG_LINES = 8  # of the server log, shown when it fails to start
SETTINGS = {
    "listen_addresses": f"'{HOST}'",
    # A test cluster: losing its data in a crash is fine, waiting for the disk is not.
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "'32MB'",  # one cluster per pytest-xdist worker: keep each small
    "max_connections": "100",
}


class ClusterError(Exception):
    """The cluster could not be started, found or stopped; the message says why."""


class NotInstalled(ClusterError):
    """PostgreSQL's server programs (initdb, pg_ctl) are not on this machine."""


def default_dir() -> Path:
    """Where ``start`` puts the cluster without ``--dir``: one per user, under /tmp."""
    return Path(tempfile.gettempdir()) / f"ltm-desktop-pg-{os.getuid()}"


def find_bin_dir() -> Path:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, else the newest
    /usr/lib/postgresql/VERSION/bin (Debian keeps them off PATH)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    found = []
    for candidate in INSTALL_ROOT.glob("*/bin"):
        version = re.fullmatch(r"\d+(?:\.\d+)?", candidate.parent.name)
        if version and (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            found.append((tuple(int(p) for p in candidate.parent.name.split(".")), candidate))
    if not found:
        raise NotInstalled(
            f"PostgreSQL is not installed: no initdb on PATH or in {INSTALL_ROOT}/*/bin "
            "(Debian: apt-get install postgresql postgresql-contrib)"
        )
    return max(found)[1]


@dataclass(frozen=True)
class Account:
    """Who runs the server: the caller, or (as root) an ordinary system user."""

    name: str
    uid: int
    gid: int


def server_account() -> Account:
    """The caller unless root; as root, ``ltmpg`` (created with ``useradd --system`` if
    missing) or, if it cannot be created, ``nobody``."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return Account(me.pw_name, me.pw_uid, me.pw_gid)
    try:
        entry = pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home",
             "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", SERVER_USER],
            capture_output=True, check=False, timeout=60,
        )  # fmt: skip
        try:
            entry = pwd.getpwnam(SERVER_USER)
        except KeyError:
            entry = pwd.getpwnam("nobody")
    return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)


def free_port() -> int:
    """A TCP port nobody listens on now (another process may take it before the server
    does: ``start_cluster`` then tries again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass
class Cluster:
    """A running cluster in ``directory``; ``url`` carries the password, so it is never
    printed by this module except by ``url`` on the command line."""

    directory: Path
    port: int
    password: str = field(repr=False)
    bin_dir: Path
    account: Account
    role: str = ROLE

    @property
    def url(self) -> str:
        return (
            f"postgresql://{self.role}:{quote(self.password, safe='')}@{HOST}:{self.port}/postgres"
        )

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def log_file(self) -> Path:
        return self.directory / "server.log"

    def describe(self) -> str:
        """One line for a person: where it runs, how to get the URL; no password."""
        return (
            f"PostgreSQL running on {HOST}:{self.port} (role {self.role}, server user "
            f"{self.account.name}, fsync off: test data only) in {self.directory}"
        )

    def halt(self) -> None:
        """Stops the server (fast shutdown) and keeps its data: ``resume`` starts it again
        on the same port (for tests of an outage)."""
        result = _run_as(
            self.account,
            [str(self.bin_dir / "pg_ctl"), "stop", "-D", str(self.data_dir),
             "-m", "fast", "-w", "-t", str(START_TIMEOUT)],
            self.directory,
        )  # fmt: skip
        if result.returncode != 0 and (self.data_dir / "postmaster.pid").exists():
            raise ClusterError(
                f"pg_ctl stop failed in {self.directory}: {_last_line(result.stderr)}"
            )

    def resume(self) -> None:
        """Starts a halted server again (same data, same port)."""
        failure = _start(self)
        if failure is not None:
            raise ClusterError(failure)

    def stop(self) -> None:
        """Stops the server (fast shutdown: open sessions are ended) and removes the
        directory."""
        if (self.data_dir / "postmaster.pid").exists():
            result = _run_as(
                self.account,
                [str(self.bin_dir / "pg_ctl"), "stop", "-D", str(self.data_dir),
                 "-m", "fast", "-w", "-t", str(START_TIMEOUT)],
                self.directory,
            )  # fmt: skip
            if result.returncode != 0 and (self.data_dir / "postmaster.pid").exists():
                raise ClusterError(
                    f"pg_ctl stop failed in {self.directory}: {_last_line(result.stderr)}"
                )
        shutil.rmtree(self.directory, ignore_errors=True)

    def _save(self) -> None:
        state = {
            "port": self.port,
            "password": self.password,
            "bin_dir": str(self.bin_dir),
            "role": self.role,
            "account": [self.account.name, self.account.uid, self.account.gid],
        }
        path = self.directory / STATE_FILE
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(state, out)


def open_cluster(directory: Path) -> Cluster:
    """The cluster ``start_cluster`` (or ``start``) left in ``directory``."""
    try:
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ClusterError(f"no cluster in {directory} (start one: pg_cluster.py start)") from None
    name, uid, gid = state["account"]
    return Cluster(
        directory=directory,
        port=int(state["port"]),
        password=str(state["password"]),
        bin_dir=Path(state["bin_dir"]),
        account=Account(str(name), int(uid), int(gid)),
        role=str(state["role"]),
    )


def start_cluster(directory: Path, *, attempts: int = 3) -> Cluster:
    """initdb a new cluster in ``directory`` (missing or empty) and start it on a free
    port; raises ``NotInstalled`` or ``ClusterError`` with a one-line reason."""
    bin_dir = find_bin_dir()
    account = server_account()
    directory = directory.absolute()
    _prepare(directory, account)
    password = secrets.token_urlsafe(24)
    cluster = Cluster(directory, 0, password, bin_dir, account)
    try:
        _initdb(cluster)
        for attempt in range(attempts):
            cluster.port = free_port()
            _configure(cluster)
            failure = _start(cluster)
            if failure is None:
                cluster._save()
                return cluster
            if "could not bind" not in failure or attempt == attempts - 1:
                raise ClusterError(failure)
        raise AssertionError("unreachable")
    except BaseException:
        try:
            cluster.stop()
        except ClusterError:
            pass  # the reason it did not start is the one to tell
        raise


def _prepare(directory: Path, account: Account) -> None:
    """An empty directory owned by the server's user, under parents it can pass."""
    if directory.exists() and any(directory.iterdir()):
        raise ClusterError(f"{directory} is not empty (a cluster already there? stop it first)")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    for parent in directory.parents:
        info = parent.stat()
        passable = (
            (info.st_uid == account.uid and info.st_mode & stat.S_IXUSR)
            or (info.st_gid == account.gid and info.st_mode & stat.S_IXGRP)
            or info.st_mode & stat.S_IXOTH
        )
        if not passable:
            directory.rmdir()
            raise ClusterError(
                f"user {account.name} cannot reach {directory} ({parent} is closed to it): "
                "choose a directory under /tmp"
            )
    os.chown(directory, account.uid, account.gid)
    directory.chmod(0o700)
    (directory / "socket").mkdir(mode=0o700)
    os.chown(directory / "socket", account.uid, account.gid)


def _initdb(cluster: Cluster) -> None:
    # The password reaches initdb in a file only the server's user can read, deleted at once.
    password_file = cluster.directory / "password"
    descriptor = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(cluster.password + "\n")
    os.chown(password_file, cluster.account.uid, cluster.account.gid)
    try:
        result = _run_as(
            cluster.account,
            [str(cluster.bin_dir / "initdb"), "-D", str(cluster.data_dir), "-U", cluster.role,
             f"--pwfile={password_file}", "--auth=scram-sha-256", "-E", "UTF8",
             "--locale=C", "--no-sync", "--no-instructions"],
            cluster.directory,
        )  # fmt: skip
    finally:
        password_file.unlink(missing_ok=True)
    if result.returncode != 0:
        raise ClusterError(f"initdb failed: {_last_line(result.stderr or result.stdout)}")


def _configure(cluster: Cluster) -> None:
    """The settings, appended to postgresql.conf (the last value of a setting wins), so
    that a plain ``pg_ctl start -D DATA`` brings the same server back."""
    settings = {
        **SETTINGS,
        "port": str(cluster.port),
        "unix_socket_directories": f"'{cluster.directory / 'socket'}'",
    }
    lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
    with (cluster.data_dir / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\n# scripts/pg_cluster.py\n" + lines)


def _start(cluster: Cluster) -> str | None:
    """None once the server accepts connections, else why it did not start."""
    cluster.log_file.unlink(missing_ok=True)
    result = _run_as(
        cluster.account,
        [str(cluster.bin_dir / "pg_ctl"), "start", "-D", str(cluster.data_dir),
         "-l", str(cluster.log_file), "-w", "-t", str(START_TIMEOUT)],
        cluster.directory,
    )  # fmt: skip
    if result.returncode == 0:
        return None
    try:
        log = cluster.log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        log = []
    tail = " | ".join(line.strip() for line in log[-LOG_LINES:] if line.strip())
    reason = _last_line(result.stderr or result.stdout)
    return f"PostgreSQL did not start on port {cluster.port}: {reason}; server log: {tail or '(empty)'}"


def _run_as(account: Account, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs ``command`` as ``account`` (the same as ``setpriv --reuid --regid
    --clear-groups``), in a clean environment so that the caller's PG* variables do not
    redirect it."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": str(cwd)}
    as_other = account.uid != os.geteuid()
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            timeout=START_TIMEOUT + 30,
            user=account.uid if as_other else None,
            group=account.gid if as_other else None,
            extra_groups=[] if as_other else None,
            umask=0o077,
        )
    except subprocess.TimeoutExpired:
        raise ClusterError(
            f"{Path(command[0]).name} did not finish in {START_TIMEOUT + 30} s"
        ) from None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("action", choices=["start", "stop", "url"])
    parser.add_argument(
        "--dir", type=Path, default=None, help=f"the cluster's directory (default {default_dir()})"
    )
    args = parser.parse_args(argv)
    directory = (args.dir or default_dir()).absolute()
    password = ""
    try:
        if args.action == "start":
            cluster = start_cluster(directory)
            print(cluster.describe())
            print(f"the URL, password included: python3 {sys.argv[0]} url --dir {directory}")
        elif args.action == "url":
            print(open_cluster(directory).url)
        else:
            cluster = open_cluster(directory)
            password = cluster.password
            cluster.stop()
            print(f"stopped; removed {directory}")
    except ClusterError as error:
        message = str(error).replace(password, "***") if password else str(error)
        print(f"pg_cluster: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
