"""The window's actions for building a hall: cut, copy and paste devices; add rows and
racks, duplicate and reorder racks; and the rack view's context menu.

Each action asks :mod:`workbench.model.hall_edits` for one batch and pushes it as one
undoable command; a refusal (a paste that does not fit, a rack already at the end of its
row) changes nothing and says why in the status bar.  The clipboard carries devices as
JSON under their own mime type (and as text), so a copy survives switching designs.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from PySide6.QtCore import QMimeData, QObject, QPoint
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QMainWindow,
    QMenu,
    QSpinBox,
    QWidget,
)

from workbench.model import hall_edits, ops, requests
from workbench.model.errors import EditError
from workbench.planning.rack_pdus import with_pdus
from workbench.ui.commands import EditCommand
from workbench.ui.racks.view import RackView
from workbench.ui.shell.document import Document
from workbench.units import format_count

#: The clipboard format of copied devices.
DEVICES_MIME = "application/x-workbench-devices"


_clearing_on_quit = False


def _clear_clipboard_on_quit() -> None:
    """Empty the clipboard when the application quits, if it still holds our devices.

    PySide6 frees clipboard data made in Python twice when the application object is
    destroyed (a crash on the way out, after everything was saved).  The devices are
    only useful inside the workbench, so nothing is lost by dropping them at exit.
    """
    global _clearing_on_quit
    app = QGuiApplication.instance()
    if _clearing_on_quit or app is None:
        return
    _clearing_on_quit = True
    app.aboutToQuit.connect(clear_our_clipboard)


def clear_our_clipboard() -> None:
    """Drop devices this workbench put on the clipboard (what quitting needs)."""
    clipboard = QGuiApplication.clipboard()
    mime = clipboard.mimeData()
    if mime is not None and mime.hasFormat(DEVICES_MIME):
        clipboard.clear()


class AddRacksDialog(QDialog):
    """Which rack model, and how many."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Add racks")
        self.model = QComboBox()
        self.model.setObjectName("addRacksModel")
        racks = {s: i for s, i in document.design.device_types.items() if i.kind == "rack"}
        if document.catalog is not None:
            racks.update({i.slug: i for i in document.catalog if i.kind == "rack"})
        for slug, item in sorted(racks.items(), key=lambda kv: kv[1].label):
            self.model.addItem(f"{item.label} ({item.u_height:g}U)", slug)
        self.count = QSpinBox()
        self.count.setObjectName("addRacksCount")
        self.count.setRange(1, 500)
        form = QFormLayout(self)
        form.addRow("Rack model", self.model)
        form.addRow("How many", self.count)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class HallActions(QObject):
    """Owns the hall-editing actions of one window."""

    def __init__(self, window: QMainWindow, document: Document, rack_view: RackView):
        super().__init__(window)
        self.window = window
        self.document = document
        self.rack_view = rack_view
        #: The window's Delete (it removes fabric links too, so the window owns it): the
        #: rack view's context menu offers it once the window has made it.
        self.delete_action: QAction | None = None
        self.cut_action = self._action("Cu&t", QKeySequence.StandardKey.Cut, self.cut)
        self.copy_action = self._action("&Copy", QKeySequence.StandardKey.Copy, self.copy)
        self.paste_action = self._action("&Paste", QKeySequence.StandardKey.Paste, self.paste)
        self.add_row_action = self._action("Add &Row", "Ctrl+Shift+R", self.add_row)
        self.delete_row_action = self._action("Delete R&ow", "Ctrl+Shift+Del", self.delete_row)
        self.add_racks_action = self._action("Add R&acks…", "Ctrl+Shift+A", self.add_racks)
        self.duplicate_action = self._action("D&uplicate Rack", "Ctrl+D", self.duplicate_rack)
        self.left_action = self._action(
            "Move Rack &Left", "Ctrl+Shift+Left", lambda: self.move_rack(-1)
        )
        self.right_action = self._action(
            "Move Rack Ri&ght", "Ctrl+Shift+Right", lambda: self.move_rack(1)
        )
        #: Asked for the rack model and count (tests answer it).
        self.ask_racks = self._ask_racks

    def _action(self, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self.window)
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        else:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def fill_edit_menu(self, menu: QMenu) -> None:
        for action in (self.cut_action, self.copy_action, self.paste_action):
            menu.addAction(action)

    def fill_hall_menu(self, menu: QMenu) -> None:
        for action in (self.add_row_action, self.add_racks_action, self.duplicate_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.left_action)
        menu.addAction(self.right_action)
        menu.addSeparator()
        menu.addAction(self.delete_row_action)

    # -- what the user has chosen -----------------------------------------------------------
    def _say(self, text: str, timeout_ms: int = 6000) -> None:
        self.window.statusBar().showMessage(text, timeout_ms)

    def _push(self, make, text: str) -> bool:
        """Push the batch ``make()`` builds as one command; False (and why) if refused.
        Devices the batch adds (a paste) become the selection, so they can be moved on."""
        try:
            batch = make()
        except EditError as exc:
            self._say(str(exc), 8000)
            return False
        if not batch.ops:
            return False
        self.document.push(EditCommand(self.document, batch, text))
        devices = self.document.design.index.devices
        added = [o.device.id for o in batch.ops if isinstance(o, ops.AddDevice)]
        added = [i for i in added if i in devices]
        if added:
            self.document.select_many(added)
        return True

    def selected_rack(self) -> str | None:
        """The selected rack, or the rack of the selected device."""
        selection = self.document.selection
        rack = self.document.design.index.rack_of(selection) if selection else None
        return rack.id if rack is not None else None

    def selected_row(self) -> str | None:
        rack = self.selected_rack()
        row = self.document.design.index.row_of_rack(rack) if rack else None
        if row is not None:
            return row.id
        selection = self.document.selection
        return selection if selection in self.document.design.index.rows else None

    # -- clipboard ------------------------------------------------------------------------
    def copy(self, verb: str = "copy") -> int:
        """Put the selected devices on the clipboard; returns how many."""
        devices = [i for i in self.document.selected if i in self.document.design.index.devices]
        if not devices:
            self._say(f"Select devices to {verb}.")
            return 0
        copied = hall_edits.copy_devices(self.document.design, devices)
        mime = QMimeData()
        payload = json.dumps([asdict(c) for c in copied])
        mime.setData(DEVICES_MIME, payload.encode("utf-8"))
        mime.setText("\n".join(f"{c.name}\t{c.device_type}" for c in copied))
        QGuiApplication.clipboard().setMimeData(mime)
        _clear_clipboard_on_quit()
        self._say(f"Copied {format_count(len(copied), 'device')}.", 4000)
        return len(copied)

    def cut(self) -> None:
        """Copy the selected devices, then take them out: one undo step named "Cut"."""
        count = self.copy("cut")
        if not count:
            return
        devices = [i for i in self.document.selected if i in self.document.design.index.devices]
        what = format_count(count, "device")
        if self._push(lambda: requests.delete(self.document.design, devices), f"Cut {what}"):
            self._say(f"Cut {what}.", 4000)

    def clipboard_devices(self) -> list[hall_edits.Copied]:
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None or not mime.hasFormat(DEVICES_MIME):
            return []
        try:
            rows = json.loads(bytes(mime.data(DEVICES_MIME).data()).decode("utf-8"))
            return [hall_edits.Copied(**row) for row in rows]
        except (ValueError, TypeError):
            return []  # someone else's data under our type: nothing to paste

    def paste(self, rack_id: str | None = None, u: int | None = None) -> bool:
        """Paste into the rack and U under the pointer, else the selected rack's lowest
        free units that hold the whole copy."""
        copied = self.clipboard_devices()
        if not copied:
            self._say("Nothing to paste: copy or cut devices first.")
            return False
        if rack_id is None:
            target = self.rack_view.pointer_target()
            if target is not None:
                rack_id, u = target
            else:
                rack_id, u = self.selected_rack(), None
        if rack_id is None:
            self._say("Point at a rack, or select one, to paste into it.")
            return False
        face = self.rack_view.face
        done = self._push(
            lambda: hall_edits.paste(
                self.document.design, self.document.catalog, rack_id, copied, u, face
            ),
            f"Paste {format_count(len(copied), 'device')}",
        )
        if done:
            self._say(f"Pasted {format_count(len(copied), 'device')}.", 4000)
        return done

    # -- the keyboard way to place -----------------------------------------------------------
    def place_here(self, slug: str) -> str | None:
        """Put catalog item ``slug`` into the selected rack (Enter on a catalog item, or
        its Place Here): at the unit last clicked in that rack, else where a fill would
        put it.  Returns the new device's id, or None after saying why not."""
        from workbench.ui.racks import place_here

        rack_id = self.selected_rack()
        if rack_id is None:
            self._say("Select a rack (and a unit) first, then press Enter on a catalog item.")
            return None
        chosen = self.rack_view.chosen_unit
        u = None
        if chosen is not None and chosen[0] == rack_id and self.document.selection == rack_id:
            u = chosen[1]
        placed, message = place_here.place(self.document, rack_id, slug, u, self.rack_view.face)
        self._say(message, 8000)
        if placed is not None:
            self.document.select(placed)
        return placed

    # -- rows and racks ----------------------------------------------------------------------
    def add_row(self) -> bool:
        return self._push(lambda: hall_edits.add_row(self.document.design), "Add row")

    def delete_row(self) -> bool:
        """Remove the row of the selected rack or device, racks and all (one undo step)."""
        row_id = self.selected_row()
        if row_id is None:
            self._say("Select a rack of the row to delete it.")
            return False
        row = self.document.design.index.rows[row_id][1]
        return self._push(
            lambda: requests.delete(self.document.design, [row_id]), f"Delete {row.name}"
        )

    def _ask_racks(self) -> tuple[str, int] | None:
        dialog = AddRacksDialog(self.document, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.model.currentData() is None:
            return None
        return dialog.model.currentData(), dialog.count.value()

    def add_racks(self, row_id: str | None = None) -> bool:
        """Add racks to the selected row (or the last row; a new one if there is none)."""
        design = self.document.design
        row_id = row_id or self.selected_row()
        if row_id is None and design.sites and any(site.rows for site in design.sites):
            row_id = next(row.id for site in reversed(design.sites) for row in site.rows[::-1])
        answer = self.ask_racks()
        if answer is None:
            return False
        slug, count = answer
        if row_id is None:  # no row yet: a new one holding the racks
            return self._push(
                lambda: with_pdus(
                    design,
                    self.document.catalog,
                    hall_edits.add_row(
                        design, catalog=self.document.catalog, rack_type=slug, count=count
                    ),
                ),
                f"Add a row of {format_count(count, 'rack')}",
            )
        index = None
        rack = self.selected_rack()
        placed = design.index.racks.get(rack) if rack else None
        if placed is not None and placed[0].id == row_id:
            index = next(i for i, r in enumerate(placed[0].racks) if r is placed[1]) + 1
        return self._push(
            lambda: with_pdus(
                design,
                self.document.catalog,
                hall_edits.add_racks(design, self.document.catalog, row_id, slug, count, index),
            ),
            f"Add {format_count(count, 'rack')}",
        )

    def duplicate_rack(self) -> bool:
        rack = self.selected_rack()
        if rack is None:
            self._say("Select a rack to duplicate.")
            return False
        return self._push(
            lambda: with_pdus(
                self.document.design,
                self.document.catalog,
                hall_edits.duplicate_rack(self.document.design, rack),
            ),
            "Duplicate rack",
        )

    def move_rack(self, delta: int) -> bool:
        rack = self.selected_rack()
        if rack is None:
            self._say("Select a rack to move it along its row.")
            return False
        return self._push(
            lambda: hall_edits.move_rack_along_row(self.document.design, rack, delta),
            "Move rack " + ("left" if delta < 0 else "right"),
        )

    # -- the rack view's context menu -------------------------------------------------------------
    def context_menu(self, pos: QPoint) -> QMenu:
        """The menu for what is under ``pos`` in the rack view (built for tests too)."""
        view = self.rack_view
        hit = view.object_at(pos)
        target = view.rack_and_u_at(pos)
        design = self.document.design
        menu = QMenu(view)
        if hit is not None and hit not in self.document.selected:
            self.document.select(hit)
        if hit in design.index.devices:
            menu.addAction(self.cut_action)
            menu.addAction(self.copy_action)
            if self.delete_action is not None:
                menu.addAction(self.delete_action)
            menu.addSeparator()
        if target is not None:
            rack_id, u = target
            paste = menu.addAction("Paste Here", lambda: self.paste(rack_id, u))
            paste.setEnabled(bool(self.clipboard_devices()))
            menu.addSeparator()
            menu.addAction(self.add_racks_action)
            menu.addAction(self.duplicate_action)
            menu.addAction(self.left_action)
            menu.addAction(self.right_action)
            self._fill_actions(menu, rack_id)
        menu.addSeparator()
        menu.addAction(self.add_row_action)
        return menu

    def _fill_actions(self, menu: QMenu, rack_id: str) -> None:
        """The placement helpers' entries (Fill rack…, Place across selected racks…)."""
        try:
            from workbench.ui.racks.fill_dialogs import fill_actions
        except ImportError:  # the helpers' module is optional for this menu
            return
        menu.addSeparator()
        fill_actions(menu, self.document, self.window, rack_id)
