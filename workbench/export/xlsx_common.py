"""What every workbook the workbench writes has in common (BOM, inventory, cables...).

All workbooks stream through openpyxl's **write-only** mode so a 100,000-GPU design
(440,000 cables) is written row by row without holding a worksheet in memory.  On top
of that this module gives every sheet the same hygiene:

- a bold, shaded header row that is frozen, filtered and repeated on every printed
  page; A4 landscape, narrow margins, fit to one page wide;
- columns marked ``wrap`` wrap their text top-aligned, and each row is given the height
  its longest wrapped cell needs (:data:`LINE_HEIGHT` points a line at the column's
  width), so a multi-line command prints whole instead of over the row above;
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
from openpyxl.worksheet.page import PageMargins
from openpyxl.worksheet.worksheet import Worksheet

from workbench.export import xlsx_rows
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
#: Key of the quote-prefix style among the per-format styles.
_QUOTED = "\0quoted"
#: Keys of the wrapped-text styles (plain and quote-prefixed).
_WRAPPED = "\0wrapped"
_WRAPPED_QUOTED = "\0wrapped-quoted"
_WRAP_ALIGN = Alignment(wrap_text=True, vertical="top")
#: Points per line of 11 pt text, what Excel and LibreOffice give a one-line row.
LINE_HEIGHT = 15.0


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
    #: Wrap long text in the cell (needs ``width``: the lines are counted at it).
    wrap: bool = False


def needs_guard(text: str) -> bool:
    """Whether ``text`` would be (or become) a formula in a spreadsheet."""
    return text.startswith(DANGEROUS_STARTS)


def clean_text(value: str) -> str:
    """``value`` with the characters XML cannot hold (control characters) replaced by
    U+FFFD, so one bad serial cannot abort an export.  Printable text (nearly all of
    it) skips the regular expression."""
    if not value.isprintable() and ILLEGAL_CHARACTERS_RE.search(value):
        return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
    return value


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
        self._styles: dict[str, int] = {}
        self._stream = xlsx_rows.RowStream(len(self.columns))
        ws.freeze_panes = "A2"
        ws.print_title_rows = "1:1"
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        ws.page_setup.paperSize = Worksheet.PAPERSIZE_A4
        ws.page_margins = PageMargins(left=0.4, right=0.4, top=0.5, bottom=0.5)
        ws.print_options.gridLines = True
        self._wrap = [c.width if c.wrap and c.width else 0.0 for c in self.columns]
        self._wrapping = any(self._wrap)
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

    def range_ref(self, column: int, first: int, last: int) -> str:
        """``'Sheet name'!$C$2:$C$9``: one column's rows, for a formula on another sheet.
        Built whole rather than cut from :meth:`cell_ref`, whose sheet name may itself
        hold ``!`` (a node called ``gpu!1``)."""
        letter = get_column_letter(column + 1)
        return f"{self.cell_ref(column, first)}:${letter}${last}"

    def append(self, values: Sequence[Any], formats: Sequence[str | None] | None = None) -> None:
        """Write one data row (at most one value per column).

        ``str`` is always literal text (quote-prefixed when a spreadsheet would take it
        for a formula), :class:`Formula` a formula, numbers get their column's format,
        or ``formats``' where a sheet mixes units down one column (money and ratios).
        """
        stream = self._stream
        row = str(stream.next_row)
        widths = self._widths
        formats = self._formats if formats is None else formats
        cells: list[str] = []
        lines = 1
        for i, value in enumerate(values):
            kind = type(value)
            if value is None or value == "":
                continue  # no cell at all, as openpyxl reads back an empty one
            if kind is str:
                n = len(value)
                if n > widths[i]:
                    widths[i] = n
                value = clean_text(value)
                style: int | None
                if self._wrapping and self._wrap[i]:
                    lines = max(lines, wrapped_lines(value, self._wrap[i]))
                    style = self._wrap_style(needs_guard(value))
                else:
                    style = self._quote_style() if needs_guard(value) else None
                cells.append(stream.text(i, row, value, style))
            elif kind is Formula:
                if widths[i] < _FORMULA_WIDTH:
                    widths[i] = _FORMULA_WIDTH
                cells.append(stream.formula(i, row, value, self._style_of(formats[i])))
            elif isinstance(value, (int, float)):
                n = len(str(value)) + 2
                if n > widths[i]:
                    widths[i] = n
                cells.append(stream.number(i, row, value, self._style_of(formats[i])))
            else:
                raise TypeError(f"column {self.columns[i].title!r}: cannot write {kind.__name__}")
        stream.add(cells, LINE_HEIGHT * lines if lines > 1 else None)
        self.rows += 1

    def _style_of(self, number_format: str | None) -> int | None:
        """The workbook's style index for ``number_format``, registered once per format."""
        if number_format is None:
            return None
        style = self._styles.get(number_format)
        if style is None:
            cell = WriteOnlyCell(self.ws, value=0)
            cell.number_format = number_format
            style = self._styles[number_format] = cell.style_id
        return style

    def _quote_style(self) -> int:
        """The style index of a quote-prefixed text cell (literal text even when edited)."""
        style = self._styles.get(_QUOTED)
        if style is None:
            cell = WriteOnlyCell(self.ws, value="")
            cell.quotePrefix = True
            style = self._styles[_QUOTED] = cell.style_id
        return style

    def _wrap_style(self, quoted: bool) -> int:
        """The style index of wrapped, top-aligned text (quote-prefixed or not)."""
        key = _WRAPPED_QUOTED if quoted else _WRAPPED
        style = self._styles.get(key)
        if style is None:
            cell = WriteOnlyCell(self.ws, value="")
            cell.alignment = _WRAP_ALIGN
            cell.quotePrefix = quoted
            style = self._styles[key] = cell.style_id
        return style

    def close(self) -> None:
        """Finish the sheet: filter over what was written, then splice the widths and the
        rows into openpyxl's sheet file."""
        if self._closed:
            return
        self._closed = True
        last = get_column_letter(max(1, len(self.columns)))
        self.ws.auto_filter.ref = f"A1:{last}{self.last_row}"
        self.ws.close()
        writer = self.ws._writer
        rows = self._stream.finish()
        try:
            if writer is None or not isinstance(writer.out, str):
                raise RuntimeError(f"sheet {self.ws.title!r}: openpyxl kept no sheet file")
            if not xlsx_rows.splice_sheet(writer.out, self._cols_xml(), rows):
                raise RuntimeError(f"sheet {self.ws.title!r}: unexpected sheet layout")
        finally:
            rows.close()

    def discard(self) -> None:
        """Drop the rows not yet spliced (cancel or error)."""
        self._stream.discard()

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
            sheet.discard()
            if not sheet.ws.closed:
                # Finish the XML stream first: dropping a half-written sheet leaves a
                # generator that complains at garbage collection.
                with contextlib.suppress(Exception):
                    sheet.ws.close()
            writer = sheet.ws._writer
            if writer is not None and isinstance(writer.out, str):
                with contextlib.suppress(OSError, ValueError):
                    os.remove(writer.out)


def wrapped_lines(text: str, width: float) -> int:
    """Lines ``text`` takes in a wrapping cell ``width`` characters wide (each line
    break starts one; a long line takes one per ``width`` characters: text is narrower
    than the "0" the width counts, which leaves room for the breaks between words)."""
    per_line = max(1, int(width))
    return sum(max(1, -(-len(part) // per_line)) for part in text.split("\n"))


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
