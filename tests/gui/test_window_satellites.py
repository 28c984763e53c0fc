"""The main window composes its satellites and none of them imports it back: each is given
the parts of the window it acts on (an import circle otherwise, even a type-only one)."""

from __future__ import annotations

import ast
from pathlib import Path

GUI = Path(__file__).resolve().parents[2] / "ltm_desktop" / "gui"
WINDOW = "ltm_desktop.gui.window.main_window"
COMPOSITION_ROOT = GUI / "app.py"  # opens the window


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top, in a function or under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_nothing_in_the_gui_but_its_entry_imports_the_main_window() -> None:
    importers = sorted(
        str(path.relative_to(GUI))
        for path in GUI.rglob("*.py")
        if path != COMPOSITION_ROOT and path.stem != "main_window"
        if WINDOW in imported_modules(path)
    )
    assert importers == []
