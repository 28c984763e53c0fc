"""What the window prepares at its first start: its size, and each scope's first search
by meaning before anyone types it."""

from __future__ import annotations

import logging

from PySide6.QtCore import QSize
from PySide6.QtGui import QScreen

from ltm_desktop.gui.context import AppContext

log = logging.getLogger(__name__)


def warm_search(ctx: AppContext, project_id: str) -> None:
    """Load the model and read the scope's vectors on a worker when a scope opens, so that
    the first query typed does not wait for them (about 0.8 s at 30,000 memories)."""
    service = ctx.service
    ctx.runner.run(
        lambda: service.search.warm(project_id),
        lambda _result: None,
        lambda exc: log.info("preparing search failed: %s", exc),  # the search will say
        key="warm-search",
    )


def first_size(screen: QScreen | None) -> QSize:
    """1440 x 860, or less on a smaller screen: the whole window shows at first start."""
    wanted = QSize(1440, 860)
    if screen is None:
        return wanted
    room = screen.availableGeometry().size()
    return wanted.boundedTo(QSize(room.width() * 95 // 100, room.height() * 95 // 100))
