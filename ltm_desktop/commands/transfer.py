"""``ltm-desktop export`` and ``ltm-desktop import``: the command-line side of
``core.exporting`` and ``core.importing`` (the core decides what is written)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ltm_desktop import __version__
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.files.atomic_files import check_replaceable, replacing
from ltm_desktop.core.transfer.format_names import EXPORT_FORMATS, IMPORT_FORMATS

if TYPE_CHECKING:  # the core loads only when a command runs
    from ltm_desktop.core.records import Project
    from ltm_desktop.core.service import MemoryService

AddCommand = Callable[..., argparse.ArgumentParser]
IMPORT_ACTOR = "import"
STDOUT = "-"  # -o - : standard output (./- names a file called -)


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    export = add_command(
        commands,
        "export",
        help="write memories to a JSONL or Markdown file",
        description="Export one scope (--project, --cwd), or every scope (--all, the default), "
        "as JSONL (every field; re-importable exactly) or Markdown (readable, grouped by "
        "category). Streams: memory use does not grow with the number of memories.",
    )
    scope = export.add_mutually_exclusive_group()
    _scope_arguments(scope)
    scope.add_argument("--all", action="store_true", help="every scope (the default)")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl")
    export.add_argument(
        "--include-removed", action="store_true", help="also the memories in the trash"
    )
    export.add_argument(
        "--with-history", action="store_true", help="JSONL: each memory's audit events too"
    )
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write FILE whole or not at all: a new file, or a regular file replaced (a "
        "symlink, FIFO, device or directory is refused); - or none: standard output",
    )
    imp = add_command(
        commands,
        "import",
        help="add memories from export files, CLAUDE.md, AGENTS.md, GEMINI.md or Markdown",
        description="Import each FILE in one transaction: a bad line imports nothing of its "
        "file and names the line. JSONL exports keep their ids, timestamps and scopes; "
        "Markdown sources become one memory per bullet or paragraph (headings become tags), "
        "added like any memory (deduplicated, superseding near twins), with source 'import'.",
    )
    imp.add_argument("files", nargs="+", metavar="FILE")
    target = imp.add_mutually_exclusive_group()
    _scope_arguments(target)
    imp.add_argument("--format", choices=IMPORT_FORMATS, default="auto")
    imp.add_argument(
        "--dry-run", action="store_true", help="report what would happen; write nothing"
    )
    imp.add_argument("--json", action="store_true", help="print the reports as JSON")


def _scope_arguments(group: Any) -> None:
    group.add_argument("--project", metavar="ID", help="a scope id (proj_... or global)")
    group.add_argument(
        "--cwd",
        metavar="DIR",
        type=_absolute,
        help="the scope of a project directory (relative to the working directory)",
    )


def _absolute(path: str) -> str:
    """A directory as typed (``.``, ``~/src/shop``) as the absolute path scopes are keyed by."""
    return os.path.abspath(os.path.expanduser(path))


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def _open(args: argparse.Namespace, *, create: bool = False) -> MemoryService:
    """The service of ``--data-dir``; ``create``: make its database if there is none (an
    import may start a data dir; looking or erasing must not)."""
    from ltm_desktop.launching import open_service

    opened = open_service(args.data_dir, args.config, create=create, database_url=args.database_url)
    for line in opened.warnings:
        sys.stderr.write(f"ltm-desktop: warning: {line}\n")
    return opened.service


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[TextIO]:
    """Standard output, or FILE written whole or not at all (a temporary file renamed over
    it; never over a symlink, FIFO or device: ``atomic_files.check_replaceable``)."""
    if path is None or path == STDOUT:
        yield sys.stdout
        return
    target = Path(path).expanduser().absolute()
    check_replaceable(target, hint="-o - writes to standard output")
    with replacing(target, newline="\n") as out:
        yield out


@contextlib.contextmanager
def _stopped_reader() -> Iterator[None]:
    """A reader of standard output that stops early (``export | head``) is not an error."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that flushing at exit does not fail too
        os.close(devnull)


