"""Data rows of a streamed sheet, serialised straight to SpreadsheetML text.

openpyxl's write-only mode spends most of a big export building a cell object per
value and walking lxml's incremental writer for it (the 100,000-GPU cable schedule has
9 million cells: 70 of its 94 seconds went there).  The rows the workbench writes are
simple - text, numbers, formulas it wrote itself, empty cells, and a handful of shared
styles - so :class:`RowStream` writes each row as one string, into a temporary file
beside openpyxl's, and :func:`splice_sheet` puts the two together when the sheet is
closed: openpyxl still writes everything around the rows (views, header row, filter,
validations, conditional formats, print setup), so the sheet stays exactly what
openpyxl would produce, only the row loop is ours.

The cells written are the ones openpyxl writes for the same values (ECMA-376 Part 1
§18.3.1.4 ``c``): ``t="inlineStr"`` with ``<is><t>`` for text (``xml:space="preserve"``
when it has outer spaces), ``t="n"`` with ``<v>`` for numbers (``%.16g``, as openpyxl's
``safe_string``; NaN and infinity, which a cell cannot hold, become empty), ``t="b"``
for booleans, ``<f>`` without the leading ``=`` for formulas, and ``s="N"`` with the
workbook's style index for formatted or quote-prefixed cells.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import IO
from xml.sax.saxutils import escape

from openpyxl.utils import get_column_letter

#: Rows buffered in memory between writes to the temporary file.
_FLUSH_EVERY = 2_000


class RowStream:
    """Rows 2.. of one sheet as SpreadsheetML ``<row>`` elements in a temporary file."""

    def __init__(self, columns: int):
        self._letters = [get_column_letter(i + 1) for i in range(max(1, columns))]
        # Open for the life of the sheet (closed by finish/discard), so no "with".
        self._file: IO[bytes] | None = tempfile.TemporaryFile(prefix="workbench-rows-")  # noqa: SIM115
        self._buffer: list[str] = []
        self.next_row = 2

    def text(self, index: int, row: str, value: str, style: int | None) -> str:
        """A text cell; ``value`` has already been cleaned of characters XML cannot hold."""
        space = ' xml:space="preserve"' if value != value.strip() else ""
        s = f' s="{style}"' if style is not None else ""
        return (
            f'<c r="{self._letters[index]}{row}"{s} t="inlineStr">'
            f"<is><t{space}>{escape(value)}</t></is></c>"
        )

    def number(self, index: int, row: str, value: float | int, style: int | None) -> str:
        """A number cell (``bool`` as Excel's boolean type)."""
        s = f' s="{style}"' if style is not None else ""
        ref = f"{self._letters[index]}{row}"
        if isinstance(value, bool):
            return f'<c r="{ref}"{s} t="b"><v>{int(value)}</v></c>'
        if isinstance(value, float) and not math.isfinite(value):
            return f'<c r="{ref}"{s} t="n"></c>'
        return f'<c r="{ref}"{s} t="n"><v>{value:.16g}</v></c>'

    def formula(self, index: int, row: str, value: str, style: int | None) -> str:
        """A formula cell; ``value`` starts with ``=`` as the exporters write it."""
        s = f' s="{style}"' if style is not None else ""
        return f'<c r="{self._letters[index]}{row}"{s}><f>{escape(value[1:])}</f><v></v></c>'

    def add(self, cells: Sequence[str], height: float | None = None) -> None:
        """Append one row made of cells from :meth:`text`, :meth:`number`, :meth:`formula`;
        ``height`` (points) sets the row's height (wrapped text: a spreadsheet draws a
        row without one at the default height, over the rows next to it)."""
        ht = f' ht="{height:g}" customHeight="1"' if height else ""
        self._buffer.append(f'<row r="{self.next_row}"{ht}>{"".join(cells)}</row>')
        self.next_row += 1
        if len(self._buffer) >= _FLUSH_EVERY:
            self._flush()

    def _flush(self) -> None:
        if self._buffer and self._file is not None:
            self._file.write("".join(self._buffer).encode("utf-8"))
        self._buffer.clear()

    def finish(self) -> IO[bytes]:
        """The complete rows, rewound for reading (the stream accepts no more rows)."""
        self._flush()
        if self._file is None:
            raise ValueError("rows already finished")
        file, self._file = self._file, None
        file.seek(0)
        return file

    def discard(self) -> None:
        """Drop the temporary file (a cancelled or failed export)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._buffer.clear()


def splice_sheet(path: str, cols: bytes, rows: IO[bytes]) -> bool:
    """Put ``cols`` before ``<sheetData`` and ``rows`` before ``</sheetData>`` in openpyxl's
    finished sheet file at ``path``.

    openpyxl wrote the sheet with only its header row, so the file is small; the
    element order of a worksheet is fixed by the schema (views, format, cols,
    sheetData, then filter, validations, print setup ...).  Returns False, leaving the
    file alone, if the markers are not where expected (a future openpyxl): the caller
    must then treat the export as failed rather than write a sheet without its rows.
    """
    with open(path, "rb") as src:
        sheet = src.read()
    start = sheet.find(b"<sheetData")
    end = sheet.rfind(b"</sheetData>")
    if start < 0 or end < start or b"<cols>" in sheet[:start]:
        return False
    spliced = path + ".rows"
    with open(spliced, "wb") as dst:
        dst.write(sheet[:start])
        dst.write(cols)
        dst.write(sheet[start:end])
        shutil.copyfileobj(rows, dst, 1 << 20)
        dst.write(sheet[end:])
    os.replace(spliced, path)
    return True
