"""``health_check.sh`` and ``expected.csv``: the acceptance checklist, run on a node.

The script is one file for every node (bash, ``set -u``, POSIX tools only); what
differs per node is in ``expected.csv`` (``node,item,op,expected,param``, the items of
:mod:`workbench.export.acceptance_items`).  On a node it runs each of the node's items,
compares the measurement with the expectation (the same ``op`` kinds as the items) and
writes ``results-<node>.csv`` (``node,item,measured,verdict,timestamp``), which
:func:`workbench.export.acceptance.read_results` brings back into the design.

A missing tool (no ``nvidia-smi`` on a laptop, no ``ibstatus`` on an Ethernet node) is
a SKIP with the reason as the measured value, never a FAIL; so are the heavy items
(GEMM, DCGM level 2, all-reduce, fio, NCCL in a container, a Slurm job, the short
training run) unless ``-a`` is given, and the two-node items unless a peer is named
with ``-p``.  The container items need ``CONTAINER_IMAGE`` / ``NCCL_IMAGE`` and the
training run ``TRAIN_CMD`` (the site's images and job); ``HC_ROOT`` makes the script
read ``/proc``, ``/sys`` and ``/etc`` under a folder (the tests' DGX H100 transcripts).
Nodes are named by the host names the Slurm and Kubernetes exports give them
(:func:`workbench.export.acceptance_items.node_host`, i.e. ``text_rules.node_hostname``):
the script matches ``hostname -s`` and asks ``sinfo``/``kubectl`` about that name, and
the CSV is unquoted.  A design name the mapping cannot carry, or two servers mapping
to one host name, is refused here exactly as the Slurm export refuses it.  The script's text is
:mod:`workbench.export.health_check_script`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from workbench.export.acceptance_items import node_checklists, node_host
from workbench.export.handoff import check_node_names, gpu_nodes
from workbench.export.health_check_script import SCRIPT
from workbench.export.output import ExportError, Progress, no_progress, write_folder
from workbench.model.design import Design

EXPECTED_HEADER = ("node", "item", "op", "expected", "param")
RESULTS_HEADER = ("node", "item", "measured", "verdict", "timestamp")


def expected_csv(design: Design, where: Path = Path("expected.csv")) -> str:
    """``expected.csv`` text: one row per node and item.

    The script splits rows on commas without quoting, so a value holding a comma, a
    quote or a line break (a driver pin typed oddly) is an ExportError naming it.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(EXPECTED_HEADER)
    for device, items in node_checklists(design):
        for item in items:
            row = (node_host(device), item.id, item.op, item.expected, item.param)
            for value in row:
                if any(ch in value for ch in ',"\n\r'):
                    raise ExportError(
                        where,
                        f"node {node_host(device)!r}, item {item.id}: expected "
                        f"value {value!r} holds a comma, quote or line break",
                    )
            writer.writerow(row)
    return buffer.getvalue()


def write_health_check(
    design: Design, folder: Path, *, progress: Progress = no_progress
) -> list[Path]:
    """Write ``health_check.sh`` and ``expected.csv`` into ``folder`` (all or nothing)."""
    # The same nodes and refusals as slurm.conf: a name no host name carries, or two
    # servers sharing one, would make the script check the wrong machine.
    check_node_names(gpu_nodes(design), Path(folder))
    progress(0.1, "Expected values")
    files = {
        "health_check.sh": SCRIPT,
        "expected.csv": expected_csv(design, Path(folder) / "expected.csv"),
    }
    written = write_folder(folder, files)
    (Path(folder) / "health_check.sh").chmod(0o755)
    progress(1.0, "Done")
    return written
