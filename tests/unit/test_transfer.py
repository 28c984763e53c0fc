"""Export and import: JSONL round trips exactly, Markdown sources become memories through
the normal add, and a bad file imports nothing and names its line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltm_desktop import __version__
from ltm_desktop.cli import main
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Category, ListQuery, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.transfer import exporting, importing
from ltm_desktop.core.transfer.importing import parse_file
from ltm_desktop.core.transfer.parsed import ImportFailed
from ltm_desktop.store import open_store
from tests.conftest import FakeClock, ServiceFactory

ALL = ListQuery(include_disabled=True, include_expired=True, limit=10_000)


def everything(service: MemoryService) -> list[Memory]:
    found = [m for p, _ in service.projects() for m in service.list_memories(p.project_id, ALL)]
    return sorted(found, key=lambda m: m.id)


def export_jsonl(
    service: MemoryService, path: Path, *, include_removed: bool = False, with_history: bool = False
) -> Path:
    scopes = [p for p, _ in service.projects()]
    with path.open("w", encoding="utf-8") as out:
        exporting.write_jsonl(
            service,
            scopes,
            out,
            app_version=__version__,
            include_removed=include_removed,
            with_history=with_history,
        )
    return path


def open_service(data_dir: Path, clock: FakeClock) -> MemoryService:
    paths = DataPaths(data_dir)
    service = MemoryService(open_store(paths.db_path, paths.backup_dir), paths, clock=clock)
    service.start()
    return service


# -- the round trip -----------------------------------------------------------------

WORDS = st.sampled_from(["deploy", "tests", "cache", "ruff", "uv", "docker", "redis", "api"])
MEMORY = st.fixed_dictionaries(
    {
        "words": st.lists(WORDS, min_size=1, max_size=6),
        "extra": st.text(
            st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20
        ),
        "category": st.sampled_from(list(Category)),
        "importance": st.integers(0, 10),
        "tags": st.lists(WORDS, max_size=3),
        "ttl_days": st.none() | st.integers(1, 400),
        "removed": st.booleans(),
        "global": st.booleans(),
    }
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MEMORY, max_size=12))
def test_jsonl_export_then_import_into_an_empty_dir_gives_the_same_memories(
    memories: list[dict[str, object]],
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        clock = FakeClock()
        source = open_service(root / "a", clock)
        target = open_service(root / "b", clock)
        try:
            project = source.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
            for spec in memories:
                scope = GLOBAL_PROJECT_ID if spec["global"] else project
                text = " ".join(spec["words"]) + " " + str(spec["extra"])  # type: ignore[arg-type]
                draft = MemoryDraft(
                    text,
                    category=spec["category"],  # type: ignore[arg-type]
                    importance=spec["importance"],  # type: ignore[arg-type]
                    tags=spec["tags"],  # type: ignore[arg-type]
                    ttl_days=spec["ttl_days"],  # type: ignore[arg-type]
                )
                added = source.add(scope, draft, "tester").memory
                if spec["removed"] and not added.disabled:
                    source.remove(added.id, "tester")
                clock.advance(days=30)
            path = export_jsonl(source, root / "export.jsonl", include_removed=True)
            for parsed in [parse_file(path)]:
                target.importer.import_parsed(parsed, None, "import")
            assert everything(target) == everything(source)
            assert {p.project_id: p.path for p, _ in target.projects()} == {
                p.project_id: p.path for p, _ in source.projects()
            }
        finally:
            source.close()
            target.close()


# -- JSONL collisions -----------------------------------------------------------------


def test_jsonl_collisions_follow_the_documented_rules(
    make_service: ServiceFactory, tmp_path: Path, project: str
) -> None:
    source = make_service(tmp_path / "a")
    scope = source.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
    base = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
    old = source.add(scope, MemoryDraft(base + " mike november"), "t").memory
    new = source.add(scope, MemoryDraft(base + " mike"), "t")
    assert new.superseded_id == old.id
    kept = source.add(scope, MemoryDraft("Redis runs on port 6380"), "t").memory
    path = export_jsonl(source, tmp_path / "x.jsonl", include_removed=True)

    target = make_service(tmp_path / "b")
    target.importer.import_parsed(parse_file(path), None, "import")  # rule 1 the second time
    again = target.importer.import_parsed(parse_file(path), None, "import")
    assert again.created == []
    assert len(again.skipped) == 3
    assert {s["reason"] for s in again.skipped} == {"already there (same id, same scope and text)"}

    # rule 2: ids taken by other memories get new ids, and the supersede link follows them
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        if record.get("type") == "memory":
            record["content"] += " (edited)"
            record["title"] += " (edited)"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    renamed = target.importer.import_parsed(parse_file(path), None, "import")
    assert set(renamed.renamed) == {old.id, new.memory.id, kept.id}
    moved_old = target.get(renamed.renamed[old.id])
    assert moved_old.superseded_by == renamed.renamed[new.memory.id]
    assert moved_old.created_at == old.created_at

    # rule 3: an active record whose text an active memory of the scope already has
    fresh = make_service(tmp_path / "c")
    there = fresh.add(scope, MemoryDraft("Redis runs on port 6380"), "t").memory
    report = fresh.importer.import_parsed(
        parse_file(export_jsonl(source, tmp_path / "y.jsonl")), None, "i"
    )
    assert [s["reason"] for s in report.skipped] == [
        f"an active memory ({there.id}) of the scope has the same text"
    ]


def test_a_file_that_repeats_itself_keeps_the_rules_within_the_file(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """Records are stored in batches: an id or an active text earlier in the same file
    counts as stored, as it did when each record was stored at once."""
    source = make_service(tmp_path / "a")
    scope = source.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
    source.add(scope, MemoryDraft("Redis runs on port 6380"), "t")
    source.add(scope, MemoryDraft("Deploys go out on Fridays"), "t")
    path = export_jsonl(source, tmp_path / "x.jsonl")
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    memory = next(r for r in records if r.get("content") == "Redis runs on port 6380")
    twin = dict(memory, id="mem_0000000000000000twin")  # another id, the same active text
    path.write_text("\n".join([*lines, json.dumps(memory), json.dumps(twin)]) + "\n")

    target = make_service(tmp_path / "b")
    report = target.importer.import_parsed(parse_file(path), None, "import")
    assert len(report.created) == 2
    reasons = sorted(s["reason"] for s in report.skipped)
    assert reasons == [
        "already there (same id, same scope and text)",
        f"an active memory ({memory['id']}) of the scope has the same text",
    ]
    assert target.count_memories(scope) == 2
    assert target.integrity.verify().problems == ()


def test_imported_records_are_audited_with_the_file(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    source = make_service(tmp_path / "a")
    memory = source.add(GLOBAL_PROJECT_ID, MemoryDraft("Use uv, not pip"), "t").memory
    path = export_jsonl(source, tmp_path / "x.jsonl", with_history=True)
    assert json.loads(path.read_text().splitlines()[2])["history"][0]["action"] == "created"
    target = make_service(tmp_path / "b")
    target.importer.import_parsed(parse_file(path), None, "import")
    [event] = target.history.memory(memory.id)
    assert (event.action, event.actor) == ("imported", "import")
    assert event.after is not None
    assert event.after["imported_from"] == str(path)


# -- Markdown sources -------------------------------------------------------------------

CLAUDE_MD = """\
# Billing API

