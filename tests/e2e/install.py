"""Install the pinned agent CLIs the end-to-end tests run, once, into a cache folder.

The pins are ``tests/e2e/agents/package.json`` and its ``package-lock.json`` (one place:
change a version there, run ``npm install --package-lock-only`` in that folder). They
are installed with ``npm ci`` into ``$LTM_E2E_AGENTS_DIR``, else
``${XDG_CACHE_HOME:-~/.cache}/ltm-desktop-e2e/<hash of the pins>``; a folder that holds
a complete install of the same pins is used as it is (no download). ``.ci/run`` runs
this file before the tests; the tests' fixture calls ``install`` too.

Usage: ``python tests/e2e/install.py`` prints the folder holding claude, codex, gemini.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PINS = Path(__file__).resolve().parent / "agents"
PIN_FILES = ("package.json", "package-lock.json")
AGENTS = ("claude", "codex", "gemini")
COMPLETE = ".ltm-e2e-complete"  # written last: a folder without it is no install
NPM_TIMEOUT = 900  # seconds; a cold download of about 750 MB


class InstallError(Exception):
    """The CLIs are not installed and cannot be (no npm, or npm failed)."""


def pins_hash() -> str:
    digest = hashlib.sha256()
    for name in PIN_FILES:
        digest.update((PINS / name).read_bytes())
    return digest.hexdigest()[:16]


def install_dir() -> Path:
    explicit = os.environ.get("LTM_E2E_AGENTS_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "ltm-desktop-e2e" / pins_hash()


def bin_dir(folder: Path) -> Path:
    return folder / "node_modules" / ".bin"


def installed(folder: Path | None = None) -> Path | None:
    """The folder of the CLIs' commands when a complete install of these pins is there."""
    folder = folder or install_dir()
    marker = folder / COMPLETE
    if not marker.is_file() or marker.read_text("utf-8").strip() != pins_hash():
        return None
    commands = bin_dir(folder)
    return commands if all((commands / name).exists() for name in AGENTS) else None


@contextmanager
def _only_one_installer(folder: Path) -> Iterator[None]:
    """Held while installing into ``folder``: the test workers (pytest-xdist) each ask for
    the CLIs at once; the others wait, then find the install done. Without it, a second
    installer finishing later removed the first one's folder, as incomplete, while the
    first one's tests were running the CLIs from it."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock; the rename below still never shows half an install
        yield
        return
    with open(folder.parent / f".{folder.name}.lock", "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits for another installer to finish
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def install(folder: Path | None = None) -> Path:
    """The folder of the CLIs' commands, installing them first if needed."""
    folder = folder or install_dir()
    found = installed(folder)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise InstallError("node and npm are needed to install the agent CLIs (not on PATH)")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _only_one_installer(folder):
        return installed(folder) or _npm_ci(npm, folder)


def _npm_ci(npm: str, folder: Path) -> Path:
    # npm ci in a fresh sibling folder, renamed into place: a run killed half-way (or two
    # runs at once) never leaves a folder that looks installed and is not.
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for name in PIN_FILES:
            shutil.copy(PINS / name, work / name)
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
        )
        if done.returncode != 0:
            raise InstallError(f"npm ci failed ({done.returncode}):\n{done.stderr[-3000:]}")
        (work / COMPLETE).write_text(pins_hash() + "\n", "utf-8")
        if folder.exists():  # an incomplete install, or other pins under a chosen name
            shutil.rmtree(folder)
        try:
            work.rename(folder)
        except OSError:  # another run put its install there first
            if installed(folder) is None:
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = installed(folder)
    if found is None:
        raise InstallError(f"npm ci succeeded but {folder} lacks {', '.join(AGENTS)}")
    return found


def main() -> int:
    try:
        sys.stdout.write(f"{install()}\n")
    except (InstallError, OSError, subprocess.TimeoutExpired) as exc:
        sys.stderr.write(f"install.py: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
