"""Compile a parsed query into FTS5 MATCH expressions.

Every word is emitted as a double-quoted FTS5 string, so no user input can be
read as FTS5 syntax. What a term matches (``engine.phrases``) is shared with PostgreSQL
and the snippets.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from ltm_desktop.core.search.query import ParsedQuery, Term
from ltm_desktop.engine.phrases import Phrase, term_phrases

SCOPE_COLUMN = "scope"
TEXT_COLUMNS = ("title", "narrative")  # observation_fts, the one table shared by scopes


def quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def scope_token(project_pk: int) -> str:
    """The token that tags every FTS row with its scope (digits end it: no stemming)."""
    return f"s{project_pk}"


def scope_filter(project_pks: Sequence[int]) -> str:
    tokens = " OR ".join(scope_token(pk) for pk in project_pks)
    return f"{SCOPE_COLUMN}:({tokens})"


def phrase_fts(phrase: Phrase) -> str:
    """The phrase as an FTS5 string (``"a b"*``)."""
    return quote(" ".join(phrase.words)) + ("*" if phrase.prefix else "")


def compile_term(term: Term) -> str:
    phrases = [phrase_fts(phrase) for phrase in term_phrases(term)]
    return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"


def _negations(query: ParsedQuery) -> str:
    negative = query.negative
    if not negative:
        return ""
    return " NOT (" + " OR ".join(compile_term(t) for t in negative) + ")"


def _scoped(body: str, project_pks: Sequence[int] | None) -> str:
    """In a table shared by scopes, the words may only match the text columns: a word
    like "s3" must never match the scope column's tokens."""
    if project_pks is None:
        return f"({body})"
    return f"{scope_filter(project_pks)} AND {{{' '.join(TEXT_COLUMNS)}}}:({body})"


def match_all(query: ParsedQuery, project_pks: Sequence[int] | None = None) -> str:
    """Every positive term must match (the first, cheap, precise attempt).

    ``project_pks`` adds a scope filter, for tables shared by scopes (observations).
    """
    body = " AND ".join(compile_term(t) for t in query.positive)
    return _scoped(f"({body}){_negations(query)}", project_pks)


def match_any(query: ParsedQuery, project_pks: Sequence[int] | None = None) -> str:
    """Any positive term may match (the widened attempt)."""
    body = " OR ".join(compile_term(t) for t in query.positive)
    return _scoped(f"({body}){_negations(query)}", project_pks)


def match_two(query: ParsedQuery) -> str:
    """At least two of the positive terms (between "all" and "any" when there are 3+)."""
    terms = [compile_term(t) for t in query.positive]
    if len(terms) < 2:
        return match_all(query)
    pairs = " OR ".join(f"({a} AND {b})" for a, b in combinations(terms, 2))
    return f"({pairs}){_negations(query)}"
