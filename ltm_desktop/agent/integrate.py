"""``ltm-desktop integrate AGENT``: the hooks and the MCP server in the agent's own config.

A plan is worked out first (every file read, checked and edited in memory), so that a
file that cannot be parsed or written stops everything before anything changes. Applying
it keeps a timestamped backup of each file it changes, and rolls back the files already
written if a later one fails. Running it twice changes nothing the second time;
``uninstall`` removes exactly what was added: when the file is what an install made of a
backup, the backup's bytes come back; otherwise our entries are cut out, and a file that
only we had written is removed. A file given back as it was (or removed) takes the
backups integrate made of it along, and the agent's folder install made goes too once
that leaves it empty (what the agent or the person put there keeps it).
"""

from __future__ import annotations

import difflib
import glob
import os
import re
import shlex
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.agent.hooks.events import CLAUDE_CODE, CODEX, GEMINI
from ltm_desktop.agent.integration import json_config, json_edit, toml_config
from ltm_desktop.agent.integration.entries import (
    INTEGRATED_AGENTS,
    SCOPES,
    Target,
    hook_groups,
    mcp_entry,
    target,
)
from ltm_desktop.agent.integration.json_config import ConfigRefused
from ltm_desktop.core.files.atomic_files import replacing
from ltm_desktop.core.files.regular_files import NotRegularFile, open_regular

BACKUP_MARK = ".ltm-desktop-"
PATH_NAME = "ltm-desktop"  # the console script, as teammates have it on PATH
NOTES = {
    CLAUDE_CODE: "Claude Code loads hooks at start: restart it, or review them with /hooks.",
    CODEX: "Codex runs new hooks once you have reviewed and trusted them: open /hooks in Codex.",
    GEMINI: "Gemini CLI loads hooks at start: restart it (hooks are on unless "
    "/settings > Advanced > Enable Hooks was turned off).",
}
Edit = Callable[[str], str]


def _lines(text: str | None) -> list[str]:
    """For a diff: every line ends with a newline (a last line without one gets one)."""
    return [line if line.endswith("\n") else line + "\n" for line in (text or "").splitlines(True)]


@dataclass(frozen=True, slots=True)
class Change:
    """One file: its text now and after (None: the file does not exist / is removed)."""

    path: Path
    before: str | None
    after: str | None
    restored: bool = False  # an uninstall that gives the file back as it was before install

    def diff(self) -> str:
        old = str(self.path) if self.before is not None else "/dev/null"
        new = str(self.path) if self.after is not None else "/dev/null"
        return _unified_diff(self.before or "", self.after or "", old, new)


