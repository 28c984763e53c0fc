"""Starting the desktop app where no window can open is a clear error, not a Qt abort."""

from __future__ import annotations

import pytest

from ltm_desktop.cli import main
from ltm_desktop.desktop import display_problem


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({}, True),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ],
)
def test_display_detection(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], problem: bool
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("sys.platform", "linux")
    assert (display_problem() is not None) == problem


def test_no_display_explains_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "error: no display found" in err
    assert "ltm-desktop serve" in err
