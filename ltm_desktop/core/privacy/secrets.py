"""Finding credentials in text, and redacting them, before text leaves or is stored.

Detection is detect-secrets' (Yelp), with its regex plugins (AWS, GitHub, GitLab, Slack,
Stripe, OpenAI, JWTs, private key headers, passwords in URLs...) and its keyword plugin
(``password = "..."``). Its high-entropy plugins are left out: in prose and code they flag
ordinary words and commit hashes. Where a plugin's pattern captures the credential itself
(a URL's password, an AWS secret key), only that part is redacted, so
``postgres://admin:[redacted ...]@db.example.com`` keeps what is worth knowing. Gaps of
detect-secrets 1.5 filled here (EXTRA_PATTERNS):

- a private key is flagged only by its ``BEGIN ... PRIVATE KEY`` line; the whole block,
  to its ``END`` line (or the end of the text), is what must not leave;
- GitHub's fine-grained tokens (``github_pat_...``) are not recognised, and a classic
  token's match stops after 36 characters;
- a JSON Web Token's match stops before its signature;
- newer token formats have no plugin: Anthropic (``sk-ant-...``), OpenAI project and
  service keys (``sk-proj-...``), Google API keys (``AIza...``), Hugging Face
  (``hf_...``) and npm (``npm_...``) tokens (formats as gitleaks' rules give them);
- an AWS secret access key is found only in quotes, and the keyword plugin, given prose
  rather than a config file, only finds quoted values. Unquoted values (``password=...``,
  ``.env`` lines) are read with its config-file regexes, and count when they look like a
  credential (``looks_like_credential``): "password: stored in Vault" is prose.

detect-secrets takes about 0.1 s to import (it pulls in ``requests``): its patterns are
read on first use, from a copy cached on disk when there is one (core/privacy/secret_patterns.py).

A credential written to slip past the patterns (split over lines, spaced out, with
zero-width or full-width characters, base64 or hex, backwards) is found in the views of
``core.secret_views``: its kind then says so ("GitHub Token in base64"), and the whole
disguised run is what is redacted.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ltm_desktop.core.privacy.secret_gates import Prefilter
from ltm_desktop.core.privacy.secret_patterns import load_patterns
from ltm_desktop.core.privacy.secret_views import REVERSED, views

REDACTED = "[redacted {kind}]"
KEYWORD_HINTS = ("key", "pass", "pwd", "secret", "contrase")
MIN_KEYWORD_SECRET = 6  # `secret: "x"` holds no credential worth a redaction
PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
EXTRA_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Private Key", PRIVATE_KEY_BLOCK),
    ("GitHub Token", re.compile(r"\b(?:github_pat|ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{22,}")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_=-]+\.eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]*")),
    ("Anthropic API Key", re.compile(r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API Key", re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    ("Google API Key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("Hugging Face Token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("npm Token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (
        "AWS Secret Key",
        re.compile(
            r"(?i)aws.{0,20}?(?:secret|key|token).{0,20}?[=:]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
    ),
    (  # "secret wJalrXUtnFEMI/K7MDENG/...": 40 characters of both cases and digits (a git
        # hash has no capitals) named a secret or a key, with no "aws" before it
        "AWS Secret Key",
        re.compile(
            r"\b(?i:secret|key)\b\W{1,3}((?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
            r"(?=[A-Za-z0-9/+]{0,39}\d)[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
    ),
)
# Formats with a prefix distinctive enough to look for backwards too (``sk-ant-``, ``ghp_``,
# ``AKIA``): elsewhere, reversed text would only add chances of a false match.
REVERSIBLE_KINDS = frozenset(
    {
        "AWS Access Key",
        "GitHub Token",
        "GitLab Token",
        "Slack Token",
        "Stripe Access Key",
        "PyPI Token",
        "SendGrid API Key",
        "Anthropic API Key",
        "OpenAI API Key",
        "Google API Key",
        "Hugging Face Token",
        "npm Token",
    }
)
# Plugins whose patterns capture the credential itself in their first group.
CAPTURING_TYPES = frozenset({"Basic Auth Credentials", "AWS Access Key", "AWS Secret Key"})
NOT_IN_CREDENTIALS = frozenset("/().[]{}$<>\\")  # code, paths, templates
MIN_UNQUOTED_SECRET = 6  # an unquoted value: letters and digits, at least this long (hunter2)
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Finding:
    """A credential in a text: what kind, and where (``text[start:end]``)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Patterns:
    """Some detector patterns, and their prefilter (``core.secret_gates``)."""

    every: tuple[tuple[str, re.Pattern[str]], ...]
    prefilter: Prefilter

    def that_may_match(self, text: str) -> list[tuple[str, re.Pattern[str]]]:
        """The patterns whose gates ``text`` opens, in order: the only ones that can match."""
        return [self.every[i] for i in self.prefilter.open(text)]


