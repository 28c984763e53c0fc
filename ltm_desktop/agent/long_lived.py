"""The agent side's workers on a service a process opens: the extraction queue (the
window's and the API's ``extract`` requests run on it) and, for a long-lived process
(the app, ``serve``) with ``[consolidate] interval_hours`` and an extractor set, the
periodic consolidation. ``launching.open_launch`` calls this as its ``workers``."""

from __future__ import annotations

from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService


def agent_workers(service: MemoryService, embedder: Embedder, background: bool) -> None:
    """Install the extraction worker; start the periodic consolidation when configured."""
    service.extraction = ExtractionWorker(service)
    settings = service.settings
    if background and settings.consolidate_interval_hours and settings.extractor_configured:
        from ltm_desktop.agent.consolidation.periodic import PeriodicConsolidation

        hours = settings.consolidate_interval_hours
        service.consolidation = periodic = PeriodicConsolidation(service, embedder, hours * 3600)
        periodic.start()
