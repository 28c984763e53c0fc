"""The rules of the memory model: validation, normalization, signatures, similarity.

Everything here is pure and deterministic so the store and the tests can rely
on exactly the same definitions.
"""

from __future__ import annotations

import hashlib
import ntpath
import os
import posixpath
import re
import sys
import unicodedata
from collections.abc import Mapping
from typing import Any

from ltm_desktop.core import records
from ltm_desktop.core.clean_text import clean_text, is_invisible, nfc, unstorable
from ltm_desktop.core.errors import InvalidInput, clipped, echoed
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Category, MemoryDraft
from ltm_desktop.core.stale.named_files import check_files

MAX_CONTENT_CHARS = 20_000
MAX_TITLE_CHARS = 200
DERIVED_TITLE_CHARS = 80
MAX_TAGS = 20
MAX_TAG_CHARS = 40
MAX_TTL_DAYS = 36_500
MAX_IMPORTANCE = 10
MAX_ACTOR_CHARS = 64
SUPERSEDE_THRESHOLD = 0.7
EDITABLE_FIELDS = frozenset(records.EDITABLE_FIELDS)
# A memory's ``type`` as other memory tools name it (memory_save, the HTTP API's remember):
# the categories plus their other names.
MEMORY_TYPES = {
    **{c.value: c.value for c in Category},
    "fact": "knowledge",
    "decision": "knowledge",
    "architecture": "knowledge",
    "bug": "knowledge",
    "note": "knowledge",
    "todo": "task",
    "pattern": "skill",
    "workflow": "skill",
    "howto": "skill",
}

# proj_: a directory's id (by path); repo_: a repository's (by remote, core.projects)
_PROJECT_ID_RE = re.compile(r"^(proj|repo|person)_[0-9a-f]{16}$")
_WHITESPACE_RE = re.compile(r"\s+")
_HEADING_RE = re.compile(r"^[#>*\-\s]+")


def describe(value: object) -> str:
    """How a wrong value is named in error messages: ``a number (5.5)``, ``a list``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({value[:30]!r})"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def shown(value: object) -> str:
    """A value as JSON writes it, for "got ..." in messages: 'deploy', 5, true, null."""
    if isinstance(value, str):
        return repr(value[:40])
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return describe(value)


def check_text(value: object, field: str, *, allow_empty: bool = False) -> str:
    """Return ``value`` if it is storable text, else raise InvalidInput naming ``field``."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string, not {describe(value)}", field)
    problem = unstorable(value)
    if problem is not None:
        raise InvalidInput(f"{field} {problem}", field)
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{field} must not be empty or whitespace only", field)
    return value


def normalize_content(content: str) -> str:
    """NFC, whitespace collapsed, lower-cased, trimmed: the form the signature hashes (the
    same text composed or decomposed is one text)."""
    return _WHITESPACE_RE.sub(" ", nfc(content)).strip().lower()


def content_signature(content: str) -> str:
    return hashlib.sha256(normalize_content(content).encode("utf-8")).hexdigest()


def similarity_tokens(text: str) -> frozenset[str]:
    """Tokens for near-duplicate detection: NFC, lower-cased, whitespace-split, len > 2."""
    normalized = unicodedata.normalize("NFC", text).lower()
    return frozenset(token for token in normalized.split() if len(token) > 2)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def derive_title(content: str, limit: int = DERIVED_TITLE_CHARS) -> str:
    """A title from the first non-empty line, without Markdown markers, cut at a word."""
    for line in content.splitlines():
        line = _HEADING_RE.sub("", line).strip()
        if line:
            break
    else:
        line = content.strip()
    line = _WHITESPACE_RE.sub(" ", line)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def check_category(value: object) -> Category:
    try:
        return Category(value if isinstance(value, str) else "")
    except ValueError:
        allowed = ", ".join(c.value for c in Category)
        raise InvalidInput(
            f"category must be one of {allowed}; got {shown(value)}", "category"
        ) from None


