"""The architecture, enforced: who may import what."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from ltm_desktop.core.backend import LIST_ORDERS
from ltm_desktop.store.memory_reads import ORDERINGS

PACKAGE = Path(__file__).resolve().parents[2] / "ltm_desktop"

# package -> top-level modules it must never import (directly).
FORBIDDEN = {
    "core": {
        "sqlite3",
        "PySide6",
        "shiboken6",
        "ltm_desktop.store",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.launching",
        "ltm_desktop.cli",
    },
    "store": {
        "PySide6",
        "shiboken6",
        "psycopg",
        "psycopg_pool",
        "ltm_desktop.postgres",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.launching",
        "ltm_desktop.cli",
    },
    # The PostgreSQL engine: the only package that imports psycopg; it shares only
    # ltm_desktop.engine with SQLite's.
    "postgres": {
        "sqlite3",
        "PySide6",
        "shiboken6",
        "ltm_desktop.store",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.launching",
        "ltm_desktop.cli",
    },
    # What both engines share: no database driver, no engine.
    "engine": {
        "sqlite3",
        "psycopg",
        "psycopg_pool",
        "PySide6",
        "shiboken6",
        "ltm_desktop.store",
        "ltm_desktop.postgres",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.launching",
        "ltm_desktop.cli",
    },
    "api": {"sqlite3", "PySide6", "shiboken6", "ltm_desktop.store", "ltm_desktop.gui"},
    "gui": {"sqlite3", "ltm_desktop.store"},
    "agent": {"sqlite3", "PySide6", "shiboken6", "ltm_desktop.store", "ltm_desktop.gui"},
    "embedding": {
        "sqlite3",
        "PySide6",
        "shiboken6",
        "ltm_desktop.store",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.agent",
    },
    "commands": {"sqlite3", "PySide6", "shiboken6", "ltm_desktop.store", "ltm_desktop.gui"},
    # Project identity is read on every hook turn: files only, never a git process.
    "core/projects": {"subprocess", "multiprocessing", "ltm_desktop.embedding"},
    # The offline outbox: the core, and its own SQLite files through ``store.outbox`` (no
    # other part of the store: ``OUTBOX_MAY``); no driver of the shared database, no Qt,
    # no API.
    "outbox": {
        "psycopg",
        "psycopg_pool",
        "PySide6",
        "shiboken6",
        "ltm_desktop.store",
        "ltm_desktop.postgres",
        "ltm_desktop.engine",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.agent",
        "ltm_desktop.launching",
        "ltm_desktop.cli",
    },
    # The composition root: below the agent side (whose workers a long-lived process hands
    # in), the API, the window and the commands.
    "launching": {
        "PySide6",
        "shiboken6",
        "ltm_desktop.agent",
        "ltm_desktop.api",
        "ltm_desktop.gui",
        "ltm_desktop.commands",
        "ltm_desktop.cli",
    },
}
# What the outbox may use of the store, whose other modules it must not import.
OUTBOX_MAY = ("ltm_desktop.store.outbox",)
# The packages that alone may import a module.
ONLY_IN: dict[str, tuple[str, ...]] = {
    "sqlite3": ("store",),
    "psycopg": ("postgres",),
    "psycopg_pool": ("postgres",),
    "PySide6": ("gui",),
    "shiboken6": ("gui",),
}
# Modules that alone may import a heavy dependency (agents spawn the others per event).
ONLY_MODULE = {
    "mcp": "agent/mcp/server.py",
    "mcp_types": "agent/mcp/server.py",
    "tokenizers": "embedding/static.py",
    "detect_secrets": "core/privacy/secret_patterns.py",  # its patterns, cached for the others
    "confusable_homoglyphs": "core/privacy/homoglyphs.py",  # 900 KB of JSON: only for non-ASCII text
}
# Dependencies that only one package may import (the HTTP API's server stack).
ONLY_UNDER = {"starlette": "api/http/", "uvicorn": "api/http/"}

# What the store may use of the core: records, contracts, and the query parser its indexes
# follow (None: any name). The rules, versions and write decisions are the core's alone,
# and so are the errors that report a decision: a store that raises them decides.
STORE_USES_OF_CORE: dict[str, set[str] | None] = {
    "ltm_desktop.core.backend": None,
    "ltm_desktop.core.records": None,
    "ltm_desktop.core.inbox.proposals": {
        "ExtractionRun",
        "MergeMember",
        "Proposal",
        "ProposalState",
        "RunStatus",
    },  # records of the inbox
    "ltm_desktop.core.search.query": None,
    "ltm_desktop.core.errors": None,
    "ltm_desktop.core.files.atomic_files": {"replace_text"},  # the audit anchor's file (no rule)
    "ltm_desktop.core.observations": {"ObservationPayload"},
    "ltm_desktop.core.projects.paths": {"ProjectPath"},  # a record of where a project is
    "ltm_desktop.core.offline": {"QueuedKind", "QueuedWrite"},  # the outbox's records
    # the read cache keeps memories as the export writes them
    "ltm_desktop.core.transfer.jsonl_format": {"memory_from_record", "memory_record"},
    "ltm_desktop.core.settings.database_url": {"DatabaseUrl"},  # says where, not the password
    # the change feed's seam and its plumbing (wakes, no rule): each engine gives one
    "ltm_desktop.core.change_feed": {"ChangeFeed", "PollingChangeFeed", "Wake", "Wakers"},
}
DECISION_ERRORS = {"Conflict", "StaleEdit", "InvalidInput"}
# The composition root builds the SQLite store and hands it to the service; backups.py
# copies and restores its file (SQLite's online backup) without opening a service.
STORE_USERS = {"launching/stores.py", "launching/copies.py", "backups.py"}


def imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def imported_pairs(path: Path) -> set[tuple[str, str]]:
    """(module, name) for every ``from module import name``; ``import m`` is (m, "*")."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    pairs: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs.update((alias.name, "*") for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs.update((node.module, alias.name) for alias in node.names)
    return pairs


