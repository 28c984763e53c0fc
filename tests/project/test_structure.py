"""The shape of the code, enforced: no import circles, composition over deep inheritance,
folders a newcomer can read."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ltm_desktop"
MAX_BASES = 3
MAX_MODULES_PER_FOLDER = 25


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import, at any depth (a function's own too), except type-only ones."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for child in node.orelse for n in _imports_of(child))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    else:
        yield from _imports(node)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports (``from pkg import module`` too)."""
    found: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif node.module and node.level == 0:
            # ``from pkg import module`` ties to the module; ``from pkg import name``, to pkg
            modules = [f"{node.module}.{alias.name}" for alias in node.names]
            names = [m for m in modules if m in known] or [node.module]
            if len(names) < len(modules):
                names.append(node.module)
        else:
            continue
        found.update(name for name in names if name in known)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    # Only what a module names: a package's __init__ runs before its modules, but one that
    # imports nothing back is no tie.
    return {name: imported_modules(path, known) - {name} for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.slow
def test_no_import_circle_between_modules() -> None:
    """Type-only imports aside, no module imports (directly or through others) a module
    that imports it: each one can be read, tested and replaced on its own."""
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_one() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_type_only_imports_are_not_ties(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import x.only_types\n"
        "def f():\n    import x.lazy\n"
    )
    assert imported_modules(module, {"x.only_types", "x.lazy"}) == {"x.lazy"}


@pytest.mark.slow
def test_no_class_has_more_than_three_bases() -> None:
    """Composition over inheritance: a class that needs many parents' members should hold
    the objects that have them."""
    crowded = [
        f"{path.relative_to(PACKAGE.parent)}: {node.name} ({len(node.bases)} bases)"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and len(node.bases) > MAX_BASES
    ]
    assert crowded == []


def test_no_folder_holds_more_than_25_modules() -> None:
    """A folder a newcomer can take in at a glance; past that, split it by feature."""
    root = PACKAGE.parent
    folders = {
        path.parent
        for top in ("ltm_desktop", "tests", "bench", "scripts", "examples", "packaging")
        for path in (root / top).rglob("*.py")
        if "node_modules" not in path.parts
    }
    full = {
        str(folder.relative_to(root)): n
        for folder in folders
        if (n := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert full == {}
