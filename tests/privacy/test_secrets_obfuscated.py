"""A credential disguised to slip past the patterns is found all the same (issue #29):
split across lines, spaced out, base64- or hex-encoded, reversed, with zero-width or
full-width characters inside, or in a memory's tags or files. Ordinary code, hashes,
UUIDs and encoded non-secrets are left alone, and a long text is still scanned fast."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.pathological import SECRET_SCANS
from ltm_desktop.core.inbox.proposals import ExtractionRun
from ltm_desktop.core.privacy.screening import SecretRefused
from ltm_desktop.core.privacy.secret_scan import scan
from ltm_desktop.core.privacy.secrets import find_secrets, holds_secret, redact
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery, MemoryDraft, Provenance
from ltm_desktop.core.settings.config import Settings
from tests.conftest import ServiceFactory
from tests.hang import finishes

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ANTHROPIC = "sk-ant-api03-" + "Ab1_" * 22 + "xyAA"
OPENAI_PROJECT = "sk-proj-" + "a1B2c3D4e5" * 5
TOKENS = {
    "aws": (AWS_KEY, "AWS Access Key"),
    "github": (GITHUB_TOKEN, "GitHub Token"),
    "anthropic": (ANTHROPIC, "Anthropic API Key"),
    "openai": (OPENAI_PROJECT, "OpenAI API Key"),
}


def split_lines(token: str) -> str:
    half = len(token) // 2
    return f"{token[:half]}\n    {token[half:]}"


def zero_width(token: str) -> str:
    return "\u200b".join([token[:5], token[5:11], token[11:]])


def full_width(token: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in token)


# (how it is disguised, the disguise, the word the finding's kind ends with)
DISGUISES = [
    ("split across lines", split_lines, "obfuscated"),
    ("spaced out", " ".join, "obfuscated"),
    ("zero-width inside", zero_width, "obfuscated"),
    ("full-width", full_width, "obfuscated"),
    ("base64", lambda t: base64.b64encode(f"token={t}".encode()).decode(), "in base64"),
    ("base64url", lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="), "in base64"),
    ("hex", lambda t: t.encode().hex(), "in hex"),
    ("0x hex", lambda t: "0x" + t.encode().hex().upper(), "in hex"),
    ("reversed", lambda t: t[::-1], "reversed"),
]


@pytest.mark.parametrize(("token", "kind"), TOKENS.values(), ids=TOKENS.keys())
@pytest.mark.parametrize(("how", "disguise", "says"), DISGUISES, ids=[d[0] for d in DISGUISES])
def test_a_disguised_credential_is_found_and_redacted_whole(
    token: str, kind: str, how: str, disguise: object, says: str
) -> None:
    assert callable(disguise)
    hidden = str(disguise(token))
    text = f"Notes for staging:\nthe key is {hidden} (rotate monthly)"
    (finding,) = find_secrets(text)
    assert finding.kind == f"{kind} {says}"
    assert text[finding.start : finding.end].strip() in hidden
    redacted = redact(text)
    assert redacted == (
        f"Notes for staging:\nthe key is [redacted {kind} {says}] (rotate monthly)"
    ), how
    assert not holds_secret(redacted)


@st.composite
def obfuscated(draw: st.DrawFn) -> tuple[str, str]:
    """A token with zero-width characters, full-width letters and spaced-out stretches,
    and its kind."""
    token, kind = draw(st.sampled_from(list(TOKENS.values())))
    out: list[str] = []
    for i, c in enumerate(token):
        out.append(full_width(c) if draw(st.booleans()) else c)
        if 0 < i < len(token) - 1 and draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from("\u200b\u200c\u200d\u2060\u00ad\ufeff")))
    return "".join(out), kind


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(obfuscated(), st.sampled_from(["", "key: ", "export TOKEN="]))
def test_invisible_and_full_width_characters_anywhere_in_a_token(
    hidden: tuple[str, str], before: str
) -> None:
    text, kind = hidden
    findings = find_secrets(f"{before}{text} is the one")
    assert [f.kind for f in findings] == [f"{kind} obfuscated"]
    assert redact(f"{before}{text}") == f"{before}[redacted {kind} obfuscated]"


@pytest.mark.parametrize(
    "text",
    [
        # code: keys made at run time, names split across lines, long identifiers
        "Session keys: secret = secrets.token_hex(32) in settings.py",
        "def build_request_signature_v2(\n    payload_serializer_factory, request\n)",
        "AbstractSingletonProxyFactoryBean\nAnotherVeryLongClassNameForTesting",
        # hashes, UUIDs, digests across lines, SRI hashes
        "The fix landed in 3f786850e387550fdab836ed7e6dc881de23001b.",
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "sha256 a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e",
        "Request 123e4567-e89b-12d3-a456-426614174000 failed.",
        "integrity: sha512-Qs1GdTJ1t0bN7Yf3kT4MBa0fTqf5/XrOR3Fhj5nbBa4uHm2EtYkVh6cqpiuLtPK8vtQ2gXS2==",
        # base64 and hex of things that are not secrets
        "The banner is " + base64.b64encode(b"Welcome to the billing API, v2.3").decode(),
        "magic bytes " + b"This is not a credential at all".hex(),
        "logo data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ7pXr1n8m3x0Y2Zk5a7b9c0d1e2f3g4wCgYIKoZIzj0E\n"
        "AwIwGjEYMBYGA1UEAwwPdGVzdC5leGFtcGxlLmNvbTAeFw0yNDAxMDEwMDAwMDBa\n"
        "-----END CERTIFICATE-----",
        # prose with spaced letters, reversed words, other scripts and emoji
        "Press the keys a b c d e f g h in order to reset the keyboard layout.",
        "Its name backwards is sdrawkcab, a running joke in the team.",
        "Ключ API хранится в Vault; 🔑 never in the repo ❤️ 👩‍💻",
        "Ｆｕｌｌ－ｗｉｄｔｈ text in the Japanese UI: ログイン画面",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


LONG_TEXTS = {
    name: SECRET_SCANS[name](size)
    for name, size in [
        ("minified letters", 1_300),
        ("minified base64 text", 1_300),
        ("minified hex", 1_300),
        ("certificate lines", 900),
        ("spaced letters", 28_000),
    ]
}


@pytest.mark.parametrize("text", LONG_TEXTS.values(), ids=LONG_TEXTS.keys())
def test_a_long_text_is_scanned_without_backtracking(text: str) -> None:
    """Each view is linear: 55 KB of minified JSON, a certificate chain's base64 lines
    (joined, then decoded) or a spaced-out run take a fraction of a second (measured
    against ten times less text in bench/scale/growth_bench.py)."""
    assert len(text) > 55_000
    assert finishes(lambda: find_secrets(text)) == []


def _stored(make_service: ServiceFactory, mode: str, draft: MemoryDraft) -> list[str]:
    service = make_service(settings=Settings(privacy_secrets=mode))
    service.add(GLOBAL_PROJECT_ID, draft, "agent")
    memory = service.list_memories(GLOBAL_PROJECT_ID, ListQuery(include_disabled=True))[0]
    return [memory.title, memory.content, *memory.tags, *memory.files]


@pytest.mark.parametrize(
    ("field", "draft"),
    [
        ("content", MemoryDraft(f"token {GITHUB_TOKEN[::-1]}")),
        ("title", MemoryDraft("ok", title=f"key {zero_width(AWS_KEY)}")),
        ("tags", MemoryDraft("ok", tags=[full_width(GITHUB_TOKEN)])),
        ("files", MemoryDraft("ok", files=[f"notes/{GITHUB_TOKEN}.txt"])),
        ("files", MemoryDraft("ok", files=[f"dumps/{AWS_KEY.encode().hex()}.bin"])),
    ],
)
def test_every_field_is_screened(
    make_service: ServiceFactory, tmp_path: Path, field: str, draft: MemoryDraft
) -> None:
    refusing = make_service(tmp_path / "refuse", Settings(privacy_secrets="refuse"))
    with pytest.raises(SecretRefused) as info:
        refusing.add(GLOBAL_PROJECT_ID, draft, "agent")
    assert info.value.field == field
    redacting = make_service(tmp_path / "redact", Settings(privacy_secrets="redact"))
    stored = redacting.add(GLOBAL_PROJECT_ID, draft, "agent").memory
    values = [stored.title, stored.content, *stored.tags, *stored.files]
    assert not any(holds_secret(v) for v in values)
    assert any("redacted" in v for v in values)


def test_a_redacted_tag_is_still_a_valid_tag(make_service: ServiceFactory) -> None:
    service = make_service(settings=Settings(privacy_secrets="redact"))
    tags = ["x://deploy:hunter2pass@ci", "hf_AbCdEfGhIjKlMnOp\u200bQrStUvWxYzAbCdEfGh"]
    stored = service.add(GLOBAL_PROJECT_ID, MemoryDraft("ok", tags=tags), "agent").memory
    # "x://deploy:[redacted-basic-auth-credentials]@ci" would be over 40 characters
    assert stored.tags == ("[redacted-secret]", "[redacted-hugging-face-token-obfuscated]")


def test_the_stored_scan_reads_tags_and_files(make_service: ServiceFactory) -> None:
    service = make_service(settings=Settings(privacy_secrets="allow"))
    draft = MemoryDraft("ok", tags=["deploy"], files=[f"keys/{AWS_KEY[::-1]}.txt"])
    memory = service.add(GLOBAL_PROJECT_ID, draft, "agent").memory
    (hit,) = scan([memory])
    assert (hit.field, hit.kind, hit.line, hit.column) == ("files", "AWS Access Key reversed", 1, 6)


def test_the_extractor_refuses_a_disguised_credential(make_service: ServiceFactory) -> None:
    service = make_service()
    provenance = Provenance("run_1", "claude-code", "s1", "text", "m", 1.0)
    encoded = base64.b64encode(f"GITHUB_TOKEN={GITHUB_TOKEN}".encode()).decode()
    run: ExtractionRun = service.inbox.store_extraction(
        GLOBAL_PROJECT_ID,
        [{"content": "Deploys go out on Fridays"}, {"content": f"CI reads {encoded}"}],
        provenance,
        review=True,
        started_at=1.0,
    )
    assert (run.proposed, run.refused) == (1, 1)
