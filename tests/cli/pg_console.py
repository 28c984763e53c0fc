"""The real console script on a PostgreSQL database: the helpers the command tests share."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.console import CONSOLE_SCRIPT

CONFIG = '[search]\nembedder = "none"\n'  # words only: no model is loaded by a command


def to_url(conninfo: str) -> str:
    """A libpq ``key=value`` string (``PgDatabases.take``) as the ``postgresql://`` URL a
    person would type, password included."""
    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(conninfo)
    user = quote(str(parts["user"]), safe="")
    password = quote(str(parts.get("password", "")), safe="")
    return f"postgresql://{user}:{password}@{parts['host']}:{parts['port']}/{parts['dbname']}"


def write_config(directory: Path) -> Path:
    path = directory / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def ltm(
    data_dir: Path,
    config: Path,
    *args: str,
    url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The console script on ``data_dir`` (and the database ``url``, given as
    ``--database-url``; None: SQLite in the data dir)."""
    chosen = ["--database-url", url] if url is not None else []
    environment = {k: v for k, v in os.environ.items() if k != "LTM_DESKTOP_DATABASE_URL"}
    environment.update(env or {})
    return subprocess.run(
        [CONSOLE_SCRIPT, *chosen, *args, "--data-dir", str(data_dir), "--config", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=environment,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    return result.stdout


def memory_lines(export_text: str) -> dict[str, dict[str, Any]]:
    """The memories of a JSONL export, by id."""
    records = [json.loads(line) for line in export_text.splitlines() if line.strip()]
    return {r["id"]: r for r in records if r.get("type") == "memory"}


def exported(data_dir: Path, config: Path, url: str | None = None) -> dict[str, dict[str, Any]]:
    return memory_lines(ok(ltm(data_dir, config, "export", "--include-removed", url=url)))


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query.encode("utf-8"), params)
        return cursor.fetchall() if cursor.description is not None else []


def seed_file(directory: Path, *, trashed: str = "", word: str = "zebra") -> Path:
    """A JSONL export of three memories in one project scope and one global; with
    ``trashed``, a fourth, in the trash, whose text holds that word (tags and files too)."""
    project = "proj_0123456789abcdef"
    now = 1_800_000_000.0
    lines: list[dict[str, Any]] = [
        {
            "type": "header",
            "format": "ltm-desktop-export",
            "format_version": 1,
            "app_version": "0",
            "schema_version": 12,
            "exported_at": now,
        },
        {
            "type": "project",
            "project_id": "global",
            "path": None,
            "name": "Global",
            "created_at": now,
        },
        {
            "type": "project",
            "project_id": project,
            "path": "/src/shop",
            "name": "shop",
            "created_at": now,
        },
    ]

    def memory(number: int, scope: str, content: str, **more: Any) -> dict[str, Any]:
        record = {
            "type": "memory",
            "id": f"mem_{number:021x}",
            "project_id": scope,
            "title": content.split(".")[0][:60],
            "content": content,
            "category": "knowledge",
            "importance": number % 3,
            "tags": ["ops", f"t{number}"],
            "files": ["src/app.py"] if number % 2 else [],
            "created_at": now + number,
            "updated_at": now + number,
            "use_count": number,
            "source": "cli",
        }
        record.update(more)
        return record

    lines += [
        memory(1, project, f"Deploy the shop with make deploy from main. {word} one"),
        memory(2, project, "Run ruff check and mypy before committing."),
        memory(3, "global", "Tabs over spaces in Makefiles, always."),
    ]
    if trashed:
        lines.append(
            memory(
                4,
                project,
                f"The staging box is {trashed} behind the VPN.",
                title=f"Staging {trashed}",
                tags=[trashed.lower(), "ops"],
                files=[f"deploy/{trashed}.yaml"],
                disabled=True,
                disabled_at=now + 10,
            )
        )
    path = directory / "seed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
