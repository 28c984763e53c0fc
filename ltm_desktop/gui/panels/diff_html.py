"""An audit event's before/after values as a readable, palette-aware HTML diff."""

from __future__ import annotations

import html
import re
from difflib import SequenceMatcher
from typing import Any

from ltm_desktop.core.records import EDITABLE_FIELDS, AuditEvent
from ltm_desktop.gui import theme
from ltm_desktop.gui.formatting import absolute_time, actor_label
from ltm_desktop.gui.models.history_model import HIDDEN_FIELDS

TEXT_FIELDS = ("title", "content")
FIELD_ORDER = (
    "title",
    "content",
    "category",
    "importance",
    "tags",
    "ttl_days",
    "disabled",
    "superseded_by",
    "reviewed_at",
)
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def _value(name: str, value: Any) -> str:
    if value is None:
        return "never" if name == "ttl_days" else "—"
    if name == "tags":
        return ", ".join(value) or "(none)"
    if name == "ttl_days":
        return f"{value} days"
    if name == "reviewed_at":
        return absolute_time(value)
    if name == "disabled":
        return "in the Trash" if value else "active"
    return str(value)


def word_diff(old: str, new: str) -> str:
    """Words removed struck through on red, added on green; the rest as is."""
    removed = (
        f"background-color:{theme.css(theme.removed_background())}; text-decoration:line-through"
    )
    added = f"background-color:{theme.css(theme.added_background())}"
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(html.escape("".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<span style='{removed}'>{html.escape(''.join(a[i1:i2]))}</span>")
        if j2 > j1:
            out.append(f"<span style='{added}'>{html.escape(''.join(b[j1:j2]))}</span>")
    return "".join(out).replace("\n", "<br>")


def event_html(event: AuditEvent) -> str:
    """The event heading and, per field, what it was and what it became."""
    who = html.escape(actor_label(event.actor))
    parts = [
        f"<p><b>{html.escape(event.action.value.capitalize())}</b> by {who}, {absolute_time(event.at, seconds=True)}</p>"
    ]
    before, after = event.before or {}, event.after or {}
    names = [n for n in FIELD_ORDER if (n in before or n in after) and n not in HIDDEN_FIELDS]
    if event.before is None and after:  # created / imported: the values it started with
        parts.append("<table cellspacing='0' cellpadding='3'>")
        for name in names:
            value = html.escape(_value(name, after.get(name))).replace("\n", "<br>")
            parts.append(f"<tr><td valign='top'><i>{name}</i></td><td>{value}</td></tr>")
        parts.append("</table>")
        return "".join(parts)
    if not names:
        parts.append("<p>No field changed.</p>")
        return "".join(parts)
    parts.append("<table cellspacing='0' cellpadding='3'>")
    for name in names:
        old, new = before.get(name), after.get(name)
        if name in TEXT_FIELDS and isinstance(old, str) and isinstance(new, str):
            body = word_diff(old, new)
        else:
            body = f"{html.escape(_value(name, old))} → <b>{html.escape(_value(name, new))}</b>"
        parts.append(f"<tr><td valign='top'><i>{name}</i></td><td>{body}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def values_html(stored: dict[str, Any], wanted: dict[str, Any]) -> str:
    """Per field, what is stored now and what was wanted instead (only where they differ)."""
    rows = []
    for name in [n for n in FIELD_ORDER if n in wanted] + sorted(set(wanted) - set(FIELD_ORDER)):
        old, new = stored.get(name), wanted[name]
        if old == new or (name == "tags" and list(old or ()) == list(new or ())):
            continue
        if name in TEXT_FIELDS and isinstance(old, str) and isinstance(new, str):
            body = word_diff(old, new)
        else:
            body = f"{html.escape(_value(name, old))} → <b>{html.escape(_value(name, new))}</b>"
        rows.append(f"<tr><td valign='top'><i>{name}</i></td><td>{body}</td></tr>")
    if not rows:
        return "<p>What is stored already has these values.</p>"
    return "<table cellspacing='0' cellpadding='3'>" + "".join(rows) + "</table>"


def revertible_values(event: AuditEvent) -> dict[str, Any]:
    """The editable fields this event changed, with the values they had before it."""
    return {k: v for k, v in (event.before or {}).items() if k in EDITABLE_FIELDS}
