"""A cold ``ltm-desktop mcp`` opens the memory in a forked process while it imports the SDK.

Without a server, the first tool result waited for two things in a row: importing the
MCP SDK (about 0.45 s of one core, nearly all the SDK's own pydantic types) and opening
the memory (the core and the store imported, the database opened, every MEMORY.md
regenerated: about 0.25 s at 100k memories). Neither needs the other, so ``cmd_mcp``
forks before importing the SDK: the child opens the memory exactly as ``open_access``
would in this process and carries the tools' calls to it over a socket pair, one JSON
line each way, while the parent imports the SDK on another core. The answers and errors
are the access's own (the same three error types), the writes the same client's.

The child never touches the client's stdin or stdout, ignores SIGINT (the parent decides)
and ends when its end of the pair closes: the parent's ``close`` waits for it, so the
database is closed when ``ltm-desktop mcp`` exits, as before. Where there is no fork
(Windows), or once this access has failed, the memory is opened in this process as before.
This module imports neither the SDK nor the core: the parent must stay light until it forks.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import signal
import socket
import sys
import threading
from typing import Any

from ltm_desktop.agent.access import AccessError, MemoryAccess, Unavailable
from ltm_desktop.core.errors import MemoryDisabled

log = logging.getLogger(__name__)
PathLike = str | os.PathLike[str] | None
DEFAULT_CLIENT = "mcp-client"  # who writes until the MCP client says its name
# the kinds of error carried over the pair, as the access raised them
ACCESS, UNAVAILABLE, DISABLED, INTERNAL = "access", "unavailable", "disabled", "internal"


class ForkedError(Exception):
    """A bug in the child while it answered (its log has the traceback)."""


class ForkedOpening:
    """The memory being opened by a child process; ``open`` is a ``Toolbox`` opener."""

    def __init__(self, pid: int, channel: socket.socket, client: str) -> None:
        self._pid = pid
        self._channel = channel
        self._client = client  # the name the child opened the memory under
        self._stream: io.BufferedIOBase = channel.makefile("rwb")
        self._lock = threading.Lock()
        self._used = False
        self._ended = False

    @classmethod
    def start(
        cls, data_dir: PathLike, config: PathLike, client: str, cwd: str | None = None
    ) -> ForkedOpening | None:
        """Fork the child that opens the memory for ``client``; None where there is no fork
        (the caller then opens it in its own process). Call it before any thread starts.
        ``cwd``: the project whose search the child warms while the SDK is imported."""
        if not hasattr(os, "fork"):
            return None
        try:
            ours, theirs = socket.socketpair()
        except OSError as exc:
            log.info("opening the memory here (no socket pair: %s)", exc)
            return None
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        try:
            pid = os.fork()
        except OSError as exc:
            log.info("opening the memory here (no fork: %s)", exc)
            ours.close()
            theirs.close()
            return None
        if pid == 0:  # pragma: no cover - the child; its behaviour is tested through the CLI
            ours.close()
            _child(theirs, data_dir, config, client, cwd)
        theirs.close()
        return cls(pid, ours, client)

    def open(self, data_dir: PathLike, config: PathLike, client: str) -> MemoryAccess:
        """The child's access the first time (waiting until it is open), named ``client``;
        on later calls (after it failed) the memory opened here, as ``open_access`` does."""
        with self._lock:
            first, self._used = not self._used, True
        if first:
            hello = self._receive()
            if hello is not None and "opened" in hello:
                access = ForkedAccess(self, str(hello["opened"]))
                if client != self._client:
                    access.set_client(client)
                return access
            self.close()
            if hello is not None and hello.get("kind") == UNAVAILABLE:
                raise Unavailable(str(hello.get("message")))
            log.info("the memory's process gave no access (%s); opening it here", hello)
        from ltm_desktop.agent.connect import open_access

        return open_access(data_dir, config, client)

    def request(self, message: dict[str, Any]) -> Any:
        """Send one request and return its result, raising the error the access raised."""
        with self._lock:
            if self._ended:
                raise Unavailable("the memory's process has ended")
            try:
                self._stream.write(_line(message))
                self._stream.flush()
            except (OSError, ValueError) as exc:
                raise Unavailable(f"the memory's process has ended ({exc})") from None
            answer = self._receive()
        if answer is None:
            raise Unavailable("the memory's process has ended")
        if "result" in answer:
            return answer["result"]
        raise _error(answer)

    def close(self) -> None:
        """End the child (it closes the memory first) and wait for it; idempotent."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
        for closing in (self._stream.close, self._channel.close):
            with contextlib.suppress(OSError):
                closing()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._pid, 0)

    def _receive(self) -> dict[str, Any] | None:
        """The child's next message; None once it has ended (or said nothing readable)."""
        try:
            line = self._stream.readline()
            message = json.loads(line) if line else None
        except (OSError, ValueError):
            return None
        return message if isinstance(message, dict) else None


