"""What the window does before its first drawn frame (issue 21, cold start).

A fresh process starts the window as ``workbench`` does (``run_app`` on the bundled
sample) and reports, at its first paint, which heavy libraries it had imported, how often
the catalog folder was read and whether the full rule check had already run.  The
libraries named here load on first use only: importing them is a tenth of a second or
more each, paid by every start although most sessions never export a workbook, compare
scenarios or validate a catalog file that changed.  Timings are not asserted here (see
``tests/benchmarks/bench_cold_start.py``); what is asserted could regress silently with one
top-level import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: Loaded on first use, never by starting the window on the sample.
DEFERRED = ("networkx", "openpyxl", "jsonschema", "pyqtgraph", "sqlite_utils", "reportlab")
#: Modules of ours (and Qt's) that only a menu action needs: loaded when it is chosen.
DEFERRED_MODULES = (
    "workbench.templates.builder",
    "workbench.templates.variants",
    "workbench.asbuilt.matcher",
    "workbench.netbox.importer",
    "workbench.versions.importer",
    "workbench.ui.scenarios.wizard",
    "PySide6.QtNetwork",
    # The Fabric and Versions tabs and the Storage panel (behind Checks): built when
    # first shown.  (The Cables panel's module is read at start for its plane titles.)
    "workbench.ui.fabric.view",
    "workbench.ui.versions.view",
    "workbench.ui.storage.panel",
)
#: Loaded after the first frame, in steps, by the first check
#: (``check_loading.CHECK_MODULES``): numpy, the workload estimates, the compute plane and
#: the rules (~0.2 s of CPU here), which nothing in the first frame reads: the estimate
#: is pending and the findings are "Checking…" until the check has run.
AFTER_FIRST_FRAME = (
    "numpy",
    "workbench.calc.workload",
    "workbench.calc.design_hardware",
    "workbench.calc.fabric.analysis",
    "workbench.rules.engine",
    "workbench.rules.every_rule",
)

CHILD = r"""
import gc, json, os, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

import workbench.catalog.loader as loader

reads = []
original = loader._load_folder
def counting(folder, catalog):
    reads.append(str(folder))
    return original(folder, catalog)
loader._load_folder = counting

app = QApplication(sys.argv[:1])
done = []

found = {}

def report():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, QMainWindow))
    deferred = sys.argv[1].split(",")
    found.update(
        imported=sorted({m.split(".")[0] for m in sys.modules} & set(deferred)),
        modules=sorted(set(sys.modules) & set(sys.argv[2].split(","))),
        after_first_frame=sorted(set(sys.modules) & set(sys.argv[3].split(","))),
        # No rule registered yet: no rule module was loaded (importing one registers it).
        registered=len(sys.modules["workbench.rules.registry"].REGISTRY),
        catalog_reads=reads,
        checked=bool(window.document.figures.checked),
        # The racks drawn read their own loads; every rack's is read by the first check.
        rack_loads_read=window.document.figures.computed["rack_loads"],
        rack_loads_drawn=window.document.figures.computed["rack_load"],
        links_pending=window.document.links_pending,
        links_at_frame=len(window.document.design.links),
    )
    settled(window)

def settled(window):
    # Once the first check and its warm-up are done (they run after the first frame), is
    # the collector back?
    figures = window.document.figures
    if figures.held or not figures.settled:
        QTimer.singleShot(10, lambda: settled(window))
        return
    QTimer.singleShot(0, lambda: replaced(window))  # the findings announced

def replaced(window):
    found["links_when_checked"] = len(window.document.design.links)
    found["collector_back"] = gc.isenabled()
    found["frozen"] = gc.get_freeze_count()
    from workbench.model import Design
    window.document.replace_design(Design(), None)  # another design: collected, set aside
    found["frozen_after_replace"] = gc.get_freeze_count()
    found["collector_off_for_new_check"] = not gc.isenabled()
    window.document.figures.check_soon()
    again(window)

