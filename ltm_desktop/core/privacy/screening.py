"""The secrets rule of every memory write: refuse, redact or allow a credential.

A memory is injected into every later session of an agent, so a key written there
leaks again and again. ``core.writing`` runs each draft, change and imported record
through a ``Screen`` inside the write's unit of work, whichever path it came by (API,
agent tools, hooks, extractor, import, desktop app): one check. ``[privacy] secrets``
picks what happens (``refuse``, the default; ``redact``; ``allow``). A refusal names the
kind of secret and where it is, never the secret itself. Every text field is screened:
title, content, tags and the paths in ``files``; and a credential disguised (split over
lines, spaced out, encoded, reversed: ``core.secret_views``) as one written plainly.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.observations import PRE_COMPACT_LIMIT
from ltm_desktop.core.privacy.secrets import Finding, find_secrets, redact_findings
from ltm_desktop.core.records import Memory, MemoryDraft
from ltm_desktop.core.rules import MAX_TAG_CHARS, normalize_tag

# Every text field a memory carries into a prompt or an export: the paths in ``files``
# too (a token can be pasted into a file name as easily as into the content).
SCREENED_FIELDS = ("title", "content", "tags", "files")


class SecretsMode(StrEnum):
    REFUSE = "refuse"
    REDACT = "redact"
    ALLOW = "allow"


class SecretRefused(InvalidInput):
    """A field holds a credential and ``[privacy] secrets`` is ``refuse``.

    Attributes:
        kind: what detect-secrets calls it ("AWS Access Key", "Private Key"...).
        line, column: where it starts in the field (from 1).
    """

    def __init__(self, field: str, kind: str, line: int, column: int) -> None:
        super().__init__(
            f"{field} holds a secret ({kind}) at line {line}, column {column}; nothing was "
            "stored. Remove it (keep credentials in a password manager or the environment), "
            'or set [privacy] secrets = "redact" to store it with the secret replaced',
            field,
        )
        self.kind = kind
        self.line = line
        self.column = column


@functools.lru_cache(maxsize=128)
def _findings(text: str) -> tuple[Finding, ...]:
    """The scan of one text, kept for a moment: the service scans a draft before making
    its vector, and the write scans it again."""
    return tuple(find_secrets(text))


def position(text: str, at: int) -> tuple[int, int]:
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


CUT_MARGIN = 2_000  # characters past an observation's longest text that are screened too


@dataclass(frozen=True, slots=True)
class Screen:
    """Applies ``[privacy] secrets`` to the text fields of what is about to be stored."""

    secrets: SecretsMode = SecretsMode.REFUSE

    def text(self, value: str, field: str) -> str:
        """``value`` as it may be stored (redacted), or SecretRefused."""
        if self.secrets is SecretsMode.ALLOW or not value:
            return value
        findings = _findings(value)
        if not findings:
            return value
        if self.secrets is SecretsMode.REFUSE:
            raise SecretRefused(field, findings[0].kind, *position(value, findings[0].start))
        return redact_findings(value, findings)

    def transcript(self, value: str) -> str:
        """Text recorded from a conversation (an observation): nobody is there to answer a
        refusal, so a secret is redacted unless secrets are allowed."""
        if self.secrets is SecretsMode.ALLOW:
            return value
        return redact_findings(value, _findings(value))

    def conversation(self, value: object) -> object:
        """A conversation's raw text (``transcript``), before it is cut to an observation's
        limits: cut first, a secret loses the end its pattern needs, and its start stays
        in the title ("postgres://app:Hunter2Secret…"). Only the part an observation can
        keep is screened, with a margin for a secret across the cut (a 1 MB reply need
        not be scanned). Anything but text is left to the observation's own checks."""
        if not isinstance(value, str):
            return value
        return self.transcript(value[: PRE_COMPACT_LIMIT + CUT_MARGIN])

    def tags(self, tags: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """Validated tags, screened; a redacted one is a tag again (``[redacted-...]``, or
        ``[redacted-secret]`` where the kind would make it too long a tag)."""
        screened = [self.text(tag, "tags") for tag in tags]
        return tuple(dict.fromkeys(_as_tag(t) if t not in tags else t for t in screened))

    def files(self, files: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """Validated paths, screened (a redacted one keeps the rest of its path)."""
        return tuple(dict.fromkeys(self.text(path, "files") for path in files))

    def draft(self, draft: MemoryDraft) -> MemoryDraft:
        """A validated draft, screened (a redacted title or tag stays a valid one)."""
        if self.secrets is SecretsMode.ALLOW:
            return draft
        return replace(
            draft,
            content=self.text(draft.content, "content"),
            title=None if draft.title is None else self.text(draft.title, "title"),
            tags=self.tags(draft.tags),
            files=self.files(draft.files),
        )

    def changes(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validated changes, screened."""
        screened = dict(changes)
        for name in ("title", "content"):
            if isinstance(screened.get(name), str):
                screened[name] = self.text(screened[name], name)
        if "tags" in screened:
            screened["tags"] = self.tags(screened["tags"])
        if isinstance(screened.get("files"), tuple | list):
            screened["files"] = self.files(screened["files"])
        return screened

    def memory(self, memory: Memory) -> Memory:
        """A whole record (an import), screened; the caller recomputes its signature."""
        if self.secrets is SecretsMode.ALLOW:
            return memory
        return replace(
            memory,
            content=self.text(memory.content, "content"),
            title=self.text(memory.title, "title"),
            tags=self.tags(memory.tags),
            files=self.files(memory.files),
        )


def _as_tag(redacted: str) -> str:
    """A tag with a redaction marker in it, as a valid tag."""
    tag = " ".join(redacted.split()).lower().replace(" ", "-")
    return normalize_tag(tag if len(tag) <= MAX_TAG_CHARS else "[redacted-secret]")