def _scopes(service: MemoryService, args: argparse.Namespace) -> list[Project]:
    if args.project is None and args.cwd is None:
        return [project for project, _ in service.projects()]
    known = {p.project_id: p for p, _ in service.projects()}
    if args.cwd is not None:
        project_id = service.resolve_scope(cwd=args.cwd)
        if project_id not in known:
            raise InvalidInput(
                f"no project scope for {args.cwd}: no agent has used memory there "
                "(`ltm-desktop status` lists the scopes)",
                "cwd",
            )
        return [known[project_id]]
    project_id = service.resolve_scope(project_id=args.project)
    if project_id not in known:
        raise InvalidInput(f"no scope has the id {project_id}", "project")
    return [known[project_id]]


def cmd_export(args: argparse.Namespace) -> int:
    if args.with_history and args.format != "jsonl":
        raise InvalidInput("--with-history needs --format jsonl", "with_history")
    from ltm_desktop.core.transfer import exporting

    service = _open(args)
    try:
        scopes = _scopes(service, args)
        with _stopped_reader(), _output(args.output) as out:
            if args.format == "jsonl":
                count = exporting.write_jsonl(
                    service,
                    scopes,
                    out,
                    app_version=__version__,
                    include_removed=args.include_removed,
                    with_history=args.with_history,
                )
            else:
                count = exporting.write_markdown(
                    service, scopes, out, include_removed=args.include_removed
                )
    finally:
        service.close()
    if args.output not in (None, STDOUT):
        _say(f"exported {count} memories of {len(scopes)} scopes to {args.output}")
    return 0


def _target(service: MemoryService, args: argparse.Namespace, parsed: Any) -> str | None:
    """The scope to import into: --project, --cwd, else the file's own scopes (JSONL and
    our Markdown export), else its format's default: the directory the file is in (a
    repo's CLAUDE.md), the project holding a Cline memory-bank/, global for Hermes."""
    if args.project is not None:
        return service.resolve_scope(project_id=args.project)
    if args.cwd is not None:
        return service.resolve_scope(cwd=args.cwd, register=not args.dry_run)
    if all(entry.project_id is not None for entry in parsed.entries):
        return None
    if parsed.default_scope == "global":
        return service.ambient.personal  # this person's global scope
    if parsed.default_scope == "none":
        raise InvalidInput(
            f"{parsed.path}: which project are these memories about? give --cwd DIR or "
            "--project ID",
            "project",
        )
    folder = Path(parsed.path).parent
    if parsed.default_scope == "parent":
        folder = folder.parent
    return service.resolve_scope(cwd=str(folder), register=not args.dry_run)


def cmd_import(args: argparse.Namespace) -> int:
    from ltm_desktop.core.transfer import importing

    parsed_files = [
        importing.parse_file(Path(name).expanduser().absolute(), args.format) for name in args.files
    ]  # every file is checked before the first one is written
    service = _open(args, create=True)
    reports = []
    try:
        for parsed in parsed_files:
            project_id = _target(service, args, parsed)
            if project_id is not None and not args.dry_run:
                service.ensure_scope(project_id)  # the person's global: named for them
            reports.append(
                service.importer.import_parsed(
                    parsed, project_id, IMPORT_ACTOR, dry_run=args.dry_run
                )
            )
        service.memory_md.flush()
    finally:
        service.close()
    if args.json:
        _say(json.dumps([_report_json(r) for r in reports], indent=2, ensure_ascii=False))
        return 0
    for report in reports:
        _say(report.summary())
        for item in report.skipped:
            _say(f"  skipped line {item['line']}: {item['reason']}")
    return 0


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "path": report.path,
        "format": report.format,
        "dry_run": report.dry_run,
        "created": report.created,
        "deduplicated": report.deduplicated,
        "superseded": report.superseded,
        "skipped": report.skipped,
        "renamed": report.renamed,
    }
