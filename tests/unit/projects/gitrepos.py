"""Real repositories made with git for the tests (the product never runs git)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def clone_of(path: Path, url: str | None, *, commit: bool = False) -> Path:
    """A repository at ``path`` whose ``origin`` is ``url`` (none: no remote)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if url is not None:
        git(path, "remote", "add", "origin", url)
    if commit:
        (path / "README").write_text("shop\n")
        git(path, "add", "README")
        git(path, "commit", "-qm", "first")
    return path
