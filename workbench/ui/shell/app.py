"""Start the window: ``workbench [FILE]``.

The catalog loads first; files that fail validation are reported once (status bar and a
non-modal list of ``file:line: field: message``) and left out, because one bad YAML file
must not keep a planner from working.  Warnings (entries loaded, but with a figure worth
checking) are named in the status bar and listed under Help › Catalog Problems.  A FILE
that cannot be opened gets a dialog with the one-line cause and exit status 1; the file
is never written to.  Without FILE the bundled sample design opens, unsaved, unless an
unsaved design of an earlier session was autosaved and the user recovers it.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from workbench.model import Design
from workbench.render.text_speed import draw_text_unshaped
from workbench.ui.shell.check_loading import one_blas_thread
from workbench.ui.shell.collector import collector_paused
from workbench.ui.shell.document import Document

if TYPE_CHECKING:
    from workbench.ui.shell.main_window import MainWindow

ORGANIZATION = "Workbench"
APPLICATION = "Workbench"


def _application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    draw_text_unshaped()
    return app  # type: ignore[return-value]


def load_catalog_reporting():
    """(catalog or None, errors, warnings), the last two as one-line strings; never raises.

    Errors are entries left out; warnings are entries loaded whose figures deserve a
    look, as ``workbench catalog validate`` reports them.
    """
    try:
        from workbench.catalog import load_catalog

        catalog = load_catalog()
    except Exception as exc:  # noqa: BLE001 - the window starts without a catalog
        return None, [f"catalog: {exc}"], []
    errors = [str(e) for e in getattr(catalog, "errors", [])]
    warnings = [str(w) for w in getattr(catalog, "warnings", [])]
    return catalog, errors, warnings


def sample_or_empty(catalog=None) -> tuple[Design, str | None]:
    """The bundled sample design, or an empty one with the reason it could not be built."""
    try:
        from workbench.templates.bundled import bundled_sample

        return bundled_sample(), None
    except Exception as exc:  # noqa: BLE001 - e.g. the shipped catalog is damaged
        return Design(name="Untitled design"), f"The sample design could not be built: {exc}"


def start_without_file(window: MainWindow, catalog=None) -> None:
    """Fill a new window started without FILE: the unsaved design of a session that
    ended without saving, if the user recovers it, else the bundled sample."""
    if window.file_actions.recover_untitled():
        return
    design, failure = sample_or_empty(catalog)
    window.document.replace_design(design, None)
    window.set_untitled_name(None if failure else "Sample design")
    if failure:
        QMessageBox.warning(window, "Sample design", failure)


def collector_off_until_first_frame(window: MainWindow) -> None:
    """Pause Python's cyclic garbage collector until ``window`` has drawn its first frame
    and checked its design, then set what the start made aside from its passes.

    Everything a start allocates (the window's widgets, the catalog, the design: half a
    million objects at 100,000 GPUs) lives on, so the collections that so much allocation
    sets off find nothing to free, and each walks every object made so far: about a
    tenth of a second per pass at 100,000 GPUs, several times over before the first
    frame, and again after it (a 0.2 s pass just after the first frame, and one now and
    then during edits).  At the first frame what was made is frozen (:func:`gc.freeze`),
    but the collector stays off while the first check runs in slices: the planes and
    tables it builds are hundreds of thousands of objects more, and passes over them
    (25-80 ms each) blocked input between its slices.  When the check and the warm-up
    after it (``figures.warmed``) are done, they are frozen too and the collector comes
    back: later passes walk only what was made since.  (Back at the check's end, its
    passes over the warm-up's link tables blocked input for 30-50 ms.)
    Reference counting frees frozen objects as always; only a reference cycle among them
    is never collected (a few hundred objects; see :func:`_collector_on_new_design`).
    """
    if not gc.isenabled():
        return
    gc.disable()
    figures = window.document.figures
    figures.released.connect(gc.freeze)
    figures.warmed.connect(_collector_back)
    window.document.designReplaced.connect(_collector_on_new_design)


def _collector_back() -> None:
    """The first check of a design and its warm-up are done: what they built is set
    aside, collector on."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _collector_on_new_design() -> None:
    """Another design was loaded (File > Open, New, Revert): the collector is off until
    its first check and warm-up are done (:func:`_collector_back`), which then sets the new design
    aside as at the start.  The old design is not thawed: the document drops its index
    (:meth:`~workbench.ui.shell.document.Document.replace_design`), so reference counting
    frees it whole; thawed, as before, every later full pass walked the new design
    (0.1-0.4 s at 100,000 GPUs after each File > Open)."""
    gc.disable()


def run_app(path: str | None) -> int:
    """Show the main window on FILE (or the sample) and run the event loop."""
    import PySide6

    if PySide6.__version__ == "6.12.0":
        # 6.12.0 drops a reference to None/True on every void call and signal and
        # crashes within seconds; pyproject.toml excludes it, so this is a stale venv.
        print(
            "workbench: PySide6 6.12.0 has a reference-counting bug that crashes the "
            "window; run `bash .ci/setup` to install a working release",
            file=sys.stderr,
        )
        return 1
    one_blas_thread()
    app = _application()
    with collector_paused():
        from workbench.ui.shell.main_window import MainWindow

        catalog, problems, warnings = load_catalog_reporting()
        document = Document()
        window = MainWindow(
            document, catalog=catalog, catalog_problems=problems, catalog_warnings=warnings
        )
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # freed, document and all
    collector_off_until_first_frame(window)
    if path is not None:
        if not window.file_actions.open_path(Path(path), ask_save=False, links_later=True):
            gc.enable()
            if window.file_actions.last_error:
                print(f"workbench: {window.file_actions.last_error}", file=sys.stderr)
            window.deleteLater()
            return 1
    else:
        start_without_file(window, catalog)
    if window.settings.value("window/geometry") is None:
        # First start: a design tool wants the whole screen (sized too, for desktops
        # without a window manager that would honour "maximized").
        screen = app.primaryScreen()
        if screen is not None:
            window.resize(screen.availableGeometry().size())
        window.showMaximized()
    else:
        window.show()
    QTimer.singleShot(0, window.report_catalog_problems)
    QTimer.singleShot(0, window.file_actions.sweep_recent_folders)
    from workbench.ui.shell.probe import install_probe

    probe = install_probe(window)  # only for the journey tests' socket  # noqa: F841
    return app.exec()
