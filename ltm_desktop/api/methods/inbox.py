"""The extractor's and the review inbox's methods: ``extract``, ``extract.runs``,
``inbox.list``, ``inbox.approve``, ``inbox.reject``, ``inbox.reopen``."""

from __future__ import annotations

import os
from typing import Annotated, TypedDict, Unpack

from ltm_desktop.api import serialize_inbox
from ltm_desktop.api.call import Call
from ltm_desktop.api.conflicts import Version
from ltm_desktop.api.params import Between, Checked, Edits, Id, invalid
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import (
    DecisionShape,
    ExtractStartedShape,
    InboxPageShape,
    RunShape,
)
from ltm_desktop.core import rules
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRequest
from ltm_desktop.core.seams import ExtractorOff

MAX_LIST = 500
Limit = Annotated[int, Between(1, MAX_LIST)]


def readable_file(path: str, name: str) -> str:
    if not os.path.isabs(path):
        raise invalid(name, "must be an absolute path")
    if not os.path.isfile(path):
        raise invalid(name, f"is not a readable file: {rules.shown(path)}")
    return path


Transcript = Annotated[str, Checked(readable_file)]


@method("extract")
def extract(
    call: Call,
    scope: Scope,
    transcript_path: Transcript | None = None,
    text: str | None = None,
    observation_id: str | None = None,
    agent: str | None = None,
    session_id: str = "",
) -> ExtractStartedShape:
    """Queue an extraction and answer at once; the run's record tells how it went."""
    given = [v for v in (transcript_path, text, observation_id) if v]
    if len(given) != 1:
        raise invalid(
            "transcript_path", "give exactly one of transcript_path, text, observation_id"
        )
    request = ExtractionRequest(
        project_id=scope.project_id,
        agent=rules.check_actor(agent or call.client),
        session_id=session_id.strip()[:200],
        run_id=new_run_id(call.service.now()),
        transcript_path=transcript_path,
        text=text,
        observation_id=observation_id,
    )
    try:
        call.service.extraction.submit(request)
    except ExtractorOff as exc:
        return serialize_inbox.extract_started(None, str(exc))
    except LtmError as exc:  # busy, or shutting down: nothing was queued
        return serialize_inbox.extract_started(None, str(exc))
    scope.remember_path(call)
    return serialize_inbox.extract_started(request.run_id)


class RunsShape(TypedDict):
    runs: list[RunShape]


@method("extract.runs")
def extract_runs(call: Call, scope: Scope | None = None, limit: Limit = 20) -> RunsShape:
    project_id = scope.project_id if scope is not None else None
    return {"runs": [serialize_inbox.run(r) for r in call.service.inbox.runs(project_id, limit)]}


@method("inbox.list")
def inbox_list(call: Call, scope: Scope | None = None, limit: Limit = 100) -> InboxPageShape:
    project_id = scope.project_id if scope is not None else None
    inbox = call.service.inbox
    entries = inbox.entries(project_id, limit=limit)
    counts = inbox.counts()
    total = sum(counts.values()) if project_id is None else counts.get(project_id, 0)
    return {"items": [serialize_inbox.inbox_item(e) for e in entries], "total": total}


@method("inbox.approve", writes=True)
def inbox_approve(
    call: Call,
    id: Id,
    expected_updated_at: Version | None = None,
    into_project_id: str | None = None,
    **changes: Unpack[Edits],
) -> DecisionShape:
    service = call.service
    into = None
    if into_project_id is not None:  # "global": the person's own, "team": the shared one
        into = service.resolve_scope(project_id=into_project_id)
        service.ensure_scope(into)
    result = service.inbox.approve(
        id,
        call.client,
        changes=dict(changes),
        expected_updated_at=expected_updated_at,
        into=into,
    )
    return serialize_inbox.decision(result)


@method("inbox.reject", writes=True)
def inbox_reject(call: Call, id: Id, expected_updated_at: Version | None = None) -> DecisionShape:
    decision = call.service.inbox.reject(id, call.client, expected_updated_at=expected_updated_at)
    return serialize_inbox.decision(decision)


@method("inbox.reopen", writes=True)
def inbox_reopen(call: Call, id: Id, expected_updated_at: Version | None = None) -> DecisionShape:
    decision = call.service.inbox.reopen(id, call.client, expected_updated_at=expected_updated_at)
    return serialize_inbox.decision(decision)
