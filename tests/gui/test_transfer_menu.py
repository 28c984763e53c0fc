"""File › Export…, Import… (with a preview) and Back up now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.dialogs.connect import AboutDialog
from ltm_desktop.gui.dialogs.transfer_launcher import export_all, import_files, preview_text
from tests.conftest import ServiceFactory
from tests.gui.conftest import AutoPrompter, WindowFactory, add, wait_idle

CLAUDE_MD = "# Notes\n\n## Style\n- Tabs, never spaces\n- Line length is 100\n"


def test_export_writes_every_scope_and_says_so(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, tmp_path: Path
) -> None:
    add(service, billing, "Deploy with make deploy", importance=4)
    add(service, GLOBAL_PROJECT_ID, "Prefer uv over pip", importance=4)
    window = make_window(service)
    messages: list[str] = []
    window.transfer.message.connect(messages.append)
    target = tmp_path / "out.jsonl"
    window.transfer.export(target, "jsonl")
    qtbot.waitUntil(lambda: any(m.startswith("Exported") for m in messages), timeout=5000)
    assert messages[-1] == f"Exported 2 memories to {target}."
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert {line["content"] for line in lines if line["type"] == "memory"} == {
        "Deploy with make deploy",
        "Prefer uv over pip",
    }


@pytest.mark.parametrize("confirm", [False, True])
def test_import_previews_before_it_writes(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    tmp_path: Path,
    confirm: bool,
) -> None:
    source = tmp_path / "CLAUDE.md"
    source.write_text(CLAUDE_MD)
    add(service, billing, "Tabs, never spaces", importance=4)
    window = make_window(service, scope=billing)
    previews: list[str] = []

    def asked(preview: str) -> None:
        previews.append(preview)
        assert service.count_memories(billing) == 1  # nothing written before the answer

    window.ctx.prompter = AutoPrompter(import_answer=confirm, on_import=asked)
    messages: list[str] = []
    window.transfer.message.connect(messages.append)
    window.transfer.preview([source])
    qtbot.waitUntil(lambda: bool(messages), timeout=5000)
    wait_idle(qtbot, window)
    assert previews == [
        f"{source} (claude-md): would import 1 created, 1 deduplicated, 0 superseded, 0 skipped"
    ]
    contents = {m.content for m in service.list_memories(billing, ListQuery())}
    if confirm:
        assert contents == {"Tabs, never spaces", "Line length is 100"}
        assert messages[-1].startswith(f"{source} (claude-md): imported 1 created")
    else:
        assert contents == {"Tabs, never spaces"}
        assert messages == ["Nothing was imported."]


def test_a_bad_file_is_reported_and_imports_nothing(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, tmp_path: Path
) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text("{not json\n")
    window = make_window(service)
    messages: list[str] = []
    window.transfer.message.connect(messages.append)
    window.transfer.preview([bad])
    qtbot.waitUntil(lambda: bool(messages), timeout=5000)
    assert messages == [
        f"Could not import: {bad} line 1: invalid JSON (Expecting property "
        "name enclosed in double quotes)"
    ]


def test_back_up_now_makes_a_verified_copy(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    add(service, GLOBAL_PROJECT_ID, "Prefer uv over pip", importance=4)
    window = make_window(service)
    messages: list[str] = []
    window.transfer.message.connect(messages.append)
    window.menu_actions.backup_now.trigger()
    qtbot.waitUntil(lambda: any(m.startswith("Backed up") for m in messages), timeout=5000)
    [made] = (service.paths.data_dir / "backups").glob("ltm-backup-*.sqlite")
    assert messages[-1] == f"Backed up 1 memories to {made}."
    about = AboutDialog(service, window)
    qtbot.addWidget(about)
    shown = [label.text() for label in about.findChildren(QLabel)]
    assert any(text.endswith(f"({made.name})") for text in shown)


def test_the_preview_says_why_entries_are_skipped_or_replace_others(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    twin = add(service, GLOBAL_PROJECT_ID, "Always use tabs, never spaces", importance=4)
    source = tmp_path / "CLAUDE.md"
    source.write_text("- Use tabs, never spaces\n")
    [report] = import_files(service, [source], GLOBAL_PROJECT_ID, dry_run=True)
    assert preview_text(report) == (
        f"{source} (claude-md): would import 1 created, 0 deduplicated, 1 superseded, "
        f"0 skipped\n  line 1: “Use tabs, never spaces” would replace {twin.id}"
    )
    exported = tmp_path / "x.jsonl"
    export_all(service, exported, "jsonl")
    [again] = import_files(service, [exported], GLOBAL_PROJECT_ID, dry_run=True)
    assert preview_text(again).endswith(
        "line 3: skipped, already there (same id, same scope and text)"
    )
