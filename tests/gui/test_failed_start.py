"""A start that fails (#30) leaves no demo folder and no socket behind, and says why in
one line."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop import cli
from ltm_desktop.api.runtime import ENV_SOCKET
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.paths import ENV_DATA_DIR


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """(temp folder, runtime folder) of this test: where a demo and its socket go (the
    runtime folder is short: a socket path has a length limit)."""
    temp, run = tmp_path / "tmp", Path(tempfile.mkdtemp(prefix="ltm-run-"))
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(ENV_SOCKET, raising=False)
    monkeypatch.delenv(ENV_DATA_DIR, raising=False)
    monkeypatch.setattr(sys, "setswitchinterval", lambda _interval: None)
    yield temp, run
    shutil.rmtree(run, ignore_errors=True)


def left_behind(temp: Path, run: Path) -> list[str]:
    return sorted(
        str(p.relative_to(p.parents[1]))
        for p in [*temp.iterdir(), *run.rglob("*")]
        if not p.is_dir() or p.name.startswith("ltm-desktop-demo")
    )


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("ltm-desktop: error: ")
    return lines[0]


def test_a_demo_whose_data_cannot_be_opened_leaves_no_folder(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unusable(*_args: object, **_kwargs: object) -> None:
        raise LtmError("the data dir is unusable")

    monkeypatch.setattr("ltm_desktop.desktop.open_launch", unusable)
    assert cli.main(["--demo"]) == cli.EXIT_ERROR
    assert "the data dir is unusable" in one_line_error(capsys)
    assert left_behind(*places) == []


def test_a_window_that_fails_to_build_leaves_no_demo_folder_or_socket(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bound: list[str] = []

    def broken_window(*_args: object, api: object, **_kwargs: object) -> None:
        endpoint = getattr(api, "endpoint", None)
        assert endpoint is not None, getattr(api, "error", None)  # bound before the window
        bound.append(endpoint)
        raise RuntimeError("the window could not be built")

    monkeypatch.setattr("ltm_desktop.gui.app.MainWindow", broken_window)
    assert cli.main(["--demo"]) == cli.EXIT_ERROR
    assert "the window could not be built" in one_line_error(capsys)
    assert bound
    assert left_behind(*places) == []
