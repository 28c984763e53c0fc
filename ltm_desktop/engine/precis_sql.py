"""The precis's read: the first rows of several importance levels of several scopes, in
one statement.

The precis draws on each level's best by use, then by update; reading each (scope, level)
pair with its own statement cost a round trip per pair, which on a database server was
half of an add's time (MEMORY.md is regenerated after every write). Both engines run
this statement, each with its own placeholder and tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.engine.rows import MEMORY_COLUMNS, MEMORY_FROM


def top_by_level_sql(pairs: int, mark: str, tie_break: str = "") -> str:
    """A UNION ALL of ``pairs`` subqueries, each the first rows of one scope's level (the
    index ``memories_by_heat`` serves each); its parameters are ``top_by_level_params``."""
    if pairs < 1:
        raise ValueError("the precis's read needs at least one (scope, level) pair")
    order = "m.use_heat DESC, m.updated_at DESC" + (f", {tie_break}" if tie_break else "")
    one = (
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.project_pk = {mark} "
        f"AND m.disabled = 0 AND m.importance = {mark} "
        f"AND (m.expires_at IS NULL OR m.expires_at > {mark}) "
        f"ORDER BY {order} LIMIT {mark}"
    )
    return " UNION ALL ".join(f"SELECT * FROM ({one}) AS level_{i}" for i in range(pairs))


def top_by_level_params(
    project_pks: Sequence[int], importances: Sequence[int], n: int, now: float
) -> tuple[list[tuple[int, int]], list[float | int]]:
    """The (scope, level) pairs the statement reads, and its parameters in order."""
    pairs = [(pk, level) for pk in project_pks for level in importances]
    params: list[float | int] = []
    for pk, level in pairs:
        params += [pk, level, now, n]
    return pairs, params
