"""What the core accepts from an extraction: which entries become memories or proposals.

The extractor (``ltm_desktop.agent.extractor``) talks to the model and parses its reply
into raw entries; the rules for those entries are here. An entry is a JSON object with
``content`` and optionally ``title``, ``category``, ``importance`` and ``tags`` (other
members are ignored; tags that break the tag rules are left off, the entry kept); one that
the memory rules refuse is skipped and counted as invalid, one that
holds a credential is refused and counted, and the rest go through the normal add. A
reply is asked for at most ``MAX_ENTRIES``; the entries past them are counted as invalid
too (a model that ignores the limit must not flood the review inbox).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.inbox.proposals import RUN_PREFIX, new_id
from ltm_desktop.core.privacy.secrets import holds_secret
from ltm_desktop.core.records import Category, MemoryDraft

EXTRACTOR_ACTOR = "extractor"  # the actor and source of what the extractor stores
ENTRY_FIELDS = ("title", "content", "category", "importance", "tags")
MAX_ENTRIES = 10  # per run: what the prompt asks for, and what is kept


@dataclass
class CheckedEntries:
    drafts: list[MemoryDraft] = field(default_factory=list)
    invalid: int = 0
    refused: int = 0  # held a secret


def new_run_id(now: float) -> str:
    return new_id(RUN_PREFIX, now)


def check_entries(entries: Sequence[object]) -> CheckedEntries:
    """The valid, secret-free drafts among ``entries``, and how many were not."""
    checked = CheckedEntries()
    seen: set[str] = set()
    for entry in entries:
        try:
            draft = _draft(entry)
        except InvalidInput:
            checked.invalid += 1
            continue
        if holds_secret(f"{draft.title}\n{draft.content}\n{' '.join(draft.tags)}"):
            checked.refused += 1
            continue
        signature = rules.content_signature(draft.content)
        if signature in seen:  # the same entry twice in one reply is one entry
            continue
        seen.add(signature)
        if len(checked.drafts) < MAX_ENTRIES:
            checked.drafts.append(draft)
        else:
            checked.invalid += 1
    return checked


def _draft(entry: object) -> MemoryDraft:
    if not isinstance(entry, dict):
        raise InvalidInput(f"an entry must be an object, not {rules.describe(entry)}", "entry")
    return rules.validate_draft(
        MemoryDraft(
            content=entry.get("content"),  # type: ignore[arg-type]  # validated
            title=entry.get("title"),
            category=entry.get("category") or Category.KNOWLEDGE,
            importance=entry.get("importance", 5),
            tags=_tags(entry.get("tags")),
        )
    )


def _tags(value: object) -> tuple[str, ...]:
    """The model's tags, as the rules keep them; none when they break a rule (the memory
    is worth more than its keywords)."""
    if value is None:
        return ()
    try:
        return rules.check_tags(value)
    except InvalidInput:
        return ()
