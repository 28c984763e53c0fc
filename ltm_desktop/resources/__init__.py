"""Files the app needs at run time: its icon, desktop entry and AppStream metainfo.

They are package data, read through ``importlib.resources`` so that the same code
works from a checkout, an installed wheel and a PyInstaller bundle. The reverse-DNS
APP_ID names the AppStream component and the icon; the desktop entry is
``ltm-desktop.desktop`` (the name users and the issue tracker know), and its id
``ltm-desktop`` is what the GUI passes to ``setDesktopFileName()`` (the Wayland
app id, which must match the entry's file name).
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

APP_ID = "io.github.ltm_desktop.ltm_desktop"
DESKTOP_ID = "ltm-desktop"
DESKTOP_ENTRY = f"{DESKTOP_ID}.desktop"
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