Use uv for everything.

## Code style
- Prefer dataclasses over dicts
- Line length is 100
  (ruff enforces it)

## Testing

Run the tests with:

```bash
make test
```

- Never sleep in tests
"""


def test_an_agent_file_becomes_one_memory_per_bullet_or_paragraph(
    service: MemoryService, project: str, tmp_path: Path
) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(CLAUDE_MD)
    parsed = parse_file(path)
    assert parsed.format == "claude-md"
    report = service.importer.import_parsed(parsed, project, "import")
    assert len(report.created) == 5
    memories = {m.content: m for m in service.list_memories(project)}
    assert set(memories) == {
        "Use uv for everything.",
        "Prefer dataclasses over dicts",
        "Line length is 100\n(ruff enforces it)",
        "Run the tests with:\n```bash\nmake test\n```",
        "Never sleep in tests",
    }
    assert memories["Use uv for everything."].tags == ()
    assert memories["Prefer dataclasses over dicts"].tags == ("code-style",)
    assert memories["Never sleep in tests"].tags == ("testing",)
    assert {m.source for m in memories.values()} == {"import"}
    [created] = service.history.memory(memories["Never sleep in tests"].id)
    assert created.after is not None
    assert (created.after["imported_from"], created.after["line"]) == (str(path), 18)


def test_markdown_imports_take_the_normal_add(
    service: MemoryService, project: str, tmp_path: Path
) -> None:
    there = service.add(project, MemoryDraft("Never sleep in tests"), "t").memory
    twin = service.add(project, MemoryDraft("Always prefer dataclasses over dicts"), "t").memory
    path = tmp_path / "AGENTS.md"
    path.write_text(CLAUDE_MD)
    report = service.importer.import_parsed(parse_file(path), project, "import")
    assert report.format == "agents-md"
    assert [d["id"] for d in report.deduplicated] == [there.id]
    assert [s["superseded"] for s in report.superseded] == [twin.id]
    assert service.get(twin.id).disabled


def test_a_dry_run_writes_nothing(service: MemoryService, project: str, tmp_path: Path) -> None:
    path = tmp_path / "GEMINI.md"
    path.write_text(CLAUDE_MD)
    seq, version = service.history.last_event_seq(), service.data_version()
    report = service.importer.import_parsed(parse_file(path), project, "import", dry_run=True)
    assert len(report.created) == 5
    assert report.dry_run
    assert service.list_memories(project) == []
    assert (service.history.last_event_seq(), service.data_version()) == (seq, version)


def test_markdown_export_reimports_its_memories(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    source = make_service(tmp_path / "a")
    scope = source.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
    source.add(scope, MemoryDraft("Run:\n\n### not a title\nmake test", tags=["ci"]), "t")
    source.add(scope, MemoryDraft("Tabs -- never spaces", category="preference", importance=8), "t")
    out = io.StringIO()
    assert exporting.write_markdown(source, [p for p, _ in source.projects()], out) == 2
    path = tmp_path / "memories.md"
    path.write_text(out.getvalue())
    target = make_service(tmp_path / "b")
    parsed = parse_file(path)
    assert parsed.format == "markdown"
    target.importer.import_parsed(parsed, None, "import")

    def shape(service: MemoryService) -> set[tuple[object, ...]]:
        return {
            (m.title, m.content, m.category, m.importance, m.tags)
            for m in service.list_memories(scope)
        }

    assert shape(target) == shape(source)


# -- bad input --------------------------------------------------------------------------


def test_invalid_json_names_the_file_and_line_and_imports_nothing(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    source = make_service(tmp_path / "a")
    source.add(GLOBAL_PROJECT_ID, MemoryDraft("first"), "t")
    source.add(GLOBAL_PROJECT_ID, MemoryDraft("second"), "t")
    path = export_jsonl(source, tmp_path / "x.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, '{"type": "memory", "id": ']) + "\n")
    with pytest.raises(ImportFailed, match=rf"{path} line 5: invalid JSON"):
        parse_file(path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"type":"header","format":"ltm-desktop-export","format_version":99}\n',
            "line 1: format_version 99 is not supported",
        ),
        ('{"type":"memory"}\n', "line 1: the first line is not an ltm-desktop-export header"),
        (
            '{"type":"header","format":"ltm-desktop-export","format_version":1}\n'
            '{"type":"memory","id":"m1","project_id":"global","content":"x","category":"task","importance":99}\n',
            "line 2: importance must be",
        ),
        ("", "empty"),
    ],
)
def test_bad_jsonl_is_refused_with_its_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(ImportFailed) as caught:
        parse_file(path)
    assert str(caught.value).startswith(str(path))
    assert problem in str(caught.value)


def test_markdown_that_breaks_a_rule_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text("# Notes\n\n- fine\n- " + "x" * 30_000 + "\n")
    with pytest.raises(ImportFailed, match=rf"{path} line 4: content may have at most"):
        parse_file(path)
    path.write_bytes(b"# Notes\n\n- caf\xe9\n")
    with pytest.raises(ImportFailed, match=rf"{path} line 3: not UTF-8"):
        parse_file(path)


def test_a_huge_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "MAX_FILE_BYTES", 100)
    path = tmp_path / "CLAUDE.md"
    path.write_text("- a memory\n" * 20)
    with pytest.raises(ImportFailed, match="220 bytes is more than an import takes"):
        parse_file(path)


# -- the commands -----------------------------------------------------------------------


def test_import_and_export_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "CLAUDE.md").write_text(CLAUDE_MD)
    data = ["--data-dir", str(tmp_path / "d")]
    assert main([*data, "import", str(repo / "CLAUDE.md"), "--dry-run"]) == 0
    assert "would import 5 created" in capsys.readouterr().out
    assert main([*data, "export", "--cwd", str(repo)]) == 1  # no scope: not a made-up one
    assert f"no project scope for {repo}" in capsys.readouterr().err
    assert main([*data, "import", str(repo / "CLAUDE.md")]) == 0  # into the file's directory
    assert "imported 5 created" in capsys.readouterr().out
    out = tmp_path / "out.jsonl"
    monkeypatch.chdir(repo)
    assert main([*data, "export", "--cwd", ".", "-o", str(out)]) == 0  # relative, as typed
    assert f"exported 5 memories of 1 scopes to {out}" in capsys.readouterr().out
    header = json.loads(out.read_text().splitlines()[0])
    assert (header["format_version"], header["app_version"]) == (1, __version__)
    assert main(["--data-dir", str(tmp_path / "e"), "import", str(out), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)[0]["created"]) == 5


def test_a_bad_file_among_several_imports_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "CLAUDE.md", tmp_path / "bad.jsonl"
    good.write_text(CLAUDE_MD)
    bad.write_text("not json\n")
    data = ["--data-dir", str(tmp_path / "d")]
    assert main([*data, "import", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert err == f"ltm-desktop: error: {bad} line 1: invalid JSON (Expecting value)\n"
    assert main([*data, "import", str(tmp_path / "missing.md")]) == 1
    assert "ltm-desktop: error: cannot use" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()  # checked before anything was opened or made


def test_export_pages_through_many_memories(service: MemoryService, project: str) -> None:
    drafts = [MemoryDraft(f"fact number {i} about the system") for i in range(1_234)]
    service.import_memories(project, drafts, "bench")
    out = io.StringIO()
    count = exporting.write_jsonl(
        service, [service.resolve_cwd("/home/dev/src/billing-api")], out, app_version="x"
    )
    lines = out.getvalue().splitlines()
    assert count == 1_234
    assert len(lines) == 1_236
    ids = [json.loads(line)["id"] for line in lines[2:]]
    assert len(set(ids)) == 1_234


# -- other agents' memory files -------------------------------------------------------------

HERMES_MEMORY = """\
The staging box is staging.internal; deploys go through the bastion.
§
Project uses Poetry, not pip.
Run `poetry install --sync` after switching branches.
§
"""
HERMES_USER = "Prefers short answers.\n§\nWrites Go at work, Python at home.\n"
CLINE_TECH = "# Tech context\n\n## Stack\n- Python 3.11 with FastAPI\n- Postgres 16\n"
AUTO_MEMORY_TOPIC = """\
---
name: tabs-not-spaces
description: The user wants tabs for indentation
metadata:
  type: feedback
