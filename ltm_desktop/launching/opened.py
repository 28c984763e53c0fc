"""What opening a data dir gives a process: its service with the Launch it came from, and
who the process writes as."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.actors import WhoAmI
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.launch import Launch


@dataclass
class OpenedService:
    service: MemoryService
    launch: Launch
    purged_at_start: int = 0

    @property
    def settings(self) -> Settings:
        return self.launch.settings

    @property
    def config_path(self) -> Path:
        return self.launch.config_path

    @property
    def warnings(self) -> list[str]:
        """What was wrong with the config file (a bad one never stops a process)."""
        return list(self.launch.config_problems)


def launch_identity(launch: Launch) -> WhoAmI:
    """Who the process writes as (``core.actors``): ``[people] name`` or the login name,
    at the machine of the data dir's ``machine.json``; resolved on the first write."""
    return WhoAmI.of(launch.settings.people_name, launch.paths.machine_path)
