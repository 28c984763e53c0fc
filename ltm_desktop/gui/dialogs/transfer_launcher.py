"""File › Export…, Import…, Back up now: the same work as the commands, off the UI
thread, with progress and outcomes on the status bar. Import shows a preview (a dry run:
what would be created, deduplicated, superseded and skipped) and writes only when the
person confirms it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ltm_desktop import __version__
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.files.atomic_files import check_replaceable, replacing
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.transfer import exporting, importing
from ltm_desktop.core.transfer.import_writes import ImportReport
from ltm_desktop.gui.context import AppContext

EXPORT_FILTERS = "JSON Lines (*.jsonl);;Markdown (*.md)"
IMPORT_FILTERS = "Memory files (*.jsonl *.md);;All files (*)"
IMPORT_ACTOR = "gui-import"


class TransferLauncher(QObject):
    """Signals:
    message(str): a one-line outcome or progress for the status bar.
    progress(int): memories exported so far (emitted from the worker thread).
    """

    message = Signal(str)
    progress = Signal(int)

    def __init__(self, ctx: AppContext, window: QWidget) -> None:
        super().__init__(window)
        self.ctx = ctx
        self._window = window
        self.progress.connect(lambda n: self.message.emit(f"Exporting… {n:,} memories so far"))

    # -- export ---------------------------------------------------------------------

    def choose_export(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self._window, "Export memories", str(Path.home() / "memories.jsonl"), EXPORT_FILTERS
        )
        if path:
            markdown = path.endswith(".md") or chosen.startswith("Markdown")
            self.export(Path(path), "markdown" if markdown else "jsonl")

    def export(self, path: Path, fmt: str) -> None:
        """Every scope (the trash left out) into ``path``, written whole or not at all."""
        service, progress = self.ctx.service, self.progress.emit
        self.message.emit(f"Exporting to {path.name}…")
        self.ctx.runner.run(
            lambda: export_all(service, path, fmt, progress),
            lambda count: self.message.emit(f"Exported {count:,} memories to {path}."),
            lambda exc: self._failed(exc, "export"),
        )

    # -- import ---------------------------------------------------------------------

    def choose_import(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self._window, "Import memories", str(Path.home()), IMPORT_FILTERS
        )
        if paths:
            self.preview([Path(p) for p in paths])

    def preview(self, paths: Sequence[Path]) -> None:
        """Dry-run the import; on confirmation, do it."""
        service, scope = self.ctx.service, self.ctx.scope.project_id
        self.ctx.runner.run(
            lambda: import_files(service, paths, scope, dry_run=True),
            lambda reports: self._confirm(paths, reports),
            lambda exc: self._failed(exc, "import"),
        )

    def _confirm(self, paths: Sequence[Path], reports: list[ImportReport]) -> None:
        preview = "\n".join(preview_text(r) for r in reports)
        if not self.ctx.prompter.confirm_import(self._window, preview):
            self.message.emit("Nothing was imported.")
            return
        service, scope = self.ctx.service, self.ctx.scope.project_id
        self.ctx.runner.run(
            lambda: import_files(service, paths, scope, dry_run=False),
            lambda done: self.message.emit(" ".join(r.summary() + "." for r in done)),
            lambda exc: self._failed(exc, "import"),
        )

    # -- backup ---------------------------------------------------------------------

    def backup_now(self) -> None:
        from ltm_desktop.backups import backup_data_dir  # no Qt, and the store stays out of the GUI

        data_dir, keep = self.ctx.service.paths.data_dir, self.ctx.service.settings.backup_keep
        self.message.emit("Backing up…")
        self.ctx.runner.run(
            lambda: backup_data_dir(data_dir, keep=keep),
            lambda made: self.message.emit(f"Backed up {made.memories:,} memories to {made.path}."),
            lambda exc: self._failed(exc, "back up"),
        )

    def _failed(self, exc: BaseException, what: str) -> None:
        if isinstance(exc, LtmError | OSError):
            self.message.emit(f"Could not {what}: {exc}")
        else:
            self.ctx.errors.report(exc, what)


def preview_text(report: ImportReport, limit: int = 8) -> str:
    """The dry run's summary, then why entries would be skipped and what would be
    superseded (the first few of each)."""
    lines = [report.summary()]
    lines += [f"  line {s['line']}: skipped, {s['reason']}" for s in report.skipped[:limit]]
    lines += [
        f"  line {s['line']}: “{s['title']}” would replace {s['superseded']}"
        for s in report.superseded[:limit]
    ]
    return "\n".join(lines)


def export_all(
    service: MemoryService, path: Path, fmt: str, progress: exporting.Progress | None = None
) -> int:
    """Worker side: write the export to a temporary file, then rename it into place."""
    scopes = [project for project, _ in service.projects()]
    check_replaceable(path)  # never renamed over a symlink, a FIFO or a device
    with replacing(path, newline="\n") as out:
        if fmt == "markdown":
            return exporting.write_markdown(service, scopes, out, progress=progress)
        return exporting.write_jsonl(
            service, scopes, out, app_version=__version__, progress=progress
        )


def import_files(
    service: MemoryService, paths: Sequence[Path], scope: str, *, dry_run: bool
) -> list[ImportReport]:
    """Worker side: every file is parsed before any is written; each file is one
    transaction. Files that name their scopes (our exports) keep them, Hermes' memory is
    global, and the others go to the selected scope."""
    parsed = [importing.parse_file(path) for path in paths]
    reports = []
    for one in parsed:
        own = all(entry.project_id is not None for entry in one.entries)
        mine = service.ambient.personal  # "global": the person's own (docs/teams.md)
        target = None if own else mine if one.default_scope == "global" else scope
        if target is not None and not dry_run:
            service.ensure_scope(target)
        reports.append(service.importer.import_parsed(one, target, IMPORT_ACTOR, dry_run=dry_run))
    return reports
