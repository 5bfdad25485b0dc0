"""Hostile strings through every text field an edit sets (issue 18, measurement 3):
save and reopen after every accepted edit; count the files that do not reopen.

Run: ``python tests/benchmarks/bench_faults18_hostile_strings.py ARGS`` (see ``sys.argv`` below); the
numbers of the issue-18 run are in that session's report.
"""

import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_stored_text import EDITS, HOSTILE, _design

from workbench.model.errors import EditError
from workbench.store import ProjectFileError, open_design, save_design

rng = random.Random(18)
pool = list(HOSTILE) + [
    "\u0000",
    "\u202e",
    "\u2066x",
    "\ud800",
    "\udfff",
    "a" * 129,
    "a" * 65,
    "a" * 51,
    "a" * 4097,
    "\r\n",
    "\t",
    "\x7f",
    "\x85",
    "\u2028",
    "\u00a0",
    "\ufeff",
    "e\u0301",
    "\U0001f600",
    "\U000e0001",
    "\uffff",
    "\U0010ffff",
    "\x1f",
    " x ",
    "<script>",
    "=cmd|' /C calc'!A0",
    "'; DROP TABLE devices;--",
    "%s%n",
    "../../etc/passwd",
]


def random_text():
    n = rng.randint(0, 80)
    return "".join(
        chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0, 0xFFFF), rng.randint(0, 0x10FFFF)]))
        for _ in range(n)
    )


pool += [random_text() for _ in range(200)]
base = Path(tempfile.mkdtemp()) / "base.dcwb"
save_design(_design(), base)
tried = accepted = refused = unopenable = unsaveable = 0
for column, edit in EDITS.items():
    for text in pool:
        design = open_design(base)
        tried += 1
        try:
            edit(design, text)
        except EditError:
            refused += 1
            continue
        accepted += 1
        out = base.with_name("edited.dcwb")
        try:
            save_design(design, out)
        except ProjectFileError as exc:
            unsaveable += 1
            print("UNSAVEABLE", column, repr(text)[:60], exc)
            continue
        try:
            open_design(out)
        except ProjectFileError as exc:
            unopenable += 1
            print("UNOPENABLE", column, repr(text)[:60], exc)
print(
    f"{len(EDITS)} edited fields x {len(pool)} strings = {tried} edits: {accepted} accepted, "
    f"{refused} refused with a message; unsaveable: {unsaveable}; unopenable: {unopenable}"
)
