"""Benchmark: importing 1,000 generated NetBox device-type files (issue 13).

Run as ``.venv/bin/python tests/benchmarks/bench_catalog_import.py``; it prints the time for the schema check, classification and parse of every file
(``load_file``), and for ``workbench catalog import-netbox`` of all of them.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from pathlib import Path

from workbench.catalog import load_file
from workbench.cli.main import main

FILES = 1_000


def _write(folder: Path) -> list[Path]:
    paths = []
    for n in range(FILES):
        ports = "".join(
            f"  - name: swp{i}\n    type: 400gbase-x-osfp\n" for i in range(32 if n % 2 else 4)
        )
        text = (
            f"---\nmanufacturer: Bench\nmodel: BX-{n} {'switch' if n % 2 else 'server'}\n"
            f"slug: bench-bx-{n}\nu_height: 1\nis_full_depth: true\n"
            "power-ports:\n  - name: PS1\n    type: iec-60320-c14\n    allocated_draw: 450\n"
            f"interfaces:\n  - name: mgmt0\n    type: 1000base-t\n    mgmt_only: true\n{ports}"
        )
        path = folder / f"bench-bx-{n}.yaml"
        path.write_text(text)
        paths.append(path)
    return paths


def run(folder: Path) -> tuple[float, float]:
    """(seconds to load_file every file, seconds for import-netbox of all of them)."""
    (folder / "src").mkdir()
    paths = _write(folder / "src")
    start = time.perf_counter()
    loaded = [load_file(path) for path in paths]
    validated = time.perf_counter() - start
    assert all(not r.errors and len(r.items) == 1 for r in loaded)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["catalog", "import-netbox", "--dest", str(folder / "dest"), *map(str, paths)])
    assert code == 0
    return validated, time.perf_counter() - start


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        validated, imported = run(Path(tmp))
    print(f"{FILES} files: load_file {validated:.2f} s, import-netbox {imported:.2f} s")