class ForkedAccess:
    """A ``MemoryAccess`` whose calls the child answers; closing it ends the child."""

    def __init__(self, opening: ForkedOpening, description: str) -> None:
        self._opening = opening
        self._description = description

    def describe(self) -> str:
        return self._description

    def set_client(self, name: str) -> None:
        self._opening.request({"op": "client", "name": name})

    def call(self, method: str, params: dict[str, Any]) -> Any:
        return self._opening.request({"op": "call", "method": method, "params": params})

    def close(self) -> None:
        self._opening.close()


def _line(message: dict[str, Any]) -> bytes:
    """One message; ASCII JSON keeps any newline (and a lone surrogate) escaped."""
    return json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n"


def _error(answer: dict[str, Any]) -> Exception:
    """The exception the child's access raised, raised again here."""
    kind, message = answer.get("kind"), str(answer.get("message"))
    if kind == ACCESS:
        code = answer.get("code")
        param = answer.get("param")
        return AccessError(
            code if isinstance(code, int) else 0, message, param if isinstance(param, str) else None
        )
    if kind == DISABLED:
        return MemoryDisabled(message)
    if kind == UNAVAILABLE:
        return Unavailable(message)
    return ForkedError(message)


def _failure(exc: BaseException) -> dict[str, Any]:
    """An error, as a message the parent raises again (``_error``)."""
    if isinstance(exc, AccessError):
        return {"kind": ACCESS, "message": str(exc), "code": exc.code, "param": exc.param}
    if isinstance(exc, MemoryDisabled):
        return {"kind": DISABLED, "message": str(exc)}
    if isinstance(exc, Unavailable):
        return {"kind": UNAVAILABLE, "message": str(exc)}
    return {"kind": INTERNAL, "message": f"{type(exc).__name__}: {exc}"}


def _child(
    channel: socket.socket, data_dir: PathLike, config: PathLike, client: str, cwd: str | None
) -> None:
    """The forked process: open the memory, answer until the parent closes; never returns."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)  # the client's stdin and stdout are the parent's alone
        os.dup2(2, 1)
        os.close(null)
        with channel, channel.makefile("rwb") as stream:
            _answer(stream, data_dir, config, client, cwd)
    except OSError as exc:  # the parent went away (its client left before asking anything)
        log.info("the MCP server is gone: %s", exc)
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        log.exception("the memory's process failed")
        code = 1
    finally:
        logging.shutdown()
        os._exit(code)


def _warm(access: MemoryAccess, cwd: str | None) -> None:
    """Load what a search by meaning needs (the model, the project's and global's vectors)
    once the first call is answered (warming before it delayed the first result by about
    30 ms): otherwise the agent's next search waited for it (0.1-0.2 s at 100,000
    memories). A memory opened in this process is a ``DirectAccess`` with its service;
    anything else has nothing to warm."""
    service = getattr(access, "service", None)
    if service is None:
        return
    try:  # no cwd: this person's global scope (the team's comes with it)
        project = service.resolve_scope(cwd=cwd) if cwd else service.ambient.personal
        service.search.warm(project)
    except Exception:  # noqa: BLE001 - a search then loads what it needs, as before
        log.info("could not warm the search", exc_info=True)


def _answer(
    stream: io.BufferedIOBase, data_dir: PathLike, config: PathLike, client: str, cwd: str | None
) -> None:
    from ltm_desktop.agent.connect import open_access

    try:
        access = open_access(data_dir, config, client)
    except Exception as exc:
        if not isinstance(exc, Unavailable):
            log.exception("the memory could not be opened")
        stream.write(_line(_failure(exc)))
        stream.flush()
        return
    try:
        stream.write(_line({"opened": access.describe()}))
        stream.flush()
        warming = threading.Thread(target=_warm, args=(access, cwd), name="ltm-warm", daemon=True)
        for line in stream:
            request = json.loads(line)
            stream.write(_line(_handle(access, request)))
            stream.flush()
            if request.get("op") == "call" and warming.ident is None:
                warming.start()  # after the first tool's answer, which must not wait for it
    finally:
        access.close()


def _handle(access: MemoryAccess, request: dict[str, Any]) -> dict[str, Any]:
    try:
        if request["op"] == "client":
            access.set_client(request["name"])
            return {"result": None}
        return {"result": access.call(request["method"], request["params"])}
    except (AccessError, MemoryDisabled, Unavailable) as exc:
        return _failure(exc)
    except Exception as exc:
        log.exception("bug in the memory's process")
        return _failure(exc)
