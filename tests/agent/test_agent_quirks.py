"""Each agent's quirks, from the formats the real CLIs write (fixtures captured from
Claude Code 2.1.197, Codex 0.171.0 and Gemini CLI 0.61.0 by tests/e2e).

What agents wrap around the user's words never passes for the user's words: not in a
hook's prompt, not in a transcript's user messages (so not in observations, the turn
count's prompt, the relevance search or the extractor's input). Gemini's PreCompress
before every request is no compaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_desktop.agent import transcripts
from ltm_desktop.agent.hooks.payload import parse
from ltm_desktop.agent.injected import strip_injected
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from tests.agent.hook_process import hook_log, payload, run_hook

MEMORY_MD = "## Long-Term Memory\n\n" + "\n".join(
    f"- fact {n}: deploys need VPN" for n in range(400)
)
GEMINI_PROMPT = f"<hook_context>{MEMORY_MD}</hook_context>\n\nFix the authentication bug"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GEMINI_PROMPT, "Fix the authentication bug"),
        (  # the user-prompt hook's context, appended as a part of its own
            "Fix it\n<hook_context>Possibly relevant, from long-term memory:\n- x</hook_context>",
            "Fix it",
        ),
        (  # only whole blocks: an unclosed tag may be the person's own words
            "<hook_context> is what Gemini adds; why?",
            "<hook_context> is what Gemini adds; why?",
        ),
        (  # a tag quoted inside the person's words stays: only leading and trailing blocks go
            "Why does Claude Code put this in my transcript?\n<system-reminder>\nwhat is it?",
            "Why does Claude Code put this in my transcript?\n<system-reminder>\nwhat is it?",
        ),
        (
            'Fix the parser for\n<session_context id="1">x</session_context>\nand add a test',
            'Fix the parser for\n<session_context id="1">x</session_context>\nand add a test',
        ),
        (
            "My template:\n    <command-name>build</command-name>\nwhy is it empty?",
            "My template:\n    <command-name>build</command-name>\nwhy is it empty?",
        ),
        ("<session_context>\nThis is the Gemini CLI.\n</session_context>\nHi", "Hi"),
        ("<environment_context>\n  <cwd>/src/shop</cwd>\n</environment_context>", ""),
        ("<user_instructions>\nUse tabs.\n</user_instructions>", ""),
        (
            "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
            "<command-args></command-args>",
            "",
        ),
        ("<local-command-stdout>Compacted. ctrl+o to see the summary</local-command-stdout>", ""),
        (
            "Why does <hook_context> show up in my logs?",
            "Why does <hook_context> show up in my logs?",
        ),
        ("  plain words  ", "plain words"),
    ],
)
def test_strip_injected(text: str, expected: str) -> None:
    assert strip_injected(text) == expected


@pytest.mark.parametrize("event", ["user-prompt", "stop"])
def test_a_gemini_prompt_is_the_users_words(event: str) -> None:
    raw = json.dumps({"session_id": "s", "cwd": "/src/app", "prompt": GEMINI_PROMPT}).encode()
    assert parse("gemini", event, raw).prompt == "Fix the authentication bug"


def test_a_prompt_of_nothing_but_context_is_no_prompt() -> None:
    raw = json.dumps({"cwd": "/src/app", "prompt": f"<hook_context>{MEMORY_MD}</hook_context>"})
    assert parse("gemini", "user-prompt", raw.encode()).prompt is None


def write_lines(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_gemini_transcript_user_messages_lose_the_hook_context(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "session.jsonl",
        [
            {"type": "user", "content": [{"text": GEMINI_PROMPT}]},
            {"type": "gemini", "content": "Fixed: the expiry was in seconds."},
        ],
    )
    messages = transcripts.read_conversation(path, "gemini").messages
    assert transcripts.last_exchange(messages) == (
        "Fix the authentication bug",
        "Fixed: the expiry was in seconds.",
    )


def test_claude_code_commands_errors_and_summaries_are_not_the_conversation(
    tmp_path: Path,
) -> None:
    def user(content: object, **flags: object) -> dict[str, object]:
        return {"type": "user", "message": {"role": "user", "content": content}, **flags}

    def assistant(text: str, **flags: object) -> dict[str, object]:
        content = [{"type": "text", "text": text}]
        return {"type": "assistant", "message": {"role": "assistant", "content": content}, **flags}

    path = write_lines(
        tmp_path / "claude.jsonl",
        [
            user("Add a retry to the payment client"),
            assistant("Added a retry with backoff in pay.py."),
            user(
                "This session is being continued from a previous conversation…",
                isCompactSummary=True,
            ),
            user(
                "<command-name>/compact</command-name>\n<command-message>compact</command-message>"
            ),
            user("<local-command-stdout>Compacted.</local-command-stdout>"),
            user("hello again"),
            assistant("Not logged in · Please run /login", isApiErrorMessage=True),
        ],
    )
    messages = transcripts.read_conversation(path, "claude-code").messages
    assert [(m.role, m.text) for m in messages] == [
        ("user", "Add a retry to the payment client"),
        ("assistant", "Added a retry with backoff in pay.py."),
        ("user", "hello again"),
    ]
    assert transcripts.last_exchange(messages) == ("hello again", None)


def test_codex_environment_is_not_the_users_text(tmp_path: Path) -> None:
    def item(role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        content = [{"type": kind, "text": text}]
        return {
            "type": "response_item",
            "payload": {"type": "message", "role": role, "content": content},
        }

    path = write_lines(
        tmp_path / "rollout.jsonl",
        [
            {"type": "session_meta", "payload": {"id": "x", "cwd": "/src/shop"}},
            item("user", "<environment_context>\n  <cwd>/src/shop</cwd>\n</environment_context>"),
            item("user", "Why does the checkout test fail on CI?"),
            item("assistant", "It raced the payment mock."),
        ],
    )
    messages = transcripts.read_conversation(path, "codex").messages
    assert transcripts.last_exchange(messages) == (
        "Why does the checkout test fail on CI?",
        "It raced the payment mock.",
    )


def test_a_gemini_turn_is_observed_under_the_users_prompt(
    service: MemoryService, tmp_path: Path
) -> None:
    """The reproducer: with MEMORY.md injected, every observation was titled
    ``<hook_context>## Long-Term Memory``."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    project = service.resolve_scope(cwd=str(cwd), register=True)
    service.add(project, MemoryDraft("Deploys need the VPN", importance=9), "gui")
    data = json.loads(payload("gemini", "stop", cwd))
    data["prompt"] = GEMINI_PROMPT
    done = run_hook("gemini", "stop", json.dumps(data).encode(), service.paths.data_dir)
    assert done.returncode == 0, done.stderr
    [observation] = service.observations.page(project)
    assert observation.title.startswith("Fix the authentication bug")
    assert "hook_context" not in observation.narrative
    assert "Long-Term Memory" not in observation.narrative


