"""Growth benchmark: the inputs that were once quadratic, timed at two sizes.

Run on demand (not part of the test suite; the tests only say each input is handled
and does not hang):

    .venv/bin/python bench/scale/growth_bench.py [--size 2000] [--factor 10]

Each input of ``bench/pathological.py`` is timed at ``size`` and at ``factor`` times
that (the fastest of three runs each: a shared machine's noise only ever adds time).
The baseline is measured in the same run on the same texts: ``str.count`` of one
character, which is linear by construction. A linear parser grows about as the
baseline does (``factor``); a quadratic one ``factor`` squared. An input whose growth
exceeds ``LIMIT`` times ``factor`` is flagged, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pathological import REPLIES, SECRET_SCANS, Shape  # noqa: E402
from ltm_desktop.agent.extractor.reply import ReplyError, parse_reply  # noqa: E402
from ltm_desktop.core.privacy.secrets import find_secrets  # noqa: E402

LIMIT = 2.5
"""Growth allowed over linear: 10x the input in up to 25x the time (quadratic: 100x)."""


def fastest(call: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def parse(reply: str) -> None:
    try:
        parse_reply(reply)
    except ReplyError:
        pass


def growth(
    make: Shape, call: Callable[[str], object], size: int, factor: int
) -> tuple[float, float, float]:
    """(seconds at ``size``, at ``size * factor``, the baseline's growth)."""
    small, large = make(size), make(size * factor)
    ours = fastest(lambda: call(small)), fastest(lambda: call(large))
    base = fastest(lambda: small.count("a")), fastest(lambda: large.count("a"))
    return ours[0], ours[1], base[1] / max(base[0], 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000)
    parser.add_argument("--factor", type=int, default=10)
    args = parser.parse_args()
    cases: list[tuple[str, Shape, Callable[[str], object]]] = [
        *((f"parse_reply: {name}", make, parse) for name, make in REPLIES.items()),
        *((f"find_secrets: {name}", make, find_secrets) for name, make in SECRET_SCANS.items()),
    ]
    print(
        f"size {args.size} then x{args.factor}; linear grows ~x{args.factor}, quadratic "
        f"~x{args.factor**2}; flagged past x{LIMIT * args.factor:g}"
    )
    print(f"{'input':<52} {'small':>9} {'large':>9} {'growth':>8} {'baseline':>9}")
    flagged = []
    for label, make, call in cases:
        small, large, base = growth(make, call, args.size, args.factor)
        grew = large / max(small, 1e-6)
        mark = "  <- grows faster than linear" if grew > LIMIT * args.factor else ""
        if mark:
            flagged.append(label)
        print(
            f"{label:<52} {small * 1e3:7.2f}ms {large * 1e3:7.2f}ms {grew:7.1f}x {base:8.1f}x{mark}"
        )
    print(f"{len(flagged)} of {len(cases)} flagged")
    return 1 if flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
