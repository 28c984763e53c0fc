"""Realistic sample memories across a few projects, for ``--demo``, screenshots and benchmarks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.demo_data import MEMORIES, OLD_LOW_VALUE, PROJECTS

__all__ = ["PROJECTS", "DemoClock", "fill_demo_data"]

DAY = 86_400.0


@dataclass
class DemoClock:
    """Real time shifted by ``offset`` seconds: lets the demo write memories "months ago".

    Build the service with ``clock=DemoClock()`` and pass the same clock to
    ``fill_demo_data`` to get stale candidates; without it they are all brand new.
    """

    offset: float = 0.0
    _last: float = field(default=0.0, repr=False)
    _last_offset: float = field(default=0.0, repr=False)

    def __call__(self) -> float:
        now = time.time() + self.offset
        if self.offset == self._last_offset:  # strictly increasing while the offset stays
            now = max(now, self._last + 0.001)
        self._last, self._last_offset = now, self.offset
        return now


def fill_demo_data(service: MemoryService, clock: DemoClock | None = None) -> None:
    """Write sample memories, observations and history (as several agents and the GUI).

    Args:
        clock: the DemoClock the service was built with; when given, a few
            low-importance memories are written 90 days in the past so that the
            stale view has candidates.
    """
    ids = {key: service.resolve_scope(cwd=path, register=True) for key, path in PROJECTS.items()}
    ids["global"] = GLOBAL_PROJECT_ID
    if clock is not None:
        clock.offset = -90 * DAY  # without a DemoClock they are new, and go stale with time
    for scope, actor, importance, category, tags, title, content in OLD_LOW_VALUE:
        draft = MemoryDraft(content, title, category, importance, tags)
        service.add(ids[scope], draft, actor)
    if clock is not None:
        clock.offset = 0.0
    added: dict[str, Memory] = {}
    for scope, actor, importance, category, tags, ttl, maybe_title, content in MEMORIES:
        draft = MemoryDraft(content, maybe_title, category, importance, tags, ttl)
        added[maybe_title or content] = service.add(ids[scope], draft, actor).memory
    _history(service, ids, added)
    _observations(service, ids)


def _history(service: MemoryService, ids: dict[str, str], added: dict[str, Memory]) -> None:
    """Edits, removals, a superseded memory and agent searches, so every view has something."""
    billing = ids["billing"]
    note = service.add(
        billing,
        MemoryDraft(
            "The staging deploy runs from the deploy-staging workflow on every merge to main branch.",
            "Staging deploys",
            "knowledge",
            5,
            ("deploy",),
        ),
        "claude-code",
    ).memory
    service.add(
        billing,
        MemoryDraft(
            "The staging deploy runs from the deploy-staging workflow on every merge to the main branch, after tests.",
            "Staging deploys after tests",
            "knowledge",
            6,
            ("deploy", "ci"),
        ),
        "claude-code",
    )  # supersedes ``note``
    del note
    flaky = service.add(
        billing,
        MemoryDraft(
            "Use `pytest -p no:randomly` when bisecting order-dependent failures.",
            None,
            "skill",
            3,
            ("testing",),
        ),
        "cursor",
    ).memory
    service.remove(flaky.id, "gui")
    old = service.add(
        ids["web"],
        MemoryDraft("The dashboard uses Create React App.", None, "knowledge", 4, ("frontend",)),
        "cursor",
    ).memory
    service.remove(old.id, "claude-code")
    for memory in list(added.values())[:6]:
        service.update(memory.id, {"importance": min(10, memory.importance + 1)}, "gui")
    money = added.get("Money is stored in minor units")
    if money is not None:
        service.update(
            money.id,
            {
                "content": money.content
                + " Exchange rates come from the ECB daily feed, cached for 24 h."
            },
            "claude-code",
        )
    for scope, query in (
        ("billing", "deploy production"),
        ("billing", "tests"),
        ("web", "dev server"),
        ("infra", "terraform"),
    ):
        service.search.query(ids[scope], query, limit=5, reinforce=True)


def _observations(service: MemoryService, ids: dict[str, str]) -> None:
    billing = ids["billing"]
    service.observations.record(
        billing,
        "agent_end",
        "sess-7f3a",
        "claude-code",
        user_text="Why do the payout tests fail on CI but not locally?",
        assistant_text="The retry schedule test compares wall-clock times; CI runners are slower, so the second attempt lands after the cutoff. I pinned the clock with freezegun and the test passes 50/50 runs.",
    )
    service.observations.record(
        billing,
        "agent_end",
        "sess-7f3a",
        "claude-code",
        user_text="Add the VAT number to the invoice footer.",
        assistant_text="Added `vat_number` to the footer partial and the settings model; the IBAN still needs a decision on formatting.",
    )
    service.observations.record(
        billing,
        "pre_compact",
        "sess-7f3a",
        "claude-code",
        messages_text="User asked about payout test flakiness; found a clock race; fixed with freezegun. Then invoice footer: VAT number added, IBAN pending.",
    )
    service.observations.record(
        billing,
        "agent_end",
        "sess-91bc",
        "codex-cli",
        user_text="Create a migration for the refunds table",
        assistant_text="Generated `2027_01_12_add_refunds.py` and added the missing server default for `status`.",
    )
    service.observations.record(
        ids["web"],
        "agent_end",
        "sess-c0de",
        "claude-code",
        user_text="Tab order is broken in the invoice filter dialog",
        assistant_text="The DatePicker swallowed tabIndex; passing it through fixes the order. Added a Playwright test.",
    )
