"""What every workbook the workbench writes has in common (BOM, inventory, cables...).

All workbooks stream through openpyxl's **write-only** mode so a 100,000-GPU design
(440,000 cables) is written row by row without holding a worksheet in memory.  On top
of that this module gives every sheet the same hygiene:

- a bold, shaded header row that is frozen, filtered and repeated on every printed
  page; landscape, fit to one page wide;
- column widths that fit the content.  Write-only mode writes ``<cols>`` *before* the
  rows, when the widths are not known yet, so :class:`SheetWriter` tracks the longest
  text per column while streaming and, when the sheet is closed, splices the
  ``<cols>`` element into openpyxl's temporary sheet file in front of ``<sheetData>``
  (one sequential file copy, small next to compressing it into the zip);
- number formats per column (prices, lengths), applied cell by cell because Excel
  ignores a column's style for cells that have a value;
- **formula injection** (OWASP "CSV injection"): every ``str`` is data, never a
  formula.  Text starting with ``=`` (which openpyxl would store as a formula) or with
  ``+ - @`` tab or CR (which Excel and LibreOffice turn into a formula when a user
  edits the cell or when the sheet is saved as CSV) is written as an explicit string
  cell with Excel's "quote prefix" set, so it shows and stays literal text.  Formulas
  the exporter means are marked with :class:`Formula`.

Entry points: :func:`write_workbook` (atomic, cancellable: fill + save inside
:func:`workbench.export.output.write_file`) and :class:`Book` / :meth:`Book.sheet`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from workbench.export.output import Progress, write_file

#: First characters that make a spreadsheet treat text as a formula (OWASP).
DANGEROUS_STARTS = ("=", "+", "-", "@", "\t", "\r")

_HEADER_FONT = Font(bold=True)
_HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
_HEADER_BORDER = Border(bottom=Side(style="thin"))
_HEADER_ALIGN = Alignment(vertical="center")
#: Excel's column width unit is roughly one "0" of the default font; a margin for the
#: filter button on the header and for proportional fonts.
_WIDTH_MARGIN = 3
#: Widths for cells whose text length says nothing (formulas, numbers).
_FORMULA_WIDTH = 12


class Formula(str):
    """A formula the exporter itself wrote (``"=B2*C2"``); the only ``str`` stored as
    a formula.  Plain ``str`` values are always text, whatever they start with."""


@dataclass(frozen=True)
class Column:
    """One column: its header, an optional Excel number format (``"#,##0.00"``) and
    width bounds (``width`` fixes it; otherwise it follows the content between
    ``min_width`` and ``max_width``)."""

    title: str
    number_format: str | None = None
    width: float | None = None
    min_width: float = 6
    max_width: float = 60


def needs_guard(text: str) -> bool:
    """Whether ``text`` would be (or become) a formula in a spreadsheet."""
    return text.startswith(DANGEROUS_STARTS)


def safe_text(ws: WriteOnlyWorksheet, value: str) -> str | WriteOnlyCell:
    """``value`` as a cell that is always literal text in Excel and LibreOffice.

    Harmless text is returned unchanged (openpyxl stores it as a string); dangerous
    text becomes a string cell with the quote prefix.  Characters XML cannot hold
    (control characters) are replaced by U+FFFD so one bad serial cannot abort an
    export.
    """
    if not value.isprintable() and ILLEGAL_CHARACTERS_RE.search(value):  # fast path first
        value = ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
    if not needs_guard(value):
        return value
    cell = WriteOnlyCell(ws)
    cell._value = value  # bypass the setter: it would make "=..." a formula
    cell.data_type = "s"
    cell.quotePrefix = True
    return cell


class SheetWriter:
    """One streamed sheet: header, frozen pane, filter, widths, formats, print setup.

    Rows are appended with :meth:`append` (values: ``str`` (text), ``int``/``float``,
    :class:`Formula`, ``None`` (empty)); :attr:`rows` counts data rows, and
    :meth:`cell_ref` gives the address of a written cell for formulas on other sheets.
    """

    def __init__(self, ws: WriteOnlyWorksheet, columns: Sequence[Column]):
        self.ws = ws
        self.columns = list(columns)
        self.rows = 0
        self._closed = False
        self._widths = [float(len(c.title)) for c in self.columns]
        self._formats = [c.number_format for c in self.columns]
        self._styles: dict[str, Any] = {}
        ws.freeze_panes = "A2"
        ws.print_title_rows = "1:1"
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        ws.print_options.gridLines = True
        header = []
        for column in self.columns:
            cell = WriteOnlyCell(ws, value=column.title)
            cell.font = _HEADER_FONT
            cell.fill = _HEADER_FILL
            cell.border = _HEADER_BORDER
            cell.alignment = _HEADER_ALIGN
            header.append(cell)
        ws.append(header)

    @property
    def last_row(self) -> int:
        """The sheet row number of the last data row (1 = only the header)."""
        return self.rows + 1

    def cell_ref(self, column: int, row: int, *, absolute: bool = True) -> str:
        """``'Sheet name'!$C$5`` for column index ``column`` (0-based) and sheet row."""
        letter = get_column_letter(column + 1)
        title = self.ws.title.replace("'", "''")
        if absolute:
            return f"'{title}'!${letter}${row}"
        return f"'{title}'!{letter}{row}"

    def append(self, values: Sequence[Any]) -> None:
        """Write one data row (at most one value per column)."""
        out: list[Any] = []
        widths = self._widths
        formats = self._formats
        for i, value in enumerate(values):
            kind = type(value)
            if kind is str:
                n = len(value)
                if n > widths[i]:
                    widths[i] = n
                value = safe_text(self.ws, value)
            elif value is not None:
                n = _FORMULA_WIDTH if kind is Formula else len(str(value)) + 2
                if n > widths[i]:
                    widths[i] = n
                number_format = formats[i]
                if number_format is not None:
                    value = self._formatted(value, number_format)
            out.append(value)
        self.ws.append(out)
        self.rows += 1

    def _formatted(self, value: Any, number_format: str) -> WriteOnlyCell:
        """A number cell with ``number_format``.  Setting ``number_format`` looks the
        format up in the workbook's style tables on every cell; the resulting style is
        the same for every cell of a format, so it is computed once and shared (a
        write-only cell is serialised once and never changed), which keeps a 9-million
        cell cable schedule close to raw openpyxl speed."""
        cell = WriteOnlyCell(self.ws, value=value)
        style = self._styles.get(number_format)
        if style is None:
            cell.number_format = number_format
            self._styles[number_format] = cell._style
        else:
            cell._style = style
        return cell

    def close(self) -> None:
        """Finish the sheet: filter over what was written, then splice the widths in."""
        if self._closed:
            return
        self._closed = True
        last = get_column_letter(max(1, len(self.columns)))
        self.ws.auto_filter.ref = f"A1:{last}{self.last_row}"
        self.ws.close()
        writer = self.ws._writer
        if writer is not None and isinstance(writer.out, str):
            _splice_cols(writer.out, self._cols_xml())

    def _cols_xml(self) -> bytes:
        parts = []
        for i, (column, seen) in enumerate(zip(self.columns, self._widths, strict=True), 1):
            width = column.width
            if width is None:
                width = min(column.max_width, max(column.min_width, seen + _WIDTH_MARGIN))
            parts.append(
                f'<col min="{i}" max="{i}" width={quoteattr(f"{width:g}")} customWidth="1"/>'
            )
        return ("<cols>" + "".join(parts) + "</cols>").encode()


def _splice_cols(path: str, cols: bytes) -> None:
    """Insert ``cols`` before ``<sheetData`` in openpyxl's finished sheet file.

    The element order of a worksheet is fixed by the schema (views, format, cols,
    sheetData ...); openpyxl wrote no ``<cols>`` because the widths were unknown then.
    If the marker is not where expected (a future openpyxl), the sheet is left with
    default widths rather than risk a broken file.
    """
    with open(path, "rb") as src:
        head = src.read(1 << 16)
        at = head.find(b"<sheetData")
        if at < 0 or b"<cols>" in head[:at]:
            return
        spliced = path + ".cols"
        with open(spliced, "wb") as dst:
            dst.write(head[:at])
            dst.write(cols)
            dst.write(head[at:])
            shutil.copyfileobj(src, dst, 1 << 20)
    os.replace(spliced, path)


class Book:
    """A write-only workbook and its :class:`SheetWriter` s, saved by :func:`write_workbook`."""

    def __init__(self) -> None:
        self.wb = Workbook(write_only=True)
        self.sheets: list[SheetWriter] = []

    def sheet(self, title: str, columns: Sequence[Column]) -> SheetWriter:
        """A new sheet (Excel tab names: at most 31 characters, no ``[]:*?/\\``)."""
        ws = self.wb.create_sheet(title=_sheet_title(title, {s.ws.title for s in self.sheets}))
        writer = SheetWriter(ws, columns)
        self.sheets.append(writer)
        return writer

    def save(self, path: Path) -> None:
        """Close every sheet and write the zip to ``path``."""
        for sheet in self.sheets:
            sheet.close()
        self.wb.save(path)

    def discard(self) -> None:
        """Remove openpyxl's temporary sheet files (after a save, a cancel or an error)."""
        for sheet in self.sheets:
            if not sheet.ws.closed:
                # Finish the XML stream first: dropping a half-written sheet leaves a
                # generator that complains at garbage collection.
                with contextlib.suppress(Exception):
                    sheet.ws.close()
            writer = sheet.ws._writer
            if writer is not None and isinstance(writer.out, str):
                with contextlib.suppress(OSError, ValueError):
                    os.remove(writer.out)


