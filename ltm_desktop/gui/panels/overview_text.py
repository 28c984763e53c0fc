"""The Overview's numbers in words: axis labels, tooltips and the summaries under each chart
(local dates, as the core counted them)."""

from __future__ import annotations

from datetime import datetime

from ltm_desktop.core.overview.figures import OTHERS, BudgetShare, Overview, UseGrid
from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.gui.formatting import absolute_time, count_label

MEMORIES = ("memory", "memories")
CHANGES = ("change", "changes")


def short_date(ts: float) -> str:
    day = datetime.fromtimestamp(ts)
    return f"{day.day} {day:%b}"


def week_name(ts: float) -> str:
    day = datetime.fromtimestamp(ts)
    return f"Week of {day:%a} {day.day} {day:%b %Y}"


def day_name(ts: float) -> str:
    day = datetime.fromtimestamp(ts)
    return f"{day:%a} {day.day} {day:%b %Y}"


def actor_name(actor: str) -> str:
    """Who, in a legend: the person is "you"."""
    return "you" if actor == GUI_ACTOR else ("other agents" if actor == OTHERS else actor)


def memories_summary(found: Overview) -> str:
    counts = found.memories.counts
    now = sum(counts[-1]) if counts else 0
    first = sum(counts[0]) if counts else 0
    weeks = len(counts)
    return f"{count_label(now, *MEMORIES)} now; {first:,} {weeks} weeks ago."


def writes_summary(found: Overview) -> str:
    total = sum(map(sum, found.writes.counts))
    if not total:
        return "No changes in the last 30 days."
    mine = (
        sum(row[found.writes.actors.index(GUI_ACTOR)] for row in found.writes.counts)
        if GUI_ACTOR in found.writes.actors
        else 0
    )
    return f"{count_label(total, *CHANGES)} in 30 days, {mine:,} of them yours."


def use_tips(grid: UseGrid) -> list[list[str]]:
    """``[row][column]`` with importance 10 in the top row, as the grid draws it."""
    tips = []
    for importance in range(len(grid.counts) - 1, -1, -1):
        row = []
        for bucket, label in enumerate(grid.buckets):
            n = grid.counts[importance][bucket]
            used = (
                "never used"
                if bucket == 0
                else f"used {label} {'time' if label == '1' else 'times'}"
            )
            last = grid.last_used[importance][bucket]
            when = f", last used {absolute_time(last)}" if last is not None else ""
            row.append(f"Importance {importance}, {used}: {count_label(n, *MEMORIES)}{when}")
        tips.append(row)
    return tips


def uses_summary(grid: UseGrid) -> str:
    total = sum(map(sum, grid.counts))
    never = sum(row[0] for row in grid.counts)
    important_unused = sum(grid.counts[i][0] for i in range(7, len(grid.counts)))
    if not total:
        return "No memories to read."
    return (
        f"{never:,} of {count_label(total, *MEMORIES)} never read by an agent; "
        f"{important_unused:,} of them have importance 7 or more."
    )


def stale_summary(found: Overview) -> str:
    part = found.stale_removed
    now = part.stale[-1] if part.stale else 0
    return f"{count_label(now, 'stale candidate', 'stale candidates')} now; {sum(part.removed):,} removed in {len(part.removed)} weeks."


def budget_tips(share: BudgetShare) -> list[str]:
    tips = []
    for category, size, n in zip(share.categories, share.bytes, share.memories, strict=True):
        percent = 100 * size / share.budget if share.budget else 0
        tips.append(
            f"{category}: {size:,} bytes, {percent:.0f}% of the budget ({count_label(n, *MEMORIES)})"
        )
    return tips


def budget_caption(share: BudgetShare) -> str:
    percent = 100 * share.used / share.budget if share.budget else 0
    cut = " — full: the rest was cut" if share.truncated else ""
    return f"MEMORY.md: {share.used:,} of {share.budget:,} bytes ({percent:.0f}%){cut}"
