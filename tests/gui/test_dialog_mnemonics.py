"""Every dialog the app builds gives each push button and check box its own Alt key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from ltm_desktop.agent.integrate import Change, Plan
from ltm_desktop.core.errors import ConflictReason
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import ops
from ltm_desktop.gui.dialogs.connect import AboutDialog, ConnectDialog
from ltm_desktop.gui.dialogs.integrate import PreviewDialog
from ltm_desktop.gui.dialogs.secrets import SecretsDialog
from ltm_desktop.gui.editing.bulk_curation import BulkEditDialog, ScopeDialog
from ltm_desktop.gui.editing.conflicts import ConflictDialog
from ltm_desktop.gui.editing.form import FormValues
from ltm_desktop.gui.editing.merge_dialog import MergeDialog
from ltm_desktop.gui.errors import ErrorReporter
from ltm_desktop.gui.inbox.edit import InboxEditDialog
from ltm_desktop.gui.mnemonics import buttons_by_page, mnemonic
from ltm_desktop.gui.models.inbox_model import NO_PROVENANCE, InboxRow
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.startup_error import StartupErrorDialog
from ltm_desktop.gui.window.switches_bar import SettingsDialog
from tests.gui.conftest import BILLING, FakeApi, WindowFactory, add

Build = Callable[[MemoryService, QWidget, TaskRunner], QDialog]


def _inbox_row() -> InboxRow:
    return InboxRow(
        "prop_1",
        "proposal",
        "Use make test",
        "Use make test",
        "workflow",
        5,
        (),
        None,
        "p",
        "billing",
        NO_PROVENANCE,
        1.0,
        None,
        "",
        "",
        0.0,
    )


def _conflict(service: MemoryService) -> ConflictDialog:
    memory = add(service, service.resolve_scope(cwd=BILLING, register=True), "Run the tests")
    write = ops.Write(memory.id, "update", memory.updated_at, {"title": "x"})
    return ConflictDialog([ops.WriteConflict(write, memory, ConflictReason.STALE)], "save")


def _error_box(parent: QWidget) -> QDialog:
    errors = ErrorReporter(parent)
    errors.report(ValueError("boom"), "test")
    return errors.open_boxes()[0]


DIALOGS: dict[str, Build] = {
    "connect": lambda s, w, r: ConnectDialog(FakeApi(), w, Path(s.paths.data_dir), runner=r),
    "about": lambda s, w, r: AboutDialog(s, w),
    "preview": lambda s, w, r: PreviewDialog(
        Plan("claude-code", "user", False, [Change(Path("/tmp/x.json"), None, "{}")]), w
    ),
    "secrets": lambda s, w, r: SecretsDialog(w.ctx, w),  # type: ignore[attr-defined]
    "merge": lambda s, w, r: MergeDialog(
        FormValues("a", "b"), FormValues("a2", "b"), FormValues("a", "b2"), "codex", w
    ),
    "conflict": lambda s, w, r: _conflict(s),
    "inbox-edit": lambda s, w, r: InboxEditDialog(_inbox_row(), w),
    "bulk-edit": lambda s, w, r: BulkEditDialog(3, w),
    "scope": lambda s, w, r: ScopeDialog(3, [("global", "Global")], False, w),
    "settings": lambda s, w, r: SettingsDialog(s, r, w),
    "startup-error": lambda s, w, r: StartupErrorDialog("no", Path(s.paths.data_dir), w),
    "error-box": lambda s, w, r: _error_box(w),
}


@pytest.mark.parametrize("name", DIALOGS)
def test_every_button_has_its_own_alt_key(
    name: str, qtbot: QtBot, service: MemoryService, make_window: WindowFactory
) -> None:
    window = make_window(service)
    dialog = DIALOGS[name](service, window, window.ctx.runner)
    qtbot.addWidget(dialog) if dialog.parent() is None else None
    dialog.show()
    groups = buttons_by_page(dialog)
    assert groups, "the dialog has no button"
    shared = [b.text() for b in groups.get(None, [])]
    for page, buttons in groups.items():
        texts = [b.text() for b in buttons] + (shared if page is not None else [])
        letters = [mnemonic(t) for t in texts]
        assert None not in letters, f"{name}: no Alt key in {texts}"
        assert len(set(letters)) == len(letters), f"{name}: Alt keys repeat in {texts}"
    dialog.close()
