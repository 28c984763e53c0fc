"""File › Extract memories from a transcript…: queue an extraction in this process's
background worker, and say how it went when its run is recorded."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ltm_desktop.agent.extract_command import guess_agent
from ltm_desktop.agent.transcripts import sniff_cwd
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRequest, ExtractionRun
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext

TRANSCRIPTS = "Transcripts (*.jsonl *.json);;All files (*)"


class ExtractLauncher(QObject):
    """Signals:
    message(str): a one-line outcome for the status bar.
    started(str): the id of the run just queued.
    """

    message = Signal(str)
    started = Signal(str)

    def __init__(self, ctx: AppContext, window: QWidget) -> None:
        super().__init__(window)
        self.ctx = ctx
        self._window = window
        self._waiting: set[str] = set()
        ctx.bridge.changed.connect(self.on_changes)

    def choose(self) -> None:
        """Ask for the transcript (Claude Code keeps them in ~/.claude/projects)."""
        start = Path.home() / ".claude" / "projects"
        path, _ = QFileDialog.getOpenFileName(
            self._window,
            "Extract memories from a transcript",
            str(start if start.is_dir() else Path.home()),
            TRANSCRIPTS,
        )
        if path:
            self.start(Path(path))

    def start(self, path: Path) -> None:
        """Queue the extraction (into the project the transcript records, else the
        selected scope), off the UI thread; ``started`` says when it is queued."""
        service, scope = self.ctx.service, self.ctx.scope.project_id
        self.ctx.runner.run(
            lambda: submit(service, path, scope), self._on_started, self._on_refused
        )

    def _on_started(self, request: ExtractionRequest) -> None:
        self._waiting.add(request.run_id)
        name = Path(request.transcript_path or "").name
        self.message.emit(
            f"Extracting memories from {name} in the background; "
            "what it finds will wait in the Inbox."
        )
        self.started.emit(request.run_id)

    def _on_refused(self, exc: BaseException) -> None:
        if isinstance(exc, LtmError):
            self.message.emit(f"Nothing was extracted: {exc}.")
        else:
            self.ctx.errors.report(exc, "start the extraction")

    def on_changes(self, changes: ChangeSet) -> None:
        finished = self._waiting & changes.memory_ids
        if not finished:
            return
        self._waiting -= finished
        service = self.ctx.service
        self.ctx.runner.run(
            lambda: [r for r in service.inbox.runs(limit=50) if r.id in finished],
            self._on_runs,
        )

    def _on_runs(self, runs: list[ExtractionRun]) -> None:
        for run in runs:
            self.message.emit(run.summary() + ".")


def submit(service: MemoryService, path: Path, scope: str) -> ExtractionRequest:
    """Worker side: read where the transcript was written, and queue it."""
    cwd = sniff_cwd(path)
    project_id = service.resolve_scope(cwd=cwd, register=True) if cwd else scope
    request = ExtractionRequest(
        project_id=project_id,
        agent=guess_agent(path),
        session_id=path.stem,
        run_id=new_run_id(service.now()),
        transcript_path=str(path.absolute()),
    )
    service.extraction.submit(request)
    return request
