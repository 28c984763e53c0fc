"""Small charts painted with QPainter (PySide6-Essentials has no QtCharts)."""
