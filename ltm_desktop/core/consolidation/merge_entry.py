"""What the core accepts as the merged memory of a group, from the model's reply.

The reply (parsed on the agent side) is a JSON object: ``title``, ``content``,
``category``, ``tags``; or ``{"same": false}`` when the model finds the memories do not
say the same thing (then nothing is proposed). The merged memory keeps what a person set
on the members: the highest importance, no expiry unless every member expires (then the
latest), and their files. Text holding a credential is refused, as the extractor's is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput, LtmError
from ltm_desktop.core.privacy.secrets import holds_secret
from ltm_desktop.core.records import Memory, MemoryDraft
from ltm_desktop.core.stale.named_files import MAX_FILES


class NotSame(LtmError):
    """The model judged that the group's memories do not say the same thing."""


class MergeRefused(LtmError):
    """The merged memory the model wrote is not one (invalid, or holds a credential)."""


def check_merge_entry(entry: object, members: Sequence[Memory]) -> MemoryDraft:
    """The validated draft of the merged memory of ``members``.

    Raises:
        NotSame: the model said they differ.
        MergeRefused: the entry is not a valid memory, or holds a credential.
    """
    if isinstance(entry, list) and len(entry) == 1:
        entry = entry[0]  # a model that answers an array of one
    if not isinstance(entry, dict):
        raise MergeRefused(f"the merged memory must be an object, not {rules.describe(entry)}")
    if entry.get("same") is False:
        raise NotSame("the model found that these memories do not say the same thing")
    tags = entry.get("tags")
    try:
        draft = rules.validate_draft(
            MemoryDraft(
                content=entry.get("content"),  # type: ignore[arg-type]  # validated
                title=entry.get("title"),
                category=entry.get("category") or _usual_category(members),
                importance=max(m.importance for m in members),
                tags=tags if isinstance(tags, list) else _all_tags(members),
                ttl_days=_ttl_days(members),
                files=_all_files(members),
            )
        )
    except InvalidInput as exc:
        raise MergeRefused(f"the merged memory is not valid: {exc}") from None
    if holds_secret(f"{draft.title}\n{draft.content}\n{' '.join(draft.tags)}"):
        raise MergeRefused("the merged memory holds what looks like a credential")
    return draft


def _usual_category(members: Sequence[Memory]) -> str:
    return Counter(m.category.value for m in members).most_common(1)[0][0]


def _all_tags(members: Sequence[Memory]) -> list[str]:
    return list(dict.fromkeys(tag for m in members for tag in m.tags))[: rules.MAX_TAGS]


def _all_files(members: Sequence[Memory]) -> list[str]:
    return list(dict.fromkeys(path for m in members for path in m.files))[:MAX_FILES]


def _ttl_days(members: Sequence[Memory]) -> int | None:
    days = [m.ttl_days for m in members]
    return None if any(d is None for d in days) else max(d for d in days if d is not None)
