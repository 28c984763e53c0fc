"""Draw cells whose model supplies HTML (search hits with matched words in bold)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ltm_desktop.gui.models.base import HtmlRole


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
        doc = self._document(html, opt)
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        painter.save()
        painter.setClipRect(text_rect)
        offset = (text_rect.height() - doc.size().height()) / 2
        painter.translate(text_rect.left(), text_rect.top() + offset)
        context.clip = QRectF(0, 0, text_rect.width(), text_rect.height())
        doc.documentLayout().draw(painter, context)
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
    def _document(html: str, option: QStyleOptionViewItem) -> QTextDocument:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(option.font)
        doc.setHtml(f"<span style='white-space:pre'>{html}</span>")
        doc.setTextWidth(-1)
        return doc


ELIDE = Qt.TextElideMode.ElideRight