def store_uses_of_core_beyond_storage(path: Path) -> list[str]:
    """What ``path`` (a store module) imports from the core that is not storage's to use."""
    problems = []
    for module, name in sorted(imported_pairs(path)):
        dotted = module if name == "*" else f"{module}.{name}"
        if not violates(dotted, {"ltm_desktop.core"}):
            continue
        if module == "ltm_desktop.core" or module not in STORE_USES_OF_CORE:
            problems.append(f"{path.name} imports {dotted}")
            continue
        allowed = STORE_USES_OF_CORE[module]
        if (allowed is not None and name not in allowed) or name in DECISION_ERRORS:
            problems.append(f"{path.name} imports {dotted}")
    return sorted(problems)


def violates(name: str, forbidden: set[str]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


def python_files(package: str | None = None) -> list[Path]:
    root = PACKAGE / package if package else PACKAGE
    return sorted(root.rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_respect_layers(package: str) -> None:
    problems = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in python_files(package)
        for name in sorted(imported_names(path))
        if violates(name, FORBIDDEN[package])
        and not (package == "outbox" and violates(name, set(OUTBOX_MAY)))
    ]
    assert problems == []


@pytest.mark.slow
def test_sqlite_and_qt_live_in_one_package_each() -> None:
    problems = []
    for path in python_files():
        parts = path.relative_to(PACKAGE).parts
        home = parts[0] if len(parts) > 1 else None
        for name in imported_names(path):
            top = name.split(".")[0]
            if top in ONLY_IN and home not in ONLY_IN[top]:
                problems.append(f"{path.relative_to(PACKAGE.parent)} imports {top}")
    assert problems == []


# The consolidation's core (grouping, merge rules) decides; the model that writes a merge
# is asked on the agent side (agent/consolidation), so the core package knows no HTTP,
# no agent code, and no embedding library (it gets an Embedder).
CONSOLIDATION_FORBIDDEN = {
    "ltm_desktop.agent",
    "ltm_desktop.embedding",
    "httpx2",
    "httpx",
    "numpy",
    "urllib",
}


def test_the_consolidation_core_asks_no_model_itself() -> None:
    files = python_files("core/consolidation")
    assert files  # the rule guards something real
    problems = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in files
        for name in sorted(imported_names(path))
        if violates(name, CONSOLIDATION_FORBIDDEN | FORBIDDEN["core"])
    ]
    assert problems == []


def test_only_the_agent_side_talks_to_the_merge_model() -> None:
    """The merge writer (HTTP through the extractor's generator) is agent code."""
    names = {n for p in python_files("agent/consolidation") for n in imported_names(p)}
    assert "ltm_desktop.agent.extractor.generator" in names
    assert not any(violates(n, FORBIDDEN["agent"]) for n in names)


def test_the_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sqlite3\nfrom PySide6.QtCore import QObject\n")
    assert {"sqlite3", "PySide6.QtCore"} <= imported_names(bad)
    assert violates("PySide6.QtCore", FORBIDDEN["core"])


