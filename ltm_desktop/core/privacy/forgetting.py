"""Forgetting by id within one scope: what an agent may forget, and why it may not.

An agent forgets what belongs to its own project or to ``global``. An id of another
project is refused by name (never skipped silently), so a wrong scope shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound
from ltm_desktop.core.service import MemoryService

MAX_IDS = 100


@dataclass(frozen=True, slots=True)
class Refusal:
    id: str
    reason: str


@dataclass(frozen=True, slots=True)
class ForgetResult:
    """What happened to each id: forgotten now, forgotten before, or refused (and why)."""

    project_id: str
    memories: tuple[str, ...] = ()
    observations: tuple[str, ...] = ()
    already: tuple[str, ...] = ()
    refused: tuple[Refusal, ...] = field(default=())


def check_ids(value: object, name: str) -> list[str]:
    """A list of id strings (duplicates dropped, order kept); None means none."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"{name} must be a list of ids, not {rules.describe(value)}", name)
    ids: list[str] = []
    for item in value:
        text = rules.check_text(item, name).strip()
        if text not in ids:
            ids.append(text)
    if len(ids) > MAX_IDS:
        raise InvalidInput(f"{name} may list at most {MAX_IDS} ids; got {len(ids)}", name)
    return ids


def _foreign(service: MemoryService, owner: str, allowed: set[str], kind: str) -> str | None:
    """Why a record of project ``owner`` may not be forgotten here, or None if it may."""
    if owner in allowed:
        return None
    try:
        name = f"{service.store.get_project(owner).name!r} ({owner})"
    except LookupError:
        name = owner
    return f"the {kind} belongs to project {name}, not to this one"


def forget(
    service: MemoryService,
    project_id: str,
    memory_ids: object,
    observation_ids: object,
    actor: str,
) -> ForgetResult:
    """Soft-delete the given memories and observations of ``project_id`` (or global).

    Each memory is removed in its own transaction, exactly as ``remove`` does.

    Raises:
        InvalidInput: no ids, or a list that is not a list of ids.
    """
    project_id = rules.check_project_id(project_id)
    actor = rules.check_actor(actor)
    memories = check_ids(memory_ids, "memory_ids")
    observations = check_ids(observation_ids, "observation_ids")
    if not memories and not observations:
        raise InvalidInput("give memory_ids and/or observation_ids to forget", "memory_ids")
    allowed = {project_id, *service.ambient.ids}
    done_memories: list[str] = []
    done_observations: list[str] = []
    already: list[str] = []
    refused: list[Refusal] = []

    for memory_id in memories:
        try:
            memory = service.get(memory_id)
        except NotFound:
            refused.append(Refusal(memory_id, "no memory has this id"))
            continue
        reason = _foreign(service, memory.project_id, allowed, "memory")
        if reason is not None:
            refused.append(Refusal(memory_id, reason))
        elif memory.disabled:
            already.append(memory_id)
        else:
            try:
                service.remove(memory_id, actor)
            except Conflict:  # removed meanwhile by someone else
                already.append(memory_id)
                continue
            done_memories.append(memory_id)
    for observation_id in observations:
        try:
            observation = service.observations.get(observation_id)
        except NotFound:
            refused.append(Refusal(observation_id, "no observation has this id"))
            continue
        reason = _foreign(service, observation.project_id, allowed, "observation")
        if reason is not None:
            refused.append(Refusal(observation_id, reason))
        elif observation.disabled:
            already.append(observation_id)
        else:
            try:
                service.observations.forget(observation_id, actor)
            except Conflict:
                already.append(observation_id)
                continue
            done_observations.append(observation_id)
    return ForgetResult(
        project_id,
        tuple(done_memories),
        tuple(done_observations),
        tuple(already),
        tuple(refused),
    )
