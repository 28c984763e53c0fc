"""The real ``ltm-desktop`` console script, and what its errors must look like."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CONSOLE_SCRIPT = str(Path(sys.executable).parent / "ltm-desktop")
NOBODY = 65534  # the uid and gid of "another local user" in tests run as root


def assert_one_error_line(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    """A non-zero exit with one ``ltm-desktop: error: ...`` line holding ``expected``."""
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ltm-desktop: error: "), result.stderr
    for text in expected:
        assert text in lines[0]
    return lines[0]


def ltm(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real console script, on this data dir."""
    return subprocess.run(
        [CONSOLE_SCRIPT, *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
