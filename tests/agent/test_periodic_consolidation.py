"""The periodic consolidation of the app and ``serve``: off by default, installed by the
composition root when ``[consolidate] interval_hours`` and an extractor are set, each run
failing open, and stopped with the service."""

from __future__ import annotations

import json
from pathlib import Path

from ltm_desktop.agent.consolidation.periodic import PeriodicConsolidation
from ltm_desktop.agent.long_lived import agent_workers
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.seams import NoBackgroundTask
from ltm_desktop.core.service import MemoryService
from ltm_desktop.embedding.static import StaticEmbedder
from ltm_desktop.launching import open_service
from tests.agent.fake_model import FakeModel, refused_url
from tests.conftest import ServiceFactory

PAIR = (
    "Use pytest for all tests in this repo; run them with `pytest -q`.",
    "Tests are written with pytest and run via pytest -q.",
)
MERGED = {"title": "pytest", "content": "All tests use pytest; run them with pytest -q."}


def seeded(make_service: ServiceFactory, fake: FakeModel, **settings: object) -> MemoryService:
    service = make_service(settings=fake.settings(**settings), embedder=StaticEmbedder())
    project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    for text in PAIR:
        service.add(project, MemoryDraft(content=text), "gui")
    return service


def test_a_run_consolidates_each_scope_once(
    make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    service = seeded(make_service, fake_model)
    fake_model.behaviour.reply = json.dumps(MERGED)
    periodic = PeriodicConsolidation(service, StaticEmbedder(), 3600)
    [report] = periodic.run_once()
    assert len(report.proposals) == 1
    assert [r.proposals for r in periodic.run_once()] == [()]  # waiting: not proposed again
    assert len(fake_model.requests()) == 1


def test_a_run_with_the_model_down_writes_nothing_and_raises_nothing(
    make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    service = seeded(make_service, fake_model, extractor_base_url=refused_url())
    assert PeriodicConsolidation(service, StaticEmbedder(), 3600).run_once() == []
    assert service.inbox.entries() == []


def write_config(path: Path, fake: FakeModel, hours: int) -> Path:
    path.write_text(
        f'[extractor]\nbase_url = "{fake.base_url}"\nmodel = "m"\n\n'
        f"[consolidate]\ninterval_hours = {hours}\n",
        encoding="utf-8",
    )
    return path


def test_off_by_default_and_installed_when_configured(
    tmp_path: Path, fake_model: FakeModel
) -> None:
    off = open_service(
        tmp_path / "a",
        write_config(tmp_path / "a.toml", fake_model, 0),
        background=True,
        workers=agent_workers,
    )
    try:
        assert isinstance(off.service.consolidation, NoBackgroundTask)
    finally:
        off.service.close()
    on = open_service(
        tmp_path / "b",
        write_config(tmp_path / "b.toml", fake_model, 24),
        background=True,
        workers=agent_workers,
    )
    try:
        assert isinstance(on.service.consolidation, PeriodicConsolidation)
    finally:
        on.service.close()  # stops its thread (the test fails on a thread left running)
    assert fake_model.requests() == []  # the first run waits one interval


def test_the_consolidate_keys_are_checked() -> None:
    from ltm_desktop.core.settings.config import parse_settings

    settings, warnings = parse_settings(
        {"consolidate": {"interval_hours": -1, "max_groups": 5}}, "config.toml"
    )
    assert (settings.consolidate_interval_hours, settings.consolidate_max_groups) == (0, 5)
    assert warnings == [
        "config.toml: [consolidate] interval_hours must be between 0 and 8,760; using the default 0"
    ]
