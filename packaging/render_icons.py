"""Render the application icon's PNG sizes from its SVG (run after editing the SVG).

.venv/bin/python packaging/render_icons.py

Writes ltm_desktop/resources/icons/hicolor/<N>x<N>/apps/<app id>.png for every size in
ltm_desktop.resources.ICON_SIZES; the PNGs are committed, so the app never needs QtSvg.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from ltm_desktop.resources import ICON_SIZES, icon_png_path, icon_svg_path  # noqa: E402

PACKAGE = ROOT / "ltm_desktop" / "resources"


def render(renderer: QSvgRenderer, size: int, target: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    target.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(target), "PNG"):
        raise SystemExit(f"could not write {target}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])  # QPainter on a QImage needs one
    svg = PACKAGE / icon_svg_path()
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    for size in ICON_SIZES:
        target = PACKAGE / icon_png_path(size)
        render(renderer, size, target)
        sys.stdout.write(f"{target.relative_to(ROOT)}: {size}x{size}, {target.stat().st_size} B\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
