"""Finding memories: ``memory.search`` (also answered from the cache, at once),
``recall``, and what an agent is shown of a scope: ``precis.get``, ``prompt.section``."""

from __future__ import annotations

from typing import Annotated, TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call, NotInline
from ltm_desktop.api.params import Between
from ltm_desktop.api.registry import inline_method, method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import PrecisShape, RecallHitShape, SearchHitShape
from ltm_desktop.core.search.retrieval import MAX_SEARCH_LIMIT

Limit = Annotated[int, Between(1, MAX_SEARCH_LIMIT)]


class SearchHitsShape(TypedDict):
    hits: list[SearchHitShape]


@method("memory.search")
def memory_search(
    call: Call, scope: Scope, query: str, limit: Limit = 5, include_global: bool = True
) -> SearchHitsShape:
    hits = call.service.search.query(
        scope.project_id, query, limit=limit, include_global=include_global, reinforce=True
    )
    return {"hits": [serialize.search_hit(h) for h in hits]}


@inline_method("memory.search")
def memory_search_cached(
    call: Call, scope: Scope, query: str, limit: Limit = 5, include_global: bool = True
) -> SearchHitsShape:
    """A search asked again with nothing written since: answered from the cache.

    Only by ``project_id``: a ``cwd`` leaves it to the thread pool (``Scope``).
    """
    hits = call.service.search.cached(
        scope.project_id, query, limit=limit, include_global=include_global, reinforce=True
    )
    if hits is None:
        raise NotInline
    return {"hits": [serialize.search_hit(h) for h in hits]}


class RecallHitsShape(TypedDict):
    hits: list[RecallHitShape]


@method("recall")
def recall(
    call: Call,
    scope: Scope,
    query: str,
    kinds: list[str] | None = None,
    limit: Limit = 5,
    include_global: bool = True,
) -> RecallHitsShape:
    hits = call.service.search.recall(
        scope.project_id, query, kinds=kinds, limit=limit, include_global=include_global
    )
    return {"hits": [serialize.recall_hit(h) for h in hits]}


@method("precis.get")
def precis_get(call: Call, scope: Scope, include_global: bool = True) -> PrecisShape:
    return serialize.precis(call.service.precis(scope.project_id, include_global))


class SectionShape(TypedDict):
    text: str


@method("prompt.section")
def prompt_section(call: Call, scope: Scope, include_global: bool = True) -> SectionShape:
    return {"text": call.service.prompt_section(scope.project_id, include_global)}
