"""The secrets scan stays linear on hostile runs of text: the extractor redacts transcript
turns of any size (agent/extractor/prompt.py), so a quadratic pattern holds a hook or a
write for seconds. As tests/privacy/test_secrets.py does for 55 KB of minified JSON, a
generous bound on wall time: linear is tens of milliseconds, quadratic is seconds."""

from __future__ import annotations

import pytest

from ltm_desktop.core.privacy.secrets import find_secrets, redact
from tests.hang import finishes


@pytest.mark.parametrize("prefix", ["sk-ant-", "sk-proj-", "sk-"])
def test_a_long_run_of_key_prefixes_is_scanned_in_linear_time(prefix: str) -> None:
    """detect-secrets' OpenAI pattern (``sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ``) read
    to the end of the run and back from each ``sk-``: 80 KB of ``sk-ant-`` took 4 s."""
    run = prefix * (400_000 // len(prefix))  # quadratic: 4 s at 80 KB, 100 s here
    finishes(lambda: find_secrets(run))


def test_an_openai_key_is_still_found() -> None:
    """The bounded pattern still finds the keys it was written for, old and new."""
    legacy = "sk-" + "A1b2C3d4E5f6G7h8I9j0" + "T3BlbkFJ" + "K1l2M3n4O5p6Q7r8S9t0"
    project = "sk-proj-" + "Ab1_Cd2-" * 10 + "Xy9Zw8Vu7Ts6Rq5Po4Nm" + "T3BlbkFJ" + "Z" * 40
    for key in (legacy, project):
        assert "[redacted" in redact(f"the key is {key} for the bot"), key
