"""Config file: defaults, overrides, and malformed files that must not stop the app."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from ltm_desktop.core.settings.config import Settings, load_settings, render_default_config
from ltm_desktop.core.settings.paths import resolve_config_path, resolve_data_dir


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "config.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "absent.toml") == (Settings(), [])


def test_valid_file_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path, '[precis]\nbudget_bytes = 8000\n[stale]\nage_days = 30\n[prompt]\nnudge = "hi"\n'
    )
    settings, warnings = load_settings(path)
    assert warnings == []
    assert (settings.precis_budget_bytes, settings.stale_age_days, settings.nudge_text) == (
        8000,
        30,
        "hi",
    )
    assert settings.precis_top_n == 30


def test_default_config_round_trips() -> None:
    settings, warnings = load_settings_from_text(render_default_config())
    assert warnings == []
    assert settings == Settings()


def load_settings_from_text(text: str) -> tuple[Settings, list[str]]:
    from ltm_desktop.core.settings.config import parse_settings

    return parse_settings(tomllib.loads(text), "test")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[precis]\nbudget_bytes = 'big'\n", "[precis] budget_bytes must be a whole number"),
        ("[precis]\nbudget_bytes = 10\n", "[precis] budget_bytes must be between"),
        ("[precis]\ntop_n = true\n", "[precis] top_n must be a whole number"),
        ("[observe]\nagent_end = 1\n", "[observe] agent_end must be true or false"),
        ("[prompt]\nnudge = 3\n", "[prompt] nudge must be a string"),
        ("[search]\ncache_entries = -1\n", "[search] cache_entries must be between"),
        ("[precis]\nbudgt_bytes = 1\n", "unknown key [precis] budgt_bytes"),
        ("[colours]\nx = 1\n", "unknown section [colours]"),
        ("precis = 5\n", "[precis] must be a table"),
    ],
)
def test_bad_keys_warn_with_file_and_key_and_fall_back(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = write(tmp_path, text + "[stale]\nage_days = 7\n")
    settings, warnings = load_settings(path)
    assert len(warnings) == 1
    assert str(path) in warnings[0]
    assert expected in warnings[0]
    assert settings.precis_budget_bytes == 5120
    assert settings.stale_age_days == 7  # the good key still applies


@pytest.mark.parametrize(
    ("content", "expected"), [("[precis\nx=", "not valid TOML"), (b"\xff\xfe", "not UTF-8")]
)
def test_unparseable_file_means_defaults(
    tmp_path: Path, content: str | bytes, expected: str
) -> None:
    path = write(tmp_path, content)
    settings, warnings = load_settings(path)
    assert settings == Settings()
    assert len(warnings) == 1
    assert str(path) in warnings[0]
    assert expected in warnings[0]


def test_config_path_that_is_a_directory(tmp_path: Path) -> None:
    settings, warnings = load_settings(tmp_path)
    assert settings == Settings()
    assert "cannot be read" in warnings[0]


def test_data_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTM_DESKTOP_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_dir() == tmp_path / "env"
    assert resolve_data_dir(tmp_path / "flag") == tmp_path / "flag"
    monkeypatch.delenv("LTM_DESKTOP_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_data_dir() == tmp_path / "xdg" / "ltm-desktop"


def test_config_path_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTM_DESKTOP_CONFIG", str(tmp_path / "c.toml"))
    assert resolve_config_path() == tmp_path / "c.toml"
    monkeypatch.delenv("LTM_DESKTOP_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert resolve_config_path() == tmp_path / "xdg" / "ltm-desktop" / "config.toml"


def test_master_switch_and_turn_nudge(tmp_path: Path) -> None:
    path = write(tmp_path, '[memory]\nenabled = false\n[nudge]\ninterval = 3\ntext = "save"\n')
    settings, warnings = load_settings(path)
    assert warnings == []
    assert (settings.memory_enabled, settings.nudge_interval, settings.nudge_turn_text) == (
        False,
        3,
        "save",
    )
    assert Settings().memory_enabled is True
    assert Settings().nudge_interval == 10
    assert "memory_write" in Settings().nudge_turn_text


def test_extractor_settings(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[extractor]\nbase_url = "http://localhost:11434/v1"\nmodel = "llama3.1:8b"\n'
        'api_key_env = "OPENAI_API_KEY"\ntimeout_s = 30\nmax_input_chars = 50000\nreview = true\n',
    )
    settings, warnings = load_settings(path)
    assert warnings == []
    assert settings.extractor_configured
    assert settings.extractor_timeout_s == 30.0
    assert isinstance(settings.extractor_timeout_s, float)
    assert (settings.extractor_max_input_chars, settings.extractor_review) == (50_000, True)
    assert not Settings().extractor_configured  # no endpoint by default: no network at all
    assert not Settings(extractor_base_url="http://localhost:1/v1").extractor_configured


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[memory]\nenabled = 'no'\n", "[memory] enabled must be true or false"),
        ("[nudge]\ninterval = -1\n", "[nudge] interval must be between 0 and 10,000"),
        ("[nudge]\ntext = 1\n", "[nudge] text must be a string"),
    ],
)
def test_bad_switch_or_nudge_falls_back(tmp_path: Path, text: str, expected: str) -> None:
    settings, warnings = load_settings(write(tmp_path, text))
    assert settings == Settings()
    assert len(warnings) == 1
    assert expected in warnings[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[extractor]\ntimeout_s = 0\n", "[extractor] timeout_s must be more than 0"),
        ("[extractor]\ntimeout_s = 'slow'\n", "[extractor] timeout_s must be a number"),
        ("[extractor]\nmax_input_chars = 10\n", "[extractor] max_input_chars must be between"),
        ("[extractor]\nreview = 'yes'\n", "[extractor] review must be true or false"),
    ],
)
def test_bad_extractor_keys_fall_back(tmp_path: Path, text: str, expected: str) -> None:
    settings, warnings = load_settings(write(tmp_path, text))
    assert len(warnings) == 1
    assert expected in warnings[0]
    assert settings.extractor_timeout_s == 60.0


def test_a_fifo_or_a_device_as_the_config_file_means_defaults_at_once(tmp_path: Path) -> None:
    """Not waited on (a FIFO without a writer), not read without end (/dev/zero)."""
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        settings, warnings = load_settings(path)
        assert settings == Settings()
        assert len(warnings) == 1
        assert "not a regular file" in warnings[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("# " + "a" * (1024 * 1024 + 10) + "\n", "larger than 1024 KiB"),
    ],
    ids=["deep", "huge"],
)
def test_a_pathological_config_file_means_defaults_and_a_warning(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    settings, warnings = load_settings(path)
    assert settings == Settings()
    assert len(warnings) == 1
    assert expected in warnings[0]
