"""What each hook event does with the memory; the same for every agent.

A handler gets the parsed payload and returns the context to add for the agent's model
(or None). Errors are raised, not absorbed: the runner is the one place that turns them
into an empty result and a log line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ltm_desktop.agent.access import AccessError, MemoryAccess
from ltm_desktop.agent.hooks import changes
from ltm_desktop.agent.hooks.events import (
    GEMINI,
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    STOP,
    USER_PROMPT,
)
from ltm_desktop.agent.hooks.payload import HookInput
from ltm_desktop.agent.hooks.session_state import SessionState, SessionStates
from ltm_desktop.agent.nudge import Nudge
from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.protocol import METHOD_NOT_FOUND
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.observations import PRE_COMPACT_LIMIT, USER_TEXT_LIMIT, clip
from ltm_desktop.core.settings.config import Settings

if TYPE_CHECKING:  # read only by the events that look at the transcript
    from ltm_desktop.agent import transcripts

log = logging.getLogger("ltm_desktop.hooks")

SESSION_START_LIMIT = 8_000  # characters of context at session start
ANSWER_MARGIN = 0.15  # seconds kept before the deadline to write the answer
TRUNCATED = "\n…(truncated)"


@dataclass
class HookRun:
    """One event: its payload, the settings, and the memory (opened on first use).

    ``memory`` is the API's typed calls over the access ``open_memory`` opens."""

    hook: HookInput
    settings: Settings
    open_memory: Callable[[], MemoryAccess]
    states: SessionStates | None = None
    data_dir: str | None = None  # as given on the command line (None: the default)
    config: str | None = None
    deadline: float | None = None  # time.monotonic() by which the agent must have its answer
    # run once the answer has reached the agent (what it was told is then marked told)
    after_answer: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _access: MemoryAccess | None = field(default=None, repr=False)
    _memory: ApiCalls | None = field(default=None, repr=False)

    @property
    def memory(self) -> ApiCalls:
        if self._memory is None:
            access = self.open_memory()
            log.info("memory: %s", access.describe())
            self._access, self._memory = access, ApiCalls(access)
        return self._memory

    def time_left(self) -> float:
        """Seconds until the deadline (unbounded: none set)."""
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def memory_getter(self) -> Callable[[], ApiCalls]:
        """The memory, opened by whoever asks first (a worker thread may)."""
        return lambda: self.memory

    def abandon(self) -> None:
        """Leave the memory unclosed: a worker that timed out may still be using it."""
        self._access = self._memory = None

    def close(self) -> None:
        if self._access is not None:
            access, self._access, self._memory = self._access, None, None
            access.close()

    def state(self) -> SessionState:
        if self.states is None:
            return SessionState()
        return self.states.load(self.hook.session_id)

    def save_state(self, state: SessionState) -> None:
        if self.states is not None:
            self.states.save(self.hook.session_id, state)

    def messages(self) -> list[transcripts.Message]:
        """The transcript's messages; none when there is no transcript or it cannot be read."""
        path = self.hook.transcript
        if path is None:
            return []
        from ltm_desktop.agent import transcripts

        try:
            return list(transcripts.read_conversation(path, self.hook.agent).messages)
        except FileNotFoundError:  # e.g. `claude mcp list` ends a session it never wrote
            log.info("no transcript at %s (a session without a conversation)", path)
            return []
        except OSError as exc:
            log.warning("transcript %s cannot be read: %s", path, exc.strerror or exc)
            return []


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a line end and marked."""
    if len(text) <= limit:
        return text
    room = limit - len(TRUNCATED)
    head = text[:room]
    newline = head.rfind("\n")
    if newline > room // 2:
        head = head[:newline]
    return head.rstrip() + TRUNCATED


def session_start(run: HookRun) -> str | None:
    """The project's ``## Long-Term Memory`` section (MEMORY.md included), cut to fit;
    the session is told the changes after this point on its next prompts."""
    if run.states is not None:
        pruned = run.states.prune()
        if pruned:
            log.info("pruned %d stale session state files", pruned)
    try:  # first: a change made while the section is read is told on the next prompt
        seen: int | None = changes.head(run.memory, run.hook.cwd)
    except (LtmError, OSError) as exc:  # e.g. an older server: the memory still goes out
        log.warning("no change tracking for this session: %s", exc)
        seen = None
    text = run.memory.prompt_section(cwd=run.hook.cwd)
    log.info("session start: %d characters of memory for %s", len(text), run.hook.cwd)
    state = run.state()
    state.seen_seq = seen
    run.after_answer.append(lambda: run.save_state(state))  # only if the memory went out
    return cut(text, SESSION_START_LIMIT) if text.strip() else None


def user_prompt(run: HookRun) -> str | None:
    """The nudge every N turns, the memory's changes since the session was last told,
    and the few memories that match the prompt well."""
    state = run.state()
    state.turns += 1
    state.stopped = False
    state.last_prompt = clip(run.hook.prompt or "", USER_TEXT_LIMIT)
    run.save_state(state)
    parts = []
    nudge = Nudge.from_settings(run.settings)
    if nudge.due(state.turns):
        parts.append(nudge.text.strip())
        log.info("turn %d: nudged", state.turns)
    try:
        changed = changes.since_last_time(run.memory, run.hook.cwd, state)
        # told once the answer is out, never twice; if it never goes out, told next turn
        run.after_answer.append(lambda: run.save_state(state))
    except AccessError as exc:
        if exc.code != METHOD_NOT_FOUND:
            raise
        log.info("memory changes: the server is older than this hook (%s)", exc)
        changed = None
    except (LtmError, OSError) as exc:  # told next turn instead
        log.warning("memory changes skipped: %s", exc)
        changed = None
    if changed:
        parts.append(changed)
    from ltm_desktop.agent.hooks.relevance import BUDGET, relevant_memories

    try:
        relevant = relevant_memories(
            run.memory_getter(),
            run.hook.cwd,
            run.hook.prompt or "",
            on_timeout=run.abandon,
            include_flagged=run.settings.privacy_flagged_in_precis,
            budget=min(BUDGET, run.time_left() - ANSWER_MARGIN),
        )
    except (LtmError, OSError) as exc:  # the nudge needs no memory: it still goes out
        log.warning("relevant memories skipped: %s", exc)
        relevant = None
    if relevant:
        parts.append(relevant)
    return "\n\n".join(parts) or None


def pre_compact(run: HookRun) -> str | None:
    """A ``pre_compact`` observation from the transcript's tail; the extractor's turn."""
    if not _compacting(run):
        return None
    messages = run.messages()
    if run.hook.transcript is not None:
        _hand_to_extractor(run)
    if not run.settings.observes("pre_compact"):  # before reading the transcript
        log.info("pre_compact observations are turned off in the config")
        return None
    if not messages:
        log.info("pre-compact: no transcript to record")
        return None
    from ltm_desktop.agent import transcripts

    text = transcripts.tail_text(messages, PRE_COMPACT_LIMIT)
    _observe(run, "pre_compact", messages_text=text)
    return None


def _compacting(run: HookRun) -> bool:
    """Whether the agent is about to compact. Gemini CLI fires PreCompress ("auto")
    before every model request, and only then checks whether the prompt is past its
    compression threshold (``gemini_settings``): such an event below the threshold is no
    compaction (it made an observation and an extraction per request)."""
    hook = run.hook
    if hook.agent != GEMINI or hook.trigger == "manual" or hook.transcript is None:
        return True
    from ltm_desktop.agent import transcripts

    try:
        tokens = transcripts.gemini_prompt_tokens(hook.transcript)
    except OSError as exc:
        log.warning("transcript %s cannot be read: %s", hook.transcript, exc.strerror or exc)
        return False
    from ltm_desktop.agent.hooks.gemini_settings import compression_tokens

    threshold = compression_tokens(hook.cwd)
    if tokens is None or tokens < threshold:
        log.info(
            "pre-compact: Gemini's prompt is %s tokens of %d, not compressed yet", tokens, threshold
        )
        return False
    return True


def _hand_to_extractor(run: HookRun) -> None:
    """The transcript goes to the extractor, in the background (the app or ``serve`` when
    one serves the data dir, else a detached ``ltm-desktop extract``); returns at once and
    never raises. Nothing happens unless an ``[extractor]`` endpoint is configured."""
    from ltm_desktop.agent.extraction_trigger import request_extraction

    request_extraction(
        transcript=run.hook.transcript,
        agent=run.hook.agent,
        cwd=run.hook.cwd,
        session_id=run.hook.session_id,
        data_dir=run.data_dir,
        config=run.config,
        settings=run.settings,
    )


def stop(run: HookRun) -> str | None:
    """An ``agent_end`` observation from the last user and assistant messages."""
    _record_turn_end(run)
    state = run.state()
    state.stopped = True
    run.save_state(state)
    return None


def session_end(run: HookRun) -> str | None:
    """As ``stop`` when no stop was seen since the last prompt; forgets the session."""
    state = run.state()
    try:
        if not state.stopped:
            _record_turn_end(run, state)
    finally:
        if run.states is not None:
            run.states.remove(run.hook.session_id)
    return None


def _record_turn_end(run: HookRun, state: SessionState | None = None) -> None:
    if not run.settings.observes("agent_end"):
        log.info("agent_end observations are turned off in the config")
        return
    user, answer = run.hook.prompt, run.hook.assistant_text
    if user is None or answer is None:
        from ltm_desktop.agent import transcripts

        from_transcript = transcripts.last_exchange(run.messages())
        user = user or from_transcript[0]
        answer = answer or from_transcript[1]
    if user is None:
        user = (state or run.state()).last_prompt or None  # remembered by user-prompt
    if user is None and answer is None:
        log.info("%s: no exchange to record", run.hook.event)
        return
    _observe(run, "agent_end", user_text=user, assistant_text=answer)


def _observe(
    run: HookRun,
    kind: str,
    *,
    user_text: str | None = None,
    assistant_text: str | None = None,
    messages_text: str | None = None,
) -> None:
    result = run.memory.observe_result(
        kind,
        run.hook.session_id,
        cwd=run.hook.cwd,
        user_text=user_text,
        assistant_text=assistant_text,
        messages_text=messages_text,
    )
    observation = result.get("observation")
    if observation:
        log.info("recorded %s observation %s", kind, observation["id"])
    else:
        log.info("%s not recorded: %s", kind, result.get("skipped", "skipped"))


HANDLERS: dict[str, Callable[[HookRun], str | None]] = {
    SESSION_START: session_start,
    USER_PROMPT: user_prompt,
    PRE_COMPACT: pre_compact,
    STOP: stop,
    SESSION_END: session_end,
}
