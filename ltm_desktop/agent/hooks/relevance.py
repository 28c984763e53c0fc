"""The few memories that match a prompt well, found within a hard time budget.

"Well" means what the search itself ranks first: the memory contains every search word
of the prompt (in any of its forms, as the search matches them), and the prompt has at
least two such words. Looser matches are noise at the top of a turn; the model can
search for more with ``memory_search``.

What goes into the model's context follows MEMORY.md's rules: a memory flagged as
reading like an instruction to the model stays out until a person approves it (unless
``[privacy] flagged_in_precis``), and tag-like markup (``<system>``) is escaped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.shapes import MemoryShape, SearchHitShape
from ltm_desktop.core.memory_md.safe_markdown import escape_inline
from ltm_desktop.core.observations import clip
from ltm_desktop.core.search.query import parse_query, split_words, term_in

log = logging.getLogger("ltm_desktop.hooks")

LIMIT = 3  # memories added to a prompt, at most
MIN_TERMS = 2  # a prompt with fewer search words ("yes", "go on") gets none
BUDGET = 1.0  # seconds for finding them; past it the turn goes on without
CONTENT_CHARS = 600  # of each memory's content
HEADER = "Possibly relevant, from long-term memory:"


def matches_every_word(prompt: str, memory: MemoryShape) -> bool:
    """Whether ``memory`` contains every search word of ``prompt``."""
    terms = parse_query(prompt).positive
    if len(terms) < MIN_TERMS:
        return False
    text = " ".join([memory["title"], memory["content"], *memory["tags"]])
    words = split_words(text)
    return all(term_in(term, words) for term in terms)


def relevant_memories(
    memory: Callable[[], ApiCalls],
    cwd: str,
    prompt: str,
    *,
    on_timeout: Callable[[], None],
    include_flagged: bool = False,
    budget: float = BUDGET,
) -> str | None:
    """Context listing the memories that match ``prompt`` well, or None.

    The search runs in a worker thread; when it does not answer within ``budget`` (at
    most BUDGET: less when the hook's deadline is nearer) the turn goes on without, and
    ``on_timeout`` is told (the memory is still in use).
    """
    if budget <= 0:
        log.warning("relevant memories: no time left before the hook's deadline; skipped")
        return None
    prompt = prompt.strip()
    if len(parse_query(prompt).positive) < MIN_TERMS:
        return None
    hits: list[SearchHitShape] = []
    failure: list[BaseException] = []

    def search() -> None:
        try:
            hits.extend(memory().memory_search(prompt[:1000], cwd=cwd, limit=LIMIT))
        except BaseException as exc:  # raised again below, in the hook's own thread
            failure.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=search, name="ltm-hook-search", daemon=True)
    worker.start()
    worker.join(budget)
    if worker.is_alive():
        log.warning("relevant memories: no answer within %.2f s; skipped", budget)
        on_timeout()
        return None
    if failure:
        raise failure[0]
    memories = [h["memory"] for h in hits]
    allowed = [m for m in memories if include_flagged or not m.get("flagged")]
    if len(allowed) < len(memories):
        log.info("relevant memories: %d flagged, kept out", len(memories) - len(allowed))
    good = [m for m in allowed if matches_every_word(prompt, m)]
    elapsed = (time.monotonic() - started) * 1000
    log.info("relevant memories: %d of %d hits in %.0f ms", len(good), len(hits), elapsed)
    if not good:
        return None
    lines = [HEADER]
    for found in good:
        content = clip(found["content"], CONTENT_CHARS).replace("\n", " ")
        title = escape_inline(found["title"])
        lines.append(f"- {title} ({found['id']}): {escape_inline(content)}")
    return "\n".join(lines)
