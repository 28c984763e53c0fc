"""The merge writer: asks the ``[extractor]`` endpoint (``extractor.generator``) for the
merged memory of a group and finds the JSON object in its reply.

The reply is untrusted text. Thinking (``<think>``) and fences are cut as the
extractor's reply parser cuts them; the object is looked for at a bounded number of
opening braces in a bounded length of text, so a huge or hostile reply costs little.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ltm_desktop.agent.consolidation.prompt import build_messages
from ltm_desktop.agent.extractor.generator import Generator
from ltm_desktop.agent.extractor.reply import FENCE, without_thinking
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.privacy.secrets import redact
from ltm_desktop.core.records import Memory

MAX_REPLY_CHARS = 200_000  # a merged memory is at most 20,000 characters of content
MAX_ATTEMPTS = 50  # opening braces tried in prose


class MergeReplyError(LtmError):
    """The model's reply holds no JSON object."""


class ModelMergeWriter:
    """``core.consolidation.consolidator.MergeWriter`` over a chat-completions generator."""

    def __init__(self, generator: Generator, max_input_chars: int) -> None:
        self._generator = generator
        self._max_input_chars = max_input_chars

    @property
    def model(self) -> str:
        return self._generator.model

    def write(self, members: Sequence[Memory]) -> object:
        """The parsed JSON of the model's answer. GenerationError (an LtmError) when the
        endpoint gives none; MergeReplyError when it holds no JSON object."""
        reply = self._generator.generate(build_messages(members, self._max_input_chars))
        return parse_merge_reply(reply)


def parse_merge_reply(text: str) -> object:
    """The first JSON object (or array) of the reply: the whole reply, a fenced block, or
    one embedded in prose."""
    text = without_thinking(text).strip()
    if len(text) > MAX_REPLY_CHARS:
        raise MergeReplyError(f"the model's reply is longer than {MAX_REPLY_CHARS:,} characters")
    for candidate in [text, *(match.group(1).strip() for match in FENCE.finditer(text))]:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict | list):
            return value
    decoder = json.JSONDecoder()
    start = text.find("{")
    for _ in range(MAX_ATTEMPTS):
        if start == -1:
            break
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    flat = " ".join(text.split())
    excerpt = repr(redact(flat[:119] + "…" if len(flat) > 120 else flat)) if flat else "(empty)"
    raise MergeReplyError(f"the model's reply holds no JSON object: {excerpt}")
