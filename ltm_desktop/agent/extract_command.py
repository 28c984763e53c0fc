"""``ltm-desktop extract --transcript FILE [--agent NAME] [--cwd DIR] [--session ID]``.

Runs one extraction in this process, on the data dir's database (SQLite serves several
processes; a running app shows the result within a second), and says what came of it.
The pre-compact hook starts it detached when no app or ``serve`` runs
(``agent.extraction_trigger``); a person can run it on any transcript.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import LtmError

AGENT_DIRS = {".claude": "claude-code", ".codex": "codex", ".gemini": "gemini-cli"}


def add_parser(commands: Any, add_command: Any) -> None:
    extract = add_command(
        commands,
        "extract",
        help="extract memories from an agent's transcript with the configured model",
        description="Ask the [extractor] model of the config which durable facts the "
        "transcript holds (its newest part, credentials redacted) and store them: as "
        "proposals for the app's Inbox with review = true, else as unreviewed memories. "
        "The run is recorded either way; a failed one exits 1 with the reason.",
    )
    extract.add_argument(
        "--transcript", required=True, metavar="FILE", help="the transcript (JSONL or JSON)"
    )
    extract.add_argument(
        "--agent", metavar="NAME", help="whose conversation (default: guessed from the path)"
    )
    extract.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project's directory (default: the one the transcript records, else the "
        "working directory)",
    )
    extract.add_argument(
        "--session", metavar="ID", help="the session id (default: the transcript's file name)"
    )


def guess_agent(path: Path) -> str:
    """The agent that wrote the transcript: by its records, else by the home directory
    holding it (``~/.claude/...``)."""
    from ltm_desktop.agent.transcripts import sniff_agent

    sniffed = sniff_agent(path)
    if sniffed is not None:
        return sniffed
    for part in path.parts:
        if part in AGENT_DIRS:
            return AGENT_DIRS[part]
    return "agent"


def cmd_extract(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.extractor.runner import run_extraction
    from ltm_desktop.agent.transcripts import sniff_cwd
    from ltm_desktop.core.inbox.extraction import new_run_id
    from ltm_desktop.core.inbox.proposals import ExtractionRequest, RunStatus
    from ltm_desktop.core.settings.paths import resolve_config_path
    from ltm_desktop.launching import open_service

    transcript = Path(args.transcript).expanduser().absolute()
    if not transcript.is_file():
        raise LtmError(f"the transcript {transcript} is not a readable file")
    opened = open_service(args.data_dir, args.config, database_url=args.database_url)
    for warning in opened.warnings:
        sys.stderr.write(f"ltm-desktop: warning: {warning}\n")
    service = opened.service
    try:
        if not service.settings.extractor_configured:
            raise LtmError(
                "no extractor is configured: set [extractor] base_url and model in "
                f"{resolve_config_path(args.config)}"
            )
        cwd = os.path.abspath(os.path.expanduser(args.cwd or sniff_cwd(transcript) or os.getcwd()))
        request = ExtractionRequest(
            project_id=service.resolve_scope(cwd=cwd, register=True),
            agent=args.agent or guess_agent(transcript),
            session_id=args.session or transcript.stem,
            run_id=new_run_id(service.now()),
            transcript_path=str(transcript),
        )
        run = run_extraction(service, request)
    finally:
        service.close()
    if run.status is RunStatus.FAILED:
        raise LtmError(f"extraction failed: {run.reason} (recorded as {run.id})")
    sys.stdout.write(f"{run.summary()} ({run.id})\n")
    return 0
