"""The edge that never fails: whatever happens, the agent gets a valid result and exit 0.

Any error (a missing or locked database, a server that is down, stdin that is not the
agent's JSON, a transcript that cannot be read, a bug) becomes the agent's empty result
and a line in the log file; nothing else is ever printed on stdout, and exit 2 (which
blocks the agent) never happens. A watchdog answers for the hook and exits 0 at the
deadline if anything hangs; it starts first, before even the log file is opened.

Nothing else is written to stderr either (the agent may show it): the log's own errors
are silent, and a closed stdin, stdout or stderr (``>&-``) is no error.
"""

from __future__ import annotations

import logging
import os
import select
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from ltm_desktop.agent.hooks import output
from ltm_desktop.agent.hooks.events import AGENTS, CLIENT_NAMES, EVENTS, SESSION_END
from ltm_desktop.agent.hooks.hook_log import start_logging
from ltm_desktop.agent.hooks.payload import MAX_PAYLOAD
from ltm_desktop.core.errors import ConfigError, LtmError

if TYPE_CHECKING:
    from ltm_desktop.agent.access import MemoryAccess
    from ltm_desktop.agent.hooks.session_state import SessionStates

log = logging.getLogger("ltm_desktop.hooks")

DEADLINE = 1.5  # seconds from start to a result, whatever happens (then exit 0)
DEADLINES = {SESSION_END: 1.0}  # Claude Code gives all SessionEnd hooks 1.5 s together
# A slower machine whose agent waits longer may allow more (every event alike); the
# tests' machines are loaded, and their hooks must finish their work, not race the clock.
ENV_DEADLINE = "LTM_DESKTOP_HOOK_DEADLINE_S"
DEADLINE_RANGE = (0.5, 60.0)
STDIN_WAIT = 0.5  # for the payload (an agent may never close stdin)
DRAIN_SECONDS = 0.05  # past the wait, for reading what is already there


def deadline_for(event: str | None) -> tuple[float, str]:
    """Seconds the hook may take: ``$LTM_DESKTOP_HOOK_DEADLINE_S`` when it is a number in
    ``DEADLINE_RANGE``, else the event's own; and why the variable was ignored ("": it
    was not)."""
    own = DEADLINES.get(event or "", DEADLINE)
    chosen = os.environ.get(ENV_DEADLINE, "").strip()
    if not chosen:
        return own, ""
    try:
        seconds = float(chosen)
    except ValueError:
        seconds = -1.0
    low, high = DEADLINE_RANGE
    if low <= seconds <= high:
        return seconds, ""
    return own, f"{ENV_DEADLINE}={chosen!r} is not {low:g}-{high:g} seconds; ignored"


class UnknownHook(LtmError):
    """The command line names an agent or an event there is no hook for."""


class BadCommandLine(LtmError):
    """The hook's command line is malformed (argparse's complaint is the message)."""


class Result:
    """Writes the one result to stdout, exactly once, from whichever thread comes first."""

    def __init__(self, stream: TextIO | None, empty: str) -> None:
        self._stream = stream
        self._empty = empty
        self._lock = threading.Lock()
        self.done = False

    def write(self, text: str) -> bool:
        """Whether this call wrote ``text`` to the agent (False: another result was
        written first, or nobody is listening)."""
        with self._lock:
            if self.done:
                return False
            self.done = True
            if self._stream is None:  # started with stdout closed: nobody to answer
                return False
            try:  # UTF-8 whatever the locale says: cli.main set stdout so
                self._stream.write(text + "\n" if text else "")
                self._stream.flush()
            except (OSError, ValueError):  # the agent stopped listening
                log.warning("the result could not be written: the agent stopped listening")
                return False
            return True

    def empty(self) -> None:
        self.write(self._empty)


def _watchdog(deadline: float, result: Result) -> None:
    time.sleep(max(0.0, deadline - time.monotonic()))
    if not result.done:
        log.warning("no result within the deadline; answered empty")
    result.empty()
    logging.shutdown()
    os._exit(0)  # a hook that hangs (or a shutdown that does) must not hold the agent up


def read_stdin(stream: BinaryIO | None, deadline: float, limit: int = MAX_PAYLOAD + 1) -> bytes:
    """What the agent wrote, up to EOF, a complete JSON object, ``limit`` bytes (stdin may
    be /dev/zero: 0.8 GB in the half second), or the deadline. What is already there is
    read even after the deadline: on a busy machine, starting Python can take longer
    than the wait, and the payload was waiting all along (5 of 8 runs lost it)."""
    import json

    if stream is None:  # started with stdin closed
        return b""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return b""
    chunks: list[bytes] = []
    room = limit
    stop_at = max(deadline, time.monotonic()) + DRAIN_SECONDS
    while room > 0:
        now = time.monotonic()
        if now > stop_at:  # a writer still trickling past the wait: stop all the same
            break
        remaining = max(0.0, deadline - now)  # 0: only what is there now
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
            data = os.read(fd, min(65536, room)) if ready else b""
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
        room -= len(data)
        if data.rstrip().endswith(b"}"):
            try:
                json.loads(b"".join(chunks))
                break
            except (ValueError, RecursionError):
                pass
    return b"".join(chunks)


