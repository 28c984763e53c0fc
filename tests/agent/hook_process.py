"""Running the real ``ltm-desktop hook`` console script, and the fixtures it reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

EXECUTABLE = Path(sys.executable).with_name("ltm-desktop")
FIXTURES = Path(__file__).with_name("hook_fixtures")
AGENTS = ("claude-code", "codex", "gemini", "generic")
EVENTS = ("session-start", "user-prompt", "pre-compact", "stop", "session-end")


def uncommented(text: str) -> str:
    """A fixture without its leading ``//`` comment lines (which cite its source)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("//"))


def payloads(agent: str) -> dict[str, dict[str, Any]]:
    text = (FIXTURES / f"{agent}.payloads.json").read_text(encoding="utf-8")
    loaded: dict[str, dict[str, Any]] = json.loads(uncommented(text))
    return loaded


def transcript(agent: str) -> Path:
    return FIXTURES / f"{agent}.transcript.jsonl"


def payload(agent: str, event: str, cwd: Path | str, transcript_path: Path | None = None) -> bytes:
    """The fixture payload of ``agent``'s ``event`` with the placeholders filled in."""
    path = transcript_path or transcript(agent)
    data = payloads(agent)[event]
    filled = {
        key: (
            value.replace("{cwd}", str(cwd)).replace("{transcript}", str(path))
            if isinstance(value, str)
            else value
        )
        for key, value in data.items()
    }
    return json.dumps(filled).encode()


@dataclass
class HookResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_hook(
    agent: str,
    event: str,
    stdin: bytes,
    data_dir: Path,
    *,
    config: Path | None = None,
    env: dict[str, str] | None = None,
    closed: int | None = None,
) -> HookResult:
    """``ltm-desktop --data-dir DATA [--config FILE] hook AGENT EVENT`` with ``stdin``."""
    args = ["--data-dir", str(data_dir)]
    if config is not None:
        args += ["--config", str(config)]
    return run_ltm_desktop([*args, "hook", agent, event], stdin, env=env, closed=closed)


def run_ltm_desktop(
    args: list[str],
    stdin: bytes,
    *,
    env: dict[str, str] | None = None,
    closed: int | None = None,
) -> HookResult:
    """``ltm-desktop ARGS`` with ``stdin``; started with descriptor ``closed`` (0, 1 or 2)
    closed, as a shell's ``<&-``, ``>&-`` or ``2>&-`` would (its output is then empty)."""
    started = time.monotonic()
    done = subprocess.run(
        [str(EXECUTABLE), *args],
        input=None if closed == 0 else stdin,
        stdin=subprocess.DEVNULL if closed == 0 else None,
        capture_output=True,
        timeout=20,
        env={**os.environ, **(env or {})},
        preexec_fn=None if closed is None else lambda: os.close(closed),
    )
    return HookResult(
        done.returncode,
        done.stdout.decode("utf-8"),
        done.stderr.decode("utf-8", errors="replace"),
        time.monotonic() - started,
    )


def hook_log_path() -> Path:
    """The hooks' log file (in the test's own XDG_STATE_HOME)."""
    return Path(platformdirs.user_log_dir("ltm-desktop", appauthor=False)) / "hooks.log"


def hook_log() -> str:
    """What the hooks' log file holds ("" when there is none)."""
    path = hook_log_path()
    return path.read_text(encoding="utf-8") if path.is_file() else ""
