"""Supersede's candidate search finds every near-duplicate: a property against brute force.

The SQLite store narrows the candidates with its full-text index (the memories holding
two of the rarest tokens); whatever the texts, no memory whose Jaccard similarity with
the new text exceeds the threshold may be left out.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltm_desktop.core import rules
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Category, Memory
from ltm_desktop.store import SqliteStore, open_store

T = rules.SUPERSEDE_THRESHOLD
# Words that overlap often, with the characters that trouble tokenizers: accents (also
# decomposed), CJK, digits, punctuation inside words, underscores, emoji, marks.
WORDS = st.one_of(
    st.sampled_from(
        "deploy deploys staging prod vault ops/sentry sentry DSN café cafe\u0301 naïve "
        "数据库 テスト 배포 v2.1.0 --force-with-lease C++ @scope/pkg src/app.py foo_bar #123 "
        "key=value x² ﬁle 🚀rocket end. (paren) it's the and for with".split()
    ),
    st.text(alphabet=st.sampled_from("abcxyzé数-_./#+1\u0301🙂"), min_size=1, max_size=6),
)
TEXTS = st.lists(WORDS, min_size=1, max_size=30)


@pytest.fixture(scope="module")
def store() -> Iterator[SqliteStore]:
    with tempfile.TemporaryDirectory() as tmp:
        opened = open_store(Path(tmp) / "ltm.sqlite", Path(tmp) / "backups")
        yield opened
        opened.close()


def _memory(n: int, project_id: str, content: str) -> Memory:
    return Memory(
        id=f"mem_{project_id}_{n}",
        project_id=project_id,
        title=f"t{n}",
        content=content,
        category=Category.KNOWLEDGE,
        importance=0,
        tags=(),
        signature=rules.content_signature(content),
        created_at=1.0,
        updated_at=1.0,
        last_used_at=None,
        use_count=0,
        ttl_days=None,
        disabled=False,
        source="a",
        superseded_by=None,
    )


_scopes = iter(range(10**9))


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stored=st.lists(TEXTS, min_size=1, max_size=12),
    base=st.integers(min_value=0),
    added=st.lists(WORDS, max_size=6),
    dropped=st.integers(min_value=0, max_value=4),
    spacing=st.sampled_from([" ", "\n", "  \t"]),
)
def test_every_near_duplicate_is_a_candidate(
    store: SqliteStore,
    stored: list[list[str]],
    base: int,
    added: list[str],
    dropped: int,
    spacing: str,
) -> None:
    project_id = f"proj_{next(_scopes):016x}" if stored else GLOBAL_PROJECT_ID
    texts = [" ".join(words) for words in stored]
    origin = stored[base % len(stored)]
    new = spacing.join(origin[dropped:] + added)  # a refinement: words cut, words added
    tokens = rules.similarity_tokens(new)
    if not tokens:
        return
    expected = set()
    with store.write() as txn:
        for n, text in enumerate(texts):
            if txn.find_active(project_id, rules.content_signature(text)) is not None:
                continue
            memory = _memory(n, project_id, text)
            txn.insert_memory(memory, rules.similarity_tokens(text))
            if rules.jaccard(tokens, rules.similarity_tokens(text)) > T:
                expected.add(memory.id)
        count = len(tokens)
        at_least = max(1, math.floor(count * T))
        found = txn.near_duplicates(project_id, tokens, at_least, count * T, count / T)
    assert expected <= {memory_id for memory_id, _ in found}
