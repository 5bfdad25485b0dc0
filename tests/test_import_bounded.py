"""Hostile import input (issue 18): FIFOs, devices and symlinks to them are refused
without blocking, sizes are checked while reading, and every problem is one line
naming the file (workbench.bounded_read, used by every importer).

Each import runs under an alarm: a hang fails the test instead of stopping the run
(this is a guard, not a timing assertion).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from workbench.asbuilt.reading import read_text as read_capture
from workbench.asbuilt.seen import CaptureError
from workbench.bounded_read import ReadRefused, open_text, read_bounded
from workbench.catalog.errors import CatalogError
from workbench.catalog.yaml_source import read_catalog_bytes
from workbench.export.acceptance import ResultsError, read_results
from workbench.netbox import NetBoxImportError, read_netbox, write_netbox
from workbench.templates import build_template
from workbench.versions.importer import plan_import
from workbench.versions.reports import ReportError
from workbench.versions.stack_file import StackFileError, read_stack_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
HEADER = "node,item,measured,verdict,timestamp\n"


@contextmanager
def no_hang(seconds: int = 20) -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise AssertionError("the import blocked")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _hostile(path: Path, kind: str) -> None:
    """Make ``path`` a FIFO, a symlink to a FIFO, or a symlink to /dev/zero."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to fifo":
        target = path.with_name(path.name + ".pipe")
        os.mkfifo(target)
        path.symlink_to(target)
    else:
        path.symlink_to("/dev/zero")


KINDS = ("fifo", "link to fifo", "link to /dev/zero")


def test_the_helper_refuses_without_reading(tmp_path: Path) -> None:
    for kind in KINDS:
        path = tmp_path / kind.replace("/", "_")
        _hostile(path, kind)
        with no_hang(), pytest.raises(ReadRefused, match="not a regular file"):
            read_bounded(path, 100)
    grown = tmp_path / "grown"
    grown.write_bytes(b"x" * 10)
    with open_text(grown, 10) as handle:
        with grown.open("ab") as more:
            more.write(b"y" * 100)  # grows after fstat: the count still stops it
        with pytest.raises(ReadRefused, match="10-byte limit"):
            handle.read()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["devices.csv", "workbench.yaml"])
def test_netbox_import(tmp_path: Path, name: str, kind: str) -> None:
    folder = tmp_path / "nb"
    write_netbox(build_template("hgx-h100-air"), folder)
    _hostile(folder / name, kind)
    with no_hang(), pytest.raises(NetBoxImportError, match=rf"{name}: not a regular file"):
        read_netbox(folder)


@pytest.mark.parametrize("kind", KINDS)
def test_acceptance_import(tmp_path: Path, kind: str) -> None:
    _hostile(tmp_path / "results-gpu00001.csv", kind)
    with no_hang(), pytest.raises(ResultsError, match="not a regular file"):
        read_results(build_template("hgx-h100-air"), tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_versions_import(tmp_path: Path, kind: str) -> None:
    from test_versions_import import make_design

    _hostile(tmp_path / "gpu-r01-u02.nvidia-smi.csv", kind)
    with no_hang(), pytest.raises(ReportError):
        plan_import(make_design(), tmp_path, who="t")


@pytest.mark.parametrize(
    ("reader", "error"),
    [
        (read_capture, CaptureError),
        (read_catalog_bytes, CatalogError),
        (read_stack_file, StackFileError),
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_other_readers(
    tmp_path: Path, reader: Callable[[Path], object], error: type, kind: str
) -> None:
    path = tmp_path / "input"
    _hostile(path, kind)
    with no_hang(), pytest.raises(error, match="not a (regular|plain) file"):
        reader(path)


# -- the acceptance import's small things ----------------------------------------------------


def test_a_line_break_inside_a_quoted_measured_value_is_not_dropped(tmp_path: Path) -> None:
    """It used to be read as 'ab' silently; now the measured value's rule refuses it,
    naming the line the row starts on."""
    (tmp_path / "results-gpu00001.csv").write_text(
        HEADER
        + "gpu00001,gpu.count,8,PASS,2026-11-02T10:00:00Z\n"
        + 'gpu00001,gpu.fp16_matmul,"a\nb",PASS,2026-11-02T10:00:00Z\n'
    )
    with pytest.raises(ResultsError, match=r"results-gpu00001.csv:3: measured value: .*line"):
        read_results(build_template("hgx-h100-air"), tmp_path)


def test_non_utf8_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "results-gpu00001.csv").write_bytes(
        HEADER.encode() + b"gpu00001,gpu.count,8\xff,PASS,2026-11-02T10:00:00Z\n"
    )
    with pytest.raises(ResultsError, match=r"results-gpu00001.csv:2: is not UTF-8"):
        read_results(build_template("hgx-h100-air"), tmp_path)


def test_carriage_return_in_an_nvidia_smi_csv_field_is_one_line(tmp_path: Path) -> None:
    from test_versions_import import DATA, make_design

    text = (DATA / "nvidia-smi.csv").read_text().splitlines()
    text[1] = '"H100\rSXM"' + text[1][text[1].index(",") :]
    (tmp_path / "gpu-r01-u02.nvidia-smi.csv").write_text("\n".join(text) + "\n")
    with pytest.raises(ReportError) as raised:
        plan_import(make_design(), tmp_path, who="t")
    assert "\n" not in str(raised.value)


def test_netbox_csv_is_streamed(tmp_path: Path) -> None:
    """Memory follows a row, not the file: the reader never holds the whole text."""
    import tracemalloc

    folder = tmp_path / "nb"
    write_netbox(build_template("hgx-h100-air"), folder)
    devices = folder / "devices.csv"
    head, *rows = devices.read_text().splitlines(keepends=True)
    comment = head.rstrip("\n").split(",").index("comments")
    padded = []
    for row in rows:
        cells = row.rstrip("\n").split(",")
        cells[comment] = "c" * 3000
        padded.append(",".join(cells) + "\n")
    devices.write_text(head + "".join(padded))
    size = devices.stat().st_size
    tracemalloc.start()
    try:
        from workbench.netbox import importer

        for _row in importer.read_rows(folder, "devices.csv"):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size, (peak, size)


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip(reason="POSIX FIFOs")