def _patterns(every: tuple[tuple[str, re.Pattern[str]], ...]) -> _Patterns:
    return _Patterns(every, Prefilter([pattern for _, pattern in every]))


@dataclass(frozen=True, slots=True)
class _Detectors:
    patterns: _Patterns
    keyword: Callable[[str], Iterable[str]]
    reversible: _Patterns  # REVERSIBLE_KINDS' patterns


def looks_like_credential(value: str) -> bool:
    """Whether an unquoted value after ``password:`` is a credential rather than prose or
    code ("stored in Vault", "see ops/db.md", ``hashlib.sha256(raw)``): one word of
    letters and digits, long enough, and no path, call, attribute or template."""
    return (
        len(value) >= MIN_UNQUOTED_SECRET
        and any(c.isalpha() for c in value)
        and any(c.isdigit() for c in value)
        and not any(c in NOT_IN_CREDENTIALS for c in value)
    )


@functools.cache
def _detectors() -> _Detectors:
    """detect-secrets' patterns, read once (the first call pays for them)."""
    patterns = load_patterns()

    def keyword_values(line: str) -> Iterable[str]:
        """What detect-secrets' KeywordDetector.analyze_line finds in ``line`` (without an
        exclusion, its only option): the value group of each of its regexes that matches;
        then the unquoted values of its config regexes that look like credentials (their
        first word: the regex runs to the end of the line)."""
        values: set[str] = set()
        for regex, group in patterns.keyword:
            match = regex.search(line)
            if match and match.group(group):
                values.add(match.group(group))
        for regex, group in patterns.unquoted:
            match = regex.search(line)
            # the value must be all that is left of the line, as in a .env file or
            # "password=hunter2": "password: SHA256 hashed" is prose
            words = (match.group(group) or "").split() if match else []
            value = words[0].rstrip(".,;") if len(words) == 1 else ""
            if looks_like_credential(value):
                values.add(value)
        return values

    every = tuple((kind, _bounded(p)) for kind, p in patterns.kinds) + EXTRA_PATTERNS
    reversible = tuple((kind, p) for kind, p in every if kind in REVERSIBLE_KINDS)
    return _Detectors(_patterns(every), keyword_values, _patterns(reversible))


# detect-secrets' OpenAI pattern, ``sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ...``: from
# each ``sk-`` the ``*`` reads to the end of a run of such characters and back, so 80 KB of
# ``sk-ant-sk-ant-...`` took 4 s. A key holds its ``T3BlbkFJ`` within its first 200
# characters (``sk-proj-`` keys are about 164 long), so the run is bounded there.
_UNBOUNDED_RUN = "[A-Za-z0-9-_]*"
_BOUNDED_RUN = "[A-Za-z0-9-_]{0,256}"


