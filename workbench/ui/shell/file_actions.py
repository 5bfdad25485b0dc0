"""File menu behaviour: New, Open, Save, Save As, Recent, Quit, autosave and recovery.

Kept apart from the main window so the window stays a small assembly of parts.  Every
failure ends in a dialog whose text names the file (``ProjectFileError`` is one line that
starts with the path); a file that fails to open is never written to.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

from workbench import store
from workbench.filenames import portable_stem
from workbench.model import Design
from workbench.model.errors import EditError
from workbench.planning.scenarios.figures import file_version
from workbench.ui.shell.document import Document

if TYPE_CHECKING:
    from workbench.catalog import Catalog
    from workbench.store.later import LinksToRead
    from workbench.templates.new_hall import HallSpec

RECENT_KEY = "recentFiles"
MAX_RECENT = 8
AUTOSAVE_INTERVAL_MS = 60_000
FILE_FILTER = f"Workbench projects (*{store.FILE_SUFFIX});;All files (*)"


class FileActions(QObject):
    """Owns the File menu's actions and the autosave timer of one window."""

    #: The design was written to this file (Save, Save As), which now holds it.
    saved = Signal(object)

    def __init__(
        self,
        window: QMainWindow,
        document: Document,
        settings: QSettings,
        catalog: Catalog | None = None,
        document_name: Callable[[], str] | None = None,
    ):
        super().__init__(window)
        self.window = window
        #: The window's name for the document (its title's), for dialogs and the save
        #: box's start; given as a call so this module does not import the window back.
        self.document_name = document_name or (lambda: "Untitled design")
        self.document = document
        self.settings = settings
        self.catalog = catalog
        #: The text of the last error dialog (the command line repeats it on stderr).
        self.last_error: str | None = None
        #: Asks for the New hall (tests put an answer here instead of the dialog).
        self.ask_new_hall: Callable[[], HallSpec | None] = self._ask_new_hall

        self.new_action = self._action(
            "&New…", QKeySequence.StandardKey.New, self.new, "Start a new hall of racks"
        )
        self.open_action = self._action(
            "&Open…", QKeySequence.StandardKey.Open, self.open, "Open a project file"
        )
        self.save_action = self._action(
            "&Save", QKeySequence.StandardKey.Save, self.save, "Save the design"
        )
        self.save_as_action = self._action(
            "Save &As…",
            QKeySequence.StandardKey.SaveAs,
            self.save_as,
            "Save the design under a new name",
        )
        self.quit_action = self._action(
            "&Quit", QKeySequence.StandardKey.Quit, window.close, "Quit the workbench"
        )
        self.recent_menu = QMenu("Open &Recent", window)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self.templates_menu = QMenu("New from &Template", window)
        self._fill_templates_menu()

        # Counts changes so an autosave is only written when something changed since the
        # last one (at 100,000 GPUs a copy costs ~0.15 s on the UI thread).
        self._generation = 0
        self._autosaved_generation: int | None = None
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self._on_document_changed)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

    def _action(self, text: str, shortcut, slot, tip: str) -> QAction:
        action = QAction(text, self.window)
        action.setShortcuts(shortcut)
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def fill_menu(self, menu: QMenu) -> None:
        """Put the actions into the window's File menu."""
        menu.addAction(self.new_action)
        menu.addMenu(self.templates_menu)
        menu.addAction(self.open_action)
        menu.addMenu(self.recent_menu)
        menu.addSeparator()
        menu.addAction(self.save_action)
        menu.addAction(self.save_as_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)

    # -- dialogs (small methods so tests can replace them) -----------------------------
    def _error(self, title: str, text: str) -> None:
        self.last_error = text
        QMessageBox.critical(self.window, title, text)

    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save / Discard / Cancel for unsaved changes."""
        name = self.document_name()
        return QMessageBox.question(
            self.window,
            "Unsaved changes",
            f"Save the changes to “{name}” before closing it?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )

    def _ask_recover(self, text: str, other: str, cancel: bool) -> str:
        """'recover', 'other' or 'cancel': the question every recovery offer asks."""
        box = QMessageBox(
            QMessageBox.Icon.Question, "Recover unsaved changes?", text, parent=self.window
        )
        recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
        alternative = box.addButton(other, QMessageBox.ButtonRole.DestructiveRole)
        if cancel:
            box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(recover)
        box.exec()
        clicked = box.clickedButton()
        return "recover" if clicked is recover else "other" if clicked is alternative else "cancel"

    def ask_recovery(self, path: Path) -> str:
        """'recover', 'saved' or 'cancel' when an autosave is newer than ``path``."""
        answer = self._ask_recover(
            f"{path}: there is an autosaved copy newer than the saved file, "
            "probably from a session that ended without saving.",
            "Open saved",
            cancel=True,
        )
        return "saved" if answer == "other" else answer

    def ask_untitled_recovery(self) -> bool:
        """True to recover the autosaved copy of a design that was never saved."""
        return (
            self._ask_recover(
                "There is an autosaved copy of a design that was never saved, probably from "
                "a session that ended without saving.",
                "Start on the sample",
                cancel=False,
            )
            == "recover"
        )

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)

    def _status_now(self, text: str) -> None:
        """``text`` in the status bar, painted before the window goes on (it is about
        to wait for work without returning to its event loop)."""
        self._status(text)
        self.window.statusBar().repaint()

    # -- unsaved changes ---------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to drop the current design (saved, discarded or clean)."""
        if not self.document.is_dirty:
            return True
        answer = self.ask_save_changes()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.discard_autosave()
            return True
        return False

    # -- New / Open --------------------------------------------------------------------
    def new(self) -> bool:
        """A new hall from the New hall dialog (after asking about unsaved changes): a
        fresh document whose racks are ready for drops."""
        if not self.maybe_save():
            return False
        spec = self.ask_new_hall()
        if spec is None:
            return False
        from workbench.templates.new_hall import new_hall

        try:
            design = new_hall(spec, self.catalog)
        except (EditError, ValueError) as exc:
            self._error("Cannot create the hall", str(exc))
            return False
        self.document.replace_design(design, None)
        racks = sum(1 for _ in design.iter_racks())
        self._status(f"New hall {design.sites[0].name if design.sites else ''}: {racks} racks")
        return True

    def _ask_new_hall(self) -> HallSpec | None:
        from workbench.ui.shell.new_hall_dialog import NewHallDialog

        racks = [i for i in self.catalog if i.kind == "rack"] if self.catalog is not None else []
        dialog = NewHallDialog(racks, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.spec()

    def new_from_template(self, name: str) -> bool:
        """A design built from a template at its default size."""
        if not self.maybe_save():
            return False
        from workbench.templates import build_template

        try:
            design = build_template(name)
        except Exception as exc:  # noqa: BLE001 - a broken catalog must not crash the window
            self._error("Cannot build template", f"Template {name}: {exc}")
            return False
        self.document.replace_design(design, None)
        self._status(f"New design from template {name}")
        return True

    def _fill_templates_menu(self) -> None:
        try:
            from workbench.templates import TEMPLATES
        except ImportError:
            self.templates_menu.setEnabled(False)
            return
        for name, spec in TEMPLATES.items():
            action = self.templates_menu.addAction(getattr(spec, "title", name))
            action.setStatusTip(getattr(spec, "description", ""))
            action.triggered.connect(lambda _=False, n=name: self.new_from_template(n))

    def open(self) -> bool:
        """Ask for a project file and open it."""
        if not self.maybe_save():
            return False
        start = str(self.document.path.parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Open project", start, FILE_FILTER)
        if not path:
            return False
        return self.open_path(path, ask_save=False)

    def open_path(
        self, path: str | Path, *, ask_save: bool = True, links_later: bool = False
    ) -> bool:
        """Open ``path`` into the document; an error dialog names the file on failure.

        When an autosave is newer than the file, offer to recover it first.
        ``links_later`` (the window's start on FILE): the design opens without its
        links, which are read after the first frame (:mod:`~workbench.store.later`); a
        file whose links are refused then is handled by :meth:`_links_refused`.
        """
        if ask_save and not self.maybe_save():
            return False
        path = Path(path).expanduser()
        sweep = store.sweep_temps(path)  # leftovers of saves that were interrupted
        if path in {store.target_of(t) for t in sweep.recoverable} and not self._offer_temps(
            path, sweep
        ):
            return False
        source, recovered = path, False
        if path.exists() and store.autosave_is_newer(path):
            choice = self.ask_recovery(path)
            if choice == "cancel":
                return False
            if choice == "recover":
                source, recovered = store.autosave_path(path), True
        repairs: tuple = ()
        version = file_version(source)  # before it is read: a write meanwhile moves it
        later: LinksToRead | None = None
        design: Design | None
        try:
            if links_later and not recovered:
                from workbench.store.later import open_design_in_parts

                design, later = open_design_in_parts(source, self.catalog)
            else:
                design = store.open_design(source, self.catalog)
        except store.ProjectFileError as exc:
            design, repairs = self._repaired(source, exc)
        except Exception as exc:  # noqa: BLE001 - unexpected, but still name the file
            self._error("Cannot open project", f"{source}: {exc}")
            design = None
        if design is None:
            return False
        self.document.replace_design(design, path.resolve())
        if later is not None:
            reading = self.document.read_links_later(later)
            reading.progress.connect(self._status)
            reading.waiting.connect(self._status_now)
            reading.finished.connect(lambda: self._status(f"Opened {path}"))
            reading.refused.connect(lambda exc: self._links_refused(path, exc))
        if repairs:
            self._opened_repaired(path, repairs)
        elif recovered:
            self.document.undo_stack.resetClean()  # differs from the file on disk
            self._status(f"Recovered autosaved changes of {path.name}; save to keep them")
        else:
            self.document.file_version = version
            tidy = sweep.summary()
            self._status(f"Opened {path}" + (f"; {tidy}" if tidy else ""))
        self.add_recent(path)
        return True

    def _offer_temps(self, path: Path, sweep: store.TempSweep) -> bool:
        """A complete save newer than ``path`` was interrupted before it replaced the
        file: offer it (the user's latest work) before opening the older file.  Returns
        False when the user cancels."""
        temps = [t for t in sweep.recoverable if store.target_of(t) == path]
        newest = max(temps, key=lambda t: t.stat().st_mtime)
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Interrupted save found")
        box.setText(
            f"A save of {path.name} was interrupted after it was written completely, and it "
            "is newer than the file. Recover it in place of the file?"
        )
        box.setInformativeText(f"{newest.name}\n(the current file is kept if you open it as it is)")
        recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Open the File as It Is", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        try:
            if clicked is recover:
                store.recover_temp(newest)
                for other in temps:
                    if other != newest:
                        store.discard_temp(other)
            elif clicked is keep:
                for other in temps:
                    store.discard_temp(other)
            else:
                return False
        except store.ProjectFileError as exc:
            self._error("Cannot recover the interrupted save", str(exc))
            return False
        return True

    def _links_refused(self, path: Path, refused: store.ProjectFileError) -> None:
        """The links of the file the window started on were refused after its first
        frame: the design shown is dropped (it was never edited: edits wait for the
        links).  As at a start on any bad file, a repair is offered, and without one the
        window closes with the reason on stderr and exit status 1 (see ``run_app``)."""
        design, repairs = self._repaired(path, refused)
        if design is not None:
            self.document.replace_design(design, path.resolve())
            self._opened_repaired(path, repairs)
            return
        self.document.replace_design(Design(), None)  # not the file's: never shown as it
        print(f"workbench: {self.last_error}", file=sys.stderr)
        self.window.close()
        QApplication.exit(1)

    def _opened_repaired(self, path: Path, repairs: tuple) -> None:
        self.document.undo_stack.resetClean()  # differs from the file until saved
        self._status(
            f"Opened a repaired copy of {path.name} ({len(repairs)} repairs); the file "
            "stays as it was until you save"
        )

    def _repaired(self, path: Path, refused: store.ProjectFileError) -> tuple[Design | None, tuple]:
        """The design of a file the reader refused, mended in memory, if the user takes
        the repairs listed (:mod:`workbench.store.repair`); else the refusal is shown.
        Nothing is written: the file stays as it was until the user saves."""
        from workbench.store.repair import plan_repairs

        try:
            plan = plan_repairs(path, self.catalog)
        except Exception:  # noqa: BLE001 - not mendable: the reader's own words say why
            plan = None
        if plan is None or not plan.repairs:
            self._error("Cannot open project", str(refused))
            return None, ()
        if not self.ask_repair(path, refused, [r.line() for r in plan.repairs]):
            self._error("Cannot open project", str(refused))
            return None, ()
        return plan.design, plan.repairs

    def ask_repair(self, path: Path, refused: store.ProjectFileError, lines: list[str]) -> bool:
        """True to open the mended copy of ``path`` (its repairs are ``lines``)."""
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Project needs repair")
        box.setText(
            f"{path.name} holds {len(lines)} value(s) the workbench cannot use, so it cannot "
            "be opened as it is. Open a repaired copy? The file itself stays as it was "
            "until you save."
        )
        shown = lines[:12] + ([f"... and {len(lines) - 12} more"] if len(lines) > 12 else [])
        box.setInformativeText("\n".join(shown))
        box.setDetailedText(f"{refused}\n\n" + "\n".join(lines))
        repair = box.addButton("Open Repaired Copy", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is repair

    def _read(self, path: Path, title: str) -> Design | None:
        """Open ``path`` from disk, or show one dialog naming the file and return None."""
        try:
            return store.open_design(path, self.catalog)
        except store.ProjectFileError as exc:
            self._error(title, str(exc))
        except Exception as exc:  # noqa: BLE001 - unexpected, but still name the file
            self._error(title, f"{path}: {exc}")
        return None

    def recover_untitled(self) -> bool:
        """At start-up without a FILE: offer the autosaved copy of an unsaved design.

        Without this the next session's first autosave would overwrite that copy.  A
        recovered design opens untitled and unsaved (dirty), so closing asks to save it
        and its copy stays until the user saves or discards; declining removes the copy.
        Returns True when the design was recovered (else the caller opens the sample).
        """
        if not store.autosave_is_newer(None):
            return False
        if not self.ask_untitled_recovery():
            self.discard_autosave()
            return False
        design = self._read(store.autosave_path(None), "Cannot recover the unsaved design")
        if design is None:
            return False
        self.document.replace_design(design, None)
        self.document.undo_stack.resetClean()  # exists nowhere but in the autosave
        self._status("Recovered the unsaved design of the last session; save to keep it")
        return True

    # -- Save --------------------------------------------------------------------------
    def save(self) -> bool:
        """Save to the current path, or ask for one."""
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        """Ask for a path and save there."""
        if self.document.path is not None:
            start = str(self.document.path)
        else:
            start = portable_stem(self.document_name()) + store.FILE_SUFFIX
        path, _ = QFileDialog.getSaveFileName(self.window, "Save project as", start, FILE_FILTER)
        if not path:
            return False
        return self.save_to(path)

    def save_to(self, path: str | Path) -> bool:
        """Write the design atomically to ``path`` (suffix added when missing); links
        still being read are read first (a design is never written without them)."""
        if not self.document.links_read():
            return False
        path = Path(path).expanduser()
        if path.suffix.lower() != store.FILE_SUFFIX:
            path = path.with_name(path.name + store.FILE_SUFFIX)
        previous = self.document.path
        try:
            sweep = store.save_design(self.document.design, path)
        except store.ProjectFileError as exc:
            self._error("Cannot save project", str(exc))
            return False
        except Exception as exc:  # noqa: BLE001
            self._error("Cannot save project", f"{path}: {exc}")
            return False
        self.document.mark_saved(path.resolve())
        self.document.file_version = file_version(path)
        self.saved.emit(path.resolve())
        for old in {previous, path}:
            store.discard_autosave(old)
        self.add_recent(path)
        tidy = sweep.summary() if sweep is not None else ""
        self._status(f"Saved {path}" + (f"; {tidy}" if tidy else ""))
        return True

    # -- autosave ----------------------------------------------------------------------
    def _on_document_changed(self, _change=None) -> None:
        """An edit or a newly loaded design: what the last copy holds is out of date."""
        self._generation += 1

    def autosave(self) -> bool:
        """Write the recovery copy when there are unsaved changes not yet in it.

        Returns True when a copy was written.
        """
        if not self.document.is_dirty or self._autosaved_generation == self._generation:
            return False
        if not self.document.links_read():  # never while the links are being read
            return False
        try:
            store.write_autosave(self.document.design, self.document.path)
        except store.ProjectFileError as exc:
            self._status(f"Autosave failed: {exc}")
            return False
        self._autosaved_generation = self._generation
        return True

    def discard_autosave(self) -> None:
        """Drop the recovery copy (the user saved or chose to discard)."""
        store.discard_autosave(self.document.path)
        self._autosaved_generation = None

    # -- Recent ------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        """Recently opened or saved files, newest first."""
        value = self.settings.value(RECENT_KEY, [])
        if isinstance(value, str):
            return [value] if value else []
        if not isinstance(value, Iterable):  # None (an empty list on some platforms)
            return []
        return [str(v) for v in value]

    def sweep_recent_folders(self) -> store.TempSweep:
        """At start: remove what killed saves, exports, prints and imports left in the
        folders of the recent files (a complete interrupted save is kept, and offered
        when its file is opened).  Returns what was found, all folders together."""
        removed: list[Path] = []
        freed = 0
        for folder in dict.fromkeys(Path(f).parent for f in self.recent_files()):
            sweep = store.sweep_temps(folder) if folder.is_dir() else store.TempSweep()
            removed += sweep.removed
            freed += sweep.freed_bytes
        found = store.TempSweep(removed=tuple(removed), freed_bytes=freed)
        if found.summary():
            self.window.statusBar().showMessage(found.summary(), 10_000)
        return found

    def _set_recent(self, files: list[str]) -> None:
        self.settings.setValue(RECENT_KEY, files[:MAX_RECENT])

    def add_recent(self, path: str | Path) -> None:
        text = str(Path(path).resolve())
        self._set_recent([text] + [f for f in self.recent_files() if f != text])

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        present = [f for f in files if Path(f).exists()]
        if len(present) != len(files):
            missing = [Path(f).name for f in files if f not in present]
            self._set_recent(present)
            self._status("Removed from Recent (file no longer exists): " + ", ".join(missing))
        for i, file in enumerate(present, start=1):
            action = self.recent_menu.addAction(f"&{i} {Path(file).name}")
            action.setStatusTip(file)
            action.setToolTip(file)
            action.triggered.connect(lambda _=False, f=file: self._open_recent(f))
        if not present:
            empty = self.recent_menu.addAction("No recent files")
            empty.setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", lambda: self._set_recent([]))

    def _open_recent(self, file: str) -> None:
        if not Path(file).exists():
            self._set_recent([f for f in self.recent_files() if f != file])
            self._error(
                "Cannot open project",
                f"{file}: the file no longer exists; it was removed from the Recent list.",
            )
            return
        self.open_path(file)
