"""The Versions tab and ``workbench versions`` at 100,000 GPUs (12,500 nodes, ~200,000
observations): opening the tab, filtering, an edit's reload, save and open of the file.

Run: QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_versions_view.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_versions import big_design  # noqa: E402


def timed(label: str, fn):
    start = time.perf_counter()
    out = fn()
    print(f"{label:<46} {1000 * (time.perf_counter() - start):8.0f} ms")
    return out


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from workbench.store import open_design, save_design
    from workbench.ui.shell.document import Document
    from workbench.ui.versions.view import VersionsView

    app = QApplication.instance() or QApplication([])
    design, nodes = big_design()
    print(f"{nodes:,} nodes, {len(design.versions.observations):,} observations")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.dcwb"
        timed("save", lambda: save_design(design, path))
        design = timed("open", lambda: open_design(path))
    document = Document(design)
    view = timed("Versions tab: build and fill", lambda: VersionsView(document))
    view.resize(1400, 800)
    timed("show and paint", lambda: (view.show(), app.processEvents(), view.grab()))
    timed("filter 'gpu01' (typed)", lambda: view.search.setText("gpu01"))
    timed("clear filter", lambda: view.search.setText(""))
    timed("drifted only", lambda: view.drifted.setChecked(True))
    timed("reload after a matrix edit", view.reload)


if __name__ == "__main__":
    main()
