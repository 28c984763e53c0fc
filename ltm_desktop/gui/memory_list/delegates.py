"""Draw cells whose model supplies HTML (search hits with matched words in bold).

Text wider than its cell is cut at a word and ends with an ellipsis, as Qt's own
cells are elided: a hard clip cut words in half and hid that anything was left out.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QPainter,
    QPalette,
    QTextDocument,
    QTextLine,
)
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ltm_desktop.gui.models.base import HtmlRole

ELLIPSIS = "…"
FITTED_CACHE = 160  # laid-out cells: about two screens of hits, two HTML columns each
_FITTED: OrderedDict[tuple[str, int, str], tuple[QTextDocument, float | None, float]] = (
    OrderedDict()
)


class HtmlDelegate(QStyledItemDelegate):
    """Renders ``HtmlRole`` on one line, in the palette's text colours (dark mode safe)."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        html = index.data(HtmlRole)
        if not html:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, opt.widget)
        doc, ellipsis_at, height = self._fit(html, opt, text_rect.width())
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        color = opt.palette.color(role)
        context.palette.setColor(QPalette.ColorRole.Text, color)
        painter.save()
        offset = (text_rect.height() - height) / 2
        line_box = QRectF(text_rect.left(), text_rect.top() + offset, text_rect.width(), height)
        painter.setClipRect(line_box.intersected(QRectF(text_rect)))  # the first line only
        painter.translate(text_rect.left(), text_rect.top() + offset)
        context.clip = QRectF(0, 0, text_rect.width(), height)
        doc.documentLayout().draw(painter, context)
        if ellipsis_at is not None:
            painter.setPen(color)
            painter.setFont(opt.font)
            painter.drawText(
                QRectF(ellipsis_at, 0, text_rect.width(), height),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                ELLIPSIS,
            )
        painter.restore()

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        html = index.data(HtmlRole)
        if not html:
            return super().sizeHint(option, index)
        doc = self._document(html, option)
        return QSize(int(doc.idealWidth()), int(doc.size().height()))

    @staticmethod
    def _document(
        html: str, option: QStyleOptionViewItem, width: float | None = None
    ) -> QTextDocument:
        """One line of ``html``; with ``width``, wrapped there (the first line is drawn)."""
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(option.font)
        space = "pre" if width is None else "normal"
        doc.setHtml(f"<span style='white-space:{space}'>{html}</span>")
        doc.setTextWidth(-1 if width is None else width)
        return doc

    @staticmethod
    def _fit(
        html: str, option: QStyleOptionViewItem, width: float
    ) -> tuple[QTextDocument, float | None, float]:
        """(document, where the ellipsis goes or None, line height) for a cell ``width``
        wide: text too wide is wrapped at a word and only its first line is drawn.

        Laid out documents are kept (a small LRU): a repaint (hover, scroll, a new
        selection) of the same cells then parses no HTML, which was most of a paint."""
        key = (html, round(width), option.font.key())
        cached = _FITTED.get(key)
        if cached is not None:
            _FITTED.move_to_end(key)
            return cached
        doc = HtmlDelegate._document(html, option, width=max(1.0, width))  # parsed once
        line = HtmlDelegate._first_line(doc)
        fitted: tuple[QTextDocument, float | None, float]
        one_line = doc.blockCount() == 1 and doc.firstBlock().layout().lineCount() <= 1
        if line is None or one_line:
            fitted = (doc, None, doc.size().height() if line is None else line.height())
        else:  # wrapped: lay it out again (no parsing) leaving room for the ellipsis
            room = max(1.0, width - option.fontMetrics.horizontalAdvance(ELLIPSIS))
            doc.setTextWidth(room)
            line = HtmlDelegate._first_line(doc)
            height = doc.size().height() if line is None else line.height()
            fitted = (doc, room if line is None else min(line.naturalTextWidth(), room), height)
        _FITTED[key] = fitted
        if len(_FITTED) > FITTED_CACHE:
            _FITTED.popitem(last=False)
        return fitted

    @staticmethod
    def _first_line(doc: QTextDocument) -> QTextLine | None:
        doc.documentLayout().documentSize()  # lays the document out: its lines exist now
        block = doc.firstBlock()
        layout = block.layout() if block.isValid() else None
        line = layout.lineAt(0) if layout is not None and layout.lineCount() else None
        return line if line is not None and line.isValid() else None

    @staticmethod
    def shown_text(html: str, option: QStyleOptionViewItem, width: float) -> str:
        """The text a cell of ``width`` pixels shows (ending in an ellipsis when cut)."""
        doc, ellipsis_at, _ = HtmlDelegate._fit(html, option, width)
        line = HtmlDelegate._first_line(doc)
        if ellipsis_at is None or line is None:
            return doc.toPlainText()
        first = doc.toPlainText()[line.textStart() : line.textStart() + line.textLength()]
        return first.rstrip() + ELLIPSIS


ELIDE = Qt.TextElideMode.ElideRight
