"""A repository's remote URL read from its files, without running git.

Hooks resolve their directory on every turn, so this is a few ``stat`` calls and one small
file read, not a ``git`` process (tens of milliseconds). It finds the repository walking
up from the directory (``.git`` as a directory, or as a file holding ``gitdir: PATH`` in
worktrees and submodules; a worktree's ``commondir`` names the repository whose
``config`` it shares) and reads ``[remote "NAME"] url`` there, rewritten by the longest
matching ``[url "BASE"] insteadOf``.

Not followed: ``[include]`` and ``[includeIf]`` files, the user's and the system's config
(where ``insteadOf`` may also be set), ``$GIT_DIR`` and ``$GIT_CONFIG*``. A remote
declared only there is not seen, and the directory keeps its path identity.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.core.files.regular_files import open_regular

MAX_CONFIG_BYTES = 256 * 1024  # a repository's config is a few hundred bytes
MAX_GITDIR_BYTES = 4096
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}

Key = tuple[str, str | None, str]  # (section lower-cased, subsection as written, name lower)


@dataclass(frozen=True, slots=True)
class Repository:
    """Where a working directory's repository is: its top directory, its git directory
    (``.git``, or a worktree's or submodule's own) and the one holding ``config``."""

    root: str
    git_dir: str
    common_dir: str


@dataclass(slots=True)
class GitConfig:
    """A parsed config file: every value of each key, in file order."""

    values: dict[Key, list[str]] = field(default_factory=dict)

    def get(self, section: str, subsection: str | None, name: str) -> str | None:
        found = self.values.get((section.lower(), subsection, name.lower()))
        return found[0] if found else None

    def rewritten(self, url: str) -> str:
        """``url`` with the longest ``insteadOf`` prefix that matches replaced by its base."""
        best: tuple[int, str] | None = None
        for (section, base, name), prefixes in self.values.items():
            if section != "url" or base is None or name != "insteadof":
                continue
            for prefix in prefixes:
                if url.startswith(prefix) and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), base)
        return url if best is None else best[1] + url[best[0] :]


def find_repository(start: str) -> Repository | None:
    """The repository ``start`` is in (walking up), or None (none, or unreadable)."""
    here = os.path.abspath(start)
    while True:
        dot_git = os.path.join(here, ".git")
        git_dir: str | None = None
        if os.path.isdir(dot_git):
            git_dir = dot_git
        elif os.path.isfile(dot_git):
            git_dir = _pointed(dot_git, here)
        if git_dir is not None:
            return Repository(here, git_dir, _common_dir(git_dir))
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _read(path: str, limit: int) -> str | None:
    try:
        fd = open_regular(Path(path))  # never a FIFO waited on
        with os.fdopen(fd, "rb") as file:
            raw = file.read(limit + 1)
    except OSError:
        return None
    if len(raw) > limit:
        return None
    return raw.decode("utf-8", errors="replace")


def _pointed(dot_git_file: str, base: str) -> str | None:
    """The git directory a ``.git`` file names (``gitdir: PATH``, relative to its folder)."""
    text = _read(dot_git_file, MAX_GITDIR_BYTES)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    if not target:
        return None
    path = os.path.normpath(os.path.join(base, target))
    return path if os.path.isdir(path) else None


def _common_dir(git_dir: str) -> str:
    """A linked worktree's ``commondir`` (relative to its git directory), else itself."""
    text = _read(os.path.join(git_dir, "commondir"), MAX_GITDIR_BYTES)
    if not text or not text.strip():
        return git_dir
    return os.path.normpath(os.path.join(git_dir, text.strip()))


def read_config(path: str) -> GitConfig | None:
    """The config file parsed, or None when it cannot be read."""
    text = _read(path, MAX_CONFIG_BYTES)
    return None if text is None else parse_config(text)


def parse_config(text: str) -> GitConfig:
    """git's config syntax: ``[section "sub"]`` (or ``[section.sub]``), ``name = value``
    with quotes, escapes, ``#``/``;`` comments and ``\\`` line continuations; a bare name
    is true. Lines it cannot read are skipped, as a hook must not fail on them."""
    config = GitConfig()
    section: tuple[str, str | None] | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = _section(line)
            continue
        if section is None:
            continue
        name, _, rest = line.partition("=")
        name = name.strip().lower()
        if not name or not (name[0].isalpha() and all(c.isalnum() or c == "-" for c in name)):
            continue
        if not _:
            value = "true"
        else:
            value, i = _value(rest, lines, i)
        config.values.setdefault((*section, name), []).append(value)
    return config


def _section(line: str) -> tuple[str, str | None] | None:
    end = line.rfind("]")
    if end < 0:
        return None
    inner = line[1:end].strip()
    if '"' in inner:
        name, _, sub = inner.partition('"')
        sub = sub.rstrip()
        if not sub.endswith('"'):
            return None
        return name.strip().lower(), sub[:-1].replace('\\"', '"').replace("\\\\", "\\")
    name, dot, sub = inner.partition(".")
    return name.lower(), (sub.lower() if dot else None)


def _value(rest: str, lines: list[str], i: int) -> tuple[str, int]:
    """A value from after ``=``, going on to the next lines after a trailing ``\\``."""
    out: list[str] = []
    quoted = False
    pending_space = ""
    text = rest.lstrip()
    while True:
        j = 0
        while j < len(text):
            c = text[j]
            j += 1
            if c == "\\":
                if j == len(text):  # a continuation
                    break
                out.append(pending_space + _ESCAPES.get(text[j], text[j]))
                pending_space = ""
                j += 1
            elif c == '"':
                out.append(pending_space)
                pending_space = ""
                quoted = not quoted
            elif not quoted and c in "#;":
                return "".join(out), i
            elif not quoted and c.isspace():
                pending_space += c
            else:
                out.append(pending_space + c)
                pending_space = ""
        else:
            return "".join(out), i
        if i >= len(lines):
            return "".join(out), i
        text = lines[i]
        i += 1


def remote_url(start: str, remote: str = "origin") -> tuple[Repository, str] | None:
    """The repository ``start`` is in and its remote's URL (``insteadOf`` applied), or
    None: no repository, no such remote, or its config cannot be read."""
    repository = find_repository(start)
    if repository is None:
        return None
    config = read_config(os.path.join(repository.common_dir, "config"))
    if config is None:
        return None
    url = config.get("remote", remote, "url")
    if not url:
        return None
    return repository, config.rewritten(url)
