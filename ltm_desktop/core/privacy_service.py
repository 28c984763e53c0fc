"""The service's privacy side: erasing (``erasing_service``) and verifying (``verifying``)."""

from __future__ import annotations

from ltm_desktop.core.erasing_service import ErasingService
from ltm_desktop.core.verifying import VerifyingService


class PrivacyService(ErasingService, VerifyingService):
    """Mixed into MemoryService."""