def run(
    agent: str,
    event: str,
    data_dir: str | None,
    config: str | None,
    *,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    usage_error: str | None = None,
) -> int:
    """Handle one hook event; always 0. With ``usage_error`` (the command line was
    malformed), only the agent's stdin is read, and the reason logged."""
    started = time.monotonic()
    seconds, ignored = deadline_for(event)
    deadline = started + seconds
    result = Result(stdout if stdout is not None else sys.stdout, output.empty(agent))
    threading.Thread(target=_watchdog, args=(deadline, result), daemon=True).start()
    logging.raiseExceptions = False  # a log that cannot be written prints no traceback
    start_logging(f"{agent or '?'} {event or '?'}")
    if ignored:
        log.warning("%s", ignored)
    saved, sys.stdout = sys.stdout, sys.stderr  # a stray print must not reach the agent
    if stdin is None:
        stdin = sys.stdin.buffer if sys.stdin is not None else None
    try:
        if usage_error is not None:
            read_stdin(stdin, started + STDIN_WAIT)  # the agent's write must not fail
            raise BadCommandLine(f"bad command line ({usage_error}); nothing done")
        context, after_answer = _handle(agent, event, data_dir, config, stdin, started, deadline)
        if result.write(output.render(agent, event, context)):
            for step in after_answer:  # e.g. what the agent was told is marked told
                step()
    except BaseException as exc:  # the edge: every failure ends as the empty result
        if isinstance(exc, LtmError | OSError):
            log.warning("failed open (empty result): %s", exc)
        else:
            log.exception("failed open (empty result) on an unexpected error")
        result.empty()
    finally:
        sys.stdout = saved
        log.info("done in %.0f ms", (time.monotonic() - started) * 1000)
    return 0


def _handle(
    agent: str,
    event: str,
    data_dir: str | None,
    config: str | None,
    stdin: BinaryIO | None,
    started: float,
    deadline: float,
) -> tuple[str | None, list[Callable[[], None]]]:
    """The context for the agent, and what to do once it has it."""
    from ltm_desktop.agent.hooks.handlers import HANDLERS, HookRun
    from ltm_desktop.agent.hooks.payload import parse
    from ltm_desktop.core.settings.config import load_settings
    from ltm_desktop.core.settings.paths import resolve_config_path

    raw = read_stdin(stdin, started + STDIN_WAIT)
    if agent not in AGENTS or event not in EVENTS:
        raise UnknownHook(
            f"no hook for agent {agent!r} and event {event!r}; agents: {', '.join(AGENTS)}; "
            f"events: {', '.join(EVENTS)}"
        )
    config_path = resolve_config_path(config)
    _check_config(config_path)
    settings, warnings = load_settings(config_path)
    for warning in warnings:
        log.warning("%s", warning)
    if not settings.memory_enabled:
        log.info("long-term memory is disabled in the config ([memory] enabled); nothing done")
        return None, []
    if settings.memory_backend != "sqlite":
        log.info(
            "the %r memory backend is not implemented yet; nothing done", settings.memory_backend
        )
        return None, []
    hook = parse(agent, event, raw)
    opener = _opener(data_dir, config, CLIENT_NAMES[agent])
    run = HookRun(hook, settings, opener, _states(agent), data_dir, config, deadline)
    try:
        return HANDLERS[event](run), run.after_answer
    finally:
        run.close()


def _check_config(path: Path) -> None:
    """Refuse a config file that is not a regular file before anything opens it: reading a
    FIFO waits for a writer (and the database's opening reads the file again), /dev/zero
    never ends. Raises ConfigError."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # absent (defaults) or unreadable: load_settings says which
    if not stat.S_ISREG(mode):
        from ltm_desktop.core.files.atomic_files import file_kind

        raise ConfigError(f"the config file {path} is not a regular file but {file_kind(mode)}")


def _opener(data_dir: str | None, config: str | None, client: str) -> Callable[[], MemoryAccess]:
    from ltm_desktop.agent.hooks.opening import open_memory

    return lambda: open_memory(data_dir, config, client)


def _states(agent: str) -> SessionStates | None:
    from ltm_desktop.agent.hooks.session_state import SessionStates, state_dir

    try:
        return SessionStates(state_dir(), agent)
    except (LtmError, OSError) as exc:
        log.warning("no session state (the nudge is off for this run): %s", exc)
        return None