---
Indent with tabs, never spaces.
**Why:** the team's editor settings.
"""
AUTO_MEMORY_INDEX = "- [Tabs](tabs-not-spaces.md) — indentation preference\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_hermes_memories_split_on_the_section_sign_and_are_global(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = write(tmp_path / "home" / ".hermes" / "memories" / "MEMORY.md", HERMES_MEMORY)
    user = write(tmp_path / "home" / ".hermes" / "memories" / "USER.md", HERMES_USER)
    parsed = parse_file(memory)
    assert parsed.format == "hermes"
    assert [(e.line, e.draft.content) for e in parsed.entries if e.draft] == [
        (1, "The staging box is staging.internal; deploys go through the bastion."),
        (3, "Project uses Poetry, not pip.\nRun `poetry install --sync` after switching branches."),
    ]
    data = ["--data-dir", str(tmp_path / "d")]
    assert main([*data, "import", str(memory), str(user), "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [len(r["created"]) for r in reports] == [2, 2]
    assert main([*data, "export", "--project", "global"]) == 0
    memories = [json.loads(line) for line in capsys.readouterr().out.splitlines()[2:]]
    kinds = {m["content"]: m["category"] for m in memories}
    assert kinds["Prefers short answers."] == "preference"
    assert (
        kinds[
            "Project uses Poetry, not pip.\nRun `poetry install --sync` after switching branches."
        ]
        == "knowledge"
    )


def test_a_cline_memory_bank_goes_to_its_project_tagged_by_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    tech = write(repo / "memory-bank" / "techContext.md", CLINE_TECH)
    assert parse_file(tech).format == "cline"
    data = ["--data-dir", str(tmp_path / "d")]
    assert main([*data, "import", str(tech)]) == 0
    capsys.readouterr()
    assert main([*data, "export", "--cwd", str(repo)]) == 0
    memories = [json.loads(line) for line in capsys.readouterr().out.splitlines()[2:]]
    assert {m["content"]: tuple(m["tags"]) for m in memories} == {
        "Python 3.11 with FastAPI": ("tech-context", "stack"),
        "Postgres 16": ("tech-context", "stack"),
    }


def test_claude_auto_memory_topic_files_become_one_memory_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "home" / ".claude" / "projects" / "-srv-app" / "memory"
    topic = write(folder / "tabs-not-spaces.md", AUTO_MEMORY_TOPIC)
    index = write(folder / "MEMORY.md", AUTO_MEMORY_INDEX)
    data = ["--data-dir", str(tmp_path / "d")]
    assert main([*data, "import", str(topic)]) == 1  # the folder does not say the project
    assert "give --cwd DIR or --project ID" in capsys.readouterr().err
    assert main([*data, "import", str(index), str(topic), "--cwd", "/srv/app", "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [r["format"] for r in reports] == ["claude-auto-memory", "claude-auto-memory"]
    assert [len(r["created"]) for r in reports] == [0, 1]
    assert main([*data, "export", "--cwd", "/srv/app"]) == 0
    [memory] = [json.loads(line) for line in capsys.readouterr().out.splitlines()[2:]]
    assert memory["title"] == "The user wants tabs for indentation"
    assert (
        memory["content"] == "Indent with tabs, never spaces.\n**Why:** the team's editor settings."
    )
    assert (memory["category"], memory["tags"]) == (
        "preference",
        ["feedback", "claude-auto-memory"],
    )


def test_unclosed_front_matter_is_refused(tmp_path: Path) -> None:
    topic = write(tmp_path / ".claude" / "projects" / "p" / "memory" / "x.md", "---\nname: x\n")
    with pytest.raises(ImportFailed, match=rf"{topic} line 1: the front matter"):
        parse_file(topic)


@pytest.mark.slow
def test_an_export_read_only_in_part_is_not_an_error(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("ltm-desktop")
    data = ["--data-dir", str(tmp_path / "d")]
    service = open_service(tmp_path / "d", FakeClock())
    try:
        service.import_memories(
            GLOBAL_PROJECT_ID, [MemoryDraft(f"fact {i} " + "x" * 500) for i in range(2_000)], "b"
        )
    finally:
        service.close()
    export = subprocess.Popen(
        [str(script), *data, "export"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert export.stdout is not None
    assert json.loads(export.stdout.readline())["type"] == "header"
    export.stdout.close()  # like `| head -1`
    assert export.wait(timeout=60) == 0
    assert export.stderr is not None
    assert export.stderr.read() == b""
    export.stderr.close()


@pytest.mark.slow
def test_export_to_stdout_is_utf8_under_an_ascii_locale(tmp_path: Path) -> None:
    """Under PYTHONIOENCODING=ascii (or a C locale) the export stopped at the first
    accent with "unexpected UnicodeEncodeError (a bug)"."""
    repo = tmp_path / "café"
    repo.mkdir()
    (repo / "CLAUDE.md").write_text("Réunions à 9 h — café compris\n", encoding="utf-8")
    script = Path(sys.executable).with_name("ltm-desktop")
    data = ["--data-dir", str(tmp_path / "d")]
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([script, *data, *args], capture_output=True, env=env, timeout=60)

    assert run("import", str(repo / "CLAUDE.md")).returncode == 0
    done = run("export", "--cwd", str(repo))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    contents = [r["content"] for r in records if r["type"] == "memory"]
    assert contents == ["Réunions à 9 h — café compris"]
