"""detect-secrets' patterns, from the library or from a copy of them cached on disk.

Importing detect-secrets costs about 0.1 s (it imports ``requests`` for its plugins'
verification, which is never used here), and a hook without the app running pays it on
every agent turn that records something. What the checks need of the library is data:
each regex plugin's ``denylist`` and the keyword plugin's regexes with their groups. So
they are read from the library once, written to the user's cache directory, and read
back from there (compiling them takes a few milliseconds). The copy is named after the
installed library's files (each plugin module's size and time), so an upgraded or
changed detect-secrets is read afresh; a copy that cannot be read is ignored.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.core.files.atomic_files import replace_text

log = logging.getLogger(__name__)

FORMAT = 2  # of the cached copy; a change here names a new file
# Plugins whose findings are guesses, not credentials (see core/privacy/secrets.py).
SKIPPED_TYPES = frozenset(
    {"Base64 High Entropy String", "Hex High Entropy String", "Public IP (ipv4)"}
)
KEYWORD_FILENAME = "text"  # what the keyword plugin is told it reads (no code file type)


@dataclass(frozen=True, slots=True)
class Patterns:
    """``kinds``: each regex plugin's type and its denylist patterns; ``keyword``: the
    keyword plugin's regexes for ``KEYWORD_FILENAME`` (quotes required), each with the
    group holding the value; ``unquoted``: its regexes for config files (``password =
    value``), which prose and ``.env`` lines are written like too."""

    kinds: tuple[tuple[str, re.Pattern[str]], ...]
    keyword: tuple[tuple[re.Pattern[str], int], ...]
    unquoted: tuple[tuple[re.Pattern[str], int], ...]


def _from_library() -> Patterns:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.keyword import (
        CONFIG_DENYLIST_REGEX_TO_GROUP,
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        REGEX_BY_FILETYPE,
    )
    from detect_secrets.util.filetype import determine_file_type

    kinds: list[tuple[str, re.Pattern[str]]] = []
    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    for kind, plugin in sorted(plugins.items()):
        if kind in SKIPPED_TYPES or not issubclass(plugin, RegexBasedDetector):
            continue
        denylist: Any = getattr(plugin, "denylist", ())  # a class attribute in each plugin
        kinds += [(kind, pattern) for pattern in denylist]
    # what KeywordDetector.analyze_line picks for a file of this name
    keyword: Any = REGEX_BY_FILETYPE.get(
        determine_file_type(KEYWORD_FILENAME), QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
    )
    unquoted: Any = CONFIG_DENYLIST_REGEX_TO_GROUP
    return Patterns(
        tuple(kinds),
        tuple((regex, int(group)) for regex, group in keyword.items()),
        tuple((regex, int(group)) for regex, group in unquoted.items()),
    )


def _fingerprint() -> str | None:
    """The installed detect-secrets, by its plugin modules' names, sizes and times."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or spec.origin is None:
        return None
    package = Path(spec.origin).parent
    files = [package / "__init__.py", package / "util" / "filetype.py"]
    files += sorted((package / "plugins").glob("*.py"))
    digest = hashlib.sha256(f"{FORMAT} {package} {sorted(SKIPPED_TYPES)}".encode())
    for file in files:
        status = file.stat()
        digest.update(f"{file.name} {status.st_size} {status.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _cache_file() -> Path | None:
    import platformdirs

    try:
        fingerprint = _fingerprint()
    except OSError:
        return None
    if fingerprint is None:
        return None
    folder = Path(platformdirs.user_cache_dir("ltm-desktop", appauthor=False))
    return folder / f"secret-patterns-{fingerprint}.json"


def _to_json(patterns: Patterns) -> str:
    return json.dumps(
        {
            "format": FORMAT,
            "kinds": [[kind, p.pattern, p.flags] for kind, p in patterns.kinds],
            "keyword": [[p.pattern, p.flags, group] for p, group in patterns.keyword],
            "unquoted": [[p.pattern, p.flags, group] for p, group in patterns.unquoted],
        }
    )


def _from_json(text: str) -> Patterns:
    data = json.loads(text)
    if data.get("format") != FORMAT or not all(data[k] for k in ("kinds", "keyword", "unquoted")):
        raise ValueError("not a copy of this format, or an empty one")

    def regexes(key: str) -> tuple[tuple[re.Pattern[str], int], ...]:
        return tuple((re.compile(str(p), int(flags)), int(group)) for p, flags, group in data[key])

    return Patterns(
        tuple((str(kind), re.compile(str(p), int(flags))) for kind, p, flags in data["kinds"]),
        regexes("keyword"),
        regexes("unquoted"),
    )


def load_patterns() -> Patterns:
    """The patterns: from the cached copy if there is a good one, else from the library
    (and then cached for the next process, if the cache directory can be written)."""
    path = _cache_file()
    if path is not None:
        try:
            return _from_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, KeyError, AttributeError, re.error) as exc:
            log.info("secret patterns: the cached copy %s is not usable (%s)", path, exc)
    patterns = _from_library()
    if path is not None:
        try:
            os.makedirs(path.parent, mode=0o700, exist_ok=True)
            replace_text(path, _to_json(patterns), prefix=".secret-patterns-")
        except OSError as exc:
            log.info("secret patterns: cannot cache them in %s (%s)", path.parent, exc)
    return patterns
