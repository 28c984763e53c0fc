"""The service's privacy side: erasing (``erasing_service``), verifying (``verifying``)
and finding credentials already stored (``secret_scan``)."""

from __future__ import annotations

from collections.abc import Callable

from ltm_desktop.core import secret_scan
from ltm_desktop.core.erasing_service import ErasingService
from ltm_desktop.core.records import ListQuery, Memory, Project
from ltm_desktop.core.verifying import VerifyingService


class PrivacyService(ErasingService, VerifyingService):
    """Mixed into MemoryService, which provides the attributes below."""

    projects: Callable[[], list[tuple[Project, int]]]
    list_memories: Callable[[str, ListQuery], list[Memory]]

    def find_stored_secrets(self) -> list[secret_scan.SecretHit]:
        """Every stored memory (trash included) holding a credential, scope by scope.
        It reads every memory: run it off the UI thread."""
        scopes = [project.project_id for project, _ in self.projects()]
        return list(secret_scan.scan(secret_scan.every_memory(scopes, self.list_memories)))
