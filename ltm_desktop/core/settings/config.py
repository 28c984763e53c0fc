"""Settings from a small TOML file, with documented defaults.

A malformed file never stops the app: each bad key falls back to its default
and produces a warning that names the file and the key.
"""

from __future__ import annotations

import errno
import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ltm_desktop.core.files.regular_files import open_regular

DEFAULT_NUDGE = (
    "You have a long-term memory that persists across sessions. Search it with "
    "`memory_search` before answering questions about this project's conventions, "
    "decisions or the user's preferences, and save durable facts (decisions, preferences, "
    "how-tos) with `memory_write` when you learn them. The most important memories are below."
)
# The turn nudge ([nudge]): added to what the model sees every few turns, never stored.
DEFAULT_TURN_NUDGE = (
    "Reminder from your long-term memory: if this conversation has produced anything worth "
    "keeping across sessions (a decision, a convention, a preference of the user, a how-to), "
    "save it now with `memory_write`. Skip what is already saved or only matters today."
)


# [search] embedder: "static" (token embeddings shipped in a package, the default),
# "openai" (any OpenAI-compatible /embeddings endpoint: Ollama, llama.cpp, vLLM), "none".
EMBEDDERS = ("static", "openai", "none")
MAX_CONFIG_BYTES = 1024 * 1024  # a settings file is a few hundred bytes
# [memory] backend: "sqlite" (this data dir's database, the default) or "agentmemory" (the
# second design's remote service; a placeholder that answers "not implemented").
BACKENDS = ("sqlite", "agentmemory")
SECRETS_MODES = ("refuse", "redact", "allow")  # [privacy] secrets
# [projects] identity: "path" (a directory is a project) or "remote" (a repository's remote
# URL is: docs/projects.md); "" (unset) is "remote" on PostgreSQL and "path" on SQLite.
IDENTITIES = ("", "path", "remote")
# [people] global: "shared" (one global scope for everyone) or "personal" (a global scope per
# person, the shared one becoming the team's: docs/teams.md); "" (unset) is "personal" on
# PostgreSQL and "shared" on SQLite (core.projects.ambient).
GLOBAL_MODES = ("", "shared", "personal")


@dataclass(frozen=True, slots=True)
class Settings:
    """Tunable behaviour; the TOML key of each field is in ``CONFIG_KEYS``."""

    def observes(self, kind: str) -> bool:
        """Whether observations of ``kind`` (``agent_end``, ``pre_compact``) are recorded."""
        switches = {"agent_end": self.observe_agent_end, "pre_compact": self.observe_pre_compact}
        return switches.get(kind, True)

    precis_budget_bytes: int = 5_120
    precis_top_n: int = 30
    stale_age_days: int = 60
    stale_max_importance: int = 1
    observe_agent_end: bool = True
    observe_pre_compact: bool = True
    nudge_text: str = DEFAULT_NUDGE
    search_cache_entries: int = 256
    # The master switch and the turn nudge, obeyed by the agent hooks.
    memory_enabled: bool = True
    nudge_interval: int = 10
    nudge_turn_text: str = DEFAULT_TURN_NUDGE
    # [extractor]: an OpenAI-compatible chat endpoint that extracts memories from a
    # conversation before the agent compacts it. No base_url: no extraction, no network.
    extractor_base_url: str = ""
    extractor_model: str = ""
    extractor_api_key_env: str = ""  # the NAME of the variable holding the key, never a key
    extractor_timeout_s: float = 60.0
    extractor_max_input_chars: int = 24_000
    extractor_review: bool = False  # true: hold extracted memories as proposals
    # [consolidate]: merge memories that say the same thing (``ltm-desktop consolidate``,
    # with the [extractor] model); every interval_hours in the app and `serve` (0: never).
    consolidate_interval_hours: int = 0
    consolidate_max_groups: int = 10  # merges proposed per scope and run, at most
    # [backup]: `ltm-desktop backup` (no -o) keeps this many in the data dir's backups/
    backup_keep: int = 10
    backup_every_days: int = 7

    @property
    def extractor_configured(self) -> bool:
        return bool(self.extractor_base_url.strip() and self.extractor_model.strip())

    default_importance: int = 0
    search_embedder: str = "static"
    search_endpoint: str = "http://127.0.0.1:11434/v1"
    search_model: str = "nomic-embed-text"
    search_api_key_env: str = ""
    # [http]: the HTTP API on loopback ("127.0.0.1:PORT", port 0: any free one); "" is off.
    http_listen: str = ""
    http_allowed_origins: str = ""  # browser origins allowed to call it, space-separated
    # [memory] backend and the agentmemory service's address (core.memory_backend)
    memory_backend: str = "sqlite"
    agentmemory_url: str = "http://127.0.0.1:3111"
    # [privacy]: what a write holding a credential does (core.screening), and whether a
    # memory flagged as an instruction to the model goes into MEMORY.md before approval.
    privacy_secrets: str = "refuse"
    privacy_flagged_in_precis: bool = False
    # [store] url: a postgresql:// URL (core.settings.database_url); "" is SQLite in the
    # data dir. Checked when a process resolves its Launch: a bad one is refused there.
    store_url: str = ""
    # [projects]: how a working directory becomes a project (core.projects.identity)
    projects_identity: str = ""
    projects_remote: str = "origin"
    # [people] name: who this person is in the audit history (``core.actors``); "" is the
    # OS login name.
    people_name: str = ""
    # [people] global: whose the global scope is (GLOBAL_MODES; core.projects.ambient).
    people_global: str = ""


