"""Print jobs: pages onto a PDF writer or printer, or one SVG file per page.

The window (Print…, Print Preview…, Export PDF…, Export SVG…) and ``workbench print``
both come here, so paper from either is the same.  Files are written the way the
project file is: into a temporary file beside the target, renamed over it only when
every page is done, so a failed or cancelled job never leaves a half-written PDF (or a
partial set of SVG pages) behind.  A progress callback sees each page and may cancel.
QtGui and QtSvg only, no widgets: the command line runs it headless.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QPagedPaintDevice, QPageLayout, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from workbench.filenames import portable_stem
from workbench.model.design import Design
from workbench.render.print_layout import (
    Page,
    PrintOptions,
    page_context,
    paint_page,
    plan_pages,
)
from workbench.render.safe_figures import safe_rack_loads
from workbench.store.atomic import fsync_folder, replace_atomically
from workbench.store.temps import make_stage, sweep_quietly

#: ``progress(pages_done, pages_total)``; returning False cancels the job.
Progress = Callable[[int, int], object]

#: Resolution of written PDFs and SVGs.  Fonts are sized in whole device pixels, so a
#: fine grid keeps small text true to size; it costs nothing in file size.
PDF_DPI = 600
SVG_DPI = 300


class PrintCancelled(Exception):
    """The progress callback asked to stop; nothing was written."""


class NothingToPrint(ValueError):
    """No rack is left after the options' filters."""


class PrintFileError(OSError):
    """A print file could not be written: ``str()`` is "<path>: cannot write: <why>"."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: cannot write: {reason}")
        self.path = path
        self.reason = reason


def _pages_or_refuse(design: Design, options: PrintOptions, paint_mm: QSizeF) -> list[Page]:
    pages = plan_pages(design, options, paint_mm)
    if pages:
        return pages
    if options.pattern:
        raise NothingToPrint(f"no rack name matches {options.pattern!r}")
    if options.rack_ids is not None:
        raise NothingToPrint("none of the chosen racks is in the design")
    raise NothingToPrint("the design has no racks to print")


def _tick(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None and progress(done, total) is False:
        raise PrintCancelled


def count_pages(design: Design, options: PrintOptions) -> int:
    """How many pages a job with these options will have (on its own paper)."""
    paint = options.page_layout().paintRect(QPageLayout.Unit.Millimeter)
    return len(plan_pages(design, options, paint.size()))


def render_pages(
    device: QPagedPaintDevice,
    design: Design,
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    apply_layout: bool = True,
) -> int:
    """Paint every page of the job onto ``device`` (QPdfWriter or QPrinter); returns
    the page count.  ``apply_layout`` False keeps the paper and orientation the device
    already has (a print dialog's choice)."""
    if apply_layout:
        device.setPageLayout(options.page_layout())
    layout = device.pageLayout()
    paint_mm = layout.paintRect(QPageLayout.Unit.Millimeter).size()
    pages = _pages_or_refuse(design, options, paint_mm)
    ctx = page_context(design, len(pages), options, safe_rack_loads(design))
    px_per_mm = device.logicalDpiX() / 25.4
    _tick(progress, 0, len(pages))
    painter = QPainter()
    if not painter.begin(device):
        raise OSError("the printer or file could not be opened for drawing")
    try:
        for number, page in enumerate(pages, 1):
            if number > 1:
                device.newPage()
            paint_page(painter, page, number, ctx, paint_mm, px_per_mm)
            _tick(progress, number, len(pages))
    finally:
        painter.end()
    return len(pages)


def write_pdf(
    path: Path | str,
    design: Design,
    options: PrintOptions,
    progress: Progress | None = None,
) -> int:
    """Write the job to ``path`` atomically; returns the page count.

    Raises :class:`PrintFileError` when the file cannot be written,
    :class:`PrintCancelled` when ``progress`` cancelled and :class:`NothingToPrint`;
    in every case no file (and no temporary file) is left behind and an existing file
    at ``path`` is untouched.
    """
    target = Path(path)
    pages = 0

    def write(tmp: Path) -> None:
        nonlocal pages
        writer = QPdfWriter(str(tmp))
        try:
            writer.setResolution(PDF_DPI)
            writer.setTitle(f"{design.name}: rack elevations")
            writer.setCreator("Workbench")
            pages = render_pages(writer, design, options, progress)
        finally:
            del writer  # closes the file before it is renamed or removed
        if tmp.stat().st_size == 0 or not tmp.read_bytes()[:5] == b"%PDF-":
            raise OSError("the PDF writer produced no output")

    if target.is_dir():
        raise PrintFileError(target, "Is a directory")
    try:
        replace_atomically(target, write)
    except (PrintCancelled, NothingToPrint):
        raise
    except OSError as exc:
        raise PrintFileError(target, exc.strerror or str(exc)) from None
    sweep_quietly(target)  # what killed prints left here before
    return pages


def _file_stem(text: str) -> str:
    """A page's label as a file stem: portable, and one word so a shell lists it."""
    return "-".join(portable_stem(text, "page").split())


def svg_name(number: int, total: int, page: Page) -> str:
    """``003-A03.svg``: numbered so a folder listing is page order."""
    width = max(3, len(str(total)))
    return f"{number:0{width}d}-{_file_stem(page.label)}.svg"


def write_svgs(
    folder: Path | str,
    design: Design,
    options: PrintOptions,
    progress: Progress | None = None,
) -> list[Path]:
    """One SVG file per page in ``folder`` (created if missing); returns the files.

    The pages are drawn into a hidden folder inside ``folder`` and moved into place
    only when all are done, so a failure or cancel leaves no page behind.
    """
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
        work = make_stage(target / "pages")  # .pages.<pid>.<random>.export: the sweep knows it
    except OSError as exc:
        raise PrintFileError(target, exc.strerror or str(exc)) from None
    try:
        layout = options.page_layout()
        full = layout.fullRect(QPageLayout.Unit.Millimeter)
        paint = layout.paintRect(QPageLayout.Unit.Millimeter)
        pages = _pages_or_refuse(design, options, paint.size())
        ctx = page_context(design, len(pages), options, safe_rack_loads(design))
        k = SVG_DPI / 25.4
        size = QSize(round(full.width() * k), round(full.height() * k))
        names = []
        _tick(progress, 0, len(pages))
        for number, page in enumerate(pages, 1):
            name = svg_name(number, len(pages), page)
            generator = QSvgGenerator()
            generator.setFileName(str(work / name))
            generator.setResolution(SVG_DPI)
            generator.setSize(size)
            generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
            generator.setTitle(f"{design.name}: {page.label}")
            generator.setDescription(f"Page {number} of {len(pages)}")
            painter = QPainter()
            if not painter.begin(generator):
                raise OSError(f"could not start {name}")
            try:
                painter.fillRect(QRectF(0, 0, size.width(), size.height()), QColor("#ffffff"))
                painter.translate(paint.left() * k, paint.top() * k)
                paint_page(painter, page, number, ctx, paint.size(), k)
            finally:
                painter.end()
                del generator
            names.append(name)
            _tick(progress, number, len(pages))
        written = []
        for name in names:
            os.replace(work / name, target / name)
            written.append(target / name)
        fsync_folder(target)
    except OSError as exc:
        raise PrintFileError(target, exc.strerror or str(exc)) from None
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(work)
    sweep_quietly(target)  # page folders killed prints left here before
    return written
