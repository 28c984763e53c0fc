"""Building a consolidator for a service from its settings (the command and the periodic
run share it): the ``[extractor]`` model writes the merges, ``[consolidate] max_groups``
bounds a run."""

from __future__ import annotations

from dataclasses import replace

from ltm_desktop.agent.consolidation.writer import ModelMergeWriter
from ltm_desktop.agent.extractor.generator import generator_from
from ltm_desktop.core.consolidation.consolidator import Consolidator
from ltm_desktop.core.consolidation.grouping import Limits
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService


def consolidator_for(
    service: MemoryService,
    embedder: Embedder,
    *,
    writer: bool = True,
    max_groups: int | None = None,
) -> Consolidator:
    """``writer``: with the configured model (ExtractorOff when none is configured, or
    GenerationError when its key's variable is unset); without it, only finding groups.
    ``max_groups`` overrides ``[consolidate] max_groups``."""
    settings = service.settings
    merge_writer = None
    if writer:
        merge_writer = ModelMergeWriter(
            generator_from(settings), settings.extractor_max_input_chars
        )
    limits = replace(Limits(), max_groups=max_groups or settings.consolidate_max_groups)
    return Consolidator(service.inbox, embedder, merge_writer, limits)
