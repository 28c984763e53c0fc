"""The editor's fields, their values as one record, and an inline message under each."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import EDITABLE_FIELDS, Category, Memory, MemoryDraft
from ltm_desktop.core.rules import MAX_CONTENT_CHARS, MAX_TTL_DAYS
from ltm_desktop.gui import theme
from ltm_desktop.gui.formatting import parse_tags, tags_text

FIELDS = EDITABLE_FIELDS
# fields whose rules need nothing but the value: checked all at once before a save
CHECKED_HERE = ("title", "content", "category", "importance", "tags", "ttl_days")


@dataclass(frozen=True)
class FormValues:
    title: str = ""
    content: str = ""
    category: str = Category.KNOWLEDGE.value
    importance: int = 0  # a new memory's; the editor starts it at the configured default
    tags: tuple[str, ...] = ()
    ttl_days: int | None = None
    files: tuple[str, ...] = ()  # relative to the project's directory

    @classmethod
    def of(cls, memory: Memory) -> FormValues:
        return cls(
            memory.title,
            memory.content,
            memory.category.value,
            memory.importance,
            memory.tags,
            memory.ttl_days,
            memory.files,
        )

    def changes_from(self, base: FormValues) -> dict[str, Any]:
        """The fields that differ from ``base``, as ``service.update`` takes them."""
        mine, theirs = asdict(self), asdict(base)
        changes = {k: v for k, v in mine.items() if v != theirs[k]}
        for name in ("tags", "files"):
            if name in changes:
                changes[name] = list(changes[name])
        return changes

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            content=self.content,
            title=self.title.strip() or None,
            category=self.category,
            importance=self.importance,
            tags=list(self.tags),
            ttl_days=self.ttl_days,
            files=list(self.files),
        )


class EditorForm(QWidget):
    """Title, content, category, importance, tags and time to live.

    Signals:
        edited(): the person changed a field.
    """

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLineEdit(self)
        self.category = QComboBox(self)
        for category in Category:
            self.category.addItem(category.value.capitalize(), category.value)
        self.importance = QSpinBox(self)
        self.importance.setRange(0, 10)
        self.importance.setToolTip("0–10: higher comes first in lists and in MEMORY.md")
        self.ttl = QSpinBox(self)
        self.ttl.setRange(0, MAX_TTL_DAYS)
        self.ttl.setSpecialValueText("never expires")
        self.ttl.setSuffix(" days")
        self.ttl.setToolTip("Expire this many days after the last update (0: never)")
        self.tags = QLineEdit(self)
        self.tags.setPlaceholderText("comma, separated, tags")
        self.files = QLineEdit(self)
        self.files.setPlaceholderText("src/app.py, docs/setup.md (in the project's directory)")
        self.files.setToolTip(
            "The files this memory is about, relative to the project (absolute paths inside "
            "it are made relative). When one is deleted, the memory shows under Stale."
        )
        self.content = QPlainTextEdit(self)
        self.content.setTabChangesFocus(True)
        self.content.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.content.setPlaceholderText(
            "What should the agent remember? (Markdown is kept as typed)"
        )
        self.errors = {name: self._error_label() for name in (*FIELDS, "general")}
        self._build()
        self.content.textChanged.connect(self.on_content_changed)
        self.on_content_changed()
        for signal in (
            self.title.textEdited,
            self.category.activated,
            self.importance.valueChanged,
            self.ttl.valueChanged,
            self.tags.textEdited,
            self.files.textEdited,
            self.content.textChanged,
        ):
            signal.connect(self.on_field_edited)
        self._quiet = False

    def _error_label(self) -> QLabel:
        label = QLabel(self)
        label.setWordWrap(True)
        label.setStyleSheet(f"color: {theme.css(theme.error_color())};")
        label.hide()
        return label

    def _build(self) -> None:
        # Two short rows rather than one long one: the editor fits a narrow window.
        row = QHBoxLayout()
        row.addWidget(self.category)
        row.addWidget(QLabel("Importance", self))
        row.addWidget(self.importance)
        row.addStretch(1)
        expires = QHBoxLayout()
        expires.addWidget(self.ttl)
        expires.addStretch(1)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("&Title", self._with_error(self.title, "title"))
        form.addRow("&Category", self._with_error_layout(row, ("category", "importance")))
        form.addRow("&Expires", self._with_error_layout(expires, ("ttl_days",)))
        form.addRow("T&ags", self._with_error(self.tags, "tags"))
        self._files_row = self._with_error(self.files, "files")
        form.addRow("F&iles", self._files_row)
        self._form = form
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        content_label = QLabel("C&ontent", self)
        content_label.setBuddy(self.content)
        layout.addWidget(content_label)
        layout.addWidget(self.content, 1)
        self.counter = QLabel(self)  # how much of the content limit is used
        self.counter.setEnabled(False)
        layout.addWidget(self.counter)
        layout.addWidget(self.errors["content"])
        layout.addWidget(self.errors["general"])

    def _with_error(self, widget: QWidget, name: str) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(widget)
        layout.addWidget(self.errors[name])
        return box

    def _with_error_layout(self, row: QHBoxLayout, names: tuple[str, ...]) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        for name in names:
            layout.addWidget(self.errors[name])
        return box

    def hide_files(self) -> None:
        """For the Inbox: a proposal has no files (they are set on the memory later)."""
        self._form.setRowVisible(self._files_row, False)

    def on_field_edited(self, *_args: object) -> None:
        if not self._quiet:
            self.edited.emit()

    def values(self) -> FormValues:
        ttl = self.ttl.value()
        return FormValues(
            title=self.title.text().strip(),
            content=self.content.toPlainText(),
            category=self.category.currentData(),
            importance=self.importance.value(),
            tags=tuple(parse_tags(self.tags.text())),
            ttl_days=ttl or None,
            files=tuple(parse_tags(self.files.text())),  # comma-separated, like tags
        )

    def set_values(self, values: FormValues) -> None:
        self._quiet = True
        try:
            self.title.setText(values.title)
            self.category.setCurrentIndex(max(0, self.category.findData(values.category)))
            self.importance.setValue(values.importance)
            self.ttl.setValue(values.ttl_days or 0)
            self.tags.setText(tags_text(values.tags))
            self.files.setText(tags_text(values.files))
            for field in (self.title, self.tags, self.files):
                field.setCursorPosition(0)  # a long one shows its start, not its end
            if self.content.toPlainText() != values.content:
                self.content.setPlainText(values.content)
        finally:
            self._quiet = False
        self.clear_errors()

    def show_error(self, field: str | None, message: str) -> None:
        label = self.errors.get(field or "general", self.errors["general"])
        label.setText(f"⚠ {message}")
        label.show()

    def on_content_changed(self) -> None:
        count = len(self.content.toPlainText())
        self.counter.setText(f"{count:,} / {MAX_CONTENT_CHARS:,} characters")
        over = count > MAX_CONTENT_CHARS
        self.counter.setEnabled(over)  # muted until it matters
        self.counter.setStyleSheet(f"color: {theme.css(theme.error_color())};" if over else "")

    def check_all(self, values: FormValues, *, new: bool) -> bool:
        """Every field's problem at once (not the first only); True when all are valid."""
        self.clear_errors()
        ok = True
        for name, value in asdict(values).items():
            if name not in CHECKED_HERE:
                continue  # its rule needs the scope (e.g. paths under the project): the core's
            if new and name == "title" and not value.strip():
                continue  # a new memory's title may come from its content
            try:
                rules.validate_changes({name: list(value) if isinstance(value, tuple) else value})
            except InvalidInput as exc:
                self.show_error(exc.field if exc.field in self.errors else name, str(exc))
                ok = False
        return ok

    def clear_errors(self) -> None:
        for label in self.errors.values():
            label.hide()
            label.clear()

    def error_text(self, field: str) -> str:
        label = self.errors[field]
        return label.text() if label.isVisibleTo(self) else ""

    def set_new_mode(self, new: bool) -> None:
        self.title.setPlaceholderText(
            "(optional: taken from the first line of the content)" if new else "Title"
        )
