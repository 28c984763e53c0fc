"""The Python client's calls for the extractor and the review inbox (mixed into Client)."""

from __future__ import annotations

from typing import Any, cast

from ltm_desktop.api.shapes import (
    DecisionShape,
    ExtractStartedShape,
    InboxPageShape,
    RunShape,
)


def _drop_none(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


class InboxCalls:
    """``extract``, ``extract.runs`` and ``inbox.*``; ``Client`` provides ``call``."""

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError  # Client's

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
        return cast(
            ExtractStartedShape,
            self.call(
                "extract",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    transcript_path=transcript_path,
                    text=text,
                    observation_id=observation_id,
                    agent=agent,
                    session_id=session_id,
                ),
            ),
        )

    def extract_runs(
        self, *, cwd: str | None = None, project_id: str | None = None, limit: int | None = None
    ) -> list[RunShape]:
        result = self.call("extract.runs", _drop_none(cwd=cwd, project_id=project_id, limit=limit))
        return cast(list[RunShape], result["runs"])

    def inbox_list(
        self, *, cwd: str | None = None, project_id: str | None = None, limit: int | None = None
    ) -> InboxPageShape:
        return cast(
            InboxPageShape,
            self.call("inbox.list", _drop_none(cwd=cwd, project_id=project_id, limit=limit)),
        )

    def inbox_approve(
        self, item_id: str, *, expected_updated_at: str | None = None, **changes: Any
    ) -> DecisionShape:
        """Approve a proposal or an unreviewed memory, after applying ``changes``."""
        params = _drop_none(id=item_id, expected_updated_at=expected_updated_at)
        return cast(DecisionShape, self.call("inbox.approve", {**params, **changes}))

    def inbox_reject(
        self, item_id: str, *, expected_updated_at: str | None = None
    ) -> DecisionShape:
        params = _drop_none(id=item_id, expected_updated_at=expected_updated_at)
        return cast(DecisionShape, self.call("inbox.reject", params))

    def inbox_reopen(
        self, item_id: str, *, expected_updated_at: str | None = None
    ) -> DecisionShape:
        params = _drop_none(id=item_id, expected_updated_at=expected_updated_at)
        return cast(DecisionShape, self.call("inbox.reopen", params))
