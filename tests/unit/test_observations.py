"""Observations from agent lifecycle events, payload limits, and recall."""

from __future__ import annotations

import pytest

from ltm_desktop.core import observations as obs
from ltm_desktop.core.errors import InvalidInput, ObservationOff
from ltm_desktop.core.records import ObservationKind
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import ServiceFactory, make_draft


def test_agent_end_payload_limits_and_placeholders() -> None:
    payload = obs.build_observation(
        "agent_end", "s1", user_text="u" * 900, assistant_text="a" * 9000
    )
    user_part, assistant_part = payload.narrative.split("\n\nAssistant: ")
    assert len(user_part.removeprefix("User: ")) == obs.USER_TEXT_LIMIT
    assert len(assistant_part) == obs.ASSISTANT_TEXT_LIMIT
    assert len(payload.title) <= obs.TITLE_LIMIT
    empty = obs.build_observation("agent_end", "s1")
    assert empty.narrative == "User: (empty)\n\nAssistant: (empty)"
    assert empty.title == "(empty)"


def test_pre_compact_payload_limits() -> None:
    body = "line of transcript\n" * 1000
    payload = obs.build_observation("pre_compact", "s2", messages_text=body)
    assert payload.kind is ObservationKind.PRE_COMPACT
    assert len(payload.narrative) == obs.PRE_COMPACT_LIMIT
    assert payload.narrative.endswith("…")
    assert payload.title.startswith("Before compaction: line of transcript")
    assert len(payload.title) <= obs.TITLE_LIMIT
    assert obs.build_observation("pre_compact", "s2", messages_text="  ").narrative == "(empty)"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"kind": "session_start", "session_id": "s"}, "kind"),
        ({"kind": "agent_end", "session_id": ""}, "session_id"),
        ({"kind": "agent_end", "session_id": "x" * 201}, "session_id"),
        ({"kind": "agent_end", "session_id": "s", "user_text": 5}, "user_text"),
        ({"kind": "agent_end", "session_id": "s", "messages_text": "x"}, "messages_text"),
        ({"kind": "pre_compact", "session_id": "s", "user_text": "x"}, "user_text"),
        ({"kind": "pre_compact", "session_id": "s", "messages_text": "\ud800"}, "messages_text"),
    ],
)
def test_bad_observation_input(kwargs: dict[str, object], field: str) -> None:
    kind, session = kwargs.pop("kind"), kwargs.pop("session_id")
    with pytest.raises(InvalidInput) as info:
        obs.build_observation(kind, session, **kwargs)
    assert info.value.field == field


def test_observe_stores_and_lists_newest_first(service: MemoryService, project: str) -> None:
    first = service.observations.record(
        project, "agent_end", "sess-1", "claude-code", user_text="fix the login bug"
    )
    second = service.observations.record(
        project, "pre_compact", "sess-1", "claude-code", messages_text="we fixed it"
    )
    listed = service.observations.page(project)
    assert [o.id for o in listed] == [second.id, first.id]
    assert listed[1].source == "claude-code"
    assert listed[1].session_id == "sess-1"


