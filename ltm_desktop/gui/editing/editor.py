"""Edit one memory, or write a new one; never overwrite a change someone else made meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict, DatabaseBusy, InvalidInput, NotFound
from ltm_desktop.core.records import AddResult, Memory
from ltm_desktop.gui import ops
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.editing.conflicts import OVERWRITE, RELOAD
from ltm_desktop.gui.editing.form import EditorForm, FormValues
from ltm_desktop.gui.editing.merge_dialog import MergeDialog
from ltm_desktop.gui.errors import EditConflict
from ltm_desktop.gui.formatting import absolute_time, relative_time
from ltm_desktop.gui.outcome_text import add_result_text
from ltm_desktop.gui.window.banner import Banner


class EditorPanel(QWidget):
    """Holds the memory as loaded (``base``) and the person's edits on top of it.

    Signals:
        memory_opened(str): the editor now shows this memory (e.g. after creating it).
        dirty_changed(bool): there are (no longer) unsaved edits.
        open_requested(str): the person asked to open another memory (a conflicting twin).
        occupied_changed(bool): the editor shows a memory or a new one (True), or none.
    """

    memory_opened = Signal(str)
    dirty_changed = Signal(bool)
    open_requested = Signal(str)
    occupied_changed = Signal(bool)

    def __init__(
        self, ctx: AppContext, actions: MemoryActions, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.memory_actions = actions
        self.base: Memory | None = None
        self.new_project: str | None = None
        self._dirty = False
        self._saving: str | None = None  # what a save in flight writes to
        self.merge_dialog: MergeDialog | None = None
        self.heading = QLabel(self)
        self.heading.setWordWrap(True)
        self.meta = QLabel(self)
        self.meta.setWordWrap(True)
        self.meta.setEnabled(False)  # muted, palette-aware
        self.banner = Banner(self)
        self.form = EditorForm(self)
        self.save_button = QPushButton("Save", self)
        self.saving_label = QLabel("Saving…", self)  # at once: a busy database can take seconds
        self.saving_label.setEnabled(False)
        self.saving_label.hide()
        self.revert_button = QPushButton("Revert", self)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        buttons = QHBoxLayout()
        buttons.addWidget(self.saving_label)
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.meta)
        layout.addWidget(self.banner)
        layout.addWidget(self.form, 1)
        layout.addLayout(buttons)
        self.form.edited.connect(self.on_edited)
        ctx.bridge.changed.connect(self.on_changes)
        self._show_nothing()

    # -- state ------------------------------------------------------------

    @property
    def memory_id(self) -> str | None:
        return self.base.id if self.base else None

    def is_dirty(self) -> bool:
        return self._dirty

    def _baseline(self) -> FormValues:
        return FormValues.of(self.base) if self.base else self._new_values()

    def _new_values(self) -> FormValues:
        """A new memory's fields: empty, at the configured default importance."""
        return FormValues(importance=self.ctx.service.settings.default_importance)

    def on_edited(self) -> None:
        self._set_dirty(self.form.values() != self._baseline())

    def _set_dirty(self, dirty: bool) -> None:
        self.save_button.setEnabled(dirty)
        self.revert_button.setEnabled(dirty)
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    def _show_nothing(self) -> None:
        self.base, self.new_project = None, None
        self.heading.setText("<b>No memory selected</b>")
        self.meta.setText("Select a memory to edit it, or press Ctrl+N to write a new one.")
        self.form.set_values(FormValues())
        self.form.setEnabled(False)
        self.banner.hide()
        self._set_dirty(False)
        self.occupied_changed.emit(False)

    def _load_into_form(self, memory: Memory) -> None:
        self.base, self.new_project = memory, None
        self.form.setEnabled(not memory.disabled)  # one in the Trash is restored, not edited
        self.form.set_new_mode(False)
        self.form.set_values(FormValues.of(memory))
        self._describe(memory)
        self._set_dirty(False)
        self.occupied_changed.emit(True)
        if memory.disabled:
            self.banner.show_message(
                "This memory is in the Trash. Restore it to edit it.",
                [("Restore", lambda: self.memory_actions.restore({memory.id: memory.updated_at}))],
                warn=False,
            )

    def _describe(self, memory: Memory) -> None:
        now = self.ctx.service.now()
        state = " — <i>in the Trash</i>" if memory.disabled else ""
        self.heading.setText(f"<b>Editing</b> {memory.category.value} memory{state}")
        expires = f" · expires {absolute_time(memory.expires_at)}" if memory.ttl_days else ""
        self.meta.setText(
            f"Created {relative_time(memory.created_at, now)} by {memory.source} · "
            f"updated {relative_time(memory.updated_at, now)} · "
            f"found by agents {memory.use_count}×{expires} · {memory.id}"
        )

    # -- opening ----------------------------------------------------------

    def confirm_leave(self, then: Callable[[], None] | None = None) -> bool:
        """Ask what to do with unsaved edits before showing something else; False to stay.

        Args:
            then: what to do once a save the person asked for has succeeded (the caller
                stays put until then: the save runs in the background).
        """
        if self._saving is not None:
            return False  # a save is on its way: nothing moves until it settles
        if not self._dirty:
            return True
        title = self.form.values().title or (self.base.title if self.base else "New memory")
        answer = self.ctx.prompter.unsaved_changes(self, title)
        if answer == "save":
            self.save(then=then)
            return False
        if answer == "discard":
            self._set_dirty(False)
            return True
        return False

    def is_saving(self) -> bool:
        return self._saving is not None

    def _target(self) -> str:
        """What a save writes to: the memory's id, or the scope of a new memory."""
        return self.base.id if self.new_project is None and self.base else f"new:{self.new_project}"

    def open_memory(self, memory_id: str) -> bool:
        """Show ``memory_id``; False when the person chose to stay with unsaved edits."""
        if not memory_id:
            if not self._dirty:
                self._show_nothing()
            return True
        if memory_id == self.memory_id and self.new_project is None:
            return True
        if not self.confirm_leave(then=lambda: self.open_requested.emit(memory_id)):
            return False
        service = self.ctx.service
        self.ctx.runner.run(
            lambda: ops.load(service, memory_id),
            self._on_loaded,
            self._on_load_failed,
            key=f"editor-load-{id(self)}",
        )
        return True

    def reload(self) -> None:
        """Show the memory as stored now (unsaved edits are kept: they are asked about)."""
        if self.base is None or self.new_project is not None:
            return
        service, memory_id = self.ctx.service, self.base.id
        self.ctx.runner.run(
            lambda: ops.load(service, memory_id),
            lambda current: self._on_changed_underneath(current, None),
            self._on_load_failed,
            key=f"editor-check-{id(self)}",
        )

    def _on_loaded(self, memory: Memory) -> None:
        if self._dirty:  # edits began while loading: keep them
            return
        self.banner.hide()
        self._load_into_form(memory)
        self.memory_opened.emit(memory.id)

    def _on_load_failed(self, exc: BaseException) -> None:
        if isinstance(exc, NotFound):
            self._show_nothing()
        else:
            self.ctx.errors.report(exc, "open the memory")

    def start_new(self, project_id: str, scope_name: str) -> None:
        if not self.confirm_leave(then=lambda: self.start_new(project_id, scope_name)):
            return
        self.base, self.new_project = None, project_id
        self.form.setEnabled(True)
        self.form.set_new_mode(True)
        self.form.set_values(self._new_values())
        self.banner.hide()
        self.heading.setText(f"<b>New memory</b> in {scope_name}")
        self.meta.setText("Saved as written by you (source “gui”).")
        self._set_dirty(False)
        self.occupied_changed.emit(True)
        self.save_button.setEnabled(True)
        self.form.content.setFocus()

    # -- saving -----------------------------------------------------------

    def save(self, *, then: Callable[[], None] | None = None) -> None:
        """Save in the background; one save at a time, and its result goes to the memory it
        was for (the editor cannot move to another one until it settles)."""
        if self._saving is not None:
            return  # a second Ctrl+S while the first runs would only conflict with it
        values = self.form.values()
        if not self.form.check_all(values, new=self.new_project is not None):
            return  # every problem is shown at its field
        target = self._target()
        try:
            if self.new_project is not None:
                # files are checked by the service, against the project's directory
                draft = replace(values.draft(), files=())
                draft = replace(rules.validate_draft(draft), files=values.files)
                self._begin_save(target)
                self.memory_actions.add(
                    self.new_project,
                    draft,
                    lambda result: self._on_added(result, target, then),
                    lambda exc: self._on_save_failed(exc, target),
                )
                return
            if self.base is None:
                return
            changes = values.changes_from(FormValues.of(self.base))
            if not changes:
                self._set_dirty(False)
                if then is not None:
                    then()
                return
            rules.validate_changes({k: v for k, v in changes.items() if k != "files"})
        except InvalidInput as exc:
            self.form.show_error(exc.field, str(exc))
            return
        self._begin_save(target)
        self.memory_actions.save_edit(
            self.base,
            changes,
            lambda memory: self._on_saved(memory, target, then),
            lambda exc: self._on_save_failed(exc, target),
        )

    def _begin_save(self, target: str) -> None:
        self._saving = target
        self.save_button.setEnabled(False)
        self.saving_label.show()

    def _end_save(self, target: str) -> bool:
        """Clear the in-flight state; True if the editor still shows what was saved."""
        self._saving = None
        self.saving_label.hide()
        self.save_button.setEnabled(self._dirty or self.new_project is not None)
        return self._target() == target

    def _on_saved(self, memory: Memory, target: str, then: Callable[[], None] | None) -> None:
        if not self._end_save(target):
            return
        self.banner.hide()
        self._load_into_form(memory)
        if then is not None:
            then()

    def _on_added(self, result: AddResult, target: str, then: Callable[[], None] | None) -> None:
        if not self._end_save(target):
            return
        self._load_into_form(result.memory)
        self.banner.show_message(add_result_text(result), warn=False)
        self.memory_opened.emit(result.memory.id)
        if then is not None:
            then()

    def _on_save_failed(self, exc: BaseException, target: str) -> None:
        if not self._end_save(target):
            return
        if isinstance(exc, InvalidInput):
            self.form.show_error(exc.field, str(exc))
        elif isinstance(exc, EditConflict):
            self._settle(exc.conflict)
        elif isinstance(exc, Conflict):
            choices = []
            if exc.other_id:
                other = exc.other_id
                choices.append(("Open that memory", lambda: self.open_requested.emit(other)))
            self.banner.show_message(
                "Not saved: another memory in this scope already has exactly this text. "
                "Edit that one instead, or change the text.",
                choices,
            )
        elif isinstance(exc, NotFound):
            self.banner.show_message("Not saved: this memory no longer exists.")
        elif isinstance(exc, DatabaseBusy):
            self.banner.show_message(
                "Not saved yet: another program holds the database locked. Your edits are "
                "still here; try again once it lets go.",
                [("Retry", self.save)],
            )
        else:
            self.ctx.errors.report(exc, "save the memory")

    def revert(self) -> None:
        self.form.clear_errors()
        if self.base is not None:
            self._load_into_form(self.base)
        elif self.new_project is not None:
            self.form.set_values(self._new_values())
            self._set_dirty(False)

    # -- changes made by others ---------------------------------------------

    def on_changes(self, changes: ChangeSet) -> None:
        if self.base is None or not changes.touches_memory(self.base.id):
            return
        actor = changes.last_actor.get(self.base.id)
        service, memory_id = self.ctx.service, self.base.id
        self.ctx.runner.run(
            lambda: ops.load(service, memory_id),
            lambda current: self._on_changed_underneath(current, actor),
            lambda exc: None,
            key=f"editor-check-{id(self)}",
        )

    def _on_changed_underneath(self, current: Memory, actor: str | None) -> None:
        base = self.base
        if base is None or current.id != base.id:
            return
        same = FormValues.of(current) == FormValues.of(base) and current.disabled == base.disabled
        if not self._dirty:
            self.banner.hide()
            self._load_into_form(current)
            if not same and actor and actor != ops.ACTOR and not current.disabled:
                self.banner.show_message(f"Updated by {actor} just now.", warn=False)
            return
        if FormValues.of(current) == self.form.values():  # it now holds exactly my edits
            self._load_into_form(current)
            return
        if same:  # e.g. an agent found it again: nothing to reconcile
            self.base = current
            self._describe(current)
            return
        self._offer_choice(current, actor)

    def _offer_choice(self, current: Memory, actor: str | None) -> None:
        who = actor or "someone else"
        what = (
            "moved it to the Trash"
            if current.disabled and not (self.base and self.base.disabled)
            else "changed it"
        )
        self.banner.show_message(
            f"While you were editing, {who} {what}. Your edits are not saved yet: compare "
            "both versions and choose per field, keep your edits (fields you did not touch "
            "take their values) or load theirs (your edits are dropped)?",
            [
                ("Compare…", lambda: None if self.compare(current, who) else None),
                ("Keep mine", lambda: self.keep_mine(current)),
                ("Load theirs", lambda: self.load_theirs(current)),
            ],
        )

    def compare(self, current: Memory, who: str) -> MergeDialog:
        """Both versions side by side; the person takes either per field."""
        dialog = MergeDialog(
            self._baseline(), self.form.values(), FormValues.of(current), who, self
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._use_merged(current, dialog.merged()))
        self.merge_dialog = dialog
        dialog.open()
        return dialog

    def _use_merged(self, current: Memory, merged: FormValues) -> None:
        if self.base is None or self.base.id != current.id:
            return  # the editor has moved on
        self.banner.hide()
        self.base = current
        self.form.set_values(merged)
        self._describe(current)
        self.on_edited()

    def _settle(self, conflict: ops.WriteConflict) -> None:
        """The save was refused (the memory changed since it was opened): ask what to do."""

        def chosen(choice: str) -> None:
            if self.base is None or self.base.id != conflict.current.id:
                return  # the editor has moved on
            if choice == RELOAD:
                self.load_theirs(conflict.current)
            elif choice == OVERWRITE:
                self.keep_mine(conflict.current)
                self.save()

        self.memory_actions.conflicts.ask([conflict], "save the memory", chosen)

    def keep_mine(self, current: Memory) -> None:
        """Keep the fields I edited; take theirs for the fields I did not touch."""
        mine = self.form.values().changes_from(self._baseline())
        fields: dict[str, Any] = {k: tuple(v) if k == "tags" else v for k, v in mine.items()}
        merged = replace(FormValues.of(current), **fields)
        self.base = current
        self.form.set_values(merged)
        self._describe(current)
        self.on_edited()

    def load_theirs(self, current: Memory) -> None:
        self.banner.hide()
        self._load_into_form(current)