def check_importance(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(
            f"importance must be an integer 0-10, not {describe(value)}", "importance"
        )
    if not 0 <= value <= MAX_IMPORTANCE:
        raise InvalidInput(
            f"importance must be between 0 and {MAX_IMPORTANCE}; got {value}", "importance"
        )
    return value


def check_ttl_days(value: object) -> int | None:
    """Days to live after the last update; 0 and None both mean "never expires"."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(
            f"ttl_days must be a whole number of days or null, not {describe(value)}", "ttl_days"
        )
    if not 0 <= value <= MAX_TTL_DAYS:
        raise InvalidInput(
            f"ttl_days must be between 0 (never expires) and {MAX_TTL_DAYS}; got {value}",
            "ttl_days",
        )
    return value or None


def check_clean(value: object, field: str) -> str:
    """Storable text with control characters and bidi overrides removed (``clean_text``);
    refused when nothing visible is left (only spaces or zero-width characters)."""
    text = clean_text(check_text(value, field))
    if is_invisible(text):
        raise InvalidInput(
            f"{field} must contain visible text, not only spaces or invisible characters", field
        )
    return text


def normalize_tag(tag: object) -> str:
    text = check_clean(tag, "tags").strip().lower()
    text = _WHITESPACE_RE.sub("-", text)
    if len(text) > MAX_TAG_CHARS:
        raise InvalidInput(
            f"each of the tags may have at most {MAX_TAG_CHARS} characters: {text[:50]!r}", "tags"
        )
    return text


def check_tags(value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"tags must be a list of strings, not {describe(value)}", "tags")
    tags: list[str] = []
    for raw in value:
        tag = normalize_tag(raw)
        if tag not in tags:
            tags.append(tag)
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"a memory may have at most {MAX_TAGS} tags; got {len(tags)}", "tags")
    return tuple(tags)


def check_content(value: object) -> str:
    content = check_clean(value, "content").strip()
    if len(content) > MAX_CONTENT_CHARS:
        raise InvalidInput(
            f"content may have at most {MAX_CONTENT_CHARS:,} characters; got {len(content):,}",
            "content",
        )
    return content


def check_title(value: object, content: str) -> str:
    """A given title is cleaned; a missing or blank one is derived from the content."""
    if value is None or (isinstance(value, str) and is_invisible(clean_text(value))):
        return derive_title(content)
    title = _WHITESPACE_RE.sub(" ", check_clean(value, "title")).strip()
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidInput(f"title may have at most {MAX_TITLE_CHARS} characters", "title")
    return title


def check_actor(value: object) -> str:
    """Who wrote a change; free text kept short and printable."""
    actor = check_text(value, "actor").strip()
    actor = "".join(ch for ch in actor if ch.isprintable())[:MAX_ACTOR_CHARS]
    if not actor:
        raise InvalidInput("actor must contain printable characters", "actor")
    return actor


def validate_draft(draft: MemoryDraft, default_importance: int = 0) -> MemoryDraft:
    """Return a draft whose every field is valid and normalized; a draft without an
    importance gets ``default_importance`` (the ``[memory] default_importance`` setting)."""
    content = check_content(draft.content)
    importance = default_importance if draft.importance is None else draft.importance
    return MemoryDraft(
        content=content,
        title=check_title(draft.title, content),
        category=check_category(draft.category),
        importance=check_importance(importance),
        tags=check_tags(draft.tags),
        ttl_days=check_ttl_days(draft.ttl_days),
        files=check_files(draft.files, None),  # the service made absolute ones relative
    )


def validate_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a partial update; unknown fields are an error, not silently ignored."""
    unknown = set(changes) - EDITABLE_FIELDS
    if unknown:
        names = clipped(", ".join(sorted(unknown)))
        raise InvalidInput(f"these fields cannot be updated: {names}", sorted(unknown)[0])
    clean: dict[str, Any] = {}
    if "content" in changes:
        clean["content"] = check_content(changes["content"])
    if "title" in changes:
        value = changes["title"]
        if value is None or (isinstance(value, str) and is_invisible(clean_text(value))):
            raise InvalidInput("title must not be empty", "title")
        clean["title"] = check_title(value, "")
    if "category" in changes:
        clean["category"] = check_category(changes["category"])
    if "importance" in changes:
        clean["importance"] = check_importance(changes["importance"])
    if "tags" in changes:
        clean["tags"] = check_tags(changes["tags"])
    if "ttl_days" in changes:
        clean["ttl_days"] = check_ttl_days(changes["ttl_days"])
    if "files" in changes:
        clean["files"] = check_files(changes["files"], None)
    return clean


def normalize_cwd(cwd: object, *, windows: bool | None = None) -> str:
    """The canonical form of an agent's working directory: one spelling per directory.

    Whitespace before the path is dropped (an absolute path cannot start with it), but
    not after it: a trailing space is part of a directory's name (except on Windows,
    which drops it itself). Existing paths have their symlinks resolved; then ``.``,
    ``..``, repeated and trailing separators collapse, and ``//x`` is ``/x``, as on
    Linux and macOS (POSIX lets a leading ``//`` mean something else; they do not).

    Args:
        cwd: an absolute path; it need not exist.
        windows: treat the path as a Windows path (default: the running platform).

    Raises:
        InvalidInput: the path is empty, blank or relative.
    """
    if windows is None:
        windows = sys.platform == "win32"
    text = check_text(cwd, "cwd", allow_empty=True).lstrip()
    if windows:
        text = text.rstrip()
    if not text:
        raise InvalidInput("cwd must be a non-empty absolute path", "cwd")
    pathmod = ntpath if windows else posixpath
    if not pathmod.isabs(text):
        raise InvalidInput(f"cwd must be an absolute path; got {echoed(text)}", "cwd")
    native = windows == (sys.platform == "win32")
    if native and os.path.exists(text):
        text = os.path.realpath(text)
    text = str(pathmod.normpath(text))
    if windows:
        text = ntpath.normcase(text)
    elif text.startswith("//"):
        text = "/" + text.lstrip("/")
    return text


def project_id_for_cwd(cwd: object, *, windows: bool | None = None) -> str:
    """``proj_`` + the first 16 hex digits of SHA-256 of the normalized cwd."""
    normalized = normalize_cwd(cwd, windows=windows)
    return "proj_" + hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:16]


def check_project_id(value: object) -> str:
    text = check_text(value, "project_id")
    if text != GLOBAL_PROJECT_ID and not _PROJECT_ID_RE.match(text):
        raise InvalidInput(
            "project_id must be 'global', 'team', or 'proj_', 'repo_' or 'person_' followed "
            "by 16 hex digits; "
            f"got {text[:40]!r}",
            "project_id",
        )
    return text


def display_name_for_path(path: str) -> str:
    name = posixpath.basename(path.replace("\\", "/").rstrip("/"))
    return name or path
