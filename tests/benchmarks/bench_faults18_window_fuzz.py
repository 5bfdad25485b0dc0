"""Corrupted project files in the real window, every tab (issue 18, measurement 2).

Each file the reader accepts is opened in the window; each it refuses is mended
(workbench.store.repair) and the repaired design is opened.  Every tour runs in its
own process so a crash (SIGSEGV) is counted, not fatal to the run.

Run: ``python tests/benchmarks/bench_faults18_window_fuzz.py ARGS`` (see ``sys.argv`` below); the
numbers of the issue-18 run are in that session's report.
"""

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["QT_QPA_PLATFORM"] = "offscreen"

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QSettings
app = QApplication([])
from workbench.ui.shell.main_window import MainWindow
from workbench.ui.shell.document import Document
from workbench.model.design import Design
from workbench.store import open_design, ProjectFileError
from workbench.store.repair import plan_repairs
from test_ui_odd_designs import exercise
path = Path(sys.argv[1])
try:
    design = open_design(path)
except ProjectFileError:
    design = plan_repairs(path).design
w = MainWindow(Document(design), settings=QSettings(sys.argv[2], QSettings.Format.IniFormat))
w.resize(1400, 900); w.show(); app.processEvents()
w.file_actions.autosave_timer.stop()
exercise(w)
print("ok")
"""

from fuzz_cases import all_snapshot_cases, all_value_cases, make_cases, sample_bytes  # noqa: E402

from workbench.store import ProjectFileError, open_design  # noqa: E402
from workbench.store.repair import plan_repairs  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
scratch = Path(tempfile.mkdtemp())
original = sample_bytes()
cases = all_value_cases(7) + all_snapshot_cases(7) + make_cases(400, 7)
random.Random(18).shuffle(cases)
accepted = repaired = unmendable = 0
runs = crashes = errors = 0
seen = 0
for case in cases:
    if runs >= n:
        break
    data = case.build(original, scratch)
    if data is None or data == original:
        continue
    path = scratch / "case.dcwb"
    path.write_bytes(data)
    try:
        open_design(path)
        kind = "accepted"
    except ProjectFileError:
        try:
            plan_repairs(path)
            kind = "repaired"
        except ProjectFileError:
            unmendable += 1
            continue
        except Exception as exc:
            print("REPAIR RAISED", case.ident, type(exc).__name__, exc)
            errors += 1
            continue
    if kind == "accepted":
        accepted += 1
    else:
        repaired += 1
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(path),
            str(scratch / "s.ini"),
            str(Path(__file__).resolve().parents[1]),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    runs += 1
    if r.returncode < 0:
        crashes += 1
        print("CRASH", case.ident, r.returncode)
    elif r.returncode != 0 or "Traceback" in r.stderr:
        errors += 1
        print("ERROR", case.ident, r.stderr[-600:])
print(
    f"window tours: {runs} ({accepted} files the reader accepts, {repaired} repaired copies of refused ones); "
    f"crashes: {crashes}; exceptions: {errors}; refused and not mendable (damaged databases): {unmendable}"
)
