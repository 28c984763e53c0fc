"""Guards the PySide6 version pin: signal delivery must not leak singleton references.

PySide6 6.12.0 on Python 3.11 decrements None's refcount on every slot call and
True's on every emit; a window with timers then aborts the interpreter within
the hour. pyproject.toml keeps such a version out; this test proves it.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class Emitter(QObject):
    fired = Signal(int)


def test_signal_delivery_keeps_singleton_refcounts(qapp: object) -> None:
    emitter = Emitter()
    received: list[int] = []
    emitter.fired.connect(received.append)
    emitter.fired.connect(lambda value: None)
    before = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    for i in range(5_000):
        emitter.fired.emit(i)
    after = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    assert len(received) == 5_000
    assert [a - b for a, b in zip(after, before, strict=True)] == [0, 0, 0]
