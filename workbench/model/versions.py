"""The version matrix: baseline stacks, which nodes follow which, and what nodes report.

Three kinds of record, kept apart on purpose:

- a :class:`Baseline` is what a team *intends* a group of nodes to run.  Its
  :class:`BaselineRevision` list only grows: changing a stack adds a revision, so the
  history of decisions is never overwritten and a revision can be compared with the
  one before (the one-layer-at-a-time rule reads exactly that);
- an :class:`Assignment` says which nodes follow a baseline: a device name glob
  (``gpu-su01-*``) or one exact name.  The last assignment that matches a node wins,
  so "all GPU nodes, except this canary rack" is two rows;
- an :class:`Observation` is what a node *reported*, from one imported file.  They are
  appended, never edited: the newest per node and layer is the node's current value,
  and the older ones are its history.

Nodes are named by device *name* rather than id because the files that nodes report
(and the people reading them) know host names; a rename therefore detaches old
observations, which the drift rule shows as "no report" instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The layers of a stack, top-down as the domain brief picks them (framework first,
#: then what it was built for, then the driver, the kernel and the firmware below).
#: Each is (key, label).  The keys are what baseline YAML files and the file use.
LAYERS: tuple[tuple[str, str], ...] = (
    ("framework", "Framework"),
    ("framework_cuda", "Framework CUDA build"),
    ("cuda", "CUDA runtime"),
    ("cudnn", "cuDNN"),
    ("nccl", "NCCL"),
    ("container_runtime", "Container runtime"),
    ("container_toolkit", "NVIDIA Container Toolkit"),
    ("driver", "NVIDIA driver"),
    ("kernel", "Kernel"),
    ("os", "OS"),
    ("nic_firmware", "NIC firmware"),
    ("vbios", "GPU VBIOS"),
    ("bmc", "BMC"),
    ("bios", "BIOS"),
)
LAYER_KEYS: tuple[str, ...] = tuple(key for key, _ in LAYERS)
LAYER_LABELS: dict[str, str] = dict(LAYERS)

#: Layers a node reports that are facts about its hardware rather than a choice of
#: stack: they are observed and shown, never part of a baseline.
OBSERVED_ONLY: tuple[tuple[str, str], ...] = (
    #: nvidia-smi's "CUDA Version": the newest CUDA the *driver* supports, not the
    #: runtime the node's software uses; kept apart so it never passes for ``cuda``.
    ("driver_cuda", "CUDA supported by the driver"),
    ("gpu_model", "GPU model"),
    ("gpu_count", "GPU count"),
    ("gpu_memory_mib", "GPU memory (MiB)"),
    ("gpu_power_limit_w", "GPU power limit (W)"),
    ("gpu_serials", "GPU serials"),
    ("nic_model", "NIC"),
    ("nic_driver", "NIC driver"),
)
OBSERVED_KEYS: tuple[str, ...] = LAYER_KEYS + tuple(key for key, _ in OBSERVED_ONLY)
OBSERVED_LABELS: dict[str, str] = {**LAYER_LABELS, **dict(OBSERVED_ONLY)}


@dataclass(frozen=True)
class BaselineRevision:
    """One decided state of a baseline: layer key → version string.

    ``versions`` holds only the layers the team pins; a layer left out is not checked
    against the nodes.  ``created`` is an ISO-8601 UTC timestamp.
    """

    revision: int
    versions: dict[str, str] = field(default_factory=dict)
    note: str = ""
    author: str = ""
    created: str = ""


@dataclass
class Baseline:
    """A named stack ("H100 training, 2026-Q4") and its revisions, oldest first."""

    id: str
    name: str
    revisions: list[BaselineRevision] = field(default_factory=list)

    @property
    def current(self) -> BaselineRevision | None:
        """The newest revision, the one nodes are compared with."""
        return self.revisions[-1] if self.revisions else None

    def previous(self, revision: int) -> BaselineRevision | None:
        """The revision before ``revision`` (None for the first)."""
        earlier = [r for r in self.revisions if r.revision < revision]
        return earlier[-1] if earlier else None


@dataclass(frozen=True)
class Assignment:
    """Nodes whose device name matches ``pattern`` (an fnmatch glob) follow ``baseline_id``."""

    id: str
    baseline_id: str
    pattern: str


@dataclass(frozen=True)
class Observation:
    """One value one node reported, from one file of one import.

    ``import_id`` groups the observations of one import (one undo step, one summary);
    ``line`` is where in ``source`` the value was read, for the tooltip's story.
    """

    id: str
    node: str
    layer: str
    value: str
    source: str
    line: int | None
    observed_at: str
    imported_by: str
    import_id: str


@dataclass
class VersionMatrix:
    """Everything the design knows about versions; lives at ``Design.versions``."""

    baselines: list[Baseline] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)

    def baseline(self, baseline_id: str) -> Baseline | None:
        return next((b for b in self.baselines if b.id == baseline_id), None)

    def new_id(self, prefix: str) -> str:
        """A fresh id ``PREFIX-N`` for a baseline (``bl``), assignment (``as``) or import
        (``im``).  Version records keep their own id space: they name no rack or device,
        so the design index (which hundreds of thousands of observations would bloat)
        stays out of it."""
        taken = {b.id for b in self.baselines} | {a.id for a in self.assignments}
        if prefix == "im":
            taken |= {o.import_id for o in self.observations}
        n = 1 + sum(1 for t in taken if t.startswith(f"{prefix}-"))
        while f"{prefix}-{n}" in taken:
            n += 1
        return f"{prefix}-{n}"
