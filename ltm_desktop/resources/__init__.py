"""Files the app needs at run time: its icon, desktop entry and AppStream metainfo.

They are package data, read through ``importlib.resources`` so that the same code
works from a checkout, an installed wheel and a PyInstaller bundle. One reverse-DNS
id names them all, and it is what the GUI passes to ``setDesktopFileName()``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

APP_ID = "io.github.ltm_desktop.ltm_desktop"
DESKTOP_ENTRY = f"{APP_ID}.desktop"
METAINFO = f"{APP_ID}.metainfo.xml"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICON_THEME = "icons/hicolor"  # laid out like a freedesktop icon theme, ready to copy


def resource(relative: str) -> Traversable:
    """The packaged file at ``relative`` (a '/'-separated path under this package)."""
    node = resources.files(__name__)
    for part in relative.split("/"):
        node = node / part
    return node


def icon_png_path(size: int) -> str:
    """Where the ``size`` x ``size`` PNG lives, relative to this package."""
    return f"{ICON_THEME}/{size}x{size}/apps/{APP_ID}.png"


def icon_svg_path() -> str:
    return f"{ICON_THEME}/scalable/apps/{APP_ID}.svg"


def icon_pngs() -> dict[int, bytes]:
    """Every PNG size of the application icon, by pixel size."""
    return {size: resource(icon_png_path(size)).read_bytes() for size in ICON_SIZES}
