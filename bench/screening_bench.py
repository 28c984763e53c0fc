"""Screening benchmark: what the secret scan and the instruction flagger cost per text.

Run on demand (not part of the test suite):

    .venv/bin/python bench/screening_bench.py [--memories 3000] [--rounds 5]

Every write screens its title, content, tags and files. The texts here are those of
``bench.corpus.generate`` (titles, contents, tags), and the same texts with a credential
written, split or encoded into one in ten. Each figure is printed next to its baseline,
measured in the same run on the same texts, alternating: ``find_secrets`` (the prefilter
of ``core.secret_gates``, then the patterns it lets through) against
``_find_every_pattern`` (every pattern over every text and view); ``instruction_reason``
against every pattern over every form. The findings of both are compared too.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import generate  # noqa: E402
from ltm_desktop.core.privacy.injection import (  # noqa: E402
    _every_pattern_reason,
    instruction_reason,
)
from ltm_desktop.core.privacy.secrets import _find_every_pattern, find_secrets  # noqa: E402

SECRETS = (
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    'password = "correct-horse-battery"',
    "postgres://admin:hunter2secret@db.internal:5432/app",
    "sk-ant-api03-" + "Ab1_" * 22 + "xyAA",
)


def corpus(count: int) -> tuple[list[str], list[str]]:
    """(the corpus' texts, the same with a credential in one in ten, some disguised)."""
    texts = [t for m in generate(count, seed=21) for t in (m.title, m.content, *m.tags)]
    with_secrets = list(texts)
    for n, i in enumerate(range(0, len(texts), 10)):
        secret = SECRETS[n % len(SECRETS)]
        if n % 3 == 1:
            secret = secret[:9] + "\n  " + secret[9:]
        elif n % 3 == 2:
            secret = base64.b64encode(secret.encode()).decode()
        with_secrets[i] = f"{texts[i]} {secret}"
    return texts, with_secrets


def seconds(call: Callable[[str], object], texts: list[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        call(text)
    return time.perf_counter() - start


def compare(
    label: str,
    ours: Callable[[str], object],
    base: Callable[[str], object],
    texts: list[str],
    rounds: int,
) -> None:
    assert [ours(t) for t in texts] == [base(t) for t in texts], f"{label}: findings differ"
    times: dict[str, list[float]] = {"ours": [], "base": []}
    for _ in range(rounds):
        times["ours"].append(seconds(ours, texts))
        times["base"].append(seconds(base, texts))
    mine, theirs = statistics.median(times["ours"]), statistics.median(times["base"])
    per = 1e6 / len(texts)
    print(
        f"{label:<42} {mine * per:8.1f} us/text   baseline {theirs * per:8.1f} us/text"
        f"   x{theirs / mine:5.2f} faster"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts, with_secrets = corpus(args.memories)
    find_secrets("warm up: the patterns are read on first use")
    print(f"{len(texts):,} texts, {sum(map(len, texts)) / len(texts):.0f} characters each")
    compare("find_secrets vs every pattern", find_secrets, _find_every_pattern, texts, args.rounds)
    compare(
        "  with a secret in 1 of 10 texts",
        find_secrets,
        _find_every_pattern,
        with_secrets,
        args.rounds,
    )
    contents = [t for t in texts if len(t) > 120]
    compare(
        "  contents only (>120 characters)",
        find_secrets,
        _find_every_pattern,
        contents,
        args.rounds,
    )
    compare(
        "instruction_reason vs every pattern",
        instruction_reason,
        _every_pattern_reason,
        texts,
        args.rounds,
    )


if __name__ == "__main__":
    main()
