"""Credentials are found and redacted (core.secrets), ordinary text is left alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ltm_desktop.core.privacy.secrets import find_secrets, holds_secret, redact
from tests.hang import finishes

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
FINE_GRAINED = (
    "github_pat_11ABCDEFG0123456789_" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS"
)
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
ANTHROPIC = "sk-ant-api03-" + "Ab1_" * 22 + "xyAA"
OPENAI_PROJECT = "sk-proj-" + "a1B2c3D4e5" * 5
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDx2LpOZPIqVs2DcnRz0bP4fdV8cL5jBDK0WzQ1o0bZcQAAAJgLJqnZCyap\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"the key is {AWS_KEY} for staging", AWS_KEY, "AWS Access Key"),
        (f"export GITHUB_TOKEN={GITHUB_TOKEN}", GITHUB_TOKEN, "GitHub Token"),
        (f"token: {FINE_GRAINED} (fine-grained)", FINE_GRAINED, "GitHub Token"),
        (f"here it is:\n{PRIVATE_KEY}\nkeep it safe", PRIVATE_KEY, "Private Key"),
        (
            "db at postgres://admin:hunter2secret@db.internal:5432/app",
            "hunter2secret",
            "Basic Auth",
        ),
        ('password = "correct-horse-battery"', "correct-horse-battery", "Secret Keyword"),
        # unquoted, as prose, shell and .env lines write them (detect-secrets wants quotes)
        (
            "db password is password=Hunter2SuperSecret!",
            "Hunter2SuperSecret!",
            "Secret Keyword",
        ),
        ("password: Zq8vLm3Tr9Wx", "Zq8vLm3Tr9Wx", "Secret Keyword"),
        ("DATABASE_PASSWORD=hunter2", "hunter2", "Secret Keyword"),
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "AWS Secret Key"),
        (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "AWS Secret Key"),
        (f"the secret {AWS_SECRET}; keep it", AWS_SECRET, "AWS Secret Key"),
        # token formats detect-secrets 1.5 has no plugin for
        (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, "Anthropic API Key"),
        (f"OPENAI_API_KEY={OPENAI_PROJECT}", OPENAI_PROJECT, "OpenAI API Key"),
        (
            "maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "Google API Key",
        ),
        (
            "HF_TOKEN is hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
            "Hugging Face Token",
        ),
        (
            "//registry.npmjs.org/:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "npm Token",
        ),
    ],
)
def test_each_kind_of_credential_is_redacted_whole(text: str, secret: str, kind: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert f"[redacted {kind}" in redacted
    assert holds_secret(text)
    assert not holds_secret(redacted)


def test_a_key_block_without_its_end_is_redacted_to_the_end() -> None:
    cut = PRIVATE_KEY.rsplit("\n", 1)[0]  # the transcript was cut mid-key
    redacted = redact(f"before\n{cut}")
    assert redacted == "before\n[redacted Private Key]"


def test_a_password_in_a_url_keeps_the_rest_of_the_url() -> None:
    assert redact("https://deploy:s3cretpassw0rd@ci.example.com/hook") == (
        "https://deploy:[redacted Basic Auth Credentials]@ci.example.com/hook"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Run the tests with make test; deploys go through deploy.sh on the main branch.",
        "The fix landed in commit 3f786850e387550fdab836ed7e6dc881de23001b.",
        "The service listens on 10.0.0.12 and talks to 8.8.8.8 for DNS.",
        "password: see the team vault",
        # what follows "password:" or "api key:" in prose is not a credential
        "The password: stored in Vault, rotated monthly.",
        "api key: see ops/sentry in the vault",
        "The Stripe API key: kept in 1Password",
        "secret: keep it simple",
        "the deploy key 3f786850e387550fdab836ed7e6dc881de23001b is pinned",
        # code and prose after a keyword: no credential (a refused write otherwise)
        "Session keys: secret = secrets.token_hex(32) in settings.py",
        "password = hashlib.sha256(raw).hexdigest()",
        "private_key = ec.generate_private_key(ec.SECP256R1())",
        "api_key: config.v2.keys",
        "password: SHA256 hashed",
        "Use password=utf8mb4 charset",
        "monkey: Superb1oomingGardenFloweringPlantsInMay2",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


def test_findings_are_ordered_and_do_not_overlap() -> None:
    text = f"{AWS_KEY} then {GITHUB_TOKEN}"
    findings = find_secrets(text)
    assert [text[f.start : f.end] for f in findings] == [AWS_KEY, GITHUB_TOKEN]


def test_the_library_is_imported_on_first_use_only() -> None:
    code = (
        "import sys, ltm_desktop.core.privacy.secrets, ltm_desktop.core.service\n"
        "print('detect_secrets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_keyword_of_the_plugin_holds_a_hint() -> None:
    """The keyword plugin runs only on lines holding a hint: each of its words has one."""
    from detect_secrets.plugins.keyword import DENYLIST

    from ltm_desktop.core.privacy.secrets import KEYWORD_HINTS

    assert all(any(hint in word for hint in KEYWORD_HINTS) for word in DENYLIST)


def test_a_long_run_of_key_like_text_is_scanned_in_linear_time() -> None:
    """The 40-character AWS secret pattern looked ahead over the whole run of text after
    each "key": 55 KB of minified JSON took 6 s (and held every write waiting)."""
    minified = '{"key":' + '"abcdefghijklmnopqrstuvwxyz0123456789abcdefghij",' * 2_000
    assert finishes(lambda: find_secrets(minified)) == []  # quadratic: minutes
