"""The extractor's and the review inbox's methods: ``extract``, ``extract.runs``,
``inbox.list``, ``inbox.approve``, ``inbox.reject``, ``inbox.reopen``.

Registered into ``methods.METHODS`` when ``methods`` is imported (it imports this module
last).
"""

from __future__ import annotations

import os
from typing import Any

from ltm_desktop.api import serialize_inbox
from ltm_desktop.api.conflicts import expected_version
from ltm_desktop.api.dispatch import Dispatcher, Session, method
from ltm_desktop.api.methods import register, scope
from ltm_desktop.api.params import Params, invalid
from ltm_desktop.core import rules
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRequest
from ltm_desktop.core.records import EDITABLE_FIELDS
from ltm_desktop.core.seams import ExtractorOff

MAX_LIST = 500


def _optional_scope(d: Dispatcher, p: Params) -> str | None:
    return scope(d, p) if p.present("cwd") or p.present("project_id") else None


def _limit(p: Params, default: int) -> int:
    value = p.integer("limit")
    if value is None:
        return default
    if not 1 <= value <= MAX_LIST:
        raise invalid("limit", f"must be between 1 and {MAX_LIST}; got {value}")
    return value


def _transcript(p: Params) -> str | None:
    path: str | None = p.text("transcript_path")
    if path is None:
        return None
    if not os.path.isabs(path):
        raise invalid("transcript_path", "must be an absolute path")
    if not os.path.isfile(path):
        raise invalid("transcript_path", f"is not a readable file: {rules.shown(path)}")
    return path


@method("extract")
def extract(d: Dispatcher, p: Params, s: Session) -> Any:
    """Queue an extraction and answer at once; the run's record tells how it went."""
    project_id = scope(d, p)
    transcript = _transcript(p)
    text = p.text("text")
    observation_id = p.text("observation_id")
    agent = p.text("agent")
    session_id = p.text("session_id") or ""
    p.done()
    given = [v for v in (transcript, text, observation_id) if v]
    if len(given) != 1:
        raise invalid(
            "transcript_path", "give exactly one of transcript_path, text, observation_id"
        )
    request = ExtractionRequest(
        project_id=project_id,
        agent=rules.check_actor(agent or s.client),
        session_id=session_id.strip()[:200],
        run_id=new_run_id(d.service.now()),
        transcript_path=transcript,
        text=text,
        observation_id=observation_id,
    )
    try:
        d.service.extraction.submit(request)
    except ExtractorOff as exc:
        return serialize_inbox.extract_started(None, str(exc))
    except LtmError as exc:  # busy, or shutting down: nothing was queued
        return serialize_inbox.extract_started(None, str(exc))
    register(d, p)
    return serialize_inbox.extract_started(request.run_id)


@method("extract.runs")
def extract_runs(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = _optional_scope(d, p)
    count = _limit(p, 20)
    p.done()
    return {"runs": [serialize_inbox.run(r) for r in d.service.inbox.runs(project_id, count)]}


@method("inbox.list")
def inbox_list(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = _optional_scope(d, p)
    count = _limit(p, 100)
    p.done()
    entries = d.service.inbox.entries(project_id, limit=count)
    counts = d.service.inbox.counts()
    total = sum(counts.values()) if project_id is None else counts.get(project_id, 0)
    return {"items": [serialize_inbox.inbox_item(e) for e in entries], "total": total}


def _item_id(p: Params) -> str:
    return rules.check_text(p.text("id", required=True), "id")


@method("inbox.approve")
def inbox_approve(d: Dispatcher, p: Params, s: Session) -> Any:
    item_id = _item_id(p)
    changes = {name: p.raw(name) for name in EDITABLE_FIELDS if p.present(name)}
    expected = expected_version(p)
    into = p.text("into_project_id")
    p.done()
    result = d.service.inbox.approve(
        item_id, s.client, changes=changes, expected_updated_at=expected, into=into
    )
    return serialize_inbox.decision(result)


@method("inbox.reject")
def inbox_reject(d: Dispatcher, p: Params, s: Session) -> Any:
    item_id = _item_id(p)
    expected = expected_version(p)
    p.done()
    return serialize_inbox.decision(
        d.service.inbox.reject(item_id, s.client, expected_updated_at=expected)
    )


@method("inbox.reopen")
def inbox_reopen(d: Dispatcher, p: Params, s: Session) -> Any:
    item_id = _item_id(p)
    expected = expected_version(p)
    p.done()
    return serialize_inbox.decision(
        d.service.inbox.reopen(item_id, s.client, expected_updated_at=expected)
    )
