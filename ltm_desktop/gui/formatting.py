"""How times, sizes and search snippets are written for people."""

from __future__ import annotations

import html
import re
import time

from ltm_desktop.core.records import GUI_ACTOR

_MARKED = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def actor_label(actor: str) -> str:
    """Who made a change, as the app shows it: you, or the agent or tool by its name."""
    return "you (in this app)" if actor == GUI_ACTOR else actor


def machine_label(actor: str, machine: str | None) -> str:
    """An agent with the machine it wrote on (``codex on laptop``); the agent alone for a
    change from before machines were recorded."""
    return actor if machine is None else f"{actor} on {machine}"


def person_label(person: str | None) -> str:
    """A change's person (user@host), or a dash for one from before people were recorded."""
    return "—" if person is None else person


def absolute_time(ts: float | None, *, seconds: bool = False) -> str:
    """Local date and time, e.g. ``2027-01-15 09:41`` (``09:41:07`` with ``seconds``: the
    history, where several changes often fall within one minute)."""
    if ts is None:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M", time.localtime(ts))


def relative_time(ts: float | None, now: float) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``yesterday``, ``12 days ago``, or a date."""
    if ts is None:
        return "never"
    delta = now - ts
    if delta < 0:
        return absolute_time(ts)
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min ago"
    if delta < 86_400:
        return f"{int(delta // 3600)} h ago"
    days = int(delta // 86_400)
    if days == 1:
        return "yesterday"
    if days < 45:
        return f"{days} days ago"
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def count_label(n: int, singular: str, plural: str | None = None) -> str:
    """``1 memory``, ``2,345 memories``."""
    word = singular if n == 1 else (plural or singular + "s")
    return f"{n:,} {word}"


def budget_label(used: int, budget: int) -> str:
    return f"{used:,} / {budget:,} bytes"


def snippet_html(snippet: str) -> str:
    """A snippet with ``**word**`` markers as HTML: escaped first, then the markers bolded."""
    escaped = html.escape(snippet, quote=False)
    return _MARKED.sub(r"<b>\1</b>", escaped).replace("\n", " ")


def marked_terms(snippet: str) -> set[str]:
    """The words a snippet marks as matched (lower-cased)."""
    return {m.group(1).strip().lower() for m in _MARKED.finditer(snippet) if m.group(1).strip()}


def highlight_html(text: str, terms: set[str]) -> str:
    """``text`` escaped, with whole-word occurrences of ``terms`` in bold (for titles)."""
    if not terms:
        return html.escape(text, quote=False)
    pattern = re.compile(
        r"(?<!\w)("
        + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
        + r")\w*",
        re.IGNORECASE,
    )
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(f"<b>{html.escape(match.group(0), quote=False)}</b>")
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def plain_snippet(snippet: str) -> str:
    """The snippet without markers (for tooltips and accessibility)."""
    return _MARKED.sub(r"\1", snippet).replace("\n", " ")


def tags_text(tags: tuple[str, ...] | list[str]) -> str:
    return ", ".join(tags)


def parse_tags(text: str) -> list[str]:
    """Comma-separated tags as typed; blanks dropped, rules applied later by the core."""
    return [part.strip() for part in text.split(",") if part.strip()]
