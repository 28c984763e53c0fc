"""Every check CI runs, in order: lint, format, types, the docs site, then the test suite.

    .venv/bin/python scripts/check.py            # what .ci/run and the README run
    .venv/bin/python scripts/check.py -k search  # extra arguments go to pytest

Stops at the first failing step and names it; the exit status is that step's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def steps(pytest_args: list[str]) -> list[tuple[str, list[str]]]:
    python = sys.executable
    return [
        ("lint (ruff check)", [python, "-m", "ruff", "check", "."]),
        ("format (ruff format --check)", [python, "-m", "ruff", "format", "--check", "."]),
        ("types (mypy, configured in pyproject.toml)", [python, "-m", "mypy"]),
        # mkdocs.yml: a broken link or anchor, or a page missing from nav, fails it (site/).
        ("docs (mkdocs build --strict)", [python, "-m", "mkdocs", "build", "--strict", "-q"]),
        # --slow: every test, the ones a plain ``pytest`` leaves out included.
        ("tests (pytest --slow)", [python, "-m", "pytest", "--slow", *pytest_args]),
    ]


def main(argv: list[str]) -> int:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    # The tests start about a thousand Python processes (the hooks, the MCP server, the
    # CLI) and one per pytest-xdist worker: each compiles every module it imports unless
    # its bytecode is cached (in __pycache__/, which git ignores), so it is cached here
    # even where the environment turns that off (a fifth of the suite's CPU time).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name, command in steps(argv):
        print(f"==> {name}", flush=True)
        code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        if code != 0:
            print(f"==> FAILED: {name} (exit status {code})", file=sys.stderr, flush=True)
            return code
    print("==> all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
