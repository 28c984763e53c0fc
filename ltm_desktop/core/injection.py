"""Memories that read like instructions to the model: flagged until a person approves.

A memory goes into every later session's prompt. One whose text addresses the model
("ignore previous instructions", "you must now...", a fake ``<system>`` tag or chat
template token) is stored, but flagged: it waits in the review inbox as ``unreviewed``
and stays out of MEMORY.md and the prompt section until a person approves it
(``[privacy] flagged_in_precis``). These are patterns, not a classifier: they catch the
common shapes cheaply, and the rendering (``safe_markdown``) contains what they miss.
"""

from __future__ import annotations

import re

from ltm_desktop.core.records import Memory, ReviewState

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, re.IGNORECASE | re.MULTILINE))
    for reason, pattern in (
        (
            "asks to ignore earlier instructions",
            r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
            r"earlier|preceding|all|any|your|system)\b[^.\n]{0,20}?\b(?:instructions?|"
            r"prompts?|rules|directions|guidelines|context)\b",
        ),
        (
            "gives the model orders",
            r"\byou (?:must|should|will) now\b|\byou are now\b|\bfrom now on,? you\b"
            r"|\bnew instructions?\s*:|\bact as (?:an? )?(?:unrestricted|jailbroken|DAN)\b",
        ),
        (
            "imitates a system or tool message",
            r"<\s*/?\s*(?:system|assistant|tool|function|developer|instructions?)\s*>"
            r"|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<<\s*/?SYS\s*>>"
            r"|^\s*(?:system|assistant|developer)\s*:|^\s*#{1,6}\s*(?:system|instructions?)\b",
        ),
        (
            "asks for the system prompt or secrets",
            r"\b(?:reveal|print|show|repeat|output)\b[^.\n]{0,30}\b(?:system prompt|"
            r"hidden instructions|api keys?|credentials)\b",
        ),
    )
)


def instruction_reason(text: str) -> str | None:
    """Why ``text`` reads like an instruction to the model, or None."""
    for reason, pattern in _PATTERNS:
        if pattern.search(text):
            return reason
    return None


def flag_reason(memory: Memory) -> str | None:
    """Why a memory waits for a person before going into MEMORY.md, or None: it reads
    like an instruction and no person has approved it since (``review_state``)."""
    if memory.review_state is not ReviewState.UNREVIEWED:
        return None
    return instruction_reason(f"{memory.title}\n{memory.content}")


def is_flagged(memory: Memory) -> bool:
    return flag_reason(memory) is not None