def again(window):
    if not window.document.figures.settled:
        QTimer.singleShot(10, lambda: again(window))
        return
    QTimer.singleShot(0, lambda: report_all())

def report_all():
    found["collector_back_after_replace"] = gc.isenabled()
    found["loaded_by_check"] = sorted(set(sys.modules) & set(sys.argv[3].split(",")))
    # A design without captures never needs the as-built matcher, checked or not.
    found["matcher_after_checks"] = "workbench.asbuilt.matcher" in sys.modules
    print("REPORT " + json.dumps(found), flush=True)
    os._exit(0)

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if not done and event.type() == QEvent.Type.Paint:
            window = obj.window() if hasattr(obj, "window") else None
            if isinstance(window, QMainWindow):
                done.append(True)
                QTimer.singleShot(0, report)
        return False

spy = FirstPaint()
app.installEventFilter(spy)
QTimer.singleShot(90_000, lambda: os._exit(3))  # no frame: fail, do not hang
from workbench.ui.shell.app import run_app
sys.exit(run_app(os.environ.get("COLD_START_FILE")))
"""


def _start(tmp_path: Path, file: Path | None = None) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),  # no saved layout, no recovery offer
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    root = Path(__file__).resolve().parents[1]
    if file is not None:
        env["COLD_START_FILE"] = str(file)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    # The catalog's schema verdicts are cached by file digest: the first start of a
    # fresh account validates (and imports jsonschema), every later one does not.
    warm = "from workbench.catalog import load_catalog; load_catalog()"
    subprocess.run([sys.executable, "-c", warm], env=env, check=True, timeout=120)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            ",".join(DEFERRED),
            ",".join(DEFERRED_MODULES),
            ",".join(AFTER_FIRST_FRAME),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    for line in done.stdout.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line.removeprefix("REPORT "))
    raise AssertionError(f"no first frame (exit {done.returncode}):\n{done.stderr[-3000:]}")


def test_the_first_frame_imports_no_deferred_library_reads_the_catalog_once_and_checks_later(
    tmp_path: Path,
) -> None:
    found = _start(tmp_path)
    assert found["imported"] == [], f"imported before the first frame: {found['imported']}"
    assert found["modules"] == [], f"imported before the first frame: {found['modules']}"
    assert found["after_first_frame"] == [], found["after_first_frame"]
    assert found["registered"] == 0, "a rule module was loaded before the first frame"
    assert found["loaded_by_check"] == sorted(AFTER_FIRST_FRAME), found["loaded_by_check"]
    assert not found["matcher_after_checks"], "the as-built matcher loaded for no captures"
    assert len(found["catalog_reads"]) == 1, found["catalog_reads"]
    assert not found["checked"], "the full rule check ran before the first frame"
    assert found["rack_loads_read"] == 0, "every rack's load was read for the first frame"
    assert found["rack_loads_drawn"] > 0, "no rack drawn in the first frame read its load"
    assert found["collector_back"], "the garbage collector stayed off after the first check"
    # What the start made is set aside from later passes; a new design is set aside in
    # turn (after the old one's cycles are collected) and the collector is off until its
    # first check is done, then back.
    assert found["frozen"] > 0 and found["frozen_after_replace"] > 0
    assert found["collector_off_for_new_check"] and found["collector_back_after_replace"]


def test_a_start_on_a_file_draws_before_reading_its_links(tmp_path: Path) -> None:
    """``workbench FILE``: the first frame comes before the links are read (the bulk of
    a large file, see ``store.later``), and the first check runs on all of them."""
    from workbench.store import open_design, save_design
    from workbench.templates import sample_design

    path = tmp_path / "sample.dcwb"
    save_design(sample_design(), path)
    links = len(open_design(path).links)
    assert links > 0
    found = _start(tmp_path, path)
    assert found["links_pending"] and found["links_at_frame"] == 0
    assert not found["checked"]
    assert found["links_when_checked"] == links
