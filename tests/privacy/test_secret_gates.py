"""The secret scan's prefilter (core.secret_gates) lets through every pattern that can
match: ``find_secrets`` finds exactly what every pattern over every text and view finds
(``_find_every_pattern``, the scan as it was), for generated, real-looking, disguised and
Unicode texts."""

from __future__ import annotations

import base64
import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.corpus import generate
from ltm_desktop.core.privacy.secret_gates import CASE_FOLDS, GATES
from ltm_desktop.core.privacy.secrets import _detectors, _find_every_pattern, find_secrets

PATTERNS = _detectors().patterns.every
PREFILTER = _detectors().patterns.prefilter
SECRETS = (
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github_pat_11ABCDEFG0123456789_" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "sk-ant-api03-" + "Ab1_" * 22 + "xyAA",
    "sk-proj-" + "a1B2c3D4e5" * 5,
    "sk-" + "A1b2C3d4E5f6G7h8I9j0" + "T3BlbkFJ" + "K1l2M3n4O5p6Q7r8S9t0",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "glpat-" + "x1Y2z3A4b5C6d7E8f9G0",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "SG." + "a" * 22 + "." + "b1" * 21 + "c",
    "AC" + "0123456789abcdef" * 2,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
    "postgres://admin:hunter2secret@db.internal:5432/app",
    'password = "correct-horse-battery"',
    "DATABASE_PASSWORD=hunter2x9",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ibm_cloud_api_key: " + "Ab1-" * 11,
    "cloudant_password='" + "0123456789abcdef" * 4 + "'",
    "1234567890:" + "AAF" + "x1_y2-z3" * 4,
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gh1jK2.abcdefghijklmnopqrstuvwxyz0",
    "https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX",
)
UNICODE = "\u0130\u0131\u017f\u212a\uff21\uff4b\u0663\u200b\u00e9\u2014\u4e2d\U0001d400"


def disguised(secret: str, how: int) -> str:
    """``secret`` as someone might hide it (the views of core.secret_views undo these)."""
    if how == 0:
        return secret
    if how == 1:
        return secret[: len(secret) // 2] + "\n  " + secret[len(secret) // 2 :]
    if how == 2:
        return " ".join(secret)
    if how == 3:
        return "\u200b".join([secret[:5], secret[5:]])
    if how == 4:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in secret)
    if how == 5:
        return base64.b64encode(secret.encode()).decode()
    if how == 6:
        return secret.encode().hex()
    return secret[::-1]


PROSE = [m.content for m in generate(40, seed=11)]
pieces = st.one_of(
    st.sampled_from(PROSE),
    st.builds(disguised, st.sampled_from(SECRETS), st.integers(0, 7)),
    st.text(alphabet=string.printable + UNICODE, max_size=40),
    st.sampled_from(["key: ", "secret ", "AWS_KEY=", "token = '", '"', "\n", " :: ", "ſecret="]),
)
real_looking = st.lists(pieces, max_size=8).map("".join)


def same(text: str) -> None:
    assert find_secrets(text) == _find_every_pattern(text)


def test_every_pattern_has_a_gate_and_every_gate_a_pattern() -> None:
    """A pattern without one always runs (correct, but the scan is slow again): a new
    detect-secrets release needs its gates written here."""
    sources = {pattern.pattern for _, pattern in PATTERNS}
    assert sources == set(GATES)
    assert not PREFILTER.ungated


@pytest.mark.slow
def test_the_case_folds_are_every_letter_a_case_insensitive_pattern_reads_as_ascii() -> None:
    """Words are looked for in the lower case of the folded text: each character that
    ``re`` matches to an ASCII letter ignoring case must be that letter there."""
    letters = {
        char: next(a for a in string.ascii_lowercase if re.fullmatch(a, char, re.IGNORECASE))
        for char in map(chr, range(0x80, 0x110000))
        if re.fullmatch("[a-z]", char, re.IGNORECASE)
    }
    assert letters == {chr(code): folded for code, folded in CASE_FOLDS.items()}
    assert [c for c in map(chr, range(0x110000)) if len(c.lower()) != 1] == ["\u0130"]


def _generable(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` without its lookaheads, which hypothesis cannot draw for (the AWS secret's
    "one of each case and a digit"): it draws more, and the test keeps what matches."""
    return re.compile(re.sub(r"\(\?=[^()]*\)", "", pattern.pattern), pattern.flags)


@pytest.mark.parametrize("index", range(len(PATTERNS)), ids=[kind for kind, _ in PATTERNS])
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_a_text_a_pattern_matches_in_opens_its_gate(index: int, data: st.DataObject) -> None:
    """Texts each pattern matches (drawn from the pattern itself, Unicode included):
    the prefilter of all of them lets it through."""
    _, pattern = PATTERNS[index]
    text = data.draw(st.from_regex(_generable(pattern)))
    around = data.draw(st.sampled_from(["", "AC", "ghp", "x" * 40, "ſ", "\u0130"]))
    text = around + text + around
    if any(m.end() > m.start() for m in pattern.finditer(text)):
        assert index in PREFILTER.open(text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_read_as_by_every_pattern(text: str) -> None:
    same(text)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(real_looking)
def test_real_looking_and_disguised_texts_are_read_as_by_every_pattern(text: str) -> None:
    same(text)


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("how", range(8))
def test_each_secret_however_disguised_is_read_as_by_every_pattern(secret: str, how: int) -> None:
    text = f"note: {disguised(secret, how)} was in the config"
    same(text)
    same(text.upper())


def test_the_corpus_is_read_as_by_every_pattern() -> None:
    for memory in generate(300, seed=5):
        for text in (memory.title, memory.content, *memory.tags):
            same(text)


def test_an_anchor_inside_another_still_opens_its_gate() -> None:
    """A scan reports no match inside another: in ``ASIAC...`` it reports ``ASIA`` (an AWS
    key's start) and reads on after it, past the ``AC`` a Twilio key starts with."""
    twilio = "ASIAC" + "0123456789abcdef" * 2
    assert any(finding.kind == "Twilio API Key" for finding in find_secrets(twilio))
    same(twilio)


def test_prose_opens_few_gates() -> None:
    """What the prefilter is for: an ordinary note runs almost no pattern."""
    opened = [len(PREFILTER.open(text)) for text in PROSE]
    assert sum(opened) <= len(PROSE)
