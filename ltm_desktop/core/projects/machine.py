"""This machine's name, recorded beside each path of a project (``paths``)."""

from __future__ import annotations

import os
import socket

ENV_MACHINE = "LTM_DESKTOP_MACHINE"  # overrides the host name (two data dirs on one host)
MAX_MACHINE_CHARS = 200


def machine_name() -> str:
    """``$LTM_DESKTOP_MACHINE``, else the host name, lower-cased ("unknown" if none)."""
    name = os.environ.get(ENV_MACHINE, "").strip() or socket.gethostname().strip()
    return (name.lower() or "unknown")[:MAX_MACHINE_CHARS]
