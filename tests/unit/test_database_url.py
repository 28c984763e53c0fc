"""Choosing the store: the PostgreSQL URL's checks, its redaction, and which of the
option, the environment variable and ``[store] url`` wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.errors import BadDatabaseUrl, ConfigError
from ltm_desktop.core.settings.database_url import DatabaseUrl
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL, resolve_launch

PASSWORD = "s3cr3t-PW-xyz"
URL = f"postgresql://alice:{PASSWORD}@db.example:5432/ltm?sslmode=require"


@pytest.fixture(autouse=True)
def _no_url_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_DATABASE_URL, raising=False)


def test_a_url_keeps_the_password_only_in_conninfo() -> None:
    url = DatabaseUrl.parse(URL)
    assert url.conninfo == URL  # handed to libpq as given
    assert url.display == "PostgreSQL at db.example:5432/ltm"
    for shown in (repr(url), str(url), url.display, f"{url}", repr([url])):
        assert PASSWORD not in shown
    assert (url.hosts, url.ports, url.dbname, url.user) == (
        ("db.example",),
        ("5432",),
        "ltm",
        "alice",
    )


@pytest.mark.parametrize(
    ("text", "display"),
    [
        ("postgres://db/ltm", "PostgreSQL at db/ltm"),
        ("postgresql:///ltm?host=/run/postgresql", "PostgreSQL at /run/postgresql/ltm"),
        ("postgresql://%2Frun%2Fpostgresql:5433/ltm", "PostgreSQL at /run/postgresql:5433/ltm"),
        ("postgresql://[::1]:5433/ltm", "PostgreSQL at [::1]:5433/ltm"),
        ("postgresql://a:1,b:2/ltm", "PostgreSQL at a:1,b:2/ltm"),
        (f"postgresql://db/ltm?user=bob&password={PASSWORD}", "PostgreSQL at db/ltm"),
        ("POSTGRESQL://db/ltm", "PostgreSQL at db/ltm"),
    ],
)
def test_the_forms_libpq_takes(text: str, display: str) -> None:
    assert DatabaseUrl.parse(text).display == display


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("sqlite:///home/a/ltm.sqlite", "SQLite needs no URL"),
        ("mysql://db/ltm", "must be a postgresql:// URL"),
        ("db.example/ltm", "must be a postgresql:// URL"),
        ("postgresql:/ltm", "must be a postgresql:// URL"),
        ("postgresql:///ltm", "names no host"),
        ("postgresql://db:99999/ltm", "port"),
        ("postgresql://db:http/ltm", "port"),
        ("postgresql://db/ltm?port=0", "port"),
        ("postgresql://[::1/ltm", "not a valid URL"),
        ("postgresql://[::1]x/ltm", "IPv6"),
        ("postgresql://db/ltm#x", "not a valid URL"),
        ("postgresql://db/ltm\n", "control characters"),
        ("", "empty"),
        ("postgresql://db/" + "x" * 3000, "longer than"),
    ],
)
def test_anything_else_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=says) as raised:
        DatabaseUrl.parse(text, "--database-url")
    assert str(raised.value).startswith("--database-url ")
    assert isinstance(raised.value, ConfigError)


@pytest.mark.parametrize(
    "text",
    [
        f"mysql://alice:{PASSWORD}@db/ltm",
        f"postgresql://alice:{PASSWORD}@db:99999/ltm",
        f"postgresql://alice:{PASSWORD}@/ltm",
        f"alice:{PASSWORD}@db/ltm",
        f"sqlite://alice:{PASSWORD}@x",
        f"postgresql://alice:{PASSWORD}@db/ltm#frag",
    ],
)
def test_an_error_never_repeats_the_password(text: str) -> None:
    with pytest.raises(BadDatabaseUrl) as raised:
        DatabaseUrl.parse(text)
    assert PASSWORD not in str(raised.value)


def test_the_option_wins_over_the_variable_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    assert resolve_launch(tmp_path / "d", config).database_url is None  # nothing: SQLite
    config.write_text('[store]\nurl = "postgresql://file-host/ltm"\n')
    launch = resolve_launch(tmp_path / "d", config)
    assert launch.database_url is not None
    assert launch.store_location == "PostgreSQL at file-host/ltm"
    assert launch.config_problems == ()
    monkeypatch.setenv(ENV_DATABASE_URL, "postgresql://env-host/ltm")
    assert resolve_launch(tmp_path / "d", config).store_location == "PostgreSQL at env-host/ltm"
    chosen = resolve_launch(tmp_path / "d", config, "postgres://option-host/ltm")
    assert chosen.store_location == "PostgreSQL at option-host/ltm"
    assert chosen.data_dir == tmp_path / "d"  # still the per-machine files' home
    monkeypatch.setenv(ENV_DATABASE_URL, "")  # set but empty: as if unset
    assert resolve_launch(tmp_path / "d", config).store_location == "PostgreSQL at file-host/ltm"


def test_without_a_url_the_store_is_the_data_dirs_file(tmp_path: Path) -> None:
    launch = resolve_launch(tmp_path / "d", tmp_path / "none.toml")
    assert launch.store_location == str(tmp_path / "d" / "ltm.sqlite")


def test_a_bad_url_names_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused, not a warning with SQLite instead: a team's memories written into a local
    file by mistake would be split without anyone noticing."""
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\nurl = "mysql://a:{PASSWORD}@h/db"\n')
    with pytest.raises(BadDatabaseUrl, match=r"config\.toml: \[store\] url must be") as raised:
        resolve_launch(tmp_path / "d", config)
    assert PASSWORD not in str(raised.value)
    monkeypatch.setenv(ENV_DATABASE_URL, "sqlite:///x")
    with pytest.raises(BadDatabaseUrl, match=rf"^\${ENV_DATABASE_URL} is an SQLite URL"):
        resolve_launch(tmp_path / "d", config)
    with pytest.raises(BadDatabaseUrl, match="^--database-url names no host"):
        resolve_launch(tmp_path / "d", config, "postgresql:///ltm")
