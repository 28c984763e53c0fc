"""Memories that read like instructions to the model: flagged until a person approves.

A memory goes into every later session's prompt. One whose text addresses the model
("ignore previous instructions", "you must now...", a fake ``<system>`` tag or chat
template token) is stored, but flagged: it waits in the review inbox as ``unreviewed``
and stays out of MEMORY.md and the prompt section until a person approves it
(``[privacy] flagged_in_precis``). These are patterns, not a classifier: they catch the
common shapes cheaply, and the rendering (``safe_markdown``) contains what they miss.

They match what the model will read, not the characters typed: the comparison form of
``core.folding`` (no zero-width or format characters, Latin look-alikes and full-width
letters as Latin, soft line breaks and emphasis gone). A paraphrase that says the same in
other words is not caught: docs/privacy.md says what this screen does and does not do.
"""

from __future__ import annotations

import re

from ltm_desktop.core.memory_md.block import render_block
from ltm_desktop.core.privacy.folding import readings
from ltm_desktop.core.records import Memory, ReviewState

# Matched against the comparison form (``core.folding``), which is lower case: no
# IGNORECASE, so the regex engine can look for each pattern's first letters directly.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, re.MULTILINE))
    for reason, pattern in (
        (
            "asks to ignore earlier instructions",
            r"(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
            r"earlier|preceding|all|any|your|system)\b[^.\n]{0,20}?\b(?:instructions?|"
            r"prompts?|rules|directions|guidelines|context)\b",
        ),
        (
            "gives the model orders",
            r"\byou (?:must|should|will) now\b|\byou are now\b|\bfrom now on,? you\b"
            r"|\bnew instructions?\s*:|\bact as (?:an? )?(?:unrestricted|jailbroken|dan)\b",
        ),
        (
            "imitates a system or tool message",
            r"<\s*/?\s*(?:system|assistant|tool|function|developer|instructions?)\s*>"
            r"|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?inst\]|<<\s*/?sys\s*>>",
        ),
        (
            "asks for the system prompt or secrets",
            r"\b(?:reveal|print|show|repeat|output)\b[^.\n]{0,30}\b(?:system prompt|"
            r"hidden instructions|api keys?|credentials)\b",
        ),
    )
)

# What every match of _PATTERNS holds, one of these: a form without any (almost every
# text) is read in one pass instead of one per pattern. tests/privacy/test_injection_prefilter.py
# checks it against each pattern.
_ANY_PATTERN = re.compile(
    r"ignore|disregard|forget|override|you |from now on|new instruction|act as |<|\[|"
    r"reveal|print|show|repeat|output"
)


# Read at a line's start, so in the form that keeps lines.
_LINE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "imitates a system or tool message",
        re.compile(
            r"^\s*(?:system|assistant|developer)\s*:"
            # A heading that names a role or instructions and no more (a title is one:
            # ``## Instructions (task)``); "## System architecture" is a note's heading.
            r"|^\s*#{1,6}\s*(?:(?:new|updated|your|the)\s+)?(?:system|assistant|developer|"
            r"instructions?)(?:\s+(?:prompt|message|instructions?|rules))?\s*"
            r"(?:\([a-z]+\))?\s*(?::.*)?$",
            re.MULTILINE,
        ),
    ),
)


def instruction_reason(text: str) -> str | None:
    """Why ``text`` reads like an instruction to the model, or None.

    Matched against both comparison forms (``core.folding``): lines joined as rendered
    (a phrase broken over a line, or a word split by a comment) and lines kept (a fake
    ``System:`` turn at a line's start, an instruction inside an HTML comment), for each
    way the text may be read (``folding.readings``). A joined form holding none of the
    patterns' required words (``_ANY_PATTERN``) is passed over in one search."""
    return _reason(text, prefilter=True)


def _every_pattern_reason(text: str) -> str | None:
    """``instruction_reason`` without the prefilter: each pattern over each form. The
    reference the prefilter is tested and benchmarked against."""
    return _reason(text, prefilter=False)


def _reason(text: str, *, prefilter: bool) -> str | None:
    for folded in readings(text):
        # Within a line, the joined form holds all the lines form does, but a comment's.
        checks = [(_PATTERNS, folded.joined), (_LINE_PATTERNS, folded.lines)]
        if folded.hidden:
            checks.append((_PATTERNS, folded.lines))
        for patterns, form in checks:
            if prefilter and patterns is _PATTERNS and _ANY_PATTERN.search(form) is None:
                continue
            for reason, pattern in patterns:
                if pattern.search(form):
                    return reason
    return None


def flag_reason(memory: Memory) -> str | None:
    """Why a memory waits for a person before going into MEMORY.md, or None: it reads
    like an instruction and no person has approved it since (``review_state``)."""
    if memory.review_state is not ReviewState.UNREVIEWED:
        return None
    return memory_reason(memory)


def memory_reason(memory: Memory) -> str | None:
    """Why ``memory`` reads like an instruction, screened as MEMORY.md and the prompt show
    it (``core.memory_block``): its title is a heading over its text there."""
    return instruction_reason(render_block(memory))


def is_flagged(memory: Memory) -> bool:
    return flag_reason(memory) is not None
