"""The secrets rule applies to every write path, per ``[privacy] secrets``, and leaves
ordinary text (code, hashes, UUIDs, images in prose) untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.api.client_errors import InvalidParams
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.inbox.proposals import ExtractionRun
from ltm_desktop.core.privacy.screening import SecretRefused
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery, MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.transfer.importing import parse_file
from tests.conftest import ServiceFactory
from tests.unit.test_transfer import export_jsonl

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
URL_PASSWORD = "hunter2secret"
KEYWORD_PASSWORD = "correct-horse-battery"
# (text holding the secret, the secret, its kind as the error names it, line, column)
SECRETS = [
    (f"Staging uses the key {AWS_KEY} for uploads", AWS_KEY, "AWS Access Key", 1, 22),
    (f"CI reads\nexport GITHUB_TOKEN={GITHUB_TOKEN}", GITHUB_TOKEN, "GitHub Token", 2, 21),
    (f"The deploy key:\n{PRIVATE_KEY}", "b3BlbnNzaC1rZXktdjEAAAAABG5", "Private Key", 2, 1),
    (
        f"db is postgres://admin:{URL_PASSWORD}@db.internal:5432/app",
        URL_PASSWORD,
        "Basic Auth Credentials",
        1,
        24,
    ),
    (f'settings.py has password = "{KEYWORD_PASSWORD}"', KEYWORD_PASSWORD, "Secret Keyword", 1, 29),
]
SECRET_IDS = ["aws", "github", "private-key", "url-password", "keyword"]
# Ordinary text that must be stored exactly as written, whatever the setting.
CORPUS = [
    "def connect(password: str) -> None:\n"
    '    token = os.environ["API_TOKEN"]\n'
    "    return client.login(user, password)",
    'api_key = os.environ.get("OPENAI_API_KEY")  # never hard-code it',
    "Fixed in 3f786850e387550fdab836ed7e6dc881de23001b (merge of a94a8fe5ccb19ba61c4c0873d39).",
    "Request 123e4567-e89b-12d3-a456-426614174000 failed for tenant "
    "550e8400-e29b-41d4-a716-446655440000.",
    "The logo is inlined as data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg== in the README.",
    "The empty file hashes to sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "integrity: sha512-Qs1GdTJ1t0bN7Yf3kT4MBa0fTqf5/XrOR3Fhj5nbBa4uHm2EtYkVh6cqpiuLtPK8vtQ2gXS2==",
    "Rebase with `git rebase -i HEAD~3`, then `git push --force-with-lease`.",
    "password: see the team vault; the DATABASE_URL is postgres://localhost/app",
]


def _service(make_service: ServiceFactory, mode: str) -> MemoryService:
    return make_service(settings=Settings(privacy_secrets=mode))


def _contents(service: MemoryService, project: str) -> list[str]:
    return [m.content for m in service.list_memories(project, ListQuery(include_disabled=True))]


@pytest.mark.parametrize(("text", "secret", "kind", "line", "column"), SECRETS, ids=SECRET_IDS)
def test_refuse_names_the_kind_and_place_never_the_secret(
    make_service: ServiceFactory, text: str, secret: str, kind: str, line: int, column: int
) -> None:
    service = _service(make_service, "refuse")
    with pytest.raises(SecretRefused) as info:
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent")
    message = str(info.value)
    assert f"content holds a secret ({kind}) at line {line}, column {column}" in message
    assert secret not in message
    assert info.value.field == "content"
    assert _contents(service, GLOBAL_PROJECT_ID) == []


@pytest.mark.parametrize(("text", "secret", "kind", "line", "column"), SECRETS, ids=SECRET_IDS)
def test_redact_stores_a_marker_and_allow_stores_it_verbatim(
    make_service: ServiceFactory,
    tmp_path: Path,
    text: str,
    secret: str,
    kind: str,
    line: int,
    column: int,
) -> None:
    redacting = make_service(tmp_path / "redact", Settings(privacy_secrets="redact"))
    stored = redacting.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent").memory
    assert secret not in stored.content
    assert f"[redacted {kind}]" in stored.content
    history = json.dumps([e.after for e in redacting.history.memory(stored.id)])
    assert secret not in history
    allowing = make_service(tmp_path / "allow", Settings(privacy_secrets="allow"))
    assert allowing.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent").memory.content == text


@pytest.mark.parametrize("mode", ["refuse", "redact", "allow"])
def test_ordinary_text_passes_untouched(make_service: ServiceFactory, mode: str) -> None:
    service = _service(make_service, mode)
    for text in CORPUS:
        assert service.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent").memory.content == text


def test_titles_tags_and_edits_are_screened(make_service: ServiceFactory) -> None:
    service = _service(make_service, "refuse")
    with pytest.raises(SecretRefused, match=r"title holds a secret \(AWS Access Key\)"):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft("ok", title=f"key {AWS_KEY}"), "agent")
    with pytest.raises(SecretRefused, match=r"tags holds a secret \(GitHub Token\)"):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft("ok", tags=[GITHUB_TOKEN]), "agent")
    memory = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys go out on Fridays"), "agent")
    with pytest.raises(SecretRefused, match="AWS Access Key"):
        service.update(memory.memory.id, {"content": f"use {AWS_KEY}"}, "gui")
    assert service.get(memory.memory.id).content == "Deploys go out on Fridays"
    redacting = _service(make_service, "redact")
    tagged = redacting.add(GLOBAL_PROJECT_ID, MemoryDraft("ok", tags=[GITHUB_TOKEN]), "agent")
    assert tagged.memory.tags == ("[redacted-github-token]",)


def test_bulk_and_file_imports_are_screened(make_service: ServiceFactory, tmp_path: Path) -> None:
    service = _service(make_service, "refuse")
    drafts = [MemoryDraft("fine"), MemoryDraft(f"key {AWS_KEY}")]
    with pytest.raises(SecretRefused):
        service.import_memories(GLOBAL_PROJECT_ID, drafts, "import")
    assert _contents(service, GLOBAL_PROJECT_ID) == []  # one refused draft imports nothing
    notes = tmp_path / "AGENTS.md"
    notes.write_text(f"# Notes\n\n- Tests run with make test\n- Token {GITHUB_TOKEN}\n")
    with pytest.raises(InvalidInput, match=r"AGENTS.md line \d+: content holds a secret \(GitHub"):
        service.importer.import_parsed(parse_file(notes), GLOBAL_PROJECT_ID, "import")
    assert _contents(service, GLOBAL_PROJECT_ID) == []


def test_records_of_an_export_are_screened(make_service: ServiceFactory, tmp_path: Path) -> None:
    source = make_service(tmp_path / "source", Settings(privacy_secrets="allow"))
    source.add(GLOBAL_PROJECT_ID, MemoryDraft(f"upload with {AWS_KEY}"), "agent")
    path = export_jsonl(source, tmp_path / "export.jsonl")
    refusing = make_service(tmp_path / "refuse", Settings(privacy_secrets="refuse"))
    with pytest.raises(InvalidInput, match=r"export.jsonl line 3: content holds a secret \(AWS"):
        refusing.importer.import_parsed(parse_file(path), None, "import")
    assert _contents(refusing, GLOBAL_PROJECT_ID) == []
    redacting = make_service(tmp_path / "redact", Settings(privacy_secrets="redact"))
    redacting.importer.import_parsed(parse_file(path), None, "import")
    assert _contents(redacting, GLOBAL_PROJECT_ID) == ["upload with [redacted AWS Access Key]"]


def test_approving_an_extracted_memory_with_a_secret_is_refused(
    make_service: ServiceFactory,
) -> None:
    service = _service(make_service, "refuse")
    provenance = Provenance("run_1", "claude-code", "s1", "text", "m", 1.0)
    run: ExtractionRun = service.inbox.store_extraction(
        GLOBAL_PROJECT_ID,
        [{"content": "Deploys go out on Fridays"}, {"content": f"key {AWS_KEY}"}],
        provenance,
        review=True,
        started_at=1.0,
    )
    assert (run.proposed, run.refused) == (1, 1)
    (item,) = service.inbox.entries(GLOBAL_PROJECT_ID)
    with pytest.raises(SecretRefused, match="AWS Access Key"):
        service.inbox.approve(item.id, "gui", changes={"content": f"use {AWS_KEY}"})
    assert _contents(service, GLOBAL_PROJECT_ID) == []


def test_observations_from_hooks_are_redacted(make_service: ServiceFactory) -> None:
    service = _service(make_service, "refuse")
    observation = service.observations.record(
        GLOBAL_PROJECT_ID,
        "agent_end",
        "s1",
        "hook",
        user_text=f"use {GITHUB_TOKEN} to push",
        assistant_text="done",
    )
    assert GITHUB_TOKEN not in observation.narrative
    assert "[redacted GitHub Token]" in observation.narrative


def test_the_socket_api_answers_the_refusal(service: MemoryService, client: Client) -> None:
    with pytest.raises(InvalidParams) as info:
        client.memory_add(f"The key is {AWS_KEY}", project_id=GLOBAL_PROJECT_ID)
    assert "AWS Access Key" in str(info.value)
    assert AWS_KEY not in str(info.value)
    assert _contents(service, GLOBAL_PROJECT_ID) == []
