"""A damaged audit anchor (``ltm.sqlite.audit-head.json``) is a problem reported by
``status``, ``health`` and ``verify``, never a crash: the app opens and serves, and the
damaged file is left for a person to look at (it is evidence, or it is noise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.launching import open_service
from ltm_desktop.store.audit import anchor as chain_anchor
from tests.conftest import ServiceFactory
from tests.console import ltm

HEX = "ab" * 32
DAMAGED = {
    "not json": b"{seq: 3",
    "not utf-8": b"\xff\xfe\x00{",
    "empty": b"",
    "a list": b"[1, 2]",
    "a string": b'"seq"',
    "no hash": b'{"seq": 1}',
    "seq is true": b'{"seq": true, "hash": "' + HEX.encode() + b'"}',
    "seq is a float": b'{"seq": 1.0, "hash": "' + HEX.encode() + b'"}',
    "seq is text": b'{"seq": "1", "hash": "' + HEX.encode() + b'"}',
    "seq negative": b'{"seq": -1, "hash": "' + HEX.encode() + b'"}',
    "seq 2**63": b'{"seq": 9223372036854775808, "hash": "' + HEX.encode() + b'"}',
    "seq 10**400": b'{"seq": 1' + b"0" * 400 + b', "hash": "' + HEX.encode() + b'"}',
    "hash not hex": b'{"seq": 1, "hash": "' + b"z" * 64 + b'"}',
    "hash too short": b'{"seq": 1, "hash": "abcd"}',
    "hash a number": b'{"seq": 1, "hash": 12}',
}


def _data_dir(make_service: ServiceFactory, tmp_path: Path) -> Path:
    data = tmp_path / "data"
    service = make_service(data)
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("deploys go out on Fridays"), "t")
    service.close()
    return data


def _opens_and_reports(data: Path) -> None:
    opened = open_service(data)
    try:
        problems = opened.service.database.health().problems
        assert any("audit anchor" in p or "cannot be read" in p for p in problems), problems
        opened.service.add(GLOBAL_PROJECT_ID, MemoryDraft("still serves writes"), "t")
    finally:
        opened.service.close()
    status = ltm(data, "status")
    assert "Traceback" not in status.stderr, status.stderr
    assert "unexpected" not in status.stderr, status.stderr
    assert "audit-head.json" in status.stdout, status.stdout + status.stderr
    done = ltm(data, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unexpected" not in done.stderr
    assert "audit-head.json" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_anchor_is_reported_and_the_app_still_opens(
    make_service: ServiceFactory, tmp_path: Path, content: bytes
) -> None:
    data = _data_dir(make_service, tmp_path)
    anchor = chain_anchor.anchor_path(data / "ltm.sqlite")
    anchor.write_bytes(content)
    _opens_and_reports(data)
    assert anchor.read_bytes() == content  # left as found


def test_a_directory_in_place_of_the_anchor_is_reported(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = _data_dir(make_service, tmp_path)
    anchor = chain_anchor.anchor_path(data / "ltm.sqlite")
    anchor.unlink()
    anchor.mkdir()
    _opens_and_reports(data)
    assert anchor.is_dir()


@pytest.mark.parametrize("seq", [0, 1, 2**63 - 1])
def test_read_anchor_takes_every_sequence_sqlite_can_hold(tmp_path: Path, seq: int) -> None:
    path = tmp_path / "a.json"
    path.write_text(f'{{"seq": {seq}, "hash": "{HEX}"}}', encoding="utf-8")
    assert chain_anchor.read_anchor(path) == chain_anchor.Head(seq, HEX)
