"""The embedders: the static model from its package, and failing open to words."""

from __future__ import annotations

import logging
import struct
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.core.config import Settings
from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.seams import NoEmbedder
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.embedding.remote import RemoteEmbedder
from ltm_desktop.embedding.static import StaticEmbedder, load_wordllama
from tests.conftest import ServiceFactory, make_draft


def unit(vector: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(vector) // 4}f", vector))


def test_the_static_model_loads_from_its_package_and_embeds_meaning() -> None:
    embedder = StaticEmbedder()
    a, b, c = (
        unit(v)
        for v in embedder.embed(
            ["Crashes are reported to Sentry", "where do program failures get logged", "tabs"]
        )
    )
    assert len(a) == 256
    assert sum(x * x for x in a) == pytest.approx(1.0, abs=1e-4)
    near = sum(x * y for x, y in zip(a, b, strict=True))
    far = sum(x * y for x, y in zip(a, c, strict=True))
    assert near > far
    assert embedder.problem() is None


def test_loading_wordllama_leaves_the_root_logger_alone() -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    load_wordllama()
    assert (list(root.handlers), root.level) == before


def missing_package() -> Any:
    raise ModuleNotFoundError("No module named 'wordllama'")


def corrupt_weights(tmp: Path) -> Any:
    def load() -> Any:
        from safetensors.numpy import load_file

        bad = tmp / "l2_supercat_256.safetensors"
        bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
        return load_file(str(bad))

    return load


@pytest.mark.parametrize("broken", ["missing package", "corrupt weights"])
@pytest.mark.parametrize("backend", ["sqlite", "memory"], indirect=True)
def test_a_model_that_cannot_load_falls_back_to_words_with_one_log_line_and_a_note(
    make_service: ServiceFactory,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    broken: str,
) -> None:
    loader = missing_package if broken == "missing package" else corrupt_weights(tmp_path)
    service = make_service(tmp_path / "data", embedder=StaticEmbedder(loader))
    project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    with caplog.at_level(logging.WARNING):
        memory = service.add(project, make_draft("Crashes are reported to Sentry"), "agent").memory
        for _ in range(3):
            hits = service.search(project, "Sentry crashes", reinforce=True)
            assert [h.memory.id for h in hits] == [memory.id]
        assert service.recall(project, "Sentry")[0].memory == service.get(memory.id)
    lines = [r for r in caplog.records if r.name == "ltm_desktop.embedding.static"]
    assert len(lines) == 1
    assert "semantic search is off" in lines[0].getMessage()
    assert "searching by words only" in lines[0].getMessage()
    status = service.index_status()
    assert status.problem == lines[0].getMessage()


def test_the_factory_follows_the_setting() -> None:
    assert isinstance(make_embedder(Settings(search_embedder="none")), NoEmbedder)
    assert isinstance(make_embedder(Settings()), StaticEmbedder)  # the default
    remote = make_embedder(Settings(search_embedder="openai", search_model="nomic-embed-text"))
    assert isinstance(remote, RemoteEmbedder)
    assert remote.model == "openai:nomic-embed-text@http://127.0.0.1:11434/v1"


def test_an_endpoint_that_is_down_fails_open_and_waits_before_trying_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    embedder = RemoteEmbedder("http://127.0.0.1:9/v1", "m")  # the discard port: refused
    with caplog.at_level(logging.WARNING), pytest.raises(EmbedderUnavailable):
        embedder.embed(["x"])
    with pytest.raises(EmbedderUnavailable):
        embedder.embed(["y"])  # within the cool-down: not even tried
    assert len([r for r in caplog.records if "semantic search is off" in r.getMessage()]) == 1
    assert embedder.problem() is not None
