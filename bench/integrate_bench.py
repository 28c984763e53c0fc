"""``integrate claude-code`` on a large ``~/.claude.json``: plan, diff, apply, uninstall.

Run on demand (not part of the test suite):

    .venv/bin/python bench/integrate_bench.py [--megabytes 18] [--runs 3]

Claude Code keeps each project's prompt history in ``~/.claude.json`` (18 MB is real); the
whole cycle is timed against ``json.loads`` + ``json.dumps`` of the same file in the same
run (the least any editor of it pays), as seconds and seconds per MB. Before session 10
it took about 0.6 s per MB (12.9 s for 18.9 MB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltm_desktop.agent.integrate import apply, plan  # noqa: E402
from tests.agent.integrate.test_integrate_large import COMMAND, claude_state  # noqa: E402


def cycle(home: Path) -> float:
    start = time.perf_counter()
    planned = plan("claude-code", command=COMMAND, home=home)
    planned.diff()
    apply(planned)
    apply(plan("claude-code", uninstall=True, command=COMMAND, home=home))
    return time.perf_counter() - start


def baseline(text: str) -> float:
    start = time.perf_counter()
    json.dumps(json.loads(text), indent=2)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=int, default=18)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    state = claude_state(args.megabytes)
    size = len(state) / 1_000_000
    ours, floor = [], []
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        (home / ".claude").mkdir(parents=True)
        for _ in range(args.runs):
            (home / ".claude.json").write_text(state)
            for backup in home.glob(".claude.json.ltm-desktop-*"):
                backup.unlink()
            ours.append(cycle(home))
            floor.append(baseline(state))
    p50, base = statistics.median(ours), statistics.median(floor)
    print(f"~/.claude.json of {size:.1f} MB, {args.runs} runs")
    print(f"  plan + diff + apply + uninstall  p50 {p50:6.2f} s   {p50 / size:6.3f} s per MB")
    print(f"  json.loads + dumps (floor)       p50 {base:6.2f} s   x{p50 / base:.2f} of it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
