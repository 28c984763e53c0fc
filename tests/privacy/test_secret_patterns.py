"""detect-secrets' patterns read from a copy cached on disk (core.secret_patterns): the same
findings as the library itself, without importing it, and never weaker for a bad copy."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltm_desktop.core.privacy import secret_patterns
from ltm_desktop.core.privacy.secret_patterns import load_patterns

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
LINES = [
    'password = "correct-horse-battery"',
    "db_password: 's3cr3t-value-here'",
    'api_key="abcd1234efgh"',
    "secret = plain_value_without_quotes",
    'const apiKey = "zyxwv98765";',
    '"aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    'private_key => "Zm9vYmFyYmF6cXV4"',
    "passwd = ''",
    "the password is in the vault",
    'token = "x"',
]
FINDS = (
    "import sys\n"
    "from ltm_desktop.core.privacy.secrets import redact\n"
    f"print(redact('key {AWS_KEY} and password = \"correct-horse-battery\"'))\n"
    "print('detect_secrets' in sys.modules)\n"
)


def holds_either_secret(text: str) -> bool:
    return AWS_KEY in text or "correct-horse" in text


def cache_files(home: Path) -> list[Path]:
    return sorted((home / "ltm-desktop").glob("secret-patterns-*.json"))


def run_finds(cache_home: Path) -> tuple[str, bool]:
    """Redact in a new process; its output, and whether it imported detect-secrets."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run(
        [sys.executable, "-c", FINDS], capture_output=True, text=True, check=True, env=env
    )
    text, imported = done.stdout.strip().splitlines()
    return text, imported == "True"


def test_the_keyword_regexes_find_what_the_library_finds() -> None:
    from detect_secrets.plugins.keyword import KeywordDetector

    from ltm_desktop.core.privacy.secrets import _detectors

    detector = KeywordDetector()
    for line in LINES:
        theirs = {s.secret_value for s in detector.analyze_line(filename="text", line=line)}
        assert set(_detectors().keyword(line)) == {v for v in theirs if v}, line


def test_the_copy_holds_the_librarys_patterns_exactly() -> None:
    library = secret_patterns._from_library()
    copy = secret_patterns._from_json(secret_patterns._to_json(library))
    assert copy == library  # compiled patterns compare by their text and flags
    assert len(library.kinds) > 20
    assert library.keyword


def test_a_process_with_the_copy_finds_secrets_without_the_library(tmp_path: Path) -> None:
    first, imported = run_finds(tmp_path)
    assert imported  # the first process reads the library, and writes the copy
    assert not holds_either_secret(first)
    [copy] = cache_files(tmp_path)
    second, imported = run_finds(tmp_path)
    assert not imported
    assert second == first
    assert cache_files(tmp_path) == [copy]


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "{not json",
        "[]",
        '{"format": 1, "kinds": [], "keyword": []}',  # emptied: would find nothing
        '{"format": 99, "kinds": [["AWS", "AKIA", 0]], "keyword": [["x", 0, 0]]}',
        '{"format": 1, "kinds": [["AWS", "(unclosed", 0]], "keyword": [["x", 0, 0]]}',
    ],
    ids=["empty", "broken", "list", "emptied", "other-format", "bad-regex"],
)
def test_a_bad_copy_is_ignored_and_replaced(tmp_path: Path, bad: str) -> None:
    run_finds(tmp_path)
    [copy] = cache_files(tmp_path)
    copy.write_text(bad, encoding="utf-8")
    text, imported = run_finds(tmp_path)
    assert imported  # read from the library again
    assert not holds_either_secret(text)
    assert secret_patterns._from_json(copy.read_text(encoding="utf-8")).kinds  # rewritten


def test_a_cache_directory_that_cannot_be_written_costs_only_the_import(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    text, imported = run_finds(blocked)
    assert imported
    assert not holds_either_secret(text)


def test_a_changed_library_is_read_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy is named after the library's files: an upgrade names another copy."""
    package = tmp_path / "detect_secrets"
    (package / "plugins").mkdir(parents=True)
    (package / "util").mkdir()
    for name in ("__init__.py", "util/filetype.py", "plugins/aws.py", "plugins/keyword.py"):
        (package / name).write_text("# version 1\n", encoding="utf-8")
    spec = SimpleNamespace(origin=str(package / "__init__.py"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    before = secret_patterns._fingerprint()
    assert before == secret_patterns._fingerprint()
    (package / "plugins" / "aws.py").write_text("# version 2, longer\n", encoding="utf-8")
    assert secret_patterns._fingerprint() not in (before, None)


def test_load_patterns_reads_the_copy_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    library = load_patterns()  # no copy yet: the library, then the copy
    monkeypatch.setattr(secret_patterns, "_from_library", lambda: pytest.fail("not read"))
    assert load_patterns() == library
