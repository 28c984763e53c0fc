"""A database password that no output of the data commands ever shows: export, import,
backup (pg_dump and logical), restore (done and refused), verify, erase, empty-trash and
status, each through the real console script, on a database owned by a role whose
password is known here; and errors from an unreachable server too."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.cli.pg_console import ltm, seed_file, sql, write_config
from tests.pg_server import fresh_database, unavailable

ERASED_ID = "mem_000000000000000000004"


@pytest.fixture
def own_role(pg_server_url: str) -> Iterator[tuple[str, str, str]]:
    """(role, password, URL of a new database it owns, made for this test)."""
    role = f"ltm_pw_{secrets.token_hex(4)}"
    password = f"Pw-{secrets.token_hex(6)}-never-shown"
    sql(pg_server_url, f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
    try:
        with fresh_database(pg_server_url) as made:
            from psycopg.conninfo import conninfo_to_dict

            parts = conninfo_to_dict(made)
            sql(pg_server_url, f'ALTER DATABASE "{parts["dbname"]}" OWNER TO {role}')
            sql(made, f"ALTER SCHEMA public OWNER TO {role}")
            url = (
                f"postgresql://{role}:{quote(password, safe='')}@{parts['host']}:"
                f"{parts['port']}/{parts['dbname']}"
            )
            yield role, password, url
    finally:
        sql(pg_server_url, f"DROP ROLE IF EXISTS {role}")


@pytest.mark.slow
def test_no_output_of_the_data_commands_shows_the_password(
    tmp_path: Path, own_role: tuple[str, str, str], pg_server_url: str
) -> None:
    if shutil.which("pg_dump") is None:
        unavailable("no pg_dump on PATH")
    _, password, url = own_role
    config = write_config(tmp_path)
    data = tmp_path / "d"
    seed = seed_file(tmp_path, trashed="Quokka")
    archive, dump, export = tmp_path / "a.pgdump", tmp_path / "d.jsonl", tmp_path / "e.jsonl"
    unreachable = url.replace(url.rsplit("@", 1)[1].split("/", 1)[0], "127.0.0.1:1")
    runs: list[subprocess.CompletedProcess[str]] = []

    def run(*args: str, where: str = url) -> subprocess.CompletedProcess[str]:
        result = ltm(data, config, *args, url=where)
        runs.append(result)
        return result

    assert run("import", str(seed)).returncode == 0
    assert run("export", "--include-removed").returncode == 0
    assert run("export", "--with-history", "-o", str(export)).returncode == 0
    assert run("verify").returncode == 0
    assert run("erase", ERASED_ID).returncode == 0
    assert run("empty-trash", "--project", "global").returncode == 0
    assert run("backup", "-o", str(archive)).returncode == 0
    assert run("backup", "--logical", "-o", str(dump)).returncode == 0
    assert run("backup").returncode == 0
    assert run("restore", str(dump)).returncode != 0  # not empty
    assert run("restore", str(archive)).returncode != 0  # an archive: pg_restore's
    assert run("status").returncode == 0
    for command in (("verify",), ("export",), ("backup",), ("restore", str(dump)), ("erase", "x")):
        assert run(*command, where=unreachable).returncode != 0
    with fresh_database(pg_server_url) as empty:
        from psycopg.conninfo import conninfo_to_dict

        name = conninfo_to_dict(empty)["dbname"]
        sql(pg_server_url, f'ALTER DATABASE "{name}" OWNER TO {own_role[0]}')
        sql(empty, f"ALTER SCHEMA public OWNER TO {own_role[0]}")
        into = url.rsplit("/", 1)[0] + f"/{name}"
        assert run("restore", str(dump), where=into).returncode == 0
        assert run("verify", where=into).returncode == 0

    assert len(runs) == 19
    for result in runs:
        shown = result.stdout + result.stderr
        assert password not in shown, result.args[3:]
        assert quote(password, safe="") not in shown
    for made in (archive, dump, export, *(data / "backups").iterdir()):
        assert password.encode() not in made.read_bytes(), made.name