def test_recall_merges_memories_and_observations(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("The flaky checkout test needs a retry"), "a").memory
    observation = service.observations.record(
        project,
        "agent_end",
        "s",
        "a",
        user_text="why is checkout flaky?",
        assistant_text="The checkout test races the payment mock.",
    )
    hits = service.search.recall(project, "checkout flaky")
    assert {h.kind for h in hits} == {"memory", "observation"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    only_obs = service.search.recall(project, "checkout", kinds=["observation"])
    assert [h.observation.id for h in only_obs if h.observation] == [observation.id]
    assert all(h.memory is None for h in only_obs)
    only_mem = service.search.recall(project, "checkout", kinds=["memory"], limit=1)
    assert len(only_mem) == 1
    assert only_mem[0].memory is not None
    assert only_mem[0].memory.id == memory.id
    assert service.get(memory.id).use_count >= 1  # recall reinforces its memory hits


@pytest.mark.parametrize("kinds", [[], ["memories"], "memory", [1]])
def test_recall_rejects_bad_kinds(service: MemoryService, project: str, kinds: object) -> None:
    with pytest.raises(InvalidInput, match="kind"):
        service.search.recall(project, "x", kinds=kinds)  # type: ignore[arg-type]


def test_observations_are_scoped(service: MemoryService, project: str) -> None:
    other = service.resolve_scope(cwd="/elsewhere", register=True)
    service.observations.record(other, "agent_end", "s", "a", user_text="secret elsewhere topic")
    assert service.search.recall(project, "elsewhere topic") == []


def test_words_never_match_the_scope_column(service: MemoryService, project: str) -> None:
    """A query word like "s2" must not match the internal scope tokens (review finding)."""
    service.observations.record(project, "agent_end", "s", "a", user_text="unrelated words only")
    pk_token = "s" + str(
        service.store._reader.read(  # type: ignore[attr-defined]
            lambda c: c.execute(
                "SELECT pk FROM projects WHERE project_id = ?", (project,)
            ).fetchone()[0]
        )
    )
    assert service.search.recall(project, pk_token, kinds=["observation"]) == []
    assert service.search.recall(project, f"nothing {pk_token}", kinds=["observation"]) == []


def test_observation_hits_rank_by_score_with_marked_snippets(
    service: MemoryService, project: str
) -> None:
    strong = service.observations.record(
        project, "agent_end", "s1", "a", user_text="webpack webpack build", assistant_text="done"
    )
    weak = service.observations.record(
        project,
        "agent_end",
        "s2",
        "a",
        user_text="a long talk about many other things and then webpack once",
        assistant_text="ok",
    )
    hits = service.search.recall(project, "webpack", kinds=["observation"])
    assert [h.observation.id for h in hits if h.observation] == [strong.id, weak.id]
    assert hits[0].score > hits[1].score > 0
    assert all("**webpack**" in h.snippet for h in hits)


def test_a_secret_is_redacted_before_the_texts_are_cut_to_size(
    service: MemoryService, project: str
) -> None:
    """Cut first, a credential loses the end its pattern needs: the title kept
    "postgres://app:Hunter2SecretPassword…" while the narrative said "[redacted ...]"."""
    secret = "Hunter2SecretPasswordThatIsVeryLongIndeed" * 3
    text = f"see postgres://app:{secret}@db.internal/shop"
    done = service.observations.record(
        project, "pre_compact", "s", "claude-code", messages_text=text
    )
    assert "Hunter2" not in done.title
    assert "Hunter2" not in done.narrative
    assert "[redacted" in done.narrative
    turn = service.observations.record(
        project, "agent_end", "s", "codex", user_text=text, assistant_text="ok " + "x" * 5000
    )
    assert "Hunter2" not in turn.title + turn.narrative


def test_a_kind_turned_off_is_not_recorded_by_any_caller(make_service: ServiceFactory) -> None:
    """[observe] is the core's rule: the API and the hooks checked it, the service did
    not, so any other caller recorded what the person had turned off."""
    service = make_service(settings=Settings(observe_agent_end=False))
    project = service.resolve_scope(cwd="/srv/app", register=True)
    with pytest.raises(ObservationOff, match="agent_end observations are turned off"):
        service.observations.record(
            project, "agent_end", "s", "a", user_text="hi", assistant_text="ok"
        )
    with pytest.raises(InvalidInput):  # bad input is refused all the same
        service.observations.record(project, "agent_end", "s", "a", messages_text="x")
    assert service.observations.page(project) == []
    kept = service.observations.record(
        project, "pre_compact", "s", "a", messages_text="we fixed it"
    )
    assert service.observations.page(project) == [kept]


def test_a_huge_reply_is_screened_only_as_far_as_it_is_kept(
    service: MemoryService, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Screening moved before the cut scanned a whole 1 MB reply for secrets (seconds
    holding every write); only what an observation keeps, and a margin, is scanned."""
    from ltm_desktop.core.observations import PRE_COMPACT_LIMIT
    from ltm_desktop.core.privacy import screening, secrets

    scanned: list[int] = []

    def find_secrets(text: str) -> list[secrets.Finding]:
        scanned.append(len(text))
        return secrets.find_secrets(text)

    monkeypatch.setattr(screening, "find_secrets", find_secrets)
    screening._findings.cache_clear()  # a text scanned before is not scanned again
    reply = '{"key":' + '"abcdefghijklmnopqrstuvwxyz0123456789abcdefghij",' * 20_000
    done = service.observations.record(
        project, "agent_end", "s", "a", user_text="ok", assistant_text=reply
    )
    assert scanned
    assert max(scanned) <= PRE_COMPACT_LIMIT + screening.CUT_MARGIN
    assert max(scanned) < len(reply) // 10
    assert done.narrative.startswith('User: ok\n\nAssistant: {"key":')
