"""The service's privacy side: the secrets rule its writes apply (``screening``), erasing
(``erasing_service``) and verifying (``verifying``)."""

from __future__ import annotations

import functools

from ltm_desktop.core.history.verifying import VerifyingService
from ltm_desktop.core.privacy.erasing_service import ErasingService
from ltm_desktop.core.privacy.screening import Screen, SecretsMode
from ltm_desktop.core.settings.config import Settings


class PrivacyService(ErasingService, VerifyingService):
    """Mixed into MemoryService, which provides ``settings``."""

    settings: Settings

    @functools.cached_property
    def screen(self) -> Screen:
        """``[privacy] secrets`` as the writes apply it."""
        return Screen(SecretsMode(self.settings.privacy_secrets))
