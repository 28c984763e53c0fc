"""Look-alike letters read as the Latin ones they imitate (Unicode TR39 confusables).

A Cyrillic ``І`` (U+0406) or Greek ``ο`` renders as a Latin ``I`` or ``o``, and a model
reads "Іgnore previous instructions" as the instruction it looks like. A non-ASCII
character is read as its compatibility form (NFKC) when that is ASCII: full-width ``ｍ``
is ``m``, mathematical bold ``𝐈`` is ``I``. Otherwise the mapping is Unicode's
``confusables.txt`` (TR39), as the ``confusable-homoglyphs`` package ships it: a
character that the table lists as a confusable of ASCII text is replaced by that text. Only non-ASCII characters are replaced: ``0``, ``1`` and ``m`` stay
themselves (TR39's skeleton would make them ``O``, ``l`` and ``rn``). TR39 writes the
look-alikes of ``I`` and ``l`` alike as ``l``; a capital letter among them (Cyrillic
``І``, Greek ``Ι``) is read as the capital ``I`` it stands for in a word.

The package reads 900 KB of JSON when imported (about 20 ms), so it is imported on the
first text holding a character not seen before that NFKC does not make ASCII, never for
ASCII text: a hook rendering English memories does not pay for it.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

_table: dict[int, str] = {}  # code point -> the ASCII text it imitates
_seen: set[str] = set()  # characters looked up, confusable or not
_lock = threading.Lock()


def latin(text: str) -> str:
    """``text`` with each non-ASCII look-alike of ASCII text replaced by that text."""
    if text.isascii():
        return text
    unseen = {c for c in text if not c.isascii()} - _seen
    if unseen:
        _learn(unseen)
    return text.translate(_table)


def _learn(chars: Iterable[str]) -> None:
    """Look ``chars`` up in the confusables table, once per process."""
    with _lock:
        unseen = sorted(set(chars) - _seen)
        if not unseen:
            return
        others = []
        for char in unseen:
            compatible = unicodedata.normalize("NFKC", char)
            if compatible.isascii():
                _table[ord(char)] = compatible
            else:
                others.append(char)
        if others:
            for char, prototype in _prototypes("".join(others)):
                _table[ord(char)] = prototype
        _seen.update(unseen)


def _prototypes(chars: str) -> Iterable[tuple[str, str]]:
    """(character, the ASCII text it imitates) for each confusable one of ``chars``.

    The package lists, for each character, what it can be confused with; for a character
    that TR39 maps to a prototype, that is the prototype alone."""
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    found: Any = confusables.is_confusable(chars, greedy=True, preferred_aliases=[])
    for entry in found or ():
        targets = [str(h["c"]) for h in entry["homoglyphs"]]
        ascii_targets = [t for t in targets if t.isascii() and t.isprintable() and t.strip()]
        if ascii_targets:
            char, target = str(entry["character"]), ascii_targets[0]
            if char.isalpha():  # a letter with a hook is a letter: TR39 writes Ƭ as 'T
                target = "".join(c for c in target if c.isalnum()) or target
            yield char, "I" if target == "l" and char.isupper() else target
