"""What a person curating memories can do beyond single edits (part of MemoryService):
stale review and its counts, and moving or copying memories between scopes."""

from __future__ import annotations

from ltm_desktop.core.stale.review import StaleReview
from ltm_desktop.core.transfer.between_scopes import ScopeTransfers


class Curation(StaleReview, ScopeTransfers):
    """Mixed into MemoryService (one base there for both)."""