@dataclass(frozen=True, slots=True)
class _Key:
    section: str
    name: str
    attr: str
    kind: type
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


CONFIG_KEYS: tuple[_Key, ...] = (
    _Key("precis", "budget_bytes", "precis_budget_bytes", int, 256, 1_048_576),
    _Key("precis", "top_n", "precis_top_n", int, 1, 1_000),
    _Key("stale", "age_days", "stale_age_days", int, 1, 36_500),
    _Key("stale", "max_importance", "stale_max_importance", int, 0, 10),
    _Key("observe", "agent_end", "observe_agent_end", bool),
    _Key("observe", "pre_compact", "observe_pre_compact", bool),
    _Key("prompt", "nudge", "nudge_text", str, 0, 2_000),
    _Key("search", "cache_entries", "search_cache_entries", int, 0, 100_000),
    # The master switch and the turn nudge (the agent hooks).
    _Key("memory", "enabled", "memory_enabled", bool),
    _Key("nudge", "interval", "nudge_interval", int, 0, 10_000),
    _Key("nudge", "text", "nudge_turn_text", str, 0, 2_000),
    # [extractor]
    _Key("extractor", "base_url", "extractor_base_url", str, 0, 2_000),
    _Key("extractor", "model", "extractor_model", str, 0, 200),
    _Key("extractor", "api_key_env", "extractor_api_key_env", str, 0, 200),
    _Key("extractor", "timeout_s", "extractor_timeout_s", float, 0, 3_600),
    _Key("extractor", "max_input_chars", "extractor_max_input_chars", int, 1_000, 2_000_000),
    _Key("extractor", "review", "extractor_review", bool),
    # [consolidate]
    _Key("consolidate", "interval_hours", "consolidate_interval_hours", int, 0, 8_760),
    _Key("consolidate", "max_groups", "consolidate_max_groups", int, 1, 100),
    _Key("search", "embedder", "search_embedder", str, 0, 20, EMBEDDERS),
    _Key("search", "endpoint", "search_endpoint", str, 0, 500),
    _Key("search", "model", "search_model", str, 0, 200),
    _Key("search", "api_key_env", "search_api_key_env", str, 0, 100),
    _Key("memory", "default_importance", "default_importance", int, 0, 10),
    _Key("memory", "backend", "memory_backend", str, 0, 20, BACKENDS),
    _Key("memory", "agentmemory_url", "agentmemory_url", str, 0, 500),
    # [backup]
    _Key("backup", "keep", "backup_keep", int, 1, 1_000),
    _Key("backup", "every_days", "backup_every_days", int, 0, 3_650),
    # [http]
    _Key("http", "listen", "http_listen", str, 0, 100),
    _Key("http", "allowed_origins", "http_allowed_origins", str, 0, 2_000),
    # [privacy]
    _Key("privacy", "secrets", "privacy_secrets", str, 0, 10, SECRETS_MODES),
    _Key("privacy", "flagged_in_precis", "privacy_flagged_in_precis", bool),
    # [store]
    _Key("store", "url", "store_url", str, 0, 2_000),
    # [projects]
    _Key("projects", "identity", "projects_identity", str, 0, 10, IDENTITIES),
    _Key("projects", "remote", "projects_remote", str, 1, 100),
    # [people]
    _Key("people", "name", "people_name", str, 0, 100),
    _Key("people", "global", "people_global", str, 0, 10, GLOBAL_MODES),
)
assert {k.attr for k in CONFIG_KEYS} == {f.name for f in fields(Settings)}


