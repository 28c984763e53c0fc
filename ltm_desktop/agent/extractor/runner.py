"""One extraction, start to end, failing open: whatever goes wrong is recorded as a failed
run with its reason and logged, never raised to whoever asked.

The only exception is a store that cannot record anything (``StorageError``): then it is
logged, and the caller (the worker, the command) carries on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ltm_desktop.agent.extractor.generator import Generator, generator_from
from ltm_desktop.agent.extractor.prompt import bounded_conversation, build_messages
from ltm_desktop.agent.extractor.reply import ReplyError, parse_reply
from ltm_desktop.agent.transcripts import Message, read_conversation
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.proposals import ExtractionRequest, ExtractionRun
from ltm_desktop.core.records import Provenance
from ltm_desktop.core.seams import ExtractorOff
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)

READ_BYTES = 32 * 1024 * 1024  # the end of a longer transcript is what matters


class Nothing(Exception):  # noqa: N818 - an outcome, not an error
    """There is no conversation to extract from (the reason is the message)."""


def load_turns(service: MemoryService, request: ExtractionRequest) -> tuple[Message, ...]:
    """The conversation to extract from: the transcript read as the request's agent writes
    it (as the hooks read it), an observation's narrative, or the request's text."""
    if request.transcript_path is not None:
        path = Path(request.transcript_path)
        try:
            transcript = read_conversation(path, request.agent, tail_bytes=READ_BYTES)
        except OSError as exc:
            raise Nothing(f"cannot read the transcript {path}: {exc.strerror or exc}") from None
        if transcript.broken_lines:
            log.info("%s: %d broken lines skipped", request.source, transcript.broken_lines)
        messages = transcript.messages
    elif request.observation_id is not None:
        messages = (Message("user", service.observations.get(request.observation_id).narrative),)
    else:
        messages = (Message("user", request.text or ""),)
    turns = tuple(message for message in messages if message.text.strip())
    if not turns:
        raise Nothing(f"no conversation text in {request.source}")
    return turns


def run_extraction(
    service: MemoryService, request: ExtractionRequest, generator: Generator | None = None
) -> ExtractionRun:
    """Extract, store (proposals or unreviewed memories, as configured) and record.

    Raises:
        ExtractorOff: no extractor is configured (nothing was read, nothing recorded).
        StorageError: the run could not even be recorded.
    """
    settings = service.settings
    started = service.now()
    model = generator.model if generator is not None else settings.extractor_model
    provenance = Provenance(
        run_id=request.run_id,
        agent=request.agent,
        session_id=request.session_id,
        source=request.source,
        model=model,
        extracted_at=started,
    )
    try:
        generator = generator or generator_from(settings)
        turns = load_turns(service, request)
        conversation = bounded_conversation(turns, settings.extractor_max_input_chars)
        reply = generator.generate(build_messages(conversation, settings.extractor_max_input_chars))
        entries = parse_reply(reply)
    except ExtractorOff:
        raise
    except (ReplyError, Nothing, LtmError) as exc:
        return _failed(service, request, provenance, str(exc), started)
    except Exception as exc:  # a bug: still recorded, the traceback in the log
        log.exception("extraction %s failed unexpectedly", request.run_id)
        return _failed(service, request, provenance, f"unexpected {type(exc).__name__}", started)
    return service.inbox.store_extraction(
        request.project_id,
        entries,
        provenance,
        review=settings.extractor_review,
        started_at=started,
    )


def _failed(
    service: MemoryService,
    request: ExtractionRequest,
    provenance: Provenance,
    reason: str,
    started: float,
) -> ExtractionRun:
    log.info("extraction from %s failed: %s", request.source, reason)  # the run records it
    return service.inbox.record_failed_extraction(
        request.project_id, provenance, reason, started_at=started
    )