FIXTURES = Path(__file__).parent / "fixtures"


def test_a_codex_0_171_rollout_reads_as_the_conversation() -> None:
    """0.171 writes ``item_completed`` events instead of ``user_message``; its own
    environment and our session-start context are user and developer items."""
    path = FIXTURES / "codex-0.171-rollout.jsonl"
    messages = transcripts.read_conversation(path, "codex").messages
    assert [(m.role, m.text) for m in messages] == [
        ("user", "Remember how this project deploys, then look it up again."),
        ("assistant", "Noted: deploys go through make release."),
    ]
    assert transcripts.sniff_cwd(path) == "/home/dev/src/shop"


def test_a_gemini_0_61_session_reads_as_the_conversation() -> None:
    path = FIXTURES / "gemini-0.61-session.jsonl"
    messages = transcripts.read_conversation(path, "gemini").messages
    assert transcripts.last_exchange(messages) == (
        "Remember how this project deploys, then look it up again.",
        "Noted: deploys go through make release.",
    )
    assert all("hook_context" not in m.text and "session_context" not in m.text for m in messages)
    assert transcripts.gemini_prompt_tokens(path) == 100


def gemini_session(path: Path, prompt_tokens: int) -> Path:
    return write_lines(
        path,
        [
            {"type": "user", "content": [{"text": "Refactor the billing module"}]},
            {
                "type": "gemini",
                "content": "Split billing.py into three modules.",
                "tokens": {"input": prompt_tokens, "output": 20},
            },
        ],
    )


@pytest.mark.parametrize(
    ("trigger", "prompt_tokens", "recorded"),
    [
        ("auto", 100, False),  # what Gemini sends before every model request
        ("auto", 524_287, False),
        ("auto", 524_288, True),  # past half the window: Gemini compresses
        ("manual", 100, True),  # /compress
    ],
)
def test_gemini_precompress_is_recorded_only_when_it_compresses(
    trigger: str, prompt_tokens: int, recorded: bool, service: MemoryService, tmp_path: Path
) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    project = service.resolve_scope(cwd=str(cwd), register=True)
    session = gemini_session(tmp_path / "session.jsonl", prompt_tokens)
    data = json.loads(payload("gemini", "pre-compact", cwd, session))
    data["trigger"] = trigger
    done = run_hook("gemini", "pre-compact", json.dumps(data).encode(), service.paths.data_dir)
    assert done.returncode == 0, done.stderr
    observations = service.observations.page(project)
    assert [o.kind.value for o in observations] == (["pre_compact"] if recorded else [])


def test_claude_mcp_list_ending_a_session_it_never_wrote_is_no_warning(
    service: MemoryService, tmp_path: Path
) -> None:
    """``claude mcp list`` runs the SessionEnd hooks with a transcript that does not
    exist: every listing left a warning in the hook log."""
    missing = tmp_path / "never-written.jsonl"
    stdin = payload("claude-code", "session-end", tmp_path, missing)
    done = run_hook("claude-code", "session-end", stdin, service.paths.data_dir)
    assert done.returncode == 0, done.stderr
    log = hook_log()
    assert "no transcript at" in log
    assert " WARNING " not in log


@pytest.mark.parametrize(
    ("settings", "recorded"),
    [
        ('{\n  // compress early\n  "model": {"compressionThreshold": 0.2}\n}\n', True),
        ('{"model": {"compressionThreshold": 0.5}}', False),
        ('{"model": {"compressionThreshold": "soon"}}', False),  # not a share: the default
        ("not json at all", False),
    ],
)
def test_gemini_precompress_follows_the_projects_compression_threshold(
    settings: str, recorded: bool, service: MemoryService, tmp_path: Path
) -> None:
    """Gemini compresses past ``model.compressionThreshold`` of its window (its help
    suggests 0.2 or 0.3): 300,000 tokens is past 0.2, not past the default 0.5."""
    cwd = tmp_path / "project"
    (cwd / ".gemini").mkdir(parents=True)
    (cwd / ".gemini" / "settings.json").write_text(settings)
    project = service.resolve_scope(cwd=str(cwd), register=True)
    session = gemini_session(tmp_path / "session.jsonl", 300_000)
    stdin = payload("gemini", "pre-compact", cwd, session)
    done = run_hook("gemini", "pre-compact", stdin, service.paths.data_dir)
    assert done.returncode == 0, done.stderr
    kinds = [o.kind.value for o in service.observations.page(project)]
    assert kinds == (["pre_compact"] if recorded else [])
