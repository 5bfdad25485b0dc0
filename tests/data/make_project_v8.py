"""Write ``project_v8.dcwb``, the sample of schema version 8.  Run once; commit.

Version 8 added as-built captures.  No commit of the workbench ever stood at version 8
(the change that added captures also added version 9), but a file can: a build from
between the two wrote it.  So the sample is made the only faithful way left: the
committed version-7 sample, taken to version 8 by the 7 -> 8 step of the migrations
(which is what version-8 code ran), with two captured links written into the new table.

    .venv/bin/python tests/data/make_project_v8.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import sqlite_utils

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from workbench.store import capture_table  # noqa: E402
from workbench.store.schema import migrate  # noqa: E402

ROWS = [
    (0, "lldp-gpu-node-00.txt", 3, "lldpctl-json", "gpu-node-00 ✓", "compute0", "leaf-01",
     "swp1", 400.0, 4, "2026-04-02T08:00:00+00:00", "2026-04-02T09:00:00+00:00",
     "installer", "cap-1"),
    (1, "lldp-gpu-node-00.txt", 9, "lldpctl-json", "gpu-node-00 ✓", "compute1", "leaf-02",
     "swp1", None, None, "2026-04-02T08:00:00+00:00", "2026-04-02T09:00:00+00:00",
     "installer", "cap-1"),
]  # fmt: skip

if __name__ == "__main__":
    target = HERE / "project_v8.dcwb"
    shutil.copyfile(HERE / "project_v7.dcwb", target)
    db = sqlite_utils.Database(target)
    migrate(db, 7, 8)
    columns = capture_table.COLUMNS[capture_table.TABLE]
    if len(columns) != len(ROWS[0]):
        sys.exit(f"the captures table has columns {columns}; update ROWS to match")
    db[capture_table.TABLE].insert_all([dict(zip(columns, row, strict=True)) for row in ROWS])
    meta = db["meta"]
    meta.update("name", {"value": '"Sample saved by schema version 8"'})
    meta.update("schema_version", {"value": "8"})
    db.conn.commit()
    db.vacuum()
    db.close()
    print(f"wrote {target} ({target.stat().st_size} bytes)")
