"""Guards the PySide6 version pin: signal delivery must not leak singleton references.

PySide6 6.12.0 on Python 3.11 decrements None's refcount on every slot call and
True's on every emit; a window with timers then aborts the interpreter within
the hour. pyproject.toml keeps such a version out; this test proves it.

The counts are taken in a Python process of their own, where nothing but the emits
runs, with the garbage collector held off: in the test process any other thread
(pytest-xdist's, which talks to the controller) moved True's and False's counts by one
whenever it held a flag at that moment, and failed the test one run in a few.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

EMITS = """
import gc, json, sys
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication


class Emitter(QObject):
    fired = Signal(int)


app = QApplication([])
emitter = Emitter()
received = []
emitter.fired.connect(received.append)
emitter.fired.connect(lambda value: None)
gc.collect()  # nor may the collector free, meanwhile, some garbage that holds them
gc.disable()
before = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
for i in range(5_000):
    emitter.fired.emit(i)
after = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
gc.enable()
print(json.dumps([len(received), [a - b for a, b in zip(after, before, strict=True)]]))
"""


def test_signal_delivery_keeps_singleton_refcounts() -> None:
    done = subprocess.run(
        [sys.executable, "-c", EMITS],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    received, moved = json.loads(done.stdout)
    assert received == 5_000
    assert moved == [0, 0, 0]