def _common_prefix(a: str, b: str) -> int:
    """The length of the text ``a`` and ``b`` start with (by halves: compared in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _unified_diff(before: str, after: str, old: str, new: str, context: int = 3) -> str:
    """``difflib.unified_diff`` of the two texts' lines, worked out on the lines that
    differ and ``context`` lines around them only: an edit changes a few lines, and
    difflib over the whole of an 18 MB ``~/.claude.json`` took seconds."""
    prefix = _common_prefix(before, after)
    head = before[:prefix].count("\n")
    tail = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])  # never overlapping
    tail_lines = before[len(before) - tail :].count("\n") if tail else 0
    before_lines, after_lines = _lines(before), _lines(after)
    skip = max(0, head - context)
    keep = max(0, tail_lines - context - 1)  # the last line may lack its newline
    keep = min(keep, len(before_lines) - skip, len(after_lines) - skip)
    hunks = difflib.unified_diff(
        before_lines[skip : len(before_lines) - keep],
        after_lines[skip : len(after_lines) - keep],
        old,
        new,
    )
    return "".join(_shifted(line, skip) for line in hunks)


def _shifted(line: str, lines: int) -> str:
    """A hunk header of a diff of text that started ``lines`` lines later, renumbered."""
    if not lines or not line.startswith("@@ "):
        return line
    return re.sub(r"([-+])(\d+)", lambda m: f"{m[1]}{int(m[2]) + lines}", line, count=2)


@dataclass
class Plan:
    agent: str
    scope: str
    uninstall: bool
    changes: list[Change] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said before anything is done
    folders: list[Path] = field(default_factory=list)  # the agent's, that install may make

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    @property
    def note(self) -> str | None:
        return None if self.uninstall or not self.changes else NOTES[self.agent]


def _read_regular(path: Path) -> bytes:
    """``path``'s bytes, if it is a regular file: a FIFO would make reading it wait
    forever, and ``/dev/zero`` (a link to it) never ends."""
    with os.fdopen(open_regular(path), "rb") as file:
        return file.read()


def _read(path: Path) -> str | None:
    try:
        data = _read_regular(path)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigRefused(f"{path} is a directory, not a config file") from None
    except NotRegularFile as exc:
        raise ConfigRefused(f"{path} is not a regular file but {exc.kind}") from None
    except NotADirectoryError:
        raise ConfigRefused(
            f"{path} cannot be written: a file stands where one of its directories should be"
        ) from None
    except OSError as exc:
        raise ConfigRefused(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigRefused(f"{path} is not UTF-8 text") from None


def _check_writable(path: Path) -> None:
    if path.exists() and (not path.is_file() or not os.access(path, os.W_OK)):
        raise ConfigRefused(f"{path} cannot be written (not a regular file we may write)")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigRefused(f"{path} cannot be written: {parent} is not a writable directory")


def backups(path: Path) -> list[Path]:
    """The backups ``integrate`` made of ``path``, newest first (by their names' stamp,
    then number: a name sort puts ``STAMP.bak`` after ``STAMP-1.bak``)."""

    def made(backup: Path) -> tuple[str, int]:
        stamp, _, number = (
            backup.name.removesuffix(".bak").rpartition(BACKUP_MARK)[2].partition("-")
        )
        second, _, count = number.partition("-")  # STAMP is DATE-TIME
        return f"{stamp}-{second}", int(count) if re.fullmatch(r"[0-9]+", count) else 0

    pattern = f"{glob.escape(path.name)}{BACKUP_MARK}*.bak"
    return sorted(path.parent.glob(pattern), key=made, reverse=True)


def _edits(tgt: Target, command: list[str], options: list[str]) -> dict[Path, tuple[Edit, Edit]]:
    """Each file -> (install edit, uninstall edit) on its text."""
    groups = hook_groups(tgt.agent, command, options)
    entry = mcp_entry(tgt.agent, command, options)
    if tgt.agent == CODEX:
        where = str(tgt.hooks_file)
        return {
            tgt.hooks_file: (
                lambda t: toml_config.add(t, groups, entry, where),
                lambda t: toml_config.remove(t, where),
            )
        }
    hooks_where, mcp_where = str(tgt.hooks_file), str(tgt.mcp_file)
    add_hooks: Edit = lambda t: json_config.add_hooks(t, groups, hooks_where)  # noqa: E731
    drop_hooks: Edit = lambda t: json_config.remove_hooks(t, hooks_where)  # noqa: E731
    add_server: Edit = lambda t: json_config.add_server(t, tgt.mcp_key, entry, mcp_where)  # noqa: E731
    drop_server: Edit = lambda t: json_config.remove_server(t, tgt.mcp_key, mcp_where)  # noqa: E731
    if tgt.hooks_file == tgt.mcp_file:
        return {
            tgt.hooks_file: (
                lambda t: add_server(add_hooks(t)),
                lambda t: drop_server(drop_hooks(t)),
            )
        }
    return {tgt.hooks_file: (add_hooks, drop_hooks), tgt.mcp_file: (add_server, drop_server)}


def _uninstalled(backed_up: list[str], current: str, install: Edit, uninstall: Edit) -> str | None:
    """The text after uninstalling: a backup's own bytes (``backed_up``, newest first)
    when the file is what installing made of it and the backup holds nothing of ours (a
    second install's backup holds the first install's entries); None when installing into
    nothing made it; else with our entries cut out."""
    for original in backed_up:
        try:
            installed = _line_ends_of(original, install(original))
            if installed == current and uninstall(original) == original:
                return original
        except ConfigRefused:
            continue
    if install("") == current:
        return None
    return uninstall(current)


def plan(
    agent: str,
    scope: str = "user",
    *,
    uninstall: bool = False,
    command: Sequence[str] | None = None,
    options: Sequence[str] = (),
    home: Path | None = None,
    project: Path | None = None,
) -> Plan:
    """What integrating ``agent`` would change; raises ConfigRefused (nothing changed)."""
    from ltm_desktop.agent.snippets import installed_command

    if agent not in INTEGRATED_AGENTS:
        raise ConfigRefused(f"integrate knows {', '.join(INTEGRATED_AGENTS)}, not {agent!r}")
    if scope not in SCOPES:
        raise ConfigRefused(f"the scope is user or project, not {scope!r}")
    tgt = target(agent, scope, home, project)
    warnings: list[str] = []
    if command is None:
        command, warning = _command_for(scope, installed_command())
        warnings += [warning] if warning else []
    edits = _edits(tgt, list(command), list(options))
    folders = _agent_folders(tgt, {home or Path.home(), project or Path.cwd()})
    try:
        return _plan(Plan(agent, scope, uninstall, warnings=warnings, folders=folders), edits)
    finally:
        json_edit.forget()


def _agent_folders(tgt: Target, roots: set[Path]) -> list[Path]:
    """The folders of the agent's own name (``.claude``, ``.codex``, ``.gemini``) that
    hold its files: an uninstall may remove them once empty. Never a home or a project
    folder, nor a folder named otherwise (``$CODEX_HOME``: the person chose it)."""
    names = {".claude", ".codex", ".gemini"}
    parents = dict.fromkeys(path.parent for path in (tgt.hooks_file, tgt.mcp_file))
    return [folder for folder in parents if folder.name in names and folder not in roots]


def _command_for(scope: str, installed: list[str]) -> tuple[list[str], str | None]:
    """The command the hooks and the server run, and a warning when it must be this
    installation's absolute path in a project's files. Those are committed, and teammates
    have ``ltm-desktop`` on PATH somewhere else: the bare name serves them all, when it
    names this installation here too. The user's own files keep the absolute path:
    agents run hooks without the user's shell set-up (PATH included)."""
    if scope != "project":
        return installed, None
    found = shutil.which(PATH_NAME)
    if found and len(installed) == 1 and os.path.realpath(found) == os.path.realpath(installed[0]):
        return [PATH_NAME], None
    where = f"is {found}" if found else "is not found"
    return installed, (
        f"warning: `{PATH_NAME}` on PATH {where}, not this installation ({shlex.join(installed)}): "
        "the project's files name this installation by its absolute path, which teammates "
        f"may not have; with this installation first on PATH, `{PATH_NAME}` is written instead"
    )


