"""The synthetic benchmark corpus (bench/corpus.py) is deterministic, varied and searchable."""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from functools import cache

import pytest

from bench.corpus import SampleMemory, generate, project_paths, sample_queries
from tests.hang import finishes

WORD = re.compile(r"[a-z][a-z0-9]*")
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
STOP = frozenset(
    """a an and are do does for how i in is it of on so the this to we what when where
which who why with like before after should""".split()
)
COMMON = ("test", "use", "project", "code", "file", "run")


@cache
def _docs(count: int) -> tuple[SampleMemory, ...]:
    return tuple(generate(count, seed=0))


@cache
def _word_sets(count: int) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(WORD.findall(m.content.lower())) for m in _docs(count))


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _near_duplicate_share(sets: tuple[frozenset[str], ...], t: float) -> float:
    """Share of documents with a partner of token Jaccard > t (exact: PPJoin prefix filtering)."""
    df = Counter(w for s in sets for w in s)
    index: dict[str, list[int]] = defaultdict(list)
    near: set[int] = set()
    for i in sorted(range(len(sets)), key=lambda i: len(sets[i])):  # smaller sets first
        s = sets[i]
        ranked = sorted(s, key=lambda w: (df[w], w))
        probe = ranked[: len(s) - math.ceil(t * len(s)) + 1]
        for j in {j for w in probe for j in index[w] if len(sets[j]) >= t * len(s)}:
            if len(s & sets[j]) > t * len(s | sets[j]):
                near.update((i, j))
        for w in ranked[: len(s) - math.ceil(2 * t / (1 + t) * len(s)) + 1]:
            index[w].append(i)
    return len(near) / len(sets)


def test_same_seed_gives_same_output_and_other_seed_differs() -> None:
    first = list(generate(300, seed=7))
    assert first == list(generate(300, seed=7))
    assert [m.content for m in first] != [m.content for m in generate(300, seed=8)]
    assert len(list(generate(0))) == 0


def test_lengths_are_in_range_with_a_median_near_250() -> None:
    lengths = [len(m.content) for m in _docs(2000)]
    assert min(lengths) >= 60
    assert max(lengths) <= 900
    assert 200 <= statistics.median(lengths) <= 300
    assert max(lengths) > 600  # a real spread, not one size fits all


def test_fields_are_valid_and_skewed() -> None:
    docs = _docs(2000)
    cats = Counter(m.category for m in docs)
    assert set(cats) == {"knowledge", "preference", "task", "skill"}
    assert cats["knowledge"] > cats["preference"] > cats["task"] > cats["skill"]
    imps = Counter(m.importance for m in docs)
    assert set(imps) <= set(range(11))
    assert sum(imps[i] for i in range(3, 7)) > len(docs) / 2
    assert 0 < imps[9] + imps[10] < len(docs) / 10
    assert imps[0] + imps[1] > 0
    all_tags: set[str] = set()
    for m in docs:
        assert isinstance(m, SampleMemory)
        assert 3 <= len(m.title.split()) <= 10, m.title
        assert len(m.tags) <= 4
        assert len(set(m.tags)) == len(m.tags)
        assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*", t) for t in m.tags), m.tags
        all_tags.update(m.tags)
    assert 50 <= len(all_tags) <= 160
    assert any(not m.tags for m in docs)
    assert len({m.title for m in docs}) > len(docs) / 2


@pytest.mark.slow
def test_content_is_distinct_and_rarely_near_duplicate() -> None:
    docs = _docs(5000)
    assert len({_norm(m.content) for m in docs}) / len(docs) > 0.99
    assert _near_duplicate_share(_word_sets(5000)[:3000], 0.7) < 0.01


def test_vocabulary_is_large_and_zipf_like() -> None:
    sets = _word_sets(5000)
    df = Counter(w for s in sets for w in s)
    assert len(df) > 3000
    share = {w: df[w] / len(sets) for w in COMMON}
    assert any(0.05 <= v <= 0.30 for v in share.values()), share
    assert sum(1 for c in df.values() if c <= 2) > len(df) / 2  # most words are rare
    assert "deploy" in df
    assert "production" in df
    assert df["database"] < len(sets) / 2


def test_some_documents_contain_cjk_text() -> None:
    docs = _docs(5000)
    n = sum(1 for m in docs if CJK.search(m.content))
    assert 0 < n < len(docs) * 0.03


@pytest.mark.slow
def test_every_sample_query_matches_some_document() -> None:
    sets = _word_sets(20_000)
    vocab = Counter(w for s in sets for w in s)
    queries = sample_queries()
    assert set(queries) == {"rare", "two_words", "prefix", "natural"}
    assert all(len(v) == 10 for v in queries.values())
    for term in queries["rare"]:
        assert 0 < vocab[term] < len(sets) / 100, term
    for pair in queries["two_words"]:
        a, b = pair.split()
        assert any(a in s and b in s for s in sets), pair
    for prefix in queries["prefix"]:
        assert prefix.endswith("*"), prefix
        assert 4 <= len(prefix) - 1 <= 6, prefix
        assert any(w.startswith(prefix[:-1]) for w in vocab), prefix
    for question in queries["natural"]:
        terms = {w for w in WORD.findall(question.lower()) if w not in STOP and len(w) > 3}
        assert terms & vocab.keys(), question
        assert max(len(terms & s) for s in sets) >= 2, question  # a genuinely relevant answer


def test_project_paths_are_distinct_absolute_and_deterministic() -> None:
    paths = project_paths(3000, seed=3)
    assert len(paths) == len(set(paths)) == 3000
    assert paths == project_paths(3000, seed=3)
    assert paths != project_paths(3000, seed=4)
    for p in paths:
        assert re.fullmatch(r"(/[A-Za-z0-9._-]+)+", p), p
        assert p.count("/") >= 3
    assert project_paths(0) == []


def test_generate_is_lazy_and_quick() -> None:
    it = finishes(lambda: generate(10**9, seed=1))  # an iterator: nothing built up front
    batch = [next(it) for _ in range(3000)]
    assert len(batch) == 3000
