"""A small team on one database, as docs/teams.md sets it up: a group role owning the
database, one LOGIN role per person, members of it. With ``ALTER ROLE … IN DATABASE … SET
role`` to the group, whoever connects first makes the schema owned by the group, and every
other member then writes, reads, verifies and erases with the real ``ltm-desktop``. Without
that setting the objects are the first person's and the next member is refused with one
line. A stricter setup (an owner role; members granted only the rows) works too, and an
erase by a member says that VACUUM skipped the tables instead of claiming it ran."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.launching import open_service
from tests.console import CONSOLE_SCRIPT, assert_one_error_line
from tests.pg_server import create_database, drop_database, with_database


@dataclass(frozen=True)
class Team:
    group: str
    people: dict[str, str]  # person -> login role
    passwords: dict[str, str]  # login role -> password
    server: str  # the superuser URL

    def url(self, role: str, database: str) -> str:
        """``role``'s URL without its password (it is in a passfile, as docs/teams.md says)."""
        parts = conninfo_to_dict(self.server)
        host = parts.get("host", "127.0.0.1")
        port = parts.get("port", "5432")
        return f"postgresql://{role}@{host}:{port}/{database}"

    def passfile(self, directory: Path, database: str) -> Path:
        parts = conninfo_to_dict(self.server)
        host = parts.get("host", "127.0.0.1")
        port = parts.get("port", "5432")
        path = directory / "pgpass"
        path.write_text(
            "".join(f"{host}:{port}:{database}:{r}:{p}\n" for r, p in self.passwords.items()),
            encoding="utf-8",
        )
        path.chmod(0o600)
        return path


def _admin(server: str, database: str, *statements: sql.Composed) -> None:
    with psycopg.connect(with_database(server, database), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.fixture
def team(pg_server_url: str) -> Iterator[Team]:
    """A NOLOGIN group role and two LOGIN members, dropped after the test."""
    suffix = secrets.token_hex(4)
    group = f"ltm_team_{suffix}"
    people = {"alice": f"alice_{suffix}", "bob": f"bob_{suffix}"}
    passwords = {role: secrets.token_hex(12) for role in people.values()}
    statements: list[sql.Composed] = [
        sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(group))
    ]
    for role, password in passwords.items():
        statements.append(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
                sql.Identifier(role), sql.Literal(password), sql.Identifier(group)
            )
        )
    _admin(pg_server_url, "postgres", *statements)
    try:
        yield Team(group, people, passwords, pg_server_url)
    finally:
        drops = [sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(r)) for r in passwords]
        _admin(
            pg_server_url,
            "postgres",
            *drops,
            sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(group)),
        )


@pytest.fixture
def database(team: Team) -> Iterator[str]:
    """A new database the group owns, only the group may connect to; dropped after."""
    url = create_database(team.server)
    name = str(conninfo_to_dict(url)["dbname"])
    _admin(
        team.server,
        "postgres",
        sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
            sql.Identifier(name), sql.Identifier(team.group)
        ),
        sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)),
        sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}").format(
            sql.Identifier(name), sql.Identifier(team.group)
        ),
    )
    try:
        yield str(name)
    finally:
        drop_database(team.server, url)


def _act_as_group(team: Team, database: str) -> None:
    for role in team.passwords:
        _admin(
            team.server,
            "postgres",
            sql.SQL("ALTER ROLE {} IN DATABASE {} SET role = {}").format(
                sql.Identifier(role), sql.Identifier(database), sql.Literal(team.group)
            ),
        )


class Person:
    """One person's machine: a data dir, a config naming them, their role's URL."""

    def __init__(self, root: Path, name: str, team: Team, database: str, passfile: Path):
        self.data = root / name
        self.data.mkdir()
        self.config = root / f"{name}.toml"
        self.config.write_text(f'[people]\nname = "{name}"\n', encoding="utf-8")
        self.url = team.url(team.people[name], database)
        self.env = {**os.environ, "PGPASSFILE": str(passfile), "LTM_DESKTOP_MACHINE": name}
        self.env.pop("LTM_DESKTOP_DATABASE_URL", None)

    def ltm(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [CONSOLE_SCRIPT, "--data-dir", str(self.data), "--config", str(self.config)]
        command += ["--database-url", self.url, *args]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=60, env=self.env, check=False
        )


def _notes(tmp_path: Path, name: str, line: str) -> Path:
    path = tmp_path / f"{name}.md"
    path.write_text(f"# Notes\n\n- {line}\n", encoding="utf-8")
    return path


