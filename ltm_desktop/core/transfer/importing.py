"""Reading files to import: our JSONL and Markdown exports, and the memory files people
already keep for their agents (CLAUDE.md, AGENTS.md, GEMINI.md and any Markdown).

Parsing reads the whole file and checks every entry before anything is written: a bad
line stops the import of that file with its name and line number (ImportFailed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.files.regular_files import NotRegularFile, open_regular
from ltm_desktop.core.records import Category, MemoryDraft
from ltm_desktop.core.transfer import jsonl_format as transfer_format
from ltm_desktop.core.transfer.agent_markdown import parse_agent_markdown
from ltm_desktop.core.transfer.format_names import IMPORT_FORMATS, MARKER
from ltm_desktop.core.transfer.parsed import Entry, ImportFailed, ParsedFile, fail

MAX_FILE_BYTES = 256 * 1024 * 1024
AGENT_FILES = {"CLAUDE.md": "claude-md", "AGENTS.md": "agents-md", "GEMINI.md": "gemini-md"}
FORMATS = IMPORT_FORMATS


def detect_format(path: Path, text: str) -> str:
    """``jsonl`` for our export, ``markdown`` for our Markdown export, the agent file's
    format for CLAUDE.md / AGENTS.md / GEMINI.md, else ``claude-md`` (any Markdown)."""
    first = text.lstrip()[:200]
    if path.suffix.lower() in {".jsonl", ".ndjson"} or first.startswith("{"):
        return "jsonl"
    if MARKER in text:
        return "markdown"
    from ltm_desktop.core.transfer.import_formats import detect_agent_format

    return detect_agent_format(path, text) or AGENT_FILES.get(path.name, "claude-md")


def read_text(path: Path) -> str:
    """The file's text; ImportFailed (naming the file) if it is not a regular file, too big
    or not UTF-8."""
    data = _read_bounded(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportFailed(f"{path} line {line}: not UTF-8 text") from None


def _read_bounded(path: Path) -> bytes:
    """At most ``MAX_FILE_BYTES`` of a regular file. Anything else is refused before it is
    read (``open_regular``): a FIFO would wait for a writer, /dev/zero never ends. The read
    itself is bounded too, as a file may hold more than its stated size (/proc's say 0)."""
    try:
        handle = os.fdopen(open_regular(path), "rb")
    except IsADirectoryError:
        raise ImportFailed(
            f"{path}: not a regular file (a directory); import reads files"
        ) from None
    except NotRegularFile as exc:
        raise ImportFailed(f"{path}: not a regular file ({exc.kind}); import reads files") from None
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise ImportFailed(
                f"{path}: {size:,} bytes is more than an import takes "
                f"({MAX_FILE_BYTES:,}); split the file"
            )
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ImportFailed(
            f"{path}: holds more than an import takes ({MAX_FILE_BYTES:,} bytes); split the file"
        )
    return data


def parse_file(path: Path, fmt: str = "auto") -> ParsedFile:
    text = read_text(path)
    chosen = detect_format(path, text) if fmt == "auto" else fmt
    parsed = ParsedFile(str(path), chosen)
    if chosen == "jsonl":
        _parse_jsonl(parsed, text)
    elif chosen == "markdown":
        _parse_export_markdown(parsed, text)
    elif chosen in AGENT_FILES.values():
        parse_agent_markdown(parsed, text)
    elif chosen in FORMATS:
        from ltm_desktop.core.transfer.import_formats import parse_agent_format

        parse_agent_format(parsed, text)
    else:
        raise ImportFailed(f"{path}: unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return parsed


def _parse_jsonl(parsed: ParsedFile, text: str) -> None:
    seen_header = False
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        values = _json_line(parsed, number, raw)
        if not isinstance(values, dict):
            raise fail(parsed, number, "each line must be a JSON object")
        try:
            if not seen_header:
                transfer_format.check_header(values)
                seen_header = True
            elif values.get("type") == "project":
                parsed.projects.append(transfer_format.project_from_record(values))
            elif values.get("type") == "memory":
                record = transfer_format.memory_from_record(values)
                parsed.entries.append(Entry(number, record=record, project_id=record.project_id))
            else:
                raise transfer_format.RecordError(f"unknown line type {values.get('type')!r}")
        except (transfer_format.RecordError, InvalidInput) as exc:
            raise fail(parsed, number, str(exc)) from None
    if not seen_header:
        raise ImportFailed(f"{parsed.path}: empty (no {transfer_format.FORMAT_NAME} header)")


def _json_line(parsed: ParsedFile, number: int, raw: str) -> Any:
    """The line's JSON value; ImportFailed for what JSON cannot hold in Python too: a
    number of more than 4,300 digits, arrays or objects nested thousands deep."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise fail(parsed, number, f"invalid JSON ({exc.msg})") from None
    except ValueError:  # int() refuses the digits (sys.get_int_max_str_digits)
        raise fail(parsed, number, "invalid JSON (a number with too many digits)") from None
    except RecursionError:
        raise fail(parsed, number, "invalid JSON (nested too deeply)") from None


def _parse_export_markdown(parsed: ParsedFile, text: str) -> None:
    """Our Markdown export: a memory is a ``###`` heading (its title), its text, and the
    marker line with its metadata; everything between a marker and the next ``###``
    (the scope and category headings, the readable metadata line) is not memory text."""
    title: str | None = None
    start = 0
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.startswith(MARKER):
            if title is None:
                raise fail(parsed, number, "metadata comment without a ### title before it")
            parsed.entries.append(_export_entry(parsed, start, title, body, raw, number))
            title, body = None, []
        elif title is None:
            if raw.startswith("### "):
                title, start = raw[4:].strip(), number
        else:
            body.append(raw)
    if title is not None:
        raise fail(parsed, start, "a ### memory with no metadata comment after it")


def _export_entry(
    parsed: ParsedFile, start: int, title: str, body: list[str], marker: str, number: int
) -> Entry:
    try:
        meta = json.loads(marker[len(MARKER) :].removesuffix("-->").strip())
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):
        raise fail(parsed, number, "the metadata comment is not valid JSON") from None
    try:
        draft = rules.validate_draft(
            MemoryDraft(
                content="\n".join(body),
                title=title,
                category=meta.get("category", Category.KNOWLEDGE),
                importance=meta.get("importance", 5),
                tags=meta.get("tags", []),
                ttl_days=meta.get("ttl_days"),
            )
        )
        project = meta.get("project_id")
        project_id = None if project is None else rules.check_project_id(project)
    except InvalidInput as exc:
        raise fail(parsed, start, str(exc)) from None
    return Entry(start, draft=draft, project_id=project_id)
