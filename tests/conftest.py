"""Shared test setup.

Qt must use the offscreen platform before any QApplication exists, or pytest aborts on
a machine without a display.  Keep this file small: area-specific fixtures live in the
test modules of that area.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The catalog's schema verdicts are cached per user (workbench.catalog.schema_cache):
# tests start from an empty cache of their own, not from what the user's runs left.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="workbench-test-cache-")

import pytest  # noqa: E402

from workbench.catalog.item import CatalogItem, Interface  # noqa: E402
from workbench.model import Design, Device, Rack, Row, Site  # noqa: E402


def _tiny_design() -> Design:
    """Two rows: a GPU rack with two 8U servers and a switch, and an empty rack."""
    types = {
        "rack-42u": CatalogItem(
            slug="rack-42u", kind="rack", manufacturer="Generic", model="42U rack", u_height=42
        ),
        "nvidia-dgx-h100": CatalogItem(
            slug="nvidia-dgx-h100",
            kind="server",
            manufacturer="NVIDIA",
            model="DGX H100",
            u_height=8,
            gpu="nvidia-h100-sxm",
            gpu_count=8,
            max_power_w=10200,
            typical_power_w=8500,
            weight=130.45,
            tflops={},
        ),
        "nvidia-h100-sxm": CatalogItem(
            slug="nvidia-h100-sxm",
            kind="gpu",
            manufacturer="NVIDIA",
            model="H100 SXM5 80GB",
            tflops={"bf16": 989.4, "fp8": 1978.9},
            max_power_w=700,
        ),
        "mgmt-48": CatalogItem(
            slug="mgmt-48",
            kind="switch",
            manufacturer="NVIDIA",
            model="SN2201",
            u_height=1,
            max_power_w=100,
            weight=8,
            interfaces=(Interface("eth1", "1000base-t"),),
        ),
    }
    gpu_rack = Rack(
        id="r1",
        name="A01",
        rack_type="rack-42u",
        cooling="rear-door",
        power_limit_kw=50.0,
        devices=[
            Device(id="d1", name="dgx-001", device_type="nvidia-dgx-h100", position=2),
            Device(id="d2", name="dgx-002", device_type="nvidia-dgx-h100", position=12),
            Device(id="s1", name="mgmt-a01", device_type="mgmt-48", position=42),
        ],
    )
    empty = Rack(id="r2", name="B01", rack_type="rack-42u")
    return Design(
        name="Tiny design",
        sites=[
            Site(
                id="s",
                name="Hall 1",
                rows=[
                    Row(id="row-a", name="Row A", racks=[gpu_rack]),
                    Row(id="row-b", name="Row B", racks=[empty]),
                ],
            )
        ],
        device_types=types,
    )


@pytest.fixture
def tiny_design_factory():
    """Makes a fresh tiny design per call. Tests take it as a fixture: ``from conftest
    import`` finds whichever conftest module pytest imported last (tests/journeys has
    one too), so it breaks when the whole suite runs."""
    return _tiny_design


@pytest.fixture
def tiny_design() -> Design:
    """A hand-built two-rack design that needs no catalog or template."""
    return _tiny_design()


@pytest.fixture
def boxes(monkeypatch):
    """``boxes("critical")``: the (title, text) of every ``QMessageBox.critical`` shown
    from then on (or another static box's name), each answered OK at once."""
    from PySide6.QtWidgets import QMessageBox

    def record(name: str) -> list[tuple[str, str]]:
        shown: list[tuple[str, str]] = []

        def box(parent, title, text, *args, **kwargs):
            shown.append((title, text))
            return QMessageBox.StandardButton.Ok

        monkeypatch.setattr(QMessageBox, name, staticmethod(box))
        return shown

    return record


@pytest.fixture(autouse=True)
def _no_blocking_dialogs(monkeypatch):
    """No test may hang on a modal box nobody can click.

    A window closed at teardown with unsaved edits asks Save/Discard/Cancel; offscreen,
    that box would wait forever and CI would time out with no clue.  Every static
    QMessageBox answers at once (Discard, or OK); a test that wants another answer
    patches the same names itself, which overrides this.
    """
    from PySide6.QtWidgets import QMessageBox

    ok = QMessageBox.StandardButton.Ok
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    )
    for name in ("critical", "warning", "information"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(lambda *a, **k: ok))
    from workbench.ui.shell.file_actions import FileActions

    # The offer to open a repaired copy of a refused file is declined unless a test
    # answers it (tests/test_repair.py).
    monkeypatch.setattr(FileActions, "ask_repair", lambda self, *a: False)


@pytest.fixture(autouse=True)
def _collect_qt_garbage(request):
    """Collect each window test's leftovers while the QApplication is still running.

    The Estimates view's pyqtgraph plots leave reference cycles behind once pytest-qt has
    closed and deleted a test's widgets.  Collected much later (after other tests built
    and destroyed other scenes, or at interpreter exit) those wrappers crashed the
    process with SIGSEGV after every test had passed: the full run exited 139 about one
    time in two.  Flushing deferred deletes and collecting right after each Qt test frees
    them in a well-defined state.  The app itself is unaffected: its one Estimates view
    lives until the application quits, and quitting was checked to exit 0.
    """
    yield
    if not {"qtbot", "qapp"} & set(request.fixturenames):
        return
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
    gc.collect()


def pytest_sessionfinish(session, exitstatus) -> None:
    """Empty the clipboard before the interpreter exits (the app does it on quit; the
    tests never quit it): PySide6 frees clipboard data made in Python twice when the
    application object goes, and the whole run would end in SIGSEGV after passing."""
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        from workbench.ui.shell.hall_actions import clear_our_clipboard

        clear_our_clipboard()