# Split by job, not by line count: past SOFT_LINES a module is reported (a warning, for a
# look at whether it does two jobs); past HARD_LINES it fails.
SOFT_LINES, HARD_LINES = 450, 800


def long_modules(limit: int) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE.parent)}: {n} lines"
        for path in python_files()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > limit
    ]


def test_modules_stay_readable() -> None:
    for entry in long_modules(SOFT_LINES):
        warnings.warn(f"long module (does it do two jobs?): {entry}", stacklevel=1)
    assert long_modules(HARD_LINES) == []


def test_only_the_mcp_server_module_imports_the_mcp_sdk() -> None:
    problems = []
    for path in python_files():
        home = path.relative_to(PACKAGE).as_posix()
        for name in imported_names(path):
            top = name.split(".")[0]
            if top in ONLY_MODULE and home != ONLY_MODULE[top]:
                problems.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert problems == []


METHODS_PACKAGE = "ltm_desktop.api.methods"
# The modules the methods are registered with, that must not know them (no circle back).
REGISTRY_MODULES = ("api/registry.py", "api/params.py", "api/call.py", "api/dispatch.py")


def imports_of_the_methods(path: Path) -> list[str]:
    """What ``path`` imports of the methods package (relative imports count too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append("." * node.level + (node.module or ""))
    for module, name in imported_pairs(path):
        if violates(module, {METHODS_PACKAGE}):
            found.append(module)
        elif violates(f"{module}.{name}", {METHODS_PACKAGE}):  # from ltm_desktop.api import methods
            found.append(f"{module}.{name}")
    return sorted(found)


def test_no_method_module_imports_another_and_the_registry_none() -> None:
    """A method module imports the registry; only the package face imports the modules."""
    modules = [p for p in python_files("api/methods") if p.name != "__init__.py"]
    assert len(modules) >= 5  # the rule guards something real
    problems = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in modules + [PACKAGE / m for m in REGISTRY_MODULES]
        for name in imports_of_the_methods(path)
    ]
    assert problems == []


def test_the_methods_checker_catches_a_method_importing_another(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from ltm_desktop.api.methods.memories import memory_get\n"
        "from ltm_desktop.api import methods\n"
        "from . import search\n"
    )
    assert imports_of_the_methods(bad) == [
        ".",
        "ltm_desktop.api.methods",
        "ltm_desktop.api.methods.memories",
    ]


@pytest.mark.slow
def test_only_the_http_package_imports_the_http_stack() -> None:
    problems = []
    for path in python_files():
        home = path.relative_to(PACKAGE).as_posix()
        for name in imported_names(path):
            top = name.split(".")[0]
            if top in ONLY_UNDER and not home.startswith(ONLY_UNDER[top]):
                problems.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert problems == []
    stack = {n.split(".")[0] for p in python_files("api/http") for n in imported_names(p)}
    assert set(ONLY_UNDER) <= stack  # the rule guards something real


@pytest.mark.slow
def test_agent_entry_points_import_neither_qt_nor_the_sdk_until_needed() -> None:
    """Measured, not just read: what ``import`` really pulls in (no lazy import slips)."""
    code = (
        "import sys\n"
        "import ltm_desktop.cli, ltm_desktop.agent.tools.toolbox, ltm_desktop.agent.connect\n"
        "import ltm_desktop.agent.mcp.handover, ltm_desktop.agent.mcp.warm, ltm_desktop.serve\n"
        "heavy = sorted(m for m in ('mcp', 'PySide6', 'pydantic', 'numpy', 'tokenizers')\n"
        "               if m in sys.modules)\n"
        "import ltm_desktop.agent.mcp.server\n"
        "qt = 'PySide6' in sys.modules\n"
        "print(heavy, qt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False"


def test_the_command_line_starts_without_the_store_or_the_service() -> None:
    """Every command pays for what ``ltm-desktop`` imports before it runs (``mcp`` hands
    over to a warm process in tens of milliseconds, or forks the process that opens the
    store before it imports the SDK; the hooks run on every turn)."""
    code = (
        "import sys\n"
        "import ltm_desktop.cli, ltm_desktop.agent.mcp.handover, ltm_desktop.agent.mcp.forked\n"
        "heavy = ('sqlite3', 'ltm_desktop.store', 'ltm_desktop.core.service', 'tomllib',\n"
        "         'ltm_desktop.core.transfer.exporting', 'ltm_desktop.core.transfer.importing', 'asyncio')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


HOOK_MODULES = (
    "ltm_desktop.cli",
    "ltm_desktop.agent.hooks.runner",
    "ltm_desktop.agent.hooks.handlers",
    "ltm_desktop.agent.hooks.opening",
    "ltm_desktop.agent.hooks.relevance",
    "ltm_desktop.agent.hooks.session_state",
    "ltm_desktop.agent.connect",
    "ltm_desktop.agent.socket_access",
    "ltm_desktop.agent.direct_access",
    "ltm_desktop.launching",
)


def test_the_hook_path_imports_neither_qt_nor_the_sdk_nor_the_server() -> None:
    """Measured: everything ``ltm-desktop hook`` may import, with both accesses."""
    code = (
        "import sys\n"
        f"for name in {HOOK_MODULES!r}:\n"
        "    __import__(name)\n"
        "heavy = ('mcp', 'mcp_types', 'PySide6', 'shiboken6', 'pydantic', 'ltm_desktop.serve',\n"
        "         'ltm_desktop.api.server', 'asyncio')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("engine", ["store", "postgres", "engine"])
def test_the_engines_decide_nothing(engine: str) -> None:
    """An engine implements storage only: no rule of the model lives in store/ (SQLite),
    postgres/ or what they share (engine/)."""
    files = python_files(engine)
    assert files
    problems = [p for path in files for p in store_uses_of_core_beyond_storage(path)]
    assert problems == []


def test_the_store_checker_catches_a_rule_put_back(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from ltm_desktop.core.rules import SUPERSEDE_THRESHOLD, jaccard\n"
        "from ltm_desktop.core.versions import check_version\n"
        "from ltm_desktop.core.errors import Conflict, NotFound\n"
        "from ltm_desktop.core import writing\n"
        "from ltm_desktop.core.observations import build_observation\n"
    )
    assert store_uses_of_core_beyond_storage(bad) == [
        "bad.py imports ltm_desktop.core.errors.Conflict",
        "bad.py imports ltm_desktop.core.observations.build_observation",
        "bad.py imports ltm_desktop.core.rules.SUPERSEDE_THRESHOLD",
        "bad.py imports ltm_desktop.core.rules.jaccard",
        "bad.py imports ltm_desktop.core.versions.check_version",
        "bad.py imports ltm_desktop.core.writing",
    ]


def test_only_the_composition_root_opens_the_store() -> None:
    """Outside store/ nothing reaches into its modules, and only launching/ builds one (and
    backups.py copies its file)."""
    problems = []
    for path in python_files():
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "store":
            continue
        for module, name in imported_pairs(path):
            dotted = module if name == "*" or module != "ltm_desktop" else f"{module}.{name}"
            if not violates(dotted, {"ltm_desktop.store"}):
                continue
            if relative.parts[0] == "outbox" and violates(dotted, set(OUTBOX_MAY)):
                continue  # the outbox's own files, kept by the store
            if dotted != "ltm_desktop.store" or str(relative) not in STORE_USERS:
                problems.append(f"{relative} imports {dotted}")
    assert problems == []


def store_reached_through_a_service(path: Path) -> list[str]:
    """Lines of ``path`` that read ``<something>.service.store`` or ``service.store``."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.search(r"service\.(store|views)\b", line):
            found.append(f"{path.name}:{number}: {line.strip()}")
    return found


