"""The agents' observations of a scope (agent_end, pre_compact): recorded, read, forgotten;
``MemoryService.observations``."""

from __future__ import annotations

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import Conflict, ObservationOff
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.listing import check_page
from ltm_desktop.core.observations import build_observation
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import Observation
from ltm_desktop.core.settings.config import Settings

SESSIONS_LISTED = 500  # a session filter offers the newest; older ones are found by search


class ObservationLog:
    """Observations: written under the writer's lock, screened like memories."""

    def __init__(
        self, store: MemoryStore, kernel: WriteKernel, settings: Settings, screen: Screen
    ) -> None:
        self.store = store
        self._kernel = kernel
        self._settings = settings
        self._screen = screen

    def record(
        self,
        project_id: str,
        kind: object,
        session_id: object,
        actor: str,
        *,
        user_text: object = None,
        assistant_text: object = None,
        messages_text: object = None,
    ) -> Observation:
        """Record an agent lifecycle event (agent_end, pre_compact); ObservationOff when
        ``[observe]`` turns its kind off (bad input is refused first, all the same)."""
        actor = rules.check_actor(actor)
        project_id = rules.check_project_id(project_id)
        screen = self._screen.conversation  # before the texts are cut to size
        payload = build_observation(
            kind,
            session_id,
            user_text=screen(user_text),
            assistant_text=screen(assistant_text),
            messages_text=screen(messages_text),
        )
        if not self._settings.observes(payload.kind.value):
            raise ObservationOff(f"{payload.kind.value} observations are turned off in the config")
        with self._kernel.locked():
            return self.store.add_observation(project_id, payload, actor, self._kernel.now())

    def page(
        self, project_id: str, limit: int = 100, offset: int = 0, session: str | None = None
    ) -> list[Observation]:
        """Observations not forgotten, newest first; of one session, if given."""
        check_page(limit, offset)
        return self.store.list_observations(project_id, limit, offset, session)

    def count(self, project_id: str, session: str | None = None) -> int:
        """How many observations ``page`` pages through."""
        return self.store.count_observations(project_id, session)

    def sessions(self, project_id: str, limit: int = SESSIONS_LISTED) -> list[str]:
        """The sessions ``page`` can be narrowed to, the one active last first."""
        check_page(limit, 0)
        return self.store.observation_sessions(project_id, limit)

    def get(self, observation_id: str) -> Observation:
        """The observation, forgotten or not (``disabled``)."""
        return self.store.get_observation(rules.check_text(observation_id, "id"))

    def forget(self, observation_id: str, actor: str) -> Observation:
        """Soft delete: the observation leaves recall and lists; its row is kept."""
        actor = rules.check_actor(actor)
        observation_id = rules.check_text(observation_id, "id")
        with self._kernel.locked():
            observation, forgotten = self.store.forget_observation(
                observation_id, actor, self._kernel.now()
            )
        if not forgotten:
            raise Conflict(f"observation {observation_id} is already forgotten")
        return observation