def _check(key: _Key, value: Any) -> str | None:
    """A description of what is wrong with ``value``, or None when it is fine."""
    label = f"[{key.section}] {key.name}"
    if key.kind is bool:
        return None if isinstance(value, bool) else f"{label} must be true or false"
    if key.kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{label} must be a number"
        if not key.low < value <= key.high:
            return f"{label} must be more than {key.low:,} and at most {key.high:,}"
        return None
    if key.kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{label} must be a whole number"
        if not key.low <= value <= key.high:
            return f"{label} must be between {key.low:,} and {key.high:,}"
        return None
    if not isinstance(value, str):
        return f"{label} must be a string"
    if key.choices and value not in key.choices:
        return f"{label} must be one of " + ", ".join(f'"{c}"' for c in key.choices)
    if len(value) > key.high:
        return f"{label} may have at most {key.high:,} characters"
    return None


def parse_settings(data: dict[str, Any], source: str) -> tuple[Settings, list[str]]:
    """Settings from parsed TOML, plus one warning per ignored key."""
    warnings: list[str] = []
    known = {(k.section, k.name): k for k in CONFIG_KEYS}
    sections = {k.section for k in CONFIG_KEYS}
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section not in sections:
            warnings.append(f"{source}: unknown section [{section}] ignored")
            continue
        if not isinstance(table, dict):
            warnings.append(f"{source}: [{section}] must be a table; using defaults")
            continue
        for name, value in table.items():
            key = known.get((section, name))
            if key is None:
                warnings.append(f"{source}: unknown key [{section}] {name} ignored")
                continue
            problem = _check(key, value)
            if problem:
                default = getattr(Settings(), key.attr)
                warnings.append(f"{source}: {problem}; using the default {default!r}")
                continue
            values[key.attr] = float(value) if key.kind is float else value
    return replace(Settings(), **values), warnings


def _read_config(path: Path) -> bytes:
    """The file's bytes: a regular file only (a FIFO would be waited on, ``/dev/zero``
    never ends), at most MAX_CONFIG_BYTES.

    Raises:
        OSError: it cannot be read, is not a regular file, or is too large (EFBIG).
    """
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as file:
        raw = file.read(MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_CONFIG_BYTES // 1024} KiB", str(path))
    return raw


def load_settings(path: Path) -> tuple[Settings, list[str]]:
    """Read ``path``; a missing file means defaults, a broken one means defaults + warnings."""
    try:
        raw = _read_config(path)
    except FileNotFoundError:
        return Settings(), []
    except OSError as exc:
        return Settings(), [f"{path}: cannot be read ({exc.strerror}); using defaults"]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return Settings(), [f"{path}: is not UTF-8 text; using defaults"]
    except tomllib.TOMLDecodeError as exc:
        return Settings(), [f"{path}: is not valid TOML ({exc}); using defaults"]
    except RecursionError:
        return Settings(), [f"{path}: is nested too deeply to read; using defaults"]
    return parse_settings(data, str(path))


def render_default_config() -> str:
    """The config file with every key at its default, for ``ltm-desktop config --default``."""
    defaults = Settings()
    lines: list[str] = []
    sections = list(dict.fromkeys(key.section for key in CONFIG_KEYS))  # first-seen order
    ordered = [key for section in sections for key in CONFIG_KEYS if key.section == section]
    section = ""
    for key in ordered:
        if key.section != section:
            section = key.section
            lines.append(f"{'' if not lines else chr(10)}[{section}]")
        value = getattr(defaults, key.attr)
        if isinstance(value, bool):
            rendered = "true" if value else "false"
        elif isinstance(value, str):
            rendered = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        else:
            rendered = str(value)
        lines.append(f"{key.name} = {rendered}")
    return "\n".join(lines) + "\n"