def test_only_the_core_reaches_into_the_services_store() -> None:
    """The API, command line, agent code and window ask the service (DatabaseInfo...),
    never its store or its MEMORY.md writer: the rules stay behind one facade."""
    problems = []
    for path in python_files():
        if path.relative_to(PACKAGE).parts[0] != "core":
            problems += store_reached_through_a_service(path)
    assert problems == []


def test_the_facade_checker_catches_a_reach_past_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("name = self._service.store.get_project(pid).name\n")
    assert store_reached_through_a_service(bad) == [
        "bad.py:1: name = self._service.store.get_project(pid).name"
    ]


def test_the_store_serves_every_order_the_core_accepts() -> None:
    assert set(ORDERINGS) == set(LIST_ORDERS)


def test_opening_the_service_loads_no_model_until_something_is_embedded(tmp_path: Path) -> None:
    """A command that opens the database (status, a hook without the app) stays light:
    numpy and the model load on the first search or write that needs a vector."""
    code = (
        "import sys\n"
        "from ltm_desktop.launching import open_service\n"
        f"opened = open_service({str(tmp_path / 'data')!r}, {str(tmp_path / 'c.toml')!r})\n"
        "opened.service.projects()\n"
        "loaded = sorted(m for m in ('numpy', 'tokenizers') if m in sys.modules)\n"
        "opened.service.close()\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
