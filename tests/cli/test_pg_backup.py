"""``backup`` and ``restore`` with a database URL, through the real console script on a
real PostgreSQL server: pg_dump's archive when a compatible pg_dump is on PATH (its
password never on its command line), else the logical dump, which ``restore`` puts into
an empty database only, after verifying it."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.cli.pg_console import exported, ltm, ok, seed_file, sql, to_url, write_config
from tests.console import assert_one_error_line
from tests.pg_databases import PgDatabases
from tests.pg_server import fresh_database, unavailable

ERASED_ID = "mem_000000000000000000004"


def real_pg_dump() -> Path:
    found = shutil.which("pg_dump")
    if found is None:
        unavailable("no pg_dump on PATH")
    return Path(found)


def recording_pg_dump(directory: Path, real: Path) -> Path:
    """A ``pg_dump`` that writes down its arguments and what it was given of the
    password, then runs the real one; ``pg_restore`` beside it is the real one's."""
    directory.mkdir()
    log = directory / "log"
    script = directory / "pg_dump"
    script.write_text(
        "#!/bin/sh\n"
        f'{{ printf \'arg %s\\n\' "$@"; echo "PGPASSWORD=${{PGPASSWORD-unset}}"; '
        'echo "PGPASSFILE=${PGPASSFILE-unset}"; '
        '[ -n "$PGPASSFILE" ] && stat -c "passfile-mode %a" "$PGPASSFILE" && '
        f'cat "$PGPASSFILE"; }} > {log}\n'
        f'exec {real} "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    restore = real.parent / "pg_restore"
    if restore.exists():
        (directory / "pg_restore").symlink_to(restore)
    return log


def old_pg_dump(directory: Path) -> None:
    """A ``pg_dump`` too old for any server ltm-desktop runs on."""
    directory.mkdir()
    script = directory / "pg_dump"
    script.write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n", encoding="utf-8")
    script.chmod(0o755)


def filled(tmp_path: Path, config: Path, url: str) -> None:
    """Memories, one of them erased (its history tombstoned), all through the console."""
    ok(ltm(tmp_path / "d", config, "import", str(seed_file(tmp_path, trashed="Quokka")), url=url))
    ok(ltm(tmp_path / "d", config, "erase", ERASED_ID, url=url))


def head(tmp_path: Path, config: Path, url: str) -> str:
    said = ok(ltm(tmp_path / "d", config, "verify", url=url))
    assert "0 problem(s)" in said
    return said.rsplit("head ", 1)[1].strip()


@pytest.mark.slow
def test_backup_is_pg_dumps_archive_with_the_password_in_a_private_passfile(
    tmp_path: Path, pg_databases: PgDatabases, pg_server_url: str
) -> None:
    from psycopg.conninfo import conninfo_to_dict

    real = real_pg_dump()
    log = recording_pg_dump(tmp_path / "bin", real)
    config = write_config(tmp_path)
    conninfo = pg_databases.take()
    try:
        url = to_url(conninfo)
        password = str(conninfo_to_dict(conninfo).get("password") or "")
        filled(tmp_path, config, url)
        expected_head = head(tmp_path, config, url)
        path_env = {"PATH": f"{tmp_path / 'bin'}:{Path(real).parent}:/usr/bin:/bin"}
        env = {**path_env, "PGPASSWORD": "not-this-one"}
        archive = tmp_path / "out" / "shop.pgdump"
        archive.parent.mkdir()

        said = ok(ltm(tmp_path / "d", config, "backup", "-o", str(archive), url=url, env=env))
        assert "backed up 3 memories of PostgreSQL at " in said
        assert " with pg_dump " in said
        assert f"to {archive}" in said
        assert archive.read_bytes()[:5] == b"PGDMP"
        assert stat.S_IMODE(archive.stat().st_mode) == 0o600
        assert sorted(p.name for p in archive.parent.iterdir()) == ["shop.pgdump"]  # no leftovers
        recorded = log.read_text(encoding="utf-8").splitlines()
        arguments = [line for line in recorded if line.startswith("arg ")]
        assert "arg --format=custom" in arguments
        assert "PGPASSWORD=unset" in recorded
        if password:
            assert not any(password in line for line in arguments)
            assert "passfile-mode 600" in recorded
            assert recorded[-1].endswith(f":{password}")
            passfile = next(r for r in recorded if r.startswith("PGPASSFILE=")).split("=", 1)[1]
            assert not Path(passfile).exists()  # removed when pg_dump ended

        into = pg_databases.take()
        try:  # not restored by ltm-desktop: the refusal says how, and nothing changes
            refused = ltm(tmp_path / "d", config, "restore", str(archive), url=to_url(into))
            assert_one_error_line(refused, "is a pg_dump archive", "pg_restore", "createdb")
            assert sql(into, "SELECT count(*) FROM audit") == [(0,)]
        finally:
            pg_databases.release(into)
        with fresh_database(pg_server_url) as new:  # as the refusal says
            restore = subprocess.run(
                [
                    str(real.parent / "pg_restore"),
                    "--no-owner",
                    "--single-transaction",
                    "--exit-on-error",
                    f"--dbname={new}",
                    str(archive),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            assert restore.returncode == 0, restore.stderr
            assert head(tmp_path, config, to_url(new)) == expected_head
            assert exported(tmp_path / "d", config, to_url(new)) == exported(
                tmp_path / "d", config, url
            )

        automatic = ok(ltm(tmp_path / "d", config, "backup", url=url, env=path_env))
        made = Path(automatic.rsplit(" to ", 1)[1].strip())
        assert made.parent == tmp_path / "d" / "backups"
        assert made.name.startswith("ltm-pg-backup-")
        assert made.suffix == ".pgdump"
    finally:
        pg_databases.release(conninfo)


@pytest.mark.slow
def test_the_logical_dump_is_made_without_a_compatible_pg_dump_and_restores_into_an_empty_database(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    old_pg_dump(tmp_path / "bin")
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    config = write_config(tmp_path)
    source, target = pg_databases.take(), pg_databases.take()
    try:
        url = to_url(source)
        filled(tmp_path, config, url)
        said = ok(ltm(tmp_path / "d", config, "backup", url=url, env=env))
        assert "as a logical dump" in said
        assert "no pg_dump used: " in said
        assert "is version 9.6, older than the server's" in said
        dump = Path(said.split(" to ", 1)[1].split(";", 1)[0].strip())
        assert dump.parent == tmp_path / "d" / "backups"
        assert dump.suffix == ".jsonl"
        assert stat.S_IMODE(dump.stat().st_mode) == 0o600

        restored = ok(ltm(tmp_path / "d", config, "restore", str(dump), url=to_url(target)))
        assert "restored 3 memories and " in restored
        assert "0 problem(s)" in restored
        assert exported(tmp_path / "d", config, to_url(target)) == exported(
            tmp_path / "d", config, url
        )
        events = "SELECT seq, memory_id, action, before, after, nonce, hash FROM audit ORDER BY seq"
        assert sql(target, events) == sql(source, events)
        assert head(tmp_path, config, to_url(target)) == head(tmp_path, config, url)

        again = ltm(tmp_path / "d", config, "restore", str(dump), url=to_url(target))
        assert_one_error_line(again, "is not empty", "3 memories", "nothing was changed")
        assert sql(target, "SELECT count(*) FROM memories") == [(3,)]
    finally:
        pg_databases.release(source)
        pg_databases.release(target)


@pytest.mark.slow
def test_a_dump_that_does_not_verify_or_is_not_one_is_refused_and_changes_nothing(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    config = write_config(tmp_path)
    source, target = pg_databases.take(), pg_databases.take()
    try:
        url, into = to_url(source), to_url(target)
        filled(tmp_path, config, url)
        dump = tmp_path / "dump.jsonl"
        said = ok(ltm(tmp_path / "d", config, "backup", "--logical", "-o", str(dump), url=url))
        assert "as a logical dump" in said
        assert "no pg_dump used" not in said  # asked for: no reason to give
        text = dump.read_text(encoding="utf-8")

        edited = tmp_path / "edited.jsonl"
        edited.write_text(text.replace("make deploy from main", "curl x | sh", 1), encoding="utf-8")
        refused = ltm(tmp_path / "d", config, "restore", str(edited), url=into)
        assert_one_error_line(refused, "does not verify", "differs from its history")

        cut = tmp_path / "cut.jsonl"
        cut.write_text("".join(text.splitlines(keepends=True)[:-3]), encoding="utf-8")
        assert_one_error_line(ltm(tmp_path / "d", config, "restore", str(cut), url=into), "line")

        sqlite_backup = tmp_path / "sqlite-backup.sqlite"
        ok(ltm(tmp_path / "s", config, "import", str(seed_file(tmp_path))))
        ok(ltm(tmp_path / "s", config, "backup", "-o", str(sqlite_backup)))
        wrong_kind = ltm(tmp_path / "d", config, "restore", str(sqlite_backup), url=into)
        assert_one_error_line(wrong_kind, "is an SQLite backup", "migrate --to")
        logical_sqlite = ltm(tmp_path / "s", config, "backup", "--logical")
        assert_one_error_line(logical_sqlite, "--logical is for a PostgreSQL store")

        assert sql(target, "SELECT count(*) FROM memories") == [(0,)]
        assert sql(target, "SELECT count(*) FROM audit") == [(0,)]
        assert not list((tmp_path / "d").glob(".ltm-restore-check-*"))  # the scratch copy
    finally:
        pg_databases.release(source)
        pg_databases.release(target)
