"""Benchmark: the six everyday edits in the window as shipped, at 16,384 and 100,000 GPUs.

Issue 21's goal is "every edit within a frame (16 ms) at 100,000 GPUs".  This times
what a planner feels, in the main window with its docks as they ship (Cables, Storage
and Scenarios tabbed behind Checks, the inspector and the catalog open, the Racks tab
current): nothing is hidden to look fast.  Each sample starts at the user's gesture and
stops when the event loop is idle again (:func:`settle`: every zero-delay timer the edit
queued has fired, so every visible figure and every rule finding is current):

* drop a DGX H100 from the catalog onto a free slot (real drag enter/move/drop events);
* undo that drop;
* move a GPU node to another rack (what a drag between racks pushes), undone untimed;
* rename a device (the inspector's edit);
* remove a cabled GPU node (the Delete key on the selection);
* undo that removal.

    .venv/bin/python tests/benchmarks/bench_edits.py [--gpus 16384 100000] [--repeat 7]
        [--json out.json] [--profile EDIT --profile-out file.prof] [--clock cpu]
        [--first FILE]

Beside the edits, every round times a fixed pure-Python workload (:func:`host_probe`:
dict and tuple work like the window's): on a shared machine the host's own speed
drifts by 30-60 % within minutes, and an edit measured in a slow stretch says so only
when something that did not change was measured beside it.  The report gives each
edit's median as measured, and as it would be at the probe's fastest round (each
sample scaled by the probe's best time over the round's own).

``--first FILE``: the first of each edit after opening a design, which may meet what
the index and the fabric build on first need.  Each round starts a window on an empty
design, opens FILE as File > Open does, waits until the first check has ended, then
times, once each and in this order: select a cabled GPU node (the click before Delete),
remove it, undo that, move a node, rename one, drop a node, undo the drop; then a
second removal and drop with their undos, for what later edits cost (``--repeat``
rounds, each on a freshly opened file).

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.catalog import load_catalog  # noqa: E402
from workbench.catalog.item import is_gpu_server  # noqa: E402
from workbench.model.hall_edits import move_devices  # noqa: E402
from workbench.model.placement import free_ranges  # noqa: E402
from workbench.render import rack_geometry as geo  # noqa: E402
from workbench.render.text_speed import draw_text_unshaped  # noqa: E402
from workbench.templates import build_template  # noqa: E402
from workbench.ui.catalog.palette import SLUG_ROLE  # noqa: E402
from workbench.ui.commands import EditCommand, rename_device  # noqa: E402
from workbench.ui.racks.scene import SCENE_SCALE  # noqa: E402
from workbench.ui.shell.app import collector_off_until_first_frame  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

TEMPLATE = "dgx-h100-superpod"
NODE = "nvidia-dgx-h100"
EDITS = ("drop", "undo drop", "move", "rename", "remove", "undo remove")
#: What ``--first`` times, in order, once per freshly opened file.
FIRST = ("select", "remove", "undo remove", "move", "rename", "drop", "undo drop")
#: And then, for comparison, the second of a few (what every later edit costs).
LATER = ("2nd remove", "2nd undo remove", "2nd drop", "2nd undo drop")


def settle(app: QApplication) -> None:
    """Process events until the loop is idle: a zero-delay timer queued now fires after
    everything already pending; repeat while a pass still found work (slots that queue
    another zero-delay refresh)."""
    for _ in range(10):
        fired: list[bool] = []
        QTimer.singleShot(0, lambda f=fired: f.append(True))
        start = time.perf_counter()
        while not fired:
            app.processEvents()
        if time.perf_counter() - start < 0.0003:
            return


#: What a sample reads: wall time (what a planner feels), or with ``--clock cpu`` the
#: main thread's CPU time (the window does all its work there), which other processes
#: on a loaded machine do not inflate: for comparing two trees when it is not quiet.
CLOCK = time.perf_counter


def _ms(start: float) -> float:
    return (CLOCK() - start) * 1000.0


def _mime(window: MainWindow, slug: str):
    proxy = window.palette_widget.proxy
    stack = [proxy.index(r, 0) for r in range(proxy.rowCount())]
    while stack:
        index = stack.pop()
        if index.data(SLUG_ROLE) == slug:
            return proxy.mimeData([index])
        stack.extend(proxy.index(r, 0, index) for r in range(proxy.rowCount(index)))
    raise SystemExit(f"{slug} is not in the catalog")


class Edits:
    """The six edits on one open window (targets chosen once, spread over the hall)."""

    def __init__(self, app: QApplication, window: MainWindow, catalog) -> None:
        self.app, self.window, self.document = app, window, window.document
        design = self.document.design
        height = int(catalog[NODE].u_height)
        self.height = height
        racks = list(design.iter_racks())
        # Drop and move targets: racks with a free run of the node's height.
        self.free: list[tuple[str, int]] = []
        for rack in racks[len(racks) // 3 :] + racks[: len(racks) // 3]:
            runs = [r for r in free_ranges(design, rack) if len(r) >= height]
            if runs:
                self.free.append((rack.id, runs[-1].start))
            if len(self.free) >= 64:
                break
        # Cabled GPU nodes to move, rename and remove.
        types = design.device_types
        self.nodes = [
            d.id
            for _r, d in design.iter_devices()
            if (item := types.get(d.device_type)) is not None and is_gpu_server(item)
        ][:: max(1, len(racks) // 40)][:40]
        self.mime = _mime(window, NODE)
        self.k = 0

    def _next(self) -> int:
        self.k += 1
        return self.k

    def drop(self) -> Callable[[], None]:
        """Prepare a drop (drag enter and move untimed) and return the timed release."""
        app, view, design = self.app, self.window.rack_view, self.document.design
        rack_id, u = self.free[self._next() % len(self.free)]
        rack = design.find_rack(rack_id)
        assert rack is not None
        item = view.rack_item(rack_id)
        assert item is not None
        rect = geo.u_rect(u, 1, geo.rack_units(rack, design), SCENE_SCALE)
        scene = item.mapToScene(QPointF(rect.x + rect.w / 2, rect.y + rect.h / 2))
        view.centerOn(scene)
        settle(app)
        where = view.mapFromScene(scene)
        left, no = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        action = Qt.DropAction.CopyAction
        viewport = view.viewport()
        QApplication.sendEvent(viewport, QDragEnterEvent(where, action, self.mime, left, no))
        QApplication.sendEvent(viewport, QDragMoveEvent(where, action, self.mime, left, no))
        settle(app)
        count = self.document.undo_stack.index()

        def release() -> None:
            event = QDropEvent(QPointF(where), action, self.mime, left, no)
            QApplication.sendEvent(viewport, event)
            if self.document.undo_stack.index() != count + 1:
                raise SystemExit(f"the drop onto {rack_id} U{u} was refused")

        return release

    def undo(self) -> None:
        self.document.undo()

    def move(self) -> Callable[[], None]:
        node = self.nodes[self._next() % len(self.nodes)]
        found = self.document.design.find_device(node)
        assert found is not None
        target = next((r, u) for r, u in self.free[self.k % len(self.free) :] if r != found[0].id)
        batch = move_devices(self.document.design, target[0], [(node, target[1], "front")])
        return lambda: self.document.push(EditCommand(self.document, batch, "Move device"))

    def rename(self) -> Callable[[], None]:
        node = self.nodes[self._next() % len(self.nodes)]
        name = f"renamed-{self.k}"
        return lambda: self.document.push(rename_device(self.document, node, name))

    def remove(self) -> Callable[[], None]:
        self.select()()
        settle(self.app)
        return self.delete

    def delete(self) -> None:
        """The Delete key on the selection."""
        self.document.delete_selected()

    def select(self) -> Callable[[], None]:
        """The click on a cabled GPU node before it is removed."""
        node = self.nodes[self._next() % len(self.nodes)]
        return lambda: self.document.select(node)


def host_probe() -> float:
    """Milliseconds (on the bench's clock) of a fixed pure-Python workload, the best of
    three: the host's speed when the round ran, for telling a slow stretch of a shared
    machine from a slow edit."""
    best = float("inf")
    for _ in range(3):
        start = CLOCK()
        table: dict[str, tuple[int, int]] = {}
        for i in range(20_000):
            table[str(i)] = (i, i + i)
        total = 0
        for key in sorted(table):
            total += table[key][0]
        best = min(best, _ms(start))
    return best


def timed(app: QApplication, action: Callable[[], None]) -> float:
    settle(app)
    start = CLOCK()
    action()
    settle(app)
    return _ms(start)


def open_window(
    app: QApplication, catalog, settings_dir: Path, gpus: int = 0, path: Path | None = None
) -> MainWindow:
    """A window as shipped on the template built at ``gpus``, or on an empty design that
    then opens ``path`` as File > Open does; returned once the first check has ended."""
    design = build_template(TEMPLATE, gpus=gpus, catalog=catalog) if path is None else None
    settings = QSettings(str(settings_dir / f"s{gpus}.ini"), QSettings.Format.IniFormat)
    document = Document(catalog=catalog)
    window = MainWindow(document, catalog=catalog, settings=settings)
    window.file_actions.autosave_timer.stop()  # an autosave would land inside a sample
    # The collector as the application's start sets it: off until the design's first
    # check and warm-up, which then set what was built aside (later passes walk only
    # what edits make, not the whole design).
    collector_off_until_first_frame(window)
    if design is not None:
        document.replace_design(design, None)
    window.resize(1600, 1000)
    window.show()
    settle(app)
    if path is not None and not window.file_actions.open_path(path, ask_save=False):
        raise SystemExit(f"cannot open {path}")
    settle(app)
    # The first check and the warm-up after it run in slices: let them end (a tree
    # from before the warm-up ran after the check has no `settled`).
    while not getattr(document.figures, "settled", document.figures.checked):
        app.processEvents()
    settle(app)
    return window


def close_window(app: QApplication, window: MainWindow) -> None:
    window.document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    settle(app)


def sampler(
    app: QApplication,
    samples: dict[str, list[float]],
    profile: str | None,
    profiler: cProfile.Profile | None,
) -> Callable[[str, Callable[[], None]], None]:
    """Time one action into ``samples[name]`` (under the profiler when it is ``profile``)."""

    def sample(name: str, action: Callable[[], None]) -> None:
        if profiler is not None and profile == name:
            profiler.enable()
        samples[name].append(timed(app, action))
        if profiler is not None and profile == name:
            profiler.disable()

    return sample


#: The name the probe's times are kept under among the samples.
PROBE = "host probe"


def report(title: str, samples: dict[str, list[float]]) -> None:
    """Each edit's min and median, and its median at the probe's fastest round."""
    print(title)
    probes = samples.get(PROBE, [])
    for name, values in samples.items():
        line = (
            f"  {name:15s} min {min(values):7.1f} ms   median {statistics.median(values):7.1f} ms"
        )
        if probes and name != PROBE:
            line += f"   at the fastest probe {statistics.median(scaled(values, probes)):7.1f} ms"
        print(line)
    if probes:
        print(f"  (host probe: slowest round {max(probes) / min(probes):.2f}x its fastest)")


def scaled(values: list[float], probes: list[float]) -> list[float]:
    """``values`` (one per round, in order) each scaled to the probe's fastest round."""
    best = min(probes)
    return [value * best / probe for value, probe in zip(values, probes, strict=True)]


def run_first(
    app: QApplication, catalog, args: argparse.Namespace, profiler: cProfile.Profile | None
) -> dict[str, list[float]]:
    """The first of each edit after opening ``args.first`` (see ``--first``)."""
    samples: dict[str, list[float]] = {name: [] for name in FIRST + LATER}
    sample = sampler(app, samples, args.profile, profiler)
    probes = samples[PROBE] = []
    for _ in range(args.repeat):
        window = open_window(app, catalog, args.settings_dir, path=args.first)
        edits = Edits(app, window, catalog)
        probes.append(host_probe())
        sample("select", edits.select())
        sample("remove", edits.delete)
        sample("undo remove", edits.undo)
        sample("move", edits.move())
        sample("rename", edits.rename())
        sample("drop", edits.drop())
        sample("undo drop", edits.undo)
        sample("2nd remove", edits.remove())
        sample("2nd undo remove", edits.undo)
        sample("2nd drop", edits.drop())
        sample("2nd undo drop", edits.undo)
        close_window(app, window)
    return samples


def run_size(
    app: QApplication,
    catalog,
    gpus: int,
    repeat: int,
    settings_dir: Path,
    profile: str | None = None,
    profiler: cProfile.Profile | None = None,
) -> dict[str, list[float]]:
    window = open_window(app, catalog, settings_dir, gpus)
    edits = Edits(app, window, catalog)
    samples: dict[str, list[float]] = {name: [] for name in EDITS}
    sample = sampler(app, samples, profile, profiler)
    probes = samples[PROBE] = []

    for _ in range(repeat):
        settle(app)
        probes.append(host_probe())
        sample("drop", edits.drop())
        sample("undo drop", edits.undo)
        move = edits.move()
        sample("move", move)
        edits.undo()
        settle(app)
        sample("rename", edits.rename())
        sample("remove", edits.remove())
        sample("undo remove", edits.undo)
    close_window(app, window)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[16_384, 100_000])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write the samples here")
    parser.add_argument(
        "--profile", choices=sorted({*EDITS, *FIRST, *LATER}), help="cProfile this edit's samples"
    )
    parser.add_argument("--profile-out", type=Path, default=Path("edits.prof"))
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (default), or the main thread's CPU time (a loaded machine)",
    )
    parser.add_argument("--first", type=Path, help="time the first edits after opening this")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    found = QApplication.instance()
    app = found if isinstance(found, QApplication) else QApplication(sys.argv[:1])
    draw_text_unshaped()  # as the application's start sets it (ui.shell.app)
    catalog = load_catalog(include_user=False)
    profiler = cProfile.Profile() if args.profile else None
    results: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = tmp
        args.settings_dir = Path(tmp)
        if args.first:
            samples = run_first(app, catalog, args, profiler)
            results["first"] = samples
            report(
                f"\nfirst edits after opening {args.first.name} ({args.repeat} opens, "
                f"{args.clock} clock)",
                samples,
            )
        for gpus in [] if args.first else args.gpus:
            samples = run_size(app, catalog, gpus, args.repeat, Path(tmp), args.profile, profiler)
            results[str(gpus)] = samples
            report(
                f"\n{gpus:,} GPUs, window as shipped ({args.repeat} samples each, "
                f"{args.clock} clock)",
                samples,
            )
    print("(one frame = 16.7 ms)")
    if args.json:
        args.json.write_text(json.dumps(results))
    if profiler is not None:
        profiler.dump_stats(str(args.profile_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
