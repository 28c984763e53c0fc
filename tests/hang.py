"""A guard against hanging, not a timing: functional tests say *that* something ends.

How fast it ends is a benchmark's question (``bench/scale/growth_bench.py`` for the inputs
that were once quadratic, ``bench/http_bench.py`` for stopping the server). Here the
limit is generous enough that a loaded shared machine never reaches it, and small
enough that what it guards against (a read that never stops, a regex that backtracks
over the whole text, a stop that waits for a peer) does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

HANG_SECONDS = 30.0
"""What "does not hang" means: every guarded call takes well under a second here."""


def finishes(call: Callable[[], T], within: float = HANG_SECONDS) -> T:
    """``call()``'s result, or a failed test if it is still running after ``within`` s.

    The call runs in a daemon thread, so a call that hangs fails the test instead of
    holding the whole run; its exception, if any, is raised here.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            failure.append(exc)

    thread = threading.Thread(target=run, name="finishes", daemon=True)
    thread.start()
    thread.join(within)
    if thread.is_alive():
        raise AssertionError(f"still running after {within:g} s: it hangs")
    if failure:
        raise failure[0]
    return outcome[0]
