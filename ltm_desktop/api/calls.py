"""The API's methods as typed Python calls, over any transport that calls by method name.

    calls = ApiCalls(transport)       # anything with call(method, params) -> result
    added = calls.memory_add("Tests run with `make test`", cwd="/home/me/src/app")
    hits = calls.memory_search("how do I run the tests?", cwd="/home/me/src/app")

One method set, two transports: ``api.client.Client`` is these calls over its socket
connection, and the agent's tools and hooks run them over either that socket or the
API's dispatcher in their own process (``agent.direct_access``). Each call sends its
method's params (those given: None is left out) as ``docs/protocol.md`` specifies and
returns the typed shape of ``api.shapes``; errors are the transport's.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from ltm_desktop.api.shapes import (
    AddResultShape,
    AuditEventShape,
    ChangesShape,
    DecisionShape,
    ExtractStartedShape,
    ForgetResultShape,
    HealthShape,
    InboxPageShape,
    MemoryPageShape,
    MemoryResultShape,
    MemoryShape,
    ObservationShape,
    ObserveResultShape,
    PrecisShape,
    ProjectShape,
    RecallHitShape,
    RunShape,
    SearchAnswerShape,
    SearchHitShape,
    StatsShape,
)


class Transport(Protocol):
    """Calls one API method by name: its ``result``, or an error raised."""

    def call(self, method: str, params: dict[str, Any]) -> Any: ...


def _given(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


class ApiCalls:
    """Every API method with a typed signature and result, run over ``transport``."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Any method, with a dict of params (None: ``{}``); the whole ``result``."""
        return self._transport.call(method, params or {})

    def _call(self, method: str, /, **params: Any) -> Any:
        """``method`` with the params given (None: not sent)."""
        return self._transport.call(method, _given(params))

    # -- status and projects ----------------------------------------------

    def health(self) -> HealthShape:
        return cast(HealthShape, self._call("health"))

    def project_resolve(self, cwd: str) -> ProjectShape:
        return cast(ProjectShape, self._call("project.resolve", cwd=cwd))

    def project_list(self) -> list[ProjectShape]:
        return cast(list[ProjectShape], self._call("project.list")["projects"])

    def stats(self, *, cwd: str | None = None, project_id: str | None = None) -> StatsShape:
        return cast(StatsShape, self._call("stats", cwd=cwd, project_id=project_id))

    # -- memories ---------------------------------------------------------

    def memory_add(
        self,
        content: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        title: str | None = None,
        category: str | None = None,
        importance: int | None = None,
        tags: list[str] | None = None,
        ttl_days: int | None = None,
        files: list[str] | None = None,
    ) -> AddResultShape:
        result = self._call(
            "memory.add",
            cwd=cwd,
            project_id=project_id,
            content=content,
            title=title,
            category=category,
            importance=importance,
            tags=tags,
            ttl_days=ttl_days,
            files=files,
        )
        return cast(AddResultShape, result)

    def memory_get(self, memory_id: str) -> MemoryShape:
        return cast(MemoryShape, self._call("memory.get", id=memory_id)["memory"])

    def memory_update(
        self, memory_id: str, *, expected_updated_at: str | None = None, **fields: Any
    ) -> MemoryShape:
        """Edit ``fields``; with ``expected_updated_at`` (the ``updated_at`` you read), a
        ConflictError instead if someone changed the memory since (``.current`` is theirs)."""
        return self.memory_update_result(
            memory_id, expected_updated_at=expected_updated_at, **fields
        )["memory"]

    def memory_update_result(
        self, memory_id: str, *, expected_updated_at: str | None = None, **fields: Any
    ) -> MemoryResultShape:
        """As ``memory_update``; the whole result (the memory and any ``warning``)."""
        params = _given({"id": memory_id, "expected_updated_at": expected_updated_at})
        result = self._transport.call("memory.update", {**params, **fields})
        return cast(MemoryResultShape, result)

    def memory_remove(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryShape:
        return self.memory_remove_result(memory_id, expected_updated_at=expected_updated_at)[
            "memory"
        ]

    def memory_remove_result(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryResultShape:
        """As ``memory_remove``; the whole result (the memory and any ``warning``)."""
        result = self._call("memory.remove", id=memory_id, expected_updated_at=expected_updated_at)
        return cast(MemoryResultShape, result)

    def memory_restore(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryShape:
        return self.memory_restore_result(memory_id, expected_updated_at=expected_updated_at)[
            "memory"
        ]

    def memory_restore_result(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryResultShape:
        """As ``memory_restore``; the whole result (the memory and any ``warning``)."""
        result = self._call("memory.restore", id=memory_id, expected_updated_at=expected_updated_at)
        return cast(MemoryResultShape, result)

    def memory_search(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> list[SearchHitShape]:
        return self.memory_search_answer(
            query, cwd=cwd, project_id=project_id, limit=limit, include_global=include_global
        )["hits"]

    def memory_search_answer(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> SearchAnswerShape:
        """``memory_search`` with the rest of the answer: ``stale`` and its ``warning``
        when it came from the read cache (the database server away)."""
        result = self._call(
            "memory.search",
            cwd=cwd,
            project_id=project_id,
            query=query,
            limit=limit,
            include_global=include_global,
        )
        return cast(SearchAnswerShape, result)

    def memory_list(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        category: str | None = None,
        include_disabled: bool | None = None,
    ) -> MemoryPageShape:
        result = self._call(
            "memory.list",
            cwd=cwd,
            project_id=project_id,
            limit=limit,
            offset=offset,
            category=category,
            include_disabled=include_disabled,
        )
        return cast(MemoryPageShape, result)

    def memory_history(self, memory_id: str) -> list[AuditEventShape]:
        return cast(list[AuditEventShape], self._call("memory.history", id=memory_id)["events"])

    def memory_scope_history(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
        actor: str | None = None,
        person: str | None = None,
    ) -> list[AuditEventShape]:
        """A scope's events, newest first, each naming its agent, person and machine."""
        result = self._call(
            "memory.scope_history",
            cwd=cwd,
            project_id=project_id,
            limit=limit,
            offset=offset,
            actor=actor,
            person=person,
        )
        return cast(list[AuditEventShape], result["events"])

    def memory_stale(
        self, *, cwd: str | None = None, project_id: str | None = None
    ) -> list[MemoryShape]:
        result = self._call("memory.stale", cwd=cwd, project_id=project_id)
        return cast(list[MemoryShape], result["memories"])

    def memory_purge_expired(self, *, cwd: str | None = None, project_id: str | None = None) -> int:
        return int(self._call("memory.purge_expired", cwd=cwd, project_id=project_id)["purged"])

    def memory_changes(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        since: int | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> ChangesShape:
        """What changed after the audit point ``since`` (None: nothing, just the ``head``)."""
        result = self._call(
            "memory.changes",
            cwd=cwd,
            project_id=project_id,
            since=since,
            limit=limit,
            include_global=include_global,
        )
        return cast(ChangesShape, result)

    def forget(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        memory_ids: list[str] | None = None,
        observation_ids: list[str] | None = None,
    ) -> ForgetResultShape:
        """Soft-delete memories and observations of the scope by id; the whole result
        (another project's ids are ``refused``, by name)."""
        result = self._call(
            "forget",
            cwd=cwd,
            project_id=project_id,
            memory_ids=memory_ids,
            observation_ids=observation_ids,
        )
        return cast(ForgetResultShape, result)

    # -- recall, observations, the prompt ---------------------------------

    def recall(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        kinds: list[str] | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> list[RecallHitShape]:
        result = self._call(
            "recall",
            cwd=cwd,
            project_id=project_id,
            query=query,
            kinds=kinds,
            limit=limit,
            include_global=include_global,
        )
        return cast(list[RecallHitShape], result["hits"])

    def observe(
        self,
        kind: str,
        session_id: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        user_text: str | None = None,
        assistant_text: str | None = None,
        messages_text: str | None = None,
    ) -> ObservationShape | None:
        """The recorded observation; None when the config turns this kind off."""
        return self.observe_result(
            kind,
            session_id,
            cwd=cwd,
            project_id=project_id,
            user_text=user_text,
            assistant_text=assistant_text,
            messages_text=messages_text,
        )["observation"]

    def observe_result(
        self,
        kind: str,
        session_id: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        user_text: str | None = None,
        assistant_text: str | None = None,
        messages_text: str | None = None,
    ) -> ObserveResultShape:
        """As ``observe``; the whole result (with why nothing was recorded: ``skipped``)."""
        result = self._call(
            "observe",
            cwd=cwd,
            project_id=project_id,
            kind=kind,
            session_id=session_id,
            user_text=user_text,
            assistant_text=assistant_text,
            messages_text=messages_text,
        )
        return cast(ObserveResultShape, result)

    def precis_get(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        include_global: bool | None = None,
    ) -> PrecisShape:
        result = self._call(
            "precis.get", cwd=cwd, project_id=project_id, include_global=include_global
        )
        return cast(PrecisShape, result)

    def prompt_section(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        include_global: bool | None = None,
    ) -> str:
        result = self._call(
            "prompt.section", cwd=cwd, project_id=project_id, include_global=include_global
        )
        return str(result["text"])

    # -- the extractor and the review inbox -------------------------------

    def extract(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        transcript_path: str | None = None,
        text: str | None = None,
        observation_id: str | None = None,
        agent: str | None = None,
        session_id: str | None = None,
    ) -> ExtractStartedShape:
        """Queue an extraction (answered at once); ``started`` false says why not."""
        result = self._call(
            "extract",
            cwd=cwd,
            project_id=project_id,
            transcript_path=transcript_path,
            text=text,
            observation_id=observation_id,
            agent=agent,
            session_id=session_id,
        )
        return cast(ExtractStartedShape, result)

    def extract_runs(
        self, *, cwd: str | None = None, project_id: str | None = None, limit: int | None = None
    ) -> list[RunShape]:
        result = self._call("extract.runs", cwd=cwd, project_id=project_id, limit=limit)
        return cast(list[RunShape], result["runs"])

    def inbox_list(
        self, *, cwd: str | None = None, project_id: str | None = None, limit: int | None = None
    ) -> InboxPageShape:
        result = self._call("inbox.list", cwd=cwd, project_id=project_id, limit=limit)
        return cast(InboxPageShape, result)

    def inbox_approve(
        self, item_id: str, *, expected_updated_at: str | None = None, **changes: Any
    ) -> DecisionShape:
        """Approve a proposal or an unreviewed memory, after applying ``changes``."""
        params = _given({"id": item_id, "expected_updated_at": expected_updated_at})
        return cast(DecisionShape, self._transport.call("inbox.approve", {**params, **changes}))

    def inbox_reject(
        self, item_id: str, *, expected_updated_at: str | None = None
    ) -> DecisionShape:
        result = self._call("inbox.reject", id=item_id, expected_updated_at=expected_updated_at)
        return cast(DecisionShape, result)

    def inbox_reopen(
        self, item_id: str, *, expected_updated_at: str | None = None
    ) -> DecisionShape:
        result = self._call("inbox.reopen", id=item_id, expected_updated_at=expected_updated_at)
        return cast(DecisionShape, result)