def _sheet_title(title: str, taken: set[str]) -> str:
    clean = "".join("_" if ch in "[]:*?/\\" else ch for ch in title).strip("'")[:31] or "Sheet"
    base, n = clean, 2
    while clean in taken:
        suffix = f" ({n})"
        clean = base[: 31 - len(suffix)] + suffix
        n += 1
    return clean


def write_workbook(
    target: str | os.PathLike[str], fill: Callable[[Book], object], progress: Progress
) -> Path:
    """Have ``fill(book)`` write the sheets, then save atomically to ``target``.

    Everything happens inside :func:`write_file`, so ExportCancelled raised by
    ``progress`` during ``fill`` (or any error) leaves no file at ``target`` and no
    temporary file beside it; openpyxl's own temporary files are removed too.
    """

    def write(tmp: Path) -> None:
        book = Book()
        try:
            fill(book)
            progress(0.97, "Saving workbook")
            book.save(tmp)
        finally:
            book.discard()

    path = write_file(target, write)
    progress(1.0, "Done")
    return path


#: The name the export brief uses for :func:`write_workbook`.
save_workbook = write_workbook


def every(
    n: int, total: int, progress: Progress, label: str, start: float = 0.0, span: float = 1.0
) -> Callable[[int], None]:
    """A row counter calling ``progress`` every ``n`` rows, mapped into ``start..start+span``
    (``tick(done)`` after each row; cheap enough to call per row)."""
    total = max(1, total)

    def tick(done: int) -> None:
        if done % n == 0:
            progress(start + span * min(1.0, done / total), label)

    return tick
