"""The site engineer's as-built check through the window system (issue 21's as-built
work): File ▸ Import ▸ As-built captures… reached with the mouse over the menus, the
folder typed into the folder dialog as a person would, then the totals of what was
built right and wrong, one undo step that Edit ▸ Undo takes back.  The capture is the
sample ibnetdiscover output of the 256-GPU SuperPOD template with one fault of each
kind (``tests/data/captures``)."""

from __future__ import annotations

import time
from pathlib import Path

from xsession import JourneyError, at

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "ibnetdiscover"


def _menu_item(x, text: str, timeout: float = 10.0) -> tuple[int, int]:
    """Where ``text`` is in the open menus, once its submenu has opened on hover."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return at(x.ask("menu_item", text=text))
        except JourneyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_import_as_built_captures_from_the_menu(xsession, shots, tmp_path):
    x = xsession
    design = tmp_path / "pod.dcwb"
    x.new_design(design, 256)
    x.start_app(str(design))
    x.wait_for("the design", lambda s: "256 GPUs" in s["strip"])
    before = x.ask("state")["undo_count"]

    # File ▸ Import ▸ As-built captures…, the pointer moved over each menu in turn.
    x.key("alt+f")
    x.move(_menu_item(x, "Import"))
    x.move(_menu_item(x, "As-built captures"))
    x.xdotool("click", 1)
    x.wait_window("Folder of as-built captures")
    x.key("ctrl+a")
    x.type(str(CAPTURES))
    x.key("Return")
    # Asked of the window, not searched for in X: the folder dialog and the progress
    # dialog are being destroyed meanwhile, and a search that meets one fails.
    state = x.wait_for("the totals", lambda s: s["active_window"] == "As built", timeout=60)
    x.screenshot(shots / "asbuilt-summary.png")
    assert state["undo_count"] == before + 1
    assert state["undo_text"] == f"Import as-built captures from {CAPTURES.name}"
    assert state["modified"]

    # Close the totals, then Edit ▸ Undo: the captures go, the design is as it was.
    x.key("Escape")
    x.wait_for("the totals closed", lambda s: s["active_window"] != "As built")
    x.key("ctrl+z")
    state = x.wait_for(
        "the import undone", lambda s: s["undo_count"] - before == 1 and not s["modified"]
    )
    assert state["undo_text"] == ""
