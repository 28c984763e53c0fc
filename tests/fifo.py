"""Calling code that may wait on a FIFO (the code before a fix did) without a hung test."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path


def call_beside_fifo(call: Callable[[], object], fifo: Path, other_end: int) -> tuple[bool, object]:
    """(whether ``call`` was still waiting after 5 s, what it returned or raised).

    A call still waiting is let go by opening ``fifo``'s other end (``os.O_RDONLY`` or
    ``os.O_WRONLY``), non-blocking, and closing it again, until the call ends.
    """
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test to judge
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=5)
    waited = not outcome
    for _ in range(100):
        if not thread.is_alive():
            break
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, other_end | os.O_NONBLOCK))
        thread.join(timeout=0.1)
    return waited, outcome[0] if outcome else None