def _plan(result: Plan, edits: dict[Path, tuple[Edit, Edit]]) -> Plan:
    uninstall = result.uninstall
    for path, (install, remove) in edits.items():
        linked = path.is_symlink()
        if linked:  # dotfiles: edit the file the link names, and keep the link
            try:
                path = path.resolve(strict=False)
            except (RuntimeError, OSError) as exc:  # a loop of links
                raise ConfigRefused(f"{path} cannot be read: {exc}") from None
        before = _read(path)
        backed_up = _backed_up_texts(path) if uninstall else []
        if uninstall:
            after = None if before is None else _uninstalled(backed_up, before, install, remove)
            if after is None and linked and before is not None:
                after = remove(before)  # emptied, not deleted: the link still names it
        else:
            after = install(before or "")
        after = _line_ends_of(before, after)
        if after == before:
            result.unchanged.append(path)
            continue
        _check_writable(path)
        restored = uninstall and (after is None or after in backed_up)
        result.changes.append(Change(path, before, after, restored))
    return result


def _line_ends_of(before: str | None, after: str | None) -> str | None:
    """``after`` with CRLF line ends when ``before`` uses only those (the lines an edit
    adds end in LF: a Windows-edited file came back with mixed line ends)."""
    if before is None or after is None or "\r\n" not in before:
        return after
    if before.count("\n") != before.count("\r\n"):
        return after  # mixed already: left as the person has it
    return after.replace("\r\n", "\n").replace("\n", "\r\n")


def _backed_up_texts(path: Path) -> list[str]:
    texts = []
    for backup in backups(path):
        try:
            texts.append(_read_regular(backup).decode("utf-8"))
        except (OSError, UnicodeDecodeError):  # NotRegularFile too: not a backup we made
            continue
    return texts


def _drop_backups(change: Change) -> list[str]:
    """After an uninstall gave a file back as it was before install (or removed the file
    install made): the backups integrate made of it hold nothing more worth keeping, and
    in a project they would be committed by mistake; lines saying so."""
    removed = [backup for backup in backups(change.path) if backup.is_file()]
    for backup in removed:
        backup.unlink(missing_ok=True)
    return [f"removed {len(removed)} backup(s) of {change.path}"] if removed else []


def _drop_empty_folders(plan: Plan, emptied: set[Path]) -> list[str]:
    """The agent's folders (``~/.gemini``...) that this uninstall left empty: install made
    them (an agent that has run keeps its own files there, and those stay)."""
    lines = []
    for folder in plan.folders:
        if folder in emptied and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            lines.append(f"removed the empty folder {folder}")
    return lines


def _write(path: Path, text: str, mode: int | None) -> None:
    """The agent's settings file, replaced whole and synced: a crash or a power cut must
    not leave the person's agent with half a config."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, mode=mode) as file:
        file.write(text)


def _backup(path: Path, stamp: str) -> Path:
    candidate = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}.bak")
    number = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}-{number}.bak")
        number += 1
    shutil.copy2(path, candidate)
    return candidate


def apply(plan: Plan, clock: Callable[[], float] = time.time) -> list[str]:
    """Write the plan's changes (backups first); lines saying what was done.

    Raises ConfigRefused, after putting back the files already written, when one fails.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
    done: list[Change] = []
    lines = list(plan.warnings) if plan.changes else []
    try:
        for change in plan.changes:
            path = change.path
            saved = _backup(path, stamp) if change.before is not None else None
            if change.after is None:
                path.unlink()
                lines.append(f"removed {path} (only ltm-desktop's entries were in it)")
            else:
                mode = path.stat().st_mode & 0o7777 if change.before is not None else None
                _write(path, change.after, mode)
                what = "updated" if change.before is not None else "created"
                lines.append(f"{what} {path}" + (f" (backup: {saved})" if saved else ""))
            done.append(change)
    except OSError as exc:
        for change in reversed(done):
            if change.before is None:
                change.path.unlink(missing_ok=True)
            else:
                _write(change.path, change.before, None)
        where = exc.filename or "a config file"
        raise ConfigRefused(
            f"cannot write {where}: {exc.strerror or exc}; nothing was changed"
        ) from None
    restored = [change for change in done if change.restored]
    for change in restored:
        lines += _drop_backups(change)
    lines += _drop_empty_folders(plan, {change.path.parent for change in restored})
    lines += [f"{path}: already as it should be" for path in plan.unchanged]
    if plan.note:
        lines.append(plan.note)
    return lines
