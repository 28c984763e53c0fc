"""Alt keys for a dialog's buttons: every push button and check box gets its own ``&`` letter.

A caption that already names one keeps it; the others take the first free letter of a
word, then any free letter. Buttons on different pages of a tab widget may share a letter
(only one page shows at a time), never with the buttons around the tabs.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QCheckBox, QPushButton, QStackedWidget, QWidget


def mnemonic(text: str) -> str | None:
    """The lower-case letter after a single ``&`` in ``text`` (``&&`` is a literal &)."""
    i = 0
    while i < len(text) - 1:
        if text[i] == "&":
            if text[i + 1] != "&":
                return text[i + 1].lower()
            i += 1
        i += 1
    return None


def with_mnemonic(text: str, taken: set[str]) -> str:
    """``text`` with an ``&`` before its first untaken letter (word starts first)."""
    starts = [
        i for i, c in enumerate(text) if c.isalnum() and (i == 0 or not text[i - 1].isalnum())
    ]
    rest = [i for i, c in enumerate(text) if c.isalnum() and i not in starts]
    for i in starts + rest:
        if text[i].lower() not in taken:
            taken.add(text[i].lower())
            return f"{text[:i]}&{text[i:]}"
    return text


def _page_of(button: QWidget, root: QWidget) -> QWidget | None:
    """The stacked page (a tab) holding ``button`` under ``root``, if any."""
    child, parent = button, button.parentWidget()
    while parent is not None and parent is not root:
        if isinstance(parent, QStackedWidget):
            return child
        child, parent = parent, parent.parentWidget()
    return None


def buttons_by_page(root: QWidget) -> dict[QWidget | None, list[QAbstractButton]]:
    """Push buttons and check boxes, grouped by the tab page they sit on (None: no page)."""
    groups: dict[QWidget | None, list[QAbstractButton]] = {}
    for button in root.findChildren(QAbstractButton):
        if isinstance(button, QPushButton | QCheckBox) and button.text():
            groups.setdefault(_page_of(button, root), []).append(button)
    return groups


def _assign(buttons: list[QAbstractButton], taken: set[str]) -> None:
    for button in buttons:
        letter = mnemonic(button.text())
        if letter is not None and letter not in taken:
            taken.add(letter)
    for button in buttons:
        letter = mnemonic(button.text())
        if letter is None:
            button.setText(with_mnemonic(button.text(), taken))


def assign_mnemonics(root: QWidget) -> None:
    """Give every captioned push button and check box under ``root`` a unique Alt key."""
    groups = buttons_by_page(root)
    shared: set[str] = set()
    _assign(groups.pop(None, []), shared)
    for buttons in groups.values():
        _assign(buttons, set(shared))