def _bounded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with an unbounded run of key characters bounded (linear scans)."""
    if _UNBOUNDED_RUN not in pattern.pattern:
        return pattern
    return re.compile(pattern.pattern.replace(_UNBOUNDED_RUN, _BOUNDED_RUN), pattern.flags)


def _keyword_findings(text: str, values_in: Callable[[str], Iterable[str]]) -> list[Finding]:
    found: list[Finding] = []
    # the test of each line below, for the whole text at once (a line's lower case is
    # part of the text's): most texts have no line to read
    if not ("=" in text or ":" in text) or not any(hint in text.lower() for hint in KEYWORD_HINTS):
        return found
    offset = 0
    for line in text.splitlines(keepends=True):
        # the keyword plugin needs an assignment and one of its words (each of its
        # DENYLIST entries holds one of KEYWORD_HINTS; it matches case-insensitively)
        lowered = line.lower()
        if ("=" in line or ":" in line) and any(hint in lowered for hint in KEYWORD_HINTS):
            for value in values_in(line):
                if len(value) < MIN_KEYWORD_SECRET:
                    continue
                at = line.find(value)
                while at != -1:
                    found.append(Finding("Secret Keyword", offset + at, offset + at + len(value)))
                    at = line.find(value, at + len(value))
        offset += len(line)
    return found


def _span(kind: str, match: re.Match[str]) -> tuple[int, int]:
    if kind in CAPTURING_TYPES and match.re.groups and match.group(1):
        return match.span(1)
    return match.span()


def _scan(
    text: str,
    patterns: Sequence[tuple[str, re.Pattern[str]]],
    keyword: Callable[[str], Iterable[str]] | None,
) -> list[Finding]:
    found = [
        Finding(kind, *_span(kind, match))
        for kind, pattern in patterns
        for match in pattern.finditer(text)
        if match.end() > match.start()
    ]
    if keyword is not None:
        found += _keyword_findings(text, keyword)
    return found


def find_secrets(text: str) -> list[Finding]:
    """Every credential found in ``text``, as written or disguised (``core.secret_views``),
    in order; overlapping findings merged. Each text, and each view of it, is read by
    the patterns its prefilter lets through (``core.secret_gates``): the findings of
    all of them, at the cost of about one pass."""
    return _find(text, _Patterns.that_may_match)


def _find_every_pattern(text: str) -> list[Finding]:
    """``find_secrets`` by every pattern over every text: the reference the prefilter
    must agree with (tests/privacy/test_secret_gates.py, bench/screening_bench.py)."""
    return _find(text, lambda patterns, _: patterns.every)


def _find(
    text: str, select: Callable[[_Patterns, str], Sequence[tuple[str, re.Pattern[str]]]]
) -> list[Finding]:
    if not text:
        return []
    with _lock:  # the plugins are shared; their scans are quick
        detectors = _detectors()
        found = _scan(text, select(detectors.patterns, text), detectors.keyword)
        for view in views(text):
            reverse = view.how == REVERSED
            patterns = select(detectors.reversible if reverse else detectors.patterns, view.text)
            found += [
                Finding(f"{finding.kind} {view.how}", *view.span(finding.start, finding.end))
                for finding in _scan(view.text, patterns, None if reverse else detectors.keyword)
            ]
    found.sort(key=lambda f: (f.start, -f.end))
    merged: list[Finding] = []
    for finding in found:
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            if finding.end > last.end:
                merged[-1] = Finding(last.kind, last.start, finding.end)
            continue
        merged.append(finding)
    return merged


def redact(text: str) -> str:
    """``text`` with every credential replaced by ``[redacted <kind>]``."""
    return redact_findings(text, find_secrets(text))


def redact_findings(text: str, findings: Sequence[Finding]) -> str:
    """``text`` with these findings (``find_secrets``' of it) replaced by markers."""
    if not findings:
        return text
    parts: list[str] = []
    at = 0
    for finding in findings:
        parts += [text[at : finding.start], REDACTED.format(kind=finding.kind)]
        at = finding.end
    parts.append(text[at:])
    return "".join(parts)


def holds_secret(text: str) -> bool:
    return bool(find_secrets(text))
