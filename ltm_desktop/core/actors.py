"""Who this process writes as: the person, and the machine it runs on.

Every audit event records its agent (``actor``: which agent, the app, the CLI), the
person (``user@host``) and the machine (a stable id and a human name). A process
is handed its ``WhoAmI`` at its entry point (``app.py``), which passes it to the write
kernel, which stamps every event of its writes with it: nothing else reads the login
name or the host name. It is resolved on the first write, once. A server writes on behalf of the local agents that call it,
so a server's machine is its agents' machine; two machines on one PostgreSQL database
are two data dirs, each with its own ``machine.json``.

``machine.json`` (in the data dir) keeps the machine's id, made once, and its name (the
host name when it was made; a person may rename it there). It is created atomically
(``os.link`` of a finished temporary file: two processes starting at once agree on
one id) and read cheaply, so a hook may resolve it on every turn.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import logging
import os
import socket
import tempfile
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.files.atomic_files import replace_text

log = logging.getLogger(__name__)

NAME_CHARS = 100  # a person's or a machine's name is cut to this
ENV_MACHINE = "LTM_DESKTOP_MACHINE"  # overrides the host name
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Machine:
    """A machine as the audit history names it: a stable id and a name for people."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Identity:
    """The person (``user@host``) and the machine a process writes as."""

    person: str
    machine: Machine

    def stamp(self, entry: AuditEntry) -> AuditEntry:
        """``entry`` with this person and machine (one that has them keeps its own)."""
        if entry.person is not None:
            return entry
        return replace(
            entry, person=self.person, machine=self.machine.name, machine_id=self.machine.id
        )


def clean_name(value: str) -> str:
    """A name as recorded: printable, one line, at most ``NAME_CHARS`` characters."""
    text = "".join(c for c in value if c.isprintable()).strip()
    return text[:NAME_CHARS]


def login_name() -> str:
    """The OS login name; ``unknown`` where there is none (a container's bare uid)."""
    try:
        return clean_name(getpass.getuser()) or UNKNOWN
    except (KeyError, OSError, ImportError):  # no $USER and no passwd entry
        return UNKNOWN


def host_name() -> str:
    """``$LTM_DESKTOP_MACHINE`` (two data dirs on one host standing for two machines, or
    a nicer name), else the host name; ``unknown`` where there is none."""
    chosen = os.environ.get(ENV_MACHINE, "")
    if clean_name(chosen):
        return clean_name(chosen)
    try:
        return clean_name(socket.gethostname()) or UNKNOWN
    except OSError:
        return UNKNOWN


def path_machine() -> str:
    """This machine as a project's paths are keyed by it (``core.projects.paths``): the
    host name, lower-cased (it is read on every hook turn: no file is opened)."""
    return host_name().lower()


def person_name(user: str, machine: Machine) -> str:
    """``user@host``; a name that already has an ``@`` (an e-mail address) as it is."""
    return user if "@" in user else f"{user}@{machine.name}"


def _read_machine(path: Path) -> Machine | None:
    """The machine ``path`` describes, or None (missing, unreadable, not one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    machine_id, name = data.get("id"), data.get("name")
    if not isinstance(machine_id, str) or not clean_name(machine_id):
        return None
    name = clean_name(name) if isinstance(name, str) else ""
    return Machine(clean_name(machine_id), name or host_name())


def _machine_text(machine: Machine) -> str:
    return json.dumps({"id": machine.id, "name": machine.name}, indent=2) + "\n"


def _create_machine(path: Path) -> Machine:
    """A new machine written to ``path`` unless another process wrote one first (then
    that one): the file appears whole or not at all."""
    machine = Machine(uuid.uuid4().hex, host_name())
    text = _machine_text(machine)
    handle, temporary = tempfile.mkstemp(prefix=".machine.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)  # fails when the file is there: never replaced
        except FileExistsError:
            return _read_machine(path) or machine
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return machine


def load_machine(path: Path) -> Machine:
    """The machine of the data dir whose ``machine.json`` is ``path``, made on first
    use. Never raises: a data dir that cannot be written names the host, with an id for
    this process only (logged)."""
    found = _read_machine(path)
    if found is not None:
        return found
    try:
        if os.path.lexists(path):
            made_meanwhile = _read_machine(path)  # another process made it since the read
            if made_meanwhile is not None:
                return made_meanwhile
            # there, but not a machine's: made again, whole
            log.warning("%s does not describe a machine; a new id replaces it", path)
            machine = Machine(uuid.uuid4().hex, host_name())
            replace_text(path, _machine_text(machine), prefix=".machine.", mode=0o600)
            return machine
        return _create_machine(path)
    except OSError as exc:
        log.warning("cannot record this machine's id in %s: %s", path, exc.strerror or exc)
        return Machine(uuid.uuid4().hex, host_name())


def resolve_identity(people_name: str, machine_path: Path) -> Identity:
    """The identity of a process: ``[people] name`` (else the login name) at the
    machine of ``machine_path``."""
    machine = load_machine(machine_path)
    user = clean_name(people_name) or login_name()
    return Identity(person_name(user, machine), machine)


class WhoAmI:
    """The one holder of a process's identity, resolved on its first write (a hook that
    only reads never opens ``machine.json``) and then kept."""

    def __init__(self, resolve: Callable[[], Identity]) -> None:
        self._resolve = resolve
        self._identity: Identity | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, people_name: str, machine_path: Path) -> WhoAmI:
        return cls(lambda: resolve_identity(people_name, machine_path))

    @classmethod
    def fixed(cls, identity: Identity) -> WhoAmI:
        return cls(lambda: identity)

    @property
    def identity(self) -> Identity:
        with self._lock:
            if self._identity is None:
                self._identity = self._resolve()
            return self._identity

    def stamp(self, entry: AuditEntry) -> AuditEntry:
        return self.identity.stamp(entry)
