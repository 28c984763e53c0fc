"""The command line: status, config, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltm_desktop import __version__
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.cli import main
from ltm_desktop.embedding.static import MODEL
from ltm_desktop.launching import open_service


def made(data_dir: Path) -> Path:
    """A data dir with its database, as the app or ``serve`` leaves it."""
    open_service(data_dir).service.close()
    return data_dir


def test_status_reports_paths_and_scopes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data-dir", str(made(tmp_path / "d")), "status", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data_dir"] == str(tmp_path / "d")
    assert report["db_path"] == str(tmp_path / "d" / "ltm.sqlite")
    assert report["database_exists"] is True
    assert report["socket"] == str(socket_for(tmp_path / "d"))
    assert report["schema_version"] >= 1
    assert [s["project_id"] for s in report["scopes"]] == ["global"]
    assert (report["identity"], report["global"], report["person"]) == ("path", "shared", None)
    semantic = report["semantic_search"]
    assert (semantic["model"], semantic["problem"]) == (MODEL, None)


def test_status_says_what_global_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One person on SQLite: one global scope; "personal" with a name: that person's own."""
    data = made(tmp_path / "d")
    assert main(["--data-dir", str(data), "status"]) == 0
    said = capsys.readouterr().out
    assert "scopes:    projects by path; one global scope for everyone on this database" in said
    config = tmp_path / "people.toml"
    config.write_text('[people]\nname = "ana"\nglobal = "personal"\n', encoding="utf-8")
    assert main(["--data-dir", str(data), "--config", str(config), "status"]) == 0
    said = capsys.readouterr().out
    assert "scopes:    projects by path; global is ana's own, beside the team's" in said


def test_status_says_how_search_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    assert main(["--data-dir", str(made(tmp_path / "d")), "status"]) == 0
    assert f"search:    by words and meaning ({MODEL}); 0 of 0 memories" in (
        capsys.readouterr().out
    )
    config.write_text('[search]\nembedder = "none"\n')
    assert main(["--data-dir", str(tmp_path / "d"), "--config", str(config), "status"]) == 0
    assert 'search:    by words only ([search] embedder = "none")' in capsys.readouterr().out


def test_data_dir_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LTM_DESKTOP_DATA_DIR", str(made(tmp_path / "env")))
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert f"database:  {tmp_path / 'env' / 'ltm.sqlite'} (schema v" in out


@pytest.mark.parametrize("command", [[], ["--json"]])
def test_status_of_a_data_dir_without_a_database_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """A new install, or a mistyped --data-dir: said so, and no empty database made."""
    typo = tmp_path / "dta"
    assert (
        main(["--data-dir", str(typo), "--config", str(tmp_path / "none.toml"), "status", *command])
        == 0
    )
    out = capsys.readouterr().out
    assert not typo.exists()
    if command:
        report = json.loads(out)
        assert (report["database_exists"], report["scopes"]) == (False, [])
        assert report["db_path"] == str(typo / "ltm.sqlite")
    else:
        assert f"database:  none yet at {typo / 'ltm.sqlite'}" in out
        assert "check --data-dir" in out
        assert f"config:    {tmp_path / 'none.toml'} (not present; defaults apply)" in out


@pytest.mark.parametrize(
    "command", [["verify"], ["export"], ["erase", "mem_0"], ["empty-trash", "--project", "global"]]
)
def test_commands_that_look_or_erase_refuse_a_data_dir_without_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    typo = tmp_path / "dta"
    assert main(["--data-dir", str(typo), *command]) == 1
    err = capsys.readouterr().err
    assert f"there is no database at {typo / 'ltm.sqlite'}" in err
    assert "pass the right --data-dir" in err
    assert not typo.exists()


def test_corrupt_database_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ltm.sqlite").write_text("my notes, not a database")
    assert main(["--data-dir", str(tmp_path), "status"]) == 1
    err = capsys.readouterr().err
    assert "not an SQLite database" in err
    assert "Traceback" not in err
    assert (tmp_path / "ltm.sqlite").read_text() == "my notes, not a database"


def test_malformed_config_warns_and_still_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[precis]\nbudget_bytes = 'lots'\n")
    assert main(["--data-dir", str(tmp_path / "d"), "--config", str(config), "status"]) == 0
    err = capsys.readouterr().err
    assert str(config) in err
    assert "budget_bytes" in err


def test_config_defaults_is_valid_toml(capsys: pytest.CaptureFixture[str]) -> None:
    import tomllib

    assert main(["config", "--defaults"]) == 0
    assert tomllib.loads(capsys.readouterr().out)["precis"]["budget_bytes"] == 5120


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        ["status", "--bogus"],
        ["--data-dir"],
        ["serve", "--workers", "0"],
        ["serve", "--workers", "x"],
    ],
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_console_script_version(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ltm_desktop", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == f"ltm-desktop {__version__}"


@pytest.mark.parametrize(
    "argv",
    [
        ["--data-dir", "{d}", "status", "--json"],
        ["status", "--data-dir", "{d}", "--json"],
        ["status", "--json", "--data-dir", "{d}"],
        ["-v", "status", "--data-dir", "{d}", "--json"],
    ],
)
def test_global_options_work_before_and_after_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    data_dir = str(tmp_path / "here")
    assert main([a.replace("{d}", data_dir) for a in argv]) == 0
    assert json.loads(capsys.readouterr().out)["data_dir"] == data_dir


def test_an_option_after_the_command_wins_and_absence_resets_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[precis]\nbudget_bytes = 'lots'\n")
    argv = ["--config", str(config), "status", "--data-dir", str(tmp_path / "d"), "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["config_path"] == str(config)  # given before, kept after
    assert "budget_bytes" in err
    assert main(["--data-dir", "x", "status", "--data-dir", str(tmp_path / "d2"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data_dir"] == str(tmp_path / "d2")


def test_a_reader_that_stops_early_is_not_an_error(tmp_path: Path) -> None:
    """``ltm-desktop tools | head -1``: the pipe closes before the output is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before a byte is written
    try:
        result = subprocess.run(
            [Path(sys.executable).with_name("ltm-desktop"), "tools"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize("listen", ["0.0.0.0:80", "127.0.0.1"])
def test_status_warns_of_an_http_listen_the_app_could_not_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], listen: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[http]\nlisten = "{listen}"\n')
    data = made(tmp_path / "d")
    assert main(["--data-dir", str(data), "--config", str(config), "status", "--json"]) == 0
    captured = capsys.readouterr()
    [problem] = json.loads(captured.out)["config_problems"]
    assert problem.startswith("the HTTP API would not be served ([http] listen): ")
    assert f"ltm-desktop: warning: {problem}" in captured.err