def test_members_acting_as_the_group_share_one_database(
    team: Team, database: str, tmp_path: Path
) -> None:
    _act_as_group(team, database)
    passfile = team.passfile(tmp_path, database)
    alice = Person(tmp_path, "alice", team, database, passfile)
    bob = Person(tmp_path, "bob", team, database, passfile)

    first = alice.ltm(
        "import", str(_notes(tmp_path, "a", "Tag releases from main.")), "--project", "team"
    )
    assert first.returncode == 0, first.stderr  # alice's first connection made the schema
    with psycopg.connect(with_database(team.server, database)) as conn:
        owners = conn.execute(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class "
            "WHERE relnamespace = 'public'::regnamespace"
        ).fetchall()
    assert owners == [(team.group,)]

    second = bob.ltm(
        "import", str(_notes(tmp_path, "b", "Run the tests with Redis up.")), "--project", "team"
    )
    assert second.returncode == 0, second.stderr
    verified = bob.ltm("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    history = alice.ltm("history", "--project", "team")
    assert history.returncode == 0, history.stderr
    assert "bob@bob on bob" in history.stdout
    assert "alice@alice on alice" in history.stdout
    for person in (alice, bob):
        assert all(p not in person.ltm("status").stdout for p in team.passwords.values())


def test_without_acting_as_the_group_the_next_member_is_refused_in_one_line(
    team: Team, database: str, tmp_path: Path
) -> None:
    passfile = team.passfile(tmp_path, database)
    alice = Person(tmp_path, "alice", team, database, passfile)
    bob = Person(tmp_path, "bob", team, database, passfile)
    assert (
        alice.ltm(
            "import", str(_notes(tmp_path, "a", "Tag releases.")), "--project", "global"
        ).returncode
        == 0
    )

    refused = bob.ltm("status")
    assert_one_error_line(refused, "permission denied for table schema_migrations")

    # The repair docs/teams.md gives: alice hands her objects to the group.
    with psycopg.connect(alice.url, password=team.passwords[team.people["alice"]]) as conn:
        conn.execute(
            sql.SQL("REASSIGN OWNED BY {} TO {}").format(
                sql.Identifier(team.people["alice"]), sql.Identifier(team.group)
            )
        )
    assert bob.ltm("verify").returncode == 0


def test_members_granted_only_the_rows_are_told_vacuum_skipped_an_erase(
    team: Team, database: str, tmp_path: Path
) -> None:
    owner_role, owner_password = f"{team.group}_owner", secrets.token_hex(12)
    _admin(
        team.server,
        "postgres",
        sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
            sql.Identifier(owner_role), sql.Literal(owner_password)
        ),
        sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
            sql.Identifier(database), sql.Identifier(owner_role)
        ),
        sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}, {}").format(
            sql.Identifier(database), sql.Identifier(owner_role), sql.Identifier(team.group)
        ),
    )
    try:
        owner_url = team.url(owner_role, database)
        with psycopg.connect(owner_url, password=owner_password, autocommit=True) as conn:
            group = sql.Identifier(team.group)
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(group))
            conn.execute(
                sql.SQL(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA public "
                    "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {}"
                ).format(group)
            )
            conn.execute(
                sql.SQL(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA public "
                    "GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {}"
                ).format(group)
            )
        from ltm_desktop.postgres.database import PgDatabase

        PgDatabase(with_database_password(owner_url, owner_password)).close()  # the schema

        bob = team.people["bob"]
        bob_url = with_database_password(team.url(bob, database), team.passwords[bob])
        opened = open_service(tmp_path / "bob", tmp_path / "none.toml", database_url=bob_url)
        try:
            service = opened.service
            added = service.add("global", MemoryDraft("A scratch note to erase"), "cli")
            service.remove(added.memory.id, "cli")
            erased = service.eraser.erase(added.memory.id, "cli")
        finally:
            opened.service.close()
        assert erased.ids == (added.memory.id,)
        assert not erased.scrubbed
        assert "VACUUM skipped" in erased.note
        with psycopg.connect(with_database(team.server, database)) as conn:
            gone = conn.execute("SELECT count(*) FROM memories").fetchone()
        assert gone == (0,)
        with (
            psycopg.connect(bob_url, autocommit=True) as conn,
            pytest.raises(psycopg.errors.InsufficientPrivilege),
        ):
            conn.execute("ALTER TABLE audit DISABLE TRIGGER audit_is_append_only")
    finally:
        drop_database(team.server, with_database(team.server, database))
        _admin(team.server, "postgres", sql.SQL("DROP ROLE {}").format(sql.Identifier(owner_role)))


def with_database_password(url: str, password: str) -> str:
    """``url`` with ``password`` in it (for in-process opens; never printed)."""
    return url.replace("@", f":{password}@", 1)
