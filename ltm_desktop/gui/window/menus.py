"""Every command as a QAction with its shortcut (standard keys where Qt has one), in menus."""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

Key = QKeySequence.StandardKey


@dataclass
class WindowActions:
    new_memory: QAction
    save: QAction
    revert: QAction
    select_all: QAction
    delete: QAction
    restore: QAction
    bulk_edit: QAction
    move_to: QAction
    copy_to: QAction
    undo: QAction
    redo: QAction
    find: QAction
    refresh: QAction
    show_removed: QAction
    show_expired: QAction
    show_projects: QAction
    show_details: QAction
    go_projects: QAction
    go_memories: QAction
    go_trash: QAction
    go_stale: QAction
    go_observations: QAction
    go_activity: QAction
    go_inbox: QAction
    go_editor: QAction
    go_history: QAction
    go_precis: QAction
    open_folder: QAction
    extract: QAction
    export: QAction
    import_: QAction
    backup_now: QAction
    quit: QAction
    connect: QAction
    about: QAction

    def all(self) -> list[QAction]:
        return [getattr(self, f.name) for f in fields(self)]


def _action(
    window: QMainWindow, text: str, shortcut: QKeySequence | Key | str | None = None, tip: str = ""
) -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
    window.addAction(action)  # shortcuts work even where the menu bar is hidden
    return action


def build_actions(window: QMainWindow) -> WindowActions:
    a = WindowActions(
        new_memory=_action(window, "&New memory", Key.New, "Write a memory in the selected scope"),
        save=_action(window, "&Save", Key.Save, "Save the memory being edited"),
        revert=_action(window, "&Revert changes", "Ctrl+Shift+R", "Drop unsaved edits"),
        select_all=_action(
            window,
            "Select &all",
            Key.SelectAll,
            "Select every memory the list shows, also those not scrolled to yet",
        ),
        delete=_action(
            window, "&Delete (move to Trash)", Key.Delete, "Move the selected memories to the Trash"
        ),
        restore=_action(window, "R&estore from Trash", "Ctrl+R", "Restore the selected memories"),
        bulk_edit=_action(
            window,
            "Set &fields of selected…",
            "Ctrl+Shift+E",
            "Set category, importance, tags or expiry on every selected memory",
        ),
        move_to=_action(
            window,
            "&Move to scope…",
            "Ctrl+Shift+M",
            "Move the selected memories to another project, or to global",
        ),
        copy_to=_action(
            window,
            "Cop&y to scope…",
            "Ctrl+Shift+C",
            "Copy the selected memories to another project, or to global",
        ),
        undo=_action(window, "&Undo", Key.Undo),
        redo=_action(window, "&Redo", "Ctrl+Shift+Z"),
        find=_action(window, "&Find…", Key.Find, "Search memories"),
        refresh=_action(window, "Re&fresh", Key.Refresh),
        show_removed=_action(window, "Show &removed memories", "Ctrl+Alt+R"),
        show_expired=_action(window, "Show &expired memories", "Ctrl+Alt+E"),
        show_projects=_action(
            window, "Projects &panel", "Ctrl+Shift+L", "Show or hide the list of projects"
        ),
        show_details=_action(
            window,
            "&Details panel",
            "Ctrl+Shift+D",
            "Show or hide the editor, history and MEMORY.md",
        ),
        go_projects=_action(window, "&Projects", "Ctrl+0"),
        go_memories=_action(window, "&Memories", "Ctrl+1"),
        go_trash=_action(window, "&Trash", "Ctrl+2"),
        go_stale=_action(window, "&Stale candidates", "Ctrl+3"),
        go_observations=_action(window, "&Observations", "Ctrl+4"),
        go_activity=_action(window, "&Activity", "Ctrl+5"),
        go_inbox=_action(window, "&Inbox", "Ctrl+6", "What the extractor found, for review"),
        go_editor=_action(window, "&Editor", "Ctrl+E"),
        go_history=_action(window, "&History", "Ctrl+H"),
        go_precis=_action(window, "MEMORY.md &preview", "Ctrl+M"),
        open_folder=_action(window, "Open &data folder", "Ctrl+Shift+O"),
        extract=_action(
            window,
            "E&xtract memories from a transcript…",
            "Ctrl+Shift+T",
            "Ask the configured model what is worth remembering in an agent's transcript",
        ),
        export=_action(
            window, "Ex&port…", "Ctrl+Shift+X", "Write every memory to a JSONL or Markdown file"
        ),
        import_=_action(
            window,
            "&Import…",
            "Ctrl+I",
            "Add memories from an export, CLAUDE.md, AGENTS.md or GEMINI.md (with a preview)",
        ),
        backup_now=_action(
            window, "&Back up now", "Ctrl+Shift+B", "Make a verified copy of the database"
        ),
        quit=_action(window, "&Quit", Key.Quit),
        connect=_action(window, "&Connect an agent…", Key.HelpContents),
        about=_action(window, "&About ltm-desktop", "Ctrl+F1"),
    )
    a.undo.setEnabled(False)
    a.redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    a.redo.setEnabled(False)
    a.show_removed.setCheckable(True)
    a.show_expired.setCheckable(True)
    for panel in (a.show_projects, a.show_details):
        panel.setCheckable(True)
        panel.setChecked(True)
    if a.quit.shortcut().isEmpty():
        a.quit.setShortcut(QKeySequence("Ctrl+Q"))
    return a


def build_menus(
    window: QMainWindow, a: WindowActions, extra_views: tuple[QAction, ...] = ()
) -> None:
    """The menu bar; ``extra_views``: more tabs to go to (the Overview's), after the Inbox."""
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    for action in (
        a.new_memory,
        a.save,
        a.revert,
        None,
        a.extract,
        None,
        a.import_,
        a.export,
        a.backup_now,
        None,
        a.open_folder,
        None,
        a.quit,
    ):
        file_menu.addSeparator() if action is None else file_menu.addAction(action)
    edit = bar.addMenu("&Edit")
    for action in (
        a.undo,
        a.redo,
        None,
        a.select_all,
        a.delete,
        a.restore,
        None,
        a.bulk_edit,
        a.move_to,
        a.copy_to,
        None,
        a.find,
    ):
        edit.addSeparator() if action is None else edit.addAction(action)
    view = bar.addMenu("&View")
    for action in (
        a.go_projects,
        a.go_memories,
        a.go_trash,
        a.go_stale,
        a.go_observations,
        a.go_activity,
        a.go_inbox,
        *extra_views,
        None,
        a.go_editor,
        a.go_history,
        a.go_precis,
        None,
        a.show_projects,
        a.show_details,
        None,
        a.show_removed,
        a.show_expired,
        None,
        a.refresh,
    ):
        view.addSeparator() if action is None else view.addAction(action)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(a.connect)
    help_menu.addAction(a.about)
