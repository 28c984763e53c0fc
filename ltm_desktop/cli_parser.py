"""The command line's parser class: argparse's, except for the ``hook`` command.

argparse answers a malformed command line with its usage on stderr and exit 2; for a
hook, exit 2 blocks the agent that ran it. So the hook's parser (made with
``fails_open``) raises HookUsageError instead, and ``parse`` does the same for words
left over after ``hook``; the CLI then answers the agent empty. Every other command
keeps exiting 2 on bad usage.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn


class HookUsageError(Exception):
    """The ``hook`` command line is malformed (the message says how)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser; one made with ``fails_open`` raises HookUsageError on bad usage."""

    def __init__(self, *args: Any, fails_open: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fails_open = fails_open

    def error(self, message: str) -> NoReturn:
        if self.fails_open:
            raise HookUsageError(message)
        super().error(message)


def parse(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """``parser.parse_args(words)``, except that words left over after ``hook`` raise
    HookUsageError too (the top parser is the one that finds them)."""
    args, extra = parser.parse_known_args(words)
    if extra:
        message = f"unrecognized arguments: {' '.join(extra)}"
        if args.command == "hook":
            raise HookUsageError(message)
        parser.error(message)
    return args
