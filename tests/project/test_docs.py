"""The public API contract is written down: every method has a section and an example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ltm_desktop.api.methods import METHODS
from ltm_desktop.api.protocol import ERROR_NAMES

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^### `([a-z_.]+)`\s*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_is_documented_with_an_example(method: str) -> None:
    documented = sections()
    assert method in documented, f"docs/protocol.md has no '### `{method}`' section"
    example = re.compile(r'"method": ?"' + re.escape(method) + '"')
    assert example.search(documented[method]), f"the {method} section has no example request"


def test_no_undocumented_extras() -> None:
    assert set(sections()) - set(METHODS) == set()


@pytest.mark.parametrize("code", sorted(ERROR_NAMES))
def test_every_error_code_is_documented(code: int) -> None:
    assert str(code) in DOC.read_text(encoding="utf-8")
