"""A sandbox for one real agent CLI run: its own HOME, project, data dir and network.

Everything the CLI, its hooks and its MCP server touch lives under one temporary folder:
HOME (with XDG dirs and CODEX_HOME inside), a git project, ltm-desktop's data dir and the
runtime dir. The network is the fake model server on 127.0.0.1; proxies point at a
closed loopback port, so a request that escapes the fake fails at once instead of
leaving the machine.

ltm-desktop runs through a capture wrapper named ``ltm-desktop`` (so ``integrate``
writes its path, and recognizes its entries, as it would the console script's): it runs
the installed ltm-desktop, and for ``hook`` also keeps each event's stdin, stdout and
stderr, which is what the agents really send our hooks.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LTM = Path(sys.executable).parent / "ltm-desktop"  # this venv's console script
TIMEOUT = 180  # seconds for one CLI turn; generous: the machine is shared
MARKER = "E2E-SEED-MARKER-kestrel"  # once in MEMORY.md: in the seed's content, not its title
PROMPT = "Remember how this project deploys, then look it up again."

WRAPPER = '''#!{python}
"""ltm-desktop, keeping what each hook event received and answered (e2e capture)."""
import os, subprocess, sys, time
source = {source!r}
if source:  # another checkout's ltm_desktop (LTM_E2E_SOURCE), for the hooks too
    sys.path.insert(0, source)
    os.environ["PYTHONPATH"] = source
args = sys.argv[1:]
if "hook" in args:
    payload = sys.stdin.buffer.read()
    done = subprocess.run([{real!r}, *args], input=payload, capture_output=True)
    stem = os.path.join({captures!r}, "%d-%d-%s" % (time.time_ns(), os.getpid(), args[-1]))
    for suffix, data in ((".stdin.json", payload), (".stdout", done.stdout),
                         (".stderr", done.stderr),
                         (".argv", ("\\n".join(args) + "\\nrc=%d\\n" % done.returncode).encode())):
        with open(stem + suffix, "wb") as file:
            file.write(data)
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    sys.exit(done.returncode)
from ltm_desktop.cli import main
sys.exit(main())
'''


def closed_port() -> int:
    """A loopback port where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Sandbox:
    """One agent run's private world."""

    root: Path
    node_bin: Path  # the folder holding claude, codex and gemini
    env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def hook_captures(self) -> Path:
        return self.root / "hook-captures"

    @property
    def wrapper(self) -> Path:
        return self.root / "bin" / "ltm-desktop"

    @property
    def log_file(self) -> Path:
        return self.home / ".local" / "state" / "ltm-desktop" / "log" / "hooks.log"

    def create(self, model_url: str) -> Sandbox:
        for folder in (self.home, self.project, self.hook_captures, self.wrapper.parent):
            folder.mkdir(parents=True, exist_ok=True)
        runtime = self.root / "run"
        runtime.mkdir(mode=0o700)
        self.wrapper.write_text(
            WRAPPER.format(
                python=sys.executable,
                real=str(LTM),
                captures=str(self.hook_captures),
                source=os.environ.get("LTM_E2E_SOURCE", ""),
            ),
            encoding="utf-8",
        )
        self.wrapper.chmod(0o755)
        proxy = f"http://127.0.0.1:{closed_port()}"
        path = os.pathsep.join(
            [
                str(self.node_bin),
                str(Path(sys.executable).parent),
                os.environ.get("PATH", "/usr/bin:/bin"),
            ]
        )
        self.env = {
            "HOME": str(self.home),
            "USER": os.environ.get("USER", "e2e"),
            "PATH": path,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": str(runtime),
            "CODEX_HOME": str(self.home / ".codex"),
            "TMPDIR": str(self._tmp()),
            # Nothing leaves the machine: the model is on 127.0.0.1, anything else fails.
            "HTTP_PROXY": proxy,
            "HTTPS_PROXY": proxy,
            "ALL_PROXY": proxy,
            "http_proxy": proxy,
            "https_proxy": proxy,
            "all_proxy": proxy,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "CI": "1",
            "NO_COLOR": "1",
            "DISABLE_TELEMETRY": "1",
            "DO_NOT_TRACK": "1",
            "MODEL_URL": model_url,
        }
        self._git_project()
        return self

    def _tmp(self) -> Path:
        tmp = self.root / "tmp"
        tmp.mkdir(exist_ok=True)
        return tmp

    def _git_project(self) -> None:
        (self.project / "README.md").write_text("# kestrel\n\nA small service.\n", "utf-8")
        git = {
            **self.env,
            "GIT_AUTHOR_NAME": "e2e",
            "GIT_AUTHOR_EMAIL": "e2e@localhost",
            "GIT_COMMITTER_NAME": "e2e",
            "GIT_COMMITTER_EMAIL": "e2e@localhost",
        }
        for args in (
            ["init", "-q", "-b", "main"],
            ["add", "README.md"],
            ["commit", "-q", "-m", "start"],
        ):
            subprocess.run(["git", *args], cwd=self.project, env=git, check=True, timeout=60)

    def ltm(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """ltm-desktop on this sandbox's data dir (through the wrapper); must succeed."""
        done = subprocess.run(
            [str(self.wrapper), "--data-dir", str(self.data_dir), *args],
            cwd=cwd or self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"ltm-desktop {args} failed:\n{done.stdout}\n{done.stderr}"
        return done

    def seed(self) -> None:
        """One memory of the project, whose MARKER the session-start hook must show."""
        source = self.root / "seed.md"
        source.write_text(
            f"# Notes\n\n- The staging database is called tern-staging.\n  Seed marker: {MARKER}\n",
            encoding="utf-8",
        )
        self.ltm("import", "--cwd", str(self.project), "--format", "agents-md", str(source))

    def run(
        self, argv: list[str], extra_env: dict[str, str] | None = None, stdin: str = ""
    ) -> subprocess.CompletedProcess[str]:
        """One CLI run in the project; its output is kept for the captures."""
        return subprocess.run(
            argv,
            cwd=self.project,
            env={**self.env, **(extra_env or {})},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    # --- what ltm-desktop stored ----------------------------------------------------

    def query(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        """Rows of the data dir's database, opened read-only."""
        uri = f"file:{self.data_dir / 'ltm.sqlite'}?mode=ro"
        with sqlite3.connect(uri, uri=True) as db:
            db.row_factory = sqlite3.Row
            return list(db.execute(sql, params))

    def hook_events(self) -> list[dict[str, Any]]:
        """Every hook event the agent ran, in order: event, payload, stdout, stderr."""
        events = []
        for argv in sorted(
            self.hook_captures.glob("*.argv"), key=lambda p: int(p.name.split("-")[0])
        ):
            stem = str(argv)[: -len(".argv")]
            raw = Path(stem + ".stdin.json").read_bytes()
            try:
                payload: Any = json.loads(raw)
            except ValueError:
                payload = raw.decode("utf-8", "replace")
            events.append(
                {
                    "argv": argv.read_text("utf-8").splitlines(),
                    "event": argv.read_text("utf-8").splitlines()[-2],
                    "payload": payload,
                    "stdout": Path(stem + ".stdout").read_text("utf-8", "replace"),
                    "stderr": Path(stem + ".stderr").read_text("utf-8", "replace"),
                }
            )
        return events

    def hook_log(self) -> str:
        return (
            "".join(
                p.read_text("utf-8", "replace")
                for p in sorted(self.log_file.parent.glob("hooks.log*"))
            )
            if self.log_file.parent.is_dir()
            else ""
        )

    def save_captures(
        self,
        dest: Path,
        requests: list[dict[str, Any]],
        done: subprocess.CompletedProcess[str] | None,
    ) -> None:
        """What the agent really did, for the engineers working on the hooks: every hook
        event's payload and answer, the transcripts they named, the model requests, the
        CLI's output and its config files as the run left them."""
        import shutil

        dest.mkdir(parents=True, exist_ok=True)
        hooks = dest / "hooks"
        shutil.rmtree(hooks, ignore_errors=True)
        hooks.mkdir()
        transcripts: set[str] = set()
        for number, event in enumerate(self.hook_events(), start=1):
            stem = hooks / f"{number:02d}-{event['event']}"
            payload = event["payload"]
            stem.with_suffix(".stdin.json").write_text(
                json.dumps(payload, indent=2) if not isinstance(payload, str) else payload, "utf-8"
            )
            stem.with_suffix(".stdout").write_text(event["stdout"], "utf-8")
            if event["stderr"]:
                stem.with_suffix(".stderr").write_text(event["stderr"], "utf-8")
            if isinstance(payload, dict) and payload.get("transcript_path"):
                transcripts.add(str(payload["transcript_path"]))
        for number, name in enumerate(sorted(transcripts), start=1):
            if Path(name).is_file():
                shutil.copy(name, dest / f"transcript-{number}{Path(name).suffix}")
                (dest / f"transcript-{number}.path").write_text(name + "\n", "utf-8")
        (dest / "model-requests.json").write_text(json.dumps(requests, indent=1), "utf-8")
        if done is not None:
            (dest / "cli-stdout.txt").write_text(done.stdout, "utf-8")
            (dest / "cli-stderr.txt").write_text(done.stderr, "utf-8")
        (dest / "hooks.log").write_text(self.hook_log(), "utf-8")
        configs = dest / "home-after-run"
        shutil.rmtree(configs, ignore_errors=True)
        for rel in (
            ".claude.json",
            ".claude/settings.json",
            ".codex/config.toml",
            ".gemini/settings.json",
            ".gemini/trustedFolders.json",
        ):
            source = self.home / rel
            if source.is_file():
                (configs / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, configs / rel)
