"""Project identity: what resolving a working directory to its project costs a hook turn.

Run on demand (not part of the test suite):

    .venv/bin/python bench/machines/identity_bench.py [--repeat 5000]

Real repositories made with git in a temporary directory (git runs here, never in the
product): a clone's top, a folder five levels down, a linked worktree, a directory in no
repository (the walk goes up to ``/``). Each is resolved warm (the file system's caches
filled) by ``identify(cwd, "remote")``; the baseline, measured in the same run, is the path
identity ``identify(cwd, "path")`` (what every turn cost before), and ``git config --get
remote.origin.url`` as a process, what the reader avoids. The target: well under 1 ms.
Then the service's whole resolve on SQLite (the remote identity adds one indexed read of
the path's row; nothing is written when nothing changed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ltm_desktop.core.projects.identity import identify  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.config import Settings  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.store import open_store  # noqa: E402

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def timed_us(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(p50, p95) in microseconds over ``repeat`` calls, after 50 warm-up calls."""
    for _ in range(50):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clone = root / "src" / "shop"
        clone.mkdir(parents=True)
        git(clone, "init", "-q")
        git(clone, "remote", "add", "origin", "git@github.com:acme/shop.git")
        git(clone, "config", "url.git@github.com:.insteadOf", "gh:")
        (clone / "README").write_text("shop\n")
        git(clone, "add", "README")
        git(clone, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "first")
        deep = clone / "a" / "b" / "c" / "d" / "e"
        deep.mkdir(parents=True)
        tree = root / "src" / "shop-feature"
        git(clone, "worktree", "add", "-q", "-b", "feature", str(tree))
        plain = root / "plain" / "x" / "y"
        plain.mkdir(parents=True)
        cases = {"clone top": clone, "5 levels down": deep, "worktree": tree, "no repo": plain}
        print(f"{'directory':<14} {'remote p50':>11} {'p95':>7} {'path p50':>9} {'x':>5}")
        for label, where in cases.items():
            cwd = str(where)
            remote = timed_us(partial(identify, cwd, "remote"), args.repeat)
            path = timed_us(partial(identify, cwd, "path"), args.repeat)
            print(
                f"{label:<14} {remote[0]:>9.1f}us {remote[1]:>5.1f}us {path[0]:>7.1f}us "
                f"{remote[0] / path[0]:>5.1f}"
            )
        spawn = timed_us(
            lambda: subprocess.run(
                ["git", "config", "--get", "remote.origin.url"],
                cwd=deep,
                env=ENV,
                capture_output=True,
                check=True,
            ),
            50,
        )
        print(f"git config as a process: p50 {spawn[0] / 1000:.2f} ms")
        for mode in ("path", "remote"):  # the service's resolve: + one indexed read (remote)
            service = MemoryService(
                open_store(root / mode / "ltm.sqlite", root / mode / "backups"),
                DataPaths(root / mode),
                Settings(projects_identity=mode),
            )
            service.resolve_scope(cwd=str(deep), register=True)
            took = timed_us(partial(service.resolve_scope, cwd=str(deep)), args.repeat)
            print(
                f"service.resolve_scope, {mode} identity, SQLite: p50 {took[0]:.1f}us "
                f"p95 {took[1]:.1f}us"
            )
            service.close()


if __name__ == "__main__":
    main()
